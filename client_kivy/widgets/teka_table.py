"""Teka: a card table seen from the viewer's seat; hand fanned at the bottom, the trick in
the middle, bidding / trumps / signals / raises as buttons beside it, and a score sheet."""

from __future__ import annotations

import json
from typing import Any

from kivy.graphics import Color, Ellipse, Line, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from client_kivy.vm.teka import (
    SEAT_NAMES,
    SIGNALS,
    SUIT_NAME,
    SUIT_SYMBOL,
    TekaModel,
    call_text,
    calls_meaning,
    card_text,
    side_name,
    signals_meaning,
)
from client_kivy.widgets.board import BoardWidget, draw_text, lerp, text_texture
from client_kivy.widgets.common import BRASS, IVORY, MUTED, FlowGrid, GButton, WrapLabel

RED_SUITS = "HD"
SYMBOL_FONT = "DejaVuSans"
TRAVEL = 0.35
"""Seconds a card takes from a seat to the trick, and a finished trick to its winner."""


def draw_card(x: float, y: float, w: float, h: float, card: str | None,
              dim: bool = False, glow: bool = False) -> None:
    Color(0, 0, 0, 0.35)
    RoundedRectangle(pos=(x + dp(2), y - dp(3)), size=(w, h), radius=[w * 0.1])
    if glow:
        Color(*BRASS)
        RoundedRectangle(pos=(x - dp(3), y - dp(3)), size=(w + dp(6), h + dp(6)),
                         radius=[w * 0.12])
    if card is None:  # back
        Color(0.55, 0.12, 0.12, 1)
        RoundedRectangle(pos=(x, y), size=(w, h), radius=[w * 0.1])
        Color(0.95, 0.85, 0.6, 0.6)
        Line(rounded_rectangle=(x + w * 0.1, y + w * 0.1, w * 0.8, h - w * 0.2, w * 0.06),
             width=dp(1))
        return
    Color(*((0.80, 0.79, 0.76, 1) if dim else (0.99, 0.98, 0.95, 1)))
    RoundedRectangle(pos=(x, y), size=(w, h), radius=[w * 0.1])
    colour: tuple[float, ...] = (
        (0.78, 0.1, 0.12, 1) if card[1] in RED_SUITS else (0.08, 0.08, 0.1, 1))
    if dim:
        colour = (*(c * 0.6 + 0.3 for c in colour[:3]), 1)
    rank = "10" if card[0] == "T" else card[0]
    fs = w * 0.36
    tex = text_texture(rank, fs, colour, True)
    Color(1, 1, 1, 1)
    from kivy.graphics import Rectangle

    Rectangle(texture=tex, pos=(x + w * 0.08, y + h - tex.height - w * 0.04), size=tex.size)
    sym = _symbol(card[1], fs * 0.95, colour)
    Rectangle(texture=sym, pos=(x + w * 0.1, y + h - tex.height - sym.height - w * 0.02),
              size=sym.size)
    big = _symbol(card[1], w * 0.62, colour)
    Rectangle(texture=big, pos=(x + w - big.width - w * 0.08, y + w * 0.06), size=big.size)


_SYMBOLS: dict[tuple[Any, ...], Any] = {}


def _symbol(suit: str, size: float, colour: tuple[float, ...]) -> Any:
    key = (suit, round(size, 1), tuple(round(c, 3) for c in colour))
    if key not in _SYMBOLS:
        _SYMBOLS[key] = _render_symbol(suit, size, colour)
    return _SYMBOLS[key]


def _render_symbol(suit: str, size: float, colour: tuple[float, ...]) -> Any:
    from kivy.core.text import Label as CoreLabel

    lab = CoreLabel(text=SUIT_SYMBOL[suit], font_size=size, color=colour, font_name=SYMBOL_FONT)
    lab.refresh()
    return lab.texture


