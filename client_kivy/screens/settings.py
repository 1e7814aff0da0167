"""Settings: your name (the first seat of a new game, the guest name online), how fast the
computer plays and how long it may think, sound, animation speed, the colour-blind palette,
larger text and confirm-before-move. What each means is in ``client_kivy/vm/settings.py``."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.uix.screenmanager import Screen

from client_kivy.vm.settings import parse_choice

CHOICES = {"pace": "bot_pace", "think": "bot_think", "sound": "sound", "motion": "motion",
           "colour_blind": "colour_blind", "text_scale": "text_scale",
           "confirm_moves": "confirm_moves"}
"""Each row of choice chips (its id in settings.kv) and the setting it sets."""
SHOWN_DEFAULTS = {"bot_pace": 1.0, "bot_think": 8.0}
"""What the chips show for a setting never chosen (the session's own defaults)."""


class SettingsScreen(Screen):
    def on_pre_enter(self, *_: Any) -> None:
        s = App.get_running_app().settings
        self.ids.name.text = str(s.get("name", "") or "")
        for row, key in CHOICES.items():
            current = s.get(key, SHOWN_DEFAULTS.get(key))
            for toggle in self.ids[row].children:
                toggle.state = "down" if parse_choice(key, toggle.value) == current else "normal"

    def set_name(self, text: str) -> None:
        App.get_running_app().settings.set("name", text.strip())

    def set_value(self, key: str, value: str) -> None:
        """A chip was chosen: the setting is stored and takes effect (text size at once,
        the rest from the next move or the next game)."""
        app = App.get_running_app()
        app.settings.set(key, parse_choice(key, value))
        if key == "text_scale":
            app.apply_text_scale()

    def back(self) -> None:
        self.set_name(self.ids.name.text)
        App.get_running_app().show("home")
