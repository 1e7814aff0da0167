"""Private tables (issue 26, reproduction 4; docs/protocol.md, "Private tables"): a table is
listed to everyone only when its organiser opens it; its seat codes reach nobody but the
organiser and its seat holders, in any answer (the API, the pages, the socket); a code is
random and a released seat's old one is dead; joins and code lookups are limited per
address. A real daphne on the real (test) PostgreSQL, HTTP from two client addresses
(127.0.0.1 and 127.0.0.2), the game socket through ``websockets``."""

from __future__ import annotations

import http.client
import json
import re
import uuid
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from server_helpers import seat_code
from websockets.sync.client import connect

from server.games.models import JOIN_ALPHABET, Game
from server.leagues.models import League

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

CODE = re.compile(f"^[{JOIN_ALPHABET}]{{8}}$")
OTHER_ADDRESS = "127.0.0.2"  # (Linux answers every 127.x address: a second client address)


def call(server: Any, method: str, path: str, data: Any = None, source: str = "127.0.0.1",
         **headers: str) -> tuple[int, Any, dict[str, str]]:
    """(status, body: JSON or text, headers) of one request from address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30,
                                      source_address=(source, 0))
    try:
        body = json.dumps(data).encode() if data is not None else None
        conn.request(method, path, body=body,
                     headers={"Content-Type": "application/json", **headers})
        r = conn.getresponse()
        raw = r.read()
        kind = r.getheader("Content-Type") or ""
        out = json.loads(raw) if "json" in kind else raw.decode("utf-8", "replace")
        return r.status, out, {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def ok(server: Any, method: str, path: str, data: Any = None, **headers: str) -> Any:
    status, body, _ = call(server, method, path, data, **headers)
    assert status in (200, 201), (status, body)
    return body


def login(server: Any, django_user_model: Any, name: str, **kw: Any) -> dict[str, str]:
    django_user_model.objects.create_user(name, password="pw", **kw)
    token = ok(server, "POST", "/api/login", {"username": name, "password": "pw"})["token"]
    return {"Authorization": f"Token {token}"}


def welcome_text(server: Any, game_id: int, **hello: Any) -> str:
    """The socket's welcome frame as sent (text), for a spectator or a seat."""
    with connect(f"{server.ws}/ws/games/{game_id}/", max_size=2**22) as ws:
        ws.send(json.dumps({"type": "hello", "last_seq": 0, **hello}))
        while True:
            text = str(ws.recv(30))
            if json.loads(text)["type"] in ("welcome", "error"):
                return text


def listed(server: Any, **headers: str) -> list[int]:
    return [g["id"] for g in ok(server, "GET", "/api/games/?status=open", **headers)["games"]]