class TekaTable(BoardWidget):
    square = False  # (the table and the hand under it)

    def __init__(self, **kw: Any) -> None:
        self.model = TekaModel()
        self.viewer = 0
        self.players: list[str] = []
        self._hand_rects: list[tuple[float, float, float, float, str]] = []
        self._side_key: Any = None
        self._incoming: dict[str, int] = {}  # card -> seat: on its way to the trick
        self._outgoing: tuple[list[dict[str, Any]], int] | None = None  # a trick to its winner
        super().__init__(**kw)

    def plan_motion(self, before: Any, after: Any) -> float:
        """A card played travels from its seat to the trick; a finished trick, when it is
        taken off the table, travels to the seat that won it."""
        old = TekaModel()
        old.update(before, [], self.viewer)
        was = old.trick()
        now = self.model.trick()
        now_cards = {p["card"] for p in now}
        was_cards = {p["card"] for p in was}
        incoming = [p for p in now if p["card"] not in was_cards]
        gone = [p for p in was if p["card"] not in now_cards]
        if not incoming and not gone:
            return 0.0
        winner = old.showing_last()
        if len(incoming) > 1 or (gone and winner is None):  # more than one move: a jump
            self._incoming, self._outgoing = {}, None
            return -1.0
        self._incoming = {str(p["card"]): int(p["seat"]) for p in incoming}
        self._outgoing = (gone, winner) if gone and winner is not None else None
        return TRAVEL

    def trick_slot(self, seat: int, table: tuple[float, float, float, float]
                   ) -> tuple[float, float, float, float]:
        """Where ``seat``'s card lies in the trick: x, y, width, height."""
        cw, ch = self.card_size()
        tcw, tch = cw * 0.85, ch * 0.85
        tx, ty, tw, th = table
        cx, cy = tx + tw / 2, ty + th / 2
        dx, dy = {"bottom": (0, -0.62), "top": (0, 0.62), "left": (-1.15, 0),
                  "right": (1.15, 0)}[self.model.position(seat)]
        return cx + dx * tcw - tcw / 2, cy + dy * tch - tch / 2, tcw, tch

    def card_pos(self, card: str) -> tuple[float, float] | None:
        """Where a card of the trick is drawn now (its lower-left corner): its place in the
        trick, or on its way there from its seat."""
        table = self.table_rect()
        for played in self.model.trick():
            if played["card"] != card:
                continue
            x, y, w, h = self.trick_slot(int(played["seat"]), table)
            seat = self._incoming.get(card)
            if seat is None or not self.moving:
                return x, y
            ax, ay = self.seat_anchor(self.model.position(seat), table)
            return lerp((ax - w / 2, ay - h / 2), (x, y), self.travel)
        return None

    def table_rect(self) -> tuple[float, float, float, float]:
        hand_h = self.hand_height()
        return self.x, self.y + hand_h, self.width, self.height - hand_h

    def update_model(self, view: Any, legal: list[Any]) -> None:
        if self.session is not None:
            self.viewer = self.session.viewer
            self.players = [self.session.player_name(i) for i in range(4)]
        self.model.update(view or {}, legal, self.viewer)
        rows = len((view or {}).get("sheet") or [])
        if self.session is not None and self._sheet_rows is not None \
                and rows > self._sheet_rows:
            self.show_summary(dict(view or {}))
        if view:
            self._sheet_rows = rows

    _sheet_rows: int | None = None
    summary: Any = None

    def show_summary(self, view: dict[str, Any]) -> None:
        """The end-of-hand summary: contract, tricks, points, the match score."""
        if self.summary is not None:
            self.summary.dismiss(animation=False)
        self.summary = HandSummary(view, self.name)
        self.summary.open(animation=False)

    def name(self, seat: int) -> str:
        if seat < len(self.players) and self.players[seat]:
            if self.players[seat].endswith(SEAT_NAMES[seat]):  # "Bot North" says where
                return self.players[seat]
            return f"{self.players[seat]} ({SEAT_NAMES[seat]})"
        return SEAT_NAMES[seat]

    # -- geometry -------------------------------------------------------------------------------
    def card_size(self) -> tuple[float, float]:
        w = max(min(self.width / 7.2, self.height / 6.2 / 1.4, dp(120)), dp(36))
        return w, w * 1.4

    def seat_anchor(self, pos: str,
                    table: tuple[float, float, float, float]) -> tuple[float, float]:
        tx, ty, tw, th = table
        return {"bottom": (tx + tw / 2, ty + th * 0.07), "top": (tx + tw / 2, ty + th * 0.93),
                "left": (tx + tw * 0.1, ty + th / 2), "right": (tx + tw * 0.9, ty + th / 2)}[pos]

    # -- drawing -------------------------------------------------------------------------------
    def draw(self) -> None:
        """The felt, the seats' plates, the contract and what the table waits for, the
        trick in the middle, the viewer's hand at the bottom (in that order: later on top)."""
        hand_h = self.hand_height()
        table = (self.x, self.y + hand_h, self.width, self.height - hand_h)
        lab = max(sp(12), min(sp(17), table[2] / 40))
        self.draw_felt(table)
        self.draw_plates(table, lab)
        self.draw_contract(table, lab)
        self.draw_trick(table, lab)
        self.draw_hand()

    def draw_felt(self, table: tuple[float, float, float, float]) -> None:
        """The felt oval with a brass rim."""
        tx, ty, tw, th = table
        Color(0.02, 0.10, 0.07, 1)
        Ellipse(pos=(tx + dp(4), ty + dp(4)), size=(tw - dp(8), th - dp(8)))
        Color(*BRASS)
        Line(ellipse=(tx + dp(4), ty + dp(4), tw - dp(8), th - dp(8)), width=dp(2.5))
        Color(0.09, 0.36, 0.25, 1)
        Ellipse(pos=(tx + dp(10), ty + dp(10)), size=(tw - dp(20), th - dp(20)))

    def draw_plates(self, table: tuple[float, float, float, float], lab: float) -> None:
        """Each seat's plate (name; cards left or "sits out", last call, dealer), lit for a
        seat to act, and a whole hand shown beside it when the view has one."""
        from kivy.graphics import Rectangle

        m = self.model
        v = m.view
        tx, ty, tw, th = table
        to_act = set(v.get("to_act") or [])
        sitting_out = v.get("sitting_out")
        counts = v.get("counts") or [0, 0, 0, 0]
        dealer = v.get("dealer")
        self.plates: dict[int, tuple[float, float, float, float]] = {}
        """Each seat's plate as drawn (x, y, width, height)."""
        for seat in range(4):
            pos = m.position(seat)
            ax, ay = self.seat_anchor(pos, table)
            active = seat in to_act and v.get("phase") != "over"
            name = self.name(seat)
            tex = text_texture(name, lab, (0.1, 0.07, 0.02, 1) if active else IVORY, True)
            pad = dp(8)
            info = []
            if seat == sitting_out:
                info.append("sits out")
            elif seat < len(counts):
                info.append(f"{counts[seat]} cards")
            call = m.last_call(seat)
            if call is not None:
                info.append(call_text(call))
            if seat == dealer:
                info.append("dealer")
            sub = text_texture(" · ".join(info), lab * 0.82,
                               (0.2, 0.14, 0.05, 1) if active else MUTED)
            bw, bh = max(tex.width, sub.width) + 2 * pad, tex.height * 2.3 + pad
            bx, by = ax - bw / 2, ay - bh / 2
            # inside the table: not over the hand below it nor past the board's top
            bx = max(tx + dp(2), min(bx, tx + tw - bw - dp(2)))
            by = max(ty + dp(2), min(by, ty + th - bh - dp(2)))
            self.plates[seat] = (bx, by, bw, bh)
            Color(*(BRASS if active else (0, 0, 0, 0.45)))
            RoundedRectangle(pos=(bx, by), size=(bw, bh), radius=[dp(10)])
            Color(1, 1, 1, 1)
            Rectangle(texture=tex, pos=(bx + pad, by + bh - tex.height - pad / 2), size=tex.size)
            Rectangle(texture=sub, pos=(bx + pad, by + pad / 2), size=sub.size)
            if seat != self.viewer and m.full_hand(seat):
                line = m.hand_line(seat)
                below = by - lab * 0.9 if pos != "bottom" else by + bh + lab * 0.9
                lw = text_texture(line, lab * 0.9, IVORY).width
                lx = max(tx + lw / 2 + dp(2), min(bx + bw / 2, tx + tw - lw / 2 - dp(2)))
                draw_text(line, lx, below if pos != "top" else by - lab * 0.9,
                          lab * 0.9, IVORY)

    def draw_contract(self, table: tuple[float, float, float, float], lab: float) -> None:
        """The contract and the tricks won (on a table tall enough: a phone's is in the panel
        beside, :meth:`side_widgets`), a raise waiting for its answers, and "Bidding" between
        the plates while the seats bid."""
        m = self.model
        v = m.view
        tx, ty, tw, th = table
        self.labels: dict[str, tuple[float, float, float, float]] = {}
        """Words drawn on the table ("Bidding") and where."""
        contract = m.contract_text()
        won = v.get("tricks_won") or [0, 0]
        cx, cy = tx + tw / 2, ty + th / 2
        if contract and th >= dp(300):
            draw_text(contract, cx, ty + th * 0.78, lab * 1.05, BRASS, True)
            draw_text(f"Tricks  N-S {won[0]}  ·  E-W {won[1]}", cx, ty + th * 0.71, lab * 0.9,
                      IVORY)
        raise_info = v.get("raise") or {}
        if raise_info.get("pending"):
            draw_text(f"Raise to {raise_info['pending']} proposed: waiting for the answers",
                      cx, ty + th * 0.25, lab, (1, 0.8, 0.4, 1), True)
        if v.get("phase") == "bidding" and not contract:
            # between the plates (no trick is on the table while bidding): under the top
            # plate and over the bottom one, the middle when they leave room
            top_plate = min((p[1] for seat, p in self.plates.items()
                             if m.position(seat) == "top"), default=ty + th)
            tex = text_texture("Bidding", lab * 1.2, BRASS, True)
            y = min(ty + th * 0.74, top_plate - tex.height / 2 - dp(2))
            if y - tex.height / 2 < cy:  # a short table: level with the side plates
                y = cy
            self.labels["Bidding"] = (cx - tex.width / 2, y - tex.height / 2, tex.width,
                                      tex.height)
            draw_text("Bidding", cx, y, lab * 1.2, BRASS, True)

    def draw_trick(self, table: tuple[float, float, float, float], lab: float) -> None:
        """The trick in the middle (its winner's cards lit while it is shown after it is
        won), and the trick before it on its way to its winner."""
        m = self.model
        tx, ty, tw, th = table
        cx, cy = tx + tw / 2, ty + th / 2
        cw, ch = self.card_size()
        tcw, tch = cw * 0.85, ch * 0.85
        last_winner = m.showing_last()
        if last_winner is not None:
            draw_text(f"Trick to {self.name(last_winner)}", cx, ty + th * 0.22, lab,
                      (1, 0.85, 0.4, 1), True)
        if self.moving and self._outgoing is not None:  # the last trick, off to its winner
            gone, winner = self._outgoing
            wx, wy = self.seat_anchor(m.position(winner), table)
            shrink = 1 - 0.6 * self.travel
            for played in gone:
                x, y, w, h = self.trick_slot(int(played["seat"]), table)
                px, py = lerp((x + w / 2, y + h / 2), (wx, wy), self.travel)
                draw_card(px - w * shrink / 2, py - h * shrink / 2, w * shrink, h * shrink,
                          played["card"], dim=played["seat"] != winner)
        for played in m.trick():
            x, y = self.card_pos(played["card"]) or (cx, cy)
            draw_card(x, y, tcw, tch, played["card"],
                      dim=last_winner is not None and played["seat"] != last_winner)
            if played.get("signal"):
                draw_text(played["signal"].upper(), x + tcw / 2, y - lab * 0.6, lab * 0.8,
                          (1, 0.85, 0.4, 1), True)

    def draw_hand(self) -> None:
        """The viewer's hand, fanned in rows at the bottom: playable cards raised, the one
        selected (or sent and not yet answered) higher and lit; each card's reachable part
        kept for the taps (:meth:`card_at`)."""
        m = self.model
        self._hand_rects = []
        hand = m.hand()
        playable = set(m.playable())
        hw, hh, per, step, offset = self.hand_layout(len(hand))
        held = (self.pending() or {}).get("card")
        rows = [hand[i:i + per] for i in range(0, len(hand), per)] if hand else []
        for r, row in enumerate(rows):
            total = step * (len(row) - 1) + hw
            x = self.center_x - total / 2
            base = self.y + dp(6) + (len(rows) - 1 - r) * offset
            front = r == len(rows) - 1
            for k, card in enumerate(row):
                lift = 0.0
                if card in playable:
                    lift = hh * 0.10
                if card == m.selected:
                    lift = hh * 0.22
                y = base + lift
                draw_card(x, y, hw, hh, card, dim=bool(playable) and card not in playable,
                          glow=card in (m.selected, held))
                last = k == len(row) - 1
                # the part of the card a finger can reach: up to the next card, and above
                # the row in front
                self._hand_rects.append((x, y if front else y + hh - offset,
                                         hw if last else step,
                                         hh if front else offset, card))
                x += step

    def hand_layout(self, n: int) -> tuple[float, float, int, float, float]:
        """Card width and height in the hand, cards a row, step between cards, rise of each
        row behind: one fanned row where every card shows at least 48 dp; else as few rows
        as give each card 48 dp."""
        cw, ch = self.card_size()
        avail = self.width - dp(8)
        if n <= 1:
            return cw, ch, max(1, n), cw, 0.0
        step = min(cw * 0.78, (avail - cw) / (n - 1))
        if step >= dp(48):
            return cw, ch, n, step, 0.0
        cw = max(cw, dp(48))
        ch = cw * 1.4
        per = max(2, int((avail - cw) // dp(48)) + 1)
        rows = -(-n // per)
        per = -(-n // rows)
        step = min(max(cw + dp(4), dp(48)), (avail - cw) / (per - 1))
        offset = max(dp(50), ch * 0.5)
        return cw, ch, per, step, offset

    def hand_height(self) -> float:
        n = len(self.model.hand())
        _cw, ch, per, _step, offset = self.hand_layout(n)
        rows = -(-n // per) if n else 1
        # the front row with a selected card raised (0.22 of its height) and its margin: a
        # raised card stays under the table, off the seat plates
        return float(dp(6) + ch * 1.24 + offset * (rows - 1))

    def tap_targets(self) -> list[tuple[float, float, float, float, str]]:
        """The cards of the hand a tap can reach (x, y, width, height, card); none on a
        disabled table (a picture, as in the rules)."""
        if self.disabled:
            return []
        return [(x, y, w, h, card_text(c)) for x, y, w, h, c in self._hand_rects]

    # -- touch -----------------------------------------------------------------------------------
    def card_at(self, x: float, y: float) -> str | None:
        for rx, ry, rw, rh, card in reversed(self._hand_rects):
            if rx <= x <= rx + rw and ry <= y <= ry + rh:
                return card
        return None

    def card_point(self, card: str) -> tuple[float, float]:
        for rx, ry, rw, rh, c in self._hand_rects:
            if c == card:
                return rx + rw / 2, ry + rh / 2
        raise KeyError(card)

    def on_touch_up(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        card = self.card_at(*touch.pos)
        if card is None:
            hurry = getattr(self.session, "hurry", None)
            if hurry is not None:
                hurry()  # a tap on the table: the finished trick has been seen
            return False
        held = self.pending()
        if held is not None:  # confirm-before-move: the held card again confirms
            if held.get("card") == card:
                self.confirm_pending()
                return True
            self.cancel_pending()
        cmd = self.model.tap_card(card)
        if cmd is not None:
            self.send(cmd)
        elif self.model.selected is None and self.model.phase == "play":
            self.explain_refusal({"type": "play", "card": card})
        else:
            self.clear_explanation()
        self.changed()
        return True

    _small: bool | None = None

    def _redraw(self, *args: Any) -> None:
        super()._redraw(*args)
        small = self.height - self.hand_height() < dp(300)
        if small != self._small:  # resized: the contract moves between table and panel
            self._small = small
            if self._box is not None and self.session is not None:
                self._side_key = None
                self.side_widgets(self._box, self._more)

    def changed(self) -> None:
        """Redraw after a local change (a card selected): the table and its buttons."""
        self._redraw()
        self._side_key = None
        if self.parent is not None and self._box is not None:
            self.side_widgets(self._box, self._more)

    _box: Any = None
    _more: Any = None

    # -- buttons beside the table ------------------------------------------------------------
    def side_widgets(self, box: Any, more: Any = None) -> None:
        """The calls, trumps and card actions in ``box``; the score, Score sheet and Last
        trick there too, or in ``more`` (a phone's More sheet)."""
        self._box, self._more = box, more
        m = self.model
        small = self.height - self.hand_height() < dp(300)
        key = (json.dumps(m.legal, sort_keys=True), m.selected, m.phase,
               json.dumps(m.view.get("sheet")), small, more is None,
               json.dumps([m.view.get("contract"), m.view.get("tricks_won")]))
        if key == self._side_key:
            return
        self._side_key = key
        box.clear_widgets()
        aside = box if more is None else more
        if more is not None:
            more.clear_widgets()
        grid = FlowGrid(cell_width=dp(84) if more is None else dp(76), max_cols=4, spacing=dp(6))

        def add(text: str, cmd: Any, primary: bool = True) -> GButton:
            b = GButton(text=text, font_size=sp(16))
            if not primary:
                b.bg, b.fg = (1, 1, 1, 0.14), IVORY
            b.bind(on_release=lambda *_: self.send(cmd))
            grid.add_widget(b)
            return b

        hint = ""
        meaning = ""  # a word on what the choices offered mean, under their buttons
        if m.commands("keep") or m.commands("throw_in"):
            hint = "Nothing above a 10: keep this hand or throw it in?"
            for c in m.commands("keep"):
                add("Keep", c)
            for c in m.commands("throw_in"):
                add("Throw in", c, False)
        for c in m.bids():
            add(call_text(c["call"]), c, isinstance(c["call"], int) or c["call"] == "double 13")
        if m.bids():
            hint = "Your call"
            meaning = calls_meaning([c["call"] for c in m.bids()])
        for c in m.commands("trumps"):
            add(f"{SUIT_SYMBOL[c['suit']]} {SUIT_NAME[c['suit']]}", c)
            hint = "Name trumps"
        for c in m.commands("cut"):
            add("Cut the deck", c)
            hint = "Cut for the next hand"
        if m.selected is not None:
            hint = f"Play {card_text(m.selected)} (tap it again), or with a signal:"
            plain = m.play(m.selected, None)
            if plain is not None:
                add(f"Play {card_text(m.selected)}", plain)
            signals = [sig for sig in SIGNALS if m.play(m.selected, sig) is not None]
            for sig in signals:
                add(f"+ {sig}", m.play(m.selected, sig), False)
            meaning = signals_meaning(signals)
        elif m.playable():
            hint = "Your turn: tap a card to play (the bright ones can be played)"
        if m.raise_levels():  # one action; the numbers and a confirmation in its dialog
            b = GButton(text="Raise\u2026", font_size=sp(16), bg=(1, 1, 1, 0.14), fg=IVORY)
            b.bind(on_release=lambda *_: self.open_raise())
            grid.add_widget(b)
        for c in m.commands("accept_raise"):
            add("Accept raise", c)
            hint = f"Declarer proposes {m.view.get('raise', {}).get('pending')}: accept?"
        for c in m.commands("refuse_raise"):
            add("Refuse raise", c, False)
        if hint:
            box.add_widget(WrapLabel(text=hint, font_size=sp(16), color=BRASS,
                                     font_name="DejaVuSans"))
        box.add_widget(grid)
        if meaning:
            box.add_widget(WrapLabel(text=meaning, font_size=sp(14), color=MUTED,
                                     font_name=SYMBOL_FONT))
        if m.forced_meaning() and not meaning:  # "(forced)" on the contract
            box.add_widget(WrapLabel(text=m.forced_meaning(), font_size=sp(14), color=MUTED))
        if small and m.contract_text():  # not drawn on a small table: said here
            won = m.view.get("tricks_won") or [0, 0]
            box.add_widget(WrapLabel(
                text=f"{m.contract_text()}  ·  tricks N-S {won[0]}, E-W {won[1]}",
                font_size=sp(15), color=BRASS, font_name=SYMBOL_FONT))
        scores = m.view.get("scores") or [0, 0]
        line = WrapLabel(text=f"N-S {scores[0]}  ·  E-W {scores[1]}  (to "
                              f"{(m.view.get('options') or {}).get('target', 104)})",
                         font_size=sp(17), bold=True)
        aside.add_widget(line)
        sheet = GButton(text="Score sheet", bg=(1, 1, 1, 0.14), fg=IVORY)
        sheet.bind(on_release=lambda *_: ScoreSheet(m.view).open())
        if m.view.get("trick") and (m.view.get("last_trick") or {}).get("cards"):
            row = BoxLayout(size_hint_y=None, height=dp(54), spacing=dp(6))
            peek = GButton(text="Last trick", bg=(1, 1, 1, 0.14), fg=IVORY)
            peek.bind(on_release=lambda *_: self.show_last_trick())
            row.add_widget(peek)
            row.add_widget(sheet)
            aside.add_widget(row)
        else:
            aside.add_widget(sheet)

        self._follow_raise()

    raise_view: Any = None
    """The raise dialog, while it is open."""

    def open_raise(self) -> None:
        """The declarer's "Raise...": a dialog with the numbers allowed, then a confirmation;
        nothing is sent before it is confirmed."""
        if not self.model.open_raise():
            return
        if self.raise_view is not None:
            self.raise_view.dismiss(animation=False)
        self.raise_view = RaiseDialog(self)
        self.raise_view.open(animation=False)

    def send_raise(self) -> None:
        """The confirmed raise goes to the table (confirmed already: no second gate)."""
        command = self.model.confirm_raise()
        if self.raise_view is not None:
            self.raise_view.dismiss(animation=False)
        if command is not None and self.session is not None:
            self.session.send(command)

    def _follow_raise(self) -> None:
        """The game moved on while the dialog was open: it follows (or goes with the raise)."""
        view = self.raise_view
        if view is None:
            return
        if not self.model.raising:
            view.dismiss(animation=False)
        else:
            view.build()

    peek: Any = None

    def show_last_trick(self) -> None:
        """A look at the trick before this one: its four cards, who played them, who won."""
        last = self.model.view.get("last_trick") or {}
        if not last.get("cards"):
            return
        if self.peek is not None:
            self.peek.dismiss(animation=False)
        self.peek = LastTrick(last, self.name)
        self.peek.bind(on_dismiss=lambda *_: setattr(self, "peek", None))
        self.peek.open(animation=False)


class RaiseDialog(ModalView):
    """The declarer's raise: the numbers allowed (one tap chooses), then "Raise to N?" with
    what it means, sent only by "Propose N"; Cancel (or a tap outside) sends nothing."""

    def __init__(self, table: TekaTable, **kw: Any) -> None:
        from kivy.core.window import Window

        super().__init__(size_hint=(None, None), background_color=(0, 0, 0, 0.5), **kw)
        self.table = table
        self.width = min(Window.width - dp(24), dp(460))
        self.body = BoxLayout(orientation="vertical", padding=dp(16), spacing=dp(10),
                              size_hint_y=None)
        self.body.bind(minimum_height=self.body.setter("height"))
        self.body.bind(height=lambda _w, h: setattr(self, "height", h))
        self.add_widget(self.body)
        self.bind(on_dismiss=lambda *_: self._gone())
        self.build()

    def _gone(self) -> None:
        if self.table.raise_view is self:
            self.table.raise_view = None
        self.table.model.cancel_raise()  # (a confirmed raise has left the gate already)

    def build(self) -> None:
        m = self.table.model
        body = self.body
        body.clear_widgets()
        grid = FlowGrid(cell_width=dp(84), max_cols=4, spacing=dp(6))
        held = m.raise_held()
        if held is None:
            bid = (m.view.get("contract") or {}).get("bid")
            body.add_widget(WrapLabel(text=f"Raise the contract{f' from {bid}' if bid else ''}"
                                           " to:", font_size=sp(18), bold=True, color=BRASS))
            for to in m.raise_levels():
                b = GButton(text=str(to), font_size=sp(18))
                b.bind(on_release=lambda _b, n=to: self.choose(n))
                grid.add_widget(b)
        else:
            body.add_widget(WrapLabel(text=m.raise_question(), font_size=sp(16), color=IVORY))
            b = GButton(text=f"Propose {held['to']}", font_size=sp(16))
            b.bind(on_release=lambda *_: self.table.send_raise())
            grid.add_widget(b)
            back = GButton(text="Other number", font_size=sp(16), bg=(1, 1, 1, 0.14), fg=IVORY)
            back.bind(on_release=lambda *_: self.back())
            grid.add_widget(back)
        cancel = GButton(text="Cancel", font_size=sp(16), bg=(1, 1, 1, 0.14), fg=IVORY)
        cancel.bind(on_release=lambda *_: self.dismiss(animation=False))
        grid.add_widget(cancel)
        body.add_widget(grid)

    def choose(self, to: int) -> None:
        self.table.model.choose_raise(to)
        self.build()

    def back(self) -> None:
        self.table.model.open_raise()
        self.build()


class TablePopup(ModalView):
    """A card over the table (a hand's summary, the last trick): as tall as its body, as
    wide as the window allows up to ``max_width``, gone at a tap anywhere."""

    max_width = 460.0  # dp

    def show_body(self, body: Any) -> None:
        from kivy.core.window import Window

        self.add_widget(body)
        body.bind(height=lambda _w, h: setattr(self, "height", h))
        Window.bind(size=self._fit)
        self.bind(on_dismiss=lambda *_: Window.unbind(size=self._fit))
        self._fit()

    def _fit(self, *_: Any) -> None:
        from kivy.core.window import Window

        self.width = min(Window.width - dp(24), dp(self.max_width))

    def on_touch_down(self, touch: Any) -> bool:
        self.dismiss(animation=False)
        return True


class HandSummary(TablePopup):
    """After each hand: who bid what, made or failed, tricks, points and the match score.
    A tap anywhere (or "Next hand") closes it."""

    def __init__(self, view: dict[str, Any], name: Any = None, **kw: Any) -> None:
        super().__init__(size_hint=(None, None), background_color=(0, 0, 0, 0.45), **kw)
        row = (view.get("sheet") or [{}])[-1]
        target = (view.get("options") or {}).get("target", 104)
        body = BoxLayout(orientation="vertical", padding=dp(16), spacing=dp(6),
                         size_hint_y=None)
        body.bind(minimum_height=body.setter("height"))
        with body.canvas.before:
            Color(0.04, 0.16, 0.12, 0.97)
            self._bg = RoundedRectangle(radius=[dp(16)])
        body.bind(pos=lambda w, p: setattr(self._bg, "pos", p),
                  size=lambda w, s: setattr(self._bg, "size", s))
        bidder = int(row.get("bidder", 0)) % 4
        who = name(bidder) if name is not None else SEAT_NAMES[bidder]
        bid = "Double 13" if row.get("double13") else str(row.get("bid"))
        trumps = SUIT_SYMBOL.get(row.get("trumps") or "", "")
        tricks = row.get("tricks") or [0, 0]
        pts = row.get("points") or [0, 0]
        totals = row.get("totals") or view.get("scores") or [0, 0]
        made = "made it" if row.get("made") else "went down"
        lines = [
            (f"Hand {row.get('hand', len(view.get('sheet') or []))} is over", sp(22), BRASS,
             True),
            (f"{who} bid {bid}{trumps} and {made}", sp(17), IVORY, True),
            (f"Tricks: N-S {tricks[0]}  ·  E-W {tricks[1]}", sp(16), IVORY, False),
            (f"This hand: N-S {int(pts[0]):+d}  ·  E-W {int(pts[1]):+d}", sp(16), IVORY, False),
            (f"Match: N-S {totals[0]}  ·  E-W {totals[1]}  (to {target})", sp(17), BRASS, True),
        ]
        for text, size, colour, bold in lines:
            symbols = any(ch in text for ch in SUIT_SYMBOL.values())
            body.add_widget(WrapLabel(text=text, font_size=size, color=colour,
                                      bold=bold and not symbols,
                                      font_name=SYMBOL_FONT if symbols else "Roboto"))
        close = GButton(text="Next hand" if view.get("outcome") is None else "Close")
        close.bind(on_release=lambda *_: self.dismiss(animation=False))
        body.add_widget(close)
        self.body = body
        self.show_body(body)


class TrickCards(Widget):
    """Cards in a row, each with its player's name under it."""

    def __init__(self, cards: list[tuple[str, str]], **kw: Any) -> None:
        super().__init__(**kw)
        self.cards = cards
        from kivy.clock import Clock

        redraw = Clock.create_trigger(self._draw, -1)  # once the layout has settled
        self.bind(pos=redraw, size=redraw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        n = max(1, len(self.cards))
        lab = sp(13)
        w = min(dp(80), (self.width - dp(8) * (n - 1)) / n)
        h = min(w * 1.4, self.height - lab * 2.4)
        w = h / 1.4
        x = self.center_x - (n * w + (n - 1) * dp(8)) / 2
        with self.canvas:
            for card, who in self.cards:
                draw_card(x, self.y + lab * 2.2, w, h, card)
                draw_text(who, x + w / 2, self.y + lab * 1.1, lab, IVORY)
                x += w + dp(8)


class LastTrick(TablePopup):
    """The last trick's four cards and its winner (a peek during the next trick); a tap
    anywhere or Close closes it."""

    max_width = 420.0

    def __init__(self, last: dict[str, Any], name: Any, **kw: Any) -> None:
        super().__init__(size_hint=(None, None), background_color=(0, 0, 0, 0.45), **kw)
        body = BoxLayout(orientation="vertical", padding=dp(14), spacing=dp(8),
                         size_hint_y=None)
        body.bind(minimum_height=body.setter("height"))
        with body.canvas.before:
            Color(0.04, 0.16, 0.12, 0.97)
            self._bg = RoundedRectangle(radius=[dp(16)])
        body.bind(pos=lambda w, p: setattr(self._bg, "pos", p),
                  size=lambda w, s: setattr(self._bg, "size", s))
        winner = last.get("winner")
        title = "Last trick" + (f": won by {name(int(winner))}" if winner is not None else "")
        body.add_widget(WrapLabel(text=title, font_size=sp(18), bold=True, color=BRASS))
        short = [(str(p["card"]), name(int(p["seat"])).split(" (")[0]) for p in last["cards"]]
        body.add_widget(TrickCards(short, size_hint_y=None, height=dp(170)))
        close = GButton(text="Close")
        close.bind(on_release=lambda *_: self.dismiss(animation=False))
        body.add_widget(close)
        self.show_body(body)


class ScoreChart(Widget):
    """Both sides' totals after each hand, as two lines."""

    series = ListProperty([])

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, series=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        pts = list(self.series)
        if len(pts) < 2:
            return
        lo = min(0, min(min(a, b) for a, b in pts))
        hi = max(104, max(max(a, b) for a, b in pts))
        pad = dp(24)
        w, h = self.width - 2 * pad, self.height - 2 * pad

        def xy(i: int, v: int) -> tuple[float, float]:
            return (self.x + pad + w * i / (len(pts) - 1), self.y + pad + h * (v - lo) / (hi - lo))

        with self.canvas:
            Color(1, 1, 1, 0.15)
            Line(points=[*xy(0, 0), *xy(len(pts) - 1, 0)], width=dp(1))
            Color(*BRASS)
            Line(points=[*xy(0, 104), *xy(len(pts) - 1, 104)], width=dp(1), dash_length=6,
                 dash_offset=4)
            for side, colour in ((0, (0.95, 0.85, 0.55, 1)), (1, (0.5, 0.75, 1.0, 1))):
                Color(*colour)
                line: list[float] = []
                for i, p in enumerate(pts):
                    line.extend(xy(i, p[side]))
                Line(points=line, width=dp(2.5))
                for i, p in enumerate(pts):
                    px, py = xy(i, p[side])
                    Ellipse(pos=(px - dp(4), py - dp(4)), size=(dp(8), dp(8)))
            draw_text("N-S", self.x + pad + dp(20), self.top - dp(12), sp(13),
                      (0.95, 0.85, 0.55, 1), True)
            draw_text("E-W", self.x + pad + dp(60), self.top - dp(12), sp(13),
                      (0.5, 0.75, 1.0, 1), True)


class ScoreSheet(ModalView):
    def __init__(self, view: dict[str, Any], **kw: Any) -> None:
        super().__init__(size_hint=(0.92, 0.88), background_color=(0, 0, 0, 0.7), **kw)
        model = TekaModel()
        model.update(view, [])
        body = BoxLayout(orientation="vertical", padding=dp(14), spacing=dp(8))
        with body.canvas.before:
            Color(0.04, 0.16, 0.12, 1)
            self._bg = RoundedRectangle(radius=[dp(16)])
        body.bind(pos=lambda w, p: setattr(self._bg, "pos", p),
                  size=lambda w, s: setattr(self._bg, "size", s))
        body.add_widget(WrapLabel(text="Score sheet", font_size=sp(22), bold=True, color=BRASS))
        chart = ScoreChart(size_hint_y=0.4)
        chart.series = model.score_series()
        body.add_widget(chart)
        # columns as wide as their text; on a narrow phone the table scrolls sideways
        grid = GridLayout(cols=6, spacing=(dp(10), dp(4)), size_hint=(None, None),
                          row_default_height=dp(30), row_force_default=True)
        grid.bind(minimum_height=grid.setter("height"), minimum_width=grid.setter("width"))

        def cell(text: str, head: bool = False) -> Label:
            lab = Label(text=text, bold=head, color=MUTED if head else IVORY,
                        font_size=sp(14) if head else sp(15), font_name=SYMBOL_FONT,
                        size_hint_x=None)
            lab.bind(texture_size=lambda w, ts: setattr(w, "width", ts[0] + dp(4)))
            return lab

        for head in ("Hand", "Contract", "Tricks", "Result", "N-S", "E-W"):
            grid.add_widget(cell(head, True))
        for row in view.get("sheet") or []:
            bid = "D13" if row.get("double13") else str(row.get("bid"))
            trumps = SUIT_SYMBOL.get(row.get("trumps") or "", "")
            who = SEAT_NAMES[int(row.get("bidder", 0)) % 4][0]
            tricks = row.get("tricks") or [0, 0]
            totals = row.get("totals") or [0, 0]
            cells = [str(row.get("hand")), f"{who} {bid}{trumps}", f"{tricks[0]}-{tricks[1]}",
                     "made" if row.get("made") else "failed", str(totals[0]), str(totals[1])]
            for c in cells:
                grid.add_widget(cell(c))
        scroll = ScrollView(do_scroll_x=True, do_scroll_y=True)
        scroll.add_widget(grid)
        body.add_widget(scroll)
        scores = view.get("scores") or [0, 0]
        lead = 0 if scores[0] >= scores[1] else 1
        body.add_widget(WrapLabel(text=f"{side_name(lead)} lead {max(scores)} to {min(scores)}",
                                  font_size=sp(17)))
        close = GButton(text="Close")
        close.bind(on_release=lambda *_: self.dismiss())
        body.add_widget(close)
        self.add_widget(body)
