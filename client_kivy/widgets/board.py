"""Board widget base: draws the view JSON with canvas instructions; taps become commands."""

from __future__ import annotations

from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import ObjectProperty
from kivy.uix.widget import Widget

_TEXTURES: dict[tuple[Any, ...], Any] = {}


def text_texture(text: str, size: float, color: tuple[float, ...] = (1, 1, 1, 1),
                 bold: bool = False) -> Any:
    """A rendered text texture, cached (boards redraw often; text rarely changes)."""
    key = (text, round(size, 1), tuple(round(c, 3) for c in color), bold)
    tex = _TEXTURES.get(key)
    if tex is None:
        if len(_TEXTURES) > 2000:
            _TEXTURES.clear()
        tex = _TEXTURES[key] = _render_text(text, size, color, bold)
    return tex


def _render_text(text: str, size: float, color: tuple[float, ...], bold: bool) -> Any:
    font = "DejaVuSans" if any(ch in text for ch in "\u2660\u2665\u2666\u2663") else "Roboto"
    lab = CoreLabel(text=text, font_size=size, color=color, bold=bold and font == "Roboto",
                    font_name=font)
    lab.refresh()
    return lab.texture


def draw_text(text: str, cx: float, cy: float, size: float,
              color: tuple[float, ...] = (1, 1, 1, 1), bold: bool = False) -> None:
    tex = text_texture(text, size, color, bold)
    Color(1, 1, 1, 1)
    Rectangle(texture=tex, pos=(cx - tex.width / 2, cy - tex.height / 2), size=tex.size)


def draw_wood(x: float, y: float, w: float, h: float, radius: float) -> None:
    """A warm wooden slab with a darker rim and a few grain lines."""
    Color(0, 0, 0, 0.35)
    RoundedRectangle(pos=(x + dp(3), y - dp(5)), size=(w, h), radius=[radius])
    Color(0.42, 0.25, 0.12, 1)
    RoundedRectangle(pos=(x, y), size=(w, h), radius=[radius])
    inset = dp(6)
    Color(0.72, 0.50, 0.29, 1)
    RoundedRectangle(pos=(x + inset, y + inset), size=(w - 2 * inset, h - 2 * inset),
                     radius=[max(1.0, radius - inset)])
    Color(0.62, 0.41, 0.22, 0.45)
    for k in range(1, 12):
        yy = y + inset + (h - 2 * inset) * k / 12.0
        wob = dp(4) * ((k * 37) % 5 - 2)
        Line(bezier=[x + inset * 2, yy, x + w / 3, yy + wob, x + 2 * w / 3, yy - wob,
                     x + w - inset * 2, yy + wob / 2], width=dp(1.1))


def draw_piece(cx: float, cy: float, r: float, seat: int) -> None:
    """A glossy stone: ivory for seat 0, ebony for seat 1."""
    Color(0, 0, 0, 0.4)
    Ellipse(pos=(cx - r + dp(2), cy - r - dp(3)), size=(2 * r, 2 * r))
    if seat == 0:
        base, rim, hi = (0.93, 0.90, 0.82, 1), (0.70, 0.66, 0.58, 1), (1, 1, 1, 0.8)
    else:
        base, rim, hi = (0.16, 0.13, 0.12, 1), (0.05, 0.04, 0.04, 1), (1, 1, 1, 0.22)
    Color(*rim)
    Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))
    Color(*base)
    Ellipse(pos=(cx - r * 0.88, cy - r * 0.85), size=(1.76 * r, 1.76 * r))
    Color(*hi)
    Ellipse(pos=(cx - r * 0.5, cy + r * 0.15), size=(r * 0.55, r * 0.4))


class BoardWidget(Widget):
    """Base of the board widgets: ``session`` gives ``view``/``legal``; ``model`` interprets."""

    session = ObjectProperty(None, allownone=True)
    view = ObjectProperty(None, allownone=True)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._redraw, size=self._redraw, view=self._redraw)

    def refresh(self, view: Any, legal: list[Any]) -> None:
        self.view = None  # force the property to fire
        self.update_model(view, legal)
        self.view = view

    def update_model(self, view: Any, legal: list[Any]) -> None:
        pass

    def _redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if not self.view:
            return
        with self.canvas:
            self.draw()

    def draw(self) -> None:
        raise NotImplementedError

    def send(self, command: Any) -> None:
        if self.session is not None and command is not None:
            self.session.send(command)

    def explain(self, text: str) -> None:
        """Say on the game screen why a tap did nothing (the message line)."""
        if self.session is not None and text and self.session.message != text:
            self.session.message = text
            self.session.notify()

    def explain_refusal(self, command: Any) -> None:
        """A tap that sends nothing: say why ``command`` would be refused."""
        if self.session is not None:
            self.explain(self.session.why_not(command))

    def clear_explanation(self) -> None:
        if self.session is not None and self.session.message:
            self.session.message = ""
            self.session.notify()

    def label_size(self) -> float:
        return max(sp(11), min(self.width, self.height) / 28.0)
