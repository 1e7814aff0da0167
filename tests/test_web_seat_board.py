"""Teeko and Tiku played on phones by tapping the board (server/web seat_board.js; docs/web.md,
"Teeko and Tiku on the phone"): two Chromium phones with touch (390x844 and 360x740) join a
table by its seat codes and play against a real daphne by tapping squares only: a Teeko game
placed and moved to the end (a draw offered and declined on the way, each behind a
confirmation, a cancelled one sending nothing) and a Tiku game whose every move is checked
before it is confirmed (the discs the phone shows it would lay and send back are those the
server then lays), ended by a confirmed resignation. Taps that are not legal say why and send
nothing; while a command is pending no square can be tapped; every frame each phone got is
its seat's own (check_phone_frames); each seat-page state passes a layout check (text at
least 12 px, squares at least 44 px, no horizontal overflow, the board and the confirm button
on screen). Prints the taps a placement and a move took in each game."""

from __future__ import annotations

import time
from random import Random
from typing import Any

import pytest
from server_helpers import get_json, post_json, seat_code
from test_web_seats import check_phone_frames, shot, small_controls, the_log
from web_browser import WAIT_MS, Watched, browser, in_thread, sit_phone  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

PHONES = [(390, 844), (360, 740)]
DEADLINE = 120.0
"""Seconds a test waits for the server to take a command (only a hang takes this long)."""

HOLD_COMMANDS = """() => {
  // Commands are held in the page (not sent) while window.gnHold is set: a pending command
  // that stays pending until the test lets it go.
  if (window.gnHeld) return;
  window.gnHeld = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (!window.gnHold || !String(data).includes('"command"')) return send.call(this, data);
    window.gnHeld.push([this, data]);
  };
  window.gnRelease = () => {
    window.gnHold = false;
    for (const [ws, data] of window.gnHeld.splice(0)) send.call(ws, data);
  };
}"""

LAYOUT = """() => {
  const bad = [];
  const W = document.documentElement.clientWidth, H = window.innerHeight;
  const wide = document.documentElement.scrollWidth;
  if (wide > W) bad.push('page ' + wide + ' px wide');
  const svg = document.querySelector('#board svg');
  const sr = svg.getBoundingClientRect();
  const scale = sr.width / svg.viewBox.baseVal.width;
  for (const t of svg.querySelectorAll('text')) {
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    if (px < 12) bad.push('board text ' + t.textContent + ' ' + px.toFixed(1) + ' px');
  }
  for (const h of svg.querySelectorAll('.gn-hit')) {
    const r = h.getBoundingClientRect();
    if (r.width < 44 || r.height < 44) bad.push('square ' + h.dataset.square + ' ' + r.width);
  }
  if (sr.left < 0 || sr.right > W || sr.top + window.scrollY < 0) bad.push('board off screen');
  if (sr.bottom + window.scrollY > H) bad.push('board below the screen: ' + sr.bottom);
  const confirm = document.querySelector('#commands [data-action=confirm]');
  const low = confirm ? confirm.getBoundingClientRect().bottom + window.scrollY : 0;
  if (low > H) bad.push('confirm below the screen: ' + low);
  for (const e of document.querySelectorAll('#play *')) {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > W + 0.5) bad.push('off the right: ' + e.tagName + ' ' + e.className);
  }
  return bad;
}"""


class Phone:
    """A phone at a seat, with the taps it made for each kind of action."""

    def __init__(self, w: Watched, seat: int) -> None:
        self.w = w
        self.page = w.page
        self.seat = seat
        self.taps = 0

    def tap_square(self, sq: str) -> None:
        self.taps += 1
        self.page.tap(f'#board .gn-hit[data-square="{sq}"]')

    def tap(self, selector: str) -> None:
        self.taps += 1
        self.page.tap(selector)

    def note(self) -> str:
        return str(self.page.inner_text("#note"))

    def commands(self) -> int:
        return int(self.page.evaluate("() => window.gnSeat.commands"))

    def drawn_seq(self) -> int:
        return int(self.page.get_attribute("#board", "data-seq") or -1)

    def wait_drawn(self, seq: int) -> None:
        """Until the phone has drawn the position after event ``seq`` and nothing is pending."""
        self.page.wait_for_function(
            "(s) => +document.getElementById('board').dataset.seq >= s && !window.gnSeat.pending",
            arg=seq)

    def layout(self) -> list[str]:
        return list(self.page.evaluate(LAYOUT)) + small_controls(self.page)


