"""Tedoku bot: places each shape by a sheet evaluation plus, for ``hard``, a one-turn
expectimax over the next card and die face (see docs/ai.md, section Tedoku).

The bot reads only its own seat's view: its sheet, the current card and die, the cards
already flipped (so it knows which cards may still come: every card not flipped yet, the
seven removed ones included since nobody knows which they are) and its unused bonus shapes.

Two evaluations of a sheet, all in 81-bit masks:

* hand-made (``medium``, :class:`Weights`): points scored, plus for every unfinished unit
  that can still be completed its points times a completion estimate that falls with its
  empty cells; penalties for dead cells (empty regions under four cells), cells surely
  wasted in regions of 5-7, regions of exactly four and the expected forced skips;
* learned (``hard``, :data:`HARD_LINEAR`): points scored plus a linear function of
  :func:`features`, one weight vector per number of turns left, fitted backwards by
  self-play (``tools/fit_tedoku.py``).

With bonus shapes, each unused one is worth 2 points, so one is used only when it gains
more than that (e.g. the last cell of a sector).

Levels: ``easy`` plays the best move of a simple count (filled cells per unit) with some
randomness, ``medium`` the best move of the hand-made evaluation, ``hard`` the best of the
learned evaluation's 16 best placements after the lookahead.
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
        0.871, 0.6851, 0.4342, 0.3285, 0.2113, -0.0228, -0.0653, -0.0537,
        -0.0494, -0.072, 0.4644, 0.3125, 0.1951, 0.1573, -0.0132, -0.0479,
        -0.0495, -0.0791, 0.0, 0.2147, 0.1333, 0.0977, 0.0949, 0.0546,
        0.0558, 0.0914, 0.2376, 0.2612, 0.1366, 0.0968, 0.0501, 0.0011,
        -0.0245, -0.07, -0.1467, 0.167, 0.0, 0.0272, 0.0327, 0.1005,
        0.0122, 0.0404, -2.5684, -0.0044, -0.0217, -0.0431, -0.0444, -0.0035,
        0.0228,
    ],
    [
        5.5842, 1.1166, 0.7499, 0.5759, 0.3736, 0.0239, -0.0557, -0.0193,
        -0.1028, -0.2134, 0.8323, 0.5571, 0.375, 0.2577, -0.0128, -0.0779,
        -0.1103, -0.2277, 0.0, 0.3533, 0.2304, 0.1847, 0.1811, 0.1323,
        0.1283, 0.1631, 0.2785, 0.2897, 0.2357, 0.1696, 0.0882, 0.024,
        -0.0442, -0.0896, -0.1971, -0.0114, 0.0, 0.0788, 0.0661, 0.1336,
        -0.005, 0.0836, -1.8849, -0.033, -0.0537, -0.0937, -0.0925, -0.0052,
        -0.0168,
    ],
    [
        9.3436, 1.42, 1.0056, 0.8039, 0.5284, 0.135, 0.0253, 0.0564,
        -0.0613, -0.2144, 1.1318, 0.7896, 0.565, 0.3683, 0.0485, -0.0502,
        -0.0833, -0.2651, 0.0, 0.4508, 0.3118, 0.2505, 0.2514, 0.2049,
        0.1894, 0.2108, 0.2481, 0.3134, 0.3257, 0.2309, 0.1163, 0.0574,
        -0.0452, -0.0998, -0.1857, -0.1464, 0.0, 0.1341, 0.089, 0.1543,
        -0.0393, 0.1434, -1.4664, -0.0557, -0.0813, -0.1335, -0.1271, -0.0225,
        -0.0521,
    ],
    [
        11.7583, 1.6232, 1.1873, 0.9814, 0.6547, 0.2586, 0.1318, 0.1264,
        -0.009, -0.209, 1.3658, 0.9931, 0.7418, 0.4792, 0.1196, 0.005,
        -0.0343, -0.2365, 0.0, 0.5144, 0.3644, 0.2969, 0.3011, 0.2685,
        0.2342, 0.2544, 0.2637, 0.3583, 0.4019, 0.2884, 0.1554, 0.0941,
        -0.0251, -0.0906, -0.1596, -0.1807, 0.0, 0.191, 0.0849, 0.1948,
        -0.0888, 0.2206, -1.277, -0.0609, -0.0929, -0.1637, -0.1544, -0.033,
        -0.0708,
    ],
    [
        12.8869, 1.8138, 1.3668, 1.1642, 0.8255, 0.4388, 0.3193, 0.2697,
        0.1441, -0.0761, 1.5803, 1.1977, 0.9192, 0.623, 0.2629, 0.1149,
        0.0595, -0.1182, 0.0, 0.5785, 0.4101, 0.346, 0.3518, 0.3078,
        0.2789, 0.2851, 0.2829, 0.3111, 0.4619, 0.3264, 0.1824, 0.1175,
        -0.0144, -0.0816, -0.1753, -0.2152, 0.0, 0.2158, 0.1, 0.227,
        -0.1357, 0.3263, -1.1291, -0.0614, -0.0893, -0.1859, -0.1761, -0.0482,
        -0.0763,
    ],
    [
        13.2718, 1.9561, 1.5123, 1.2849, 0.9441, 0.5773, 0.4301, 0.3554,
        0.2123, -0.0223, 1.7611, 1.3528, 1.0618, 0.7291, 0.3545, 0.169,
        0.0918, -0.0884, 0.0, 0.6429, 0.4597, 0.4027, 0.4155, 0.3726,
        0.3521, 0.3487, 0.3443, 0.3459, 0.5251, 0.3787, 0.2271, 0.1548,
        0.0263, -0.0402, -0.1292, -0.1782, 0.0, 0.1745, 0.1459, 0.2549,
        -0.1695, 0.4228, -1.0157, -0.062, -0.0874, -0.2018, -0.1935, -0.0628,
        -0.0734,
    ],
    [
        12.2705, 2.0658, 1.6455, 1.4228, 1.0951, 0.7512, 0.5958, 0.4943,
        0.36, 0.1368, 1.9115, 1.5126, 1.2191, 0.8797, 0.5046, 0.2954,
        0.2007, 0.0226, 0.0, 0.6903, 0.4971, 0.4441, 0.4671, 0.4273,
        0.4013, 0.405, 0.4006, 0.3788, 0.5782, 0.4282, 0.2788, 0.1955,
        0.0693, -0.0011, -0.0791, -0.1416, 0.0, 0.1595, 0.167, 0.2906,
        -0.2244, 0.48, -0.9144, -0.0793, -0.1078, -0.213, -0.2039, -0.0659,
        -0.0525,
    ],
    [
        10.3668, 2.1481, 1.7531, 1.5298, 1.2204, 0.8981, 0.7295, 0.6091,
        0.4711, 0.2552, 2.027, 1.653, 1.3432, 1.003, 0.6282, 0.4156,
        0.2899, 0.1139, 0.0, 0.7188, 0.5345, 0.4974, 0.5242, 0.4916,
        0.4783, 0.4813, 0.486, 0.4663, 0.6151, 0.4734, 0.3334, 0.2505,
        0.1316, 0.055, -0.0023, -0.0668, 0.0, 0.159, 0.1684, 0.3496,
        -0.2761, 0.5242, -0.8495, -0.0922, -0.1186, -0.2177, -0.2093, -0.0624,
        -0.0182,
    ],
    [
        8.4022, 2.2197, 1.8469, 1.6313, 1.3444, 1.0538, 0.864, 0.7424,
        0.6061, 0.3938, 2.1336, 1.7876, 1.4798, 1.1497, 0.775, 0.5525,
        0.4151, 0.2331, 0.0, 0.7232, 0.5574, 0.5359, 0.5642, 0.5358,
        0.5328, 0.5384, 0.5372, 0.5256, 0.6441, 0.5142, 0.3849, 0.2966,
        0.1903, 0.1043, 0.0475, 0.0023, 0.0, 0.099, 0.2069, 0.368,
        -0.3608, 0.5418, -0.8152, -0.094, -0.1253, -0.2194, -0.211, -0.0585,
        0.0183,
    ],
    [
        6.7074, 2.2349, 1.8853, 1.6748, 1.4041, 1.1266, 0.9262, 0.7944,
        0.6512, 0.4399, 2.2308, 1.901, 1.5986, 1.2539, 0.8963, 0.6637,
        0.4918, 0.3068, 0.0, 0.6921, 0.5469, 0.5449, 0.588, 0.5672,
        0.574, 0.5899, 0.5935, 0.5923, 0.6807, 0.5674, 0.4457, 0.3654,
        0.2697, 0.1881, 0.1337, 0.1064, 0.0, 0.0832, 0.1635, 0.4728,
        -0.4396, 0.5632, -0.8079, -0.1268, -0.1475, -0.2214, -0.2116, -0.0457,
        0.0609,
    ],
    [
        4.1121, 2.2827, 1.9544, 1.7516, 1.507, 1.249, 1.044, 0.9164,
        0.7651, 0.5609, 2.3193, 2.0036, 1.7146, 1.3778, 1.038, 0.806,
        0.6188, 0.4373, 0.0, 0.6882, 0.5615, 0.5789, 0.6375, 0.6284,
        0.6477, 0.6682, 0.6807, 0.6888, 0.7141, 0.6141, 0.5044, 0.441,
        0.3553, 0.2781, 0.233, 0.2085, 0.0, 0.1582, 0.1019, 0.578,
        -0.5201, 0.5614, -0.8125, -0.1325, -0.145, -0.2195, -0.2107, -0.0345,
        0.1088,
    ],
    [
        1.8613, 2.3152, 1.99, 1.7834, 1.5438, 1.2873, 1.0644, 0.9291,
        0.7528, 0.5415, 2.3865, 2.0683, 1.7723, 1.433, 1.0968, 0.8455,
        0.6366, 0.4412, 0.0, 0.6973, 0.6045, 0.6419, 0.7213, 0.7324,
        0.7689, 0.801, 0.8246, 0.8475, 0.7598, 0.6793, 0.5871, 0.5474,
        0.4766, 0.4177, 0.3793, 0.3671, 0.0, 0.1312, 0.1517, 0.606,
        -0.6098, 0.5586, -0.8263, -0.126, -0.1321, -0.2177, -0.2107, -0.0183,
        0.1492,
    ],
    [
        1.176, 2.3427, 2.0236, 1.8194, 1.5888, 1.3444, 1.1074, 0.9613,
        0.7748, 0.5539, 2.4482, 2.1307, 1.8323, 1.4955, 1.1694, 0.9116,
        0.6763, 0.4695, 0.0, 0.7072, 0.6331, 0.6768, 0.7674, 0.7863,
        0.8285, 0.8626, 0.8893, 0.9116, 0.7917, 0.7234, 0.6469, 0.6182,
        0.5493, 0.4947, 0.4564, 0.4386, 0.0, -0.0068, 0.2155, 0.6282,
        -0.7083, 0.5331, -0.8605, -0.1053, -0.1052, -0.2166, -0.2112, 0.006,
        0.1679,
    ],
    [
        0.8734, 2.347, 2.0294, 1.8075, 1.5784, 1.3379, 1.0763, 0.91,
        0.7049, 0.4624, 2.4959, 2.1651, 1.8611, 1.517, 1.1874, 0.906,
        0.6432, 0.4187, 0.0, 0.7031, 0.6676, 0.7236, 0.8251, 0.8567,
        0.9129, 0.9515, 0.9861, 1.0132, 0.8255, 0.7768, 0.7237, 0.713,
        0.6489, 0.6043, 0.5706, 0.5494, 0.0, -0.1089, 0.4891, 0.2446,
        -0.8014, 0.5061, -0.9006, -0.0844, -0.0802, -0.2158, -0.2119, 0.0348,
        0.1808,
    ],
    [
        0.7325, 2.4108, 2.0617, 1.79, 1.5319, 1.2612, 0.9464, 0.7332,
        0.481, 0.1857, 2.4985, 2.1221, 1.7831, 1.4057, 1.04, 0.7051,
        0.3878, 0.1115, 0.0, 0.8073, 0.8006, 0.8704, 0.9897, 1.0349,
        1.1043, 1.1512, 1.1936, 1.2246, 0.8533, 0.8339, 0.8069, 0.8126,
        0.7579, 0.7241, 0.6939, 0.6758, 0.0, -0.0953, 0.5847, 0.2924,
        -0.8476, 0.4844, -0.9824, 0.0596, 0.0737, -0.2138, -0.2112, 0.0655,
        0.1653,
    ],
    [
        0.6842, 2.3839, 2.0034, 1.67, 1.3727, 1.0573, 0.6842, 0.4092,
        0.101, -0.2537, 2.4861, 2.0645, 1.6712, 1.249, 0.8317, 0.4437,
        0.0646, -0.281, 0.0, 0.8521, 0.8908, 0.9937, 1.1385, 1.2159,
        1.3119, 1.3793, 1.442, 1.489, 0.8911, 0.9304, 0.9335, 0.9738,
        0.9396, 0.9324, 0.9188, 0.9143, 0.0, 0.2557, 0.5114, 0.2557,
        -0.9048, 0.4574, -1.0293, 0.119, 0.132, -0.2115, -0.2092, 0.0973,
        0.1631,
    ],
    [
        0.6384, 1.882, 1.5632, 1.2696, 1.0325, 0.7726, 0.4488, 0.2193,
        -0.046, -0.3494, 2.5526, 2.2004, 1.8589, 1.5006, 1.121, 0.7831,
        0.453, 0.1403, 0.0, 0.3693, 0.4988, 0.6546, 0.8525, 0.9957,
        1.1508, 1.2747, 1.3903, 1.4841, 0.9633, 1.115, 1.1691, 1.2775,
        1.2979, 1.3546, 1.3871, 1.4317, 0.0, 0.2416, 0.4831, 0.2416,
        0.0, 0.3934, -1.1738, -0.3116, -0.314, -0.2081, -0.206, 0.1274,
        0.3293,
    ],
    [
        0.248, -0.1909, -0.06, 0.0113, 0.1439, 0.2729, 0.337, 0.4864,
        0.595, 0.6779, -0.1471, -0.0827, -0.0362, -0.0198, -0.0122, 0.0369,
        0.0806, 0.1392, 0.0, -0.4387, -0.1463, 0.0624, 0.2903, 0.4771,
        0.6848, 0.8529, 1.0096, 1.1351, -0.4491, -0.1808, -0.0711, 0.0976,
        0.1482, 0.2573, 0.3302, 0.4051, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, -0.9258, 0.0, 0.0, -0.2038, -0.2018, 0.156,
        0.8019,
    ],
    [
        0.1474, 0.0, 0.0, 0.0, 0.0, 0.0939, 0.1849, 0.0,
        0.1773, 0.9222, 0.0, 0.0, 0.0, 0.0, -0.0133, 0.0718,
        0.0, -0.1106, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2043,
        0.0015, 0.3935, 0.7671, 1.0868, 0.0, 0.0, 0.0, 0.0,
        0.0524, -0.2317, 0.0496, 0.3291, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, -0.1982, -0.1976, 0.1781,
        1.1594,
    ],
    [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0,
    ],
]
"""Weights of the learned evaluation used by ``hard``, per turns left 1-19 (over
:func:`features`, skip risk included), fitted backwards by ``tools/fit_tedoku.py``
(the default run: rounds of greedy self-play, each fitted on the games of the previous
table): V_0 is the exact score, V_t is fitted by least squares to the one-turn expectimax
under V_(t-1)."""


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


def reachable(empty: int, places: int) -> int:
    """The cells of ``empty`` that some tetromino drawn inside ``empty`` and touching
    ``places`` (the union of the cards that may still come) can cover."""
    reach = 0
    for tab in SHAPE_TABLES:
        for valid, offs in tab:
            a = valid
            for o in offs:
                a &= empty >> o
                if not a:
                    break
            if not a:
                continue
            t = 0
            for o in offs:
                t |= places >> o
            a &= t
            if a:
                for o in offs:
                    reach |= a << o
    return reach


def skip_risk(sheet: int, unseen: list[str]) -> float:
    """Sum over ``unseen`` cards of the share of die faces that would force a skip now."""
    return risk_of(covers(FULL & ~sheet), unseen)


def risk_of(cov: list[int], unseen: list[str]) -> float:
    """:func:`skip_risk` from the sheet's :func:`covers`."""
    risk = 0.0
    for card in unseen:
        risk += card_risk(cov, CARD_MASK[card])
    return risk


