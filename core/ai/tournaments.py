"""Tournaments of the Tiku, Teka and Tedoku bots with fixed seeds (figures in
docs/benchmarks.md). ``python -m core.ai.tournaments`` or ``./gamenight bench bots`` prints
the tables. This driver is never compiled (so ``-m`` works); the bots it calls are.

* :func:`tiku_table`: each level against ``random`` and against each other level, sides
  alternating, W/D/L of the first-named level with a 95% Wilson interval of its score
  (wins + half the draws), and the time per bot move when a clock is given.
* :func:`teka_table`: a bot partnership against a random-legal partnership over whole matches
  (to 104 by default), sides alternating: matches won, the bots' contracts made/failed.
* :func:`tedoku_table`: solo score distribution (mean, median, min, max) per level, with and
  without the bonus shapes.

Everything goes through the game API and the bots' public ``choose``; games are seeded by
their index, so a run with the same arguments repeats exactly. The clock (for the time per
move) is passed in by the caller: this module reads no clock itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random
from typing import Final, TextIO

from core.ai.bots import Bot, make_bot
from core.api import Game, Obj
from core.tedoku import GAME as TEDOKU
from core.teka import GAME as TEKA
from core.tiku import GAME as TIKU

Clock = Callable[[], float]
Step = Callable[[str], None]
"""Called after each game with a short note (how far a table is)."""
TIKU_LEVELS: Final[list[str]] = ["easy", "medium", "hard"]
TIKU_MOVE_CAP: Final = 400


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


class Timer:
    """Accumulates the time bots spend per move (when a clock is given)."""

    def __init__(self, clock: Clock | None) -> None:
        self.clock = clock
        self.seconds: dict[str, float] = {}
        self.moves: dict[str, int] = {}

    def choose(self, bot: Bot, key: str, view: Obj, seat: int, rng: Random) -> Obj:
        if self.clock is None:
            return bot.choose(view, seat, rng)
        t0 = self.clock()
        cmd = bot.choose(view, seat, rng)
        self.seconds[key] = self.seconds.get(key, 0.0) + self.clock() - t0
        self.moves[key] = self.moves.get(key, 0) + 1
        return cmd

    def per_move(self, key: str) -> float | None:
        n = self.moves.get(key, 0)
        return self.seconds[key] / n if n else None


def _duration(seconds: float) -> str:
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class Progress:
    """How far a long run is, on ``out`` (stderr; the tables go to stdout): a line per finished
    game, but at most one every ``every`` seconds (the last one always), with the count, the
    time so far and the time left at the pace so far. On a terminal the line is rewritten in
    place instead. The clock is the caller's."""

    def __init__(self, label: str, total: int, clock: Clock, out: TextIO,
                 every: float = 2.0) -> None:
        self.label, self.total, self.clock, self.out, self.every = label, total, clock, out, every
        self.done = 0
        self.t0 = self.said = clock()
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.width = 0

    def step(self, note: str = "") -> None:
        self.done += 1
        now = self.clock()
        last = self.done >= self.total
        if not last and now - self.said < self.every:
            return
        self.said = now
        elapsed = now - self.t0
        left = elapsed / self.done * max(0, self.total - self.done)
        line = (f"{self.label}: {self.done}/{self.total} ({100 * self.done // max(1, self.total)}%)"
                f"  {_duration(elapsed)} so far, about {_duration(left)} left"
                + (f"  {note}" if note else ""))
        if self.tty:
            self.width = max(self.width, len(line))
            self.out.write("\r" + line.ljust(self.width) + ("\n" if last else ""))
        else:
            self.out.write(line + "\n")
        self.out.flush()


def run(game: Game, options: Obj, bots: list[Bot], keys: list[str], seed: int,
        timer: Timer) -> Obj:
    """One seeded game through the API; returns the outcome as JSON."""
    rng = Random(seed)
    brng = Random(seed * 1_000_003 + 17)
    state = game.initial()
    for ev in game.start(options, rng):
        state = game.evolve(state, ev)
    steps = 0
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        cmd = timer.choose(bots[seat], keys[seat], game.view(state, seat), seat, brng)
        for ev in game.decide(state, seat, cmd, rng):
            state = game.evolve(state, ev)
        steps += 1
        if steps > 100_000:
            raise RuntimeError("game does not end")
    out = game.outcome(state)
    assert out is not None
    return out.to_json()


# ------------------------------------------------------------------------------------ Tiku


