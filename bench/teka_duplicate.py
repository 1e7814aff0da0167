"""Teka in duplicate: one bot level against another on the same deals, the sides swapped.

``./gamenight bench duplicate [--deals 1000] [--matches 100] [--a expert] [--b hard]
[--workers 2] [--seed 1]``

* **Hands.** Each deal (a seeded shuffle and dealer) is played twice as one hand: level
  ``a`` on side 0 (seats 0 and 2) and ``b`` on side 1, then the other way round, the same
  cards in the same seats. What the cards were worth cancels out: the figure per deal is
  ``a``'s points minus ``b``'s, the mean of the two tables (so 2 x deals hands are played).
  Printed: points per hand for ``a`` with a 95 % interval (normal, over deals), contracts
  made and failed by each level as declarer, and how often the two tables differ at all.
* **Matches.** ``matches`` whole matches to 104, half with ``a`` on side 0 and the same
  seeds with ``a`` on side 1 (the first deal is the same, later ones follow from the play):
  ``a``'s win rate with a Wilson 95 % interval.
* **Time.** Seconds per decision of each level (median, p95, max), and the slowest
  decisions' share of the level's time limit.

Runs in ``workers`` processes (one deal or match a task) and shows its progress.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from random import Random
from typing import Any

from core.ai.bots import make_bot
from core.ai.teka_bot import TEKA_LEVELS
from core.ai.tournaments import Progress, wilson
from core.teka import GAME, TekaState

Obj = dict[str, Any]


def _play(levels: list[str], seed: int, target: int, first_dealer: int, one_hand: bool
          ) -> tuple[TekaState, dict[str, list[float]]]:
    """One seeded match (or its first hand) with ``levels[seat]``; the state at the end and
    the seconds of every decision per level."""
    bots = [make_bot("teka", lv) for lv in levels]
    rng = Random(seed)
    brng = Random(seed * 1_000_003 + 17)
    st = GAME.initial()
    for ev in GAME.start({"target": target, "first_dealer": first_dealer}, rng):
        st = GAME.evolve(st, ev)
    times: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    steps = 0
    while GAME.outcome(st) is None and not (one_hand and st.sheet):
        seat = GAME.to_act(st)[0]
        view = GAME.view(st, seat)
        t0 = time.perf_counter()
        cmd = bots[seat].choose(view, seat, brng)
        if view["phase"] == "play":
            times[levels[seat]].append(time.perf_counter() - t0)
        for ev in GAME.decide(st, seat, cmd, rng):
            st = GAME.evolve(st, ev)
        steps += 1
        if steps > 20_000:
            raise RuntimeError(f"seed {seed}: the match does not end")
    return st, times


def deal_task(job: tuple[str, str, int]) -> Obj:
    """Deal ``seed`` at both tables: a's points minus b's per table, contracts per level."""
    a, b, seed = job
    out: Obj = {"diff": [], "times": {a: [], b: []}, "made": {a: 0, b: 0}, "failed": {a: 0, b: 0},
                "tricks": []}
    for a_side in (0, 1):
        levels = [a if s % 2 == a_side else b for s in range(4)]
        st, times = _play(levels, seed, 104, seed % 4, one_hand=True)
        row = st.sheet[0]
        pts = [int(x) for x in row["points"]]
        out["diff"].append(pts[a_side] - pts[1 - a_side])
        declarer = levels[int(row["bidder"])]
        out["made" if row["made"] else "failed"][declarer] += 1
        out["tricks"].append(list(row["tricks"]))
        for lv, ts in times.items():
            out["times"][lv].extend(ts)
    return out


def match_task(job: tuple[str, str, int, int]) -> Obj:
    """Match ``seed`` to 104 with ``a`` on side ``a_side``: did ``a`` win, and the hands."""
    a, b, seed, a_side = job
    levels = [a if s % 2 == a_side else b for s in range(4)]
    st, times = _play(levels, seed, 104, seed % 4, one_hand=False)
    out = GAME.outcome(st)
    assert out is not None
    return {"won": out.winners[0] % 2 == a_side, "hands": len(st.sheet),
            "margin": st.scores[a_side] - st.scores[1 - a_side], "times": times}


def _pct(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))] if ys else 0.0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench duplicate", description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--a", default="expert")
    ap.add_argument("--b", default="hard")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    a, b = args.a, args.b
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    times: dict[str, list[float]] = {a: [], b: []}
    print(f"Teka duplicate: {a} against {b}, {args.deals} deals at two tables, "
          f"{args.matches} matches; {args.workers} workers")
    diffs: list[float] = []
    made = {a: 0, b: 0}
    failed = {a: 0, b: 0}
    differ = 0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        if args.deals:
            prog = Progress("deals", args.deals, time.monotonic, sys.stderr)
            jobs = [(a, b, args.seed * 100_000 + i) for i in range(args.deals)]
            for r in pool.map(deal_task, jobs, chunksize=4):
                diffs.append(sum(r["diff"]) / 2.0)
                differ += r["tricks"][0] != r["tricks"][1]
                for lv in (a, b):
                    made[lv] += r["made"][lv]
                    failed[lv] += r["failed"][lv]
                    times[lv].extend(r["times"][lv])
                mean = statistics.fmean(diffs)
                prog.step(f"{a} {mean:+.2f} points a hand")
            if diffs:
                n = len(diffs)
                mean = statistics.fmean(diffs)
                sd = statistics.stdev(diffs) if n > 1 else 0.0
                half = 1.96 * sd / math.sqrt(n)
                print(f"hands: {2 * n} ({n} deals at two tables); the tables differ in tricks on "
                      f"{differ} deals ({100 * differ / n:.0f} %)")
                print(f"  {a} - {b}: {mean:+.3f} points a hand (95 %: {mean - half:+.3f} .. "
                      f"{mean + half:+.3f})")
                for lv in (a, b):
                    m, f = made[lv], failed[lv]
                    print(f"  {lv} as declarer: made {m}, failed {f} "
                          f"({100 * m / max(1, m + f):.1f} % made)")
        won = 0
        hands = 0
        margin = 0
        results: list[Obj] = []
        if args.matches:
            seeds = (args.matches + 1) // 2
            prog = Progress("matches", 2 * seeds, time.monotonic, sys.stderr)
            jobs2 = [(a, b, args.seed * 100_000 + 50_000 + i, side)
                     for i in range(seeds) for side in (0, 1)]
            for r in pool.map(match_task, jobs2):
                results.append(r)
                won += r["won"]
                hands += r["hands"]
                margin += r["margin"]
                for lv in (a, b):
                    times[lv].extend(r["times"].get(lv, []))
                prog.step(f"{a} won {won} of {len(results)}")
            if results:
                n2 = len(results)
                lo, hi = wilson(won, n2)
                print(f"matches to 104: {n2} ({seeds} seeds, {a} on each side once), "
                      f"{hands} hands")
                print(f"  {a} won {won} ({100 * won / n2:.1f} %, 95 %: {100 * lo:.1f} .. "
                      f"{100 * hi:.1f} %), mean margin {margin / n2:+.1f} points")
    wall = time.perf_counter() - t0
    for lv in (a, b):
        ts = times[lv]
        if not ts:
            continue
        limit = TEKA_LEVELS[lv].seconds if lv in TEKA_LEVELS else 0.0
        print(f"time per card-play decision, {lv}: median {1e3 * statistics.median(ts):.0f} ms, "
              f"p95 {1e3 * _pct(ts, 0.95):.0f} ms, max {1e3 * max(ts):.0f} ms over {len(ts)}"
              + (f" (own limit {limit:.0f} s)" if limit else ""))
    print(f"wall time {wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
