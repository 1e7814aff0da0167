"""Tedoku: the 9x9 sheet with sectors; the card's row/column/sector lit; a ghost of the
chosen shape (green where legal, red where not); shape chips, rotate, flip, place, skip."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from client_kivy.vm.tedoku import (
    BASE,
    DIE_NAMES,
    ROWS,
    SHAPE_NAMES,
    TedokuModel,
    card_cells,
    card_text,
    cell_name,
    parse_cell,
)
from client_kivy.widgets.board import BoardWidget, draw_text
from client_kivy.widgets.common import BRASS, IVORY, MUTED, FlowGrid, GButton, GToggle, WrapLabel

PAPER = (0.97, 0.95, 0.88, 1)
INK = (0.16, 0.22, 0.42, 1)


def grid_origin(x0: float, y0: float, side: float,
                labels: bool) -> tuple[float, float, float, float]:
    """Lower-left corner of the grid, cell size and label margin of a sheet drawn at x0, y0."""
    margin = side * 0.07 if labels else 0
    # the outer lines are thick: keep their whole width on the paper (right and top too)
    cs = (side - margin - dp(3)) / 9
    edge = margin if labels else dp(1.5)
    return x0 + edge, y0 + (margin * 0.15 if labels else dp(1.5)), cs, margin


# A tint per shape, so that each drawing stands apart from the one beside it (all in ink
# colours dark enough on the paper; the colour-blind palette needs no more, each drawing
# is also framed).
SHAPE_INK = {"O": (0.16, 0.22, 0.42, 1), "I": (0.10, 0.42, 0.45, 1),
             "T": (0.45, 0.22, 0.50, 1), "L": (0.55, 0.30, 0.12, 1),
             "S": (0.18, 0.42, 0.20, 1), "B1": (0.50, 0.18, 0.25, 1),
             "B2": (0.50, 0.18, 0.25, 1), "B4": (0.50, 0.18, 0.25, 1)}


def draw_drawings(gx: float, gy: float, cs: float, drawings: list[Any]) -> None:
    """Each drawing (``{"shape", "cells"}`` of the view's history) in its shape's ink, with
    a paper-coloured frame round it: drawings side by side read as separate shapes."""
    for d in drawings:
        cells = {parse_cell(c) for c in d.get("cells") or []}
        if not cells:
            continue
        Color(*SHAPE_INK.get(str(d.get("shape")), INK))
        for r, c in cells:
            Rectangle(pos=(gx + c * cs + cs * 0.06, gy + (8 - r) * cs + cs * 0.06),
                      size=(cs * 0.88, cs * 0.88))
            # join the squares of one drawing: fill the gap to a neighbour of the same one
            if (r, c + 1) in cells:
                Rectangle(pos=(gx + c * cs + cs * 0.94, gy + (8 - r) * cs + cs * 0.06),
                          size=(cs * 0.12, cs * 0.88))
            if (r + 1, c) in cells:
                Rectangle(pos=(gx + c * cs + cs * 0.06, gy + (8 - r) * cs - cs * 0.06),
                          size=(cs * 0.88, cs * 0.12))


def draw_sheet(x0: float, y0: float, side: float, sheet: list[str], lit: set[str],
               labels: bool, lab: float, drawings: list[Any] | None = None) -> float:
    """Draw a sheet; returns the cell size. Labels take a margin on the left and top.
    With ``drawings`` (the view's history) each drawing is shown in its shape's colour."""
    gx, gy, cs, margin = grid_origin(x0, y0, side, labels)
    drawn = {parse_cell(c) for d in drawings or [] for c in d.get("cells") or []}
    Color(0, 0, 0, 0.3)
    RoundedRectangle(pos=(x0 + dp(2), y0 - dp(4)), size=(side, side), radius=[dp(8)])
    Color(*PAPER)
    RoundedRectangle(pos=(x0, y0), size=(side, side), radius=[dp(8)])
    for r in range(9):
        for c in range(9):
            x, y = gx + c * cs, gy + (8 - r) * cs
            name = cell_name(r, c)
            ch = sheet[r][c] if r < len(sheet) and c < len(sheet[r]) else "."
            if name in lit:
                Color(1.0, 0.86, 0.35, 0.45)
                Rectangle(pos=(x, y), size=(cs, cs))
            if ch == "#" and (r, c) not in drawn:
                Color(*INK)
                Rectangle(pos=(x + cs * 0.08, y + cs * 0.08), size=(cs * 0.84, cs * 0.84))
            elif ch == "*":
                Color(0.2, 0.55, 0.85, 1)
                Rectangle(pos=(x + cs * 0.08, y + cs * 0.08), size=(cs * 0.84, cs * 0.84))
    if drawings:
        draw_drawings(gx, gy, cs, drawings)
    Color(0.55, 0.55, 0.5, 1)
    for k in range(10):
        w = dp(2.4) if k % 3 == 0 else dp(0.8)
        if k % 3 == 0:
            Color(0.25, 0.25, 0.25, 1)
        else:
            Color(0.6, 0.6, 0.55, 1)
        Line(points=[gx + k * cs, gy, gx + k * cs, gy + 9 * cs], width=w)
        Line(points=[gx, gy + k * cs, gx + 9 * cs, gy + k * cs], width=w)
    if labels:
        for r in range(9):
            draw_text(ROWS[r], x0 + margin / 2, gy + (8 - r) * cs + cs / 2, lab,
                      (0.3, 0.3, 0.3, 1), True)
            draw_text(str(r + 1), gx + r * cs + cs / 2, gy + 9 * cs + margin * 0.42, lab,
                      (0.3, 0.3, 0.3, 1), True)
    return cs


class TedokuSheet(BoardWidget):
    gated = False  # the ghost and "Place here" already confirm a drawing

    def __init__(self, **kw: Any) -> None:
        self.model = TedokuModel()
        self._side_key: Any = None
        self._box: Any = None
        self._more: Any = None
        self.misfit_reason = ""
        super().__init__(**kw)

    def update_model(self, view: Any, legal: list[Any]) -> None:
        viewer = self.session.viewer if self.session is not None else 0
        if viewer < 0:
            viewer = 0
        self.model.update(view or {}, legal, viewer)

    def geometry(self) -> tuple[float, float, float, float, float]:
        """x0, y0, side of the sheet; gx, gy lower-left of the grid... as (x0, y0, side, gx,
        gy, cs) packed: returns x0, y0, side and stores the grid in self.grid."""
        side = min(self.width, self.height) - dp(8)
        x0 = self.center_x - side / 2
        y0 = self.center_y - side / 2
        gx, gy, cs, _m = grid_origin(x0, y0, side, True)
        return x0, y0, side, gx, gy, cs  # type: ignore[return-value]

    def cell_center(self, cell: str) -> tuple[float, float]:
        _x0, _y0, _side, gx, gy, cs = self.geometry()  # type: ignore[misc]
        r, c = ROWS.index(cell[0]), int(cell[1:]) - 1
        return gx + c * cs + cs / 2, gy + (8 - r) * cs + cs / 2

    def cell_at(self, x: float, y: float) -> str | None:
        _x0, _y0, _side, gx, gy, cs = self.geometry()  # type: ignore[misc]
        if x < gx or y < gy:
            return None
        c = int((x - gx) // cs)
        r = 8 - int((y - gy) // cs)
        if 0 <= r < 9 and 0 <= c < 9:
            return cell_name(r, c)
        return None

    def draw(self) -> None:
        m = self.model
        me = m.me()
        x0, y0, side, gx, gy, cs = self.geometry()  # type: ignore[misc]
        lit = card_cells(m.view.get("card")) if m.view.get("outcome") is None else set()
        draw_sheet(x0, y0, side, list(me.get("sheet") or []), lit, True, self.label_size(),
                   list(me.get("history") or []))
        ghost = m.ghost()
        if ghost:
            ok = m.ghost_command() is not None
            for r, c in ghost:
                if 0 <= r < 9 and 0 <= c < 9:
                    x, y = gx + c * cs, gy + (8 - r) * cs
                    if ok:  # fits: a solid square with a tick-like inner frame
                        Color(0.2, 0.75, 0.35, 0.75)
                        Rectangle(pos=(x + cs * 0.05, y + cs * 0.05), size=(cs * 0.9, cs * 0.9))
                        Color(1, 1, 1, 0.9)
                        Line(rectangle=(x + cs * 0.2, y + cs * 0.2, cs * 0.6, cs * 0.6),
                             width=dp(1.6))
                    else:  # does not fit: hatched and crossed (shape, not colour alone)
                        Color(0.9, 0.25, 0.2, 0.45)
                        Rectangle(pos=(x + cs * 0.05, y + cs * 0.05), size=(cs * 0.9, cs * 0.9))
                        Color(0.55, 0.05, 0.05, 0.95)
                        Line(points=[x + cs * 0.15, y + cs * 0.15, x + cs * 0.85, y + cs * 0.85],
                             width=dp(2.2))
                        Line(points=[x + cs * 0.15, y + cs * 0.85, x + cs * 0.85, y + cs * 0.15],
                             width=dp(2.2))

    def on_touch_up(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        cell = self.cell_at(*touch.pos)
        if cell is None or not self.model.legal:
            return False
        self.model.tap(cell)
        self.changed()
        return True

    def _then_changed(self, act: Callable[..., None], *args: Any) -> bool:
        """A control's handler: ``act`` on the model, then :meth:`changed`; True (the event
        is handled: no later handler of the button runs)."""
        act(*args)
        self.changed()
        return True

    def changed(self) -> None:
        self._redraw()
        self._side_key = None
        if self._box is not None:
            self.side_widgets(self._box, self._more)

    # -- controls ----------------------------------------------------------------------------------
    def side_widgets(self, box: Any, more: Any = None) -> None:
        """The card, die and turn, the shapes and the buttons in ``box``; the score, the
        tier and the others' sheets there too, or in ``more`` (a phone's More sheet)."""
        self._box, self._more = box, more
        m = self.model
        v = m.view
        key = (json.dumps(v, sort_keys=True), len(m.legal), m.shape, m.rotation, m.flipped,
               m.anchor, more is None)
        if key == self._side_key:
            return
        self._side_key = key
        box.clear_widgets()
        aside = box if more is None else more
        if more is not None:
            more.clear_widgets()
        turn = f"{v.get('turn', 0)}/{v.get('turns', 20)}"
        die = DIE_NAMES.get(v.get("die") or "", "-")
        if more is None:
            top = BoxLayout(size_hint_y=None, height=dp(64), spacing=dp(8))
            top.add_widget(CardFace(text=card_text(v.get("card")), sub="card"))
            top.add_widget(CardFace(text=die, sub="die"))
            top.add_widget(CardFace(text=turn, sub="turn"))
            box.add_widget(top)
        else:  # a phone: one line, so the shapes and Place here stay in view
            box.add_widget(WrapLabel(text=f"Card {card_text(v.get('card'))}  ·  die {die}  ·  "
                                          f"turn {turn}", font_size=sp(16), bold=True))
        me = m.me()
        score = me.get("score") or {}
        line = (f"Score {score.get('total', 0)}  ·  sectors {score.get('sectors', 0)} · rows "
                f"{score.get('rows', 0)} · cols {score.get('cols', 0)}")
        if v.get("options", {}).get("bonus"):
            line += f" · bonus {score.get('bonus', 0)}"
        aside.add_widget(WrapLabel(text=line, font_size=sp(15)))
        tier = v.get("tier")
        if tier:
            final = "Final: " if tier.get("final") else "Now: "
            aside.add_widget(WrapLabel(
                text=f"{final}{tier.get('label', '')} ({tier.get('range', '')})",
                font_size=sp(16), bold=True, color=BRASS))
        if m.legal:
            shapes = m.shapes()
            # (a phone: three abreast, so that Place here is in view under the sheet)
            grid = FlowGrid(cell_width=dp(118) if more is None else dp(100), max_cols=4,
                            spacing=dp(6))
            for s in shapes:
                t = ShapeChip(text=SHAPE_NAMES[s], group=f"tedoku-shape-{id(self)}",
                              state="down" if s == m.shape else "normal", value=s,
                              cells=[list(rc) for rc in BASE[s]], ink=SHAPE_INK.get(s, INK),
                              compact=more is not None)
                t.bind(on_press=lambda w: self._then_changed(m.choose, w.value))
                grid.add_widget(t)
            box.add_widget(grid)
            # (a phone: the buttons in the shapes' grid, fewer rows)
            row = FlowGrid(cell_width=dp(120), max_cols=2, spacing=dp(6)) if more is None \
                else grid
            rot = GButton(text="Rotate", bg=(1, 1, 1, 0.14), fg=IVORY)
            rot.bind(on_release=lambda *_: self._then_changed(m.rotate))
            flip = GButton(text="Flip", bg=(1, 1, 1, 0.14), fg=IVORY)
            flip.bind(on_release=lambda *_: self._then_changed(m.flip))
            row.add_widget(rot)
            row.add_widget(flip)
            cmd = m.ghost_command()
            place = GButton(text="Place here" if cmd else ("Tap the sheet" if m.anchor is None
                                                           else "Does not fit"),
                            enabled=cmd is not None)
            place.bind(on_release=lambda *_: self.place())
            row.add_widget(place)
            if m.anchor is not None and cmd is None:
                misfit = m.misfit_command()
                why = ("it runs off the sheet" if misfit is None else
                       (self.session.why_not(misfit) if self.session is not None else ""))
                why = why or "it is not one of the drawings allowed now"
                for kind, word in (("row:", "row "), ("col:", "column "), ("sector:", "sector ")):
                    why = why.replace(kind, word)
                self.misfit_reason = f"Does not fit: {why[:1].lower() + why[1:]}"
            else:
                self.misfit_reason = ""
            if m.can_skip():
                skip = GButton(text="Skip (no room)", bg=(0.8, 0.3, 0.25, 1), fg=IVORY)
                skip.bind(on_release=lambda *_: self.send({"type": "skip"}))
                row.add_widget(skip)
            if row is not grid:
                box.add_widget(row)
            self.place_button = place
            if self.misfit_reason:
                why_label = WrapLabel(text=self.misfit_reason, font_size=sp(15),
                                      color=(1, 0.62, 0.5, 1))
                box.add_widget(why_label)
                Clock.schedule_once(lambda *_: scroll_into_view(why_label), 0)
        others = m.others()
        if others:
            strip = BoxLayout(size_hint_y=None, height=dp(120), spacing=dp(8))
            for p in others:
                mini = MiniSheet(sheet=list(p.get("sheet") or []),
                                 title=self._name(int(p.get("seat", 0))),
                                 score=(p.get("score") or {}).get("total", 0),
                                 placed=bool(p.get("placed")))
                strip.add_widget(mini)
            aside.add_widget(strip)

    def _name(self, seat: int) -> str:
        if self.session is not None:
            return str(self.session.player_name(seat))
        return f"Player {seat + 1}"

    def place(self) -> None:
        cmd = self.model.ghost_command()
        if cmd is not None:
            self.model.anchor = None
            self.send(cmd)


SHAPE_GROUP = "shape-picture"
"""The canvas group of a shape chip's picture (the tests count its squares)."""


