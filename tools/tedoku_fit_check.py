"""How well the Tedoku ``hard`` evaluation fits its own one-turn backup, and what else could
explain what it misses (the figures in docs/ai.md, Tedoku, "Where the linear evaluation
stands").

Plays ``--games`` seeded solo games greedily by the committed table (``HARD_LINEAR``), keeping
the sheet after every turn and after ``--alternatives`` of the next-best placements, exactly as
``tools/fit_tedoku.py`` does; the target of each sheet is the one-turn expectimax under the
committed table (``next_turn_value``), the quantity each table row is fitted to. Then, per
number of turns left, on the last 20% of the games (fitted on the first 80%):

* the mean squared error of the linear fit over the 59 features, and the ratio of the error
  left when each of these is added: the log of the number of free placements touching each
  card that may still come (summed), histograms of the 2x2 and 3x3 windows of the sheet (up to
  symmetry), the 81 cells, the empty cells of each of the 27 units, which cards may still come
  (each refitted together with the 59); and of a small network (one hidden layer of 16, ReLU)
  over the 59 features and the turn, fitted to what the linear fits leave on all these turns
  at once;
* the same error of the committed table on sheets the greedy play does not reach: after the
  best, a random and a lower-half placement for a random next card and die face;
* the table's value of a new game and the greedy play's mean total on the same seeds.

Needs numpy (``.venv/bin/pip install numpy``; only this tool uses it) and, to be quick, a
mypyc-compiled scratch copy of core/ (``PYTHONPATH=/tmp/scratch``, see tools/fit_tedoku.py).
About 5 minutes on 2 cores for 300 games.
"""

from __future__ import annotations

import argparse
import itertools
import math
from multiprocessing import Pool
from random import Random

import numpy as np

from core.ai.tedoku_bot import (
    HARD_LINEAR,
    HARD_WEIGHTS,
    UNIT_MASKS,
    evaluate,
    next_turn_value,
)
from core.tedoku import BY_CARD, CARDS, TETROMINOES, TURNS
from tools.fit_tedoku import Sample, play, score, target

Row = tuple[int, int, list[str], list[float], float]  # turns left, sheet, unseen, features, target


def sample_row(s: Sample) -> Row:
    f, t = target((s, HARD_LINEAR))
    return s[0], s[1], s[2], f, t


def ridge(x: np.ndarray, y: np.ndarray, lam: float = 0.01, extra: int = 0,
          extra_lam: float = 0.0) -> np.ndarray:
    """Least squares with ridge ``lam``, ``extra_lam`` on the last ``extra`` columns."""
    pen = np.full(x.shape[1], lam)
    if extra:
        pen[-extra:] = extra_lam
    return np.linalg.solve(x.T @ x + np.diag(pen), x.T @ y)


def window_classes(size: int) -> tuple[dict[tuple[int, ...], int], int]:
    """Each ``size`` x ``size`` window of filled/empty cells -> its class up to rotation and
    reflection."""
    canon: dict[tuple[int, ...], tuple[int, ...]] = {}
    for bits in itertools.product([0, 1], repeat=size * size):
        a = np.array(bits).reshape(size, size)
        keys = []
        for k in range(4):
            r = np.rot90(a, k)
            keys += [tuple(r.flatten()), tuple(r.T.flatten())]
        canon[bits] = min(keys)
    order = sorted(set(canon.values()))
    return {b: order.index(c) for b, c in canon.items()}, len(order)


WINDOWS = {size: window_classes(size) for size in (2, 3)}