def table_of_phones(chromium: Any, server: Any, data: dict[str, Any],
                    names: list[str]) -> tuple[int, list[Phone]]:
    g = post_json(server, "/api/games/", data)
    phones = []
    for seat, name in enumerate(names):
        w = sit_phone(chromium, server, seat_code(g, seat), name, PHONES[seat])
        w.page.evaluate(HOLD_COMMANDS)
        phones.append(Phone(w, seat))
    return int(g["id"]), phones


def server_now(gid: int) -> tuple[Any, Any, int]:
    """(core game, state, seq) of the game as the server holds it."""
    from server.games import cache

    def read() -> tuple[Any, Any, int]:
        e = cache.entry(gid, fresh=True)
        return e.game, e.state, e.seq

    return in_thread(read)


def wait_past(gid: int, seq: int) -> int:
    """Until the server holds events after ``seq``; its seq then."""
    deadline = time.monotonic() + DEADLINE
    while True:
        now = server_now(gid)[2]
        if now > seq:
            return now
        assert time.monotonic() < deadline, "the command never reached the server"
        time.sleep(0.05)


def confirm_dialog(phone: Phone, yes: bool) -> None:
    phone.page.wait_for_selector(".gn-confirm")
    phone.tap(".gn-confirm-yes" if yes else ".gn-confirm-no")
    phone.page.wait_for_selector(".gn-confirm", state="detached")


def cancel_sends_nothing(phone: Phone, action: str) -> None:
    """The button of ``action`` asks first; Cancel sends nothing."""
    before = phone.commands()
    phone.tap(f'#commands [data-action="{action}"]')
    text = phone.page.inner_text(".gn-confirm-box")
    assert action not in text and "_" not in text, text
    confirm_dialog(phone, False)
    assert phone.commands() == before


def meta_words(phone: Phone) -> list[str]:
    return list(phone.page.eval_on_selector_all("#commands button",
                                                "bs => bs.map(b => b.textContent)"))


