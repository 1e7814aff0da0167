"""Teeko under perfect play, for players: hints (the value of a position and its best plies)
and the analysis of a game ply by ply, read from a solved table (:mod:`core.teeko_table`).

Values are the mover's: ``{"result": "win", "plies": 5, "text": "win in 5"}``, ``"loss"``
likewise, or ``"draw"``. They are those of the game without a draw rule: the optional
repetition rule and move cap are not taken into account (a forced win never repeats a
position, but a long one can run past a move cap).
"""

from __future__ import annotations

from typing import Any, Final

from core.api import Obj
from core.teeko import (
    GAME,
    PATTERN_SETS,
    SQUARE_NAMES,
    TeekoState,
    parse_square,
)
from core.teeko_table import (
    DRAW,
    Table,
    TableError,
    code_json,
    load,
    preference,
)

LOST_KINDS: Final[dict[tuple[str, str], str]] = {
    ("win", "draw"): "win_to_draw",
    ("win", "loss"): "win_to_loss",
    ("draw", "loss"): "draw_to_loss",
}
"""The ways a ply can lose value: ``(result before, result after)`` -> the mark."""


class NoTable(Exception):
    """The table of a pattern set is not built (or cannot be read); ``reason`` says which."""

    def __init__(self, squares: str, reason: str) -> None:
        super().__init__(reason)
        self.squares = squares
        self.reason = reason


def result_of(code: int) -> str:
    """``"win"``, ``"loss"`` or ``"draw"`` for a table byte."""
    if code == DRAW:
        return "draw"
    return "win" if code % 2 else "loss"


def table_for(squares: str) -> Table:
    """The table of ``squares``; raises :class:`NoTable` saying why there is none."""
    if squares not in PATTERN_SETS:
        raise NoTable(squares, f"unknown pattern set {squares!r}")
    try:
        table = load(squares)
    except TableError as exc:
        raise NoTable(squares, f"the Teeko table of {squares!r} is unusable: {exc}") from exc
    if table is None:
        raise NoTable(
            squares,
            f"the Teeko table of {squares!r} is not built "
            f"(./gamenight solve teeko --squares {squares})",
        )
    return table


def ply_text(frm: int, to: int) -> str:
    """``"c3"`` for a placement (``frm`` -1), ``"b2-c3"`` for a step."""
    return SQUARE_NAMES[to] if frm < 0 else f"{SQUARE_NAMES[frm]}-{SQUARE_NAMES[to]}"


def ply_command(frm: int, to: int) -> Obj:
    """The command of a ply."""
    if frm < 0:
        return {"type": "place", "to": SQUARE_NAMES[to]}
    return {"type": "move", "from": SQUARE_NAMES[frm], "to": SQUARE_NAMES[to]}


def ranked_plies(table: Table, mover: int, opp: int) -> list[tuple[int, int, int]]:
    """The mover's plies ``(from, to, value)``, best first (ties in square order)."""
    return sorted(table.children(mover, opp), key=lambda c: -preference(c[2]))


def hint(state: TeekoState) -> Obj:
    """The value of the position for the side to move and its best plies:
    ``{"value": {...}, "best": [{"move": "b2-c3", "command": {...}}, ...], "moves": [{"move",
    "value"} for every ply, best first]}``. Raises :class:`NoTable`, ``ValueError`` when the
    game is over or not started. For casual games only: the callers check that."""
    if state.over or not state.started:
        raise ValueError("no hint: the game is not running")
    table = table_for(state.squares)
    mover, opp = state.pieces(state.turn), state.pieces(1 - state.turn)
    plies = ranked_plies(table, mover, opp)
    value = table.code(mover, opp)
    return {
        "seat": state.turn,
        "value": code_json(value),
        "best": [
            {"move": ply_text(f, t), "command": ply_command(f, t)}
            for f, t, v in plies
            if v == value
        ],
        "moves": [{"move": ply_text(f, t), "value": code_json(v)} for f, t, v in plies],
    }


def analyse(events: list[Obj]) -> Obj:
    """The analysis of a Teeko game given its events (as stored; other games' events and
    table events are skipped): per ply the mover's value before and after, the best plies
    when the ply lost value, and a summary per seat. Raises :class:`NoTable`, and
    ``ValueError`` for events that are not a Teeko game."""
    state: Any = GAME.initial()
    table: Table | None = None
    plies: list[Obj] = []
    counted = [0, 0]
    kept = [0, 0]
    best = [0, 0]
    lost_counts: list[dict[str, int]] = [{k: 0 for k in LOST_KINDS.values()} for _ in (0, 1)]
    for event in events:
        kind = event.get("type")
        if kind == "start":
            state = GAME.evolve(state, event)
            table = table_for(state.squares)
            continue
        if kind not in ("placed", "moved"):
            if kind in ("game_over", "resigned", "draw_offered", "draw_declined",
                        "draw_accepted"):
                state = GAME.evolve(state, event)
            continue
        if table is None or not isinstance(state, TeekoState):
            raise ValueError("a ply before the start event")
        seat = int(event["seat"])
        mover, opp = state.pieces(seat), state.pieces(1 - seat)
        frm = parse_square(event["from"]) if kind == "moved" else -1
        to = parse_square(event["to"])
        before = table.code(mover, opp)
        plies_here = ranked_plies(table, mover, opp)
        after = next((v for f, t, v in plies_here if f == frm and t == to), None)
        if after is None:
            raise ValueError(f"ply {len(plies) + 1}: {ply_text(frm, to)} is not legal")
        lost = LOST_KINDS.get((result_of(before), result_of(after)))
        entry: Obj = {
            "ply": len(plies) + 1,
            "seat": seat,
            "move": ply_text(frm, to),
            "before": code_json(before),
            "after": code_json(after),
            "best_move": after == before,
            "lost": lost,
        }
        if after != before:
            entry["best"] = [ply_text(f, t) for f, t, v in plies_here if v == before]
        plies.append(entry)
        counted[seat] += 1
        kept[seat] += lost is None
        best[seat] += after == before
        if lost is not None:
            lost_counts[seat][lost] += 1
        state = GAME.evolve(state, event)
    summary = [
        {
            "seat": s,
            "plies": counted[s],
            "kept": kept[s],
            "best": best[s],
            "lost": lost_counts[s],
            "accuracy": round(kept[s] / counted[s], 4) if counted[s] else None,
            "best_share": round(best[s] / counted[s], 4) if counted[s] else None,
        }
        for s in (0, 1)
    ]
    if not isinstance(state, TeekoState) or not state.started:
        raise ValueError("not a Teeko game (no start event)")
    start = table.code(0, 0) if table is not None else DRAW
    return {
        "game": "teeko",
        "squares": state.squares,
        "start": code_json(start),
        "plies": plies,
        "summary": summary,
        "note": "values are for the player to move, under perfect play, without the "
        "repetition rule or move cap; accuracy is the share of plies that kept the value "
        "(win, draw or loss), best_share the share that kept the exact distance",
    }


__all__ = ["NoTable", "analyse", "hint", "ranked_plies", "result_of", "table_for"]
