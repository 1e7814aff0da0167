"""Teeko: a wooden 5x5 board; tap to place, tap a piece then a highlighted point to move."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Ellipse, Line
from kivy.metrics import dp

from client_kivy.vm.teeko import FILES, TeekoModel
from client_kivy.widgets.board import (
    BoardWidget,
    draw_piece,
    draw_text,
    draw_wood,
    lerp,
    text_texture,
)

SLIDE = 0.3
"""Seconds a piece takes to slide to its new point (or to drop onto it), at normal speed."""


class TeekoBoard(BoardWidget):
    def __init__(self, **kw: Any) -> None:
        self.model = TeekoModel()
        self._moving: tuple[str, str | None] | None = None  # (to, from) of the last move
        super().__init__(**kw)

    def update_model(self, view: Any, legal: list[Any]) -> None:
        self.model.update(view or {}, legal)

    def plan_motion(self, before: Any, after: Any) -> float:
        """One more ply: the piece slides from its old point, or drops onto its new one."""
        ply, was = after.get("ply"), before.get("ply")
        if ply == was:
            return 0.0
        last = after.get("last") or {}
        if not isinstance(ply, int) or not isinstance(was, int) or ply != was + 1 \
                or not last.get("to"):
            self._moving = None
            return -1.0
        self._moving = (str(last["to"]), last.get("from"))
        return SLIDE

    def piece_pos(self, square: str) -> tuple[float, float, float]:
        """Where the piece on ``square`` is drawn now (centre x, y and a size factor): its
        point, or part way there while it moves."""
        x, y = self.point(square)
        if self._moving is None or self._moving[0] != square or not self.moving:
            return x, y, 1.0
        t = self.travel
        src = self._moving[1]
        if src:
            return *lerp(self.point(src), (x, y), t), 1.0
        _x0, _y0, side = self.geometry()
        return x, y + (1 - t) * side / 5.6 * 0.9, 1.0 + 0.35 * (1 - t)

    # geometry ------------------------------------------------------------------------------
    def geometry(self) -> tuple[float, float, float]:
        side = min(self.width, self.height) - dp(8)
        x0 = self.center_x - side / 2
        y0 = self.center_y - side / 2
        return x0, y0, side

    def point(self, square: str) -> tuple[float, float]:
        x0, y0, side = self.geometry()
        step = side / 5.6
        f = FILES.index(square[0])
        r = int(square[1]) - 1
        return x0 + step * (f + 0.8), y0 + step * (r + 0.8)

    def square_at(self, x: float, y: float) -> str | None:
        """The point a tap at x, y means: within a piece's radius of its centre (at least
        24 dp, a 48 dp target); between points is no point."""
        _x0, _y0, side = self.geometry()
        step = side / 5.6
        reach = max(step * 0.38, dp(24))
        best: tuple[float, str] | None = None
        for f in FILES:
            for rank in range(1, 6):
                cx, cy = self.point(f"{f}{rank}")
                d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
                if d <= reach and (best is None or d < best[0]):
                    best = (d, f"{f}{rank}")
        return best[1] if best else None

    def tap_targets(self) -> list[tuple[float, float, float, float, str]]:
        if self.disabled:  # (a picture, as in the rules: nothing to tap)
            return []
        _x0, _y0, side = self.geometry()
        reach = max(side / 5.6 * 0.38, dp(24))
        out = []
        for f in FILES:
            for rank in range(1, 6):
                cx, cy = self.point(f"{f}{rank}")
                out.append((cx - reach, cy - reach, 2 * reach, 2 * reach, f"{f}{rank}"))
        return out

    # drawing --------------------------------------------------------------------------------
    def draw(self) -> None:
        m = self.model
        x0, y0, side = self.geometry()
        step = side / 5.6
        draw_wood(x0, y0, side, side, dp(18))
        # lines between points: rows, columns and diagonals, burnt into the wood
        Color(0.33, 0.19, 0.08, 0.85)
        for i in range(5):
            ax, ay = self.point(f"a{i + 1}")
            ex, ey = self.point(f"e{i + 1}")
            Line(points=[ax, ay, ex, ey], width=dp(1.4))
            bx, by = self.point(f"{FILES[i]}1")
            tx, ty = self.point(f"{FILES[i]}5")
            Line(points=[bx, by, tx, ty], width=dp(1.4))
        # every diagonal step a piece may take, fainter
        Color(0.33, 0.19, 0.08, 0.30)
        for i in range(4):
            for r in range(1, 5):
                a = f"{FILES[i]}{r}"
                b = f"{FILES[i + 1]}{r + 1}"
                c = f"{FILES[i]}{r + 1}"
                d = f"{FILES[i + 1]}{r}"
                Line(points=[*self.point(a), *self.point(b)], width=dp(1))
                Line(points=[*self.point(c), *self.point(d)], width=dp(1))
        # coordinates, outside the rings drawn round the pieces of the edge (the last move,
        # the winning four): on a small board the margin is narrow
        lab = self.label_size()
        r_hole = step * 0.30
        r_piece = step * 0.38
        ring = r_piece + dp(8)  # the widest ring (the winning four), with its line
        self.coord_rects: dict[str, tuple[float, float, float, float]] = {}
        """Where each coordinate is written (x, y, width, height)."""
        for i in range(5):
            for text, horizontal in ((FILES[i], True), (str(i + 1), False)):
                tex = text_texture(text, lab, (0.25, 0.14, 0.06, 1), True)
                half = (tex.height if horizontal else tex.width) / 2
                off = max(half, min(step * 0.3, step * 0.8 - ring - half - dp(4)))
                if horizontal:
                    cx, cy = self.point(f"{FILES[i]}1")[0], y0 + off
                else:
                    cx, cy = x0 + off, self.point(f"a{i + 1}")[1]
                self.coord_rects[text] = (cx - tex.width / 2, cy - tex.height / 2, tex.width,
                                          tex.height)
                draw_text(text, cx, cy, lab, (0.25, 0.14, 0.06, 1), True)
        self.ring_radius = r_piece + dp(5) + dp(1)
        """The last move's ring (radius to the outside of its line)."""
        targets = m.targets()
        movable = m.movable() if m.selected is None else set()
        last = m.last()
        winning = m.winning()
        for f in FILES:
            for rank in range(1, 6):
                sq = f"{f}{rank}"
                cx, cy = self.point(sq)
                Color(0.30, 0.17, 0.07, 1)
                Ellipse(pos=(cx - r_hole, cy - r_hole), size=(2 * r_hole, 2 * r_hole))
                Color(0.20, 0.11, 0.04, 1)
                Ellipse(pos=(cx - r_hole * 0.85, cy - r_hole * 0.8),
                        size=(1.7 * r_hole, 1.7 * r_hole))
                if sq in last:
                    Color(0.98, 0.85, 0.45, 0.9)
                    Line(circle=(cx, cy, r_piece + dp(5)), width=dp(2))
        pending = self.pending() or {}
        for f in FILES:
            for rank in range(1, 6):
                sq = f"{f}{rank}"
                cx, cy = self.point(sq)
                if sq in (pending.get("from"), pending.get("to")):  # held: Confirm?
                    Color(0.91, 0.69, 0.29, 1)
                    Line(circle=(cx, cy, r_piece + dp(7)), width=dp(3))
                owner = m.owner(sq)
                if owner is not None and not (self.moving and self._moving
                                              and self._moving[0] == sq):
                    draw_piece(cx, cy, r_piece, owner, self.marks)
                if sq in winning:
                    Color(1.0, 0.80, 0.20, 1)
                    Line(circle=(cx, cy, r_piece + dp(6)), width=dp(4))
                if sq == m.selected:
                    Color(0.35, 0.85, 0.45, 1)
                    Line(circle=(cx, cy, r_piece + dp(4)), width=dp(3.5))
                elif sq in movable:
                    Color(0.35, 0.85, 0.45, 0.55)
                    Line(circle=(cx, cy, r_piece + dp(3)), width=dp(1.5))
                if sq in targets:
                    Color(0.35, 0.85, 0.45, 0.9)
                    rr = r_hole * 0.45
                    Ellipse(pos=(cx - rr, cy - rr), size=(2 * rr, 2 * rr))
        if self.moving and self._moving is not None:  # on top of the others while it moves
            owner = m.owner(self._moving[0])
            if owner is not None:
                px, py, grow = self.piece_pos(self._moving[0])
                draw_piece(px, py, r_piece * grow, owner, self.marks)

    # touch ------------------------------------------------------------------------------------
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
        if m.selected is not None and m.selected != before:
            self.clear_explanation()
        elif before is not None and m.selected is None and sq != before:
            self.explain_refusal({"type": "move", "from": before, "to": sq})
        elif before is None:
            phase = (m.view or {}).get("phase")
            owner = m.owner(sq)
            seat = self.session.viewer if self.session is not None else -1
            if phase == "move" and owner is None and self.session is not None \
                    and self.session.my_turn:
                self.explain("Tap one of your pieces (ringed), then a green dot")
            elif phase == "move" and owner == seat and self.session is not None \
                    and self.session.my_turn:
                self.explain("That piece has no free point next to it")
            elif phase == "move" and owner is not None and owner != seat and seat >= 0 \
                    and self.session is not None and self.session.my_turn:
                self.explain("That piece is not yours: tap one of your pieces (ringed)")
            else:
                cmd_kind = {"type": "place", "to": sq} if phase != "move" else \
                    {"type": "move", "from": sq, "to": sq}
                self.explain_refusal(cmd_kind)
        return True
