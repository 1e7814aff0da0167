"""The web pages' server side (server/web, docs/web.md) without a browser: the game page and
TV page, the many-views endpoint (errors, viewer, deltas, nothing hidden leaks), static files
with caching headers, links from the front page and the admin."""

from __future__ import annotations

import json
from random import Random
from typing import Any

import pytest
from server_helpers import pick_move, strings_in

import core
import core.api
from core.api import ALL, SPECTATOR
from server.games import append, cache, creating
from server.games.models import Game
from server.web.views import MAX_RANGE, view_delta

pytestmark = pytest.mark.django_db(transaction=True)


def create(client: Any, kind: str, seats: list[Any], options: Any = None,
           public: bool = False) -> dict[str, Any]:
    r = client.post("/api/games/", data=json.dumps({"kind": kind, "seats": seats,
                                                    "options": options or {},
                                                    "public": public}),
                    content_type="application/json")
    assert r.status_code == 201, r.content
    return dict(r.json())


def play(game_id: int, moves: int | None = None, seed: int = 1) -> None:
    """Random legal moves for whoever is asked (to the end when ``moves`` is None)."""
    rng = Random(seed)
    n = 0
    while moves is None or n < moves:
        e = cache.entry(game_id)
        if e.game.outcome(e.state) is not None:
            return
        seat = e.game.to_act(e.state)[0]
        append.submit(game_id, seat, pick_move(e.game.legal_commands(e.state, seat), rng), e.seq)
        n += 1


def undelta(prev: dict[str, Any], d: dict[str, Any]) -> dict[str, Any]:
    v = {**prev, **d.get("set", {})}
    for k, items in d.get("add", {}).items():
        v[k] = prev[k] + items
    for k in d.get("del", []):
        v.pop(k)
    return v


def test_views_of_a_finished_game_whole_and_as_deltas(client: Any, server_runtime: Any) -> None:
    g = create(client, "teeko", [{"kind": "guest", "name": "A"}, {"kind": "guest", "name": "B"}])
    play(g["id"])
    head = cache.entry(g["id"], fresh=True).seq
    r = client.get(f"/api/games/{g['id']}/views/?from=0&to={head}")
    assert r.status_code == 200 and "max-age" in r["Cache-Control"]
    body = r.json()
    assert body["viewer"] == ALL and body["from"] == 0 and body["to"] == head
    assert len(body["views"]) == head + 1 and [e["seq"] for e in body["events"]] == list(
        range(1, head + 1))
    game = core.GAMES["teeko"]
    state = game.initial()
    for i, rec in enumerate(body["events"], start=1):
        state = game.evolve(state, rec["event"])
        assert body["views"][i] == game.view(state, ALL)
    # the same as deltas, and a range in the middle
    d = client.get(f"/api/games/{g['id']}/views/?from=3&to={head}&delta=1").json()
    views = [d["views"][0]]
    for item in d["views"][1:]:
        views.append(undelta(views[-1], item))
    assert views == body["views"][3:]
    assert d["events"][0]["seq"] == 3
    assert body["views"][-1] == client.get(f"/api/games/{g['id']}/state/").json()["view"]


def test_live_teka_views_are_a_spectators(client: Any, server_runtime: Any) -> None:
    for _ in range(10):  # (a match can end early: a lost Double 13 does; then deal again)
        g = create(client, "teka", [{"kind": "guest", "name": n} for n in "ABCD"])
        play(g["id"], 40)
        e = cache.entry(g["id"], fresh=True)
        if not e.finished:
            break
    body = client.get(f"/api/games/{g['id']}/views/?delta=1").json()
    assert body["viewer"] == SPECTATOR and body["to"] == e.seq, (body["status"], e.log[-3:])
    assert client.get(f"/api/games/{g['id']}/views/").json()["views"][-1] == \
        client.get(f"/api/games/{g['id']}/state/").json()["view"]
    game = e.game
    state = game.initial()
    for i in range(e.seq + 1):
        if i:
            state = game.evolve(state, e.log[i - 1][2])
        secrets = set(game.secrets(state, SPECTATOR))
        assert not secrets & strings_in(body["views"][i]), i
        if i:
            assert not secrets & strings_in(body["events"][i - 1]), i


@pytest.mark.parametrize("query, code, status", [
    ("from=abc", "malformed", 400),
    ("to=-1", "malformed", 400),
    ("from=5&to=2", "bad_request", 400),
    ("from=0&to=99", "bad_request", 400),
    ("from=" + "9" * 30, "malformed", 400),
])
def test_views_bad_input_is_a_clear_error(client: Any, server_runtime: Any, query: str,
                                          code: str, status: int) -> None:
    g = create(client, "teeko", [{"kind": "guest", "name": "A"}, {"kind": "guest", "name": "B"}])
    r = client.get(f"/api/games/{g['id']}/views/?{query}")
    assert r.status_code == status and r.json()["error"]["code"] == code, r.content


