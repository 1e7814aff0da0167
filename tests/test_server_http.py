"""The JSON HTTP API: login, create, list, join (id and code), state at any seq, log
export, leagues and standings."""

from __future__ import annotations

import json
import re
from unittest import mock

import pytest
from django.conf import settings
from django.db import OperationalError
from server_helpers import client_post as post
from server_helpers import finish, seat_code

import core
from core.api import ALL, SPECTATOR, dumps
from server.games import cache, chain, creating, seating
from server.games.models import Game
from server.leagues.models import League

pytestmark = pytest.mark.django_db(transaction=True)


def login(client, django_user_model, name):
    django_user_model.objects.create_user(name, password="pw")
    r = post(client, "/api/login", {"username": name, "password": "pw"})
    assert r.status_code == 200
    return r.json()["token"]


def test_login_and_me(client, django_user_model, server_runtime):
    token = login(client, django_user_model, "ann")
    assert post(client, "/api/login", {"username": "ann", "password": "no"}).status_code == 401
    assert client.get("/api/me/").status_code == 401
    me = client.get("/api/me/", headers={"Authorization": f"Token {token}"}).json()
    assert me["username"] == "ann"
    assert (
        client.post("/api/login", data="junk", content_type="application/json").status_code == 400
    )
    assert client.get("/api/login").status_code == 405


def test_create_join_list_state_and_log(client, django_user_model, server_runtime):
    token = login(client, django_user_model, "ann")
    kinds = {k["kind"]: k for k in client.get("/api/kinds/").json()["kinds"]}
    assert (
        set(kinds) == {"teeko", "tiku", "tedoku", "teka"}
        and "random" in kinds["teeko"]["bot_levels"]
    )
    r = post(
        client,
        "/api/games/",
        {
            "kind": "teeko",
            "options": {"move_cap": 60},
            "seats": [{"kind": "open"}, {"kind": "open"}],
            "join": {"seat": 0},
        },
        Authorization=f"Token {token}",
    )
    assert r.status_code == 201, r.content
    g = r.json()
    assert g["joined"] == {"seat": 0, "secret": None} and g["status"] == "open" and g["seq"] == 1
    assert g["seats"][0]["name"] == "ann" and g["ws"] == f"/ws/games/{g['id']}/"
    auth = {"Authorization": f"Token {token}"}
    # (a private table: in its creator's list, not in a stranger's)
    assert [x["id"] for x in client.get("/api/games/?status=open", headers=auth).json()["games"]
            ] == [g["id"]]
    assert client.get("/api/games/?status=open").json()["games"] == []
    # a guest joins by its seat's code
    j = post(client, "/api/join/", {"code": seat_code(g, 1).lower(), "name": "Bob"}).json()
    assert j["seat"] == 1 and j["secret"] and j["game"]["status"] == "live"
    assert post(client, f"/api/games/{g['id']}/join/", {"name": "Cid"}).status_code == 403
    assert client.get(f"/api/codes/{seat_code(g, 1)}/").json()["id"] == g["id"]
    assert client.get("/api/codes/NOPE9999/").status_code == 404
    assert client.get("/api/games/?status=live", headers=auth).json()["games"][0]["id"] == g["id"]
    # state: spectator vs. seat holder (secret) vs. wrong secret
    gid = g["id"]
    s = client.get(f"/api/games/{gid}/state/").json()
    assert s["viewer"] == SPECTATOR and s["legal"] == [] and s["to_act"] == [0]
    s0 = client.get(
        f"/api/games/{gid}/state/?seat=0", headers={"Authorization": f"Token {token}"}
    ).json()
    assert s0["viewer"] == 0 and s0["legal"]
    s1 = client.get(f"/api/games/{gid}/state/?seat=1", headers={"X-Seat-Secret": j["secret"]})
    assert s1.json()["viewer"] == 1
    assert client.get(f"/api/games/{gid}/state/?seat=1&secret=bad").status_code == 403
    finish(gid)
    # finished: everything revealed; step to any point
    e = cache.entry(gid)
    st = e.game.initial()
    for n, (_, _, ev) in enumerate(e.log, start=1):
        st = e.game.evolve(st, ev)
        if n % 7 == 0 or n == e.seq:
            r = client.get(f"/api/games/{gid}/state/?seq={n}").json()
            assert r["seq"] == n and r["head"] == e.seq and r["viewer"] == ALL
            assert dumps(r["view"]) == dumps(e.game.view(st, ALL))
    assert client.get(f"/api/games/{gid}/state/?seq=0").json()["seq"] == 0
    assert client.get(f"/api/games/{gid}/state/?seq=x").status_code == 400
    lines = b"".join(client.get(f"/api/games/{gid}/log/").streaming_content).decode().splitlines()
    head, rows = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    assert head["status"] == "finished" and head["outcome"] == Game.objects.get(pk=gid).outcome
    assert [r["seq"] for r in rows] == list(range(1, e.seq + 1))
    assert [r["event"] for r in rows] == [r[2] for r in e.log]
    prev = chain.GENESIS
    for r in rows:  # the exported hashes chain
        prev = chain.chain_hash(prev, r["seq"], r["seat"], r["event"])
        assert r["hash"] == prev
    # re-import the export: same log, same chain
    copy = creating.import_game("teeko", None, None, rows)
    assert client.get(f"/api/games/{copy.pk}/verify/").json()["ok"] is True
    assert client.get(f"/api/games/{gid}/").json()["status"] == "finished"
    # (the copy is no one's and private: ann's list shows her game)
    mine = client.get("/api/games/?status=finished", headers=auth).json()["games"]
    assert [x["id"] for x in mine] == [gid]


