"""How many rollouts it would take to choose Tedoku placements better than the ``hard``
lookahead does (docs/ai.md, Tedoku, "Where the linear evaluation stands").

Plays ``--games`` seeded solo games by the lookahead (the learned table's 16 best placements,
valued as ``hard`` values them, the best one taken). At every third turn with 3-15 turns left,
the lookahead's two best placements are each played out ``--rollouts`` times to the end by the
greedy policy of the same table, on the same futures for both (common random numbers: one
shuffle of the cards that may come and one die roll per turn). Prints, per decision, how far
apart the lookahead puts the two, the rollouts' mean difference of the final score and its
standard error; then the means over all decisions.

Standard library only; to be quick, run it on a mypyc-compiled scratch copy of core/
(``PYTHONPATH=/tmp/scratch:.``, see tools/fit_tedoku.py). About 30 seconds for 4 games on 2
cores.
"""

from __future__ import annotations

import argparse
import math
import statistics
from multiprocessing import Pool
from random import Random

from core.ai.tedoku_bot import (
    HARD_WEIGHTS,
    TEDOKU_LEVELS,
    TedokuLevel,
    evaluate,
    next_turn_value,
    plan,
)
from core.tedoku import CARDS, DIE_FACES, TURNS, legal_placements, score_sheet

GREEDY = TedokuLevel("eval")
HARD = TEDOKU_LEVELS["hard"]

Decision = tuple[int, float, float, float]  # turn, lookahead gap, rollout difference, its se


def rollout(sheet: int, turn: int, flipped: list[str], cards: list[str], dice: list[str]) -> int:
    """Final score of ``sheet`` after turn ``turn`` played on greedily with these futures."""
    seen = list(flipped)
    rng = Random(0)
    for i, t in enumerate(range(turn + 1, TURNS + 1)):
        sheet |= plan(sheet, cards[i], dice[i], [], seen, t, GREEDY, HARD_WEIGHTS, rng).mask
        seen.append(cards[i])
    return score_sheet(sheet)


def ranked(
    sheet: int, card: str, die: str, flipped: list[str], turn: int
) -> list[tuple[float, int]]:
    """The lookahead's values of the evaluation's best placements, best first."""
    left = TURNS - turn
    unseen = [c for c in CARDS if c not in flipped]
    opts = sorted(((-evaluate(sheet | m, left, HARD_WEIGHTS, unseen), m)
                   for _, m in legal_placements(die, sheet, card, [])))[:HARD.candidates]
    out = []
    for neg_e, m in opts:
        e = -neg_e
        v = next_turn_value(sheet | m, left, unseen, HARD_WEIGHTS)
        out.append((e + HARD.correction * (v - e), m))
    out.sort(key=lambda x: -x[0])
    return out


def game(args: tuple[int, int]) -> list[Decision]:
    seed, rollouts = args
    rng = Random(seed)
    order = list(CARDS)
    rng.shuffle(order)
    sheet = 0
    flipped: list[str] = []
    out: list[Decision] = []
    for turn in range(1, TURNS + 1):
        card, die = order[turn - 1], rng.choice(DIE_FACES)
        flipped = [*flipped, card]
        best = ranked(sheet, card, die, flipped, turn)
        if len(best) >= 2 and 3 <= TURNS - turn <= 15 and turn % 3 == seed % 3:
            unseen = [c for c in CARDS if c not in flipped]
            fr = Random(seed * 100 + turn)
            diffs = []
            for _ in range(rollouts):
                cards = fr.sample(unseen, len(unseen))
                dice = [fr.choice(DIE_FACES) for _ in range(TURNS - turn)]
                diffs.append(rollout(sheet | best[0][1], turn, flipped, cards, dice)
                             - rollout(sheet | best[1][1], turn, flipped, cards, dice))
            out.append((turn, best[0][0] - best[1][0], statistics.fmean(diffs),
                        statistics.stdev(diffs) / math.sqrt(rollouts)))
        if best:
            sheet |= best[0][1]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--seed", type=int, default=3000)
    p.add_argument("--rollouts", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    with Pool(a.jobs) as pool:
        found = [d for ds in pool.map(game, [(a.seed + g, a.rollouts) for g in range(a.games)])
                 for d in ds]
    print("turn | lookahead: best minus second | rollouts: mean difference | standard error")
    for turn, gap, diff, se in found:
        print(f"{turn:2d} | {gap:.3f} | {diff:+.3f} | {se:.3f}")
    n = len(found)
    print(f"\n{n} decisions, {a.rollouts} rollouts per placement: mean lookahead gap "
          f"{statistics.fmean(d[1] for d in found):.3f}, mean standard error "
          f"{statistics.fmean(d[3] for d in found):.3f}, the rollouts prefer the second in "
          f"{sum(1 for d in found if d[2] < 0)} of {n}")


if __name__ == "__main__":
    main()
