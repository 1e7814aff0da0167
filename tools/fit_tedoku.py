"""Backward fit of the Tedoku ``hard`` evaluation (``HARD_LINEAR`` in core/ai/tedoku_bot.py).

Run it on a mypyc-compiled scratch copy of core/ (see tools/compile_check), e.g.
``PYTHONPATH=/tmp/scratch .venv/bin/python tools/fit_tedoku.py > fit.out``; the last line
printed is the table. Each round plays seeded solo games (every other one with bonus shapes, so
that sheets with their 1-, 2- and 4-cell drawings are known too) with a greedy policy and keeps
the sheet after every turn; round 0 plays ``medium`` (the hand-made evaluation), every later
round plays greedily by the previous round's table. Then, backwards: V_0 is the exact score;
for t = 1..19, V_t (points so far + weights . features) is fitted by least squares to the one-
turn expectimax under V_(t-1): every card still possible, the six die faces (wild = the best
shape), a forced skip keeps the sheet. The result is the mean of the last ``--average`` rounds'
tables, refitted once more from games played with it. Every table is scored by the greedy
policy's mean over ``--eval`` games without bonus shapes on seeds 1000+ (not the benchmark
seeds 0-199).

The committed table (59 features): the mean of the two round tables of
``tools/fit_tedoku.py --start hard --alternatives 2 --rounds 2 --games 700 --save T`` run
while ``HARD_WEIGHTS`` was still the 49-feature table of commit aaf3376 padded with zeros
for the 10 new features (``--start hard`` now starts from the committed table itself),
averaged by hand (about
15 minutes on 2 cores; greedy means 21.51 and 21.45 over 1,000 games, the mean table 21.59
over 2,000 games on seeds 1000-2999, where the previous 49-feature table made 21.44).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from multiprocessing import Pool
from random import Random

from core.ai.tedoku_bot import (
    BUCKETS,
    HARD_WEIGHTS,
    NFEAT,
    TedokuBot,
    Weights,
    evaluate,
    features,
    next_turn_value,
    play_solo,
    solve,
)
from core.tedoku import CARDS, TURNS, legal_placements, score_sheet
from core.tedoku import GAME as TEDOKU

Table = list[list[float]]
Sample = tuple[int, int, list[str]]  # turns left, sheet, cards that may still come


def weights(table: Table | None) -> Weights | None:
    return Weights(linear=table) if table else None


def play(args: tuple[int, Table | None, int]) -> list[Sample]:
    """The sheets after every turn of one seeded game of the greedy policy, and after
    ``alternatives`` of the placements it rated next best (ranks 2-6), drawn at random."""
    seed, table, alternatives = args
    bot = TedokuBot("medium", weights(table))
    rng = Random(seed)
    brng = Random(seed + 99991)
    arng = Random(seed + 7)
    st = TEDOKU.initial()
    for ev in TEDOKU.start({"seats": 1, "bonus": seed % 2 == 1}, rng):
        st = TEDOKU.evolve(st, ev)
    out: list[Sample] = []
    while TEDOKU.outcome(st) is None:
        view = TEDOKU.view(st, 0)
        flipped = [str(c) for c in view.get("flipped", [])]
        turns_left = TURNS - int(view["turn"])
        unseen = [c for c in CARDS if c not in flipped]
        before = st.sheets[0]
        if alternatives and turns_left > 0 and st.card is not None and st.die is not None:
            opts = sorted(
                (-evaluate(before | m, turns_left, bot.weights, unseen), m)
                for _, m in legal_placements(st.die, before, st.card, [])
            )
            runners = [m for _, m in opts[1:6]]
            for m in arng.sample(runners, min(alternatives, len(runners))):
                out.append((turns_left, before | m, unseen))
        for ev in TEDOKU.decide(st, 0, bot.choose(view, 0, brng), rng):
            st = TEDOKU.evolve(st, ev)
        if turns_left > 0:
            out.append((turns_left, st.sheets[0], unseen))
    return out


def target(args: tuple[Sample, Table]) -> tuple[list[float], float]:
    (turns_left, sheet, unseen), table = args
    value = next_turn_value(sheet, turns_left, unseen, Weights(linear=table))
    return features(sheet, turns_left, unseen), value - score_sheet(sheet)


def score(args: tuple[int, Table | None]) -> int:
    seed, table = args
    return play_solo("medium", seed, False, weights(table))


def fit(pool: Pool, samples: list[Sample], ridge: float = 0.01) -> Table:
    table = [[0.0] * NFEAT for _ in range(BUCKETS)]
    for tl in range(1, TURNS):
        a = [[0.0] * NFEAT for _ in range(NFEAT)]
        y = [0.0] * NFEAT
        batch = [(s, table) for s in samples if s[0] == tl]
        for f, t in pool.map(target, batch, chunksize=16):
            nz = [(i, fi) for i, fi in enumerate(f) if fi != 0.0]
            for i, fi in nz:
                y[i] += fi * t
                row = a[i]
                for j, fj in nz:
                    row[j] += fi * fj
        for i in range(NFEAT):
            a[i][i] += ridge
        table[tl - 1] = solve(a, y)
    return [[round(x, 4) for x in v] for v in table]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--games", type=int, default=1000, help="games per round")
    p.add_argument("--average", type=int, default=2, help="rounds averaged at the end")
    p.add_argument("--eval", type=int, default=1000, help="games to score each table")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--aggregate", action="store_true",
                   help="fit each round on the sheets of all rounds so far, not its own only")
    p.add_argument("--save", default="", help="write each round's table to SAVE-<round>.json")
    p.add_argument("--alternatives", type=int, default=0,
                   help="also fit on this many of the next-best placements' sheets per turn")
    p.add_argument("--start", default="", help="round 0 plays by this table (JSON) or 'hard'")
    a = p.parse_args()
    t0 = time.time()
    tables: list[Table] = []
    table: Table | None = None
    if a.start == "hard":
        table = HARD_WEIGHTS.linear
    elif a.start:
        with open(a.start) as fh:
            table = json.load(fh)
    seen: list[Sample] = []
    with Pool(a.jobs) as pool:

        def round_(name: str, seed0: int, games: int) -> Table:
            runs = pool.map(play, [(seed0 + g, table, a.alternatives) for g in range(games)],
                            chunksize=4)
            fresh = [s for r in runs for s in r]
            seen.extend(fresh)
            new = fit(pool, seen if a.aggregate else fresh)
            sc = pool.map(score, [(1000 + g, new) for g in range(a.eval)], chunksize=8)
            print(f"{name}: {len(seen) if a.aggregate else len(fresh)} sheets, greedy mean "
                  f"{statistics.mean(sc):.3f} over {a.eval} games, {time.time() - t0:.0f} s",
                  flush=True)
            if a.save:
                with open(f"{a.save}-{name.replace(' ', '')}.json", "w") as fh:
                    json.dump(new, fh)
            return new

        for r in range(a.rounds):
            table = round_(f"round {r}", 10_000 + 10_000 * r, a.games)
            tables.append(table)
        last = tables[-a.average:]
        table = [[sum(t[b][i] for t in last) / len(last) for i in range(NFEAT)]
                 for b in range(BUCKETS)]
        table = round_("final", 100_000, 2 * a.games)
    print(repr(table))


if __name__ == "__main__":
    main()