def pending_blocks_taps(phone: Phone, first: str, second: str) -> None:
    """A command held in the page is pending: the squares cannot be tapped meanwhile."""
    phone.page.evaluate("() => { window.gnHold = true; }")
    before = phone.commands()
    phone.tap_square(first)
    phone.page.wait_for_selector("#board .gn-layer.gn-busy")
    assert phone.page.inner_text("#turn") == "Sending…"
    assert phone.commands() == before + 1
    clicks = phone.page.evaluate(
        "(sq) => document.elementFromPoint(...(() => { const r = document.querySelector("
        "`#board .gn-hit[data-square=\"${sq}\"]`).getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()).classList.contains('gn-hit')",
        second)
    assert not clicks, "a square can be tapped while a command is pending"
    phone.page.mouse.click(*phone.page.evaluate(
        "(sq) => { const r = document.querySelector(`#board .gn-hit[data-square=\"${sq}\"]`)"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }", second))
    assert phone.commands() == before + 1
    phone.page.evaluate("() => window.gnRelease()")


def test_two_phones_play_teeko_by_tapping_the_board(daphne_server: Any,
                                                     browser: Any) -> None:  # noqa: F811
    server = daphne_server
    gid, phones = table_of_phones(browser, server, {"kind": "teeko", "options": {"move_cap": 40}},
                                  ["Ann", "Bob"])
    rng = Random(3)
    taps: dict[str, list[int]] = {"place": [], "move": []}
    layouts: dict[str, list[str]] = {}
    offered = held = False
    while True:
        game, state, seq = server_now(gid)
        if game.outcome(state) is not None:
            break
        seat = game.to_act(state)[0]
        me, other = phones[seat], phones[1 - seat]
        me.wait_drawn(seq)
        other.wait_drawn(seq)
        legal = game.legal_commands(state, seat)
        board = [c for c in legal if c["type"] in ("place", "move")]
        wins = [c for c in board if any(
            ev["type"] == "game_over" for ev in game.decide(state, seat, c, Random(0)))]
        pick = rng.choice(wins or board)
        # the waiting phone: a tap is no command, and says why
        before = other.commands()
        other.tap_square(pick.get("from", pick["to"]))
        other.page.wait_for_function(
            "() => document.getElementById('note').textContent.startsWith('Not your turn')")
        assert other.commands() == before
        layouts.setdefault(f"waiting {other.seat}", other.layout())
        if pick["type"] == "place":
            layouts.setdefault(f"placing {seat}", me.layout())
            assert me.page.locator("#board .gn-spot").count() == len(board)
            taken = list(game.view(state, seat)["pieces"][seat])
            if taken:  # a taken square says so
                before = me.commands()
                me.tap_square(taken[0])
                assert me.note() == "That square is taken."
                assert me.commands() == before
            t0 = me.taps
            if not held:
                pending_blocks_taps(me, pick["to"], next(
                    c["to"] for c in board if c["to"] != pick["to"]))
                held = True
            else:
                me.tap_square(pick["to"])
            taps["place"].append(me.taps - t0)
        else:
            if not offered:  # a draw offered (a cancelled offer first) and declined
                assert "offer_draw" not in " ".join(meta_words(me))
                cancel_sends_nothing(me, "offer_draw")
                me.tap('#commands [data-action="offer_draw"]')
                confirm_dialog(me, True)
                seq = wait_past(gid, seq)
                other.page.wait_for_selector("#commands .gn-offer")
                assert "offers a draw" in other.page.inner_text("#commands .gn-offer")
                layouts["draw offered"] = other.layout()
                cancel_sends_nothing(other, "decline_draw")
                other.tap('#commands [data-action="decline_draw"]')
                confirm_dialog(other, True)
                seq = wait_past(gid, seq)
                me.wait_drawn(seq)
                assert me.page.locator("#commands .gn-offer").count() == 0
                offered = True
            theirs = list(game.view(state, seat)["pieces"][1 - seat])
            me.tap_square(theirs[0])
            assert me.note().startswith("That is ") and me.note().endswith("'s piece."), me.note()
            t0 = me.taps
            me.tap_square(pick["from"])
            lit = set(me.page.eval_on_selector_all(
                "#board .gn-target", "els => els.map(e => e.dataset.target)"))
            assert lit == {c["to"] for c in board if c["from"] == pick["from"]}
            assert me.page.get_attribute("#board .gn-sel", "data-selected") == pick["from"]
            layouts.setdefault(f"moving {seat}", me.layout())
            shot(me.page, "seat-teeko-phone.png")
            me.tap_square(pick["to"])
            taps["move"].append(me.taps - t0)
        wait_past(gid, seq)
    game, state, seq = server_now(gid)
    for p in phones:
        p.wait_drawn(seq)
        p.page.wait_for_selector("#rematch:not([hidden])")
        layouts.setdefault(f"over {p.seat}", p.layout())
        assert p.page.locator("#commands button").count() == 0
    log = in_thread(the_log, gid)
    for p in phones:
        assert check_phone_frames("teeko", log, p.w, p.seat) > 0
        assert not p.w.js_errors(), p.w.js_errors()
    assert not {k: v for k, v in layouts.items() if v}, layouts
    assert offered and held and taps["place"] and taps["move"]
    print(f"\nTeeko on two phones: {len(taps['place'])} placements, "
          f"{sum(taps['place']) / len(taps['place']):.1f} taps each; {len(taps['move'])} moves, "
          f"{sum(taps['move']) / len(taps['move']):.1f} taps each; "
          f"{game.outcome(state).reason}; layout checked in {len(layouts)} states")


def test_two_phones_play_tiku_by_tapping_the_board(daphne_server: Any,
                                                    browser: Any) -> None:  # noqa: F811
    server = daphne_server
    gid, phones = table_of_phones(browser, server, {"kind": "tiku"}, ["Ann", "Bob"])
    taps: list[int] = []
    layouts: dict[str, list[str]] = {}
    moves = 0
    shown_back = False
    while moves < 12:
        game, state, seq = server_now(gid)
        assert game.outcome(state) is None
        seat = game.to_act(state)[0]
        me, other = phones[seat], phones[1 - seat]
        me.wait_drawn(seq)
        other.wait_drawn(seq)
        legal = game.legal_commands(state, seat)
        board = [c for c in legal if c["type"] == "move"]

        # a move that sends discs back when there is one, else the one that lays the most
        # (never the last disc: the game ends by a resignation)
        safe = [c for c in board if not any(
            ev["type"] == "game_over" for ev in game.decide(state, seat, c, Random(0)))]
        events = {(c["from"], c["to"]): laid(game, state, seat, c) for c in safe or board}
        pick = max(safe or board, key=lambda c: (
            len(events[c["from"], c["to"]]["returned"]) > 0,
            len(events[c["from"], c["to"]]["placed"]), c["from"], c["to"]))
        view = game.view(state, seat)
        if moves == 0:
            before = me.commands()
            empty = next(sq for sq in all_squares(6) if sq not in view["discs"]
                         and all(p["square"] != sq for p in view["pieces"]))
            me.tap_square(empty)
            assert me.note() == "Tap one of your pieces first."
            stuck = [p["square"] for p in view["pieces"] if p["seat"] == seat
                     and not any(c["from"] == p["square"] for c in board)]
            if stuck:
                me.tap_square(stuck[0])
                assert me.note() == "That piece cannot move."
            assert me.commands() == before
            layouts[f"to move {seat}"] = me.layout()
        if moves == 4:  # a resignation asked for and cancelled sends nothing
            assert [w for w in meta_words(me) if "resign" in w.lower()] == ["Resign"]
            cancel_sends_nothing(me, "resign")
        before, t0 = me.commands(), me.taps
        me.tap_square(pick["from"])
        me.tap_square(pick["to"])
        # the move shown before it is sent: the discs it lays and the ones going back
        ev = laid(game, state, seat, pick)
        me.page.wait_for_selector("#commands [data-action=confirm]")
        shows = set(me.page.eval_on_selector_all(
            "#board [data-lay]", "els => els.map(e => e.dataset.lay)"))
        back = set(me.page.eval_on_selector_all(
            "#board [data-back]", "els => els.map(e => e.dataset.back)"))
        assert shows == set(ev["placed"]), (pick, shows, ev)
        assert back == {r["square"] for r in ev["returned"]}, (pick, back, ev)
        assert f"lays {len(ev['placed'])} disc" in me.note(), me.note()
        assert me.commands() == before
        layouts.setdefault(f"confirm {seat}", me.layout())
        if back and not shown_back:
            shown_back = True
            shot(me.page, "seat-tiku-phone.png")
        if moves % 2:  # a second tap on the square confirms, as the button does
            me.tap_square(pick["to"])
        else:
            me.tap("#commands [data-action=confirm]")
        taps.append(me.taps - t0)
        wait_past(gid, seq)
        moved = next(e for _s, _seat, e in in_thread(the_log, gid)[seq:] if e["type"] == "moved")
        assert moved["from"] == pick["from"] and moved["placed"] == ev["placed"]
        moves += 1
    # the end: resign, confirmed
    game, state, seq = server_now(gid)
    seat = game.to_act(state)[0]
    me = phones[seat]
    me.wait_drawn(seq)
    me.tap('#commands [data-action="resign"]')
    confirm_dialog(me, True)
    wait_past(gid, seq)
    game, state, seq = server_now(gid)
    assert game.outcome(state).reason == "resign"
    for p in phones:
        p.wait_drawn(seq)
        p.page.wait_for_selector("#rematch:not([hidden])")
        layouts.setdefault(f"over {p.seat}", p.layout())
    log = in_thread(the_log, gid)
    for p in phones:
        assert check_phone_frames("tiku", log, p.w, p.seat) > 0
        assert not p.w.js_errors(), p.w.js_errors()
    assert not {k: v for k, v in layouts.items() if v}, layouts
    assert get_json(server, f"/api/games/{gid}/")["status"] == "finished"
    print(f"\nTiku on two phones: {len(taps)} moves, {sum(taps) / len(taps):.1f} taps each "
          f"(piece, square, confirm), every one shown before it was sent and equal to the "
          f"server's; discs sent back shown: {shown_back}; layout checked in {len(layouts)} "
          f"states")


def laid(game: Any, state: Any, seat: int, c: dict[str, Any]) -> dict[str, Any]:
    """The server's ``moved`` event for Tiku move ``c`` (the discs it lays, those going back)."""
    return dict(game.decide(state, seat, c, Random(0))[0])


def all_squares(n: int) -> list[str]:
    return [f"{'abcdef'[f]}{r}" for r in range(1, n + 1) for f in range(n)]
