"""Table set-up: per-game seat counts, option choices and default players (no Kivy)."""

from __future__ import annotations

from typing import Any

import core

Obj = dict[str, Any]

BLURBS = {
    "teeko": "Four pieces each on a 5x5 board: place them, then slide. "
             "Four in a row or on the corners of a square wins.",
    "tiku": "Slide your pieces across a 6x6 board, laying discs behind them. "
            "First to lay every disc wins.",
    "tedoku": "Everyone draws the same tetromino into a 9x9 sheet, near the card's row, "
              "column or sector. Fill sectors, rows and columns.",
    "teka": "Four players, two partnerships: bid, name trumps and take tricks. "
            "First side to 104 wins.",
}

# (option key, label, [(value, label), ...]); the first choice is the default.
OPTION_CHOICES: dict[str, list[tuple[str, str, list[tuple[Any, str]]]]] = {
    "teeko": [
        ("squares", "Squares that win", [("axis", "Any size"), ("tilted", "+ tilted"),
                                         ("classic", "2x2 only")]),
        ("repetition", "Draw on threefold repetition", [(False, "Off"), (True, "On")]),
        ("move_cap", "Move limit", [(0, "None"), (200, "200 plies")]),
    ],
    "tiku": [
        ("diagonal", "One diagonal slide per piece", [(False, "Off"), (True, "On")]),
        ("points", "Match of rounds for points", [(False, "One game"), (True, "To 20"),
                                                  ("to10", "To 10")]),
    ],
    "tedoku": [
        ("bonus", "Bonus shapes (1x1, 2x1, 2x2)", [(False, "Off"), (True, "On")]),
    ],
    "teka": [
        ("draw_for_partners", "Partners and first dealer", [(False, "As seated"),
                                                            (True, "Draw cards")]),
        ("target", "Match to", [(104, "104 points"), (52, "52 points")]),
    ],
}


def seat_range(game: str) -> tuple[int, int]:
    g = core.GAMES[game]
    return g.min_seats, g.max_seats


def bot_levels(game: str) -> list[str]:
    """Bot levels offered for ``game``, weakest first ("random" only when nothing else)."""
    try:
        from core.ai.bots import LEVELS

        levels = list(LEVELS.get(game, ["random"]))
    except ImportError:
        levels = ["random"]
    real = [lv for lv in levels if lv != "random"]
    return real or levels


def default_level(game: str) -> str:
    levels = bot_levels(game)
    return levels[min(1, len(levels) - 1)]


def default_players(game: str, count: int | None = None, name: str = "") -> list[Obj]:
    lo, _hi = seat_range(game)
    n = count or lo
    level = default_level(game)
    players: list[Obj] = [{"name": name or "You", "kind": "human", "level": level}]
    for i in range(1, n):
        players.append({"name": f"Bot {i}" if n > 2 else "Computer", "kind": "bot",
                        "level": level})
    return players


def option_choices(game: str) -> list[tuple[str, str, list[tuple[Any, str]]]]:
    return OPTION_CHOICES.get(game, [])


def validated_options(game: str, raw: Obj, seats: int) -> Obj:
    g = core.GAMES[game]
    raw = dict(raw)
    if raw.get("points") == "to10":
        raw["points"], raw["target"] = True, 10
    if g.min_seats != g.max_seats:
        raw["seats"] = seats
    return g.options(raw)
