"""Buttons with a drawn picture instead of typed signs: the replay's transport (first, back a
hand, back a move, play / pause, on a move, on a hand, last), drawn with canvas instructions
so they are sharp at every size and density. Each keeps its name in words (``label``)."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle, Triangle
from kivy.metrics import dp
from kivy.properties import StringProperty

from client_kivy.widgets.common import GButton

ICON_NAMES = {"first": "First move", "back": "Back a hand", "prev": "Back a move",
              "play": "Play", "pause": "Pause", "next": "On a move", "forward": "On a hand",
              "last": "Last move"}
"""What each icon does, in words: the button's ``label`` (the name a reader gives it)."""

ICON_GROUP = "icon"
"""The canvas group of an icon's instructions (the tests look for it)."""


def draw_icon(icon: str, cx: float, cy: float, size: float) -> None:
    """The picture of ``icon`` centred at cx, cy, ``size`` high (colour already set)."""
    h = size / 2

    def tri(x: float, direction: int, half: float) -> None:
        """A triangle from x pointing right (1) or left (-1), ``half`` high either side."""
        tip = x + direction * half * 1.6
        Triangle(points=[x, cy - half, x, cy + half, tip, cy], group=ICON_GROUP)

    bar = max(dp(2.5), size * 0.13)
    if icon == "play":
        tri(cx - h * 0.7, 1, h)
    elif icon == "pause":
        for x in (cx - h * 0.55, cx + h * 0.55 - bar * 1.4):
            Rectangle(pos=(x, cy - h), size=(bar * 1.4, 2 * h), group=ICON_GROUP)
    elif icon in ("next", "prev"):
        d = 1 if icon == "next" else -1
        tri(cx - d * h * 0.45, d, h * 0.7)
    elif icon in ("forward", "back"):
        d = 1 if icon == "forward" else -1
        tri(cx - d * h * 1.1, d, h * 0.75)
        tri(cx - d * h * 0.05, d, h * 0.75)
    elif icon in ("first", "last"):
        d = 1 if icon == "last" else -1
        tri(cx - d * h * 0.75, d, h * 0.8)
        edge = cx + d * h * 0.6
        Rectangle(pos=(edge if d > 0 else edge - bar, cy - h * 0.8), size=(bar, h * 1.6),
                  group=ICON_GROUP)


class IconButton(GButton):
    """A finger-sized button showing ``icon`` drawn (``ICON_NAMES``) in its text colour; the
    words of what it does in ``label`` (no text drawn)."""

    icon = StringProperty("")
    label = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, icon=self._draw, fg=self._draw,
                  enabled=self._draw)
        self._draw()

    def on_icon(self, *_: Any) -> None:
        self.label = ICON_NAMES.get(self.icon, self.icon)

    def _draw(self, *_: Any) -> None:
        self.canvas.after.clear()
        if not self.icon:
            return
        with self.canvas.after:
            Color(*(self.fg if self.enabled else (0.45, 0.45, 0.42, 1)))
            draw_icon(self.icon, self.x + self.width / 2, self.y + self.height / 2,
                      min(dp(22), self.height * 0.42, self.width * 0.32))