def windows(sheet: int, size: int) -> list[float]:
    """Histogram of the sheet's windows (outside the sheet counts as filled)."""
    classes, n = WINDOWS[size]
    g = np.ones((11, 11), dtype=np.int8)
    for i in range(81):
        g[1 + i // 9, 1 + i % 9] = (sheet >> i) & 1
    out = [0.0] * n
    for r in range(12 - size):
        for c in range(12 - size):
            out[classes[tuple(int(v) for v in g[r:r + size, c:c + size].flatten())]] += 1.0
    return out


def placements(sheet: int, unseen: list[str]) -> list[float]:
    total = 0.0
    for card in unseen:
        n = sum(1 for shape in TETROMINOES for m in BY_CARD[shape][card] if not m & sheet)
        total += math.log1p(n)
    return [total]


EXTRAS = {
    "placements": lambda r: placements(r[1], r[2]),
    "2x2": lambda r: windows(r[1], 2),
    "3x3": lambda r: windows(r[1], 3),
    "cells": lambda r: [float((r[1] >> i) & 1) for i in range(81)],
    "units": lambda r: [float((m & ~r[1]).bit_count()) for m in UNIT_MASKS],
    "cards": lambda r: [1.0 if c in r[2] else 0.0 for c in CARDS],
}


def mlp_residual(x: np.ndarray, y: np.ndarray, xv: np.ndarray, hidden: int = 16,
                 steps: int = 3000, lr: float = 3e-3, wd: float = 1e-3) -> np.ndarray:
    """Fits ``relu(x W1 + b1) w2`` (standardized inputs, Adam, full batch) to ``y``; returns
    its predictions on ``xv``."""
    rng = np.random.default_rng(0)
    mu, sd = x.mean(0), x.std(0)
    sd[sd < 1e-6] = 1.0
    xs, xvs = (x - mu) / sd, (xv - mu) / sd
    params = [rng.normal(0, 1 / math.sqrt(x.shape[1]), (x.shape[1], hidden)),
              np.zeros(hidden), np.zeros(hidden)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        w1, b1, w2 = params
        z = xs @ w1 + b1
        a = np.maximum(z, 0)
        r = (a @ w2 - y) * 2 / len(y)
        ga = np.outer(r, w2) * (z > 0)
        grads = [xs.T @ ga + wd * w1, ga.sum(0), a.T @ r + wd * w2]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] -= lr * (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    w1, b1, w2 = params
    return np.maximum(xvs @ w1 + b1, 0) @ w2


def fit_report(rows: list[Row]) -> None:
    print("turns left | n | target variance | linear MSE | error ratio with each addition")
    lines: list[str] = []
    pooled: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for tl in range(2, 19, 2):
        rs = [r for r in rows if r[0] == tl]
        x = np.array([r[3] for r in rs])
        y = np.array([r[4] for r in rs])
        k = int(len(rs) * 0.8)
        res = y - x @ ridge(x[:k], y[:k])
        base = float(np.mean(res[k:] ** 2))
        parts = []
        for name, fn in EXTRAS.items():
            e = np.array([fn(r) for r in rs])
            e -= e[:k].mean(0)
            xe = np.hstack([x, e])
            best = min(
                float(np.mean((y[k:] - xe[k:] @ ridge(xe[:k], y[:k], 0.01, e.shape[1], lam))
                              ** 2))
                for lam in (0.1, 1.0, 10.0, 100.0)
            )
            parts.append(f"{name} {best / base:.2f}")
        lines.append(f"{tl:2d} | {len(rs)} | {y[k:].var():.2f} | {base:.4f} | " + ", ".join(parts))
        pooled.append((np.hstack([x, np.full((len(rs), 1), tl / TURNS)]), res,
                       np.arange(len(rs)) < k))
    # One network for all these turns (the turn as an input), on what the linear fits leave.
    x = np.vstack([p[0] for p in pooled])
    res = np.concatenate([p[1] for p in pooled])
    train = np.concatenate([p[2] for p in pooled])
    net = mlp_residual(x[train], res[train], x[~train])
    turn = x[~train, -1]
    for i, tl in enumerate(range(2, 19, 2)):
        at = np.isclose(turn, tl / TURNS)
        left = res[~train][at]
        ratio = float(np.mean((left - net[at]) ** 2) / np.mean(left**2))
        print(f"{lines[i]}, network {ratio:.2f}", flush=True)


def off_distribution(i_row: tuple[int, Row]) -> list[tuple[str, int, float]]:
    i, (tl, sheet, unseen, _, _) = i_row
    rng = Random(i)
    card, shape = rng.choice(unseen), rng.choice(TETROMINOES)
    opts = [m for m in BY_CARD[shape][card] if not m & sheet]
    if tl < 3 or not opts:
        return []
    rest = [c for c in unseen if c != card]
    ranked = sorted(((evaluate(sheet | m, tl - 1, HARD_WEIGHTS, rest), m) for m in opts),
                    reverse=True)
    half = ranked[len(ranked) // 2:]
    out = []
    for kind, (value, m) in (("best", ranked[0]), ("random", rng.choice(ranked)),
                             ("lower half", rng.choice(half))):
        backup = next_turn_value(sheet | m, tl - 1, rest, HARD_WEIGHTS)
        out.append((kind, tl - 1, value - backup))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--seed", type=int, default=5000)
    p.add_argument("--alternatives", type=int, default=4)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    with Pool(a.jobs) as pool:
        runs = pool.map(play, [(a.seed + g, HARD_LINEAR, a.alternatives)
                               for g in range(a.games)], chunksize=4)
        rows = pool.map(sample_row, [s for r in runs for s in r], chunksize=32)
        print(f"{len(rows)} sheets from {a.games} games (seeds {a.seed}+)\n")
        fit_report(rows)
        picks = Random(1).sample(list(enumerate(rows)), min(3000, len(rows)))
        off = [x for xs in pool.map(off_distribution, picks, chunksize=20) for x in xs]
        print("\nthe committed table on other sheets: value minus backup (bias, RMS)")
        for kind in ("best", "random", "lower half"):
            cells = []
            for lo, hi in ((2, 6), (6, 11), (11, 19)):
                e = np.array([d for k, t, d in off if k == kind and lo <= t < hi])
                cells.append(f"{lo}-{hi - 1} left: {e.mean():+.3f}, {math.sqrt((e**2).mean()):.3f}")
            print(f"{kind:10s} " + " | ".join(cells))
        totals = pool.map(score, [(a.seed + g, HARD_LINEAR) for g in range(a.games)],
                          chunksize=8)
    start = next_turn_value(0, TURNS, list(CARDS), HARD_WEIGHTS)
    print(f"\nthe table's value of a new game (one-turn lookahead from the empty sheet): "
          f"{start:.2f}; greedy play's mean total on these seeds: {np.mean(totals):.2f}")


if __name__ == "__main__":
    main()
