"""Tiku rules (placeholder until implemented)."""

from __future__ import annotations

from core.api import Game


class TikuGame(Game):
    name = "tiku"


GAME = TikuGame()
