"""Versioned events on the server: every row carries its schema version (migration 0009), the
store writes today's and reads any older one through the upcasters (core/upcast.py), exports
and ``/verify/`` say it, an import keeps it, and a log of a version newer than the server
reads is refused with a clear error, never folded."""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from server_helpers import finish
from test_server_store import guests, play_random

import core
from core import upcast
from core.api import ALL, dumps, fold
from core.errors import EventVersionError
from server.games import append, cache, chain, creating, reading
from server.games.models import Event, Game

pytestmark = pytest.mark.django_db(transaction=True)


def versions(game_id: int) -> list[int]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq")
                .values_list("version", flat=True))


def export(client: Any, game_id: int, query: str = "") -> tuple[dict[str, Any], list[Any]]:
    resp = client.get(f"/api/games/{game_id}/log/{query}")
    assert resp.status_code == 200
    lines = b"".join(resp.streaming_content).decode().splitlines()
    return json.loads(lines[0]), [json.loads(x) for x in lines[1:]]


def test_every_row_carries_its_version_written_by_every_append(server_runtime):
    now = upcast.current("tedoku")
    game = creating.create_game("tedoku", {"seats": 2}, guests(2), table={"move_limit": 60})
    play_random(game.pk, 6)
    seq = append.current_seq(game.pk) + 1
    # The column has no default: a writer that does not name it is refused.
    with pytest.raises(DatabaseError, match="version"), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("INSERT INTO games_event (game_id, seq, type, payload, seat, "
                        "created_at, hash) VALUES (%s, %s, 'x', '{}', NULL, now(), 'h')",
                        [game.pk, seq])
    with pytest.raises(DatabaseError, match="event_version_from_1"), transaction.atomic():
        append.append(append.Append(game.pk, [(seq, None, {"type": "table"})], "", None, None,
                                  versions=[0]))
    # ... and, like every column, it is never updated.
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("UPDATE games_event SET version = 2 WHERE game_id = %s", [game.pk])
    assert append.current_seq(game.pk) == seq - 1
    append.append_result(game.pk, [0], "adjudicated")
    assert set(versions(game.pk)) == {now} and len(versions(game.pk)) > 6
    assert chain.verify_chain(game.pk).ok


def test_exports_and_verify_say_the_versions(server_runtime, client):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 4)
    head, rows = export(client, game.pk)  # (live: what a spectator sees, today's version)
    assert head["version"] == upcast.current("teeko") and head["viewer"] != ALL
    assert rows and {r["v"] for r in rows} == {upcast.current("teeko")}
    finish(game.pk)
    head, rows = export(client, game.pk)
    assert head["viewer"] == ALL and [r["v"] for r in rows] == versions(game.pk)
    body = client.get(f"/api/games/{game.pk}/verify/").json()
    assert body["ok"] is True and body["versions"] == [upcast.current("teeko")]
    state = client.get(f"/api/games/{game.pk}/state/?events=1").json()
    assert state["version"] == upcast.current("teeko")


def test_the_chain_hashes_a_version_after_the_first():
    ev = {"type": "placed", "seat": 0, "to": "c3"}
    first = chain.chain_hash("ab", 3, 0, ev)
    assert chain.chain_hash("ab", 3, 0, ev, upcast.FIRST) == first  # (as it always was)
    import hashlib

    body = dumps({"seq": 3, "seat": 0, "event": ev, "v": 2})
    assert chain.chain_hash("ab", 3, 0, ev, 2) == hashlib.sha256(("ab" + body).encode()).hexdigest()
    assert chain.chain_hash_json("ab", 3, 0, dumps(ev), 2) == chain.chain_hash("ab", 3, 0, ev, 2)


def numbered(event: dict[str, Any]) -> dict[str, Any]:
    """A test-only Teeko v2: a placed piece says which of the seat's four it is (a field
    today's ``evolve`` does not read); a v1 event gets ``"piece": null`` (not known)."""
    return {**event, "piece": None} if event["type"] == "placed" else event


