"""Which board widget draws which game (a command-list board for anything not yet drawn)."""

from __future__ import annotations

from typing import Any


def make_board(game: str) -> Any:
    if game == "teeko":
        from client_kivy.widgets.teeko_board import TeekoBoard

        return TeekoBoard()
    from client_kivy.widgets.generic_board import GenericBoard

    return GenericBoard()