def tiku_pair(a: str, b: str, games: int, seed: int = 0, options: Obj | None = None,
              clock: Clock | None = None, step: Step | None = None) -> Obj:
    """``a`` against ``b`` over ``games`` games, ``a`` on seat 0 in even games, seat 1 in odd
    ones. W/D/L are ``a``'s."""
    opts: Obj = {"move_cap": TIKU_MOVE_CAP, **(options or {})}
    timer = Timer(clock)
    w = d = lo = 0
    for i in range(games):
        bot_a = make_bot("tiku", a)
        bot_b = make_bot("tiku", b)
        a_seat = i % 2
        bots = [bot_a, bot_b] if a_seat == 0 else [bot_b, bot_a]
        keys = ["a", "b"] if a_seat == 0 else ["b", "a"]
        out = run(TIKU, opts, bots, keys, seed + i, timer)
        winners = out["winners"]
        if not winners:
            d += 1
        elif winners == [a_seat]:
            w += 1
        else:
            lo += 1
        if step is not None:
            step(f"Tiku {a} vs {b}: W {w} D {d} L {lo}")
    score = w + 0.5 * d
    low, high = wilson(score, games)
    return {
        "a": a,
        "b": b,
        "games": games,
        "wins": w,
        "draws": d,
        "losses": lo,
        "score": score / games if games else 0.0,
        "wilson": [low, high],
        "sec_per_move_a": timer.per_move("a"),
        "sec_per_move_b": timer.per_move("b"),
    }


def tiku_pairings(levels: list[str]) -> list[tuple[str, str]]:
    """Every level against ``random``, then each pair of levels (stronger first-named)."""
    pairs = [(x, "random") for x in levels]
    for i, x in enumerate(levels):
        pairs.extend((y, x) for y in levels[i + 1 :])
    return pairs


def tiku_table(games: int, levels: list[str] | None = None, seed: int = 0,
               options: Obj | None = None, clock: Clock | None = None,
               step: Step | None = None) -> list[Obj]:
    """The pairs of :func:`tiku_pairings`, ``games`` games each."""
    lv = levels if levels is not None else list(TIKU_LEVELS)
    return [tiku_pair(a, b, games, seed, options, clock, step) for a, b in tiku_pairings(lv)]


# ------------------------------------------------------------------------------------ Teka


def teka_table(matches: int, level: str = "medium", target: int = 104, seed: int = 0,
               clock: Clock | None = None, step: Step | None = None) -> Obj:
    """A ``level`` partnership against a random-legal one over whole matches; the bots are
    side 0 (seats 0 and 2) in even matches, side 1 in odd ones."""
    timer = Timer(clock)
    won = 0
    hands = 0
    made = failed = 0
    their_made = their_failed = 0
    margin = 0
    for i in range(matches):
        side = i % 2
        bots = [make_bot("teka", level if s % 2 == side else "random") for s in range(4)]
        keys = ["bot" if s % 2 == side else "random" for s in range(4)]
        rng = Random(seed + i)
        brng = Random((seed + i) * 1_000_003 + 17)
        state = TEKA.initial()
        for ev in TEKA.start({"target": target, "first_dealer": i % 4}, rng):
            state = TEKA.evolve(state, ev)
        while TEKA.outcome(state) is None:
            seat = TEKA.to_act(state)[0]
            cmd = timer.choose(bots[seat], keys[seat], TEKA.view(state, seat), seat, brng)
            for ev in TEKA.decide(state, seat, cmd, rng):
                state = TEKA.evolve(state, ev)
        out = TEKA.outcome(state)
        assert out is not None
        if out.winners[0] % 2 == side:
            won += 1
        margin += state.scores[side] - state.scores[1 - side]
        for row in state.sheet:
            hands += 1
            ours = int(row["bidder"]) % 2 == side
            if ours:
                made += bool(row["made"])
                failed += not bool(row["made"])
            else:
                their_made += bool(row["made"])
                their_failed += not bool(row["made"])
        if step is not None:
            step(f"Teka {level}: won {won} of {i + 1}")
    low, high = wilson(won, matches)
    return {
        "level": level,
        "matches": matches,
        "target": target,
        "won": won,
        "share": won / matches if matches else 0.0,
        "wilson": [low, high],
        "hands": hands,
        "bot_contracts_made": made,
        "bot_contracts_failed": failed,
        "random_contracts_made": their_made,
        "random_contracts_failed": their_failed,
        "mean_margin": margin / matches if matches else 0.0,
        "sec_per_move": timer.per_move("bot"),
    }


# ---------------------------------------------------------------------------------- Tedoku


