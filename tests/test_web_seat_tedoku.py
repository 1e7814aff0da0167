"""Tedoku on the phone (server/web/static/web/seat_tedoku.js; docs/web.md "Tedoku on the
phone"): three touch phones (Chromium, 390x844 and 360x740) play a whole game placing only
by tapping their sheets -- a cell, then the same cell again -- turning, flipping or choosing
the shape first when needed, and skipping (confirmed) only when nothing fits. Every frame and
every DOM holds nothing of another seat's secret drawing; every state of the seat page passes
the layout check (text >= 12 px, buttons >= 44 px, sheet cells as large as the width allows,
no horizontal overflow). Prints the taps a placement took on average and the page heights."""

from __future__ import annotations

import json
import time
from random import Random
from typing import Any

import pytest
from server_helpers import get_json, seat_code
from test_web_seats import check_phone_frames, organiser_table, shot, the_log
from web_browser import WAIT_MS, Watched, browser, in_thread, sit_phone  # noqa: F401  (the fixture)

import core

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]

SIZES = [(390, 844), (360, 740), (390, 844)]
"""The phones' viewports: two of 390x844, one of 360x740."""

Form = tuple[tuple[int, int], ...]


def join_touch_phones(chromium: Any, server: Any, g: dict[str, Any],
                      names: list[str]) -> list[Watched]:
    return [sit_phone(chromium, server, seat_code(g, i), name, SIZES[i])
            for i, name in enumerate(names)]


def normal(cells: list[tuple[int, int]]) -> Form:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def turned(form: Form) -> Form:
    return normal([(c, -r) for r, c in form])


def mirrored(form: Form) -> Form:
    return normal([(r, -c) for r, c in form])


def parse_form(text: str) -> Form:
    return tuple(sorted((int(p.split(",")[0]), int(p.split(",")[1])) for p in text.split()))


def rc(name: str) -> tuple[int, int]:
    return "ABCDEFGHI".index(name[0]), int(name[1:]) - 1


def form_of(cells: list[str]) -> Form:
    return normal([rc(n) for n in cells])


def steps_to(start: Form, goals: set[Form]) -> list[str]:
    """The fewest Rotate/Flip taps from ``start`` to one of ``goals``."""
    seen = {start: list[str]()}
    todo = [start]
    while todo:
        f = todo.pop(0)
        if f in goals:
            return seen[f]
        for how, nxt in (("rotate", turned(f)), ("flip", mirrored(f))):
            if nxt not in seen:
                seen[nxt] = [*seen[f], how]
                todo.append(nxt)
    raise AssertionError(f"no way from {start} to {goals}")


LAYOUT = """() => {
  const vw = innerWidth, vh = innerHeight, bad = [];
  const seen = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const e of document.querySelectorAll('#play *')) {
    if (e.closest('svg') || e.closest('[hidden]') || !seen(e)) continue;
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && parseFloat(getComputedStyle(e).fontSize) < 12)
      bad.push('text ' + e.className + ' ' + e.textContent);
  }
  for (const b of document.querySelectorAll('#play button')) {
    if (b.closest('[hidden]') || !seen(b) || b.classList.contains('tdk-cell')) continue;
    const r = b.getBoundingClientRect();
    if (r.width < 44 || r.height < 44)
      bad.push('button ' + b.textContent + ' ' + r.width + 'x' + r.height);
  }
  const cells = [...document.querySelectorAll('.tdk-cell')].map(c => c.getBoundingClientRect());
  const cell = cells.length ? Math.min(...cells.map(r => Math.min(r.width, r.height))) : 0;
  const sheet = document.querySelector('.tdk-sheet');
  const acts = [...document.querySelectorAll('.tdk-tool, .tdk-choice, #commands button, .tdk-cell')]
    .filter(seen).map(e => e.getBoundingClientRect().bottom + scrollY);
  return {bad, cell, cells: cells.length, vw, vh,
          overflow: document.documentElement.scrollWidth - vw,
          height: document.documentElement.scrollHeight,
          reach: acts.length ? Math.max(...acts) : 0,
          sheetRight: sheet ? sheet.getBoundingClientRect().right : 0};
}"""


class Layout:
    """The layout check of each state a seat page shows, by name."""

    def __init__(self) -> None:
        self.states: dict[str, list[tuple[int, int, float, int]]] = {}

    def check(self, w: Watched, state: str) -> None:
        got = w.page.evaluate(LAYOUT)
        vw, vh = got["vw"], got["vh"]
        assert not got["bad"], (state, vw, got["bad"])
        assert got["overflow"] <= 0, (state, vw, got["overflow"])
        assert got["cells"] == 81, (state, got)
        assert got["sheetRight"] <= vw
        # the nine columns take the whole width but a 16 px label column and 4 px a side
        # (44 px cannot be had under 420 px: 37 px at 360, 40 px at 390)
        assert got["cell"] >= min(44.0, (vw - 24) / 9) - 0.5, (state, vw, got["cell"])
        self.states.setdefault(state, []).append((vw, vh, got["cell"], got["height"]))
        if state != "over":  # what the player acts with is on screen without scrolling
            assert got["reach"] <= vh, (state, vw, vh, got["reach"])


