"""The shared screen tells the story (server/web table.js, table_story.js, tv.js; docs/web.md):
in Chromium at 1920 x 1080, a Teka table (Ann's seat played over its socket from here, three
bots) shows the last move in words, the trick just won, what the seat to act is doing, the
score sheet and the last hand's result, and after the end the result line (the connection
line never says "live" then); every text of the page is at least 4.5:1 against what is
behind it (measured from computed styles); the organiser's hand-over asks first (Cancel
changes nothing) and the login form goes once logged in. The TV drops a table abandoned for
GAMENIGHT_TV_IDLE seconds and a finished one after its result was shown, and a table of bots
only moves no faster than GAMENIGHT_BOT_WATCH_PACE (a minimum between moves, measured on
the server's event times: never a maximum)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest
from server_fixtures import Daphne, start_daphne, stop_daphne
from server_helpers import get_json, post_json
from test_web_seats import shot
from web_browser import browser, in_thread, open_page  # noqa: F401  (the fixture)

from core import words
from core.api import META_COMMANDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

PACE = 0.5
"""GAMENIGHT_BOT_WATCH_PACE of these tests' server (seconds between a bots-only table's moves)."""
IDLE = 10
"""GAMENIGHT_TV_IDLE of these tests' server (seconds without an event: abandoned)."""


@pytest.fixture
def screen_server(transactional_db: Any, tmp_path: Path) -> Iterator[Daphne]:
    server = start_daphne(tmp_path, "screen", {"GAMENIGHT_BOT_WATCH_PACE": str(PACE),
                                               "GAMENIGHT_TV_IDLE": str(IDLE)})
    try:
        yield server
    finally:
        stop_daphne(server)


def seat_names(game_id: int) -> list[str]:
    from server.games.models import Game
    from server.web.views import seat_names as names

    return in_thread(lambda: names(Game.objects.prefetch_related("seat_set").get(pk=game_id)))


def play_seat(server: Any, g: dict[str, Any], seat: int, rng: Random,
              stop: Callable[[dict[str, Any]], bool], resign: bool = False) -> dict[str, Any]:
    """Play ``seat`` (a guest's) over its socket with random legal commands (no raise; a
    pass, else the lowest bid) until ``stop(frame)`` holds for a frame where the seat is
    to act; then the seat waits there (the table with it) and the frame is returned. With
    ``resign`` the seat resigns instead and the finished frame is returned."""
    import websockets

    async def run() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws}/ws/games/{g['id']}/") as ws:
            await ws.send(json.dumps({"type": "hello", "seat": seat,
                                      "secret": g["guest_secrets"][str(seat)]}))
            f: dict[str, Any] = {}
            while True:
                try:
                    f = json.loads(await asyncio.wait_for(ws.recv(), 120))
                except TimeoutError:
                    raise AssertionError(f"the table stopped: {f}") from None
                if f["type"] == "finished":
                    return dict(f)
                if f["type"] != "events" or "view" not in f or seat not in f["to_act"]:
                    continue
                if not f["legal"]:
                    continue
                if resign:
                    command = {"type": "resign"}
                elif stop(f):
                    return dict(f)
                else:
                    legal = [c for c in f["legal"] if c["type"] not in META_COMMANDS
                             and c["type"] != "raise"]
                    # (the lowest bid when a pass is not allowed: no double 13 that would
                    # end the match in one hand)
                    bids = [c for c in legal if c["type"] == "bid"]
                    calls = [c["call"] for c in bids]
                    numbers = sorted(c for c in calls if isinstance(c, int))
                    call: Any = "pass" if "pass" in calls else numbers[0] if numbers else None
                    command = ({"type": "bid", "call": call} if call is not None
                               else rng.choice(legal))
                await ws.send(json.dumps({"type": "command", "command": command,
                                          "expected_seq": f["to"]}))

    return in_thread(lambda: asyncio.run(run()))


CONTRAST = """() => {
  // every text of the page (the board's too) against the first opaque background behind
  // it, WCAG's contrast ratio
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  // (an SVG text: its fill against the first painted shape under its middle)
  const under = (el) => {
    const r = el.getBoundingClientRect();
    const stack = document.elementsFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    for (const e of stack.slice(stack.indexOf(el) + 1)) {
      if (!(e instanceof SVGGeometryElement)) continue;
      const cs = getComputedStyle(e);
      const c = rgb(cs.fill);
      if (cs.fill !== 'none' && c.length >= 3 && parseFloat(cs.fillOpacity) > 0.5 &&
          parseFloat(cs.opacity) > 0.5) return c;
    }
    return behind(el.closest('svg'));
  };
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode, el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest('script, style, [hidden]')) continue;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || cs.visibility === 'hidden') continue;
    const svg = el.closest('svg');
    if (svg && svg.classList.contains('chart')) continue;
    const a = lum(rgb(svg ? cs.fill : cs.color)), b = lum(svg ? under(el) : behind(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push([n.textContent.trim().slice(0, 40), Math.round(ratio * 100) / 100]);
  }
  return out;
}"""

