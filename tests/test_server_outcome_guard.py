"""A game's stored outcome is its log's, in PostgreSQL itself (migration 0008): the event
that ends a game carries the outcome, the game row takes only that one, and an end in the
log that the game row does not show is refused at commit. Every way the server ends a game
(a move, a resignation, a forfeit on time, an organiser's result, an imported log) still
does, and ``/verify/`` checks the events' outcome against the fold of the log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from server_helpers import finish
from test_server_store import guests, play_random

from core.api import dumps, fold
from server import dbconfig
from server.games import append, cache, chain, creating, reading
from server.games.models import Event, Game

pytestmark = pytest.mark.django_db(transaction=True)

WRONG = {"winners": [1], "reason": "five_in_a_row", "scores": []}


@pytest.fixture
def app_conn(transactional_db: Any) -> Iterator[psycopg.Connection[Any]]:
    """A connection to the test database as the server's role (autocommit: each statement
    commits, so the checks deferred to the commit run at its end)."""
    app = dbconfig.app_credentials()
    if app is None:
        pytest.skip("DATABASE_URL without DATABASE_OWNER_URL: the server has no separate role")
    sd = connection.settings_dict
    with psycopg.connect(host=sd["HOST"], port=str(sd["PORT"] or 5432), dbname=sd["NAME"],
                         user=app[0], password=app[1], autocommit=True) as conn:
        yield conn


def ends(game_id: int) -> list[Any]:
    """The outcome column of each event of the game, seq 1 first."""
    return list(Event.objects.filter(game_id=game_id).order_by("seq")
                .values_list("outcome", flat=True))


def the_end_is_the_logs(game_id: int, client: Any) -> None:
    """The game is finished with the fold's outcome, carried by its last event only, and
    ``/verify/`` says ok."""
    g = Game.objects.get(pk=game_id)
    e = cache.entry(game_id)
    folded = e.game.outcome(fold(e.game, [ev for _s, _seat, ev in reading.records(game_id)]))
    assert folded is not None and g.status == Game.FINISHED
    assert g.outcome == json.loads(dumps(folded.to_json()))
    column = ends(game_id)
    assert column[-1] == g.outcome and all(x is None for x in column[:-1]), column
    assert client.get(f"/api/games/{game_id}/verify/").json()["ok"] is True


def next_row(game_id: int, event: dict[str, Any], outcome: Any) -> list[Any]:
    """The INSERT parameters of the game's next event, with a correct seq and hash (a
    first-version event)."""
    report = chain.verify_chain(game_id)
    seq = report.events + 1
    h = chain.chain_hash(report.head or chain.GENESIS, seq, None, event)
    return [game_id, seq, event["type"], json.dumps(event), None, h,
            None if outcome is None else json.dumps(outcome), 1]


RESULT = {"type": "result", "winners": [1], "reason": "adjudicated", "scores": []}


def test_the_server_role_cannot_write_an_outcome_its_log_does_not_end_with(
    server_runtime, app_conn, client
):
    live = creating.create_game("teeko", {}, guests(2))
    play_random(live.pk, 3)
    before = chain.verify_chain(live.pk).events
    # a first outcome on a live game whose log does not end
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="last event does not end it"):
        app_conn.execute("UPDATE games_game SET status = 'finished', finished_at = now(), "
                         "outcome = %s::jsonb WHERE id = %s", (json.dumps(WRONG), live.pk))
    # an end in the log that the game row does not show: refused when it commits
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="ends game"):
        app_conn.execute(append._INSERT_HEAD + append._INSERT_ROW,
                         next_row(live.pk, RESULT, WRONG))
    # the end in the log and another outcome on the game row
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="last event does not end it"):
        with app_conn.transaction():
            app_conn.execute(append._INSERT_HEAD + append._INSERT_ROW,
                             next_row(live.pk, RESULT, WRONG))
            app_conn.execute("UPDATE games_game SET status = 'finished', outcome = %s::jsonb "
                             "WHERE id = %s", (json.dumps({**WRONG, "winners": [0]}), live.pk))
    # an event after the one that ends the game, in the same transaction
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        with app_conn.transaction():
            first = next_row(live.pk, RESULT, WRONG)
            ev = {"type": "placed", "seat": 0, "to": "c3"}
            h = chain.chain_hash(first[5], first[1] + 1, None, ev)
            app_conn.execute(append._INSERT_HEAD + append._INSERT_ROW, first)
            app_conn.execute(append._INSERT_HEAD + append._INSERT_ROW,
                             [live.pk, first[1] + 1, "placed", json.dumps(ev), None, h, None, 1])
            app_conn.execute("UPDATE games_game SET status = 'finished', outcome = %s::jsonb "
                             "WHERE id = %s", (json.dumps(WRONG), live.pk))
    # nothing of it stayed: the game plays on and ends as its moves end it
    g = Game.objects.get(pk=live.pk)
    assert g.status == Game.LIVE and g.outcome is None
    assert chain.verify_chain(live.pk).events == before and set(ends(live.pk)) == {None}
    cache.drop_cache()
    finish(live.pk)
    the_end_is_the_logs(live.pk, client)

    # What the role can still do is append an end the log's moves do not reach, with the
    # game row agreeing: it is in the log for good, and /verify/ says it is not the fold's.
    other = creating.create_game("teeko", {}, guests(2))
    play_random(other.pk, 2)
    with app_conn.transaction():
        app_conn.execute(append._INSERT_HEAD + append._INSERT_ROW,
                         next_row(other.pk, {"type": "placed", "seat": 0, "to": "e5"}, WRONG))
        app_conn.execute("UPDATE games_game SET status = 'finished', outcome = %s::jsonb "
                         "WHERE id = %s", (json.dumps(WRONG), other.pk))
    body = client.get(f"/api/games/{other.pk}/verify/").json()
    assert body["ok"] is False and "differs from the outcome of the log" in body["reason"], body


def test_every_way_a_game_ends_still_ends_it(server_runtime, client):
    by_moves = creating.create_game("teeko", {}, guests(2))
    finish(by_moves.pk)  # the hot path: one autocommitted statement
    the_end_is_the_logs(by_moves.pk, client)

    in_transaction = creating.create_game("teeko", {}, guests(2))
    play_random(in_transaction.pk, 3)
    with transaction.atomic():  # inside a caller's transaction: the INSERT, then the UPDATE
        append.append_result(in_transaction.pk, [], "void")
    the_end_is_the_logs(in_transaction.pk, client)

    resigned = creating.create_game("teeko", {}, guests(2))
    play_random(resigned.pk, 2)
    e = cache.entry(resigned.pk)
    append.submit(resigned.pk, e.game.to_act(e.state)[0], {"type": "resign"}, e.seq)
    the_end_is_the_logs(resigned.pk, client)

    decided = creating.create_game("teeko", {}, guests(2))
    play_random(decided.pk, 3)
    append.append_result(decided.pk, [0], "forfeit")
    the_end_is_the_logs(decided.pk, client)
    assert Game.objects.get(pk=decided.pk).outcome["winners"] == [0]

    # a forfeit on time: the table's timeout and the forfeit before it, in one batch
    timed = creating.create_game("teeko", {}, guests(2))
    play_random(timed.pk, 2)
    e = cache.entry(timed.pk)
    seat = e.game.to_act(e.state)[0]
    forfeit = e.game.decide_result(e.state, {"type": "result", "winners": [1 - seat],
                                             "reason": "forfeit", "scores": None})
    append.submit(timed.pk, seat, None, e.seq,
                 pre=[(None, {"type": "timeout", "seat": seat}), *((None, x) for x in forfeit)])
    the_end_is_the_logs(timed.pk, client)
    assert ends(timed.pk)[-2] is None

    # an imported log that ends: created, appended and finished in one transaction
    copy = creating.import_game("teeko", None, None,
                             [ev for _s, _seat, ev in reading.records(by_moves.pk)])
    the_end_is_the_logs(copy.pk, client)
    unfinished = creating.import_game("teeko", None, None,
                                   [ev for _s, _seat, ev in reading.records(by_moves.pk)][:4])
    assert Game.objects.get(pk=unfinished.pk).status != Game.FINISHED
    assert set(ends(unfinished.pk)) == {None}
    assert client.get(f"/api/games/{unfinished.pk}/verify/").json()["ok"] is True


def test_verify_sees_an_outcome_on_the_wrong_event(server_runtime, client):
    """Written by the owner with the triggers off, what the database otherwise refuses."""
    game = creating.create_game("teeko", {}, guests(2))
    finish(game.pk)
    outcome = json.dumps(Game.objects.get(pk=game.pk).outcome)
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("ALTER TABLE games_event DISABLE TRIGGER USER")
        cur.execute("UPDATE games_event SET outcome = %s::jsonb WHERE game_id = %s AND seq = 3",
                    [outcome, game.pk])
        cur.execute("ALTER TABLE games_event ENABLE TRIGGER USER")
    body = client.get(f"/api/games/{game.pk}/verify/").json()
    assert body["ok"] is False and body["bad_seq"] == 3 and "before the last" in body["reason"]


def test_the_migration_gives_finished_games_their_end(server_runtime, client):
    """Unapplied and applied again on a database with a finished and a live game: the
    finished game's last event gets its outcome, the live game's events none."""
    done = creating.create_game("teeko", {}, guests(2))
    finish(done.pk)
    live = creating.create_game("teeko", {}, guests(2))
    play_random(live.pk, 3)
    call_command("migrate", "games", "0007", verbosity=0)
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM information_schema.columns "
                    "WHERE table_name = 'games_event' AND column_name = 'outcome'")
        assert cur.fetchone() == (0,)
    call_command("migrate", verbosity=0)  # (every app: the tests after it meet today's schema)
    cache.drop_cache()
    the_end_is_the_logs(done.pk, client)
    assert set(ends(live.pk)) == {None}
    finish(live.pk)
    the_end_is_the_logs(live.pk, client)
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Event.objects.filter(game_id=done.pk).update(outcome=None)


def test_the_club_bench_stores_games_that_end_as_their_logs(server_runtime, client):
    """``bench_club`` writes its finished games through the store, with their times."""
    from bench.club import make_league

    league = make_league(4, 6)
    games = list(Game.objects.filter(league=league).values_list("pk", flat=True))
    assert len(games) == 6
    for gid in games:
        the_end_is_the_logs(gid, client)
