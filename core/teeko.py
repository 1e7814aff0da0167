"""Teeko rules (placeholder until implemented)."""

from __future__ import annotations

from core.api import Game


class TeekoGame(Game):
    name = "teeko"


GAME = TeekoGame()