STORY = """() => Object.fromEntries(['conn', 'status', 'last', 'trick', 'hand-result', 'outcome']
  .map(id => { const e = document.getElementById(id);
               return [id, e && !e.hidden ? e.textContent : '']; }))"""

CARD_LETTERS = re.compile(r"\b(?:[2-9TJQKA]|10)[SHDC]\b")


def low_contrast(page: Any) -> list[Any]:
    texts = page.evaluate(CONTRAST)
    assert texts
    return [t for t in texts if t[1] < 4.5]


def wait_story(page: Any, seq: int) -> dict[str, str]:
    """The story once the page has worded event ``seq``."""
    page.wait_for_function(f"() => window.gnStory && window.gnStory.worded >= {seq}")
    return dict(page.evaluate(STORY))


def test_the_table_screen_tells_a_teka_story(screen_server: Any, browser: Any,  # noqa: F811
                                             django_user_model: Any) -> None:
    server = screen_server
    in_thread(lambda: django_user_model.objects.create_user("org", password="org-pw"))
    token = post_json(server, "/api/login", {"username": "org", "password": "org-pw"})["token"]
    g = post_json(server, "/api/games/", {
        "kind": "teka", "public": True, "options": {"target": 52},
        "seats": [{"kind": "guest", "name": "Ann"}] + [{"kind": "bot", "level": "easy"}] * 3,
    }, Authorization=f"Token {token}")
    gid = g["id"]
    w = open_page(browser, f"{server.http}/games/{gid}/table/", 1920, 1080)
    page = w.page
    page.wait_for_function("() => window.gnStory && window.gnStory.worded > 0")

    # the organiser logs in: the form goes; a hand-over asks first, and Cancel changes nothing
    page.locator("#organiser > summary").click()
    page.fill("#user", "org")
    page.fill("#password", "org-pw")
    page.locator("#login button").click()
    page.wait_for_selector("#org-in:not([hidden])", state="attached")
    assert not page.locator("#login").is_visible()
    assert not page.locator("#org-out").is_visible()
    before = get_json(server, f"/api/games/{gid}/")
    for label in ("To a bot", "To another phone"):
        page.locator("#seats li[data-seat='0'] button", has_text=label).click()
        page.wait_for_selector(".gn-confirm")
        assert "Ann" in page.inner_text(".gn-confirm-box")
        page.locator(".gn-confirm-no").click()
        page.wait_for_selector(".gn-confirm", state="detached")
    after = get_json(server, f"/api/games/{gid}/")
    assert after["seats"] == before["seats"] and after["seq"] == before["seq"]

    rng = Random(3)
    names = seat_names(gid)
    # a few tricks into a hand, Ann to play: the last move, the trick just won, Ann's turn
    f = play_seat(server, g, 0, rng, lambda f: f["view"]["phase"] == "play"
                  and len(f["view"]["tricks"]) >= 2 and not f["view"]["raise"]["pending"])
    st = get_json(server, f"/api/games/{gid}/state/?events=1")
    seq = st["seq"]
    story = wait_story(page, seq)
    view = st["view"]
    last = st["events"][-1]["event"]
    assert story["last"] == "Last move: " + words.describe(last, names, plain=True)
    assert "\u2660" in story["last"] or "\u2665" in story["last"] or "\u2666" in story[
        "last"] or "\u2663" in story["last"], story
    assert story["status"] == "Ann is playing a card" == words.doing("teka", view, names)
    assert story["trick"] == words.trick_result(view, names) and " won trick " in story["trick"]
    assert story["conn"] == "live"
    assert page.locator("#sheet").is_visible()
    board = page.inner_text("#board")
    assert "(bot) (" not in board and ") (" not in board, board
    assert not CARD_LETTERS.search(page.inner_text("main")), page.inner_text("main")
    assert not low_contrast(page), low_contrast(page)
    shot(page, "table-teka-story-1920.png")

    # a hand scored: its result and the sheet's row
    f = play_seat(server, g, 0, rng, lambda f: bool(f["view"]["sheet"]))
    st = get_json(server, f"/api/games/{gid}/state/")
    story = wait_story(page, st["seq"])
    assert story["hand-result"] == words.hand_result(st["view"])
    assert re.fullmatch(r"Hand \d+: (North-South|East-West) bid \S+( 13)? and (made it|went "
                        r"down)", story["hand-result"]), story
    assert page.locator("#sheet .sheet-table tr").count() >= 2
    assert story["status"] == words.doing("teka", st["view"], names) and story["status"]
    assert not low_contrast(page), low_contrast(page)

    # the end (the match to 52 played out): the result line; the connection line no longer
    # says "live"
    f = play_seat(server, g, 0, rng, lambda f: False)
    assert f["type"] == "finished"
    page.wait_for_function("() => window.gnStory.finished && "
                           "!document.getElementById('outcome').hidden")
    result = words.result("teka", get_json(server, f"/api/games/{gid}/state/")["outcome"],
                          names)
    page.wait_for_function(
        f"() => document.getElementById('outcome').textContent === {json.dumps(result)}")
    story = dict(page.evaluate(STORY))
    assert story["conn"] != "live" and story["status"] == "", story
    assert not low_contrast(page), low_contrast(page)
    shot(page, "table-teka-over-1920.png")
    assert w.js_errors() == []
    w.page.context.close()


