"""The helpers of the phone tests in real browsers (server/web seat.js, table.js; docs/web.md):
an organiser's table page with its seat codes, phones (Chromium contexts at 390x844) that
join it by its codes (/join/<code>/), and the check that every socket frame a phone receives
is the server's redaction for its seat (nothing of another seat's hand or drawing). The
tests that use them: test_web_seat_teka.py, test_web_seat_tedoku.py, test_web_seat_board.py,
test_web_seat_socket.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from random import Random
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from server_helpers import check_record, post_json, seat_code
from web_browser import PHONE, browser, in_thread, open_page, sit_phone  # noqa: F401  (the fixture)

import core

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(400)]



def the_log(game_id: int) -> list[Any]:
    from server.games import cache

    return list(cache.entry(game_id, fresh=True).log)


def shot(page: Any, name: str) -> None:
    """A screenshot into GAMENIGHT_SHOTS (docs/screenshots when taking the docs' pictures)."""
    where = os.environ.get("GAMENIGHT_SHOTS")
    if where:
        page.screenshot(path=str(Path(where) / name), full_page=True)


def organiser_table(chromium: Any, server: Any, django_user_model: Any, data: Any) -> Any:
    """A table created by an organiser (its token), and its table page in the browser with
    the organiser logged in there: the seat codes and QR codes show only then."""
    in_thread(lambda: django_user_model.objects.create_user("org", password="org-pw"))
    token = post_json(server, "/api/login", {"username": "org", "password": "org-pw"})["token"]
    g = post_json(server, "/api/games/", data, Authorization=f"Token {token}")
    table = open_page(chromium, f"{server.http}/games/{g['id']}/table/", 1280, 800)
    assert table.page.query_selector("#seats img.qr") is None  # (nobody's codes yet)
    for code in (seat_code(g, i) for i in range(len(g["seats"]))):
        assert code not in table.page.content()
    table.page.locator("#organiser > summary").click()
    table.page.fill("#user", "org")
    table.page.fill("#password", "org-pw")
    table.page.locator("#login button").click()
    table.page.wait_for_selector("#seats img.qr")
    return g, table


def join_phones(chromium: Any, server: Any, g: dict[str, Any], names: list[str]) -> list[Any]:
    return [sit_phone(chromium, server, seat_code(g, i), name, touch=False)
            for i, name in enumerate(names)]


def tap_moves(phones: list[Any], rng: Random) -> int:
    """Each phone whose turn it is taps one of its move buttons; returns the taps."""
    taps = 0
    for w in phones:
        buttons = w.page.query_selector_all("#commands button")
        if buttons:
            # (a table that plays its cards: no pass when a bid can be made, no raise)
            plain = [b for b in buttons if not any(
                word in (b.get_attribute("data-command") or "")
                for word in ('"pass"', "raise"))]
            try:
                rng.choice(plain or buttons).click(timeout=2000)
            except PlaywrightError:  # (redrawn by a frame meanwhile: look again)
                continue
            taps += 1
    return taps


def check_phone_frames(kind: str, log: list[Any], phone: Any, seat: int) -> int:
    """Every frame the phone got is what its seat may see: each record the redaction of the
    log for its seat, each view the core's view of the state at the frame's seq for that
    seat (so no other seat's hand or drawing in any byte of it), ``to_act`` as the core
    shows it to that seat. Returns the records checked."""
    game = core.GAMES[kind]
    states = [game.initial()]
    for _seq, _seat, ev in log:
        states.append(game.evolve(states[-1], ev))
    n = 0
    for text in phone.frames:
        f = json.loads(text)
        if f.get("type") == "events":
            for rec in f["events"]:
                check_record(game, log, rec, seat)
                n += 1
            if isinstance(f.get("view"), dict):
                at = f["to"]
                expected = json.loads(json.dumps(game.view(states[at], seat)))
                assert f["view"] == expected, (seat, at)
                assert f["to_act"] == game.visible_to_act(states[at], seat), (seat, at)
        assert f.get("type") != "error" or f.get("code") == "stale", f
    return n


def small_controls(page: Any) -> list[str]:
    """Buttons under 48 px and text under 12 px on the page."""
    return list(page.evaluate("""() => {
      const bad = [];
      for (const b of document.querySelectorAll('button')) {
        const r = b.getBoundingClientRect();
        if (r.width && (r.height < 48 || r.width < 48)) bad.push('button ' + b.textContent);
      }
      for (const e of document.querySelectorAll('body *')) {
        if (!e.childNodes.length || e.closest('svg')) continue;
        const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        if (own && parseFloat(getComputedStyle(e).fontSize) < 12) bad.push('text ' + e.tagName);
      }
      return bad;
    }"""))
