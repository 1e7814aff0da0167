"""The ``perfect`` Teeko level: plays from the solved table (:mod:`core.teeko_table`).

It wins as fast as it can, and when it must lose it resists as long as it can. Among the
plies of equal value it prefers those that leave the opponent the most ways to go wrong
(replies that throw away the opponent's result: a win or a draw), then the most replies
that are not the opponent's best; what is still tied is drawn with the seeded ``rng``, so
it does not always play the same game. It accepts a draw offer when the table says it
cannot win. Without a table for the game's pattern set it says so (a warning in the log,
once per pattern set, and :attr:`PerfectBot.fallback`) and plays like ``max``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.base import Bot, answer_draw_offer
from core.api import Obj
from core.teeko import GAME, TeekoState
from core.teeko_analysis import NoTable, ply_command, ranked_plies, result_of, table_for
from core.teeko_table import Table, preference

LOG: Final = logging.getLogger("core.ai.teeko_perfect")
FALLBACK_LEVEL: Final = "max"
_WARNED: set[str] = set()


def opponent_errors(table: Table, mover: int, opp: int) -> tuple[int, int]:
    """For the position where ``mover`` is to move: (replies that lose its result, replies
    that are not its best). Zero, zero when the position is over."""
    plies = table.children(mover, opp)
    if not plies:
        return 0, 0
    best = max(preference(v) for _, _, v in plies)
    best_result = result_of(max(plies, key=lambda c: preference(c[2]))[2])
    result_errors = sum(1 for _, _, v in plies if result_of(v) != best_result)
    others = sum(1 for _, _, v in plies if preference(v) < best)
    return result_errors, others


def perfect_ply(table: Table, mover: int, opp: int, rng: Random) -> tuple[int, int, int]:
    """The ply ``(from, to, value)`` the perfect level plays (see the module docstring)."""
    plies = ranked_plies(table, mover, opp)
    if not plies:
        raise ValueError("no legal ply: the game is over")
    top = preference(plies[0][2])
    best = [p for p in plies if preference(p[2]) == top]
    if len(best) > 1:
        scored: list[tuple[tuple[int, int], tuple[int, int, int]]] = []
        for frm, to, v in best:
            if v == 1:  # wins at once: nothing to compare
                scored.append(((0, 0), (frm, to, v)))
                continue
            moved = mover | 1 << to if frm < 0 else mover ^ (1 << frm) | 1 << to
            scored.append((opponent_errors(table, opp, moved), (frm, to, v)))
        most = max(s for s, _ in scored)
        best = [p for s, p in scored if s == most]
    return best[rng.randrange(len(best))]


class PerfectBot(Bot):
    """Perfect play from the table; ``fallback`` is why it is playing like ``max`` (or "")."""

    def __init__(self, level: str = "perfect") -> None:
        super().__init__(GAME, level)
        self.fallback = ""

    def _table(self, squares: str) -> Table | None:
        try:
            table = table_for(squares)
        except NoTable as exc:
            self.fallback = f"{exc.reason}; playing like {FALLBACK_LEVEL!r}"
            if squares not in _WARNED:
                _WARNED.add(squares)
                LOG.warning("perfect Teeko bot: %s", self.fallback)
            return None
        self.fallback = ""
        return table

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        state = GAME.resample(view, seat, rng)
        if not isinstance(state, TeekoState):
            raise TypeError("not a Teeko state")
        table = self._table(state.squares)
        if table is None:
            from core.ai.teeko_mcts import TeekoBot  # the fallback: the strongest search

            return TeekoBot(FALLBACK_LEVEL).choose(view, seat, rng, should_stop, progress)
        legal = GAME.legal_commands(state, seat)
        offered = state.draw_offer == 1 - seat
        mine, theirs = state.pieces(seat), state.pieces(1 - seat)
        if state.turn != seat or state.over:
            # Not our move: answer the draw offer (accepted when we cannot win).
            agree = False
            if offered and not state.over:
                agree = result_of(table.code(theirs, mine)) != "loss"
            answer = answer_draw_offer(legal, agree)
            if answer is None:
                raise ValueError(f"seat {seat} has nothing to answer")
            return answer
        if offered and result_of(table.code(mine, theirs)) != "win":
            accept = answer_draw_offer(legal, True)
            if accept is not None:
                return accept
        frm, to, _ = perfect_ply(table, mine, theirs, rng)
        if progress is not None:
            progress(1.0)
        return ply_command(frm, to)


__all__ = ["PerfectBot", "opponent_errors", "perfect_ply"]
