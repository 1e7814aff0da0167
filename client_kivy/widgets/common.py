"""Themed controls shared by every screen (their look is in theme.kv)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior, ToggleButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

# Palette: felt table, wood, brass and ivory.
FELT = (0.06, 0.24, 0.18, 1)
FELT_DARK = (0.035, 0.16, 0.12, 1)
PANEL = (0.02, 0.10, 0.08, 0.72)
BRASS = (0.91, 0.69, 0.29, 1)
IVORY = (0.96, 0.93, 0.85, 1)
MUTED = (0.72, 0.78, 0.72, 1)
RED = (0.80, 0.24, 0.20, 1)
GREEN_OK = (0.38, 0.78, 0.45, 1)


class GButton(ButtonBehavior, Label):
    """A rounded, finger-sized button."""

    bg = ColorProperty(BRASS)
    fg = ColorProperty((0.12, 0.08, 0.03, 1))
    radius = NumericProperty(14)
    enabled = BooleanProperty(True)

    def on_touch_down(self, touch):  # type: ignore[no-untyped-def]
        if not self.enabled or self.disabled:
            return False
        return super().on_touch_down(touch)

    def on_text(self, _w, text):  # type: ignore[no-untyped-def]
        # Roboto has no card-suit symbols; DejaVu Sans has
        if any(ch in text for ch in SUIT_CHARS):
            self.font_name = "DejaVuSans"


SUIT_CHARS = "\u2660\u2665\u2666\u2663"


class GToggle(ToggleButtonBehavior, Label):
    """A rounded toggle (choice chips: game kind, human/bot, level)."""

    radius = NumericProperty(14)
    value = StringProperty("")


class Panel(BoxLayout):
    """A translucent dark card on the felt."""

    bg = ColorProperty(PANEL)
    radius = NumericProperty(16)


class WrapLabel(Label):
    """A label that wraps to its width and is as high as its lines (never cut, never "..").
    A text with a card's suit ("Cleo played 10\u2665") is drawn in DejaVu Sans, as the
    table draws its cards: Roboto has no suit symbols."""

    font_name: str  # (Label's property, declared for mypy only: no value, no new attribute)
    _font_before: str | None = None
    """The font the label had before a text with a suit switched it (None: not switched)."""

    def on_text(self, _w: Any, text: str) -> None:
        if any(ch in text for ch in SUIT_CHARS):
            if self._font_before is None and self.font_name != "DejaVuSans":
                self._font_before = str(self.font_name)
                self.font_name = "DejaVuSans"
        elif self._font_before is not None:
            self.font_name, self._font_before = self._font_before, None


class FlowGrid(GridLayout):
    """A grid whose column count follows its width: as many ``cell_width`` columns as fit
    (at most ``max_cols``), rows balanced (7 buttons on a phone: 4 + 3, not 5 + 2)."""

    cell_width = NumericProperty(dp(96))
    max_cols = NumericProperty(8)
    cols: int  # (GridLayout's property, declared for mypy only: no value, so no new attribute)

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("cols", 1)
        kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.bind(minimum_height=self.setter("height"))
        self.bind(width=self._reflow, cell_width=self._reflow, max_cols=self._reflow,
                  children=self._reflow)

    def _reflow(self, *_: Any) -> None:
        n = max(1, len(self.children))
        sx = self.spacing[0] if isinstance(self.spacing, (list, tuple)) else self.spacing
        pad = self.padding[0] + self.padding[2] if len(self.padding) == 4 else 0
        fit = int((self.width - pad + sx) // (self.cell_width + sx)) if self.width > 1 else 1
        fit = max(1, min(int(self.max_cols), fit, n))
        rows = -(-n // fit)
        cols = -(-n // rows)
        if cols != self.cols:
            self.cols = cols


class Title(Label):
    pass


class Body(Label):
    pass


class ConfirmDialog(ModalView):
    """A question with two answers (Leave / Stay, Delete / Keep...): ``on_yes`` runs only on
    the first; Back (Escape) or a tap outside means no."""

    question = StringProperty("")
    detail = StringProperty("")
    yes_text = StringProperty("Yes")
    no_text = StringProperty("No")

    def __init__(self, question: str, on_yes: Callable[[], None], yes_text: str = "Yes",
                 no_text: str = "No", detail: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self.question, self.detail = question, detail
        self.yes_text, self.no_text = yes_text, no_text
        self._on_yes = on_yes

    def answer(self, yes: bool) -> None:
        self.dismiss(animation=False)
        if yes:
            self._on_yes()


def ask(question: str, on_yes: Callable[[], None], yes_text: str = "Yes", no_text: str = "No",
        detail: str = "") -> ConfirmDialog:
    dlg = ConfirmDialog(question, on_yes, yes_text, no_text, detail)
    dlg.open(animation=False)
    return dlg


class MoveList(ModalView):
    """The moves of a game so far, in notation, newest at the bottom (scrolled there), over
    the game or replay; Close, Back or a tap outside closes it. The layout is in theme.kv."""

    title = StringProperty("Moves")
    lines = ListProperty([])
    current = NumericProperty(-1)
    """In a replay: the line of the position shown (marked), -1 for none."""
    pick: Any = ObjectProperty(None, allownone=True)
    """In a replay: called with a line's number when it is tapped (the replay goes there)."""
    CHUNK = 30  # lines a label: one texture per chunk stays small

    def on_lines(self, *_: object) -> None:
        self._fill()

    def on_current(self, *_: object) -> None:
        self._fill()

    def _fill(self) -> None:
        box = self.ids.get("lines")
        if box is None:
            return
        box.clear_widgets()
        lines = list(self.lines) or ["No moves yet"]
        if 0 <= self.current < len(lines):
            lines[self.current] = "> " + lines[self.current]
        self._chunks: list[WrapLabel] = []
        tappable = self.pick is not None and bool(self.lines)
        for i in range(0, len(lines), self.CHUNK):
            part = lines[i:i + self.CHUNK]
            if tappable:  # each line a reference: a tap on it names its number
                part = [f"[ref={i + k}]{markup_escape(line)}[/ref]"
                        for k, line in enumerate(part)]
            label = WrapLabel(text="\n".join(part), halign="left", font_name="DejaVuSans",
                              markup=tappable)
            if tappable:
                label.bind(on_ref_press=self._picked)
            self._chunks.append(label)
            box.add_widget(label)
        from kivy.uix.widget import Widget

        box.add_widget(Widget())  # takes the space left under a short list
        scroll = self.ids.get("scroll")
        if scroll is not None:
            scroll.scroll_y = 0 if self.current < 0 else max(
                0.0, 1 - self.current / max(1, len(lines) - 1))

    def _picked(self, _label: Any, ref: str) -> None:
        if self.pick is not None and ref.isdigit():
            self.pick(int(ref))

    def line_point(self, line: int) -> tuple[Any, float, float]:
        """The label holding ``line`` and the middle of that line's text in the label's
        ``pos`` frame (where a finger taps it)."""
        label = self._chunks[line // self.CHUNK]
        label.texture_update()
        x1, y1, x2, y2 = label.refs[str(line)][0]
        tw, th = label.texture_size
        return (label, label.center_x - tw / 2 + (x1 + x2) / 2,
                label.center_y + th / 2 - (y1 + y2) / 2)

    def on_open(self) -> None:
        self._fill()


def markup_escape(text: str) -> str:
    """``text`` shown as it is inside Kivy markup."""
    return text.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")


def real_widget(widget: Any) -> Any:
    """The widget itself, not the weak proxy ``ids`` hands out (a widget moved from one box
    to another must stay referenced by its box; touch grabs compare identity)."""
    parent = widget.parent
    if parent is not None:
        for child in parent.children:
            if child == widget:
                return child
    return widget
