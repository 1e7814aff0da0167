"""The shared-frame fast path (server.games.runtime.Frame + server.transport.DirectWire).

A frame is encoded and WebSocket-framed once per distinct viewer and the same bytes are
written straight to every socket of that viewer. These tests check the framing bytes, and,
against a real daphne process, that seats and several spectators (sharing one frame) each
still receive exactly the log redacted for them, in order, nothing secret, while the direct
path is really the one in use."""

from __future__ import annotations

import asyncio
import json
import struct
from random import Random
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from server_helpers import close_all, core_ready, play_out, strings_in
from test_e2e_server import ahttp, ws_client

from core.api import SPECTATOR
from server.games import cache, reading
from server.games.frames import Frame, ws_text_frame
from server.games.runtime import SHARDS


@pytest.mark.parametrize("size", [0, 5, 125, 126, 200, 65535, 65536, 70000])
def test_ws_text_frame_is_an_unmasked_final_text_frame(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    data = ws_text_frame(payload)
    assert data[0] == 0x81  # FIN, opcode 1 (text), no RSV bits
    assert data[1] & 0x80 == 0  # a server never masks
    n = data[1] & 0x7F
    if len(payload) <= 125:
        assert n == len(payload)
        head = 2
    elif len(payload) <= 0xFFFF:
        assert n == 126 and struct.unpack("!H", data[2:4])[0] == len(payload)
        head = 4
    else:
        assert n == 127 and struct.unpack("!Q", data[2:10])[0] == len(payload)
        head = 10
    assert data[head:] == payload


def test_frame_encodes_once() -> None:
    f = Frame('{"type":"x","s":"ü"}')
    assert f.wire is f.wire
    assert f.wire == ws_text_frame('{"type":"x","s":"ü"}'.encode())


def _log_and_states(game_id: int) -> tuple[Any, list[Any], list[Any]]:
    e = cache.entry(game_id, fresh=True)
    g = e.game
    states = [g.initial()]
    for _, _, ev in e.log:
        states.append(g.evolve(states[-1], ev))
    return g, list(e.log), states


def _redacted(g: Any, log: list[Any], viewer: int) -> list[Any]:
    out = [reading.redact_record(g, s, seat, ev, viewer) for s, seat, ev in log]
    return json.loads(json.dumps(out))


async def _play(server: Any, kind: str, options: dict[str, Any], seats: int, seed: int) -> None:
    reason = core_ready(kind)
    if reason:
        pytest.skip(reason)
    g = await ahttp(
        server,
        "POST",
        "/api/games/",
        {
            "kind": kind,
            "options": options,
            "seats": [{"kind": "guest", "name": f"P{i}"} for i in range(seats)],
        },
    )
    gid = g["id"]
    spectators = [await ws_client(server, gid, f"spectator {i}") for i in range(3)]
    for s in spectators:
        await s.hello()
    players = {}
    for i in range(seats):
        players[i] = await ws_client(server, gid, f"seat {i}")
        await players[i].hello(i, secret=g["guest_secrets"][str(i)])
    # a second socket for seat 0 (it shares seat 0's frames) and a spectator coming late
    twin = await ws_client(server, gid, "seat 0 twin")
    await twin.hello(0, secret=g["guest_secrets"]["0"])
    late: list[Any] = []
    moves = [0]

    async def after_each() -> None:
        moves[0] += 1
        if moves[0] == 5:
            c = await ws_client(server, gid, "late spectator")
            await c.hello()
            late.append(c)

    watchers = [*spectators, twin]
    outcome = await play_out(players, watchers, Random(seed), timeout=60, after_each=after_each)
    assert outcome is not None and late
    for c in late:
        while c.finished is None:
            await c.recv(20)
    gm, log, states = await SHARDS.call(gid, _log_and_states, gid)
    viewers = {c: SPECTATOR for c in [*spectators, *late]}
    viewers |= {c: seat for seat, c in players.items()} | {twin: 0}
    hidden = 0
    for c, viewer in viewers.items():
        # exactly the log, redacted for this viewer (Client also checked: in order, no gaps)
        assert c.events == _redacted(gm, log, viewer), c.name
        assert c.finished is not None and c.finished["seq"] == len(log)
        seq = 0
        for frame in c.frames:
            if frame["type"] == "events":
                seq = frame["to"] if frame["events"] else seq
            if frame["type"] in ("events", "presence"):
                secret = set(gm.secrets(states[seq], viewer))
                hidden += bool(secret)
                assert not strings_in(frame) & secret, f"{c.name} saw a secret at seq {seq}"
    assert hidden > 0  # there was something to hide
    # spectators got byte-for-byte the same frames
    texts = [
        [json.dumps(f, sort_keys=True) for f in s.frames if f["type"] == "events"][-20:]
        for s in spectators
    ]
    assert texts[0] == texts[1] == texts[2]
    await close_all([*players.values(), *watchers, *late])


@pytest.fixture
def debug_daphne(transactional_db: Any, tmp_path: Any, server_runtime: Any) -> Any:
    server = start_daphne(tmp_path, extra_env={"GAMENIGHT_LOG": "DEBUG"})
    try:
        yield server
    finally:
        stop_daphne(server)


def _direct_sockets(server: Any) -> int:
    text = server.log.read_text(errors="replace")
    return text.count("direct wire socket")


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(300)
async def test_tedoku_shared_frames_over_daphne(debug_daphne: Any) -> None:
    await _play(debug_daphne, "tedoku", {"seats": 3, "bonus": True}, 3, seed=5)
    # every socket of the game (3 seats, twin, 3 spectators, late one) used the direct path
    assert _direct_sockets(debug_daphne) >= 8, debug_daphne.output()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(300)
async def test_teka_shared_frames_over_daphne(debug_daphne: Any) -> None:
    await _play(debug_daphne, "teka", {"target": 20}, 4, seed=11)
    assert _direct_sockets(debug_daphne) >= 9, debug_daphne.output()


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(300)
async def test_many_frames_to_a_slow_reader_arrive_in_order(debug_daphne: Any) -> None:
    """Frames pile up in twisted's buffer while a client does not read; the direct path then
    hands later frames to that buffer (never around it): all arrive, in order."""
    server = debug_daphne
    g = await ahttp(server, "POST", "/api/games/", {"kind": "teeko", "join": {"name": "A"}})
    gid = g["id"]
    c = await ws_client(server, gid, "pinger")
    await c.hello(0, secret=g["joined"]["secret"])
    blob = "x" * 60000
    for i in range(100):  # ~6 MB of pong frames requested without reading any
        await c.send({"type": "ping", "ref": [i, blob]})
    got = []
    while len(got) < 100:
        f = await c.recv(20)
        if f["type"] == "pong":
            got.append(f["ref"][0])
    assert got == list(range(100))
    await asyncio.sleep(0)
    await close_all([c])


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(300)
async def test_asgi_path_when_direct_wire_is_off(
    transactional_db: Any, tmp_path: Any, server_runtime: Any
) -> None:
    """GAMENIGHT_DIRECT_WIRE=0: the same games, every frame through daphne's ASGI send."""
    server = start_daphne(
        tmp_path, extra_env={"GAMENIGHT_LOG": "DEBUG", "GAMENIGHT_DIRECT_WIRE": "0"}
    )
    try:
        await _play(server, "teka", {"target": 20}, 4, seed=11)
        log = server.log.read_text(errors="replace")
        assert "direct wire none" in log and "direct wire socket" not in log
    finally:
        stop_daphne(server)
