"""Tedoku rules (placeholder until implemented)."""

from __future__ import annotations

from core.api import Game


class TedokuGame(Game):
    name = "tedoku"


GAME = TedokuGame()
