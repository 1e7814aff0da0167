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
    CARD_MASK,
    CARDS,
    COL_MASKS,
    FULL,
    ORIENTATIONS,
    PLACEMENTS,
    ROW_MASKS,
    SECTOR_MASKS,
    TETROMINOES,
    TURNS,
    cells_of,
    legal_placements,
    may_skip,
    score_sheet,
)
from core.tedoku import GAME as TEDOKU

UNIT_MASKS: Final[list[int]] = SECTOR_MASKS + ROW_MASKS + COL_MASKS
UNIT_POINTS: Final[list[int]] = [3] * 9 + [1] * 18
NOT_COL0: Final = FULL & ~COL_MASKS[0]
NOT_COL8: Final = FULL & ~COL_MASKS[8]
BONUS_VALUE: Final = 2.0
CARD_INDEX: Final[dict[str, int]] = {c: i for i, c in enumerate(CARDS)}


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
    """Parameters of :func:`evaluate` (fitted against seeded solo games)."""

    def __init__(
        self,
        decay: float = 0.72,
        line_decay: float = 0.69,
        line_bias: float = 0.36,
        dead: float = 0.05,
        waste: float = 0.5,
        fragile: float = 0.4,
        slack: float = 1.5,
        skip: float = 1.0,
        cell: float = 0.03,
        linear: list[list[float]] | None = None,
    ) -> None:
        self.decay = decay
        """Completion estimate of a sector with ``e`` empty cells: ``decay ** e``."""
        self.line_decay = line_decay
        """The same for rows and columns."""
        self.line_bias = line_bias
        """Scale of the estimates of rows and columns."""
        self.dead = dead
        """Penalty per dead cell (besides the units it kills)."""
        self.waste = waste
        """Penalty per cell surely wasted in a region of 5-7 cells."""
        self.fragile = fragile
        """Penalty per region of exactly four cells."""
        self.slack = slack
        """Time factor: a unit needing more cells than ``slack * 4 * turns_left`` is hopeless."""
        self.skip = skip
        """Penalty per expected forced skip: for every card that may still come, the share of
        die faces whose shape no longer fits anywhere on it."""
        self.cell = cell
        """Value per filled cell."""
        self.linear: list[list[float]] = linear if linear is not None else []
        """When set: the learned evaluation, one weight vector (over :func:`features`) per
        bucket of turns left (:func:`bucket`); the hand-made terms above are then unused."""


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


def _shape_tables() -> list[list[tuple[int, list[int]]]]:
    """Per tetromino (order of ``TETROMINOES``), per orientation: (mask of the anchor cells
    where its bounding box fits inside the sheet, offsets of its cells from the anchor)."""
    out: list[list[tuple[int, list[int]]]] = []
    for shape in TETROMINOES:
        tab: list[tuple[int, list[int]]] = []
        for orient in ORIENTATIONS[shape]:
            h = max(p[0] for p in orient) + 1
            wd = max(p[1] for p in orient) + 1
            valid = 0
            for r in range(10 - h):
                for c in range(10 - wd):
                    valid |= 1 << (r * 9 + c)
            tab.append((valid, [dr * 9 + dc for dr, dc in orient]))
        out.append(tab)
    return out


SHAPE_TABLES: Final = _shape_tables()


def covers(empty: int) -> list[int]:
    """Per tetromino: the union of all its placements that fit inside ``empty``. A shape
    can be drawn touching a card exactly when its cover meets the card's mask."""
    out: list[int] = []
    for tab in SHAPE_TABLES:
        cover = 0
        for valid, offs in tab:
            a = valid
            for o in offs:
                a &= empty >> o
                if not a:
                    break
            if a:
                for o in offs:
                    cover |= a << o
        out.append(cover)
    return out


def skip_risk(sheet: int, unseen: list[str]) -> float:
    """Sum over ``unseen`` cards of the share of die faces that would force a skip now."""
    cov = covers(FULL & ~sheet)
    risk = 0.0
    for card in unseen:
        cm = CARD_MASK[card]
        fails = 0
        for c in cov:
            if not c & cm:
                fails += 1
        if fails:
            risk += (fails + (1 if fails == 5 else 0)) / 6.0
    return risk


NFEAT: Final = 25
"""Features of a sheet for the learned evaluation: a constant; unfinished live sectors by
empty cells (1-9); unfinished live rows/columns by empty cells (1-9); dead sectors; dead
rows/columns; dead cells; cells wasted in regions of 5-7; regions of exactly four; the
expected share of forced skips."""
BUCKETS: Final = 5