def aim(page: Any, places: list[dict[str, Any]], rng: Random) -> tuple[str, str, int]:
    """A person's taps up to a green ghost: the rolled shape if it fits, else a bonus shape
    that does; turn and flip until it is in one of its legal forms; a tap on a cell of one of
    those placements (picked by ``rng``). Returns (the shape, the cell tapped, the taps made);
    the same cell tapped again draws it."""
    taps = 0
    shape = page.get_attribute(".tdk-preview", "data-shape")
    form = parse_form(page.get_attribute(".tdk-preview", "data-form") or "")
    shapes = list(dict.fromkeys(c["shape"] for c in places))
    want = shape if shape in shapes else shapes[0]
    if want != shape:
        page.tap(f'.tdk-choice[data-shape="{want}"]')
        page.wait_for_selector(f'.tdk-preview[data-shape="{want}"]')
        taps += 1
        form = parse_form(page.get_attribute(".tdk-preview", "data-form") or "")
    goals = {form_of(c["cells"]) for c in places if c["shape"] == want}
    for how in steps_to(form, goals):
        before = page.get_attribute(".tdk-preview", "data-form")
        page.tap(f".tdk-{how}")
        page.wait_for_function(
            "(b) => document.querySelector('.tdk-preview').dataset.form !== b", arg=before)
        taps += 1
    form = parse_form(page.get_attribute(".tdk-preview", "data-form") or "")
    fits = [c for c in places if c["shape"] == want and form_of(c["cells"]) == form]
    chosen = rng.choice(fits)
    cell = str(rng.choice(chosen["cells"]))
    page.tap(f'[data-cell="{cell}"]')
    page.wait_for_selector(f'[data-cell="{cell}"].ghost-ok')
    return str(want), cell, taps + 1


def tap_count_text(page: Any) -> str:
    return str(page.text_content("#note") or "")


