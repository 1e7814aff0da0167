"""Bad input over HTTP: every answer is the JSON error body of docs/protocol.md (never a 500,
never HTML), nothing is created by a refused request, reasons never echo client input
verbatim. In-process (Django test client) on the real PostgreSQL."""

from __future__ import annotations

from random import Random
from unittest import mock

import pytest
from server_helpers import client_post as post

from server.games import append, cache, creating, seating
from server.games.models import Event, Game
from server.leagues.models import League

pytestmark = pytest.mark.django_db(transaction=True)


def json_error(r, status, code=None):
    """``r`` is ``status`` with the protocol's JSON error body; returns the reason."""
    assert r.status_code == status, (r.status_code, r.content[:300])
    assert r["Content-Type"].startswith("application/json"), r["Content-Type"]
    err = r.json()["error"]
    assert set(err) == {"code", "reason"} and isinstance(err["reason"], str)
    if code is not None:
        assert err["code"] == code, err
    return err["reason"]


@pytest.fixture
def api(client, server_runtime):
    client.raise_request_exception = False  # a 500 must be an answer, not a test crash
    return client


def test_the_probes_500s_are_400s(api):
    before = Game.objects.count()
    json_error(post(api, "/api/games/", {"kind": "teeko", "league": "x"}), 400, "bad_request")
    json_error(post(api, "/api/games/", {"kind": "teeko", "league": [1]}), 400, "bad_request")
    json_error(post(api, "/api/games/", {"kind": "teeko", "league": True}), 400, "bad_request")
    for name in ("A\x00B", "\ud800", "x\udfff"):
        seats = [{"kind": "guest", "name": name}]
        json_error(post(api, "/api/games/", {"kind": "teeko", "seats": seats}), 400, "malformed")
        join = {"name": name}
        json_error(post(api, "/api/games/", {"kind": "teeko", "join": join}), 400, "malformed")
    deep = '{"kind": "teeko", "options": ' + "[" * 20000 + "]" * 20000 + "}"
    json_error(post(api, "/api/games/", raw=deep), 400, "malformed")
    json_error(post(api, "/api/games/", raw="[" * 100 + "]" * 100), 400, "malformed")
    json_error(post(api, "/api/games/", raw='{"kind": "teeko", "x": NaN}'), 400, "malformed")
    json_error(post(api, "/api/games/", raw='{"kind": "teeko", "x": 1e999}'), 400, "malformed")
    json_error(post(api, "/api/games/", raw='{"kind": "teeko", "x": ' + "9" * 5000 + "}"), 400)
    json_error(api.get("/api/games/?league=x"), 400, "malformed")
    json_error(api.get("/api/games/?league=99999999999999999999999"), 400, "malformed")
    json_error(api.get("/api/games/?kind=%00"), 400, "malformed")
    json_error(api.get("/api/codes/%00/"), 404, "not_found")
    json_error(api.get("/api/codes/" + "A" * 300 + "/"), 404, "not_found")
    json_error(post(api, "/api/join/", {"code": "\x00"}), 400, "malformed")
    json_error(post(api, "/api/join/", {"code": "AB CD"}), 404, "not_found")
    json_error(post(api, "/api/login", {"username": ["a"], "password": {}}), 400, "malformed")
    json_error(post(api, "/api/login", {"username": "a\x00", "password": "b"}), 400, "malformed")
    json_error(api.get("/api/me/", headers={"Authorization": "Token a\x00b"}), 401)
    json_error(api.get("/api/games/99999999999999999999999/"), 404, "not_found")
    assert Game.objects.count() == before
    gid = creating.create_game("teeko").pk
    json_error(api.get(f"/api/games/{gid}/state/?seat=99999999999999999999"), 400, "bad_request")
    json_error(api.get(f"/api/games/{gid}/state/?seat=-1"), 400, "bad_request")


def test_bot_levels_are_the_kinds_levels(api):
    levels = {k["kind"]: k["bot_levels"] for k in api.get("/api/kinds/").json()["kinds"]}
    for kind, names in levels.items():
        for bad in (99, -1, len(names), "nope", 1.5, [1], True):
            seats = [{"kind": "bot", "level": bad}]
            reason = json_error(post(api, "/api/games/", {"kind": kind, "seats": seats}), 400)
            assert "bot level" in reason
        ok = post(api, "/api/games/", {"kind": kind, "seats": [{"kind": "bot", "level": 0}]})
        assert ok.status_code == 201 and ok.json()["seats"][0]["bot_level"] == names[0]
    with pytest.raises(Exception, match="bot level"):
        creating.create_game("teeko", {}, [{"kind": "bot", "level": 99}])


def test_reasons_are_capped_and_escaped(api):
    long = "Z" * 5000 + "\x00\x07"
    answers = [
        post(api, "/api/games/", {"kind": long}),
        post(api, "/api/games/", {"kind": "teeko", "options": {long: 1}}),
        post(api, "/api/games/", {"kind": "teeko", "seats": [{"kind": long}]}),
        post(api, "/api/games/", {"kind": "teeko", "seats": [{"kind": "user", "username": long}]}),
        post(api, "/api/games/", {"kind": "teeko", "seats": [{"kind": "bot", "level": long}]}),
        post(api, "/api/join/", {"code": long}),
        api.get("/api/codes/" + "Z" * 5000 + "/"),
    ]
    for r in answers:
        reason = r.json()["error"]["reason"]
        assert r.status_code in (400, 404) and len(reason) <= 200, (r.status_code, len(reason))
        assert "Z" * 60 not in reason and "\x00" not in reason and "\x07" not in reason


