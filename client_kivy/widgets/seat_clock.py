"""Clocks on the game screen's player chips and the "Hand to a bot" buttons for abandoned
seats (online games with time rules). The logic is in :mod:`client_kivy.vm.clocks`; this
module only shows it. :class:`SeatClocks` belongs to one game screen: it ticks once a second
while the screen is shown and its Clock event is cancelled when the screen is left or torn
down."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from client_kivy.vm import clocks
from client_kivy.widgets.common import IVORY, GButton

URGENT_BG = (0.80, 0.24, 0.20, 1)
CALM_BG = (0, 0, 0, 0.28)


class SeatClockLabel(Label):
    """A seat's time left, e.g. ``0:23``; urgent: ``!0:07``, bold, on red."""

    urgent = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        kw.setdefault("size_hint", (None, None))
        kw.setdefault("size", (dp(64), dp(30)))
        kw.setdefault("font_size", sp(16))
        kw.setdefault("color", IVORY)
        kw.setdefault("pos_hint", {"center_y": 0.5})
        super().__init__(**kw)
        with self.canvas.before:
            self._bg_color = Color(0, 0, 0, 0)
            self._bg = RoundedRectangle(pos=self.pos, size=self.size, radius=[dp(8)])
        self.bind(pos=self._redraw, size=self._redraw, text=self._redraw, urgent=self._redraw)

    def _redraw(self, *_: Any) -> None:
        self._bg.pos, self._bg.size = self.pos, self.size
        self._bg_color.rgba = (URGENT_BG if self.urgent else CALM_BG) if self.text else (0, 0, 0, 0)
        self.bold = self.urgent
        self.width = dp(64) if self.text else 0
        self.opacity = 1 if self.text else 0


class SeatClocks:
    """One screen's clocks: a :class:`SeatClockLabel` on each chip, a box of "Hand to a bot"
    buttons in the panel (``inner``, before the game's buttons)."""

    def __init__(self, screen: Any, session: Any) -> None:
        self.screen = screen
        self.session = session
        self.labels: list[SeatClockLabel] = []
        for chip in screen.chips:
            label = SeatClockLabel()
            chip.add_widget(label)
            self.labels.append(label)
        # empty (no seat to hand over) it takes no room: minimum_height only follows children
        self.box = BoxLayout(orientation="vertical", size_hint_y=None, height=0, spacing=dp(6))
        self.box.bind(minimum_height=self.box.setter("height"))
        inner, actions = screen.ids.inner, screen.ids.actions
        index = next((i for i, w in enumerate(inner.children) if w == actions), 0)
        inner.add_widget(self.box, index=index + 1)  # just above the game's buttons
        self.buttons: dict[int, GButton] = {}
        self._key: tuple[int, ...] = ()
        self._event: Any = None
        self.start()

    def start(self) -> None:
        if self._event is None and self.session is not None:
            self._event = Clock.schedule_interval(self.refresh, 1.0)
        self.refresh()

    def stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None

    def detach(self) -> None:
        """Cancel the tick and remove every widget this put on the screen."""
        self.stop()
        for label in self.labels:
            if label.parent is not None:
                label.parent.remove_widget(label)
        if self.box.parent is not None:
            self.box.parent.remove_widget(self.box)
        self.box.clear_widgets()
        self.labels, self.buttons, self.session = [], {}, None

    def refresh(self, *_: Any) -> None:
        s = self.session
        if s is None:
            return
        for seat, label in enumerate(self.labels):
            label.text, label.urgent = clocks.seat_clock(s, seat)
        seats = tuple(seat for seat in range(len(s.players)) if clocks.can_hand_to_bot(s, seat))
        if seats != self._key:
            self._key = seats
            self.box.clear_widgets()
            self.buttons = {}
            for seat in seats:
                b = GButton(text=f"Hand to a bot: {s.player_name(seat)}", size_hint_y=None,
                            height=dp(52))
                b.bind(on_release=lambda _b, k=seat: self.hand_to_bot(k))
                self.box.add_widget(b)
                self.buttons[seat] = b

    def hand_to_bot(self, seat: int) -> None:
        """Ask the server; a refusal (``too_early`` and its reason) comes back as the
        session's message, which the screen shows in red."""
        if self.session is not None:
            self.session.replace_with_bot(seat)
