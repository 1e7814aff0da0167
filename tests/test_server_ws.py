"""The game socket, in-process (channels WebsocketCommunicator), on real PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from random import Random

import pytest
from server_helpers import Closed, close_all, communicator, pick_move, play_out, sync_all

from core.api import ALL, SPECTATOR
from server.games import accounts, append, cache, chain, creating, reading
from server.games.models import Event, Token
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


async def db(fn, /, *args, **kw):
    """Run database code on a server worker thread (its connection is closed after the test)."""
    return await SHARDS.call(0, fn, *args, **kw)


async def new_game(kind="teeko", options=None, seats=None):
    return await db(creating.create_game, kind, options or {}, seats)


async def test_teeko_game_over_sockets_with_spectator(server_runtime):
    game = await new_game(
        "teeko",
        {"move_cap": 80},
        [{"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bob"}],
    )
    secrets = game.guest_secrets
    spectator = await communicator(game.pk, "spectator")
    welcome = await spectator.hello()
    assert welcome["viewer"] == SPECTATOR and welcome["kind"] == "teeko" and spectator.seq == 1
    a, b = await communicator(game.pk, "ann"), await communicator(game.pk, "bob")
    assert (await a.hello(0, secret=secrets[0]))["viewer"] == 0
    assert (await b.hello(1, secret=secrets[1]))["seat"] == 1
    presence = await spectator.until(
        lambda f: f["type"] == "presence" and sum(s["connected"] for s in f["seats"]) == 2
    )
    assert presence["to_act"] == [0] and presence["spectators"] == 1
    assert a.legal and not spectator.legal

    # refused commands: nothing appended, connection goes on
    assert (await b.command({"type": "place", "to": "c3"}))["code"] == "not_your_turn"
    assert (await a.command({"type": "place", "to": "q9"}))["code"] in ("illegal", "malformed")
    assert (await a.command({"type": "place", "to": "c3"}, expected_seq=0))["code"] == "stale"
    assert (await a.command({"nope": 1}))["code"] == "malformed"
    assert (await spectator.command({"type": "place", "to": "c3"}))["code"] == "forbidden"
    await a.send(
        {
            "type": "command",
            "seat": 1,
            "command": {"type": "place", "to": "c3"},
            "expected_seq": 1,
            "ref": "ws",
        }
    )
    assert (await a.until(lambda f: f.get("ref") == "ws"))["code"] == "wrong_seat"
    await a.send({"type": "command", "command": {"type": "place", "to": "c3"}, "ref": 1})
    assert (await a.until(lambda f: f["type"] == "error"))["code"] == "malformed"  # no expected_seq
    assert await db(Event.objects.filter(game_id=game.pk).count) == 1

    outcome = await play_out({0: a, 1: b}, [spectator], Random(4))
    assert outcome is not None
    final = await db(reading.state_at, game.pk)
    assert spectator.seq == a.seq == b.seq == final[1]
    # everyone saw the same events (Teeko hides nothing), in order, no gaps or duplicates
    assert spectator.events == a.events == b.events
    assert [e["seq"] for e in a.events] == list(range(1, final[1] + 1))
    assert spectator.finished["view"] == final[0].game.view(final[2], ALL)
    await close_all([a, b, spectator])


async def test_junk_and_oversized_frames(server_runtime):
    game = await new_game()
    c = await communicator(game.pk)
    for junk in ["not json", "[1,2]", "42", '{"type": 5}', '{"type": "dance"}', "\x00\xff"]:
        await c.send(junk)
        assert (await c.until(lambda f: f["type"] == "error"))["code"] == "malformed"
    await c.comm.send_to(bytes_data=b"\x00\x01binary")
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "malformed"
    assert (await c.command({"type": "place", "to": "a1"}))["code"] == "not_joined"
    await c.send({"type": "presence"})  # (as docs/protocol.md says: before hello, not_joined)
    assert (await c.until(lambda f: f["type"] in ("error", "presence")))["code"] == "not_joined"
    await c.send({"type": "hello", "last_seq": "x"})
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "malformed"
    await c.send({"type": "hello", "seat": 0, "secret": "wrong"})
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "forbidden"
    await c.send({"type": "hello", "seat": 9})
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "wrong_seat"
    await c.hello()  # still usable after all that
    await c.send({"type": "ping", "ref": 3})
    assert (await c.until(lambda f: f["type"] == "pong"))["ref"] == 3
    await c.send({"type": "hello"})
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "already_joined"
    await c.send(json.dumps({"type": "command", "command": {"pad": "x" * 70000}}))
    assert (await c.until(lambda f: f["type"] == "error"))["code"] == "too_large"
    with pytest.raises(Closed) as closed:
        await c.recv()
    assert closed.value.code == 1009
    # the server is fine: a new connection works
    d = await communicator(game.pk)
    assert (await d.hello())["type"] == "welcome"
    missing = await communicator(999999)
    await missing.send({"type": "hello"})
    assert (await missing.until(lambda f: f["type"] == "error"))["code"] == "not_found"
    await close_all([c, d, missing])


async def test_two_clients_same_expected_seq_at_once(server_runtime):
    """Same seat on two devices and two Tedoku players: one append, one stale error."""
    game = await new_game("teeko", {}, [{"kind": "guest"}, {"kind": "guest"}])
    s0 = game.guest_secrets[0]
    c1, c2 = await communicator(game.pk), await communicator(game.pk)
    await c1.hello(0, secret=s0)
    await c2.hello(0, secret=s0)
    r1, r2 = await asyncio.gather(
        c1.command({"type": "place", "to": "a1"}, 1, ref="x"),
        c2.command({"type": "place", "to": "e5"}, 1, ref="y"),
    )
    answers = sorted([r1["type"], r2["type"]])
    assert answers == ["error", "ok"], (r1, r2)
    err = r1 if r1["type"] == "error" else r2
    assert err["code"] == "stale" and err["seq"] == 2
    await sync_all([c1, c2])
    rows = await db(
        lambda: list(
            Event.objects.filter(game_id=game.pk).order_by("seq").values_list("payload", flat=True)
        )
    )
    assert len(rows) == 2 and rows[1]["to"] == ("a1" if r1["type"] == "ok" else "e5")
    assert c1.events == c2.events and len(c1.events) == 2

    td = await new_game("tedoku", {"seats": 2}, [{"kind": "guest"}, {"kind": "guest"}])
    p = [await communicator(td.pk) for _ in range(2)]
    for i in range(2):
        await p[i].hello(i, secret=td.guest_secrets[i])
    seq = p[0].seq
    rng = Random(2)
    r = await asyncio.gather(*(p[i].command(pick_move(p[i].legal, rng), seq) for i in range(2)))
    assert sorted(x["type"] for x in r) == ["error", "ok"], r
    assert next(x for x in r if x["type"] == "error")["code"] == "stale"
    assert await db(Event.objects.filter(game_id=td.pk).count) == seq + 1
    await close_all([c1, c2, *p])


async def test_reconnect_gets_only_what_it_missed(server_runtime):
    game = await new_game("teeko", {}, [{"kind": "guest"}, {"kind": "guest"}])
    sec = game.guest_secrets
    a, b = await communicator(game.pk), await communicator(game.pk)
    await a.hello(0, secret=sec[0])
    await b.hello(1, secret=sec[1])
    rng = Random(1)
    for _ in range(3):
        for c in (a, b):
            await sync_all([a, b])
            assert (await c.command(pick_move(c.legal, rng)))["type"] == "ok"
    await sync_all([a, b])
    seen = b.seq
    await close_all([b])
    for _ in range(2):
        assert (await a.command(pick_move(a.legal, rng)))["type"] == "ok"
        # seat 1 is away: play its move through the store directly
        e = await db(cache.entry, game.pk)
        seq = e.seq
        await db(append.submit, game.pk, 1, pick_move(e.game.legal_commands(e.state, 1), rng), seq)
        await a.sync_to(seq + 1)
    b2 = await communicator(game.pk)
    await b2.hello(1, last_seq=seen, secret=sec[1])
    assert b2.events[0]["seq"] == seen + 1 and b2.seq == a.seq
    assert b2.events == a.events[seen:]
    await close_all([a, b2])


async def test_user_seat_with_token_and_bot_opponent(server_runtime, django_user_model):
    user = await db(django_user_model.objects.create_user, "ann", password="pw")
    _, key = await db(accounts.issue, user, Token.API, None)
    game = await new_game(
        "teeko",
        {"move_cap": 60},
        [{"kind": "user", "username": "ann"}, {"kind": "bot", "level": "random"}],
    )
    watcher = await communicator(game.pk, "watcher")
    await watcher.hello()
    ann = await communicator(game.pk, "ann")
    await ann.send({"type": "hello", "seat": 0, "token": "bad"})
    assert (await ann.until(lambda f: f["type"] == "error"))["code"] == "forbidden"
    await ann.hello(0, token=key)
    outcome = await play_out({0: ann}, [watcher], Random(3), timeout=60)
    assert outcome is not None
    bot_seqs = [e["seq"] for e in watcher.events if e["seat"] == 1]
    assert bot_seqs, "the bot never moved"
    assert any(f["type"] == "bot" and f["seat"] == 1 for f in watcher.frames)
    assert watcher.events == ann.events
    await close_all([ann, watcher])


async def test_bots_only_game_runs_to_the_end(server_runtime):
    """Bot seats move by themselves through the same path; spectators keep receiving."""
    watcher_game = await new_game(
        "teeko", {"move_cap": 40}, [{"kind": "bot", "level": "random"}] * 2
    )
    w = await communicator(watcher_game.pk)
    await w.hello()
    await w.until(lambda f: f["type"] == "finished", timeout=60)
    assert w.outcome is not None
    assert (await db(chain.verify_chain, watcher_game.pk)).ok
    await close_all([w])


@pytest.fixture
def test_db_pid(transactional_db):
    """The backend pid of pytest-django's own connection (it must survive the test)."""
    from django.db import connection

    connection.ensure_connection()
    return connection.connection.info.backend_pid


