"""Settings remembered between runs (server address, player name, token, how the app looks
and sounds), a JSON file; and what each setting means for the screens (no Kivy here)."""

from __future__ import annotations

import json
import os
from typing import Any

DEFAULTS: dict[str, Any] = {
    "server": "",
    "name": "",
    "token": "",
    "username": "",
    "last_game": "teeko",
    "level": 2,
    "sound": True,
    "motion": "normal",
    "colour_blind": False,
    "text_scale": 1.0,
    "confirm_moves": False,
}

MOTION_SPEEDS: dict[str, float] = {"off": 0.0, "normal": 1.0, "fast": 0.5}
"""Animation speed: how long a move's animation takes, times its normal length (0: none)."""
TEXT_SCALES: tuple[float, ...] = (1.0, 1.15, 1.3)
"""Larger text: the app's text size, times the device's own text size."""


class Settings:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(directory, "gamenight_settings.json")
        self.data: dict[str, Any] = dict(DEFAULTS)
        self.load()

    def load(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as f:
                stored = json.load(f)
            if isinstance(stored, dict):
                self.data.update(stored)
        except (OSError, ValueError):
            pass

    def save(self) -> None:
        os.makedirs(self.directory, exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value
        self.save()

    # -- what the settings mean ----------------------------------------------------------
    def motion_factor(self) -> float:
        """Times the normal length of an animation: 0 (off), 0.5 (fast) or 1 (normal)."""
        return MOTION_SPEEDS.get(str(self.get("motion", "normal")), 1.0)

    def text_scale(self) -> float:
        try:
            scale = float(self.get("text_scale", 1.0))
        except (TypeError, ValueError):
            return 1.0
        return min(max(scale, 1.0), 1.6)

    def flag(self, key: str) -> bool:
        """A switch (sound, colour_blind, confirm_moves) as a bool."""
        return bool(self.get(key, DEFAULTS.get(key, False)))


def parse_choice(key: str, value: str) -> Any:
    """A choice chip's value (a string in the .kv) as the setting's type."""
    default = DEFAULTS.get(key)
    if isinstance(default, bool):
        return value.lower() in ("1", "true", "on", "yes")
    if key in ("bot_pace", "bot_think", "text_scale"):
        return float(value)
    if isinstance(default, int):
        return int(value)
    return value