def test_create_errors_and_guest_seats(client, server_runtime):
    assert post(client, "/api/games/", {"kind": "chess"}).status_code == 400
    assert (
        post(client, "/api/games/", {"kind": "teeko", "options": {"squares": 3}}).status_code == 400
    )
    assert (
        post(client, "/api/games/", {"kind": "teeko", "seats": [{"kind": "alien"}]}).status_code
        == 400
    )
    assert post(client, "/api/games/", {"kind": "teeko", "seats": [{}, {}, {}]}).status_code == 400
    assert client.get("/api/games/999999/").status_code == 404
    assert client.get("/api/games/?status=weird").status_code == 400
    r = post(
        client,
        "/api/games/",
        {
            "kind": "tedoku",
            "options": {"seats": 2},
            "seats": [{"kind": "guest", "name": "A"}, {"kind": "bot", "level": "random"}],
        },
    )
    g = r.json()
    assert r.status_code == 201 and g["status"] == "live" and set(g["guest_secrets"]) == {"0"}
    assert g["seats"][1]["bot_level"] == "random"
    assert seating.seat_holder_ok(g["id"], 0, secret=g["guest_secrets"]["0"])


def test_league_standings(client, django_user_model, server_runtime):
    users = [django_user_model.objects.create_user(n, password="pw") for n in ("ann", "bob", "cid")]
    league = League.objects.create(name="Tuesday", kind="teeko")
    league.members.set(users)
    results = []
    for a, b, seed in (("ann", "bob", 1), ("bob", "cid", 2), ("ann", "cid", 3)):
        g = creating.create_game(
            "teeko",
            {"move_cap": 40},
            [{"kind": "user", "username": a}, {"kind": "user", "username": b}],
            league=league.pk,
        )
        finish(g.pk, seed)
        results.append((a, b, Game.objects.get(pk=g.pk).outcome["winners"]))
    creating.create_game("teeko", {}, league=league)  # unfinished: not counted
    with pytest.raises(core.OptionsError):
        creating.create_game("tiku", {}, league=league)
    expect = {u: {"played": 0, "won": 0, "drawn": 0, "lost": 0} for u in ("ann", "bob", "cid")}
    for a, b, winners in results:
        for seat, name in ((0, a), (1, b)):
            expect[name]["played"] += 1
            key = "drawn" if not winners else ("won" if seat in winners else "lost")
            expect[name][key] += 1
    listing = client.get("/api/leagues/").json()["leagues"]
    assert listing == [
        {
            "id": league.pk,
            "name": "Tuesday",
            "kind": "teeko",
            "members": ["ann", "bob", "cid"],
            "games": 4,
        }
    ]
    detail = client.get(f"/api/leagues/{league.pk}/").json()
    rows = {r["username"]: r for r in detail["standings"]}
    for name, exp in expect.items():
        row = rows[name]
        assert {k: row[k] for k in exp} == exp
        assert row["points"] == 3 * exp["won"] + exp["drawn"]
    points = [r["points"] for r in detail["standings"]]
    assert points == sorted(points, reverse=True)
    assert client.get("/api/leagues/999/").status_code == 404
    # the admin shows the standings
    admin = django_user_model.objects.create_superuser("root", password="pw")
    client.force_login(admin)
    page = client.get(f"/admin/leagues/league/{league.pk}/change/")
    assert page.status_code == 200 and b"standings" in page.content and b"ann" in page.content
    assert client.get("/admin/games/event/").status_code == 200


