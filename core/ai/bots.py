"""The registry of bots by game and level. The bot interface itself (:class:`Bot`,
:class:`RandomBot`, :func:`answer_draw_offer`) lives in :mod:`core.ai.base`, which the bot
modules import; it is re-exported here.

Levels per game are in :data:`LEVELS`; every game has ``"random"`` (a uniformly random legal
move, through the API only). A game adds its own levels with :func:`register`, or by adding
an entry to :data:`FACTORIES` below (a factory takes the level name and returns a bot).

Bots never resign and never offer a draw; when the opponent offers one, a bot answers it
(``accept_draw``, or ``decline_draw`` when it is not its turn; on its turn it declines simply
by playing a move).
"""

from __future__ import annotations

from collections.abc import Callable

from core import GAMES
from core.ai.base import Bot, RandomBot, answer_draw_offer

BotFactory = Callable[[str], Bot]
"""Makes the bot of one level (never ``"random"``, which :func:`make_bot` handles)."""


# The bot modules are imported when a level is first made: the registry (LEVELS) is read by
# the server and the app without loading every search.


def _teeko_bot(level: str) -> Bot:
    if level == "perfect":  # the solved table (core.teeko_table); falls back to "max"
        from core.ai.teeko_perfect import PerfectBot

        return PerfectBot(level)
    from core.ai.teeko_mcts import TeekoBot

    return TeekoBot(level)


def _tiku_bot(level: str) -> Bot:
    from core.ai.tiku_bot import TikuBot

    return TikuBot(level)


def _tedoku_bot(level: str) -> Bot:
    from core.ai.tedoku_bot import TedokuBot

    return TedokuBot(level)


def _teka_bot(level: str) -> Bot:
    from core.ai.teka_bot import TekaBot

    return TekaBot(level)


LEVELS: dict[str, list[str]] = {name: ["random"] for name in GAMES}
"""The levels of each game, weakest first."""
LEVELS["teeko"] = ["random", "easy", "medium", "hard", "max", "perfect"]

LEVELS["tiku"] = ["random", "easy", "medium", "hard"]
LEVELS["tedoku"] = ["random", "easy", "medium", "hard"]
LEVELS["teka"] = ["random", "easy", "medium", "hard", "expert"]

COMPILED_ONLY: dict[str, frozenset[str]] = {"teka": frozenset({"expert"})}
"""Per game, the levels that think too long on the pure-Python core to be offered on a
device running it (:func:`device_levels`). The server offers every level."""

FACTORIES: dict[str, BotFactory] = {
    "teeko": _teeko_bot,
    "tiku": _tiku_bot,
    "tedoku": _tedoku_bot,
    "teka": _teka_bot,
}
"""Per game, the factory of its levels other than ``"random"``."""


def register(game_name: str, levels: list[str], factory: BotFactory) -> None:
    """Add (or replace) a game's levels, weakest first, besides ``"random"``."""
    LEVELS[game_name] = ["random", *[lv for lv in levels if lv != "random"]]
    FACTORIES[game_name] = factory


def device_levels(game_name: str, compiled: bool | None = None) -> list[str]:
    """The levels worth offering on this device: all of :data:`LEVELS`, less those of
    :data:`COMPILED_ONLY` when the rules core runs as pure Python (``compiled`` defaults to
    :data:`core.COMPILED`)."""
    import core

    fast = core.COMPILED if compiled is None else compiled
    slow = COMPILED_ONLY.get(game_name, frozenset())
    return [lv for lv in LEVELS.get(game_name, ["random"]) if fast or lv not in slow]


TABLE_LEVELS: dict[str, frozenset[str]] = {"teeko": frozenset({"perfect"})}
"""Per game, the levels that play from a solved table (``core.teeko_table``): without the
table of the game's options they play like a searching level (:func:`missing_levels`)."""


def missing_levels(game_name: str, options: dict[str, object] | None = None) -> dict[str, str]:
    """The levels of :data:`TABLE_LEVELS` whose table is not here for these options, each
    with why (``core.teeko_analysis.NoTable.reason``); empty when every level can play as it
    should. Cheap after the first call: a table is opened once and kept."""
    wanted = TABLE_LEVELS.get(game_name, frozenset()) & set(LEVELS.get(game_name, []))
    if not wanted:
        return {}
    from core.teeko_analysis import NoTable, table_for

    squares = str((options or {}).get("squares", "axis"))
    try:
        table_for(squares)
    except NoTable as exc:
        return {level: exc.reason for level in sorted(wanted)}
    return {}


def make_bot(game_name: str, level: str) -> Bot:
    """The bot of ``level`` for ``game_name``. Raises ``ValueError`` for an unknown one."""
    if game_name not in GAMES:
        raise ValueError(f"unknown game {game_name!r}")
    levels = LEVELS.get(game_name, ["random"])
    if level not in levels:
        raise ValueError(f"unknown level {level!r} for {game_name}; one of {', '.join(levels)}")
    if level == "random":
        return RandomBot(GAMES[game_name], level)
    return FACTORIES[game_name](level)


__all__ = [
    "COMPILED_ONLY",
    "FACTORIES",
    "LEVELS",
    "TABLE_LEVELS",
    "Bot",
    "BotFactory",
    "RandomBot",
    "answer_draw_offer",
    "device_levels",
    "make_bot",
    "missing_levels",
    "register",
]
