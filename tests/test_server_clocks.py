"""Table time rules over a real daphne and real sockets: a move time limit and a chess clock
that end a Teeko game on time, a Tedoku seat whose move a bot makes when its time is up, a
seat whose player left handed to a bot by the other player (refused before the table's
abandon time), deadlines re-armed from the log after a daphne restart, bad rules refused."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from server_helpers import seat_code
from test_e2e_server import ahttp, http, ws_client

import core
from core.api import ALL, fold

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def types(client: Any) -> list[str]:
    return [r["event"]["type"] for r in client.events]


async def seen(client: Any, pred: Any, timeout: float = 10) -> dict[str, Any]:
    """The first frame received so far, or from now on, that ``pred`` accepts."""
    for f in client.frames:
        if pred(f):
            return f
    return await client.until(pred, timeout)


async def finished(client: Any, timeout: float = 10) -> dict[str, Any]:
    return client.finished or await client.until(lambda f: f["type"] == "finished", timeout)


def folded_outcome(server: Any, game_id: int, kind: str) -> Any:
    """The outcome of folding the game's exported log with the core alone."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server.http}/api/games/{game_id}/log/", timeout=60) as r:
        lines = [json.loads(x) for x in r.read().decode().splitlines()]
    header, records = lines[0], lines[1:]
    assert header["viewer"] == ALL
    game = core.GAMES[kind]
    out = game.outcome(fold(game, [rec["event"] for rec in records]))
    return out.to_json() if out is not None else None, records


async def test_teeko_move_limit_loses_on_time(daphne_server):
    server = daphne_server
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        # (public: listed to everyone, below)
        {"kind": "teeko", "table": {"move_limit": 1}, "join": {"name": "Ann"}, "public": True},
    )
    gid = g["id"]
    ann = await ws_client(server, gid, "ann")
    await ann.hello(0, secret=g["joined"]["secret"])
    # seats open: the rules are in the log, the clocks not running yet
    rules = [r["event"] for r in ann.events if r["event"]["type"] == "table"]
    assert rules == [
        {
            "type": "table",
            "move_limit": 1,
            "clock": None,
            "increment": 0,
            "abandon": None,
            "running": False,
        }
    ]
    # no timeout while the table waits for a player: a started table with the same rule,
    # set later, times out first (the time-keeper has passed Ann's would-be deadline)
    witness = await ahttp(server, "POST", "/api/games/",
                          {"kind": "teeko", "table": {"move_limit": 1},
                           "seats": ["guest", "guest"]})
    watcher = await ws_client(server, witness["id"], "witness")
    await watcher.hello()
    assert (await finished(watcher))["outcome"]["reason"] == "timeout"
    await ann.send({"type": "ping", "ref": "after"})  # (frames sent before now have arrived)
    await ann.until(lambda f: f["type"] == "pong")
    assert "timeout" not in types(ann)
    await watcher.ws.close()
    started = time.monotonic()  # (the clock cannot start before the join is sent)
    j = await ahttp(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    bob = await ws_client(server, gid, "bob")
    await bob.hello(1, secret=j["secret"])
    frame = await ann.until(
        lambda f: f["type"] == "events" and "clock" in f and f["clock"]["running"], 120
    )
    assert frame["clock"]["deadlines"][0]["seat"] == 0
    assert 0 < frame["clock"]["deadlines"][0]["ms"] <= 1000
    fin = await finished(ann, 120)
    waited = time.monotonic() - started
    assert fin["outcome"] == {"winners": [1], "reason": "timeout", "scores": []}
    # not before the limit (however slow the machine, the timeout comes after it: only a
    # hang takes the minute)
    assert 0.95 < waited < 60, waited
    assert types(ann)[-3:] == ["table", "timeout", "game_over"]
    timeout = [r for r in ann.events if r["event"]["type"] == "timeout"]
    assert timeout == [
        {"seq": timeout[0]["seq"], "seat": None, "event": {"type": "timeout", "seat": 0}}
    ]
    await finished(bob)
    detail = await ahttp(server, "GET", f"/api/games/{gid}/")
    assert detail["status"] == "finished" and detail["outcome"]["reason"] == "timeout"
    assert detail["table"]["move_limit"] == 1 and detail["table"]["running"]
    listed = (await ahttp(server, "GET", "/api/games/"))["games"]
    assert [x["table"] for x in listed if x["id"] == gid] == [detail["table"]]
    outcome, records = await asyncio.to_thread(folded_outcome, server, gid, "teeko")
    assert outcome == fin["outcome"]
    assert [r["event"] for r in records] == [r["event"] for r in ann.events]
    assert (await ahttp(server, "GET", f"/api/games/{gid}/verify/"))["ok"]
    for c in (ann, bob):
        await c.ws.close()


async def test_teeko_chess_clock(daphne_server):
    server = daphne_server
    # (10 s a side: Ann's first move comes well within hers however slow the machine)
    t0 = time.monotonic()  # (her clock cannot start before the table is asked for)
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {"kind": "teeko", "table": {"clock": 10, "increment": 1}, "seats": ["guest", "guest"]},
    )
    gid, secrets = g["id"], g["guest_secrets"]
    ann, bob = await ws_client(server, gid, "ann"), await ws_client(server, gid, "bob")
    await ann.hello(0, secret=secrets["0"])
    await bob.hello(1, secret=secrets["1"])
    assert ann.frames[-1]["clock"]["remaining"][1] == 10000
    assert (await ann.command({"type": "place", "to": "c3"}))["type"] == "ok"
    frame = await bob.until(lambda f: f["type"] == "events" and f["events"] and "clock" in f,
                            120)
    thought = (time.monotonic() - t0) * 1000  # (her think was no longer)
    left = frame["clock"]["remaining"]
    # Ann: 10 s - her think + 1 s increment (without the increment it would be 1 s less:
    # below this bound whenever her move came within a second, as it does here)
    assert 11000 - thought - 50 <= left[0] <= 11000, (left, thought)
    assert 0 < left[1] <= 10000  # (Bob's is running)
    assert frame["clock"]["deadlines"] == [{"seat": 1, "ms": left[1]}]
    fin = await finished(bob, 120)
    assert fin["outcome"]["winners"] == [0] and fin["outcome"]["reason"] == "timeout"
    outcome, _records = await asyncio.to_thread(folded_outcome, server, gid, "teeko")
    assert outcome == fin["outcome"]
    for c in (ann, bob):
        await c.ws.close()


