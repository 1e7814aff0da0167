"""Teka on phones (server/web seat_teka.js; docs/web.md, "Teka on the phone"): four Chromium
phones with touch (three at 390x844, one at 360x740) join a table by its seat codes and play
a whole hand against a real daphne and PostgreSQL where every card is played by tapping the
card (select, tap again; now and then a signal chosen under it first) and every call comes
from the calls row. Checked on the way: each card in the log is one the phones tapped; the
cards that cannot be played are dimmed and a tap on one says why and sends nothing; while a
command is on its way nothing can be tapped and the card shows as pending; the raise asks
first (Cancel sends nothing); the last trick shows on request; no phone holds a card of
another hand in its DOM or any frame; the layout of the seat's states (bidding, playing,
waiting, hand over) at both sizes: text >= 12 px, tap targets >= 44 px, no horizontal
overflow, no card or call below the first screen. Prints the taps per card played."""

from __future__ import annotations

import json
from random import Random
from typing import Any

import pytest
from server_helpers import get_json, seat_code
from test_web_seats import check_phone_frames, organiser_table, shot, the_log
from web_browser import WAIT_MS, Watched, browser, in_thread, sit_phone  # noqa: F401  (the fixture)

import core

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

SIZES = [(390, 844), (360, 740), (390, 844), (390, 844)]
"""The phones by seat: East holds the small one."""
SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}

LAYOUT_JS = """() => {
  const bad = [];
  const shown = (e) => {
    if (e.closest('[hidden]')) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  for (const b of document.querySelectorAll('button, a[href], input, select, [role=button]')) {
    if (!shown(b)) continue;
    const r = b.getBoundingClientRect();
    if (r.width < 44 || r.height < 44)
      bad.push(`target ${Math.round(r.width)}x${Math.round(r.height)}: ${b.textContent.trim()}`);
  }
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg') || !shown(e)) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (own && px < 12) bad.push(`text ${px}px: ${e.textContent.trim().slice(0, 24)}`);
    const r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 0.5) bad.push(`off the right edge: ${e.className}`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth)
    bad.push(`page ${document.documentElement.scrollWidth} px wide`);
  return bad;
}"""

REACH_JS = """() => {
  // how far below the screen's bottom the last thing to tap is (px; 0: all in view)
  let bottom = 0;
  for (const e of document.querySelectorAll('#hand .tk-card, .tk-calls button, .tk-seg')) {
    bottom = Math.max(bottom, e.getBoundingClientRect().bottom + window.scrollY);
  }
  return Math.max(0, Math.round(bottom - window.innerHeight));
}"""

OFFER_JS = """() => ({
  pending: window.gnSeat.pending,
  commands: window.gnSeat.commands,
  cards: [...document.querySelectorAll('#hand .tk-card')].map(
    (e) => [e.dataset.card, e.dataset.playable === 'yes', e.classList.contains('off')]),
  calls: [...document.querySelectorAll('.tk-calls button')].map(
    (b) => [b.dataset.command || '', b.dataset.action || '', b.disabled]),
  note: document.getElementById('note').textContent,
})"""

READY_JS = """() => !window.gnSeat.pending && !document.querySelector('.gn-confirm')
  && !!(document.querySelector('#hand .tk-card[data-playable=yes]')
        || document.querySelector('.tk-calls button:not([disabled])'))"""

HOLD_JS = """() => {
  // commands are held back (a slow network) until window.gnRelease()
  const send = WebSocket.prototype.send;
  window.gnHeld = [];
  WebSocket.prototype.send = function (data) {
    if (String(data).includes('"command"')) { window.gnHeld.push([this, data]); return; }
    return send.call(this, data);
  };
  window.gnRelease = () => {
    WebSocket.prototype.send = send;
    for (const [ws, data] of window.gnHeld.splice(0)) send.call(ws, data);
  };
}"""


