"""Settings: your name (the first seat of a new game, the guest name online), how fast the
computer plays its moves and how long it may think."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.uix.screenmanager import Screen


class SettingsScreen(Screen):
    def on_pre_enter(self, *_: Any) -> None:
        s = App.get_running_app().settings
        self.ids.name.text = str(s.get("name", "") or "")
        pace = float(s.get("bot_pace", 1.0))
        think = float(s.get("bot_think", 8.0))
        for toggle in self.ids.pace.children:
            toggle.state = "down" if float(toggle.value) == pace else "normal"
        for toggle in self.ids.think.children:
            toggle.state = "down" if float(toggle.value) == think else "normal"

    def set_name(self, text: str) -> None:
        App.get_running_app().settings.set("name", text.strip())

    def set_value(self, key: str, value: str) -> None:
        App.get_running_app().settings.set(key, float(value))

    def back(self) -> None:
        self.set_name(self.ids.name.text)
        App.get_running_app().show("home")
