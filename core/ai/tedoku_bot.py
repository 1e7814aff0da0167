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


HARD_LINEAR: Final[list[list[float]]] = [
    [
        2.4852, 0.3507, 0.1537, 0.051, 0.0315, -0.1881, -0.2046, -0.2092,
        -0.1553, -0.3908, 0.094, 0.0208, -0.0178, -0.0562, -0.074, -0.0712,
        -0.1089, -0.09, 0.0085, -0.0255, -0.0247, 0.0158, -0.0224, 0.0066,
        -2.2743,
    ],
    [
        4.0309, 0.6189, 0.2914, 0.1171, 0.063, -0.3102, -0.343, -0.3086,
        -0.2173, -0.4754, 0.1762, 0.062, -0.0141, -0.0487, -0.0911, -0.0886,
        -0.1149, -0.0679, 0.0423, -0.0762, -0.0354, 0.0328, -0.0537, 0.0245,
        -1.8431,
    ],
    [
        5.1841, 0.8401, 0.4327, 0.1988, 0.1241, -0.3339, -0.3791, -0.3015,
        -0.1935, -0.3946, 0.2414, 0.0839, -0.0129, -0.0496, -0.0942, -0.1218,
        -0.1721, -0.0881, 0.0512, -0.1082, -0.0449, 0.0257, -0.0833, 0.0503,
        -1.5494,
    ],
    [
        6.3479, 1.0309, 0.5532, 0.2995, 0.1911, -0.3152, -0.3304, -0.2302,
        -0.1152, -0.2785, 0.2866, 0.0795, -0.0232, -0.0785, -0.1221, -0.1696,
        -0.2096, -0.1118, 0.0073, -0.1745, -0.0463, 0.0038, -0.1153, 0.0856,
        -1.3645,
    ],
    [
        7.2952, 1.1976, 0.6861, 0.4209, 0.2879, -0.2236, -0.2171, -0.0595,
        0.0363, 0.0061, 0.3163, 0.081, -0.0444, -0.1253, -0.1667, -0.2059,
        -0.2496, -0.192, -0.0733, -0.2098, -0.0954, 0.0147, -0.1585, 0.105,
        -1.2179,
    ],
    [
        8.5308, 1.3166, 0.7527, 0.4594, 0.2922, -0.2491, -0.2285, -0.0612,
        -0.0218, 0.026, 0.3382, 0.0944, -0.04, -0.1258, -0.1816, -0.2153,
        -0.2302, -0.1889, -0.0889, -0.2567, -0.1432, 0.0407, -0.2125, 0.1324,
        -1.1605,
    ],
    [
        9.7042, 1.4122, 0.851, 0.5147, 0.3328, -0.1892, -0.1393, 0.0253,
        0.0504, 0.1409, 0.3519, 0.0893, -0.0622, -0.1495, -0.218, -0.252,
        -0.2484, -0.2383, -0.1342, -0.2416, -0.2043, 0.0324, -0.255, 0.1858,
        -1.1295,
    ],
    [
        11.6493, 1.5055, 0.9115, 0.5694, 0.3422, -0.1709, -0.1151, 0.0067,
        0.0467, 0.1686, 0.3512, 0.0638, -0.1198, -0.2057, -0.2806, -0.316,
        -0.3125, -0.2899, -0.2202, -0.2329, -0.3108, 0.0372, -0.3284, 0.2171,
        -1.1203,
    ],
    [
        13.3156, 1.5459, 0.9525, 0.6099, 0.3483, -0.1385, -0.099, -0.0025,
        0.05, 0.1871, 0.3611, 0.0615, -0.1569, -0.2384, -0.3248, -0.361,
        -0.3523, -0.3341, -0.2796, -0.327, -0.2869, -0.0619, -0.3776, 0.2687,
        -1.1214,
    ],
    [
        14.7852, 1.5819, 0.9629, 0.6148, 0.3122, -0.1449, -0.1606, -0.1083,
        -0.0424, 0.0825, 0.3855, 0.085, -0.153, -0.232, -0.3307, -0.3612,
        -0.3405, -0.3134, -0.272, -0.4066, -0.2869, -0.0768, -0.4336, 0.3061,
        -1.13,
    ],
    [
        15.4609, 1.6463, 0.9906, 0.6263, 0.2977, -0.1498, -0.2049, -0.2004,
        -0.1283, -0.0353, 0.4137, 0.1292, -0.1157, -0.1953, -0.2725, -0.3175,
        -0.2863, -0.2492, -0.1842, -0.5281, -0.2495, -0.0643, -0.4762, 0.3234,
        -1.1229,
    ],
    [
        16.0681, 1.7223, 1.0623, 0.6773, 0.3361, -0.085, -0.1686, -0.1875,
        -0.1221, -0.032, 0.431, 0.1554, -0.0972, -0.1751, -0.2414, -0.3048,
        -0.2714, -0.246, -0.1795, -0.4918, -0.3896, 0.1475, -0.5304, 0.34,
        -1.1404,
    ],
    [
        15.4765, 1.7469, 1.1417, 0.7274, 0.3948, -0.001, -0.1031, -0.1454,
        -0.0977, -0.0117, 0.458, 0.2085, -0.0295, -0.1179, -0.1611, -0.2298,
        -0.1838, -0.1603, -0.0974, -0.4977, -0.362, 0.2289, -0.561, 0.3536,
        -1.1977,
    ],
    [
        15.1754, 1.7909, 1.2547, 0.8519, 0.5989, 0.2516, 0.1835, 0.1723,
        0.228, 0.3317, 0.4351, 0.1761, -0.0476, -0.1373, -0.1901, -0.2725,
        -0.2452, -0.2514, -0.2098, -0.413, -0.336, 0.077, -0.6642, 0.3578,
        -1.256,
    ],
    [
        12.8696, 1.8035, 1.2955, 0.8588, 0.6357, 0.2934, 0.2183, 0.1991,
        0.23, 0.3194, 0.4938, 0.2406, 0.0626, 0.0117, -0.0283, -0.1019,
        -0.0604, -0.0617, -0.0236, -0.2996, -0.2304, 0.0692, -0.7384, 0.3499,
        -1.3275,
    ],
    [
        8.1056, 1.8355, 1.2895, 0.8205, 0.6063, 0.2433, 0.1386, 0.0803,
        0.0528, 0.1177, 0.5342, 0.4483, 0.2963, 0.293, 0.3023, 0.2428,
        0.3189, 0.3387, 0.3883, -0.1536, -0.0039, 0.1498, -0.7602, 0.2413,
        -1.4412,
    ],
    [
        0.2445, 1.8775, 1.3965, 0.9392, 0.7097, 0.3709, 0.2475, 0.1567,
        0.0862, 0.1329, 0.6457, 0.5748, 0.4972, 0.5665, 0.6213, 0.6343,
        0.7325, 0.7932, 0.8845, 0.0737, 0.2947, 0.221, -0.8236, 0.0657,
        -1.619,
    ],
    [
        0.1289, 0.1944, 0.0351, -0.1397, -0.08, -0.112, 0.0451, 0.2125,
        0.3565, 0.6482, -0.0807, -0.0735, -0.0848, 0.0572, 0.2027, 0.3264,
        0.5053, 0.6447, 0.8228, 0.0, 0.0, 0.0, -0.8222, 0.0609,
        -2.3816,
    ],
    [
        0.0769, 0.0, 0.0, 0.0, 0.0, 0.0413, 0.0356, 0.0,
        0.0356, 0.5797, 0.0, 0.0, 0.0, 0.0, 0.0356, -0.1198,
        0.1803, 0.4716, 0.8166, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0,
    ],
    [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0,
    ],
]
"""Weights of the learned evaluation used by ``hard``, per turns left 1-19 (over
:func:`features`, skip risk included), fitted backwards by ``tools/fit_tedoku.py``
(600 self-play games of ``medium`` with earlier fitted weights, seeds 10000+): V_0 is the
exact score, V_t is fitted by least squares to the one-turn expectimax under V_(t-1)."""
HARD_WEIGHTS: Final = Weights(linear=HARD_LINEAR)


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
BUCKETS: Final = 20


def bucket(turns_left: int) -> int:
    """Which weight vector of the learned evaluation applies (one per number of turns left)."""
    return min(BUCKETS - 1, max(0, turns_left - 1))


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
    "hard": TedokuLevel("lookahead", candidates=16, leaf_risk=True),
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
        if weights is None:
            weights = HARD_WEIGHTS if level == "hard" else DEFAULT_WEIGHTS
        self.weights = weights

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