def test_a_table_is_private_until_its_organiser_opens_it(daphne_server, django_user_model):
    """Reproduction 4: an outsider read a table's seat codes from ``/api/games/?status=open``
    (and the front page) and took its open seat."""
    server = daphne_server
    org = login(server, django_user_model, "org")
    g = ok(server, "POST", "/api/games/", {"kind": "teka"}, **org)
    gid = g["id"]
    codes = [seat_code(g, i) for i in range(4)]  # (the creator gets them: to hand out)
    assert all(CODE.match(c) for c in codes) and len(set(codes)) == 4
    assert g["public"] is False
    game_code = Game.objects.get(pk=gid).code
    secrets_ = [*codes, game_code]

    def nowhere(text: str, where: str) -> None:
        for c in secrets_:
            assert c not in text, f"a code in {where}"

    # an outsider: not listed, no code in any answer, no seat by id or by the old scheme
    assert gid not in listed(server)
    for path in ("/api/games/", "/api/games/?status=open", f"/api/games/{gid}/",
                 f"/api/games/{gid}/?seat=1", "/", "/tv/", f"/games/{gid}/",
                 f"/games/{gid}/table/", "/api/games/?status=open&limit=500"):
        status, body, _ = call(server, "GET", path)
        assert status == 200, (path, status)
        nowhere(body if isinstance(body, str) else json.dumps(body), path)
    nowhere(welcome_text(server, gid), "the socket's welcome")
    detail = ok(server, "GET", f"/api/games/{gid}/")
    assert [s["code"] for s in detail["seats"]] == [None] * 4 and "code" not in detail
    status, body, _ = call(server, "POST", f"/api/games/{gid}/join/", {"name": "Eve"})
    assert status == 403 and body["error"]["code"] == "forbidden"
    assert "private" in body["error"]["reason"] and "seat code" in body["error"]["reason"]
    status, body, _ = call(server, "POST", "/api/join/", {"code": f"{game_code}2", "name": "Eve"})
    assert status == 404 and body["error"]["code"] == "not_found"
    status, body, _ = call(server, "GET", f"/api/games/{gid}/seats/1/qr.svg")
    assert status == 403 and body["error"]["code"] == "forbidden"
    status, body, _ = call(server, "GET", f"/api/games/{gid}/seats/1/qr.svg?code=ABCDEFGH")
    assert status == 403
    assert all(s["kind"] == "open" for s in ok(server, "GET", f"/api/games/{gid}/")["seats"])
    # nobody but the organiser opens it
    outsider = login(server, django_user_model, "eve")
    status, body, _ = call(server, "POST", f"/api/games/{gid}/public/", {"public": True},
                           **outsider)
    assert status == 403 and body["error"]["code"] == "forbidden"
    status, body, _ = call(server, "POST", f"/api/games/{gid}/public/", {"public": "yes"}, **org)
    assert status == 400 and body["error"]["code"] == "malformed"
    assert gid not in listed(server, **outsider)

    # the organiser sees its codes (the list, the game, its QR codes)
    mine = next(x for x in ok(server, "GET", "/api/games/?status=open", **org)["games"]
                if x["id"] == gid)
    assert [s["code"] for s in mine["seats"]] == codes
    assert [s["code"] for s in ok(server, "GET", f"/api/games/{gid}/", **org)["seats"]] == codes
    status, svg, _ = call(server, "GET", f"/api/games/{gid}/seats/1/qr.svg", **org)
    assert status == 200 and svg.lstrip().startswith("<svg")

    # a guest with a code: its seat, and now it sees the table's codes (to bring others in)
    ann = ok(server, "POST", "/api/join/", {"code": codes[0], "name": "Ann"})
    assert ann["seat"] == 0 and [s["code"] for s in ann["game"]["seats"]] == codes
    held = ok(server, "GET", f"/api/games/{gid}/?seat=0", **{"X-Seat-Secret": ann["secret"]})
    assert [s["code"] for s in held["seats"]] == codes
    wrong = ok(server, "GET", f"/api/games/{gid}/?seat=0", **{"X-Seat-Secret": "nope"})
    assert [s["code"] for s in wrong["seats"]] == [None] * 4
    nowhere(welcome_text(server, gid, seat=0, secret=ann["secret"]), "a player's welcome")

    # opened: listed to everyone, still without codes; an open seat taken by id
    assert ok(server, "POST", f"/api/games/{gid}/public/", {"public": True}, **org) == {
        "game": gid, "public": True}
    shown_ = next(x for x in ok(server, "GET", "/api/games/?status=open")["games"]
                  if x["id"] == gid)
    assert shown_["public"] is True and [s["code"] for s in shown_["seats"]] == [None] * 4
    status, front, _ = call(server, "GET", "/")
    assert f"#{gid}" in front and "anyone (public)" in front
    nowhere(front, "the front page of a public table")
    bob = ok(server, "POST", f"/api/games/{gid}/join/", {"name": "Bob"})
    assert bob["seat"] == 1
    # closed again: off the lists, no seat by id
    ok(server, "POST", f"/api/games/{gid}/public/", {"public": False}, **org)
    assert gid not in listed(server)
    status, body, _ = call(server, "POST", f"/api/games/{gid}/join/", {"name": "Cy"})
    assert status == 403
    # a public table at creation
    pub = ok(server, "POST", "/api/games/", {"kind": "teeko", "public": True})
    assert pub["public"] is True and pub["id"] in listed(server)
    status, body, _ = call(server, "POST", "/api/games/", {"kind": "teeko", "public": 1})
    assert status == 400 and "public" in body["error"]["reason"]


