"""Seat codes, QR codes, the organiser's seat hand-over and the rematch (server/games/tables.py,
docs/protocol.md "Tables"): a real daphne on the real (test) PostgreSQL, HTTP through urllib,
game sockets through the ``websockets`` package."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from server_helpers import http, seat_code
from web_browser import WAIT_MS, browser  # noqa: F401  (the fixture)
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

TEEKO_WIN = ["a1", "a5", "b1", "b5", "c1", "c5", "d1"]  # seat 0 wins with a row


def ok(server: Any, method: str, path: str, data: Any = None, **headers: str) -> Any:
    status, body = http(server, method, path, data, **headers)
    assert status in (200, 201), (status, body)
    return body


def organiser_token(server: Any, django_user_model: Any, name: str = "org", **kw: Any) -> str:
    django_user_model.objects.create_user(name, password="pw", **kw)
    return str(ok(server, "POST", "/api/login", {"username": name, "password": "pw"})["token"])


class Sock:
    """A game socket (sync) that keeps its frames."""

    def __init__(self, server: Any, game_id: int, **hello: Any) -> None:
        self.ws = connect(f"{server.ws}/ws/games/{game_id}/", max_size=2**22)
        self.frames: list[dict[str, Any]] = []
        self.ws.send(json.dumps({"type": "hello", "last_seq": 0, **hello}))
        self.welcome = self.until(lambda f: f["type"] in ("welcome", "error"))
        self.seq = 0
        if self.welcome["type"] == "welcome":
            self.until(lambda f: f["type"] == "events" and "view" in f)

    def recv(self, timeout: float = 60) -> dict[str, Any]:  # (only a hang takes this long)
        f = json.loads(self.ws.recv(timeout))
        self.frames.append(f)
        if f["type"] == "events" and f["events"]:
            self.seq = f["to"]
        return f

    def until(self, pred: Any, timeout: float = 60) -> dict[str, Any]:
        while True:
            f = self.recv(timeout)
            if pred(f):
                return f

    def command(self, command: Any) -> dict[str, Any]:
        ref = f"r{len(self.frames)}"
        self.ws.send(json.dumps({"type": "command", "command": command,
                                 "expected_seq": self.seq, "ref": ref}))
        return self.until(lambda f: f["type"] in ("ok", "error") and f.get("ref") == ref)

    def sync(self, seq: int) -> None:
        if self.seq < seq:
            self.until(lambda f: f["type"] == "events" and self.seq >= seq)

    def close(self) -> None:
        self.ws.close()


def events(server: Any, game_id: int) -> list[dict[str, Any]]:
    return list(ok(server, "GET", f"/api/games/{game_id}/state/?events=1")["events"])


def test_seat_codes_name_a_seat(daphne_server):
    server = daphne_server
    g = ok(server, "POST", "/api/games/", {"kind": "tedoku", "options": {"seats": 3}})
    codes = [seat_code(g, i) for i in range(3)]
    assert len(set(codes)) == 3
    found = ok(server, "GET", f"/api/codes/{codes[1].lower()}/")
    assert found["id"] == g["id"] and found["seat"] == 1
    # (that seat's code only: the others are not the asker's to see)
    assert [s["code"] for s in found["seats"]] == [None, codes[1], None]
    typed = f"{codes[1][:4].lower()}-{codes[1][4:]}"  # (as a person may type it)
    assert ok(server, "GET", f"/api/codes/{typed}/")["seat"] == 1
    from server.games.models import Game

    game_code = Game.objects.get(pk=g["id"]).code  # (the table's own code: never a seat's)
    assert "code" not in g
    for bad in (game_code, f"{game_code}2", codes[1] + "2", "ZZZZZZZ1"):
        status, body = http(server, "GET", f"/api/codes/{bad}/")
        assert status == 404 and body["error"]["code"] == "not_found", bad
    j = ok(server, "POST", "/api/join/", {"code": codes[1], "name": "Bo"})
    assert j["seat"] == 1 and j["secret"]
    # taken, or a body that asks for another seat than its code: refused, nothing changes
    status, body = http(server, "POST", "/api/join/", {"code": codes[1], "name": "Cy"})
    assert status == 400 and "seat 1 is taken" in body["error"]["reason"]
    status, body = http(server, "POST", "/api/join/", {"code": codes[2], "seat": 0})
    assert status == 400 and "names seat 2" in body["error"]["reason"]
    seats = ok(server, "GET", f"/api/games/{g['id']}/")["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == [("open", ""), ("guest", "Bo"), ("open", "")]
    # the game's own code joins nothing (only a seat's code does)
    status, body = http(server, "POST", "/api/join/", {"code": game_code, "seat": 2})
    assert status == 404 and body["error"]["code"] == "not_found"
    di = ok(server, "POST", "/api/join/", {"code": codes[2], "seat": 2, "name": "Di"})
    assert di["seat"] == 2


def decode_qr(png: Path) -> str:
    out = subprocess.run(["zbarimg", "--raw", "-q", str(png)], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_seat_qr_code_decodes_to_the_join_address(daphne_server, browser, tmp_path):  # noqa: F811
    """The served SVG drawn by Chromium, the picture read by zbar's zbarimg."""
    if shutil.which("zbarimg") is None:
        pytest.skip("zbarimg is not installed (apt-get install zbar-tools; .ci/run does it)")
    server = daphne_server
    g = ok(server, "POST", "/api/games/", {"kind": "teka"})
    ctx = browser.new_context(viewport={"width": 600, "height": 600})
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    for seat in range(4):
        # (asked with the seat's code: a QR code shows only what its asker knows)
        url = f"{server.http}/api/games/{g['id']}/seats/{seat}/qr.svg?code={seat_code(g, seat)}"
        status, svg = http(server, "GET", url[len(server.http):])
        assert status == 200 and svg.lstrip().startswith(b"<svg")
        page.goto(url)
        png = tmp_path / f"qr{seat}.png"
        page.screenshot(path=str(png))
        assert decode_qr(png) == f"{server.http}/join/{seat_code(g, seat)}/"
    status, body = http(server, "GET", f"/api/games/{g['id']}/seats/4/qr.svg")
    assert status == 404 and body["error"]["code"] == "not_found"


