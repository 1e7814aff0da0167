"""Fallback board: every legal command as a button (any game stays playable)."""

from __future__ import annotations

import json
from typing import Any

from kivy.metrics import dp, sp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView

from client_kivy.widgets.common import GButton


def command_label(cmd: dict[str, Any]) -> str:
    rest = " ".join(str(v) for k, v in cmd.items() if k != "type")
    return f"{cmd.get('type', '?')} {rest}".strip()


class GenericBoard(BoxLayout):
    square = False  # (a list of buttons)

    def __init__(self, **kw: Any) -> None:
        super().__init__(orientation="vertical", spacing=dp(6), **kw)
        self.session: Any = None
        self.info = Label(font_size=sp(14), size_hint_y=0.45, halign="left", valign="top")
        self.info.bind(size=lambda w, s: setattr(w, "text_size", s))
        self.add_widget(self.info)
        self.scroll = ScrollView()
        self.grid = GridLayout(cols=3, spacing=dp(6), size_hint_y=None)
        self.grid.bind(minimum_height=self.grid.setter("height"))
        self.scroll.add_widget(self.grid)
        self.add_widget(self.scroll)
        self._key: Any = None

    def refresh(self, view: Any, legal: list[Any]) -> None:
        text = json.dumps(view, separators=(", ", ": "))
        self.info.text = text[:1500]
        key = json.dumps(legal, sort_keys=True)
        if key == self._key:
            return
        self._key = key
        self.grid.clear_widgets()
        for c in legal:
            if c.get("type") in ("resign", "offer_draw", "accept_draw", "decline_draw"):
                continue
            b = GButton(text=command_label(c), font_size=sp(15))
            b.bind(on_release=lambda _b, cmd=c: self.session.send(cmd))
            self.grid.add_widget(b)