async def test_tedoku_timed_out_seat_played_by_a_bot(daphne_server):
    server = daphne_server
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {
            "kind": "tedoku",
            "options": {"seats": 2},
            "table": {"move_limit": 1},
            "seats": ["guest", "guest"],
        },
    )
    gid, secrets = g["id"], g["guest_secrets"]
    ann, bob = await ws_client(server, gid, "ann"), await ws_client(server, gid, "bob")
    await ann.hello(0, secret=secrets["0"])
    await bob.hello(1, secret=secrets["1"])
    place = next(c for c in ann.legal if c["type"] not in core.api.META_COMMANDS)
    assert (await ann.command(place))["type"] == "ok"
    # Bob does nothing: his placement is made for him, after a timeout, in one append
    await seen(
        ann,
        lambda f: (
            f["type"] == "events" and any(r["event"]["type"] == "timeout" for r in f["events"])
        ),
        5,
    )
    i = types(ann).index("timeout")
    timeout, after = ann.events[i], ann.events[i + 1]
    assert timeout["seat"] is None and timeout["event"] == {"type": "timeout", "seat": 1}
    assert after["seat"] == 1 and after["event"]["type"] != "timeout"
    # the turn went on: both seats are waited for again, with fresh deadlines
    await ann.sync_to(after["seq"])
    assert sorted(ann.to_act) == [0, 1]
    assert [d["seat"] for d in ann.frames[-1]["clock"]["deadlines"]] == [0, 1]
    for c in (ann, bob):
        await c.ws.close()


