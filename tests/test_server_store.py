"""The event store: append with expected seq, append-only at the database, hash chain,
import, replay at any seq, cache rebuilt from the log."""

from __future__ import annotations

import threading
from random import Random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.utils import DatabaseError
from server_helpers import pick_move

import core
from core.api import ALL, IllegalMoveError, dumps, fold
from server.games import append, cache, chain, creating, reading, seating
from server.games.models import Event, Game

pytestmark = pytest.mark.django_db(transaction=True)


def guests(n: int) -> list[dict[str, str]]:
    return [{"kind": "guest", "name": f"P{i}"} for i in range(n)]


def play_random(game_id: int, moves: int, seed: int = 1) -> None:
    rng = Random(seed)
    for _ in range(moves):
        e = cache.entry(game_id)
        g = e.game
        if g.outcome(e.state) is not None:
            return
        seat = rng.choice(g.to_act(e.state))
        append.submit(game_id, seat, pick_move(g.legal_commands(e.state, seat), rng), e.seq)


def test_create_submit_and_fold_equals_log(server_runtime):
    game = creating.create_game("teeko", {"move_cap": 120}, guests(2))
    assert game.status == Game.LIVE and len(game.code) == 6 and set(game.guest_secrets) == {0, 1}
    e = cache.entry(game.pk)
    assert e.seq == 1 and e.log[0][2]["type"] == "start"
    res = append.submit(game.pk, 0, {"type": "place", "to": "c3"}, 1)
    assert res.seq == 2 and res.records[0][1] == 0
    play_random(game.pk, 200)
    rows = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "payload"))
    assert [s for s, _ in rows] == list(range(1, len(rows) + 1))
    state = fold(core.GAMES["teeko"], [p for _, p in rows])
    e = cache.entry(game.pk)
    assert dumps(e.game.view(state, ALL)) == dumps(e.game.view(e.state, ALL))
    game.refresh_from_db()
    assert game.status == Game.FINISHED and game.outcome == e.game.outcome(state).to_json()
    assert game.finished_at is not None


def test_refused_commands_append_nothing(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    cases = [
        (0, {"type": "place", "to": "z9"}, 1, "illegal"),
        (1, {"type": "place", "to": "c3"}, 1, "not_your_turn"),
        (0, "junk", 1, "malformed"),
        (5, {"type": "place", "to": "c3"}, 1, "wrong_seat"),
        (0, {"type": "place", "to": "c3"}, 0, "stale"),
        (0, {"type": "place", "to": "c3"}, 7, "stale"),
        (0, {"type": "place", "to": "c3"}, "1", "malformed"),
    ]
    for seat, cmd, seq, code in cases:
        with pytest.raises(IllegalMoveError) as err:
            append.submit(game.pk, seat, cmd, seq)
        assert (
            err.value.code in (code, "illegal", "malformed")
            if code == "illegal"
            else err.value.code == code
        )
    assert Event.objects.filter(game=game).count() == 1
    assert append.submit(game.pk, 0, {"type": "place", "to": "c3"}, 1).seq == 2


def test_concurrent_same_expected_seq_exactly_one_wins(server_runtime):
    """Two threads (own connections), same expected seq, caches bypassed: one append, one stale."""
    game = creating.create_game("teeko", {}, guests(2))
    gid = game.pk
    barrier = threading.Barrier(2)
    results: list[object] = []

    def attempt(square: str) -> None:
        try:
            barrier.wait()
            results.append(append.submit(gid, 0, {"type": "place", "to": square}, 1))
        except Exception as exc:
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(sq,)) for sq in ("a1", "e5")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = [r for r in results if isinstance(r, append.SubmitResult)]
    stale = [r for r in results if isinstance(r, append.StaleError)]
    assert len(ok) == 1 and len(stale) == 1, results
    assert stale[0].seq == 2
    assert Event.objects.filter(game_id=gid).count() == 2