async def test_database_connections_killed_mid_game(server_runtime, test_db_pid):
    """Every server connection to PostgreSQL dies (as in a database restart): the next
    moves reconnect and go through; nothing is lost or doubled."""

    game = await new_game("teeko", {}, [{"kind": "guest"}, {"kind": "guest"}])
    a, b = await communicator(game.pk), await communicator(game.pk)
    await a.hello(0, secret=game.guest_secrets[0])
    await b.hello(1, secret=game.guest_secrets[1])
    assert (await a.command({"type": "place", "to": "a1"}))["type"] == "ok"
    await sync_all([a, b])

    spared = test_db_pid

    def kill_others() -> int:
        # (from a connection of its own: one borrowed from the server's pool would survive)
        import psycopg

        from server.games import dbpool

        with psycopg.connect(dbpool.conninfo(), autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> %s",
                [spared],
            ).fetchone()
        return int(row[0]) if row else 0

    assert await asyncio.to_thread(kill_others) >= 1
    assert (await b.command({"type": "place", "to": "b1"}))["type"] == "ok"
    await sync_all([a, b])
    await asyncio.to_thread(kill_others)
    e = await db(cache.entry, game.pk)  # the worker-thread path reconnects too
    await db(append.submit, game.pk, 0, {"type": "place", "to": "c1"}, e.seq)
    await a.sync_to(4)
    await b.sync_to(4)
    assert [ev["seq"] for ev in a.events] == [1, 2, 3, 4] == [ev["seq"] for ev in b.events]
    report = await db(chain.verify_chain, game.pk)
    assert report.ok and report.events == 4, report  # nothing lost or doubled
    await close_all([a, b])


