"""Teka rules (placeholder until implemented)."""

from __future__ import annotations

from core.api import Game


class TekaGame(Game):
    name = "teka"


GAME = TekaGame()