def test_organiser_hands_a_seat_to_another_phone(daphne_server, django_user_model):
    server = daphne_server
    token = organiser_token(server, django_user_model)
    auth = {"Authorization": f"Token {token}"}
    g = ok(server, "POST", "/api/games/", {"kind": "teeko"}, **auth)
    gid = g["id"]
    ann = ok(server, "POST", "/api/join/", {"code": seat_code(g, 0), "name": "Ann"})
    bob = ok(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    a = Sock(server, gid, seat=0, secret=ann["secret"])
    b = Sock(server, gid, seat=1, secret=bob["secret"])
    assert a.command({"type": "place", "to": "a1"})["type"] == "ok"
    before = events(server, gid)
    # nobody but the organiser: refused, nothing changes
    status, body = http(server, "POST", f"/api/games/{gid}/seats/0/release/", {})
    assert status == 403 and body["error"]["code"] == "forbidden"
    status, body = http(server, "POST", f"/api/games/{gid}/seats/7/release/", {}, **auth)
    assert status == 400 and body["error"]["code"] == "wrong_seat"
    assert Sock(server, gid, seat=0, secret=ann["secret"]).welcome["type"] == "welcome"
    out = ok(server, "POST", f"/api/games/{gid}/seats/0/release/", {}, **auth)
    new_code = out.pop("code")
    assert out == {"game": gid, "seat": 0, "name": "Ann"}
    assert new_code != seat_code(g, 0) and len(new_code) == 8
    told = a.until(lambda f: f["type"] == "seat_released")
    assert told["seat"] == 0
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            a.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    again = Sock(server, gid, seat=0, secret=ann["secret"])
    assert again.welcome["type"] == "error" and again.welcome["code"] == "forbidden"
    status, body = http(server, "POST", f"/api/games/{gid}/seats/0/release/", {}, **auth)
    assert status == 409 and body["error"]["code"] == "open_seat"
    assert events(server, gid) == before  # (no event: who holds a seat is not the game)
    # the old code (its player knew it) joins nothing; the new phone joins with the new
    # one; the name stays
    status, body = http(server, "POST", "/api/join/", {"code": seat_code(g, 0)})
    assert status == 404 and body["error"]["code"] == "not_found"
    phone = ok(server, "POST", "/api/join/", {"code": new_code})
    assert phone["seat"] == 0 and phone["secret"] != ann["secret"]
    assert phone["game"]["seats"][0]["name"] == "Ann" and phone["game"]["status"] == "live"
    p = Sock(server, gid, seat=0, secret=phone["secret"])
    assert p.welcome["type"] == "welcome" and p.seq == before[-1]["seq"]
    b.sync(p.seq)
    assert b.command({"type": "place", "to": "a5"})["type"] == "ok"
    p.sync(b.seq)
    assert p.command({"type": "place", "to": "b1"})["type"] == "ok"
    for s in (b, p):
        s.close()


def test_organiser_hands_a_seat_to_a_bot(daphne_server, django_user_model):
    server = daphne_server
    token = organiser_token(server, django_user_model)
    auth = {"Authorization": f"Token {token}"}
    g = ok(server, "POST", "/api/games/", {"kind": "teeko"}, **auth)
    gid = g["id"]
    ann = ok(server, "POST", "/api/join/", {"code": seat_code(g, 0), "name": "Ann"})
    bob = ok(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    a = Sock(server, gid, seat=0, secret=ann["secret"])
    b = Sock(server, gid, seat=1, secret=bob["secret"])
    watcher = Sock(server, gid)
    assert a.command({"type": "place", "to": "a1"})["type"] == "ok"
    n = len(events(server, gid))
    for headers, data, status_code, err in (
        ({}, {}, 403, "forbidden"),
        (auth, {"level": "grandmaster"}, 400, "bad_request"),
    ):
        status, body = http(server, "POST", f"/api/games/{gid}/seats/1/bot/", data, **headers)
        assert status == status_code and body["error"]["code"] == err, body
    assert len(events(server, gid)) == n
    out = ok(server, "POST", f"/api/games/{gid}/seats/1/bot/", {"level": "random"}, **auth)
    assert out["seat"] == 1 and out["level"] == "random"
    b.until(lambda f: f["type"] == "seat_released")
    log = events(server, gid)
    assert log[n]["event"] == {"type": "seat_to_bot", "seat": 1, "by": None, "level": "random"}
    # the bot moves for seat 1; the others play on
    watcher.until(lambda f: f["type"] == "events" and any(
        r["seat"] == 1 and r["event"]["type"] == "placed" for r in f["events"]))
    seats = ok(server, "GET", f"/api/games/{gid}/")["seats"]
    assert seats[1]["kind"] == "bot" and seats[1]["replaced"] and seats[1]["name"] == "Bob"
    assert Sock(server, gid, seat=1, secret=bob["secret"]).welcome["code"] == "forbidden"
    status, body = http(server, "POST", f"/api/games/{gid}/seats/1/bot/", {}, **auth)
    assert status == 409 and body["error"]["code"] == "bot_seat"
    a.sync(watcher.seq)
    # (a random bot may have taken b1: Ann places on a square still empty)
    taken = {r["event"].get("to") for r in events(server, gid) if r["event"]["type"] == "placed"}
    square = next(q for q in ("b1", "c1", "d1", "e1") if q not in taken)
    assert a.command({"type": "place", "to": square})["type"] == "ok"
    for s in (a, watcher):
        s.close()


def test_rematch_same_people_same_seats_once(daphne_server):
    server = daphne_server
    g = ok(server, "POST", "/api/games/", {"kind": "teeko", "join": {"name": "Ann"}})
    gid = g["id"]
    ann_secret = g["joined"]["secret"]
    bob = ok(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    a = Sock(server, gid, seat=0, secret=ann_secret)
    b = Sock(server, gid, seat=1, secret=bob["secret"])
    watcher = Sock(server, gid)
    status, body = http(server, "POST", f"/api/games/{gid}/rematch/", {"secret": ann_secret})
    assert status == 409 and body["error"]["code"] == "not_finished"
    for i, square in enumerate(TEEKO_WIN):
        s = a if i % 2 == 0 else b
        s.sync(max(a.seq, b.seq))
        assert s.command({"type": "place", "to": square})["type"] == "ok"
    watcher.until(lambda f: f["type"] == "finished")
    for cred in ({"secret": "not-a-secret"}, {}, {"seat": 1, "secret": ann_secret}):
        status, body = http(server, "POST", f"/api/games/{gid}/rematch/", cred)
        assert status == 403 and body["error"]["code"] == "forbidden", cred
    assert ok(server, "GET", f"/api/games/{gid}/")["rematch"] is None
    first = ok(server, "POST", f"/api/games/{gid}/rematch/", {"secret": ann_secret})
    new = first["game"]
    assert new != gid and first["seat"] == 0 and first["secret"] and first["created"]
    for s in (a, b, watcher):
        assert s.until(lambda f: f["type"] == "rematch") == {"type": "rematch", "game": new}
    again = ok(server, "POST", f"/api/games/{gid}/rematch/", {"seat": 0, "secret": ann_secret})
    assert (again["game"], again["seat"], again["secret"]) == (new, 0, first["secret"])
    assert not again["created"]
    second = ok(server, "POST", f"/api/games/{gid}/rematch/", {"secret": bob["secret"]})
    assert second["game"] == new and second["seat"] == 1 and second["secret"] != first["secret"]
    table = ok(server, "GET", f"/api/games/{new}/")
    assert table["kind"] == "teeko" and table["options"] == g["options"]
    assert [(s["kind"], s["name"]) for s in table["seats"]] == [("guest", "Ann"), ("guest", "Bob")]
    assert table["status"] == "live"
    assert ok(server, "GET", f"/api/games/{gid}/")["rematch"] == new
    # the new secrets hold the new seats; the old ones do not
    na = Sock(server, new, seat=0, secret=first["secret"])
    nb = Sock(server, new, seat=1, secret=second["secret"])
    assert na.welcome["type"] == nb.welcome["type"] == "welcome"
    assert Sock(server, new, seat=0, secret=ann_secret).welcome["code"] == "forbidden"
    assert na.command({"type": "place", "to": "c3"})["type"] == "ok"
    for s in (a, b, watcher, na, nb):
        s.close()
