from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Ellipse, Line, PopMatrix, PushMatrix, Rotate, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from client_kivy.widgets.board import draw_piece, draw_text


class HomeScreen(Screen):
    footer = StringProperty("")
    resume_id = StringProperty("")
    resume_text = StringProperty("")

    def on_pre_enter(self, *_: Any) -> None:
        """Offer the last unfinished game kept on this tablet."""
        from kivy.app import App

        app = App.get_running_app()
        unfinished = [r for r in app.store.list() if not r.get("finished")]
        if unfinished:
            rec = unfinished[0]
            names = " v ".join(str(p.get("name", "?")) for p in rec.get("players", []))
            self.resume_id = str(rec["id"])
            self.resume_text = f"Continue {str(rec.get('game', '')).capitalize()}: {names}"
        else:
            self.resume_id, self.resume_text = "", ""
        self.footer = (f"Server: {app.settings.get('server')}" if app.settings.get("server")
                       else "")


class HomeDeco(Widget):
    """A little still life: a Teeko corner, a Tiku disc and two cards."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        r = min(self.height * 0.22, dp(34), self.width / 10.5)
        if r < dp(8):
            return
        cx, cy = self.center
        with self.canvas:
            # two fanned cards
            for _k, (dx, angle, label, red) in enumerate(((-r * 4.0, 14, "A\u2660", False),
                                                         (-r * 2.7, -6, "K\u2665", True))):
                PushMatrix()
                Rotate(angle=angle, origin=(cx + dx + r * 0.9, cy - r * 1.3))
                Color(0, 0, 0, 0.3)
                RoundedRectangle(pos=(cx + dx + dp(3), cy - r * 1.3 - dp(3)),
                                 size=(r * 1.8, r * 2.6), radius=[dp(8)])
                Color(0.97, 0.95, 0.9, 1)
                RoundedRectangle(pos=(cx + dx, cy - r * 1.3), size=(r * 1.8, r * 2.6),
                                 radius=[dp(8)])
                colour = (0.78, 0.1, 0.12, 1) if red else (0.08, 0.08, 0.1, 1)
                draw_text(label, cx + dx + r * 0.55, cy + r * 0.9, r * 0.6, colour, True)
                draw_text(label[-1], cx + dx + r * 1.0, cy - r * 0.3, r * 1.2, colour)
                PopMatrix()
            draw_piece(cx + r * 0.2, cy, r, 0)
            draw_piece(cx + r * 2.3, cy, r, 1)
            Color(0.91, 0.69, 0.29, 1)
            Line(circle=(cx + r * 4.4, cy, r * 0.9), width=dp(3))
            Color(0.55, 0.16, 0.14, 1)
            Ellipse(pos=(cx + r * 3.7, cy - r * 0.7), size=(r * 1.4, r * 1.4))