def card_text(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SYMBOL[card[1]]


def replay(log: list[Any]) -> Any:
    game = core.GAMES["teka"]
    st = game.initial()
    for _seq, _seat, ev in log:
        st = game.evolve(st, ev)
    return st


def check_dom(phones: list[Watched], log: list[Any]) -> int:
    """No phone shows a card another seat still holds (by its data-card or its words); the
    cards marked playable are exactly the seat's legal plays. Returns the cards seen."""
    game = core.GAMES["teka"]
    st = replay(log)
    seen = 0
    for seat, w in enumerate(phones):
        shown = w.page.evaluate(
            "() => [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card)")
        labels = set(w.page.evaluate(
            "() => [...document.querySelectorAll('[aria-label]')].map((e) => e.ariaLabel)"))
        secret = set(game.secrets(st, seat))
        assert not set(shown) & secret, (seat, set(shown) & secret)
        assert not {card_text(c) for c in secret} & labels, seat
        seen += len(shown)
    return seen


class Table:
    """The four phones playing, and what their taps did."""

    def __init__(self, server: Any, gid: int, phones: list[Watched], rng: Random) -> None:
        self.server, self.gid, self.phones, self.rng = server, gid, phones, rng
        self.plays: list[tuple[int, str, str | None]] = []  # (seat, card, signal) tapped
        self.card_taps = 0
        self.signal_cards = 0
        self.signal_taps = 0
        self.call_taps = 0
        self.calls = 0
        self.raise_stage = 0  # 0: cancel it once; 1: make it on a later trick; 2: done
        self.raise_trick = -1
        self.dimmed_tapped = False
        self.held = False
        self.layout: dict[str, list[str]] = {}
        self.reach: dict[str, int] = {}
        self.last_trick_seen = False

    def check_layout(self, name: str, w: Watched) -> None:
        size = w.page.viewport_size
        key = f"{name} {size['width']}x{size['height']}"
        if key in self.layout:
            return
        self.layout[key] = list(w.page.evaluate(LAYOUT_JS))
        self.reach[key] = int(w.page.evaluate(REACH_JS))
        if name == "playing" and size["width"] == 390:
            shot(w.page, "seat-teka-phone.png")

    def act(self, seat: int, view: dict[str, Any]) -> None:
        w = self.phones[seat]
        w.page.wait_for_function(READY_JS)
        offer = w.page.evaluate(OFFER_JS)
        playable = [c for c, ok, _off in offer["cards"] if ok]
        for c, ok, off in offer["cards"] if playable else []:
            assert off == (not ok), (seat, c, ok, off)  # (dimmed: exactly the unplayable)
        raise_open = any(action == "raise" for _cmd, action, _d in offer["calls"])
        tricks = len(view.get("tricks") or [])
        if raise_open and self.raise_stage == 0:
            self.ask_raise(w, confirm=False)
            self.raise_stage, self.raise_trick = 1, tricks
            offer = w.page.evaluate(OFFER_JS)
        elif raise_open and self.raise_stage == 1 and tricks > self.raise_trick:
            self.ask_raise(w, confirm=True)
            self.raise_stage = 2
            return
        if playable:
            dimmed = [c for c, ok, _off in offer["cards"] if not ok]
            if dimmed and not self.dimmed_tapped:
                self.tap_dimmed(w, dimmed[0])
            self.check_layout("waiting", self.phones[(seat + 1) % 4])
            self.check_layout("waiting", self.phones[(seat + 2) % 4])
            self.play(w, seat, self.rng.choice(playable))
        else:
            self.call(w, seat, view, offer)

    def tap_dimmed(self, w: Watched, card: str) -> None:
        before = w.page.evaluate("() => window.gnSeat.commands")
        # (force: the card is aria-disabled, which Playwright takes for "cannot be tapped";
        # a finger can, and is told why)
        w.page.locator(f'#hand .tk-card[data-card="{card}"]').tap(force=True)
        w.page.wait_for_function(
            "() => document.getElementById('note').textContent.trim() !== ''")
        note = w.page.inner_text("#note")
        assert "Tap" not in note and ("must" in note or "first trick" in note), note
        assert w.page.query_selector("#hand .tk-card.selected") is None
        assert w.page.evaluate("() => window.gnSeat.commands") == before
        self.dimmed_tapped = True

    def play(self, w: Watched, seat: int, card: str) -> None:
        sig = self.rng.choice(["slam", "snap", "drop"]) if self.rng.random() < 0.3 else None
        loc = w.page.locator(f'#hand .tk-card[data-card="{card}"]')
        loc.tap()
        w.page.wait_for_selector(f'#hand .tk-card.selected[data-card="{card}"]')
        w.page.wait_for_selector(".tk-signals .tk-seg.on[data-signal=plain]")
        taps = 1
        self.check_layout("playing", w)
        if sig:
            w.page.locator(f'.tk-signals .tk-seg[data-signal="{sig}"]').tap()
            w.page.wait_for_selector(f'.tk-signals .tk-seg.on[data-signal="{sig}"]')
            taps += 1
        before = w.page.evaluate("() => window.gnSeat.commands")
        hold = not self.held and w.page.viewport_size["width"] == 360
        if hold:
            w.page.evaluate(HOLD_JS)
        loc.tap()
        taps += 1
        if hold:  # the card sent shows as pending; nothing can be tapped meanwhile
            w.page.wait_for_selector(f'#hand .tk-card.pending[data-card="{card}"]')
            enabled = w.page.evaluate(
                "() => [...document.querySelectorAll('#hand button, .tk-seat button, .tk-calls "
                "button')].filter((b) => !b.disabled).map((b) => b.textContent)")
            assert enabled == [], enabled
            other = w.page.query_selector(f'#hand .tk-card:not([data-card="{card}"])')
            if other is not None:
                other.tap(force=True)
            assert w.page.evaluate("() => window.gnSeat.commands") == before + 1
            w.page.evaluate("() => window.gnRelease()")
            self.held = True
        w.page.wait_for_function(
            "() => window.gnSeat.pending === 0 && "
            f"!document.querySelector('#hand [data-card=\"{card}\"]')")
        assert w.page.evaluate("() => window.gnSeat.commands") == before + 1
        self.plays.append((seat, card, sig))
        self.card_taps += taps
        if sig:
            self.signal_cards += 1
            self.signal_taps += taps

    def call(self, w: Watched, seat: int, view: dict[str, Any], offer: dict[str, Any]) -> None:
        cmds = [json.loads(c) for c, _a, disabled in offer["calls"] if c and not disabled]
        assert cmds, offer
        phase = view["phase"]
        bids = view.get("bids") or []
        if phase == "throw_in":
            pick = next(c for c in cmds if c["type"] == "keep")
        elif phase == "bidding":
            numbers = [c for c in cmds if isinstance(c.get("call"), int)]
            passes = [c for c in cmds if c.get("call") in ("pass", "ter", "behi ter")]
            # (the first to call bids the lowest number, the others pass: a contract that
            # can be raised)
            opened = any(isinstance(b["call"], int) for b in bids)
            pick = self.rng.choice(passes) if opened and passes else numbers[0]
            self.check_layout("bidding", w)
        else:
            pick = self.rng.choice(cmds)
        before = offer["commands"]
        key = json.dumps(pick, separators=(",", ":"))
        w.page.locator(f".tk-calls button[data-command='{key}']").tap()
        w.page.wait_for_function(
            f"() => window.gnSeat.pending === 0 && window.gnSeat.commands === {before + 1}")
        self.call_taps += 1
        self.calls += 1

    def ask_raise(self, w: Watched, confirm: bool) -> None:
        log_before = len(in_thread(the_log, self.gid))
        before = w.page.evaluate("() => window.gnSeat.commands")
        w.page.locator(".tk-calls button[data-action=raise]").tap()
        taps = 1
        if w.page.query_selector(".gn-confirm") is None:  # (the numbers first)
            w.page.wait_for_selector(".tk-calls button.num[data-command]")
            w.page.locator(".tk-calls button.num[data-command]").first.tap()
            taps += 1
        w.page.wait_for_selector(".gn-confirm")
        assert "Raise" in w.page.inner_text(".gn-confirm-box")
        assert not self.layout.setdefault("raise asked", list(w.page.evaluate(LAYOUT_JS)))
        if not confirm:
            w.page.locator(".gn-confirm-no").tap()
            w.page.wait_for_selector(".gn-confirm", state="detached")
            assert w.page.evaluate("() => window.gnSeat.commands") == before
            assert len(in_thread(the_log, self.gid)) == log_before, "a cancelled raise was sent"
            return
        w.page.locator(".gn-confirm-yes").tap()
        taps += 1
        w.page.wait_for_function(
            f"() => window.gnSeat.pending === 0 && window.gnSeat.commands === {before + 1}")
        log = in_thread(the_log, self.gid)
        assert log[-1][2]["type"] == "raise", log[-1]
        self.call_taps += taps
        self.calls += 1

    def last_trick(self, w: Watched, view: dict[str, Any]) -> None:
        """The last trick on request: its four cards (or three) and who won it."""
        cards = sorted(c["card"] for c in view["last_trick"]["cards"])
        w.page.wait_for_selector(  # (the phone has the tricks the server has)
            f'.tk-seat[data-tricks="{len(view["tricks"])}"][data-trick="{len(view["trick"])}"]')
        w.page.locator(".tk-last").tap()
        w.page.wait_for_selector(".tk-last[aria-pressed=true]")
        w.page.wait_for_function(
            "(want) => JSON.stringify([...document.querySelectorAll('.tk-mid .tk-played')]"
            ".map((e) => e.dataset.card).sort()) === want",
            arg=json.dumps(cards, separators=(",", ":")))
        assert "Last trick: won by" in w.page.inner_text(".tk-caption")
        self.check_layout("last trick", w)
        w.page.locator(".tk-last").tap()
        w.page.wait_for_selector(".tk-last[aria-pressed=false]")
        self.last_trick_seen = True


def test_four_phones_play_a_teka_hand_by_tapping_the_cards(
        daphne_server: Any, browser: Any, django_user_model: Any) -> None:  # noqa: F811
    server = daphne_server
    g, table = organiser_table(browser, server, django_user_model, {"kind": "teka"})
    gid = g["id"]
    table.page.wait_for_function("() => document.querySelectorAll('#seats img.qr').length == 4")
    shot(table.page, "table-teka-open-desktop.png")
    phones = []
    for seat, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        phones.append(sit_phone(browser, server, seat_code(g, seat), name, SIZES[seat]))
    t = Table(server, gid, phones, Random(7))
    scans = 0
    tricks_seen = -1
    steps = 0
    while True:
        state = get_json(server, f"/api/games/{gid}/state/")
        view = state["view"]
        assert state["outcome"] is None
        if view["sheet"]:  # the hand is scored
            break
        tricks = len(view["tricks"])
        if view["phase"] in ("bidding", "play") and tricks != tricks_seen:
            scans += check_dom(phones, in_thread(the_log, gid))
            if tricks_seen < 0:
                shot(table.page, "table-teka-desktop.png")
            tricks_seen = tricks
        if view["phase"] == "play" and view["trick"] and view["last_trick"] \
                and not t.last_trick_seen:  # (asked for in the middle of a trick)
            t.last_trick(phones[view["to_act"][0] ^ 1], view)
        if view["phase"] == "throw_in":  # (who is asked is private: each phone looks)
            asked = [s for s, w in enumerate(phones) if w.page.query_selector(
                ".tk-calls button:not([disabled])")]
            for s in asked:
                t.act(s, view)
            if not asked:
                phones[0].page.wait_for_timeout(200)  # (polling the phones: no event to wait for)
        else:
            assert view["to_act"], view
            t.act(view["to_act"][0], view)
        steps += 1
        assert steps < 400, "the hand is not played out"
    # the hand is over: every phone shows the result; the cutter cuts from the calls row
    for w in phones:
        w.page.wait_for_function(
            "() => /Hand \\d+: .* bid /.test("
            "(document.querySelector('.tk-caption') || {}).textContent || '')")
        t.check_layout("hand over", w)
    log = in_thread(the_log, gid)
    scans += check_dom(phones, log)
    played = [(seat, ev["card"], ev.get("signal")) for _s, seat, ev in log if ev["type"] == "play"]
    assert played == t.plays, "a card in the log that no phone tapped (or the other way)"
    assert any(ev["type"] == "score" for _s, _seat, ev in log)
    records = sum(check_phone_frames("teka", log, w, seat) for seat, w in enumerate(phones))
    for w in phones:
        assert not w.js_errors(), w.js_errors()
    assert t.held and t.dimmed_tapped and t.last_trick_seen and t.raise_stage >= 1
    states = {key.split(" ")[0] for key in t.layout}
    assert {"bidding", "playing", "waiting", "hand", "raise"} <= states, t.layout.keys()
    bad = {k: v for k, v in t.layout.items() if v}
    assert not bad, bad
    assert not any(t.reach.values()), f"a card or call below the first screen: {t.reach}"
    n = len(t.plays)
    plain = n - t.signal_cards
    print(f"\nTeka on four touch phones: {n} cards played, each by tapping the card: "
          f"{t.card_taps / n:.2f} taps a card ({(t.card_taps - t.signal_taps) / max(plain, 1):.2f}"
          f" plain, {t.signal_taps / max(t.signal_cards, 1):.2f} with a signal, "
          f"{t.signal_cards} cards signalled); {t.calls} calls in {t.call_taps} taps "
          f"(a raise: {'made' if t.raise_stage == 2 else 'cancelled only'}); "
          f"{records} frame records and {scans} DOM cards checked")
