"""End to end: daphne as a real process on a free port, on the real (test) PostgreSQL,
whole games over real WebSockets (the ``websockets`` package), a spectator connected
throughout. HTTP through urllib."""

from __future__ import annotations

import asyncio
from random import Random
from typing import Any

import pytest
import websockets
from server_helpers import Client, close_all, core_ready, http, play_out, seat_code, sync_all

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


async def ahttp(server: Any, method: str, path: str, data: Any = None, **headers: str) -> Any:
    status, body = await asyncio.to_thread(http, server, method, path, data, **headers)
    assert status in (200, 201), body
    return body


async def ws_client(server: Any, game_id: int, name: str) -> Client:
    ws = await websockets.connect(f"{server.ws}/ws/games/{game_id}/", max_size=2**22)
    c = Client(ws.send, ws.recv, name)
    c.ws = ws  # type: ignore[attr-defined]
    return c


async def test_teeko_to_a_win_with_spectator(daphne_server):
    server = daphne_server
    g = await ahttp(server, "POST", "/api/games/", {"kind": "teeko", "join": {"name": "Ann"}})
    gid = g["id"]
    spectator = await ws_client(server, gid, "spectator")
    await spectator.hello()
    j = await ahttp(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    ann, bob = await ws_client(server, gid, "ann"), await ws_client(server, gid, "bob")
    await ann.hello(0, secret=g["joined"]["secret"])
    await bob.hello(1, secret=j["secret"])
    assert (await bob.command({"type": "place", "to": "c3"}))["code"] == "not_your_turn"
    await ann.ws.send("this is not json")
    assert (await ann.until(lambda f: f["type"] == "error"))["code"] == "malformed"
    script = [
        (ann, "a1"),
        (bob, "a5"),
        (ann, "b1"),
        (bob, "b5"),
        (ann, "c1"),
        (bob, "c5"),
        (ann, "d1"),
    ]
    for player, square in script:
        await sync_all([ann, bob, spectator])
        answer = await player.command({"type": "place", "to": square})
        assert answer["type"] == "ok", answer
    await sync_all([ann, bob, spectator])
    for c in (ann, bob, spectator):
        fin = c.finished or await c.until(lambda f: f["type"] == "finished")
        assert fin["outcome"]["winners"] == [0] and fin["outcome"]["reason"] == "pattern"
    assert spectator.events == ann.events == bob.events and spectator.seq == ann.seq >= 8
    assert (await ann.command({"type": "place", "to": "e1"}))["code"] == "game_over"
    detail = await ahttp(server, "GET", f"/api/games/{gid}/")
    assert detail["status"] == "finished" and detail["outcome"]["winners"] == [0]
    assert (await ahttp(server, "GET", f"/api/games/{gid}/verify/"))["ok"]
    # replay of a finished game over the socket: everything, viewer ALL
    late = await ws_client(server, gid, "late")
    welcome = await late.hello()
    assert welcome["viewer"] == -2 and late.events == ann.events
    await close_all([ann, bob, spectator, late])


async def test_tedoku_three_players_with_spectator(daphne_server):
    reason = core_ready("tedoku")
    if reason:
        pytest.skip(reason)
    server = daphne_server
    g = await ahttp(server, "POST", "/api/games/", {"kind": "tedoku", "options": {"seats": 3}})
    spectator = await ws_client(server, g["id"], "spectator")
    await spectator.hello()
    players = {}
    for i in range(3):
        j = await ahttp(server, "POST", "/api/join/", {"code": seat_code(g, i), "name": f"P{i}"})
        assert j["seat"] == i
        players[i] = await ws_client(server, g["id"], f"P{i}")
        await players[i].hello(i, secret=j["secret"])
    outcome = await play_out(players, [spectator], Random(7), timeout=60)
    assert outcome is not None and len(outcome["scores"]) == 3
    assert spectator.finished is not None
    detail = await ahttp(server, "GET", f"/api/games/{g['id']}/")
    assert detail["status"] == "finished"
    await close_all([*players.values(), spectator])


async def test_teka_hand_three_bots_one_player_with_spectator(daphne_server):
    reason = core_ready("teka")
    if reason:
        pytest.skip(reason)
    server = daphne_server
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {
            "kind": "teka",
            "options": {"target": 20},
            "seats": [{"kind": "open"}] + [{"kind": "bot", "level": "random"}] * 3,
            "join": {"name": "Ann"},
        },
    )
    assert g["status"] == "live"
    spectator = await ws_client(server, g["id"], "spectator")
    await spectator.hello()
    ann = await ws_client(server, g["id"], "ann")
    await ann.hello(0, secret=g["joined"]["secret"])

    class HandOver(Exception):
        pass

    async def stop_after_first_hand() -> None:
        if ann.view and ann.view.get("sheet"):
            raise HandOver

    try:
        await play_out(
            {0: ann}, [spectator], Random(3), timeout=60, after_each=stop_after_first_hand
        )
    except HandOver:
        pass
    except Exception:
        print(server.output())
        raise
    assert ann.view["sheet"] == spectator.view["sheet"] and spectator.view["sheet"]
    bot_seats = {e["seat"] for e in spectator.events if e["seat"] not in (None, 0)}
    assert bot_seats == {1, 2, 3}
    assert any(f["type"] == "bot" for f in spectator.frames)
    # the spectator never saw a hand: its view of every hand is hidden
    assert spectator.view["hand"] == []
    await close_all([ann, spectator])
