"""The app's short sounds (``client_kivy/sounds/*.wav``, made by tools/make_sounds.py), played
with Kivy's ``SoundLoader`` when the Sound setting is on.

``played`` lists what was played (the tests read it); a device without an audio provider
plays nothing and says nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from client_kivy.vm.feedback import CUES

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sounds")


def sound_path(name: str) -> str:
    return os.path.join(HERE, name + ".wav")


class Sounds:
    def __init__(self, enabled: Callable[[], bool]) -> None:
        self.enabled = enabled
        self.played: list[str] = []
        self._loaded: dict[str, Any] = {}

    def _load(self, name: str) -> Any:
        if name not in self._loaded:
            sound = None
            try:
                from kivy.core.audio import SoundLoader

                sound = SoundLoader.load(sound_path(name))
            except Exception:  # no audio provider on this device
                sound = None
            self._loaded[name] = sound
        return self._loaded[name]

    def play(self, name: str | None) -> bool:
        """Play the cue ``name`` if sound is on; ``True`` if it was played."""
        if name is None or name not in CUES or not self.enabled():
            return False
        self.played.append(name)
        sound = self._load(name)
        if sound is not None:
            try:
                sound.stop()
                sound.play()
            except Exception:
                pass
        return True