def bucket(turns_left: int) -> int:
    """Which weight vector of the learned evaluation applies (turns left 1-4, 5-8, ...)."""
    return min(BUCKETS - 1, max(0, (turns_left - 1) // 4))


def features(sheet: int, turns_left: int, unseen: list[str] | None) -> list[float]:
    """The feature vector of ``sheet`` (see :data:`NFEAT`)."""
    empty = FULL & ~sheet
    dead, waste, fours = regions(empty)
    f = [0.0] * NFEAT
    f[0] = 1.0
    for u in range(27):
        m = UNIT_MASKS[u]
        e = popcount(empty & m)
        if e == 0:
            continue
        if dead & m:
            f[19 if u < 9 else 20] += 1.0
            continue
        f[(1 if u < 9 else 10) + e - 1] += 1.0
    f[21] = float(popcount(dead))
    f[22] = float(waste)
    f[23] = float(fours)
    if unseen and turns_left > 0:
        f[24] = min(1.0, turns_left / len(unseen)) * skip_risk(sheet, unseen)
    return f


def linear_value(sheet: int, turns_left: int, w: Weights, unseen: list[str] | None) -> float:
    """Points so far plus the learned estimate of the points still to come."""
    now = float(score_sheet(sheet))
    if turns_left <= 0:
        return now
    f = features(sheet, turns_left, unseen)
    wv = w.linear[bucket(turns_left)]
    total = now
    for i in range(NFEAT):
        total += wv[i] * f[i]
    return total


def fit_linear(
    samples: list[tuple[int, list[float], float]], ridge: float = 0.01
) -> list[list[float]]:
    """Least squares (with a small ridge) per bucket: ``samples`` are (turns left, features,
    points scored from then to the end of the game)."""
    out: list[list[float]] = []
    for b in range(BUCKETS):
        a = [[0.0] * NFEAT for _ in range(NFEAT)]
        y = [0.0] * NFEAT
        for tl, f, target in samples:
            if bucket(tl) != b:
                continue
            for i in range(NFEAT):
                fi = f[i]
                if fi == 0.0:
                    continue
                y[i] += fi * target
                row = a[i]
                for j in range(NFEAT):
                    row[j] += fi * f[j]
        for i in range(NFEAT):
            a[i][i] += ridge
        out.append(solve(a, y))
    return out


def solve(a: list[list[float]], y: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (``a`` and ``y`` are overwritten)."""
    n = len(y)
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[piv] = a[piv], a[col]
        y[col], y[piv] = y[piv], y[col]
        d = a[col][col]
        if abs(d) < 1e-12:
            continue
        for r in range(col + 1, n):
            k = a[r][col] / d
            if k != 0.0:
                rr = a[r]
                rc = a[col]
                for c2 in range(col, n):
                    rr[c2] -= k * rc[c2]
                y[r] -= k * y[col]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        d = a[r][r]
        if abs(d) < 1e-12:
            continue
        acc = y[r]
        for c2 in range(r + 1, n):
            acc -= a[r][c2] * x[c2]
        x[r] = acc / d
    return x


def evaluate(sheet: int, turns_left: int, w: Weights, unseen: list[str] | None = None) -> float:
    """Value of ``sheet`` with ``turns_left`` shapes still to come (see module docstring);
    ``unseen`` (the cards that may still come) enables the skip-risk term."""
    if w.linear:
        return linear_value(sheet, turns_left, w, unseen)
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
        if u < 9:
            est = w.decay**e
        else:
            est = w.line_bias * w.line_decay**e
        if turns_left * 4 < 2 * e:
            est *= 0.5
        value += pts * est
    value -= w.dead * popcount(dead) + w.waste * waste + w.fragile * fours
    value += w.cell * (81 - popcount(empty))
    if unseen and w.skip > 0.0 and turns_left > 0:
        share = min(1.0, turns_left / len(unseen))
        value -= w.skip * share * skip_risk(sheet, unseen)
    return value


def simple_value(sheet: int) -> float:
    """The ``easy`` evaluation: points, plus filled cells of each unit squared."""
    value = 0.0
    for u in range(27):
        m = UNIT_MASKS[u]
        f = popcount(sheet & m)
        value += UNIT_POINTS[u] * (f * f) / 81.0
    return value


def _touch_table() -> list[list[list[int]]]:
    """``TOUCH[shape index][placement index]``: the cards (indices in ``CARDS``) that the
    placement ``PLACEMENTS[shape][placement index]`` touches."""
    masks = [CARD_MASK[c] for c in CARDS]
    return [
        [[k for k in range(len(CARDS)) if m & masks[k]] for m in PLACEMENTS[shape]]
        for shape in TETROMINOES
    ]


TOUCH: Final = _touch_table()


def next_turn_value(
    sheet: int, turns_left: int, unseen: list[str], w: Weights, leaf_risk: bool = False
) -> float:
    """Expected value of the best placement of the next turn: uniform over the unseen
    cards (the next card is one of them) and the six die faces; a skip keeps the sheet.
    Each free placement is evaluated once and credited to every card it touches. With
    ``leaf_risk`` the sheets after the next turn are evaluated with the skip-risk term."""
    leaf: list[str] | None = unseen if leaf_risk else None
    if turns_left <= 0 or not unseen:
        return evaluate(sheet, turns_left, w, leaf)
    skip_value = evaluate(sheet, turns_left - 1, w, leaf)
    ncards = len(CARDS)
    wanted = [False] * ncards
    for c in unseen:
        wanted[CARD_INDEX[c]] = True
    best = [[-1e9] * ncards for _ in range(len(TETROMINOES))]
    for si in range(len(TETROMINOES)):
        row = best[si]
        touch = TOUCH[si]
        pl = PLACEMENTS[TETROMINOES[si]]
        for pi in range(len(pl)):
            m = pl[pi]
            if m & sheet:
                continue
            cards = touch[pi]
            useful = False
            for k in cards:
                if wanted[k]:
                    useful = True
                    break
            if not useful:
                continue
            v = evaluate(sheet | m, turns_left - 1, w, leaf)
            for k in cards:
                if v > row[k]:
                    row[k] = v
    total = 0.0
    for c in unseen:
        k = CARD_INDEX[c]
        best_any = -1e9
        face_sum = 0.0
        for si in range(len(TETROMINOES)):
            b = best[si][k]
            if b < -1e8:
                b = skip_value
            face_sum += b
            if b > best_any:
                best_any = b
        total += (face_sum + best_any) / 6.0
    return total / len(unseen)


class TedokuLevel:
    def __init__(
        self, kind: str, candidates: int = 0, noise: float = 0.0, leaf_risk: bool = False
    ) -> None:
        self.kind = kind
        """``simple``, ``eval`` or ``lookahead``."""
        self.candidates = candidates
        """Lookahead: how many of the evaluation's best placements are searched."""
        self.noise = noise
        """Random noise added to each placement's value (``easy``)."""
        self.leaf_risk = leaf_risk
        """Lookahead: evaluate the sheets after the next turn with the skip-risk term."""


TEDOKU_LEVELS: Final[dict[str, TedokuLevel]] = {
    "easy": TedokuLevel("simple", noise=0.6),
    "medium": TedokuLevel("eval"),
    "hard": TedokuLevel("lookahead", candidates=16),
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
    unseen = [c for c in CARDS if c not in flipped]
    options = legal_placements(die, sheet, card, bonus_left)
    skip_ok = may_skip(die, sheet, card)
    bonus_n = len(bonus_left)
    choices: list[Choice] = []
    for shape, m in options:
        left = bonus_n - 1 if shape in BONUS_SHAPES else bonus_n
        if level.kind == "simple":
            v = simple_value(sheet | m)
        else:
            v = evaluate(sheet | m, turns_left, w, unseen)
        v += BONUS_VALUE * left
        if level.noise > 0.0:
            v += rng.random() * level.noise
        choices.append(Choice(shape, m, v))
    if skip_ok:
        if level.kind == "simple":
            sv = simple_value(sheet)
        else:
            sv = evaluate(sheet, turns_left, w, unseen)
        choices.append(Choice("", 0, sv + BONUS_VALUE * bonus_n))
    if not choices:
        raise ValueError("no legal Tedoku move")
    # Stable order: value first, then cells (reproducible whatever the set iteration).
    choices.sort(key=lambda c: (-c.value, c.mask, c.shape))
    if level.kind != "lookahead" or turns_left <= 0 or len(choices) == 1:
        if progress is not None:
            progress(1.0)
        return choices[0]
    top = choices[: level.candidates]
    best = top[0]
    best_v = -1e18
    for i, ch in enumerate(top):
        if i > 0 and should_stop is not None and should_stop():
            break
        left = bonus_n - (1 if ch.shape in BONUS_SHAPES else 0)
        v = next_turn_value(sheet | ch.mask, turns_left, unseen, w, level.leaf_risk)
        v += BONUS_VALUE * left
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
    level: str,
    seed: int,
    bonus: bool = False,
    weights: Weights | None = None,
    samples: list[tuple[int, list[float], float]] | None = None,
) -> int:
    """Plays one seeded solo game with ``level`` (through the game API) and returns the
    final total, bonus points included. With ``samples``, appends (turns left, features,
    points still to come) after every turn (training data for :func:`fit_linear`)."""
    bot = TedokuBot(level, weights)
    rng = Random(seed)
    state = TEDOKU.initial()
    for ev in TEDOKU.start({"seats": 1, "bonus": bonus}, rng):
        state = TEDOKU.evolve(state, ev)
    brng = Random(seed * 7919 + 1)
    trace: list[tuple[int, list[float], int]] = []
    while TEDOKU.outcome(state) is None:
        cmd = bot.choose(TEDOKU.view(state, 0), 0, brng)
        for ev in TEDOKU.decide(state, 0, cmd, rng):
            state = TEDOKU.evolve(state, ev)
        if samples is not None:
            sheet = state.sheets[0]
            turns_left = TURNS - state.turn + (1 if state.turn < TURNS else 0)
            if TEDOKU.outcome(state) is not None:
                turns_left = 0
            flipped = state.deck[: state.turn - 1] if state.turn < TURNS else state.deck
            unseen = [c for c in CARDS if c not in flipped]
            trace.append((turns_left, features(sheet, turns_left, unseen), score_sheet(sheet)))
    out = TEDOKU.outcome(state)
    assert out is not None
    final = score_sheet(state.sheets[0])
    if samples is not None:
        for tl, f, now in trace:
            if tl > 0:
                samples.append((tl, f, float(final - now)))
    return int(out.scores[0])


__all__ = ["TedokuBot", "Weights", "evaluate", "features", "fit_linear", "plan", "play_solo"]
