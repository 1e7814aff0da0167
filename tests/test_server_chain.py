"""The append-only guarantee beyond the owning role: TRUNCATE refused by a trigger, each
game's chain head kept outside the event table (a deleted last event and a history rewritten
with recomputed hashes are seen by ``/verify/``), an export a club keeps and checks later
(``export_chain_heads``, ``verify_chain --against``), and a real daphne running as a role that
may only INSERT and SELECT the event log while the game plays."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.utils import DatabaseError
from server_helpers import Client, close_all, finish, seat_code, sync_all
from test_server_store import guests, play_random

from server import dbconfig
from server.games import append, cache, chain, creating, reading
from server.games.models import ChainHead, Event

pytestmark = pytest.mark.django_db(transaction=True)


def tamper(*statements: tuple[str, list[Any]]) -> None:
    """Run statements as the tables' owner with every trigger of the event log and of the
    chain heads disabled for that one transaction: what someone holding the owner's (or a
    superuser's) rights can always do."""
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("ALTER TABLE games_event DISABLE TRIGGER USER")
        cur.execute("ALTER TABLE games_chainhead DISABLE TRIGGER USER")
        for sql, params in statements:
            cur.execute(sql, params)
        cur.execute("ALTER TABLE games_event ENABLE TRIGGER USER")
        cur.execute("ALTER TABLE games_chainhead ENABLE TRIGGER USER")


def rewrite_from(game_id: int, seq: int, square: str) -> list[tuple[str, list[Any]]]:
    """Statements that change event ``seq``'s target square and recompute every hash from
    there on, so the chain in the event table is consistent again."""
    recs = reading.records(game_id)
    prev = chain.GENESIS if seq == 1 else chain.verify_chain(game_id).hashes[seq - 2]
    out: list[tuple[str, list[Any]]] = []
    for s, seat, ev in recs[seq - 1 :]:
        if s == seq:
            ev = {**ev, "to": square}
        prev = chain.chain_hash(prev, s, seat, ev)
        out.append(("UPDATE games_event SET payload = %s::jsonb, hash = %s "
                    "WHERE game_id = %s AND seq = %s", [json.dumps(ev), prev, game_id, s]))
    return out


def test_truncate_of_the_log_refused_by_a_trigger(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 4)
    for table in ("games_event", "games_chainhead"):
        with pytest.raises(DatabaseError, match="TRUNCATE refused"), transaction.atomic():
            with connection.cursor() as cur:  # the tables' owner
                cur.execute(f"TRUNCATE {table} CASCADE")
    assert Event.objects.filter(game=game).count() == 5
    assert chain.verify_chain(game.pk).ok


def test_chain_head_is_written_by_the_database_only(server_runtime):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 6)
    head = ChainHead.objects.get(game=game)
    last = Event.objects.filter(game=game).order_by("-seq").first()
    assert (head.events, head.head) == (7, last.hash)
    for sql in (
        "UPDATE games_chainhead SET events = 3 WHERE game_id = %s",
        "DELETE FROM games_chainhead WHERE game_id = %s",
        "INSERT INTO games_chainhead (game_id, events, head) VALUES (%s + 1000, 1, 'x')",
    ):
        with pytest.raises(DatabaseError, match="written only by appending"):
            with transaction.atomic(), connection.cursor() as cur:  # even by the owner
                cur.execute(sql, [game.pk])
    # An event that does not follow the head is refused like a stale append.
    with pytest.raises(DatabaseError, match="does not follow its chain head"):
        with transaction.atomic():
            append.append(append.Append(game.pk, [(9, 0, {"type": "placed", "seat": 0,
                                                        "to": "e5"})], last.hash, None, None))
    report = chain.verify_chain(game.pk)
    assert report.ok and report.events == 7 and report.head == last.hash


def test_verify_sees_a_deleted_last_event(server_runtime, client):
    game = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 8)
    assert client.get(f"/api/games/{game.pk}/verify/").json()["ok"] is True
    tamper(("DELETE FROM games_event WHERE game_id = %s AND seq = 9", [game.pk]))
    report = chain.verify_chain(game.pk)
    assert not report.ok and report.events == 8 and report.bad_seq == 9
    assert "records 9 events, the log has 8" in report.reason
    body = client.get(f"/api/games/{game.pk}/verify/").json()
    assert body["ok"] is False and body["bad_seq"] == 9 and body["events"] == 8


