#!/usr/bin/env python3
"""How long the analysis of a Teka match takes with the server's budgeted solver: a random
match (random legal calls, no raises, random cards) to a target, analysed as the server does
it (core.teka_analysis.analyse with server.games.dd_worker.BudgetedSolve). Prints the time
per hand, the solves, those cut short and the par found. Figures: docs/ai.md.

    .venv/bin/python tools/teka_analysis_bench.py --seed 11 --target 60 --budget 30
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from random import Random
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def random_match(seed: int, target: int) -> list[Any]:
    """The events of a random Teka match to ``target`` (no raises, no signals)."""
    from core.api import META_COMMANDS
    from core.teka import GAME

    rng = Random(seed)
    events = GAME.start(GAME.options({"target": target}), rng)
    state = GAME.initial()
    for e in events:
        state = GAME.evolve(state, e)
    while state.phase != "over":
        seat = GAME.to_act(state)[0]
        commands = [c for c in GAME.legal_commands(state, seat)
                    if c["type"] not in META_COMMANDS and c["type"] != "raise"]
        plain = [c for c in commands if c["type"] == "play" and "signal" not in c]
        for e in GAME.decide(state, seat, rng.choice(plain or commands), rng):
            events.append(e)
            state = GAME.evolve(state, e)
    return events


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--target", type=int, default=60)
    ap.add_argument("--budget", type=float, default=30.0, help="seconds a solve at most")
    args = ap.parse_args()
    import core
    from core.teka_analysis import analyse
    from server.games.dd_worker import BudgetedSolve

    events = random_match(args.seed, args.target)
    solve = BudgetedSolve(args.budget)
    t0 = time.monotonic()
    marks: list[float] = []

    def progress(hand: int, hands: int) -> None:
        marks.append(time.monotonic() - t0)
        print(f"hand {hand} of {hands} starts at {marks[-1]:.1f} s", flush=True)

    try:
        a = analyse(events, solve, progress)
    finally:
        solve.close()
    total = time.monotonic() - t0
    print(f"compiled core: {core.COMPILED}; {len(a['hands'])} hands in {total:.1f} s; "
          f"{solve.solves} solves, {solve.cut} cut short at {args.budget:g} s "
          f"(slowest {solve.slowest:.1f} s); {len(a['cut_short'])} figures null")
    for h in a["hands"]:
        c = h["contract"]
        print(f"  hand {h['index']}: {'double 13' if c['double13'] else c['bid']} in "
              f"{h['trumps']}, par {h['par']}, suits {h['par_suits']}, {h['verdict']}, "
              f"{h['outcome']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
