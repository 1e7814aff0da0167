"""Board widget base: draws the view JSON with canvas instructions; taps become commands."""

from __future__ import annotations

from typing import Any

from kivy.animation import Animation
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle, Triangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty
from kivy.uix.widget import Widget

from client_kivy.vm.confirm import MoveGate

MARK_GROUP = "cb-mark"
"""Canvas group of the colour-blind marks (shapes on pieces and discs; the tests count them)."""

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


def draw_piece(cx: float, cy: float, r: float, seat: int, mark: bool = False) -> None:
    """A glossy stone: ivory for seat 0, ebony for seat 1; with ``mark`` (the colour-blind
    palette) also a shape: a ring on ivory, a square on ebony."""
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
    if mark:
        draw_mark(cx, cy, r, seat, (0.25, 0.2, 0.15, 1) if seat == 0 else (0.95, 0.9, 0.8, 1))


def draw_mark(cx: float, cy: float, r: float, seat: int, colour: tuple[float, ...],
              ring: bool = True) -> None:
    """The colour-blind mark of ``seat``: a ring (or, with ``ring`` false, where a ring means
    something else, a triangle) for the first, a square for the second."""
    Color(*colour, group=MARK_GROUP)
    if seat == 0 and ring:
        Line(circle=(cx, cy, r * 0.42), width=max(dp(1.5), r * 0.1), group=MARK_GROUP)
    elif seat == 0:
        d = r * 0.45
        Triangle(points=[cx - d, cy - d * 0.8, cx + d, cy - d * 0.8, cx, cy + d],
                 group=MARK_GROUP)
    else:
        d = r * 0.36
        Rectangle(pos=(cx - d, cy - d), size=(2 * d, 2 * d), group=MARK_GROUP)


def lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


class BoardWidget(Widget):
    """Base of the board widgets: ``session`` gives ``view``/``legal``; ``model`` interprets.

    Motion: when a view differs from the one before by one move, :meth:`plan_motion` says how
    long its animation lasts and remembers what moves; ``travel`` then runs from 0 to 1 (a
    Kivy ``Animation`` on this widget) and :meth:`draw` places the moving things part way.
    The model is updated at once: taps act on the new position while it is still moving.
    :meth:`stop_motion` (the screen is left) cancels it; nothing else is scheduled.
    """

    session = ObjectProperty(None, allownone=True)
    view = ObjectProperty(None, allownone=True)
    travel = NumericProperty(1.0)
    """Progress of the running animation, 1 at rest."""
    motion_factor = NumericProperty(1.0)
    """The animation speed setting: 0 off, 0.5 fast, 1 normal."""
    marks = BooleanProperty(False)
    """The colour-blind palette: pieces and discs carry shapes, not colour alone."""
    gated = True
    square = True
    """Whether the drawing is square (a phone gives it the window's width upright, its
    height on its side)."""
    """Whether confirm-before-move applies to this board's commands (Tedoku: "Place here"
    is already the confirmation)."""

    def __init__(self, **kw: Any) -> None:
        self.gate = MoveGate()
        super().__init__(**kw)
        self.bind(pos=self._redraw, size=self._redraw, view=self._redraw,
                  travel=self._redraw, marks=self._redraw)

    def refresh(self, view: Any, legal: list[Any]) -> None:
        before = self.view
        self.view = None  # force the property to fire
        self.update_model(view, legal)
        self.gate.still_legal(legal)
        seconds = self.plan_motion(before or {}, view or {}) if before else 0.0
        if seconds > 0 and self.motion_factor > 0:
            Animation.cancel_all(self, "travel")
            self.travel = 0.0
            Animation(travel=1.0, d=seconds * self.motion_factor, t="out_quad").start(self)
        elif seconds != 0:  # nothing to animate, or a jump (replay): drawn in place at once
            self.stop_motion()
        self.view = view

    def update_model(self, view: Any, legal: list[Any]) -> None:
        pass

    def plan_motion(self, before: Any, after: Any) -> float:
        """Remember what moves from ``before`` to ``after``; the animation's length in
        seconds: 0 when nothing changed (a running animation goes on), below 0 when the
        position changed by more than one move (everything is drawn in place at once)."""
        return 0.0

    def stop_motion(self) -> None:
        """Cancel the animation: everything is drawn where it ends."""
        Animation.cancel_all(self)
        self.travel = 1.0

    @property
    def moving(self) -> bool:
        return bool(self.travel < 1.0)

    def _redraw(self, *_: Any) -> None:
        self.canvas.clear()
        if not self.view:
            return
        with self.canvas:
            self.draw()

    def draw(self) -> None:
        raise NotImplementedError

    def send(self, command: Any) -> None:
        """Send a move; with confirm-before-move on it is held until confirmed (the game
        screen shows Confirm and Cancel; the same tap again confirms too)."""
        if self.session is None or command is None:
            return
        if self.gated:
            command = self.gate.offer(command)
            if command is None:  # held: the screen shows it, the board marks it
                self.session.notify()
                self._redraw()
                return
        self.session.send(command)

    def confirm_pending(self) -> None:
        command = self.gate.confirm()
        if command is not None and self.session is not None:
            self.session.send(command)

    def cancel_pending(self) -> None:
        if self.gate.cancel() and self.session is not None:
            self.session.notify()
            self._redraw()

    def pending(self) -> dict[str, Any] | None:
        return self.gate.pending

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
        # (a phone: about 15 dp, readable; the coordinates were about 8 px high at 11 sp)
        return float(max(sp(13), min(self.width, self.height) / 24.0))