def test_front_page_lists_tables_games_and_standings(
    client, django_user_model, server_runtime, settings
):
    users = [django_user_model.objects.create_user(n, password="pw") for n in ("ann", "bob")]
    league = League.objects.create(name="Tuesday <Club>", kind="teeko")
    league.members.set(users)
    page = client.get("/")
    assert page.status_code == 200 and b"No table is waiting" in page.content
    assert b"No game in progress" in page.content and b"No finished game" in page.content
    done = creating.create_game(
        "teeko",
        {"move_cap": 40},
        [{"kind": "user", "username": "ann"}, {"kind": "user", "username": "bob"}],
        league=league.pk,
        public=True,
    )
    finish(done.pk, 1)
    outcome = Game.objects.get(pk=done.pk).outcome
    scored = creating.create_game(
        "tiku", {}, [{"kind": "guest", "name": "Uma"}, {"kind": "guest", "name": "Vic"}],
        public=True,
    )
    finish(scored.pk, 2)
    scores = Game.objects.get(pk=scored.pk).outcome["scores"]
    waiting = creating.create_game("tiku", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
                                public=True)
    private = creating.create_game("tiku", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}])
    live = creating.create_game(
        "tedoku", {"seats": 2},
        [{"kind": "guest", "name": "Zed"}, {"kind": "bot", "level": "hard"}], public=True,
    )
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "club.example"]  # (a deployment's name)
    html = client.get("/", HTTP_HOST="club.example:8000").content.decode()

    def shows(pk: int, part: str) -> bool:  # (the table cell "#<id>", not "#222" in the CSS)
        return re.search(rf"<td>#{pk}(?!\d)", part) is not None

    assert "http://club.example:8000" in html  # the address to give the tablets
    open_part, rest = html.split("<h2>Playing now</h2>")
    live_part, rest = rest.split("<h2>Finished lately</h2>")
    finished_part, league_part = rest.split("<h2>Leagues</h2>")
    assert shows(waiting.pk, open_part) and "1 of 2 taken" in open_part
    assert "anyone (public)" in open_part and not shows(private.pk, html)
    for g in Game.objects.all():  # (no code of any table on the page)
        assert g.code not in html
        assert all(s.code not in html for s in g.seat_set.all())
    assert shows(live.pk, live_part) and "Zed, Bot<" in live_part, live_part[-600:]
    assert not shows(live.pk, open_part) and not shows(done.pk, live_part)
    winners = outcome["winners"]
    result = {(0,): "ann wins", (1,): "bob wins", (): "draw"}[tuple(winners)]
    assert shows(done.pk, finished_part) and result in finished_part
    assert f"/api/games/{done.pk}/log/" in finished_part
    assert len(scores) == 2 and f"Uma {scores[0]}, Vic {scores[1]}" in finished_part
    # standings as the API computes them; names are escaped
    assert "Tuesday &lt;Club&gt;" in league_part and "<Club>" not in html
    rows = client.get(f"/api/leagues/{league.pk}/").json()["standings"]
    for r in rows:
        cells = f"<td>{r['username']}</td><td>{r['played']}</td><td>{r['won']}</td>"
        assert cells in league_part
    assert client.post("/").status_code == 405


def test_health_check(client, server_runtime):
    r = client.get("/healthz")
    assert r.status_code == 200
    body = r.json()
    assert body["ok"] is True and body["database"] == "ok"
    assert body["core"] == ("compiled" if core.COMPILED else "pure")
    assert body["pools"]["sync"]["max"] == settings.GAMENIGHT["DB_POOL"]
    # (the real "busy" and "down" cases against a real daphne: test_server_pool.py)
    broken = mock.Mock()
    broken.connection.side_effect = OperationalError("connection refused")
    broken.max_size, broken.get_stats.return_value = 8, {}
    with mock.patch("server.games.dbpool.sync_pool", return_value=broken):
        r = client.get("/healthz")
    assert r.status_code == 503
    assert r.json()["database"] == "down" and r.json()["ok"] is False
