"""Tiku: a 6x6 wooden board; pieces slide, laying coloured discs behind them."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Ellipse, Line, Quad, Rectangle
from kivy.metrics import dp, sp

from client_kivy.vm.tiku import FILES, TikuModel
from client_kivy.widgets.board import MARK_GROUP, BoardWidget, draw_mark, draw_text, draw_wood, lerp
from client_kivy.widgets.common import GButton, WrapLabel

DISC = [(0.93, 0.88, 0.74, 1), (0.62, 0.17, 0.15, 1)]
DISC_RIM = [(0.70, 0.64, 0.50, 1), (0.38, 0.08, 0.07, 1)]
SLIDE = 0.35
"""Seconds a piece takes to slide, at normal speed; the discs it lays drop in behind it."""


class TikuBoard(BoardWidget):
    def __init__(self, **kw: Any) -> None:
        self.model = TikuModel()
        self._moving: dict[str, Any] | None = None  # the last move while it is animated
        super().__init__(**kw)
        self._side_key: Any = None

    def update_model(self, view: Any, legal: list[Any]) -> None:
        self.model.update(view or {}, legal)

    def plan_motion(self, before: Any, after: Any) -> float:
        moves, was = after.get("moves"), before.get("moves")
        if moves == was and after.get("round") == before.get("round"):
            return 0.0
        last = after.get("last_move") or {}
        if not isinstance(moves, int) or not isinstance(was, int) or moves != was + 1 \
                or not last.get("from") or not last.get("to"):
            self._moving = None
            return -1.0
        self._moving = dict(last)
        return SLIDE

    def piece_pos(self, square: str) -> tuple[float, float]:
        """Where the piece on ``square`` is drawn now: its square, or on its way there."""
        x, y = self.point(square)
        mv = self._moving
        if mv is None or not self.moving or mv.get("to") != square:
            return x, y
        return lerp(self.point(str(mv["from"])), (x, y), self.travel)

    def disc_scale(self, square: str) -> float:
        """A disc just laid drops in: drawn larger (and from above) until it lands; 1 at rest.
        The discs of a path land one after another as the piece passes."""
        mv = self._moving
        if mv is None or not self.moving or square not in (mv.get("placed") or []):
            return 1.0
        path = list(mv.get("placed") or [])
        start = path.index(square) / (len(path) + 1)
        t = max(0.0, min(1.0, (self.travel - start) / max(0.01, 1 - start)))
        return float(1.0 + 0.8 * (1 - t))

    def geometry(self) -> tuple[float, float, float]:
        side = min(self.width, self.height) - dp(8)
        return self.center_x - side / 2, self.center_y - side / 2, side

    def cell(self, square: str) -> tuple[float, float, float]:
        """Lower-left corner and size of a square."""
        x0, y0, side = self.geometry()
        step = (side - side * 0.1) / 6
        f = FILES.index(square[0])
        r = int(square[1:]) - 1
        return x0 + side * 0.07 + f * step, y0 + side * 0.07 + r * step, step

    def point(self, square: str) -> tuple[float, float]:
        x, y, s = self.cell(square)
        return x + s / 2, y + s / 2

    def square_at(self, x: float, y: float) -> str | None:
        for f in FILES:
            for r in range(1, 7):
                cx, cy, s = self.cell(f"{f}{r}")
                if cx <= x < cx + s and cy <= y < cy + s:
                    return f"{f}{r}"
        return None

    def draw(self) -> None:
        m = self.model
        x0, y0, side = self.geometry()
        draw_wood(x0, y0, side, side, dp(18))
        targets = m.targets()
        diag = m.diagonal_targets()
        movable = m.movable() if m.selected is None else set()
        path = m.last_path()
        lab = self.label_size()
        pending = self.pending() or {}
        for i, f in enumerate(FILES):
            cx, _ = self.point(f"{f}1")
            draw_text(f, cx, y0 + side * 0.035, lab, (0.25, 0.14, 0.06, 1), True)
            _, cy = self.point(f"a{i + 1}")
            draw_text(str(i + 1), x0 + side * 0.035, cy, lab, (0.25, 0.14, 0.06, 1), True)
        for f in FILES:
            for r in range(1, 7):
                sq = f"{f}{r}"
                x, y, s = self.cell(sq)
                dark = (FILES.index(f) + r) % 2 == 0
                Color(*((0.60, 0.40, 0.21, 1) if dark else (0.78, 0.58, 0.35, 1)))
                Rectangle(pos=(x + 1, y + 1), size=(s - 2, s - 2))
                if sq in path:
                    Color(1.0, 0.9, 0.5, 0.30)
                    Rectangle(pos=(x + 1, y + 1), size=(s - 2, s - 2))
                disc = m.disc_at(sq)
                if disc is not None:
                    grow = self.disc_scale(sq)
                    r_out = s * 0.40 * grow
                    cx, cy = x + s / 2, y + s / 2 + (grow - 1) * s * 0.3
                    Color(0, 0, 0, 0.3)
                    Ellipse(pos=(cx - r_out + dp(1), cy - r_out - dp(2)), size=(2 * r_out,) * 2)
                    Color(*DISC_RIM[disc])
                    Ellipse(pos=(cx - r_out, cy - r_out), size=(2 * r_out,) * 2)
                    Color(*DISC[disc])
                    Ellipse(pos=(cx - r_out * 0.82, cy - r_out * 0.82), size=(1.64 * r_out,) * 2)
                    if self.marks and disc == 1:  # dark discs striped: not colour alone
                        Color(0.93, 0.88, 0.74, 0.8, group=MARK_GROUP)
                        for k in (-1, 0, 1):
                            o = k * r_out * 0.35
                            Line(points=[cx - r_out * 0.5 + o, cy - r_out * 0.5 - o,
                                         cx + r_out * 0.5 + o, cy + r_out * 0.5 - o],
                                 width=dp(1.5), group=MARK_GROUP)
                piece = m.piece_at(sq)
                if piece is not None and not (self.moving and self._moving is not None
                                              and self._moving.get("to") == sq):
                    self._draw_piece(x + s / 2, y + s / 2, s * 0.27, int(piece["seat"]),
                                     bool(piece.get("flipped")))
                cx, cy = x + s / 2, y + s / 2
                if sq in (pending.get("from"), pending.get("to")):  # held: Confirm?
                    Color(0.91, 0.69, 0.29, 1)
                    Line(rectangle=(x + dp(2), y + dp(2), s - dp(4), s - dp(4)), width=dp(3))
                if sq == m.selected:
                    Color(0.35, 0.85, 0.45, 1)
                    Line(rectangle=(x + dp(3), y + dp(3), s - dp(6), s - dp(6)), width=dp(3))
                elif sq in movable:
                    Color(0.35, 0.85, 0.45, 0.6)
                    Line(circle=(cx, cy, s * 0.34), width=dp(1.6))
                if sq in targets:
                    Color(*((0.45, 0.75, 1.0, 0.95) if sq in diag else (0.35, 0.85, 0.45, 0.95)))
                    rr = s * 0.13
                    if sq in diag and self.marks:  # a diagonal slide: a diamond, not a dot
                        Quad(points=[cx - rr * 1.3, cy, cx, cy + rr * 1.3, cx + rr * 1.3, cy,
                                     cx, cy - rr * 1.3], group=MARK_GROUP)
                    else:
                        Ellipse(pos=(cx - rr, cy - rr), size=(2 * rr, 2 * rr))
        mv = self._moving
        if self.moving and mv is not None:  # the sliding piece, on top of the board
            piece = m.piece_at(str(mv.get("to")))
            if piece is not None:
                px, py = self.piece_pos(str(mv["to"]))
                _x, _y, s = self.cell(str(mv["to"]))
                self._draw_piece(px, py, s * 0.27, int(piece["seat"]),
                                 bool(piece.get("flipped")))

    def _draw_piece(self, cx: float, cy: float, r: float, seat: int, flipped: bool) -> None:
        Color(0, 0, 0, 0.45)
        Ellipse(pos=(cx - r + dp(2), cy - r - dp(4)), size=(2 * r, 2 * r))
        body = (0.97, 0.95, 0.90, 1) if seat == 0 else (0.12, 0.10, 0.10, 1)
        rim = (0.62, 0.58, 0.50, 1) if seat == 0 else (0.02, 0.02, 0.02, 1)
        Color(*rim)
        Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))
        Color(*body)
        Ellipse(pos=(cx - r * 0.85, cy - r * 0.8), size=(1.7 * r, 1.7 * r))
        mark = (0.62, 0.17, 0.15, 1) if seat == 0 else (0.93, 0.88, 0.74, 1)
        if not flipped:
            # the unflipped mark: a diagonal cross (this piece may still slide diagonally
            # when the variant is on)
            Color(*mark)
            d = r * 0.45
            Line(points=[cx - d, cy - d, cx + d, cy + d], width=dp(2))
            Line(points=[cx - d, cy + d, cx + d, cy - d], width=dp(2))
        else:
            Color(*mark)
            Line(circle=(cx, cy, r * 0.45), width=dp(2))
        if self.marks:  # which side, by shape: a triangle or a square at the top, clear of
            # the cross or ring (which say whether the piece is turned over)
            draw_mark(cx, cy + r * 0.6, r * 0.5, seat, mark, ring=False)

    def on_touch_up(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        sq = self.square_at(*touch.pos)
        if sq is None:
            return False
        held = self.pending()
        if held is not None:  # confirm-before-move: the same point confirms, any other cancels
            if sq == held.get("to"):
                self.confirm_pending()
                return True
            self.cancel_pending()
        m = self.model
        before = m.selected
        cmd = m.tap(sq)
        if cmd is not None:
            self.send(cmd)
            return True
        self._redraw()
        if m.selected is not None:
            self.clear_explanation()
        elif before is not None and sq != before:
            self.explain_refusal({"type": "move", "from": before, "to": sq})
        elif before is None:
            piece = m.piece_at(sq)
            seat = self.session.viewer if self.session is not None else -1
            if self.session is not None and not self.session.my_turn:
                self.explain(self.session.why_not({"type": "pass"}))
            elif piece is None:
                self.explain("Tap one of your pieces, then a green square")
            elif piece.get("seat") != seat:
                self.explain("That piece is not yours")
            else:
                self.explain("That piece has no move now")
        return True

    def side_widgets(self, box: Any, more: Any = None) -> None:
        """Discs in hand, match score, and a Pass button when passing is the only move."""
        v = self.model.view
        hands = v.get("hands") or [0, 0]
        match = v.get("match")
        key = (tuple(hands), tuple(match or ()), self.model.can_pass(), v.get("round"))
        if key == self._side_key:
            return
        self._side_key = key
        box.clear_widgets()
        text = f"Discs in hand: Light {hands[0]} · Dark {hands[1]}"
        if match:
            target = (v.get("options") or {}).get("target", 20)
            text += f"\nRound {v.get('round', 1)} · match {match[0]} - {match[1]} (to {target})"
        box.add_widget(WrapLabel(text=text, font_size=sp(16)))
        if self.model.can_pass():
            b = GButton(text="Pass (no move)")
            b.bind(on_release=lambda *_: self.send({"type": "pass"}))
            box.add_widget(b)