async def test_tedoku_with_bots_everyone_places_at_once(server_runtime):
    """Bots in a simultaneous game: their stale submissions are re-checked, the game ends."""
    game = await new_game(
        "tedoku",
        {"seats": 3},
        [{"kind": "guest"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}],
    )
    me = await communicator(game.pk)
    await me.hello(0, secret=game.guest_secrets[0])
    watcher = await communicator(game.pk)
    await watcher.hello()
    outcome = await play_out({0: me}, [watcher], Random(8), timeout=60)
    assert outcome is not None and len(outcome["scores"]) == 3
    assert {e["seat"] for e in watcher.events} >= {0, 1, 2}
    await close_all([me, watcher])


async def test_hello_whose_log_read_fails_is_told_and_closed(server_runtime, monkeypatch):
    """The seat check of a hello succeeds, then reading the log fails (no free connection,
    database away): the client gets ``unavailable`` and the socket is closed (1013), so that
    it comes back with its last_seq. (Found by the soak: such a socket stayed joined without
    ever getting an event, and a second hello was refused as ``already_joined``.)"""
    from django.db import OperationalError

    from server.games import runtime

    game = await new_game("teeko", {}, [{"kind": "guest", "name": "A"},
                                        {"kind": "guest", "name": "B"}])
    real = runtime.catchup_frames
    calls = {"n": 0}

    def failing(*args, **kw):  # (the database thread tries twice: both fail)
        calls["n"] += 1
        if calls["n"] <= 2:
            raise OperationalError("the database does not answer")
        return real(*args, **kw)

    monkeypatch.setattr(runtime, "catchup_frames", failing)
    c = await communicator(game.pk)
    await c.send({"type": "hello", "seat": 0, "secret": game.guest_secrets[0]})
    error = await c.until(lambda f: f["type"] == "error")
    assert error["code"] == "unavailable", error
    with pytest.raises(Closed) as closed:
        await c.until(lambda f: False)
    assert closed.value.code == 1013
    again = await communicator(game.pk)
    assert (await again.hello(0, secret=game.guest_secrets[0]))["type"] == "welcome"
    assert again.seq == 1
    await close_all([again])


