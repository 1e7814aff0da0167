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
learned evaluation's 16 best placements after the lookahead (each valued by its evaluation
plus 1.3 times the lookahead's correction of it, :attr:`TedokuLevel.correction`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.base import Bot
from core.api import Obj
from core.tedoku import (
    BONUS_SHAPES,
    BY_CARD,
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
        -1.0093, 0.0914, -0.014, -0.0859, -0.1079, -0.0026, -0.0168, -0.023,
        -0.0069, 0.0123, -0.0338, -0.1156, -0.1521, -0.1613, -0.0571, -0.056,
        -0.0736, -0.0809, -0.2377, 0.1712, 0.1211, 0.0616, 0.0476, -0.0173,
        -0.0425, -0.0006, -0.0235, 0.0077, 0.0941, 0.0675, 0.0237, 0.0226,
        -0.0449, -0.0696, -0.1045, -0.1586, 0.0, -0.0084, -0.004, 0.0324,
        0.012, 0.0694, -1.0335, -0.0068, -0.008, 0.0034, 0.003, -0.0124,
        0.0262, 0.1095, 0.1433, 0.1501, -0.0993, -0.0179, -0.0266, 0.0289,
        -0.0057, 1.912, 0.2289,
    ],
    [
        1.9726, 0.1946, 0.0334, -0.119, -0.1318, 0.0103, 0.0144, -0.0186,
        -0.0184, -0.0244, 0.0401, -0.1247, -0.2078, -0.236, -0.0626, -0.0823,
        -0.1371, -0.1532, -0.4411, 0.2174, 0.1585, 0.083, 0.0696, 0.0219,
        -0.007, 0.0125, 0.0947, -0.0541, 0.1368, 0.091, 0.0133, 0.0146,
        -0.065, -0.0907, -0.1103, -0.2404, 0.0, -0.015, 0.0009, 0.0272,
        -0.0057, 0.1318, -0.7127, -0.0359, -0.0406, -0.0136, -0.0124, -0.0043,
        -0.0021, 0.1692, 0.2391, 0.2219, -0.1431, -0.0056, -0.0326, 0.0406,
        -0.0027, 1.7226, 0.2422,
    ],
    [
        5.8056, 0.3456, 0.1209, -0.0432, -0.0605, 0.109, 0.089, 0.0247,
        0.01, -0.0682, 0.1683, -0.065, -0.1746, -0.2126, -0.0067, -0.0572,
        -0.1411, -0.2202, -0.4907, 0.2394, 0.1673, 0.1002, 0.096, 0.0818,
        0.0546, 0.019, 0.05, -0.0049, 0.1439, 0.0884, -0.008, -0.0076,
        -0.0633, -0.1024, -0.1499, -0.2233, 0.0, 0.0083, 0.0078, 0.02,
        -0.0357, 0.2221, -0.5368, -0.0659, -0.091, -0.0402, -0.036, -0.0017,
        -0.0422, 0.2397, 0.2974, 0.305, -0.1336, 0.0079, -0.0218, 0.0372,
        0.0015, 1.5791, 0.2647,
    ],
    [
        9.2879, 0.4694, 0.2068, 0.0055, 0.0088, 0.2285, 0.1858, 0.1087,
        0.0527, -0.0743, 0.2889, 0.008, -0.1184, -0.1517, 0.0832, 0.0087,
        -0.1172, -0.2008, 0.0, 0.2332, 0.1416, 0.074, 0.0872, 0.1305,
        0.1072, 0.0714, 0.0578, 0.0589, 0.1389, 0.0676, -0.0473, -0.0549,
        -0.0483, -0.1057, -0.1651, -0.2094, 0.0, 0.0423, 0.0273, 0.0138,
        -0.0767, 0.3155, -0.4913, -0.0942, -0.1309, -0.0706, -0.0694, 0.0011,
        -0.0755, 0.2932, 0.3677, 0.3582, -0.0722, 0.0663, 0.0299, 0.0333,
        0.0123, 1.5084, 0.2875,
    ],
    [
        11.7025, 0.5543, 0.2527, 0.0382, 0.0533, 0.3527, 0.2742, 0.1864,
        0.092, -0.0624, 0.3948, 0.0677, -0.0703, -0.0958, 0.1808, 0.0848,
        -0.0796, -0.1832, -0.2001, 0.2436, 0.13, 0.0738, 0.1053, 0.1901,
        0.1724, 0.15, 0.1328, 0.1205, 0.1681, 0.0791, -0.0486, -0.0538,
        -0.0093, -0.09, -0.155, -0.1672, 0.0, 0.0533, 0.0709, 0.0209,
        -0.1202, 0.4364, -0.487, -0.1203, -0.1668, -0.1016, -0.1008, -0.0153,
        -0.0932, 0.4276, 0.4768, 0.4125, 0.0082, 0.1254, 0.0571, 0.0334,
        0.0164, 1.4743, 0.2904,
    ],
    [
        13.3078, 0.6638, 0.3464, 0.1519, 0.1756, 0.4976, 0.3859, 0.2898,
        0.1839, 0.0132, 0.5276, 0.1812, 0.0396, 0.032, 0.3074, 0.1842,
        0.0024, -0.1351, -0.151, 0.2421, 0.1174, 0.0606, 0.0948, 0.2307,
        0.2133, 0.1895, 0.176, 0.1771, 0.1856, 0.0741, -0.0648, -0.0716,
        0.0062, -0.0828, -0.1323, -0.151, 0.0, 0.064, 0.1215, 0.0149,
        -0.1563, 0.5389, -0.4662, -0.1449, -0.198, -0.1295, -0.129, -0.0242,
        -0.1009, 0.5268, 0.5111, 0.4379, 0.089, 0.1915, 0.1158, 0.0231,
        0.02, 1.4266, 0.3127,
    ],
    [
        12.8903, 0.8043, 0.5009, 0.3265, 0.3615, 0.6652, 0.5399, 0.4432,
        0.3322, 0.1449, 0.7086, 0.3641, 0.2185, 0.242, 0.4656, 0.3214,
        0.1438, -0.0137, 0.0, 0.2238, 0.1069, 0.0578, 0.1093, 0.2827,
        0.2698, 0.2505, 0.2346, 0.2337, 0.2029, 0.0738, -0.0638, -0.0663,
        0.0369, -0.0413, -0.0962, -0.1345, 0.0, 0.0779, 0.1664, 0.0165,
        -0.1967, 0.6487, -0.4425, -0.1859, -0.2221, -0.1492, -0.1503, -0.0258,
        -0.0825, 0.5703, 0.4795, 0.3646, 0.1599, 0.2336, 0.1568, 0.0066,
        0.0192, 1.3287, 0.3512,
    ],
    [
        12.25, 0.9334, 0.644, 0.4856, 0.5569, 0.8378, 0.6943, 0.5974,
        0.4863, 0.3043, 0.8693, 0.5292, 0.3926, 0.4452, 0.617, 0.4537,
        0.2822, 0.1121, 0.0, 0.2549, 0.1358, 0.0915, 0.1558, 0.3095,
        0.2974, 0.2734, 0.2647, 0.2514, 0.2451, 0.1054, -0.0287, -0.0378,
        0.0421, -0.0392, -0.0922, -0.1418, 0.0, 0.0658, 0.2044, -0.0027,
        -0.2466, 0.7153, -0.4404, -0.2101, -0.239, -0.1611, -0.1619, -0.0294,
        -0.0589, 0.5924, 0.4761, 0.3229, 0.1754, 0.2238, 0.138, -0.0094,
        0.0124, 1.256, 0.3363,
    ],
    [
        9.9451, 1.088, 0.7938, 0.6613, 0.7581, 1.0076, 0.8565, 0.7571,
        0.6411, 0.4604, 1.0243, 0.704, 0.565, 0.6368, 0.7611, 0.5927,
        0.4113, 0.237, 0.0, 0.2961, 0.1852, 0.1613, 0.2424, 0.391,
        0.3831, 0.3697, 0.3668, 0.3586, 0.2844, 0.1424, 0.028, 0.0278,
        0.0999, 0.0174, -0.0353, -0.0853, 0.0, 0.0746, 0.2635, -0.0119,
        -0.3002, 0.7634, -0.4209, -0.2153, -0.2455, -0.1698, -0.1704, -0.0319,
        -0.0186, 0.5938, 0.4776, 0.2866, 0.1884, 0.2215, 0.1214, -0.024,
        0.0053, 1.1833, 0.3351,
    ],
    [
        8.6118, 1.2262, 0.9385, 0.8134, 0.9249, 1.1275, 0.9651, 0.8511,
        0.7339, 0.5508, 1.1756, 0.8707, 0.7308, 0.7917, 0.866, 0.686,
        0.4911, 0.3199, 0.0, 0.3541, 0.2518, 0.2499, 0.3361, 0.4531,
        0.4429, 0.4319, 0.4346, 0.4278, 0.3665, 0.2103, 0.115, 0.1113,
        0.139, 0.0614, 0.0035, -0.0502, 0.0, 0.1205, 0.2722, 0.0116,
        -0.3538, 0.7636, -0.4283, -0.2192, -0.2457, -0.177, -0.1766, -0.0335,
        0.0122, 0.5838, 0.4776, 0.2529, 0.1764, 0.1822, 0.0783, -0.035,
        -0.004, 1.0997, 0.2991,
    ],
    [
        6.8566, 1.3295, 1.0554, 0.9385, 1.0489, 1.2409, 1.0659, 0.9415,
        0.8151, 0.6241, 1.2902, 0.9937, 0.8625, 0.9147, 0.9693, 0.7788,
        0.57, 0.395, 0.0, 0.4012, 0.3105, 0.319, 0.4133, 0.5262,
        0.5214, 0.5183, 0.5224, 0.5247, 0.4209, 0.2682, 0.1861, 0.184,
        0.1991, 0.1238, 0.0658, 0.0175, 0.0, 0.1332, 0.29, 0.0542,
        -0.4229, 0.7522, -0.4579, -0.2055, -0.2244, -0.1819, -0.1811, -0.0272,
        0.0467, 0.6034, 0.4816, 0.255, 0.1681, 0.1606, 0.061, -0.0411,
        -0.0069, 1.0426, 0.2751,
    ],
    [
        4.425, 1.4103, 1.1652, 1.0644, 1.1847, 1.4097, 1.2411, 1.1231,
        1.0097, 0.831, 1.401, 1.1305, 1.015, 1.0713, 1.1438, 0.9689,
        0.7703, 0.6052, 0.0, 0.4352, 0.3543, 0.3729, 0.4777, 0.5601,
        0.5624, 0.5656, 0.5704, 0.5755, 0.4713, 0.3344, 0.2639, 0.2658,
        0.252, 0.1782, 0.1163, 0.0679, 0.0, 0.2148, 0.2631, 0.1001,
        -0.5069, 0.7345, -0.5092, -0.1985, -0.1974, -0.1838, -0.183, -0.0162,
        0.0943, 0.6208, 0.5034, 0.2771, 0.1277, 0.1255, 0.0248, -0.0406,
        -0.0128, 0.9962, 0.2467,
    ],
    [
        2.7422, 1.5189, 1.302, 1.2119, 1.3306, 1.5352, 1.3727, 1.2578,
        1.1505, 0.9787, 1.554, 1.3008, 1.1966, 1.2495, 1.2913, 1.1172,
        0.9345, 0.7672, 0.0, 0.4505, 0.3838, 0.4069, 0.5225, 0.5906,
        0.598, 0.6039, 0.6097, 0.6139, 0.5129, 0.3902, 0.3288, 0.3328,
        0.3035, 0.2364, 0.1735, 0.1221, 0.0, 0.2468, 0.2565, 0.1447,
        -0.5516, 0.6943, -0.5419, -0.1945, -0.188, -0.1845, -0.184, -0.0026,
        0.1311, 0.5971, 0.484, 0.2465, 0.112, 0.1033, 0.0023, -0.0429,
        -0.0156, 0.9108, 0.2322,
    ],
    [
        1.4862, 1.5935, 1.4025, 1.3274, 1.4513, 1.641, 1.4842, 1.3713,
        1.2723, 1.1045, 1.6811, 1.4496, 1.3591, 1.4041, 1.437, 1.2581,
        1.0785, 0.922, 0.0, 0.4287, 0.3765, 0.409, 0.5278, 0.6116,
        0.6264, 0.6304, 0.6367, 0.6367, 0.5262, 0.4247, 0.3683, 0.3768,
        0.3586, 0.2952, 0.2294, 0.1719, 0.0, 0.2839, 0.2331, 0.1978,
        -0.6331, 0.6558, -0.576, -0.1948, -0.1973, -0.186, -0.1855, 0.0146,
        0.1674, 0.588, 0.4758, 0.2425, 0.127, 0.1169, 0.016, -0.0454,
        -0.0151, 0.8444, 0.2416,
    ],
    [
        0.7071, 1.7277, 1.5601, 1.4895, 1.6214, 1.7818, 1.6328, 1.5269,
        1.4343, 1.2721, 1.8388, 1.6199, 1.5328, 1.5696, 1.5898, 1.4099,
        1.2374, 1.0871, 0.0, 0.4129, 0.3822, 0.4217, 0.544, 0.6326,
        0.6435, 0.639, 0.6336, 0.6206, 0.5183, 0.4461, 0.388, 0.4092,
        0.3869, 0.3146, 0.2369, 0.1658, 0.0, 0.3125, 0.2171, 0.2229,
        -0.7693, 0.5886, -0.5868, -0.1927, -0.1895, -0.1867, -0.1861, 0.0365,
        0.192, 0.5409, 0.446, 0.2188, 0.1554, 0.1316, 0.0197, -0.0455,
        -0.0196, 0.7512, 0.2719,
    ],
    [
        0.9625, 1.8149, 1.6455, 1.5443, 1.633, 1.7469, 1.5802, 1.4557,
        1.3432, 1.1618, 1.9654, 1.7403, 1.6206, 1.6168, 1.5966, 1.394,
        1.1945, 1.027, 0.0, 0.4055, 0.4002, 0.4443, 0.5794, 0.6827,
        0.701, 0.6976, 0.6898, 0.671, 0.5339, 0.501, 0.4494, 0.4859,
        0.4777, 0.4073, 0.3259, 0.2467, 0.0, 0.1557, 0.329, 0.1734,
        -0.8827, 0.5292, -0.6419, -0.1806, -0.1687, -0.187, -0.1866, 0.0592,
        0.2253, 0.4841, 0.4084, 0.193, 0.1643, 0.1472, 0.0315, -0.0406,
        -0.0209, 0.6449, 0.2863,
    ],
    [
        0.1799, 1.4931, 1.2074, 0.9592, 0.8942, 0.8946, 0.596, 0.3403,
        0.0939, -0.2194, 1.9272, 1.5752, 1.3041, 1.1561, 1.0247, 0.6873,
        0.3543, 0.0473, 0.0, 0.0392, 0.0205, 0.021, 0.1057, 0.2203,
        0.19, 0.1282, 0.057, -0.0291, 0.4393, 0.4033, 0.3003, 0.3024,
        0.2946, 0.1714, 0.0282, -0.1177, 0.0, -0.2291, -0.1754, 0.0538,
        -0.419, 0.4837, -0.7274, -0.3834, -0.3778, -0.1866, -0.1871, 0.0844,
        2.1584, 0.4688, 0.4111, 0.216, 0.2457, 0.2234, 0.0931, -0.0307,
        -0.0218, 0.5876, 0.3631,
    ],
    [
        0.1917, -0.162, -0.1114, -0.0773, 0.1008, 0.3141, 0.3263, 0.3645,
        0.4156, 0.407, -0.0212, -0.0567, -0.0295, 0.0611, 0.1446, 0.1146,
        0.0832, 0.0619, 0.0, -0.3859, -0.1342, 0.0614, 0.3198, 0.4058,
        0.5499, 0.6508, 0.7389, 0.8036, -0.2684, -0.059, 0.0341, 0.2226,
        0.1898, 0.2356, 0.2493, 0.2569, 0.0, -0.2104, -0.4209, -0.2104,
        -0.4392, 0.4395, -1.1341, 0.0, 0.0, -0.1842, -0.1849, 0.1079,
        1.5335, 0.3191, 0.2703, 0.1255, 0.0773, 0.0524, -0.0872, -0.0273,
        -0.0502, 0.4083, 0.2478,
    ],
    [
        0.1696, 0.0, 0.0, 0.0, 0.0, -0.1366, 0.2969, 0.324,
        0.3691, 0.7644, 0.0, 0.0, 0.0, 0.0, -0.2865, 0.1059,
        0.056, 0.0336, 0.0, 0.0, 0.0, 0.0, 0.0, -0.1898,
        0.2361, 0.5906, 0.9264, 1.2295, 0.0, 0.0, 0.0, 0.0,
        -0.3601, -0.0425, 0.2049, 0.4585, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.065, 0.0, 0.0, -0.1804, -0.1804, 0.1298,
        0.6786, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0,
    ],
    [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0,
    ],
]
"""Weights of the learned evaluation used by ``hard``, per turns left 1-19 (over
:func:`features`), fitted backwards by ``tools/fit_tedoku.py``: V_0 is the exact score, V_t
is fitted by least squares to the one-turn expectimax under V_(t-1), on the sheets of greedy
play and of the placements it rated next best (see that tool's docstring for the run)."""
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