def card_risk(cov: list[int], cm: int) -> float:
    """The share of die faces that would force a skip on the card of mask ``cm``."""
    fails = 0
    for c in cov:
        if not c & cm:
            fails += 1
    return (fails + (1 if fails == 5 else 0)) / 6.0 if fails else 0.0


NFEAT: Final = 57
"""Features of a sheet for the learned evaluation: a constant (0); live unfinished sectors by
empty cells 1-9 whose card may still come (1-9) or is gone (10-18); the same for rows and
columns (19-27, 28-36); dead sectors (37) and dead rows/columns (38); dead cells (39): no
tetromino fits over them touching a card that may still come; cells wasted in regions of
5-7 (40); regions of exactly four (41); the expected number of forced skips (42); full
sectors (43) and full rows/columns (44) whose card may still come; empty cells beside a
drawn cell or the edge on their left and right (45) and above and below (46), each side
counted; empty cells with at most one empty neighbour (47); drawn cells (48); live sectors
with 2, 3 or 4 empty cells that no single tetromino can finish (49-51), the same for rows
and columns (52-54); over the live units that one tetromino can finish (1-4 empty cells),
how many of the five shapes cannot, summed for sectors (55) and for rows and columns (56).
"Can finish": drawn inside the empty cells, over all of the unit's empty cells, touching a
card that may still come."""
HARD_WEIGHTS: Final = Weights(linear=[v + [0.0] * (NFEAT - len(v)) for v in HARD_LINEAR])
BUCKETS: Final = 20
UNIT_CARD: Final[list[int]] = [18 + u for u in range(9)] + [u for u in range(18)]
"""Index in ``CARDS`` of each unit's own card (units: sectors, rows, columns)."""