class ShapeChip(GToggle):
    """A shape to draw, as a chip: the shape itself in small squares (its cells, in its
    ink on a slip of paper) and its name beside it."""

    cells = ListProperty([])
    """The shape's cells, [row, column] (``BASE``: as the rolled shape lies, unturned)."""
    ink = ListProperty(list(INK))
    compact = BooleanProperty(False)
    """A phone's chip, three abreast: a smaller picture and name (the name still whole)."""
    PICTURE = dp(40)
    """The picture's side: the text starts after it (``COMPACT_PICTURE`` when compact)."""
    COMPACT_PICTURE = dp(28)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, cells=self._draw, ink=self._draw,
                  compact=self._fit)
        self._fit()

    def _fit(self, *_: Any) -> None:
        side = self.COMPACT_PICTURE if self.compact else self.PICTURE
        self.padding = [side + dp(10), 0, dp(4), 0]
        if self.compact:
            self.font_size = sp(14)
        self._draw()

    def picture_rect(self) -> tuple[float, float, float, float]:
        """Where the picture is: x, y, width, height (in the chip's frame: ``pos``)."""
        side = min(self.COMPACT_PICTURE if self.compact else self.PICTURE, self.height - dp(10))
        # (from x, y and size: a callback of ``pos`` may see the cached centre before it moved)
        return self.x + dp(7), self.y + (self.height - side) / 2, side, side

    def _draw(self, *_: Any) -> None:
        self.canvas.after.clear()
        if not self.cells:
            return
        rows = 1 + max(r for r, _ in self.cells)
        cols = 1 + max(c for _, c in self.cells)
        x, y, w, h = self.picture_rect()
        cs = min(w / max(cols, 1), h / max(rows, 1), dp(11))
        ox = x + (w - cs * cols) / 2
        oy = y + (h - cs * rows) / 2
        with self.canvas.after:
            Color(*PAPER)
            RoundedRectangle(pos=(x, y), size=(w, h), radius=[dp(5)], group=SHAPE_GROUP)
            Color(*self.ink)
            for r, c in self.cells:
                Rectangle(pos=(ox + c * cs + cs * 0.06, oy + (rows - 1 - r) * cs + cs * 0.06),
                          size=(cs * 0.88, cs * 0.88), group=SHAPE_GROUP)


