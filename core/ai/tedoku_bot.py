"""Tedoku bot: places each shape by a sheet evaluation plus, from ``hard``, a one-turn
expectimax over the next card and die face (see docs/ai.md, section Tedoku).

The bot reads only its own seat's view: its sheet, the current card and die, the cards
already flipped (so it knows which cards may still come: every card not flipped yet, the
seven removed ones included since nobody knows which they are) and its unused bonus shapes.

Evaluation of a sheet (``evaluate``), all in 81-bit masks:

* points already scored (3 per sector, 1 per row and column);
* for every unfinished sector/row/column that can still be completed, its points times a
  completion estimate that falls with the number of empty cells and the turns left;
* dead cells: empty regions of fewer than four cells can never take a tetromino, so they
  are lost and the units through them are dead (no estimate); regions of 5-7 cells waste
  ``size % 4`` cells; a region of exactly four is fragile (one shape, one way);
* with bonus shapes, 2 points per unused bonus shape (they are kept unless using one gains
  more than that).

Levels: ``easy`` plays the best move of a simple count (filled cells per unit) with some
randomness, ``medium`` the best move of the full evaluation, ``hard`` the best after the
lookahead over the few best candidates of the evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.bots import Bot
from core.api import Obj
from core.tedoku import (
    BONUS_SHAPES,
    BY_CARD,
    CARDS,
    COL_MASKS,
    FULL,
    ROW_MASKS,
    SECTOR_MASKS,
    TETROMINOES,
    TURNS,
    cells_of,
    legal_placements,
    may_skip,
)
from core.tedoku import GAME as TEDOKU

UNIT_MASKS: Final[list[int]] = SECTOR_MASKS + ROW_MASKS + COL_MASKS
UNIT_POINTS: Final[list[int]] = [3] * 9 + [1] * 18
NOT_COL0: Final = FULL & ~COL_MASKS[0]
NOT_COL8: Final = FULL & ~COL_MASKS[8]
BONUS_VALUE: Final = 2.0


def popcount(x: int) -> int:
    return x.bit_count()


def dilate(comp: int, empty: int) -> int:
    """``comp`` grown by one step (4-neighbourhood) inside ``empty``."""
    return (
        comp
        | ((comp << 1) & NOT_COL0)
        | ((comp >> 1) & NOT_COL8)
        | (comp << 9)
        | (comp >> 9)
    ) & empty


class Weights:
    """Parameters of :func:`evaluate` (fitted by hand against seeded solo games)."""

    def __init__(
        self,
        decay: float = 0.72,
        sector_bias: float = 1.0,
        line_bias: float = 1.0,
        dead: float = 0.6,
        waste: float = 0.5,
        fragile: float = 0.4,
        slack: float = 1.0,
    ) -> None:
        self.decay = decay
        """Completion estimate of a unit with ``e`` empty cells: ``decay ** e`` (times the
        time factor)."""
        self.sector_bias = sector_bias
        self.line_bias = line_bias
        self.dead = dead
        """Penalty per dead cell (besides the units it kills)."""
        self.waste = waste
        """Penalty per cell surely wasted in a region of 5-7 cells."""
        self.fragile = fragile
        """Penalty per region of exactly four cells."""
        self.slack = slack
        """Time factor: a unit needing more cells than ``slack * 4 * turns_left`` is hopeless."""


DEFAULT_WEIGHTS: Final = Weights()


def regions(empty: int) -> tuple[int, int, int]:
    """(dead cells mask, cells surely wasted in regions of 5-7, regions of exactly 4)."""
    dead = 0
    waste = 0
    fours = 0
    rest = empty
    while rest:
        comp = rest & -rest
        while True:
            nb = dilate(comp, empty)
            if nb == comp:
                n = popcount(comp)
                if n < 4:
                    dead |= comp
                elif n == 4:
                    fours += 1
                elif n < 8:
                    waste += n - 4
                break
            comp = nb
            if popcount(comp) >= 8:
                # Big region: grow it fully once, so it is not visited again cell by cell.
                while True:
                    nb = dilate(comp, empty)
                    if nb == comp:
                        break
                    comp = nb
                break
        rest &= ~comp
    return dead, waste, fours


def evaluate(sheet: int, turns_left: int, w: Weights) -> float:
    """Value of ``sheet`` with ``turns_left`` shapes still to come (see module docstring)."""
    empty = FULL & ~sheet
    dead, waste, fours = regions(empty)
    cap = w.slack * 4.0 * turns_left
    value = 0.0
    for u in range(27):
        m = UNIT_MASKS[u]
        e = popcount(empty & m)
        pts = UNIT_POINTS[u]
        if e == 0:
            value += pts
            continue
        if dead & m or e > cap:
            continue
        est = w.decay**e
        if turns_left * 4 < 2 * e:
            est *= 0.5
        value += pts * est * (w.sector_bias if u < 9 else w.line_bias)
    value -= w.dead * popcount(dead) + w.waste * waste + w.fragile * fours
    return value


def simple_value(sheet: int) -> float:
    """The ``easy`` evaluation: points, plus filled cells of each unit squared."""
    value = 0.0
    for u in range(27):
        m = UNIT_MASKS[u]
        f = popcount(sheet & m)
        value += UNIT_POINTS[u] * (f * f) / 81.0
    return value


def next_turn_value(sheet: int, turns_left: int, unseen: list[str], w: Weights) -> float:
    """Expected value of the best placement of the next turn: uniform over the unseen
    cards (the next card is one of them) and the six die faces; a skip keeps the sheet."""
    if turns_left <= 0 or not unseen:
        return evaluate(sheet, turns_left, w)
    skip_value = evaluate(sheet, turns_left - 1, w)
    total = 0.0
    for card in unseen:
        best_any = -1e9
        face_sum = 0.0
        for shape in TETROMINOES:
            best = -1e9
            for m in BY_CARD[shape][card]:
                if m & sheet:
                    continue
                v = evaluate(sheet | m, turns_left - 1, w)
                if v > best:
                    best = v
            if best < -1e8:
                best = skip_value
            face_sum += best
            if best > best_any:
                best_any = best
        total += (face_sum + best_any) / 6.0
    return total / len(unseen)


class TedokuLevel:
    def __init__(self, kind: str, candidates: int = 0, noise: float = 0.0) -> None:
        self.kind = kind
        """``simple``, ``eval`` or ``lookahead``."""
        self.candidates = candidates
        """Lookahead: how many of the evaluation's best placements are searched."""
        self.noise = noise
        """Random noise added to each placement's value (``easy``)."""


