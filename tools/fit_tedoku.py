"""Backward fit of the Tedoku ``hard`` evaluation (core/ai/tedoku_bot.py ``HARD_LINEAR``).

Run on a mypyc-compiled scratch copy of core/ (see tools/compile_check), e.g.
``PYTHONPATH=/tmp/scratch python tools/fit_tedoku.py 600 1 prev.out`` where ``prev.out`` ends
with a weight table printed by an earlier run (the sampling policy: ``medium`` with those
weights; without it the hand-made weights). Samples: the sheet after every turn of seeded
solo games (seeds 10000+). V_0 is the exact score; for t = 1..19, V_t (points so far plus
weights . features) is fitted by least squares to the one-turn expectimax under V_(t-1)
(every card still possible and the six die faces, wild = best shape, a forced skip keeps
the sheet). Argument 2 = 1: features and leaf sheets with the skip-risk term (as ``hard``).
The committed table: ``400 0 > fit400.out`` (no previous table), then
``600 1 fit400.out``.
"""

import ast
import sys
import time
from random import Random

from core.ai.tedoku_bot import (
    BUCKETS,
    DEFAULT_WEIGHTS,
    NFEAT,
    TedokuBot,
    Weights,
    features,
    next_turn_value,
    solve,
)
from core.tedoku import CARDS, TURNS, score_sheet
from core.tedoku import GAME as TEDOKU


def gather(games: int, seed0: int, w: Weights, level: str) -> list[tuple[int, int, list[str]]]:
    out: list[tuple[int, int, list[str]]] = []
    for g in range(games):
        bot = TedokuBot(level, w)
        rng = Random(seed0 + g)
        brng = Random(seed0 + g + 99991)
        st = TEDOKU.initial()
        for ev in TEDOKU.start({"seats": 1, "bonus": False}, rng):
            st = TEDOKU.evolve(st, ev)
        while TEDOKU.outcome(st) is None:
            v = TEDOKU.view(st, 0)
            flipped = [str(c) for c in v.get("flipped", [])]
            turn = int(v["turn"])
            cmd = bot.choose(v, 0, brng)
            for ev in TEDOKU.decide(st, 0, cmd, rng):
                st = TEDOKU.evolve(st, ev)
            tl = TURNS - turn
            if tl > 0:
                out.append((tl, st.sheets[0], [c for c in CARDS if c not in flipped]))
    return out


def fit(samples: list[tuple[int, int, list[str]]], ridge: float = 0.01,
        risk: bool = False) -> list[list[float]]:
    lin = [[0.0] * NFEAT for _ in range(BUCKETS)]
    w = Weights(linear=lin)
    for tl in range(1, TURNS):
        a = [[0.0] * NFEAT for _ in range(NFEAT)]
        y = [0.0] * NFEAT
        for stl, sheet, unseen in samples:
            if stl != tl:
                continue
            f = features(sheet, tl, unseen if risk else None)
            t = next_turn_value(sheet, tl, unseen, w, risk) - score_sheet(sheet)
            for i in range(NFEAT):
                fi = f[i]
                if fi == 0.0:
                    continue
                y[i] += fi * t
                for j in range(NFEAT):
                    a[i][j] += fi * f[j]
        for i in range(NFEAT):
            a[i][i] += ridge
        lin[tl - 1] = solve(a, y)
        print(tl, round(lin[tl - 1][0], 2), flush=True)
    return lin


if __name__ == "__main__":
    games = int(sys.argv[1])
    risk = sys.argv[2] == "1"
    w0 = DEFAULT_WEIGHTS
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as fh:
            w0 = Weights(linear=ast.literal_eval(fh.read().strip().splitlines()[-1]))
    t0 = time.time()
    s = gather(games, 10_000, w0, "medium")
    print("samples", len(s), time.time() - t0, flush=True)
    lin = fit(s, risk=risk)
    print("fit", time.time() - t0, flush=True)
    print(repr([[round(x, 4) for x in v] for v in lin]))