NFEAT: Final = 59
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
how many of the five shapes cannot, summed for sectors (55) and for rows and columns (56);
and the chance of at least one turn that allows such a drawing, ``1 - exp(-x)`` with ``x``
the expected number of them (cards that may still come and allow one, times the chance
each comes, times the share of die faces that can finish), summed the same way (57, 58).
"Can finish": drawn inside the empty cells, over all of the unit's empty cells, touching a
card that may still come."""
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


def finishers(holes: int, empty: int, places: int) -> tuple[int, int]:
    """The tetrominoes (bit ``i`` for ``TETROMINOES[i]``) that one placement inside ``empty``,
    over all of ``holes`` and touching ``places``, can draw; and the union of those
    placements (a card allows one of them exactly when it meets that union)."""
    low = (holes & -holes).bit_length() - 1
    masks = CELL_PL_MASKS[low]
    shapes = CELL_PL_SHAPES[low]
    found = 0
    reach = 0
    for j in range(len(masks)):
        m = masks[j]
        if m & holes == holes and m & empty == m and m & places:
            found |= 1 << shapes[j]
            reach |= m
    return found, reach


def analyse(sheet: int, turns_left: int, unseen: list[str]) -> Analysis:
    """The features of ``sheet`` (see :data:`NFEAT`) and the parts they are made of."""
    ubits = 0
    places = 0
    umasks: list[int] = []
    for card in unseen or []:
        cm = CARD_MASK[card]
        ubits |= 1 << CARD_INDEX[card]
        places |= cm
        umasks.append(cm)
    empty = FULL & ~sheet
    come = min(1.0, turns_left / len(unseen)) if unseen else 0.0
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
            fin, reach = finishers(empty & m, empty, places)
            if fin:
                nf = popcount(fin)
                f[55 if u < 9 else 56] += float(5 - nf)
                chances = 0
                for cm in umasks:
                    if cm & reach:
                        chances += 1
                lam = chances * come * (nf + 1) / 6.0
                f[57 if u < 9 else 58] += 1.0 - math.exp(-lam)
            elif e >= 2:
                f[(49 if u < 9 else 52) + e - 2] += 1.0
    f[39] = float(popcount(dead))
    f[40] = float(waste)
    f[41] = float(fours)
    risk = 0.0
    if unseen and turns_left > 0:
        risk = risk_of(cov, unseen)
        f[42] = come * risk
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
    def __init__(
        self,
        kind: str,
        candidates: int = 0,
        noise: float = 0.0,
        deep_turns: int = 0,
        finalists: int = 0,
        width: int = 0,
        correction: float = 1.0,
    ) -> None:
        self.kind = kind
        """``simple``, ``eval`` or ``lookahead``."""
        self.candidates = candidates
        """Lookahead: how many of the evaluation's best placements are searched."""
        self.noise = noise
        """Random noise added to each placement's value (``easy``)."""
        self.deep_turns = deep_turns
        """Lookahead: with at most this many turns left, the ``finalists`` best placements
        of the one-turn lookahead are searched two turns deep (:func:`two_turn_value`)."""
        self.finalists = finalists
        self.width = width
        """Two-turn search: placements tried per next card and shape (the evaluation's best)."""
        self.correction = correction
        """Lookahead: how much of its correction of the evaluation counts. A placement is
        valued ``e + correction * (l - e)``, ``e`` its evaluation and ``l`` its one-turn
        lookahead value (1: the lookahead value itself)."""