def test_verify_sees_a_history_rewritten_with_recomputed_hashes(server_runtime, client,
                                                                 tmp_path, capsys):
    game = creating.create_game("teeko", {}, guests(2))
    other = creating.create_game("teeko", {}, guests(2))
    play_random(game.pk, 8)
    play_random(other.pk, 3)
    export = tmp_path / "heads.jsonl"
    call_command("export_chain_heads", "--output", str(export))
    assert export.read_text() == ""  # live games only with --live (their heads tell secrets)
    call_command("export_chain_heads", "--live", "--output", str(export))
    lines = [json.loads(x) for x in export.read_text().splitlines()]
    heads = {x["game"]: x for x in lines}
    assert heads[game.pk]["events"] == 9 and heads[other.pk]["events"] == 4
    assert heads[game.pk]["head"] == chain.verify_chain(game.pk).head
    play_random(other.pk, 2, seed=7)  # a game that goes on after the export stays ok
    call_command("verify_chain", "--against", str(export))
    out = capsys.readouterr().out
    assert f"game {other.pk}: ok (6 events, the first 4 as exported)" in out

    # Event 4 changed and every hash after it recomputed: the chain in the event table is
    # consistent, but it no longer ends at the recorded head.
    tamper(*rewrite_from(game.pk, 4, "e5"))
    cache.drop_cache()
    report = chain.verify_chain(game.pk)
    assert not report.ok and "differs from the recorded chain head" in report.reason
    assert report.bad_seq == 9
    assert client.get(f"/api/games/{game.pk}/verify/").json()["ok"] is False

    # Whoever can do that can also rewrite the head: then only the export kept away from
    # the database tells.
    tamper(("UPDATE games_chainhead SET head = %s WHERE game_id = %s",
            [report.head, game.pk]))
    assert chain.verify_chain(game.pk).ok
    with pytest.raises(CommandError, match="1 game"):
        call_command("verify_chain", "--against", str(export))
    out = capsys.readouterr().out
    assert f"game {game.pk}: DIFFERS from the export" in out
    assert f"game {other.pk}: ok" in out


# --------------------------------------------------------------------------- a real server


def _http(base: str, method: str, path: str, data: Any = None) -> Any:
    req = urllib.request.Request(base + path, method=method,
                                 data=json.dumps(data).encode() if data is not None else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


@pytest.fixture
def app_conn(daphne_server: Any) -> Iterator[psycopg.Connection[Any]]:
    """A connection to the test database with the credentials daphne was given."""
    app = dbconfig.app_credentials()
    if app is None:
        pytest.skip("DATABASE_URL without DATABASE_OWNER_URL: the server has no separate role")
    sd = connection.settings_dict
    with psycopg.connect(host=sd["HOST"], port=str(sd["PORT"] or 5432), dbname=sd["NAME"],
                         user=app[0], password=app[1], autocommit=True) as conn:
        yield conn


def test_the_server_role_may_only_append_while_the_game_plays(daphne_server, app_conn,
                                                                tmp_path: Path):
    base = daphne_server.http

    async def play() -> int:
        g = await asyncio.to_thread(_http, base, "POST", "/api/games/",
                                    {"kind": "teeko", "join": {"name": "Ann"}})
        j = await asyncio.to_thread(_http, base, "POST", "/api/join/",
                                    {"code": seat_code(g, 1), "name": "Bob"})
        clients = []
        for seat, secret in ((0, g["joined"]["secret"]), (1, j["secret"])):
            ws = await websockets.connect(f"{daphne_server.ws}/ws/games/{g['id']}/")
            c = Client(ws.send, ws.recv, f"seat{seat}")
            c.ws = ws  # type: ignore[attr-defined]
            await c.hello(seat, secret=secret)
            clients.append(c)
        for i, square in enumerate(("a1", "a5", "b1", "b5")):
            await sync_all(clients)
            assert (await clients[i % 2].command({"type": "place", "to": square}))["type"] == "ok"
        await sync_all(clients)
        await close_all(clients)
        return int(g["id"])

    gid = asyncio.run(play())
    with connection.cursor() as cur:  # start_daphne names daphne's sessions
        cur.execute("SELECT DISTINCT usename FROM pg_stat_activity "
                    "WHERE datname = current_database() AND application_name = %s",
                    [daphne_server.app_name])
        users = {r[0] for r in cur.fetchall()}
    app_user = app_conn.info.user
    assert users == {app_user}, users  # daphne's sessions are all the restricted role's
    with connection.cursor() as cur:
        cur.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [app_user])
        assert cur.fetchone() == (False,)
        cur.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'games_event'")
        assert cur.fetchone() != (app_user,)

    refused = [
        f"UPDATE games_event SET seat = 1 WHERE game_id = {gid}",
        f"DELETE FROM games_event WHERE game_id = {gid}",
        "TRUNCATE games_event CASCADE",
        "ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete",
        "ALTER TABLE games_event DISABLE TRIGGER USER",
        "DROP TRIGGER games_event_no_update_delete ON games_event",
        "DROP TRIGGER games_event_chain_head ON games_event",
        "DROP TABLE games_event CASCADE",
        f"UPDATE games_chainhead SET events = 2 WHERE game_id = {gid}",
        f"DELETE FROM games_chainhead WHERE game_id = {gid}",
        f"INSERT INTO games_chainhead (game_id, events, head) VALUES ({gid} + 1, 1, 'x')",
        "TRUNCATE games_chainhead CASCADE",
        "SET session_replication_role = replica",
        "CREATE TABLE games_event_copy (id int)",
    ]
    for sql in refused:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app_conn.execute(sql)
    assert app_conn.execute("SELECT count(*) FROM games_event WHERE game_id = %s",
                            (gid,)).fetchone() == (5,)
    assert _http(base, "GET", f"/api/games/{gid}/verify/")["ok"] is True
    with connection.cursor() as cur:  # the owner may end the server's sessions (fault tests)
        cur.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE application_name = %s", [daphne_server.app_name])
        assert cur.fetchone()[0] >= 1
    assert _http(base, "GET", f"/api/games/{gid}/verify/")["ok"] is True

    tamper(("DELETE FROM games_event WHERE game_id = %s AND seq = 5", [gid]))
    verdict = _http(base, "GET", f"/api/games/{gid}/verify/")
    assert verdict["ok"] is False and verdict["bad_seq"] == 5, verdict