def test_stale_append_from_another_process_fails_cleanly(server_runtime):
    """The database's unique (game, seq) is the last line: a cache that missed an append
    (as in a second server process) gets a stale error, and recovers."""
    game = creating.create_game("teeko", {}, guests(2))
    cache.entry(game.pk)  # cached at seq 1
    other = cache._load(game.pk)  # "another process"
    batch = append.Append(
        game.pk, [(2, 0, {"type": "placed", "seat": 0, "to": "a1"})], other.last_hash, None, None
    )
    append.append(batch)
    assert batch.hashes
    with pytest.raises(append.StaleError) as err:
        append.submit(game.pk, 0, {"type": "place", "to": "c3"}, 1)
    assert err.value.seq == 2
    assert append.submit(game.pk, 1, {"type": "place", "to": "c3"}, 2).seq == 3
    assert chain.verify_chain(game.pk).ok


def test_update_and_delete_refused_by_database(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    append.submit(game.pk, 0, {"type": "place", "to": "c3"}, 1)
    for sql in (
        "UPDATE games_event SET seat = 1 WHERE game_id = %s",
        "DELETE FROM games_event WHERE game_id = %s",
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(sql, [game.pk])
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(game=game).update(seat=3)
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(game=game).delete()
    assert Event.objects.filter(game=game).count() == 2
    assert chain.verify_chain(game.pk).ok


def test_hash_chain_detects_an_edited_row(server_runtime, capsys):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 12)
    assert chain.verify_chain(game.pk).ok
    call_command("verify_chain", game.pk)
    assert "ok" in capsys.readouterr().out
    with connection.cursor() as cur:  # tamper as the superuser, trigger off for a moment
        cur.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete")
        cur.execute(
            "UPDATE games_event SET payload = jsonb_set(payload, '{to}', '\"e5\"') "
            "WHERE game_id = %s AND seq = 4",
            [game.pk],
        )
        cur.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete")
    report = chain.verify_chain(game.pk)
    assert not report.ok and report.bad_seq == 4 and "hash" in report.reason
    with pytest.raises(CommandError):
        call_command("verify_chain", game.pk)
    assert "BROKEN at seq 4" in capsys.readouterr().out


def test_hash_chain_detects_a_deleted_row(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 6)
    with connection.cursor() as cur:
        cur.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete")
        cur.execute("DELETE FROM games_event WHERE game_id = %s AND seq = 3", [game.pk])
        cur.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete")
    report = chain.verify_chain(game.pk)
    assert not report.ok and report.bad_seq == 3


def test_import_game_stores_log_with_chain(server_runtime):
    src = creating.create_game("teeko", {"squares": "classic", "move_cap": 100}, guests(2))
    play_random(src.pk, 300, seed=5)
    log = reading.records(src.pk)
    copy = creating.import_game(
        "teeko", None, guests(2), [{"seat": s, "event": ev} for _, s, ev in log]
    )
    assert copy.options["squares"] == "classic"
    assert copy.status == Game.FINISHED and copy.outcome == Game.objects.get(pk=src.pk).outcome
    assert chain.verify_chain(copy.pk).ok
    assert [r[1:] for r in reading.records(copy.pk)] == [r[1:] for r in log]
    with pytest.raises(core.OptionsError):
        creating.import_game("teeko", None, None, [{"type": "placed", "seat": 0, "to": "a1"}])
    with pytest.raises(core.OptionsError):
        creating.import_game("nope", None, None, [])


def test_replay_at_any_seq_and_cache_rebuild(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 300, seed=9)
    cache.SNAPSHOT_EVERY = 7  # exercise replay from snapshots too
    e = cache.entry(game.pk)
    g = e.game
    expected = [dumps(g.view(g.initial(), ALL))]
    st = g.initial()
    for _, _, ev in e.log:
        st = g.evolve(st, ev)
        expected.append(dumps(g.view(st, ALL)))
    cache.drop_cache()
    for n in range(e.seq + 1):
        _, at, st = reading.state_at(game.pk, n)
        assert at == n and dumps(g.view(st, ALL)) == expected[n]
    cache.drop_cache(game.pk)
    _, at, st = reading.state_at(game.pk)
    assert at == e.seq and dumps(g.view(st, ALL)) == expected[-1]


def test_join_seats_and_credentials(server_runtime, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw")
    bob = django_user_model.objects.create_user("bob", password="pw")
    game = creating.create_game("teeko", {},
                                [{"kind": "open"}, {"kind": "user", "username": "bob"}])
    assert game.status == Game.OPEN
    assert seating.join_seat(game.pk, user=ann) == (0, None)
    assert seating.join_seat(game.pk, user=ann) == (0, None)  # idempotent
    assert Game.objects.get(pk=game.pk).status == Game.LIVE
    with pytest.raises(seating.JoinError):
        seating.join_seat(game.pk, name="Cid")
    assert seating.seat_holder_ok(game.pk, 0, user=ann)
    assert not seating.seat_holder_ok(game.pk, 0, user=bob)
    assert seating.seat_holder_ok(game.pk, 1, user=bob)
    g2 = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "random"}])
    seat, secret = seating.join_seat(g2.pk, name="Dee")
    assert seat == 0 and secret
    assert seating.seat_holder_ok(g2.pk, 0, secret=secret)
    assert not seating.seat_holder_ok(g2.pk, 0, secret=secret + "x")
    assert not seating.seat_holder_ok(g2.pk, 1, secret=secret)  # bots are held by no client
    with pytest.raises(core.OptionsError):
        creating.create_game("teeko", {}, [{"kind": "bot", "level": "godlike"}])
    with pytest.raises(core.OptionsError):
        creating.create_game("teeko", {"squares": "hexagons"})


