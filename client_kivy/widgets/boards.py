"""Which board widget draws which game (a command-list board for anything not yet drawn)."""

from __future__ import annotations

from typing import Any

import core


def make_board(game: str) -> Any:
    """The board for ``game``, drawn and animated as the settings say."""
    board = _board(game)
    from kivy.app import App

    settings = getattr(App.get_running_app(), "settings", None)
    if settings is not None:
        board.motion_factor = settings.motion_factor()
        board.marks = settings.flag("colour_blind")
        board.gate.enabled = settings.flag("confirm_moves")
    return board


def _board(game: str) -> Any:
    """The widget of the drawing the game's ``board()`` names; the generic board for a
    drawing the app does not have."""
    g = core.GAMES.get(game)
    drawing = str(g.board().get("drawing", "")) if g is not None else ""
    if drawing == "teeko":
        from client_kivy.widgets.teeko_board import TeekoBoard

        return TeekoBoard()
    if drawing == "tiku":
        from client_kivy.widgets.tiku_board import TikuBoard

        return TikuBoard()
    if drawing == "teka":
        from client_kivy.widgets.teka_table import TekaTable

        return TekaTable()
    if drawing == "tedoku":
        from client_kivy.widgets.tedoku_sheet import TedokuSheet

        return TedokuSheet()
    from client_kivy.widgets.generic_board import GenericBoard

    return GenericBoard()