def bucket(turns_left: int) -> int:
    """Which weight vector of the learned evaluation applies (one per number of turns left)."""
    return min(BUCKETS - 1, max(0, turns_left - 1))


def features(sheet: int, turns_left: int, unseen: list[str] | None) -> list[float]:
    """The feature vector of ``sheet`` (see :data:`NFEAT`) when ``unseen`` are the cards that
    may still come."""
    return analyse(sheet, turns_left, unseen or []).f


class Analysis:
    """:func:`features` of a sheet with what :func:`card_gone` needs to adjust them."""

    def __init__(self, f: list[float], cov: list[int], dead: int, risk: float) -> None:
        self.f = f
        self.cov = cov
        """:func:`covers` of the empty cells."""
        self.dead = dead
        """Dead cells (feature 39)."""
        self.risk = risk
        """:func:`risk_of` over the unseen cards (feature 42 before its time share)."""


def _cell_placements() -> tuple[list[list[int]], list[list[int]]]:
    """Per cell: the masks of every tetromino placement over it, and their shape indices."""
    masks: list[list[int]] = [[] for _ in range(81)]
    shapes: list[list[int]] = [[] for _ in range(81)]
    for si, shape in enumerate(TETROMINOES):
        for m in PLACEMENTS[shape]:
            for i in range(81):
                if m >> i & 1:
                    masks[i].append(m)
                    shapes[i].append(si)
    return masks, shapes