TEDOKU_LEVELS: Final[dict[str, TedokuLevel]] = {
    "easy": TedokuLevel("simple", noise=0.6),
    "medium": TedokuLevel("eval"),
    "hard": TedokuLevel("lookahead", candidates=6),
}


def parse_sheet(rows: list[str]) -> int:
    """A view's sheet rows as a mask (drawn cells; a pending drawing counts as drawn)."""
    m = 0
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch != ".":
                m |= 1 << (r * 9 + c)
    return m


class Choice:
    """One option of a turn: (shape, mask) or a skip (shape ``""``)."""

    def __init__(self, shape: str, mask: int, value: float) -> None:
        self.shape = shape
        self.mask = mask
        self.value = value


def plan(
    sheet: int,
    card: str,
    die: str,
    bonus_left: list[str],
    flipped: list[str],
    turn: int,
    level: TedokuLevel,
    w: Weights,
    rng: Random,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[float], None] | None = None,
) -> Choice:
    """The chosen (shape, mask) for this turn, or a skip (only when it is allowed)."""
    turns_left = TURNS - turn
    options = legal_placements(die, sheet, card, bonus_left)
    skip_ok = may_skip(die, sheet, card)
    bonus_n = len(bonus_left)
    choices: list[Choice] = []
    for shape, m in options:
        left = bonus_n - 1 if shape in BONUS_SHAPES else bonus_n
        if level.kind == "simple":
            v = simple_value(sheet | m)
        else:
            v = evaluate(sheet | m, turns_left, w)
        v += BONUS_VALUE * left
        if level.noise > 0.0:
            v += rng.random() * level.noise
        choices.append(Choice(shape, m, v))
    if skip_ok:
        if level.kind == "simple":
            sv = simple_value(sheet)
        else:
            sv = evaluate(sheet, turns_left, w)
        choices.append(Choice("", 0, sv + BONUS_VALUE * bonus_n))
    if not choices:
        raise ValueError("no legal Tedoku move")
    # Stable order: value first, then cells (reproducible whatever the set iteration).
    choices.sort(key=lambda c: (-c.value, c.mask, c.shape))
    if level.kind != "lookahead" or turns_left <= 0 or len(choices) == 1:
        if progress is not None:
            progress(1.0)
        return choices[0]
    unseen = [c for c in CARDS if c not in flipped]
    top = choices[: level.candidates]
    best = top[0]
    best_v = -1e18
    for i, ch in enumerate(top):
        if i > 0 and should_stop is not None and should_stop():
            break
        left = bonus_n - (1 if ch.shape in BONUS_SHAPES else 0)
        v = next_turn_value(sheet | ch.mask, turns_left, unseen, w) + BONUS_VALUE * left
        if v > best_v:
            best_v = v
            best = ch
        if progress is not None:
            progress((i + 1) / len(top))
    return best


class TedokuBot(Bot):
    """Placement bot for solo and multiplayer Tedoku (only its own sheet matters)."""

    def __init__(self, level: str, weights: Weights | None = None) -> None:
        super().__init__(TEDOKU, level)
        self.cfg = TEDOKU_LEVELS[level]
        self.weights = weights if weights is not None else DEFAULT_WEIGHTS

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        me = view["players"][seat]
        if me.get("placed"):
            raise ValueError(f"seat {seat} has already drawn this turn")
        card = view.get("card")
        die = view.get("die")
        if not isinstance(card, str) or not isinstance(die, str):
            raise ValueError("no Tedoku turn in progress")
        sheet = parse_sheet([str(r) for r in me["sheet"]])
        bonus_left = [str(b) for b in me.get("bonus_left", [])]
        flipped = [str(c) for c in view.get("flipped", [])]
        turn = int(view["turn"])
        ch = plan(
            sheet, card, die, bonus_left, flipped, turn, self.cfg, self.weights, rng,
            should_stop, progress,
        )
        if not ch.shape:
            return {"type": "skip"}
        return {"type": "place", "shape": ch.shape, "cells": cells_of(ch.mask)}


def play_solo(
    level: str, seed: int, bonus: bool = False, weights: Weights | None = None
) -> int:
    """Plays one seeded solo game with ``level`` (through the game API) and returns the
    final total, bonus points included."""
    bot = TedokuBot(level, weights)
    rng = Random(seed)
    state = TEDOKU.initial()
    for ev in TEDOKU.start({"seats": 1, "bonus": bonus}, rng):
        state = TEDOKU.evolve(state, ev)
    brng = Random(seed * 7919 + 1)
    while TEDOKU.outcome(state) is None:
        cmd = bot.choose(TEDOKU.view(state, 0), 0, brng)
        for ev in TEDOKU.decide(state, 0, cmd, rng):
            state = TEDOKU.evolve(state, ev)
    out = TEDOKU.outcome(state)
    assert out is not None
    return int(out.scores[0])


__all__ = ["TedokuBot", "Weights", "evaluate", "plan", "play_solo"]