TEDOKU_LEVELS: Final[dict[str, TedokuLevel]] = {
    "easy": TedokuLevel("simple", noise=0.6),
    "medium": TedokuLevel("eval"),
    "hard": TedokuLevel(
        "lookahead", candidates=16, deep_turns=5, finalists=6, width=2, correction=1.3
    ),
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
        if level.kind == "simple":
            v = simple_value(sheet | m)
        else:
            v = evaluate(sheet | m, turns_left, w, unseen)
        v += kept_bonus(shape, bonus_n)
        if level.noise > 0.0:
            v += rng.random() * level.noise
        choices.append(Choice(shape, m, v))
    if skip_ok:
        if level.kind == "simple":
            sv = simple_value(sheet)
        else:
            sv = evaluate(sheet, turns_left, w, unseen)
        choices.append(Choice("", 0, sv + kept_bonus("", bonus_n)))
    if not choices:
        raise ValueError("no legal Tedoku move")
    # Stable order: value first, then cells (reproducible whatever the set iteration).
    choices.sort(key=lambda c: (-c.value, c.mask, c.shape))
    if level.kind != "lookahead" or turns_left <= 0 or len(choices) == 1:
        if progress is not None:
            progress(1.0)
        return choices[0]
    top = choices[: level.candidates]
    deep = 1 < turns_left <= level.deep_turns and level.finalists > 1
    share = 0.5 if deep else 1.0
    looked: list[Choice] = []
    for i, ch in enumerate(top):
        if i > 0 and should_stop is not None and should_stop():
            return best_of(looked)
        kept = kept_bonus(ch.shape, bonus_n)
        v = next_turn_value(sheet | ch.mask, turns_left, unseen, w)
        if level.correction != 1.0:
            e = ch.value - kept
            v = e + level.correction * (v - e)
        looked.append(Choice(ch.shape, ch.mask, v + kept))
        if progress is not None:
            progress(share * (i + 1) / len(top))
    if not deep:
        return best_of(looked)
    # Stable: among equal values the evaluation's order stays.
    looked.sort(key=lambda c: -c.value)
    finalists = looked[: level.finalists]
    deeper: list[Choice] = []
    for i, ch in enumerate(finalists):
        if i > 0 and should_stop is not None and should_stop():
            break
        v = two_turn_value(sheet | ch.mask, turns_left, unseen, w, level.width)
        deeper.append(Choice(ch.shape, ch.mask, v + kept_bonus(ch.shape, bonus_n)))
        if progress is not None:
            progress(0.5 + 0.5 * (i + 1) / len(finalists))
    return best_of(deeper)


def kept_bonus(shape: str, bonus_n: int) -> float:
    """What the bonus shapes still unused after drawing ``shape`` (``""``: a skip) are worth,
    ``bonus_n`` of them unused before."""
    return BONUS_VALUE * (bonus_n - (1 if shape in BONUS_SHAPES else 0))


def best_of(choices: list[Choice]) -> Choice:
    """The first choice of the highest value."""
    best = choices[0]
    for ch in choices:
        if ch.value > best.value:
            best = ch
    return best


def two_turn_value(sheet: int, turns_left: int, unseen: list[str], w: Weights, width: int) -> float:
    """Like :func:`next_turn_value` one turn deeper: for each next card and die face, the
    best of the evaluation's ``width`` best placements of each shape touching that card,
    each valued by :func:`next_turn_value` with that card flipped (a forced skip keeps the
    sheet). Exact at the end of the game but for that pruning."""
    if turns_left <= 1 or not unseen:
        return next_turn_value(sheet, turns_left, unseen, w)
    tl = turns_left - 1
    total = 0.0
    for c in unseen:
        rest = [x for x in unseen if x != c]
        skip_value = -1e18
        best_any = -1e18
        face_sum = 0.0
        for shape in TETROMINOES:
            ranked: list[tuple[float, int]] = []
            for m in BY_CARD[shape][c]:
                if not m & sheet:
                    ranked.append((-evaluate(sheet | m, tl, w, rest), m))
            if ranked:
                ranked.sort()
                b = -1e18
                for _, m in ranked[:width]:
                    v = next_turn_value(sheet | m, tl, rest, w)
                    if v > b:
                        b = v
            else:
                if skip_value < -1e17:
                    skip_value = next_turn_value(sheet, tl, rest, w)
                b = skip_value
            face_sum += b
            if b > best_any:
                best_any = b
        total += (face_sum + best_any) / 6.0
    return total / len(unseen)


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