_CELL_PL: Final = _cell_placements()
CELL_PL_MASKS: Final[list[list[int]]] = _CELL_PL[0]
CELL_PL_SHAPES: Final[list[list[int]]] = _CELL_PL[1]


def finishers(holes: int, empty: int, places: int) -> int:
    """The tetrominoes (bit ``i`` for ``TETROMINOES[i]``) that one placement inside ``empty``,
    over all of ``holes`` and touching ``places``, can draw."""
    low = (holes & -holes).bit_length() - 1
    masks = CELL_PL_MASKS[low]
    shapes = CELL_PL_SHAPES[low]
    found = 0
    for j in range(len(masks)):
        m = masks[j]
        if m & holes == holes and m & empty == m and m & places:
            found |= 1 << shapes[j]
    return found


def analyse(sheet: int, turns_left: int, unseen: list[str]) -> Analysis:
    """The features of ``sheet`` (see :data:`NFEAT`) and the parts they are made of."""
    ubits = 0
    places = 0
    for card in unseen or []:
        ubits |= 1 << CARD_INDEX[card]
        places |= CARD_MASK[card]
    empty = FULL & ~sheet
    cov = covers(empty)
    dead = empty & ~reachable(empty, places)
    _, waste, fours = regions(empty)
    f = [0.0] * NFEAT
    f[0] = 1.0
    for u in range(27):
        m = UNIT_MASKS[u]
        e = popcount(empty & m)
        coming = (ubits >> UNIT_CARD[u]) & 1
        if e == 0:
            if coming:
                f[43 if u < 9 else 44] += 1.0
            continue
        if dead & m:
            f[37 if u < 9 else 38] += 1.0
            continue
        base = 1 if u < 9 else 19
        if not coming:
            base += 9
        f[base + e - 1] += 1.0
        if e <= 4:
            fin = finishers(empty & m, empty, places)
            if fin:
                f[55 if u < 9 else 56] += float(5 - popcount(fin))
            elif e >= 2:
                f[(49 if u < 9 else 52) + e - 2] += 1.0
    f[39] = float(popcount(dead))
    f[40] = float(waste)
    f[41] = float(fours)
    risk = 0.0
    if unseen and turns_left > 0:
        risk = risk_of(cov, unseen)
        f[42] = min(1.0, turns_left / len(unseen)) * risk
    left = ((empty << 1) & NOT_COL0) & empty
    right = ((empty >> 1) & NOT_COL8) & empty
    up = (empty << 9) & empty & FULL
    down = (empty >> 9) & empty
    f[45] = float(popcount(empty & ~left) + popcount(empty & ~right))
    f[46] = float(popcount(empty & ~up) + popcount(empty & ~down))
    two = (left & (right | up | down)) | (right & (up | down)) | (up & down)
    f[47] = float(popcount(empty & ~two))
    f[48] = float(81 - popcount(empty))
    return Analysis(f, cov, dead, risk)