def test_views_range_limit_and_missing_game(client: Any, server_runtime: Any) -> None:
    r = client.get("/api/games/424242/views/")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert client.post("/api/games/1/views/").status_code == 405
    g = create(client, "teeko", [{"kind": "guest", "name": "A"}, {"kind": "guest", "name": "B"}],
               {"repetition": False, "move_cap": 0})
    rng = Random(2)
    game = core.GAMES["teeko"]
    for _ in range(MAX_RANGE + 10):  # a long game: back and forth, never a pattern
        e = cache.entry(g["id"])
        seat = game.to_act(e.state)[0]
        legal = [c for c in game.legal_commands(e.state, seat) if c["type"] in ("place", "move")]
        safe = [c for c in legal if game.outcome(core.api.apply(game, e.state, seat, c, rng)[0])
                is None]
        append.submit(g["id"], seat, rng.choice(safe or legal), e.seq)
    assert cache.entry(g["id"]).seq > MAX_RANGE
    r = client.get(f"/api/games/{g['id']}/views/?from=0&to={MAX_RANGE}")
    assert r.status_code == 400 and "at most" in r.json()["error"]["reason"]
    assert len(client.get(f"/api/games/{g['id']}/views/").json()["views"]) == MAX_RANGE


def test_view_delta() -> None:
    a = {"x": 1, "l": [1, 2], "k": "gone", "m": [3]}
    b = {"x": 2, "l": [1, 2, 3], "m": [4], "n": None}
    d = view_delta(a, b)
    assert d == {"set": {"x": 2, "m": [4], "n": None}, "add": {"l": [3]}, "del": ["k"]}
    assert undelta(a, d) == b
    assert view_delta(b, b) == {}


def test_game_page_tv_page_and_missing_game(client: Any, server_runtime: Any) -> None:
    g = create(client, "tiku", [{"kind": "guest", "name": "Ann"}, {"kind": "bot"}])
    r = client.get(f"/games/{g['id']}/?seq=3")
    assert r.status_code == 200
    html = r.content.decode()
    assert "Tiku #" in html and 'id="gn-config"' in html and "/static/web/game.js" in html
    config = json.loads(html.split('id="gn-config" type="application/json">')[1].split("<")[0])
    assert config["seq"] == 3 and config["game"]["id"] == g["id"]
    assert "guest_secrets" not in config["game"]
    assert json.loads(client.get(f"/games/{g['id']}/?seq=abc").content.decode().split(
        'id="gn-config" type="application/json">')[1].split("<")[0])["seq"] is None
    r = client.get("/games/99999/")
    assert r.status_code == 404 and b"No game 99999" in r.content
    assert client.get("/games/1234567890123456789012/").status_code == 404
    assert client.post(f"/games/{g['id']}/").status_code == 405
    r = client.get("/tv/")
    assert r.status_code == 200 and b"/static/web/tv.js" in r.content


def test_static_files_with_caching_headers(client: Any) -> None:
    r = client.get("/static/web/game.js")
    assert r.status_code == 200
    assert r["Content-Type"].startswith("text/javascript")
    assert "max-age" in r["Cache-Control"]
    assert not r.streaming and b"import" in r.content  # (whole: no sync iterator under ASGI)
    assert int(r["Content-Length"]) == len(r.content)
    again = client.get("/static/web/game.js", headers={"If-None-Match": r["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/static/web/no-such.js").status_code == 404


def test_front_page_and_admin_link_the_game_page(client: Any, server_runtime: Any,
                                                  admin_client: Any) -> None:
    guests = [{"kind": "guest", "name": "A"}, {"kind": "guest", "name": "B"}]
    live = create(client, "teeko", guests, public=True)  # (the front page lists public ones)
    done = create(client, "teeko", guests, public=True)
    play(done["id"])
    assert Game.objects.get(pk=done["id"]).status == Game.FINISHED
    html = client.get("/").content.decode()
    assert f'href="/games/{live["id"]}/"' in html and f'href="/games/{done["id"]}/"' in html
    assert 'href="/tv/"' in html
    r = admin_client.get(f"/admin/games/game/{done['id']}/change/")
    assert r.status_code == 200 and f"/games/{done['id']}/" in r.content.decode()


def test_browser_tests_say_why_they_skip(tmp_path: Any) -> None:
    from web_browser import why_no_browser

    reason = why_no_browser(str(tmp_path / "no-chromium"))
    assert reason is not None and "no chromium at" in reason and "apt-get install" in reason


def test_game_page_says_whether_a_teeko_analysis_can_be_asked(
    client: Any, server_runtime: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """A finished Teeko game's page names its analysis and whether this server has the table
    of its pattern set (the page asks only then); other games and live ones: none."""
    from teeko_stub import finished_teeko_events, install

    def config(game_id: int) -> Any:
        html = client.get(f"/games/{game_id}/").content.decode()
        return json.loads(html.split('id="gn-config" type="application/json">')[1].split("<")[0])

    g = creating.import_game("teeko", None, None, finished_teeko_events())
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path / "none"))
    assert config(g.pk)["analysis"] == {"url": f"/api/games/{g.pk}/analysis/", "ready": False}
    install(monkeypatch, tmp_path)
    assert config(g.pk)["analysis"]["ready"] is True
    live = create(client, "teeko", [{"kind": "guest", "name": "Ann"}, {"kind": "bot"}])
    tiku = create(client, "tiku", [{"kind": "guest", "name": "Ann"}, {"kind": "bot"}])
    assert config(live["id"])["analysis"] is None and config(tiku["id"])["analysis"] is None