def tedoku_table(games: int, level: str = "hard", bonus: bool = False, seed: int = 0,
                 clock: Clock | None = None, step: Step | None = None) -> Obj:
    """Solo totals (bonus points included) of ``level`` over ``games`` seeded games."""
    timer = Timer(clock)
    scores: list[int] = []
    skips = 0
    bonus_used = 0
    for i in range(games):
        bot = make_bot("tedoku", level)
        rng = Random(seed + i)
        brng = Random((seed + i) * 1_000_003 + 17)
        state = TEDOKU.initial()
        for ev in TEDOKU.start({"seats": 1, "bonus": bonus}, rng):
            state = TEDOKU.evolve(state, ev)
        while TEDOKU.outcome(state) is None:
            cmd = timer.choose(bot, "bot", TEDOKU.view(state, 0), 0, brng)
            if cmd["type"] == "skip":
                skips += 1
            elif str(cmd.get("shape", "")).startswith("B"):
                bonus_used += 1
            for ev in TEDOKU.decide(state, 0, cmd, rng):
                state = TEDOKU.evolve(state, ev)
        out = TEDOKU.outcome(state)
        assert out is not None
        scores.append(int(out.scores[0]))
        if step is not None:
            step(f"Tedoku {level}{' bonus' if bonus else ''}: mean {sum(scores) / len(scores):.1f}")
    s = sorted(scores)
    n = len(s)
    median = (s[(n - 1) // 2] + s[n // 2]) / 2 if n else 0.0
    mean = sum(s) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return {
        "level": level,
        "bonus": bonus,
        "games": n,
        "mean": mean,
        "sd": sd,
        "median": median,
        "min": s[0] if s else 0,
        "max": s[-1] if s else 0,
        "skips_per_game": skips / n if n else 0.0,
        "bonus_used_per_game": bonus_used / n if n else 0.0,
        "sec_per_move": timer.per_move("bot"),
    }


# ---------------------------------------------------------------------------------- output


def ms(x: object) -> str:
    return f"{1000 * x:.0f} ms" if isinstance(x, float) else "-"


def format_tiku(rows: list[Obj]) -> list[str]:
    out = [
        "| Tiku: A vs B | games | W | D | L | score of A | 95% Wilson | A per move |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r["wilson"]
        out.append(
            f"| {r['a']} vs {r['b']} | {r['games']} | {r['wins']} | {r['draws']} | "
            f"{r['losses']} | {r['score']:.2f} | {lo:.2f}-{hi:.2f} | {ms(r['sec_per_move_a'])} |"
        )
    return out


def format_teka(r: Obj) -> list[str]:
    lo, hi = r["wilson"]
    return [
        "| Teka: bots vs random | matches | won | share | 95% Wilson | bot contracts made/failed "
        "| random contracts made/failed | mean margin | bot per move |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {r['level']} (to {r['target']}) | {r['matches']} | {r['won']} | {r['share']:.2f} | "
        f"{lo:.2f}-{hi:.2f} | {r['bot_contracts_made']}/{r['bot_contracts_failed']} | "
        f"{r['random_contracts_made']}/{r['random_contracts_failed']} | "
        f"{r['mean_margin']:.0f} | {ms(r['sec_per_move'])} |",
    ]


def format_tedoku(rows: list[Obj]) -> list[str]:
    out = [
        "| Tedoku solo | bonus | games | mean | sd | median | min | max | skips/game "
        "| bonus used/game | per move |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['level']} | {'yes' if r['bonus'] else 'no'} | {r['games']} | {r['mean']:.2f} "
            f"| {r['sd']:.2f} | {r['median']:.1f} | {r['min']} | {r['max']} "
            f"| {r['skips_per_game']:.2f} | {r['bonus_used_per_game']:.2f} "
            f"| {ms(r['sec_per_move'])} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m core.ai.tournaments [--tiku N] [--teka N] [--tedoku N] [--only GAME]
    [--teka-level L] [--tedoku-levels L,L] [--tiku-levels L,L] [--target T] [--seed S]``"""
    import argparse
    import time

    p = argparse.ArgumentParser(prog="python -m core.ai.tournaments", description=__doc__)
    p.add_argument("--tiku", type=int, default=20, help="games per Tiku pairing")
    p.add_argument("--teka", type=int, default=40, help="Teka matches")
    p.add_argument("--tedoku", type=int, default=200, help="Tedoku solo games per row")
    p.add_argument("--only", choices=["tiku", "teka", "tedoku"], default=None)
    p.add_argument("--tiku-levels", default="easy,medium,hard")
    p.add_argument("--teka-level", default="medium")
    p.add_argument("--tedoku-levels", default="hard")
    p.add_argument("--target", type=int, default=104, help="Teka match target")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    clock = time.perf_counter
    import sys

    import core

    print(f"core compiled: {core.COMPILED}", flush=True)
    tiku_levels = a.tiku_levels.split(",")
    tedoku_levels = a.tedoku_levels.split(",")
    pairs = len(tiku_pairings(tiku_levels))
    plan = {"tiku": f"Tiku {pairs} pairings x {a.tiku} games",
            "teka": f"Teka {a.teka} matches to {a.target}",
            "tedoku": f"Tedoku {2 * len(tedoku_levels)} rows x {a.tedoku} games"}
    todo = [k for k in plan if a.only in (None, k)]
    print("running: " + "; ".join(plan[k] for k in todo) + " (progress on stderr)", flush=True)
    if "tiku" in todo:
        prog = Progress("Tiku games", pairs * a.tiku, clock, sys.stderr)
        rows = tiku_table(a.tiku, tiku_levels, a.seed, None, clock, prog.step)
        print("\n".join(format_tiku(rows)), flush=True)
    if "teka" in todo:
        prog = Progress("Teka matches", a.teka, clock, sys.stderr)
        teka = teka_table(a.teka, a.teka_level, a.target, a.seed, clock, prog.step)
        print("\n".join(format_teka(teka)), flush=True)
    if "tedoku" in todo:
        prog = Progress("Tedoku games", 2 * len(tedoku_levels) * a.tedoku, clock, sys.stderr)
        trows: list[Obj] = []
        for lv in tedoku_levels:
            for bonus in (False, True):
                trows.append(tedoku_table(a.tedoku, lv, bonus, a.seed, clock, prog.step))
        print("\n".join(format_tedoku(trows)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