def test_live_and_finished_lists_show_public_games_and_ones_own(daphne_server,
                                                                 django_user_model):
    """A private game in play is not on the TV or the lists of strangers; its players see
    it in theirs; anyone with its number may still watch it as a spectator."""
    server = daphne_server
    ann = login(server, django_user_model, "ann")
    g = ok(server, "POST", "/api/games/", {"kind": "teeko", "seats": [
        {"kind": "user", "username": "ann"}, {"kind": "bot", "level": "random"}]}, **ann)
    assert g["status"] == "live"
    live = ok(server, "GET", "/api/games/?status=live")["games"]
    assert g["id"] not in [x["id"] for x in live]
    theirs = ok(server, "GET", "/api/games/?status=live", **ann)["games"]
    assert g["id"] in [x["id"] for x in theirs]
    status, tv, _ = call(server, "GET", "/tv/")
    assert status == 200 and f'"id": {g["id"]},' not in tv
    # (watched by its number: public information only)
    assert call(server, "GET", f"/games/{g['id']}/")[0] == 200


def test_members_see_their_leagues_tables(daphne_server, django_user_model, client):
    """The club's lists show a league's private tables to its logged-in members (the API
    with a token, the front page with the browser's login), to nobody else."""
    server = daphne_server
    league = League.objects.create(name="Tuesday", kind="teeko")
    ann = login(server, django_user_model, "ann")
    outsider = login(server, django_user_model, "zed")
    league.members.add(django_user_model.objects.get(username="ann"))
    g = ok(server, "POST", "/api/games/", {"kind": "teeko", "league": league.pk}, **ann)
    assert g["id"] in listed(server, **ann)
    assert g["id"] not in listed(server, **outsider) and g["id"] not in listed(server)
    front = call(server, "GET", "/")[1]
    assert f"#{g['id']} · Tuesday" not in front
    # the front page in a browser logged in as a member (Django's login: its session)
    client.force_login(django_user_model.objects.get(username="ann"))
    front = client.get("/").content.decode()
    assert f"#{g['id']} · Tuesday" in front and "private: with a seat code" in front
    for s in g["seats"]:
        assert s["code"] not in front


def test_a_released_seats_old_code_opens_nothing(daphne_server, django_user_model):
    """Reproduction 4: a seat released by the organiser reopened under the same code, to
    whoever asked first (its old player among them)."""
    server = daphne_server
    org = login(server, django_user_model, "org")
    g = ok(server, "POST", "/api/games/", {"kind": "teeko"}, **org)
    gid, old = g["id"], seat_code(g, 1)
    bob = ok(server, "POST", "/api/join/", {"code": old, "name": "Bob"})
    assert bob["seat"] == 1
    out = ok(server, "POST", f"/api/games/{gid}/seats/1/release/", {}, **org)
    new = out["code"]
    assert CODE.match(new) and new != old
    for method, path, data in (("POST", "/api/join/", {"code": old, "name": "Bob"}),
                               ("GET", f"/api/codes/{old}/", None),
                               ("GET", f"/join/{old}/", None)):
        status, body, _ = call(server, method, path, data)
        assert status == 404, (path, status, body)
    status, body, _ = call(server, "GET", f"/api/games/{gid}/seats/1/qr.svg?code={old}")
    assert status == 403
    # the code the organiser now shows takes it (and only it)
    assert ok(server, "GET", f"/api/games/{gid}/", **org)["seats"][1]["code"] == new
    status, page, _ = call(server, "GET", f"/join/{new.lower()}/")
    assert status == 200 and old not in page
    phone = ok(server, "POST", "/api/join/", {"code": new})
    assert phone["seat"] == 1 and phone["game"]["seats"][1]["name"] == "Bob"  # (name stays)