def test_three_phones_play_tedoku_by_tapping_the_sheet(
        daphne_server: Any, browser: Any, django_user_model: Any) -> None:  # noqa: F811
    server = daphne_server
    g, table = organiser_table(browser, server, django_user_model,
                               {"kind": "tedoku", "options": {"seats": 3, "bonus": True}})
    gid = g["id"]
    phones = join_touch_phones(browser, server, g, ["Ann", "Bob", "Cy"])
    game = core.GAMES["tedoku"]
    rng = Random(7)
    layout = Layout()
    taps = {"placement": 0, "skip": 0, "probe": 0}
    placements = skips = 0
    probed: set[int] = set()
    dom_checks = 0
    wild_seen = shot_taken = False
    t0 = time.monotonic()

    def state_now() -> Any:
        log = in_thread(the_log, gid)
        st = game.initial()
        for _seq, _seat, ev in log:
            st = game.evolve(st, ev)
        return st

    def ready(w: Watched, turn: int) -> None:
        w.page.wait_for_function(
            "(t) => { const s = document.querySelector('.tdk-sheet');"
            " const h = document.querySelector('.tdk-turn');"
            " return s && !s.classList.contains('locked') && h"
            " && h.textContent.startsWith('Turn ' + t + ' ') }", arg=turn)

    def dom_has_no_secrets(st: Any) -> None:
        nonlocal dom_checks
        for seat, w in enumerate(phones):
            html = w.page.content()
            for secret in game.secrets(st, seat):
                assert secret not in html, (seat, secret)
            # (only the seat's own drawing is ever shown as pending)
            others = w.page.evaluate(
                "(me) => [...document.querySelectorAll('[data-seat]')].filter(e =>"
                " e.dataset.seat !== String(me) && e.querySelector('.pending')).length", seat)
            assert others == 0, seat
            dom_checks += 1

    while get_json(server, f"/api/games/{gid}/")["status"] != "finished":
        st = state_now()
        if st.over:
            break
        turn = st.turn
        wild_seen = wild_seen or st.die == "W"
        to_act = [s for s in game.to_act(st)]
        for k, seat in enumerate(to_act):
            w = phones[seat]
            page = w.page
            ready(w, turn)
            st = state_now()
            legal = game.legal_commands(st, seat)
            places = [c for c in legal if c["type"] == "place"]
            layout.check(w, "turn")
            if page.query_selector(".tdk-choice"):
                layout.check(w, "shapes")
            if not places:  # nothing fits: Skip, confirmed
                assert page.query_selector(".tdk-skip")
                layout.check(w, "skip")
                page.tap(".tdk-skip")
                page.wait_for_selector(".gn-confirm-yes")
                page.tap(".gn-confirm-yes")
                taps["skip"] += 2
                skips += 1
            else:
                shape = page.get_attribute(".tdk-preview", "data-shape")
                form = parse_form(page.get_attribute(".tdk-preview", "data-form") or "")
                # a red ghost first, once a phone: a cell where this shape, as it is turned,
                # cannot go (the reason is said)
                if seat not in probed:
                    here = {n for c in places if c["shape"] == shape
                            and form_of(c["cells"]) == form for n in c["cells"]}
                    empty = [core.tedoku.CELL_NAMES[i] for i in range(81)
                             if not st.sheets[seat] >> i & 1]
                    misses = [n for n in empty if n not in here]
                    if misses:
                        page.tap(f'[data-cell="{rng.choice(misses)}"]')
                        page.wait_for_selector(".tdk-cell.ghost-bad")
                        assert "Does not fit" in tap_count_text(page), tap_count_text(page)
                        assert not page.query_selector(".tdk-draw")
                        layout.check(w, "ghost-bad")
                        taps["probe"] += 1
                        probed.add(seat)
                want, cell, n = aim(page, places, rng)
                taps["placement"] += n
                ghost = page.eval_on_selector_all(".tdk-cell.ghost-ok",
                                                  "els => els.map(e => e.dataset.cell)")
                assert cell in ghost and {"type": "place", "shape": want, "cells": ghost} in places
                layout.check(w, "ghost-ok")
                if not shot_taken and seat == 0 and turn >= 6:
                    shot(page, "seat-tedoku-phone.png")
                    shot_taken = True
                # the same cell again draws it (one phone uses the button on odd turns)
                if seat == 1 and turn % 2:
                    page.tap(".tdk-draw")
                else:
                    page.tap(f'[data-cell="{cell}"]')
                taps["placement"] += 1
                placements += 1
                if k < len(to_act) - 1:  # (the last one's drawing is revealed at once)
                    page.wait_for_function(
                        "(n) => document.querySelectorAll('.tdk-cell.pending').length === n"
                        " && document.querySelector('.tdk-sheet.locked')", arg=len(ghost))
                    layout.check(w, "pending")
            if k < len(to_act) - 1:
                page.wait_for_function(
                    "() => document.getElementById('note').textContent.startsWith('Drawn')"
                    " && !document.querySelector('#commands button')")
                layout.check(w, "waiting")
                others = phones[to_act[-1]]
                others.page.wait_for_function(
                    "(s) => document.querySelector(`.tdk-player[data-seat=\"${s}\"].done`)",
                    arg=seat)
        # all three have drawn: the last one's page moves on to the next card (or the end)
        phones[to_act[-1]].page.wait_for_function(
            "(t) => !document.querySelector('.tdk-turn').textContent.startsWith('Turn ' + t + ' ')"
            " || !document.getElementById('rematch').hidden", arg=turn)
        st = state_now()
        if not st.over:
            dom_has_no_secrets(st)
        assert turn <= core.tedoku.TURNS
    for w in phones:
        w.page.wait_for_selector("#rematch:not([hidden])")
        layout.check(w, "over")
        assert w.page.query_selector(".tdk-sheet.locked")
    played = time.monotonic() - t0
    dom_has_no_secrets(state_now())
    log = in_thread(the_log, gid)
    # a finished game's frames are whole; before the end each phone got its own redaction
    for seat, w in enumerate(phones):
        assert check_phone_frames("tedoku", log, w, seat) > 0
    for w in [*phones, table]:
        assert not w.js_errors(), w.js_errors()
    assert {"turn", "shapes", "ghost-ok", "ghost-bad", "pending", "waiting", "over"} <= set(
        layout.states), layout.states
    per = taps["placement"] / placements
    assert per <= 3.0, (taps, placements)
    heights: dict[str, int] = {}
    cells: dict[str, float] = {}
    for rows in layout.states.values():
        for vw, vh, cell_px, height in rows:
            heights[f"{vw}x{vh}"] = max(heights.get(f"{vw}x{vh}", 0), height)
            cells[f"{vw}x{vh}"] = round(cell_px, 1)
    print(f"\nTedoku on three phones: {placements} placements in {taps['placement']} taps "
          f"({per:.2f} a placement), {skips} skips in {taps['skip']} taps, "
          f"{(taps['placement'] + taps['skip']) / max(1, placements + skips):.2f} taps an "
          f"action; {taps['probe']} taps on a cell where the shape did not fit (red ghost); "
          f"{played:.1f} s; wild face seen: {wild_seen}; states checked: "
          f"{ {s: len(v) for s, v in layout.states.items()} }; sheet cells {cells} px; "
          f"page heights {heights} px; {dom_checks} DOM checks")
    # one tap: the rematch, same seats; the table follows to the new game
    shot(table.page, "table-tedoku-desktop.png")
    old_url = phones[0].page.url
    phones[0].page.tap("#rematch")
    phones[0].page.wait_for_function(f"() => location.href !== {json.dumps(old_url)}")
    new = get_json(server, f"/api/games/{gid}/")["rematch"]
    assert new is not None
    table.page.wait_for_url(f"**/games/{new}/table/")
    phones[0].page.wait_for_selector("#play:not([hidden])")
