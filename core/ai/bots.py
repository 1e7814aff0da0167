"""The bot interface of all four games, and the registry of bots by game and level.

A bot is honest: it is given only ``view = game.view(state, seat)``. To search it asks
``game.resample(view, seat, rng)`` for a complete state consistent with that view (exact for
perfect-information games such as Teeko) and works on that through the game API.

Levels per game are in :data:`LEVELS`; every game has ``"random"`` (a uniformly random legal
move, through the API only). A game adds its own levels with :func:`register`, or by adding
an entry to :data:`FACTORIES` below (a factory takes the level name and returns a bot).

Bots never resign and never offer a draw; when the opponent offers one, a bot answers it
(``accept_draw``, or ``decline_draw`` when it is not its turn; on its turn it declines simply
by playing a move).
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from core import GAMES
from core.api import META_COMMANDS, Game, Obj


class Bot:
    """A player for one game. ``choose`` returns one legal command for ``seat``."""

    def __init__(self, game: Game, level: str) -> None:
        self.game = game
        self.level = level

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        """A legal command for ``seat`` given what it sees (``view``). ``should_stop`` is the
        caller's clock: when it returns True the bot answers with its best move so far.
        ``progress`` receives the share of the budget used (0..1) now and then."""
        raise NotImplementedError


def answer_draw_offer(legal: list[Obj], accept: bool) -> Obj | None:
    """The answer to a pending draw offer if ``legal`` holds one, else None."""
    wanted = "accept_draw" if accept else "decline_draw"
    for c in legal:
        if c["type"] == wanted:
            return c
    return None


class RandomBot(Bot):
    """A uniformly random legal move (meta commands excepted); works for every game."""

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        state = self.game.resample(view, seat, rng)
        legal = self.game.legal_commands(state, seat)
        moves = [c for c in legal if c["type"] not in META_COMMANDS]
        if progress is not None:
            progress(1.0)
        if moves:
            return rng.choice(moves)
        decline = answer_draw_offer(legal, False)
        if decline is not None:
            return decline
        raise ValueError(f"seat {seat} has no move to make")


BotFactory = Callable[[str], Bot]
"""Makes the bot of one level (never ``"random"``, which :func:`make_bot` handles)."""


def _teeko_bot(level: str) -> Bot:
    if level == "perfect":  # the solved table (core.teeko_table); falls back to "max"
        from core.ai.teeko_perfect import PerfectBot

        return PerfectBot(level)
    from core.ai.teeko_mcts import TeekoBot  # imported late: it imports this module

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
LEVELS["teka"] = ["random", "easy", "medium", "hard"]

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