@pytest.fixture
def limited_server(transactional_db: Any, tmp_path: Any) -> Any:
    """A daphne allowing 20 joins and code lookups an hour per address (an hour: whatever
    the machine's speed, the requests below fall in one window), counting under a Redis
    prefix of its own when Redis is used (before, a second run within the hour on the same
    Redis found the address already over the limit: every request 429)."""
    server = start_daphne(tmp_path, "limited", {"GAMENIGHT_JOIN_RATE": "20/hour",
                                                "GAMENIGHT_REDIS_PREFIX": f"t{uuid.uuid4().hex}"})
    try:
        yield server
    finally:
        stop_daphne(server)


def test_joins_and_code_lookups_are_limited_per_address(limited_server):
    """Reproduction 4: 82 join requests a second were answered, none with 429."""
    server = limited_server
    g = ok(server, "POST", "/api/games/", {"kind": "tedoku", "options": {"seats": 3}})
    gid, code = g["id"], seat_code(g, 2)
    answered = []
    for i in range(20):  # guesses, the endpoints taking turns: each one counts
        path = ["/api/codes/ZZZZZZZZ/", f"/api/games/{gid}/seats/0/qr.svg?code=ZZZZZZZZ",
                "/join/ZZZZZZZZ/"][i % 3]
        answered.append(call(server, "GET", path)[0])
    assert set(answered) <= {403, 404}, answered
    for method, path, data in (("POST", "/api/join/", {"code": code, "name": "Eve"}),
                               ("GET", f"/api/codes/{code}/", None),
                               ("POST", f"/api/games/{gid}/join/", {"name": "Eve"})):
        status, body, headers = call(server, method, path, data)
        assert status == 429, (path, status, body)
        wait = int(headers["retry-after"])
        assert 0 < wait <= 3600
        assert body["error"]["code"] == "rate_limited"
        assert re.search(rf"try again in {wait - 1}|try again in {wait}", body["error"]["reason"])
    status, page, headers = call(server, "GET", f"/join/{code}/")
    assert status == 429 and "try again in" in page and int(headers["retry-after"]) > 0
    # refused: nothing changed (the seat is open)
    assert ok(server, "GET", f"/api/games/{gid}/")["seats"][2]["kind"] == "open"
    # another address is counted on its own
    status, body, _ = call(server, "POST", "/api/join/", {"code": code, "name": "Ann"},
                           source=OTHER_ADDRESS)
    assert status == 200 and body["seat"] == 2
    # (what is not a join or a lookup is not limited)
    assert ok(server, "GET", f"/api/games/{gid}/")["id"] == gid


def test_servers_sharing_a_redis_count_joins_apart(settings: Any) -> None:
    """Two servers on one Redis (their own GAMENIGHT_REDIS_PREFIX each): one address over
    the limit on one is not over it on the other."""
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (REDIS_URL)")
    from django.test import RequestFactory

    from server.games import joinlimit

    request = RequestFactory().get("/api/codes/ZZZZZZZZ/", REMOTE_ADDR="192.0.2.7")
    run = uuid.uuid4().hex
    settings.GAMENIGHT = {**settings.GAMENIGHT, "JOIN_RATE": "2/hour",
                          "REDIS_PREFIX": f"one{run}"}
    joinlimit.hit(request)
    joinlimit.hit(request)
    with pytest.raises(joinlimit.Limited):
        joinlimit.hit(request)
    settings.GAMENIGHT = {**settings.GAMENIGHT, "REDIS_PREFIX": f"two{run}"}
    joinlimit.hit(request)  # counted apart