def league_of_two() -> int:
    """(a thread) users ann and bob (password pw), members of a Teeko league; ann is a
    league organiser (she reserves bob's seat)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.db import connection

    from server.leagues.models import League

    try:
        users = [get_user_model().objects.create_user(n, password="pw") for n in ("ann", "bob")]
        users[0].user_permissions.add(Permission.objects.get(codename="organise_league"))
        league = League.objects.create(name="Tuesday", kind="teeko")
        league.members.add(*users)
        return int(league.pk)
    finally:
        connection.close()  # (this thread's: the test database is dropped at the end)


async def test_abandoned_seat_handed_to_a_bot(daphne_server):
    server = daphne_server
    league = await asyncio.to_thread(league_of_two)
    tokens = [
        (await ahttp(server, "POST", "/api/login", {"username": n, "password": "pw"}))["token"]
        for n in ("ann", "bob")
    ]
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {
            "kind": "teeko",
            "league": league,
            "table": {"abandon": 1},
            "seats": [{"kind": "user", "username": "ann"}, {"kind": "user", "username": "bob"}],
        },
        Authorization=f"Token {tokens[0]}",
    )
    gid = g["id"]
    ann, bob = await ws_client(server, gid, "ann"), await ws_client(server, gid, "bob")
    await ann.hello(0, token=tokens[0])
    await bob.hello(1, token=tokens[1])
    assert (await ann.command({"type": "place", "to": "c3"}))["type"] == "ok"
    await bob.sync_to(ann.seq)
    ask = {"type": "replace_with_bot", "seat": 1}
    answer = await ann.command(ask)
    assert answer["code"] == "illegal" and "connected" in answer["reason"]
    await bob.ws.close()
    await ann.until(lambda f: f["type"] == "presence" and not f["seats"][1]["connected"])
    answer = await ann.command(ask)
    assert answer["code"] == "too_early", answer
    assert "after 1 s" in answer["reason"]
    assert (await ann.command({"type": "replace_with_bot", "seat": 0}))["code"] == "illegal"
    until = time.monotonic() + 10
    while True:  # the server counts seat 1 away for its second
        await ann.send({"type": "presence"})
        now = await ann.until(
            lambda f: f["type"] == "presence" and f["seats"][1]["away"] is not None)
        if now["seats"][1]["away"] >= 1 or time.monotonic() > until:
            break
        await asyncio.sleep(0.1)  # (the poll's pace)
    assert now["seats"][1]["away"] >= 1 and now["seats"][0]["away"] is None
    answer = await ann.command(ask)
    assert answer["type"] == "ok", answer
    rec = next(r for r in ann.events if r["event"]["type"] == "seat_to_bot")
    assert rec["seat"] == 0 and rec["event"]["seat"] == 1 and rec["event"]["by"] == 0
    presence = await seen(ann, lambda f: f["type"] == "presence" and f["seats"][1]["kind"] == "bot")
    assert presence["seats"][1]["replaced"] and presence["seats"][1]["connected"]
    # the bot now plays seat 1 like any bot seat
    await seen(ann, lambda f: f["type"] == "events" and any(r["seat"] == 1 for r in f["events"]))
    assert (await ann.command(ask))["code"] == "illegal"  # (already a bot)
    # Bob comes back: his seat is the bot's now
    again = await ws_client(server, gid, "bob again")
    assert (await again.hello(1, token=tokens[1]))["code"] == "forbidden"
    status, body = await asyncio.to_thread(
        http, server, "POST", f"/api/games/{gid}/join/", {}, Authorization=f"Token {tokens[1]}"
    )
    assert status == 400, body
    await ann.sync_to(ann.seq)
    assert (await ann.command({"type": "resign"}))["type"] == "ok"
    await finished(ann)
    detail = await ahttp(server, "GET", f"/api/games/{gid}/")
    assert detail["seats"][1]["kind"] == "bot" and detail["seats"][1]["replaced"]
    standings = (await ahttp(server, "GET", f"/api/leagues/{league}/"))["standings"]
    rows = {r["username"]: r for r in standings}
    assert rows["bob"]["played"] == 1 and rows["bob"]["lost"] == 1
    assert rows["bob"]["abandoned"] == 1 and rows["bob"]["won"] == 0
    assert rows["ann"]["lost"] == 1 and rows["ann"]["abandoned"] == 0  # (she resigned)
    outcome, _records = await asyncio.to_thread(folded_outcome, server, gid, "teeko")
    assert outcome == detail["outcome"]
    for c in (ann, again):
        await c.ws.close()


async def test_no_abandon_rule_no_bot(daphne_server):
    server = daphne_server
    g = await ahttp(server, "POST", "/api/games/", {"kind": "teeko", "seats": ["guest", "guest"]})
    ann = await ws_client(server, g["id"], "ann")
    await ann.hello(0, secret=g["guest_secrets"]["0"])
    answer = await ann.command({"type": "replace_with_bot", "seat": 1})
    assert answer["code"] == "illegal" and "no abandon rule" in answer["reason"]
    assert "clock" not in ann.frames[-1] and "table" not in types(ann)
    await ann.ws.close()


LIMIT, OUTAGE = 10, 5.0


def test_deadline_rearmed_after_restart(daphne_server, tmp_path):
    server = daphne_server
    status, g = http(
        server,
        "POST",
        "/api/games/",
        {"kind": "teeko", "table": {"move_limit": LIMIT}, "seats": ["guest", "guest"]},
    )
    assert status == 201, g
    created = time.monotonic()
    stop_daphne(server)  # (before the deadline: this process never reaches it)
    assert time.monotonic() - created < LIMIT - 1, "the stop took the whole limit"
    # the server is down for 5 s (the scenario: an outage), then comes back before the
    # deadline: re-armed from the log it fires LIMIT s after the table's event, re-armed from
    # the restart it would fire 5 + LIMIT s after it at the earliest
    time.sleep(max(0.0, created + OUTAGE - time.monotonic()))
    again = start_daphne(tmp_path, "daphne-again")
    up = time.monotonic() - created  # (the deadline may have passed meanwhile: then at once)
    try:
        deadline = time.monotonic() + 120  # (only a hang takes this)
        while True:
            status, detail = http(again, "GET", f"/api/games/{g['id']}/")
            if detail["status"] == "finished" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert detail["outcome"] == {"winners": [1], "reason": "timeout", "scores": []}, detail
        outcome, records = folded_outcome(again, g["id"], "teeko")
        assert outcome == detail["outcome"]
        assert [r["event"]["type"] for r in records].count("timeout") == 1
        # the deadline follows the log: the table's event + LIMIT s, not the restart + LIMIT
        times = {r["event"]["type"]: r["time"] for r in records}
        from datetime import datetime

        gap = datetime.fromisoformat(times["timeout"]) - datetime.fromisoformat(times["table"])
        assert LIMIT - 0.05 < gap.total_seconds() < max(LIMIT, up) + OUTAGE - 0.5, (gap, up)
    finally:
        stop_daphne(again)


BAD_TABLES = [
    ("fast", "table is an object"),
    ({"move_limit": 0}, "1 to 86400"),
    ({"move_limit": 1.5}, "whole number"),
    ({"move_limit": True}, "whole number"),
    ({"clock": 10, "move_limit": 5}, "not both"),
    ({"increment": 2}, "goes with a clock"),
    ({"speed": 1}, "unknown table rule"),
    ({"abandon": 10**9}, "1 to 86400"),
]


def test_bad_table_rules_refused(daphne_server):
    for table, why in BAD_TABLES:
        status, body = http(daphne_server, "POST", "/api/games/", {"kind": "teeko", "table": table})
        assert status == 400 and why in body["error"]["reason"], (table, body)
    status, body = http(
        daphne_server, "POST", "/api/games/", {"kind": "teka", "table": {"clock": 60}}
    )
    assert status == 400 and "use move_limit" in body["error"]["reason"], body
    status, body = http(daphne_server, "GET", "/api/games/")
    assert body["games"] == []


async def test_teka_timed_out_seat_played_by_a_bot(daphne_server):
    server = daphne_server
    bots = [{"kind": "bot", "level": "random"}] * 3
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {"kind": "teka", "table": {"move_limit": 1}, "seats": [{"kind": "guest"}, *bots]},
    )
    gid, secret = g["id"], g["guest_secrets"]["0"]
    spectator = await ws_client(server, gid, "spectator")
    await spectator.hello()
    ann = await ws_client(server, gid, "ann")
    await ann.hello(0, secret=secret)

    def timed_out(f: dict[str, Any]) -> bool:
        return f["type"] == "events" and any(r["event"]["type"] == "timeout" for r in f["events"])

    await seen(ann, timed_out, 20)
    i = types(ann).index("timeout")
    timeout, after = ann.events[i], ann.events[i + 1]
    assert timeout["seat"] is None and timeout["event"]["seat"] == 0
    assert after["seat"] == 0 and after["event"]["type"] not in core.api.TABLE_EVENTS
    await spectator.sync_to(after["seq"])
    public = spectator.events[i]["event"]
    if timeout["event"].get("hidden"):  # a throw-in question: who was asked stays private
        assert public == {"type": "timeout"}
    else:
        assert public == {"type": "timeout", "seat": 0}
    for c in (ann, spectator):
        await c.ws.close()


def test_hidden_timeout_redacted():
    teka = core.GAMES["teka"]
    ev = {"type": "timeout", "seat": 2, "hidden": True}
    assert teka.redact(ev, 2) == ev and teka.redact(ev, ALL) == ev
    assert teka.redact(ev, 0) == teka.redact(ev, -1) == {"type": "timeout"}
    assert teka.redact({"type": "timeout", "seat": 2}, 0) == {"type": "timeout", "seat": 2}


async def test_two_processes_one_timeout(daphne_pair):
    """Both processes arm the same deadline (a spectator on each); exactly one timeout is
    appended: the other's append expects a seq that is then taken, and fails as stale."""
    a, b = daphne_pair
    # (a seat open: no clock runs until both watchers are there, however slow the machine;
    # a game made with both seats taken could time out before the second watcher came)
    g = await ahttp(a, "POST", "/api/games/",
                    {"kind": "teeko", "table": {"move_limit": 2}, "join": {"name": "Ann"}})
    gid = g["id"]
    watchers = [await ws_client(server, gid, f"watcher {i}") for i, server in enumerate((a, b))]
    for w in watchers:
        await w.hello()
    await ahttp(b, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    for w in watchers:  # (each process has the deadline)
        frame = await seen(w, lambda f: f["type"] == "events" and "clock" in f
                           and f["clock"]["running"], 120)
        assert frame["clock"]["deadlines"][0]["seat"] == 0
    for w in watchers:
        await finished(w, 120)
    detail = await ahttp(b, "GET", f"/api/games/{gid}/")
    assert detail["outcome"] == {"winners": [1], "reason": "timeout", "scores": []}
    await asyncio.sleep(0.5)  # (time for a second timeout, if there were one)
    outcome, records = await asyncio.to_thread(folded_outcome, a, gid, "teeko")
    assert outcome == detail["outcome"]
    assert [r["event"]["type"] for r in records].count("timeout") == 1
    assert [r["event"]["type"] for r in records][-2:] == ["timeout", "game_over"]
    assert (await ahttp(a, "GET", f"/api/games/{gid}/verify/"))["ok"]
    for w in watchers:
        await w.ws.close()


def test_clock_arithmetic():
    """The per-seat accounting of :class:`server.games.clocks.Clock`, with given times: a
    chess clock charges each wait to the waiting seat and adds the increment after its move;
    a move limit counts from when the seat began to wait, not from the last commit (Tedoku:
    the other player's placement does not give a waiting seat more time)."""
    from random import Random

    from server.games.clocks import Clock

    teeko = core.GAMES["teeko"]
    start = teeko.start(teeko.options({}), Random(0))
    rules = {"type": "table", "move_limit": None, "clock": 10, "increment": 2, "abandon": None}
    c = Clock(1, 2)
    state = fold(teeko, start)
    c.step(teeko, state, [(1, None, start[0]), (2, None, {**rules, "running": True})], 100.0)
    assert c.waiting == {0: 100.0} and c.deadline(0) == 110.0
    ev = teeko.decide(state, 0, {"type": "place", "to": "c3"}, Random(0))
    state = fold(teeko, [*start, *ev])
    c.step(teeko, state, [(3, 0, ev[0])], 104.0)  # Ann took 4 s: 10 - 4 + 2 = 8 left
    assert c.left(0) == 8.0 and c.waiting == {1: 104.0} and c.deadline(1) == 114.0
    shown = c.to_json([1], 105.0)
    assert shown["remaining"] == [8000, 9000] and shown["deadlines"] == [{"seat": 1, "ms": 9000}]

    tedoku = core.GAMES["tedoku"]
    start = tedoku.start(tedoku.options({"seats": 2}), Random(0))
    state = fold(tedoku, start)
    c = Clock(2, 2)
    limit = {"type": "table", "move_limit": 5, "clock": None, "increment": 0, "abandon": None}
    c.step(
        tedoku,
        state,
        [(1, None, start[0]), (len(start) + 1, None, {**limit, "running": True})],
        0.0,
    )
    assert c.waiting == {0: 0.0, 1: 0.0}
    place = next(x for x in tedoku.legal_commands(state, 0) if x["type"] == "place")
    ev = tedoku.decide(state, 0, place, Random(0))
    state = fold(tedoku, [*start, *ev])
    c.step(tedoku, state, [(len(start) + 2, 0, e) for e in ev], 3.0)
    assert c.waiting == {1: 0.0} and c.deadline(1) == 5.0 and c.next_deadline({1}) is None