def linear_value(sheet: int, turns_left: int, w: Weights, unseen: list[str] | None) -> float:
    """Points so far plus the learned estimate of the points still to come."""
    if turns_left <= 0:
        return float(score_sheet(sheet))
    f = analyse(sheet, turns_left, unseen or []).f
    return learned_value(sheet, f, w.linear[bucket(turns_left)])


def learned_value(sheet: int, f: list[float], wv: list[float]) -> float:
    """Points of ``sheet`` plus ``wv`` . ``f``."""
    total = float(score_sheet(sheet))
    for i in range(NFEAT):
        total += wv[i] * f[i]
    return total


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


CARD_UNIT: Final[list[int]] = [UNIT_CARD.index(k) for k in range(27)]
"""Index in ``UNIT_MASKS`` of each card's place (inverse of ``UNIT_CARD``)."""


def card_gone(
    sheet: int, turns_left: int, wv: list[float], a: Analysis, unseen_n: int, k: int
) -> float:
    """How the learned value of ``sheet`` (weights ``wv``, analysed in ``a`` with
    ``unseen_n`` cards that may come, card ``k`` among them) changes once card ``k`` is
    flipped: its place is no longer to come and it no longer risks a skip. (Cells that only
    card ``k`` could still reach stay counted as alive.)"""
    u = CARD_UNIT[k]
    m = UNIT_MASKS[u]
    e = popcount(m & ~sheet)
    sector = u < 9
    delta = 0.0
    if e == 0:
        delta -= wv[43 if sector else 44]
    elif not a.dead & m:
        base = 1 if sector else 19
        delta += wv[base + 9 + e - 1] - wv[base + e - 1]
    if turns_left > 0 and a.risk > 0.0:
        r_k = card_risk(a.cov, CARD_MASK[CARDS[k]])
        share = min(1.0, turns_left / (unseen_n - 1)) if unseen_n > 1 else 0.0
        delta += wv[42] * (share * (a.risk - r_k) - a.f[42])
    return delta