def test_chain_hash_is_sha256_of_previous_and_canonical_record():
    import hashlib

    event = {"type": "placed", "to": "c3", "seat": 1, "x": [1, {"b": 2, "a": "\u00e9"}]}
    for seat in (None, 0, 3):
        body = dumps({"seq": 7, "seat": seat, "event": event})
        want = hashlib.sha256(("ab" + body).encode()).hexdigest()
        assert chain.chain_hash("ab", 7, seat, event) == want
        assert chain.chain_hash_json("ab", 7, seat, dumps(event)) == want


def test_the_store_refuses_an_empty_batch_before_any_sql(server_runtime):
    """An append of no events is a narrow error raised before a statement is built."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.api import IllegalMoveError

    gid = creating.create_game("teeko").pk
    seq = append.current_seq(gid)
    with CaptureQueriesContext(connection) as queries:
        with pytest.raises(append.EmptyBatch):
            append.Append(gid, [], "", None, None)
    assert not [q for q in queries.captured_queries if "INSERT" in q["sql"]]
    with pytest.raises(IllegalMoveError) as refused:
        append.submit(gid, 0, None, seq)
    assert refused.value.code == "malformed"
    assert append.current_seq(gid) == seq


def test_an_imported_log_of_several_statements_ends_the_game_at_its_last_event(
    server_runtime, monkeypatch
):
    """A log longer than one statement takes (``INSERT_CHUNK`` events) is appended in one
    transaction; the last statement carries the outcome and marks the game finished at the
    last event's time, as one statement does for a move that ends a game."""
    import datetime as dt

    played = creating.create_game("teeko", {"move_cap": 120}, guests(2))
    play_random(played.pk, 200)
    played.refresh_from_db()
    assert played.status == Game.FINISHED
    log = [ev for _seq, _seat, ev in reading.records(played.pk)]
    assert len(log) > 7
    monkeypatch.setattr(append, "INSERT_CHUNK", 3)
    t0 = dt.datetime(2026, 1, 2, 20, 0, tzinfo=dt.UTC)
    times = [t0 + dt.timedelta(seconds=10 * i) for i in range(len(log))]
    batch = append.Append(0, [(i, None, ev) for i, ev in enumerate(log, start=1)],
                         chain.GENESIS, None, None, times)
    assert len(batch.statements) == -(-len(log) // 3)
    game = creating.import_game("teeko", None, guests(2), log, times=times)
    game.refresh_from_db()
    assert game.status == Game.FINISHED and game.outcome == played.outcome
    assert game.created_at == times[0] and game.finished_at == times[-1]
    assert Event.objects.filter(game=game).count() == len(log)
    assert list(Event.objects.filter(game=game).filter(outcome__isnull=False).values_list(
        "seq", flat=True)) == [len(log)]
    report = chain.verify_chain(game.pk)
    assert report.ok and report.events == len(log)