def test_a_new_version_on_the_server_old_rows_upcast_new_rows_written_in_it(
    server_runtime, client
):
    """A game begun in v1, continued after the server moved to a v2 (a registered step):
    its old rows are read through the step, its new rows are written in v2 and hashed with
    it; the chain verifies, the export gives each row in its own version and imports back to
    the same chain. Back on a v1 server, the log is refused with a clear error."""
    game = creating.create_game("teeko", {"move_cap": 40}, guests(2))
    play_random(game.pk, 3, seed=4)
    v1 = upcast.current("teeko")
    upcast.register("teeko", numbered)
    try:
        cache.drop_cache()
        e = cache.entry(game.pk)
        assert [ev["piece"] for _s, _seat, ev in e.log if ev["type"] == "placed"] == [None] * 3
        play_random(game.pk, 400, seed=4)
        assert versions(game.pk)[:4] == [v1] * 4 and set(versions(game.pk)[4:]) == {v1 + 1}
        report = chain.verify_chain(game.pk)
        assert report.ok and report.versions == [v1, v1 + 1]
        rows = list(Event.objects.filter(game_id=game.pk).order_by("seq")
                    .values_list("payload", flat=True))
        assert "piece" not in rows[1] and rows[-1]["type"] == "game_over"  # (stored as written)
        head, exported = export(client, game.pk)
        assert head["version"] == v1 + 1 and [r["v"] for r in exported] == versions(game.pk)
        copy = creating.import_game("teeko", None, guests(2), exported)
        assert versions(copy.pk) == versions(game.pk)
        assert chain.verify_chain(copy.pk).hashes == report.hashes
        cache.drop_cache()
        g = core.GAMES["teeko"]
        assert dumps(g.view(cache.entry(copy.pk).state, ALL)) == dumps(
            g.view(cache.entry(game.pk).state, ALL))
    finally:
        upcast.unregister("teeko")
        cache.drop_cache()
    # A server that reads v1 only (an older release) refuses the log: no fold, no 500.
    with pytest.raises(EventVersionError, match=f"game {game.pk}: event 5: teeko events of "
                                                f"schema version {v1 + 1} are newer"):
        cache.entry(game.pk)
    resp = client.get(f"/api/games/{game.pk}/state/")
    assert resp.status_code == 409 and "newer" in resp.json()["error"]["reason"]
    body = client.get(f"/api/games/{game.pk}/verify/").json()
    assert body["ok"] is False and "cannot be folded" in body["reason"]


def test_an_import_is_read_in_its_versions_and_refused_when_it_cannot_be(server_runtime):
    src = creating.create_game("tiku", {"points": True}, guests(2))
    play_random(src.pk, 30)
    records = [{"seat": s, "event": ev, "v": upcast.current("tiku")}
               for _, s, ev in reading.records(src.pk)]
    games = Game.objects.count()
    newer = upcast.current("tiku") + 1
    cases = [
        ([records[0], {**records[1], "v": newer}], "event 2: tiku events of schema version"),
        ([{**records[0], "v": "1"}], "event 1: an event's schema version is a whole number"),
        ([{**records[0], "event": {"type": "start", "options": {"points": True}}}],
         "event 1: the start event's options are not in their validated form"),
        ([{**records[0], "event": {"type": "start", "options": {"target": "x"}}}],
         "event 1: the start event's options are refused"),
        ([records[1]], "a log begins with a start event"),
    ]
    for log, message in cases:
        with pytest.raises(core.OptionsError, match=message):
            creating.import_game("tiku", None, None, log)
    assert Game.objects.count() == games
    # Records without a version were exported before versions existed: the first version.
    copy = creating.import_game("tiku", None, None, [{"seat": r["seat"], "event": r["event"]}
                                                  for r in records])
    assert set(versions(copy.pk)) == {upcast.FIRST}
    g = core.GAMES["tiku"]
    assert dumps(g.view(cache.entry(copy.pk).state, ALL)) == dumps(
        g.view(fold(g, [r["event"] for r in records]), ALL))


