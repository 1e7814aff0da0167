"""The table and the seats on phones in real browsers (server/web seat.js, table.js;
docs/web.md): Chromium contexts at 390x844 join a table by its seat codes (/join/<code>/),
play by touch against a real daphne and PostgreSQL while a 1280x800 context shows the table.
Every socket frame each phone receives is the server's redaction for that seat (nothing of
another seat's hand or drawing), and each page's DOM shows no card of another hand.
Prints the time a whole Teka hand took with four phones."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from random import Random
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from server_helpers import check_record, get_json, post_json, seat_code
from web_browser import browser, in_thread, open_page  # noqa: F401  (the fixture)

import core

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(400)]

PHONE = (390, 844)


def the_log(game_id: int) -> list[Any]:
    from server.games import store

    return list(store.entry(game_id, fresh=True).log)


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
    phones = []
    for i, name in enumerate(names):
        w = open_page(chromium, f"{server.http}/join/{seat_code(g, i)}/", *PHONE)
        w.page.fill("#name", name)
        w.page.click("#open-seats button")
        w.page.wait_for_selector("#play:not([hidden])")
        w.page.wait_for_function(
            "() => document.getElementById('conn').textContent === 'connected'")
        phones.append(w)
    return phones


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


def test_four_phones_play_a_teka_hand(daphne_server, browser, django_user_model):  # noqa: F811
    server = daphne_server
    g, table = organiser_table(browser, server, django_user_model, {"kind": "teka"})
    gid = g["id"]
    table.page.wait_for_function("() => document.querySelectorAll('#seats img.qr').length == 4")
    assert seat_code(g, 2) in table.page.inner_text("#seats")
    shot(table.page, "table-teka-open-desktop.png")
    t0 = time.monotonic()
    phones = join_phones(browser, server, g, ["Ann", "Bob", "Cy", "Di"])
    rng = Random(5)
    taps = 0
    deal_checked = False
    hand, hand_started, hand_time, hand_from = 1, time.monotonic(), 0.0, 0
    while True:
        state = get_json(server, f"/api/games/{gid}/state/")
        log = in_thread(the_log, gid)
        if state["view"]["hand_number"] != hand:  # a hand ended: was it played out?
            played = [ev for _s, _seat, ev in log[hand_from:] if ev["type"] == "play"]
            if len(played) >= 4:  # a hand with tricks played, to its score
                hand_time = time.monotonic() - hand_started
                hand_plays = len(played)
                break
            hand, hand_started = state["view"]["hand_number"], time.monotonic()
            hand_from = len(log)
            deal_checked = False
        assert state["outcome"] is None
        if not deal_checked and state["view"]["phase"] == "bidding":
            hands = [ev["hands"] for _s, _seat, ev in log if ev["type"] == "deal"][-1]
            for seat, w in enumerate(phones):
                w.page.wait_for_selector("#hand [data-card]")
                shown = set(w.page.eval_on_selector_all(
                    "[data-card]", "els => els.map(e => e.dataset.card)"))
                others = {c for s, h in enumerate(hands) if s != seat for c in h}
                assert shown and not shown & others, (seat, shown & others)
                assert not set(hands[seat]) & set(table.page.eval_on_selector_all(
                    "#board [data-card]", "els => els.map(e => e.dataset.card)"))
            deal_checked = True
            shot(phones[0].page, "seat-teka-phone.png")
            shot(table.page, "table-teka-desktop.png")
        got = tap_moves(phones, rng)
        taps += got
        assert taps < 1500, "no hand is played out"
        time.sleep(0.15 if got else 0.3)
    total = time.monotonic() - t0
    log = in_thread(the_log, gid)
    records = sum(check_phone_frames("teka", log, w, seat) for seat, w in enumerate(phones))
    spectator_game = core.GAMES["teka"]
    for text in table.frames:
        f = json.loads(text)
        for rec in f.get("events", []) if f.get("type") == "events" else []:
            check_record(spectator_game, log, rec, core.api.SPECTATOR)
    assert deal_checked and records > 0
    for w in [*phones, table]:
        assert not w.js_errors(), w.js_errors()
        assert "hand-off" not in w.page.inner_text("body").lower()
    assert not small_controls(phones[0].page)
    print(f"\nTeka: a whole hand played out on four phones took {hand_time:.1f} s "
          f"(from its deal to its score, {hand_plays} cards played; {taps} taps and "
          f"{total:.1f} s in all, hands thrown "
          f"in before it and the joins included; {len(log)} events)")


def test_three_phones_play_tedoku_to_the_end(daphne_server, browser,  # noqa: F811
                                             django_user_model):
    server = daphne_server
    g, table = organiser_table(browser, server, django_user_model,
                               {"kind": "tedoku", "options": {"seats": 3}})
    gid = g["id"]
    phones = join_phones(browser, server, g, ["Ann", "Bob", "Cy"])
    rng = Random(2)
    taps = 0
    t0 = time.monotonic()
    while get_json(server, f"/api/games/{gid}/")["status"] != "finished":
        got = tap_moves(phones, rng)
        taps += got
        assert taps < 600, "the game does not end"
        time.sleep(0.1 if got else 0.25)
    for w in phones:
        w.page.wait_for_selector("#rematch:not([hidden])")
    log = in_thread(the_log, gid)
    # a finished game's frames are whole; before the end each phone got its own redaction
    for seat, w in enumerate(phones):
        assert check_phone_frames("tedoku", log, w, seat) > 0
    for w in [*phones, table]:
        assert not w.js_errors(), w.js_errors()
    print(f"\nTedoku: three phones played a whole game in {time.monotonic() - t0:.1f} s "
          f"({taps} taps)")
    # one tap: the rematch, same seats; the table follows to the new game
    shot(phones[0].page, "seat-tedoku-phone.png")
    shot(table.page, "table-tedoku-desktop.png")
    old_url = phones[0].page.url
    phones[0].page.click("#rematch")
    phones[0].page.wait_for_function(f"() => location.href !== {json.dumps(old_url)}")
    new = get_json(server, f"/api/games/{gid}/")["rematch"]
    assert new is not None
    table.page.wait_for_url(f"**/games/{new}/table/")
    phones[0].page.wait_for_selector("#play:not([hidden])")