class CardFace(Widget):
    def __init__(self, text: str, sub: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.text, self.sub = text, sub
        self.bind(pos=self._draw, size=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        with self.canvas:
            Color(*PAPER)
            RoundedRectangle(pos=self.pos, size=self.size, radius=[dp(10)])
            draw_text(self.text, self.center_x, self.center_y + dp(6), sp(18), INK, True)
            draw_text(self.sub, self.center_x, self.y + dp(11), sp(12), (0.4, 0.4, 0.4, 1))


class MiniSheet(Widget):
    def __init__(self, sheet: list[str], title: str, score: int, placed: bool, **kw: Any) -> None:
        super().__init__(**kw)
        self.sheet, self.title, self.score, self.placed = sheet, title, score, placed
        self.bind(pos=self._draw, size=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        side = min(self.width, self.height - dp(20))
        if side <= 0:
            return
        with self.canvas:
            draw_sheet(self.center_x - side / 2, self.y, side, self.sheet, set(), False, 0)
            mark = " ✓" if self.placed else ""
            draw_text(f"{self.title}: {self.score}{mark.replace('✓', '(drawn)')}",
                      self.center_x, self.top - dp(9), sp(12), IVORY if not self.placed else MUTED)


def scroll_into_view(widget: Any) -> None:
    """Scroll the panel holding ``widget`` so that it shows (the reason a drawing does not
    fit, under the buttons, on a phone whose panel scrolls)."""
    from kivy.uix.scrollview import ScrollView

    sv = widget.parent
    while sv is not None and sv is not sv.parent and not isinstance(sv, ScrollView):
        sv = sv.parent
    if isinstance(sv, ScrollView) and widget.parent is not None:
        sv.scroll_to(widget, padding=dp(4), animate=False)
