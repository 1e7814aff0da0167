"""The base of every bot: the :class:`Bot` interface, :class:`RandomBot` (every game's
``"random"`` level) and :func:`answer_draw_offer`. The bot modules import this module, and
the registry of levels (:mod:`core.ai.bots`) imports them: no import cycle.

A bot is honest: it is given only ``view = game.view(state, seat)``. To search it asks
``game.resample(view, seat, rng)`` for a complete state consistent with that view (exact for
perfect-information games such as Teeko) and works on that through the game API.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

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


__all__ = ["Bot", "RandomBot", "answer_draw_offer"]
