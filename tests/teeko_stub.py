"""A stand-in for a solved 5x5 Teeko table in tests (a real one takes minutes to build)."""

from __future__ import annotations

from typing import Any

from core import teeko_table
from core.teeko import NEIGHBOURS, pattern_masks
from core.teeko_table import DRAW, plies_of, table_path


class StubTable:
    """Values exact up to a win in 1 (and a loss in 0 or 2 after a ply), a draw otherwise:
    enough to see the marks of a game analysis and the choices of the perfect bot."""

    def __init__(self, squares: str = "axis") -> None:
        self.pieces = 4
        self.cells = 25
        self.patterns = frozenset(pattern_masks(squares))
        self.neighbours = list(NEIGHBOURS)
        self.queries = 0

    def code(self, mover: int, opp: int) -> int:
        self.queries += 1
        if opp in self.patterns:
            return 0
        occupied = mover | opp
        if mover.bit_count() < self.pieces:
            if any(mover | 1 << t in self.patterns for t in range(25) if not occupied >> t & 1):
                return 1
            return DRAW
        for frm in range(25):
            if mover >> frm & 1:
                for t in range(25):
                    if NEIGHBOURS[frm] >> t & 1 and not occupied >> t & 1:
                        if mover & ~(1 << frm) | 1 << t in self.patterns:
                            return 1
        return DRAW

    def children(self, mover: int, opp: int) -> list[tuple[int, int, int]]:
        return plies_of(self, mover, opp)


def install(monkeypatch: Any, tmp_path: Any, squares: str = "axis") -> StubTable:
    """Make ``core.teeko_table.load(squares)`` answer with a :class:`StubTable`."""
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    stub = StubTable(squares)
    monkeypatch.setitem(teeko_table.opened(), str(table_path(squares)), stub)
    return stub


ANALYSED_PLIES = ["a1", "a5", "b1", "b5", "c1", "c5", "e3", "d5"]
"""Plies of a short game: on the stand-in table, ply 6 loses a draw and ply 7 a win."""


def finished_teeko_events(squares: str = "axis") -> list[dict[str, Any]]:
    """The events of a finished Teeko game (Black wins with d5)."""
    from random import Random

    import core

    game = core.GAMES["teeko"]
    rng = Random(0)
    events = game.start({"squares": squares}, rng)
    state = game.initial()
    for e in events:
        state = game.evolve(state, e)
    for to in ANALYSED_PLIES:
        for e in game.decide(state, state.turn, {"type": "place", "to": to}, rng):
            state = game.evolve(state, e)
            events.append(e)
    return events