def event_times(game_id: int) -> list[tuple[int, int | None, str, float]]:
    from server.games.models import Event

    return in_thread(lambda: [
        (e.seq, e.seat, e.type, e.created_at.timestamp())
        for e in Event.objects.filter(game_id=game_id).order_by("seq")])


def test_the_tv_drops_abandoned_tables_and_paces_bots(screen_server: Any,
                                                      browser: Any) -> None:  # noqa: F811
    server = screen_server
    guests = [{"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bob"}]
    abandoned = post_json(server, "/api/games/", {"kind": "teeko", "public": True,
                                                 "seats": guests})["id"]
    w = open_page(browser, f"{server.http}/tv/?rotate=1&poll=1&linger=2", 1920, 1080)
    page = w.page
    page.wait_for_function("() => window.gnTV && window.gnTV.renders > 0")
    bots = {kind: post_json(server, "/api/games/", {
        "kind": kind, "public": True, "options": {"seats": 2},
        "seats": [{"kind": "bot", "level": "random"}] * 2})["id"]
        for kind in ("teeko", "tiku", "tedoku")}

    # the bots-only tables come on the TV and move while it watches...
    for gid in bots.values():
        page.wait_for_function(f"() => (window.gnTV.arrivals[{gid}] || []).length >= 3")
    # ... no faster than the pace: each move at least PACE after the one before on the
    # server's clock (Tedoku: each seat's, as everybody draws at once)
    for kind, gid in bots.items():
        moves = [(seat, t) for _seq, seat, typ, t in event_times(gid)
                 if seat is not None and typ in ("placed", "moved")]
        assert len(moves) >= 2, (kind, moves)
        last: dict[Any, float] = {}
        for seat, t in moves:
            key = seat if kind == "tedoku" else "any"
            if key in last:
                assert t - last[key] >= PACE * 0.98, (kind, t - last[key])
            last[key] = t

    # the abandoned table: gone from the TV's list, and from the page, once idle
    page.wait_for_function(f"() => window.gnTV.dropped.includes({abandoned})")
    assert abandoned not in {x["id"] for x in get_json(server, "/api/tv/")["games"]}

    # a table that ends (Tedoku: its 20 turns) shows its result, then leaves the TV
    page.wait_for_function(f"() => window.gnTV.dropped.includes({bots['tedoku']})")
    result = words.result("tedoku", get_json(server, f"/api/games/{bots['tedoku']}/")["outcome"],
                          seat_names(bots["tedoku"]))
    assert page.evaluate(f"() => window.gnTV.ended[{bots['tedoku']}]") == result
    assert w.js_errors() == []
    w.page.context.close()


def test_the_table_screen_names_who_just_sat_down(screen_server: Any, browser: Any,  # noqa: F811
                                                  django_user_model: Any) -> None:
    """The last phone to sit starts the game: the board and the words of the table page say
    its player's name, not "open" (the names came after the first drawing and were shown
    only at the next event)."""
    from server_helpers import seat_code

    server = screen_server
    in_thread(lambda: django_user_model.objects.create_user("org", password="org-pw"))
    token = post_json(server, "/api/login", {"username": "org", "password": "org-pw"})["token"]
    g = post_json(server, "/api/games/", {
        "kind": "teka", "options": {"target": 52},
        "seats": [{"kind": "open"}] + [{"kind": "bot", "level": "easy"}] * 3,
    }, Authorization=f"Token {token}")
    w = open_page(browser, f"{server.http}/games/{g['id']}/table/", 1920, 1080)
    w.page.wait_for_function("() => window.gnTable && window.gnTable.socket")
    post_json(server, "/api/join/", {"code": seat_code(g, 0), "name": "Zed"})
    w.page.wait_for_function(
        "() => document.querySelector('#board svg') && "
        "document.querySelector('#board svg').textContent.includes('Zed')")
    assert "open" not in (w.page.text_content("#board svg") or "")
    assert w.js_errors() == []
