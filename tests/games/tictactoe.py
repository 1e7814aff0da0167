"""Tic-tac-toe: a fifth game defined outside ``core``, the proof that a game is a plug-in.

Two seats mark the squares ``a1``..``c3`` of a 3x3 grid in turn (seat 0 first, X); three of
a seat's marks in a row, column or diagonal win, a full grid is a draw. A seat may resign.
Nothing is hidden.

Registered with ``core.register(GAME)`` or by naming this module in ``GAMENIGHT_GAMES``
(``GAMENIGHT_GAMES=tests.games.tictactoe``): nothing of the server, the leagues, the pages or
the app names it; they draw it with the generic ``grid`` drawing of :meth:`board`.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

from core import wording
from core.api import (
    Game,
    IllegalMoveError,
    Obj,
    OptionsError,
    Outcome,
    check_seat,
    require_obj,
)

SQUARES = [f"{c}{r}" for r in (1, 2, 3) for c in "abc"]
"""Square names by index: a1 b1 c1 a2 ... c3."""

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class State:
    """Cells (None or the seat that marked it), whose turn, and the outcome when over."""

    def __init__(self) -> None:
        self.started = False
        self.cells: list[int | None] = [None] * 9
        self.turn = 0
        self.outcome: Outcome | None = None

    def copy(self) -> State:
        s = State()
        s.started, s.cells, s.turn, s.outcome = self.started, list(self.cells), self.turn, \
            self.outcome
        return s


class TicTacToe(Game):
    """The game (attributes set in ``__init__``: :class:`core.api.Game` is compiled)."""

    def __init__(self) -> None:
        self.name = "tictactoe"
        self.min_seats = 2
        self.max_seats = 2

    def options(self, raw: Any) -> Obj:
        raw = {} if raw is None else raw
        if not isinstance(raw, dict) or any(k != "seats" for k in raw):
            raise OptionsError("tic-tac-toe has no options")
        if raw.get("seats", 2) != 2:
            raise OptionsError("tic-tac-toe is played by exactly 2 seats")
        return {"seats": 2}

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        return [{"type": "start", "options": self.options(options)}]

    def initial(self) -> State:
        return State()

    def evolve_game(self, state: Any, event: Obj) -> State:
        # (the server's events, the table's and an organiser's result, are the base
        # class's: Game.evolve, which calls end() for a result)
        s: State = state.copy()
        t = event["type"]
        if t == "start":
            s.started = True
        elif t == "marked":
            s.cells[SQUARES.index(event["square"])] = event["seat"]
            s.turn = 1 - event["seat"]
            s.outcome = self._judge(s.cells)
        elif t == "resigned":
            s.outcome = Outcome([1 - event["seat"]], "resign")
        else:
            raise ValueError(f"unknown event {t!r}")
        return s

    def end(self, state: Any, outcome: Outcome) -> State:
        s: State = state.copy()
        s.outcome = outcome
        return s

    @staticmethod
    def _judge(cells: list[int | None]) -> Outcome | None:
        for a, b, c in LINES:
            if cells[a] is not None and cells[a] == cells[b] == cells[c]:
                return Outcome([cells[a]], "line")
        return Outcome([], "full") if None not in cells else None

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        s: State = state
        seat = check_seat(self, s, seat)
        cmd = require_obj(command)
        if s.outcome is not None:
            raise IllegalMoveError("game_over", "the game is over")
        if cmd["type"] == "resign":
            return [{"type": "resigned", "seat": seat}]
        if seat != s.turn:
            raise IllegalMoveError("not_your_turn", f"it is seat {s.turn}'s turn")
        if cmd["type"] != "mark":
            raise IllegalMoveError("malformed", "send mark (with a square) or resign")
        square = cmd.get("square")
        if square not in SQUARES:
            raise IllegalMoveError("malformed", "'mark' needs \"square\": a1 to c3")
        if s.cells[SQUARES.index(square)] is not None:
            raise IllegalMoveError("illegal", f"{square} is marked already")
        return [{"type": "marked", "seat": seat, "square": square}]

    def to_act(self, state: Any) -> list[int]:
        s: State = state
        return [] if s.outcome is not None or not s.started else [s.turn]

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        s: State = state
        if s.outcome is not None:
            return []
        marks: list[Obj] = []
        if seat == s.turn:
            marks = [{"type": "mark", "square": q} for q, c in zip(SQUARES, s.cells,
                                                                  strict=True) if c is None]
        return [*marks, {"type": "resign"}]

    def outcome(self, state: Any) -> Outcome | None:
        s: State = state
        return s.outcome

    def view(self, state: Any, viewer: int) -> Obj:
        s: State = state
        return {
            "game": self.name,
            "started": s.started,
            "cells": list(s.cells),
            "turn": s.turn if s.outcome is None else None,
            "to_act": self.to_act(s),
            "outcome": s.outcome.to_json() if s.outcome is not None else None,
        }

    def redact(self, event: Obj, viewer: int) -> Obj:
        return event

    def secrets(self, state: Any, viewer: int) -> list[str]:
        return []

    def resample(self, view: Obj, viewer: int, rng: Random) -> State:
        s = State()
        s.started = bool(view["started"])
        s.cells = list(view["cells"])
        s.outcome = Outcome.from_json(view["outcome"]) if view["outcome"] else None
        s.turn = view["turn"] if view["turn"] is not None else 0
        return s

    def seats(self, state: Any) -> int:
        return 2

    # -- the plug-in API: what the server, leagues, pages and app know of it --

    def title(self) -> str:
        return "Tic-tac-toe"

    def blurb(self) -> str:
        return "Three in a row on a 3x3 grid."

    def seat_labels(self, seats: int) -> list[str]:
        return ["X", "O"][:seats]

    def board(self) -> Obj:
        return {"drawing": "grid", "rows": 3, "cols": 3, "cells": "cells",
                "marks": ["X", "O"], "step": "", "sheet": False}

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        if event.get("type") == "marked":
            return f"{wording.seat_name(names, event.get('seat'))} marked {event['square']}"
        return None  # (the start, a resignation, the server's events: the shared words)


GAME = TicTacToe()