async def test_notice_from_another_process_during_hello_sends_nothing_twice(server_runtime,
                                                                           monkeypatch):
    """Another process announces new events while a hello is still reading the log: the
    client gets every event once, in order. (Found by the two-process soak: that notice
    started a second catch-up from before the hello's frames, and the client got the whole
    log twice: "had 5, got from 1 to 5".)"""
    from server.games import runtime

    game = await new_game("teeko", {}, [{"kind": "guest", "name": "A"},
                                        {"kind": "guest", "name": "B"}])
    e = await db(cache.entry, game.pk)
    await db(append.submit, game.pk, 0, e.game.legal_commands(e.state, 0)[0], 1)
    loop = asyncio.get_running_loop()
    real = runtime.catchup_frames
    calls = {"n": 0}

    def notice_meanwhile(*args, **kw):
        calls["n"] += 1
        out = real(*args, **kw)
        if calls["n"] == 1:  # (the hello's read): the notice arrives before its frames go
            import threading

            noticed = threading.Event()

            def notice() -> None:
                runtime.HUB.notify(game.pk, 2)
                noticed.set()

            loop.call_soon_threadsafe(notice)
            assert noticed.wait(10)  # (the loop has handled the notice)
        return out

    monkeypatch.setattr(runtime, "catchup_frames", notice_meanwhile)
    c = await communicator(game.pk)
    await c.send({"type": "hello", "last_seq": 0})
    await c.drain(1.0)
    events = [f for f in c.frames if f["type"] == "events"]
    assert [(f["from"], f["to"]) for f in events][:1] == [(1, 2)], events
    assert [f for f in events[1:] if f["events"]] == [], events  # nothing twice
    await close_all([c])


async def test_a_revoked_seat_gets_nothing_after_it_is_told(server_runtime):
    """The organiser hands a seat to another phone or to a bot (tables.release, to_bot): the
    seat's sockets get the ``seat_released`` frame last, then close with 4001; nothing
    follows it, not a move made at once, nor what a catch-up already running reads. The
    socket does it itself (``revoke_seat``, the one operation the table code needs of it)."""
    from server.games import runtime
    from server.games.tables import RELEASED_CLOSE

    game = await new_game("teeko", {}, [{"kind": "guest", "name": "A"},
                                        {"kind": "guest", "name": "B"}])
    a, b = await communicator(game.pk, "a"), await communicator(game.pk, "b")
    await a.hello(0, secret=game.guest_secrets[0])
    await b.hello(1, secret=game.guest_secrets[1])
    await b.drain(0.3)
    seen = len(b.frames)
    (sock,) = [c for c in runtime.HUB.rooms[game.pk].conns if c.seat == 1]
    runtime.HUB.notify(game.pk, 2)  # (another process's notice: a catch-up starts)
    told = json.dumps({"type": "seat_released", "game": game.pk, "seat": 1, "reason": "test"})
    sock.revoke_seat(told, RELEASED_CLOSE)
    assert (await a.command({"type": "place", "to": "a1"}))["type"] == "ok"
    with pytest.raises(Closed) as closed:
        await b.until(lambda f: False)
    assert closed.value.code == RELEASED_CLOSE
    assert [f["type"] for f in b.frames[seen:]] == ["seat_released"], b.frames[seen:]
    await a.drain(0.3)
    assert a.seq == 2  # (the other seat plays on)
    await close_all([a, b])