def test_roles_from_the_environment(monkeypatch, tmp_path, settings):
    """DATABASE_URL is the app role; DATABASE_OWNER_URL (when set) the owner, who migrates
    and gives the user of DATABASE_URL its rights; without it there is no separate role."""
    from server.games import grants

    settings.GAMENIGHT = {**settings.GAMENIGHT, "APP_ROLE": ""}  # (GAMENIGHT_APP_ROLE unset)
    monkeypatch.setenv("DATABASE_URL", "postgresql://gn:pw@db.example/games")
    monkeypatch.setenv("DATABASE_OWNER_URL", "postgresql://gn_owner:secret@db.example/games")
    for role, user, password in (("owner", "gn_owner", "secret"), ("app", "gn", "pw")):
        monkeypatch.setenv("GAMENIGHT_DB_ROLE", role)
        db = dbconfig.database_settings(tmp_path)
        assert (db["USER"], db["PASSWORD"], db["NAME"]) == (user, password, "games")
    assert dbconfig.app_credentials() == ("gn", "pw") and grants.app_role() == "gn"
    monkeypatch.delenv("GAMENIGHT_DB_ROLE")
    assert dbconfig.db_role() == "owner"  # under pytest: the tests create the test database
    monkeypatch.delenv("DATABASE_OWNER_URL")
    assert dbconfig.database_settings(tmp_path)["USER"] == "gn"
    assert dbconfig.app_credentials() is None and grants.app_role() is None
    monkeypatch.delenv("DATABASE_URL")
    assert dbconfig.app_credentials() == (dbconfig.APP_ROLE, "")
    monkeypatch.setenv("GAMENIGHT_DB_ROLE", "root")
    with pytest.raises(ValueError, match="owner or app"):
        dbconfig.db_role()
    stmts = grants.grant_sql("gn")
    assert ('GRANT SELECT, INSERT ON "public"."games_event", "public"."games_correction", '
            '"public"."leagues_clubevent" TO "gn"') in stmts
    assert not any("TRUNCATE" in s or "TRIGGER" in s for s in stmts)


def test_no_event_follows_the_end_and_the_outcome_is_the_logs(server_runtime, client):
    """In the database itself: an event appended after a game's end is refused (with a
    correct seq and hash), the stored outcome cannot be changed, cleared or set on a live
    game, and ``/verify/`` checks the stored outcome against the fold of the log."""
    from server.games.models import Game

    game = creating.create_game("teeko", {}, guests(2))
    finish(game.pk)
    g = Game.objects.get(pk=game.pk)
    assert g.status == Game.FINISHED and g.outcome is not None
    assert client.get(f"/api/games/{game.pk}/verify/").json()["ok"] is True
    report = chain.verify_chain(game.pk)
    seq = report.events + 1
    ev = {"type": "result", "winners": [1], "reason": "adjudicated", "scores": []}
    h = chain.chain_hash(report.head, seq, None, ev)
    with pytest.raises(DatabaseError, match="no event follows its end"):
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(append._INSERT_HEAD + append._INSERT_ROW,
                        [game.pk, seq, "result", json.dumps(ev), None, h, None, 1])
    for sql in (
        "UPDATE games_game SET outcome = '{\"winners\": [1], \"reason\": \"x\"}' WHERE id = %s",
        "UPDATE games_game SET outcome = NULL WHERE id = %s",
        "UPDATE games_game SET status = 'live' WHERE id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
            cur.execute(sql, [game.pk])
    live = creating.create_game("teeko", {}, guests(2))
    play_random(live.pk, 3)
    assert Game.objects.get(pk=game.pk).outcome == g.outcome
    # the corrections the server makes come before the end, by the statement that ends it
    append.append_result(live.pk, [1], "adjudicated")
    assert client.get(f"/api/games/{live.pk}/verify/").json()["ok"] is True
    # a stored outcome the log does not have (written with the triggers off) is seen
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("ALTER TABLE games_game DISABLE TRIGGER USER")
        cur.execute("UPDATE games_game SET outcome = '{\"winners\": [0]}' WHERE id = %s",
                    [live.pk])
        cur.execute("ALTER TABLE games_game ENABLE TRIGGER USER")
    body = client.get(f"/api/games/{live.pk}/verify/").json()
    assert body["ok"] is False and "stored outcome differs" in body["reason"], body