def test_routing_errors_under_api_are_json(api):
    json_error(api.get("/api/nothing-here/"), 404, "not_found")
    json_error(api.get("/api/games/abc/"), 404, "not_found")
    json_error(api.get("/api/games/1/nope/"), 404, "not_found")
    json_error(api.put("/api/games/"), 405, "method_not_allowed")
    json_error(api.delete("/api/login"), 405, "method_not_allowed")
    assert api.get("/not-api/").status_code == 404  # pages keep Django's own 404
    # an API path without its slash is no endpoint (no redirect: a POST would become a GET)
    before = Game.objects.count()
    json_error(post(api, "/api/games", {"kind": "teeko"}), 404, "not_found")
    json_error(api.get("/api/kinds"), 404, "not_found")
    assert Game.objects.count() == before
    assert post(api, "/api/login", {"username": "a", "password": "b"}).status_code == 401
    assert api.get("/admin").status_code == 301  # pages still get the slash
    with mock.patch("server.games.views.game_json", side_effect=RuntimeError("boom")):
        reason = json_error(api.get(f"/api/games/{creating.create_game('teeko').pk}/"), 500)
    assert "boom" not in reason
    with mock.patch("server.games.views.token_user", side_effect=RuntimeError("boom")):
        json_error(api.get("/api/kinds/"), 500, "server_error")


def test_state_seq_out_of_range_is_400_with_the_range(api):
    game = creating.create_game("teeko", {}, [{"kind": "guest"}, {"kind": "guest"}])
    rng = Random(2)
    for _ in range(17):
        e = cache.entry(game.pk)
        seat = e.game.to_act(e.state)[0]
        legal = [c for c in e.game.legal_commands(e.state, seat) if c["type"] != "resign"]
        append.submit(game.pk, seat, rng.choice(legal), e.seq)
    assert Event.objects.filter(game=game).count() == 18
    url = f"/api/games/{game.pk}/state/"
    assert api.get(url + "?seq=18").json()["seq"] == 18
    assert api.get(url + "?seq=0").json()["seq"] == 0
    for bad in ("99", "19", "-1", "99999999999999999999999"):
        reason = json_error(api.get(url + f"?seq={bad}"), 400, "bad_request")
        assert "0..18" in reason
    json_error(api.get(url + "?seq=x"), 400, "malformed")


def test_a_failed_create_and_join_leaves_no_game(api, django_user_model):
    before = Game.objects.count()
    bad_joins = [
        {"seat": 1},  # the bot's seat
        {"seat": 7},
        {"seat": "0"},
        {"name": 5},
        [0],
    ]
    for join in bad_joins:
        r = post(
            api, "/api/games/", {"kind": "teeko", "seats": [{}, {"kind": "bot"}], "join": join}
        )
        assert r.status_code == 400, (join, r.content)
    with mock.patch("server.games.views.game_json", side_effect=RuntimeError("boom")):
        json_error(post(api, "/api/games/", {"kind": "teeko", "join": {"name": "A"}}), 500)
    assert Game.objects.count() == before
    league = League.objects.create(name="L", kind="tiku")
    json_error(post(api, "/api/games/", {"kind": "teeko", "league": league.pk}), 400)
    assert Game.objects.count() == before


def test_join_seat_zero_with_the_partner_draw_is_lobby_place_zero(api):
    """``join.seat`` is a place in the lobby (``seats`` order); the draw then seats everyone.
    The joiner always gets in, at the seat the draw gave lobby place 0."""
    lobby = [{"kind": "open"}, {"kind": "bot"}, {"kind": "guest", "name": "Cat"}, {"kind": "bot"}]
    seen = set()
    for _ in range(20):
        r = post(
            api,
            "/api/games/",
            {
                "kind": "teka",
                "options": {"draw_for_partners": True},
                "seats": lobby,
                "join": {"seat": 0, "name": "Ann"},
            },
        )
        assert r.status_code == 201, r.content
        g = r.json()
        seat = g["joined"]["seat"]
        seen.add(seat)
        e = cache.entry(g["id"])
        draw = next(ev for _s, _seat, ev in e.log if ev["type"] == "draw")
        assert draw["seating"][seat] == 0
        assert g["seats"][seat]["name"] == "Ann" and g["seats"][seat]["kind"] == "guest"
        assert seating.seat_holder_ok(g["id"], seat, secret=g["joined"]["secret"])
        cat = draw["seating"].index(2)
        assert g["seats"][cat]["name"] == "Cat" and g["status"] == "live"
    assert len(seen) > 1  # the draw really moved Ann around
    # lobby place 1 is a bot: a clear 400, and no game
    before = Game.objects.count()
    r = post(
        api,
        "/api/games/",
        {
            "kind": "teka",
            "options": {"draw_for_partners": True},
            "seats": lobby,
            "join": {"seat": 1},
        },
    )
    assert json_error(r, 400, "bad_request") == "seat 1 is taken"
    assert Game.objects.count() == before


def test_seats_of_the_wrong_type_are_a_400_with_a_reason(api):
    before = Game.objects.count()
    for seats in ("2", "-1", "1.5", "true", "false", "1e30", '"ab"', "{}", '{"kind": "open"}'):
        raw = '{"kind": "teeko", "seats": ' + seats + "}"
        reason = json_error(post(api, "/api/games/", raw=raw), 400)
        assert "seats is a list" in reason, (seats, reason)
    assert Game.objects.count() == before
    r = post(api, "/api/games/", {"kind": "teeko", "seats": ["open", "open"]})
    assert r.status_code == 201, r.content