def next_turn_value(sheet: int, turns_left: int, unseen: list[str], w: Weights) -> float:
    """Expected value of the best placement of the next turn: uniform over the unseen
    cards (the next card is one of them) and the six die faces; a skip keeps the sheet.
    Each free placement is evaluated once and credited to every card it touches; with the
    learned evaluation, for each card as it will be then: flipped, no longer to come."""
    if turns_left <= 0 or not unseen:
        return evaluate(sheet, turns_left, w, unseen)
    tl = turns_left - 1
    ncards = len(CARDS)
    n = len(unseen)
    wanted = [False] * ncards
    for c in unseen:
        wanted[CARD_INDEX[c]] = True
    learned = bool(w.linear) and tl > 0
    wv = w.linear[bucket(tl)] if learned else []
    skip_a = analyse(sheet, tl, unseen) if learned else None
    skip_base = learned_value(sheet, skip_a.f, wv) if skip_a else evaluate(sheet, tl, w, unseen)
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
            after = sheet | m
            if learned:
                an = analyse(after, tl, unseen)
                v = learned_value(after, an.f, wv)
                for k in cards:
                    if wanted[k]:
                        vk = v + card_gone(after, tl, wv, an, n, k)
                        if vk > row[k]:
                            row[k] = vk
            else:
                v = evaluate(after, tl, w, unseen)
                for k in cards:
                    if v > row[k]:
                        row[k] = v
    total = 0.0
    for c in unseen:
        k = CARD_INDEX[c]
        skip_value = skip_base
        if skip_a is not None:
            skip_value += card_gone(sheet, tl, wv, skip_a, n, k)
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
    return total / n


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
        v = next_turn_value(sheet | ch.mask, turns_left, unseen, w)
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


def play_solo(level: str, seed: int, bonus: bool = False, weights: Weights | None = None) -> int:
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


__all__ = ["TedokuBot", "Weights", "evaluate", "features", "plan", "play_solo"]