def test_the_server_role_may_insert_the_version(server_runtime):
    """(the grants of server/games/grants.py cover the new column)"""
    from server import dbconfig

    app = dbconfig.app_credentials()
    if app is None:
        pytest.skip("DATABASE_URL without DATABASE_OWNER_URL: the server has no separate role")
    game = creating.create_game("teeko", {}, guests(2))
    sd = connection.settings_dict
    ev = {"type": "placed", "seat": 0, "to": "c3"}
    h = chain.chain_hash(chain.verify_chain(game.pk).head or "", 2, 0, ev)
    with psycopg.connect(host=sd["HOST"], port=str(sd["PORT"] or 5432), dbname=sd["NAME"],
                         user=app[0], password=app[1], autocommit=True) as conn:
        conn.execute(append._INSERT_HEAD + append._INSERT_ROW,
                     [game.pk, 2, "placed", json.dumps(ev), 0, h, None, 1])
    cache.drop_cache()
    assert chain.verify_chain(game.pk).ok and versions(game.pk) == [upcast.current("teeko"), 1]


def test_the_migration_gives_every_existing_event_version_1(server_runtime):
    """Migration 0009 on a database with events stored before it: each row gets version 1
    (no row rewritten: the append-only triggers stay as they are and keep refusing), the
    chains still verify and the games load."""
    from django.db.migrations.executor import MigrationExecutor

    game = creating.create_game("teeko", {"move_cap": 30}, guests(2))
    play_random(game.pk, 5)
    e = cache.entry(game.pk)
    seq, head, seat = e.seq, e.last_hash, e.game.to_act(e.state)[0]
    ev = e.game.decide(e.state, seat, e.game.legal_commands(e.state, seat)[0], Random(0))[0]
    MigrationExecutor(connection).migrate([("games", "0008_event_outcome")])
    try:
        with connection.cursor() as cur:  # (an append by the release before versions)
            cur.execute("INSERT INTO games_event (game_id, seq, type, payload, seat, "
                        "created_at, hash, outcome) VALUES (%s, %s, %s, %s::jsonb, %s, now(), "
                        "%s, NULL)", [game.pk, seq + 1, ev["type"], dumps(ev), seat,
                                      chain.chain_hash(head, seq + 1, seat, ev)])
    finally:  # (forward to today's schema: the tests after this one need all of it)
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert versions(game.pk) == [1] * (seq + 1)
    cache.drop_cache()
    assert chain.verify_chain(game.pk).ok and cache.entry(game.pk).seq == seq + 1
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("UPDATE games_event SET version = 1 WHERE game_id = %s", [game.pk])


def test_the_admin_redacts_a_live_event_read_in_todays_version(admin_client, server_runtime):
    """A live game's event is redacted by today's core, so the admin reads it through the
    upcasters first; a finished game's is shown as stored, with its version."""
    game = creating.create_game("teeko", {"move_cap": 30}, guests(2))
    play_random(game.pk, 1)
    placed = Event.objects.get(game_id=game.pk, seq=2)
    url = f"/admin/games/event/{placed.pk}/change/"
    upcast.register("teeko", numbered)
    try:
        page = admin_client.get(url).content.decode()
        assert "&quot;piece&quot;: null" in page, page
    finally:
        upcast.unregister("teeko")
    assert "piece" not in admin_client.get(url).content.decode()
    finish(game.pk)
    upcast.register("teeko", numbered)
    try:
        page = admin_client.get(url).content.decode()
        assert "piece" not in page and placed.hash in page
        assert re.search(r'field-version">.*?<div class="readonly">1</div>', page, re.S)
    finally:
        upcast.unregister("teeko")
