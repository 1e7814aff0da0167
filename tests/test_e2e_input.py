"""Bad input against daphne as a real process on the test PostgreSQL: oversize frames at
every size, junk frames, JSON errors over real HTTP."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest
import websockets

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def http(server: Any, method: str, path: str, data: bytes | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(
        server.http + path, method=method, data=data, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read()


def new_game(server: Any) -> int:
    status, _ctype, body = http(server, "POST", "/api/games/", b'{"kind": "teeko"}')
    assert status == 201, body
    return int(json.loads(body)["id"])


async def test_oversize_frames_get_too_large_then_close_1009_at_any_size(daphne_server):
    gid = new_game(daphne_server)
    url = f"{daphne_server.ws}/ws/games/{gid}/"
    # a frame of exactly 64 KiB is still read (and answered)
    async with websockets.connect(url, max_size=None) as ws:
        pad = 65536 - len(json.dumps({"type": "ping", "ref": ""}))
        frame = json.dumps({"type": "ping", "ref": "x" * pad})
        assert len(frame.encode()) == 65536
        await ws.send(frame)
        assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "pong"
    for size in (65537, 100_000, 500_000, 1 << 20, (1 << 20) + 1, 3 << 20):
        async with websockets.connect(url, max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "welcome"
            await ws.send('{"type": "ping", "ref": "' + "y" * (size - 27) + '"}')
            frames = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), 60)))
            errors = [f for f in frames if f["type"] == "error"]
            assert [f["code"] for f in errors] == ["too_large"], (size, frames)
            assert frames[-1] == errors[0], size  # the last frame before the close
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009, size
        # a multi-byte frame counts its bytes, not its characters
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send('{"type": "ping", "ref": "' + "\u00e9" * 40000 + '"}')  # 80 kB
        assert json.loads(await asyncio.wait_for(ws.recv(), 60))["code"] == "too_large"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 60)
        assert closed.value.rcvd.code == 1009
    assert daphne_server.proc.poll() is None
    # and the server goes on
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "ping", "ref": 1}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 60)) == {"type": "pong", "ref": 1}


async def test_junk_frames_get_malformed_and_the_connection_goes_on(daphne_server):
    gid = new_game(daphne_server)
    async with websockets.connect(f"{daphne_server.ws}/ws/games/{gid}/") as ws:
        junk = [
            "[" * 20000 + "]" * 20000,
            '{"type": "hello", "x": ' + "[" * 40 + "]" * 40 + "}",
            '{"type": "hello", "token": "a\\u0000b"}',
            '{"type": "hello", "secret": "\\ud800", "seat": 0}',
            '{"type": "ping", "ref": NaN}',
            '{"type": "ping", "ref": 1e999}',
            '{"type": "ping", "ref": ' + "7" * 5000 + "}",
            json.dumps({"type": "Q" * 5000 + "\x07"}),
        ]
        for text in junk:
            await ws.send(text)
            answer = json.loads(await asyncio.wait_for(ws.recv(), 60))
            assert answer["type"] == "error" and answer["code"] == "malformed", (text[:50], answer)
            assert len(answer["reason"]) <= 200 and "Q" * 50 not in answer["reason"]
            assert "\x07" not in answer["reason"]
        await ws.send(json.dumps({"type": "hello"}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "welcome"


async def test_http_errors_are_json_over_daphne(daphne_server):
    for method, path, data in (
        ("GET", "/api/nothing/", None),
        ("GET", "/api/games/abc/", None),
        ("GET", "/api/codes/%00/", None),
        ("GET", "/api/games/?league=x", None),
        ("POST", "/api/games/", b'{"kind": "teeko", "league": "x"}'),
        ("POST", "/api/games/", b"[" * 20000 + b"]" * 20000),
        ("POST", "/api/login", b'{"username": ["a"], "password": {}}'),
        ("POST", "/api/games/", b"x" * (3 << 20)),
    ):
        status, ctype, body = http(daphne_server, method, path, data)
        assert 400 <= status < 500 and ctype.startswith("application/json"), (
            path,
            status,
            body[:200],
        )
        assert set(json.loads(body)["error"]) == {"code", "reason"}


async def test_a_command_naming_its_seat_must_name_it_as_an_integer(daphne_server):
    _status, _ctype, body = http(
        daphne_server, "POST", "/api/games/", b'{"kind": "teeko", "join": {"name": "Ann"}}'
    )
    g = json.loads(body)
    async with websockets.connect(f"{daphne_server.ws}/ws/games/{g['id']}/") as ws:
        await ws.send(json.dumps({"type": "hello", "seat": 0, "secret": g["joined"]["secret"]}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "welcome"
        for seat in (False, 0.0, "0", [0]):
            cmd = {"type": "place", "to": "c3"}
            await ws.send(
                json.dumps(
                    {"type": "command", "seat": seat, "command": cmd, "expected_seq": 1, "ref": "r"}
                )
            )
            while (answer := json.loads(await asyncio.wait_for(ws.recv(), 60)))["type"] in (
                "events",
                "presence",
            ):
                pass
            assert answer["type"] == "error" and answer["code"] == "wrong_seat", (seat, answer)
    _status, _ctype, body = http(daphne_server, "GET", f"/api/games/{g['id']}/")
    assert json.loads(body)["seq"] == 1


# (26 s on a quiet machine, 114 s at a load average of 12: only a hang takes 600)
@pytest.mark.timeout(600)
def test_a_small_fuzz_run_appends_nothing_and_answers_everything(daphne_server):
    """bench.fuzz in small (the benchmark command runs 100,000 frames and 10,000
    requests): hypothesis junk between valid moves on tables of all four kinds."""
    from bench.fuzz import admin_session, fuzz, routes

    out = fuzz(
        daphne_server.http, frames=300, requests=60, games=4, seed=3, workers=0,
        log=lambda _m: None, route_values=("real", "a%00b", "a/b", "9" * 19),
        admin_cookie=admin_session(), route_methods=("GET", "POST"),
    )
    every = routes()  # every route of every urls.py: pages, API, leagues, admin
    assert {"players/<path:username>/", "api/games/<id:game_id>/", "admin/games/game/",
            "games/<str:game_id>/", "tv/", "leagues/<id:league_id>/standings.csv"} <= set(every)
    assert out["routes"] == len(every) and out["route_requests"] > 4 * len(every)
    assert out["route_5xx"] == 0, out["examples"]
    assert {200, 404} <= set(out["route_statuses"]), out["route_statuses"]
    assert out["frames"] >= 300 and out["valid_commands"] >= 10 and out["requests"] == 60
    assert out["unanswered"] == 0 and out["junk_accepted"] == 0 and out["junk_events"] == 0
    assert out["server_error"] == 0 and out["http_5xx"] == 0 and out["http_not_json"] == 0
    assert out["wrong_answers"] == {} and out["valid_refused"] == {}, out["examples"]
    assert out["bad_chains"] == 0 and out["alive"] and daphne_server.proc.poll() is None
    assert {"malformed", "stale", "wrong_seat", "forbidden", "not_joined"} <= set(
        out["error_codes"]
    ), out["error_codes"]


async def test_a_socket_on_a_game_id_that_cannot_exist_answers_not_found(daphne_server):
    for gid in ("9" * 19, "9" * 400, "0"):
        async with websockets.connect(f"{daphne_server.ws}/ws/games/{gid}/") as ws:
            await ws.send(json.dumps({"type": "hello"}))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 60))
            assert answer["type"] == "error" and answer["code"] == "not_found", answer
            assert len(answer["reason"]) <= 200
    assert "Traceback" not in daphne_server.output()


async def test_a_null_command_is_malformed_in_every_game_and_reaches_no_sql(daphne_server):
    """``"command": null`` (or an absent one) is refused as ``malformed`` at every table;
    nothing is appended and no statement reaches PostgreSQL (no traceback in the log)."""
    for kind in ("teeko", "tiku", "tedoku", "teka"):
        body = json.dumps({"kind": kind, "join": {"name": "Ann"}}).encode()
        status, _ctype, raw = http(daphne_server, "POST", "/api/games/", body)
        assert status == 201, raw
        g = json.loads(raw)
        seq = json.loads(http(daphne_server, "GET", f"/api/games/{g['id']}/")[2])["seq"]
        async with websockets.connect(f"{daphne_server.ws}/ws/games/{g['id']}/") as ws:
            await ws.send(json.dumps({"type": "hello", "seat": 0, "secret": g["joined"]["secret"]}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "welcome"
            for expected in (seq, 1, None):
                await ws.send(
                    json.dumps(
                        {"type": "command", "command": None, "expected_seq": expected, "ref": "n"}
                    )
                )
                while (answer := json.loads(await asyncio.wait_for(ws.recv(), 60)))["type"] in (
                    "events",
                    "presence",
                ):
                    pass
                assert answer["type"] == "error" and answer["code"] == "malformed", (kind, answer)
                assert answer["ref"] == "n"
        after = json.loads(http(daphne_server, "GET", f"/api/games/{g['id']}/")[2])["seq"]
        assert after == seq, kind
    out = daphne_server.output()
    assert "Traceback" not in out and "syntax error" not in out, out[-2000:]
