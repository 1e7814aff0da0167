"""The Teeko bot levels measured against the solved table: ``python -m bench.core_bench solved``
(``./gamenight bench solved``). Needs the table of the pattern set (``./gamenight solve
teeko``); results: docs/ai.md.

    python -m bench.core_bench solved [--positions 300] [--levels easy,medium,hard,max]
                                [--squares axis] [--games 2] [--jobs J] [--seed 1]
                                [--after SEED:GAMES,...] [--sample FILE]

The positions: every position of games between bot levels (:data:`PAIRS`, ``--games`` games
a pairing, fixed seeds, a 60-ply cap) where the side to move can win or draw, then a fixed
random sample of ``--positions`` of them. Each level chooses a ply in each (its full budget,
a fixed seed per position); the table says whether the ply kept the value (a win stays a
win, a draw a draw), and whether it was a best ply (the same distance). Printed per level:
the share of value-keeping plies (all positions, and the *critical* ones, where some ply
loses value), wins thrown away (to a draw or a loss), draws lost, and by the distance of the
win (the "puzzles": win in 1, 3, 5, ...) the share of wins kept.

The games are played by the bots themselves, so a change to a bot changes the positions too;
``--sample FILE`` keeps them: the first run writes its sample there (JSON), later runs read it
instead of playing the games, and measure the changed levels on the same positions.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from random import Random

from core.ai.bots import make_bot
from core.ai.tournaments import Progress
from core.api import Obj
from core.teeko import GAME, PATTERN_SETS, TeekoState
from core.teeko_analysis import NoTable, result_of, table_for
from core.teeko_table import preference

PAIRS = [
    ("easy", "easy"),
    ("easy", "medium"),
    ("medium", "easy"),
    ("medium", "medium"),
    ("perfect", "medium"),
    ("medium", "perfect"),
    ("perfect", "easy"),
    ("easy", "perfect"),
]
"""The games the positions are taken from (White's level, Black's level)."""
MOVE_CAP = 60

Position = tuple[Obj, int]
"""A position: the view of the side to move, and its seat."""


def _state(position: Position) -> TeekoState:
    view, seat = position
    state = GAME.resample(view, seat, Random(0))
    assert isinstance(state, TeekoState)
    return state


def game_positions(job: tuple[str, str, str, int]) -> list[Position]:
    """The positions (side to move, game running) of one game between two levels."""
    squares, white, black, seed = job
    rng = Random(seed)
    bots = [make_bot("teeko", white), make_bot("teeko", black)]
    state = GAME.initial()
    for e in GAME.start({"squares": squares, "move_cap": MOVE_CAP}, rng):
        state = GAME.evolve(state, e)
    out: list[Position] = []
    while not state.over:
        seat = state.turn
        view = GAME.view(state, seat)
        out.append((view, seat))
        command = bots[seat].choose(view, seat, rng)
        for e in GAME.decide(state, seat, command, rng):
            state = GAME.evolve(state, e)
    return out


Result = tuple[int, int, int, float]
"""(value before, value after the level's ply, worst value of the position's plies, s)."""


def choose(job: tuple[str, int, Position]) -> Result:
    """One level's ply in one position."""
    level, seed, position = job
    state = _state(position)
    table = table_for(state.squares)
    mover, opp = state.pieces(state.turn), state.pieces(1 - state.turn)
    plies = table.children(mover, opp)
    before = table.code(mover, opp)
    t0 = time.perf_counter()
    command = make_bot("teeko", level).choose(position[0], position[1], Random(seed))
    seconds = time.perf_counter() - t0
    frm = -1 if command["type"] == "place" else _square(command["from"])
    to = _square(command["to"])
    after = next(v for f, t, v in plies if f == frm and t == to)
    worst = min((v for _, _, v in plies), key=preference)
    return before, after, worst, seconds


def _square(name: str) -> int:
    return (int(name[1]) - 1) * 5 + "abcde".index(name[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.core_bench solved", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--levels", default="easy,medium,hard,max")
    ap.add_argument("--squares", choices=PATTERN_SETS, default=PATTERN_SETS[0])
    ap.add_argument("--games", type=int, default=2, help="games a pairing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--after", default="", help="SEED:GAMES,... of earlier sets to leave out")
    ap.add_argument("--sample", type=Path, default=None,
                    help="read the positions from this file, or write them there if it is new")
    args = ap.parse_args(argv)
    try:
        table_for(args.squares)
    except NoTable as exc:
        print(exc.reason, file=sys.stderr)
        return 1
    import core

    levels = [lv for lv in args.levels.split(",") if lv]
    print(f"gamenight solved-table benchmark  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f"  core: {'compiled' if core.COMPILED else 'pure Python'}  squares {args.squares}"
          f"  {args.jobs} jobs", flush=True)
    n_games = len(PAIRS) * args.games
    with ProcessPoolExecutor(args.jobs) as pool:
        if args.sample is not None and args.sample.exists():
            sample = _read_sample(args.sample)
            print(f"{len(sample)} positions read from {args.sample}", flush=True)
        else:
            seen: set[tuple[int, int]] | None = None
            for spec in [a for a in args.after.split(",") if a]:
                seed, games = (int(x) for x in spec.split(":"))
                earlier = _sample(pool, args.squares, seed, games, args.positions, seen)[0]
                seen = (seen or set()) | {_key(p) for p in earlier}
            sample, n_positions, n_keep = _sample(pool, args.squares, args.seed, args.games,
                                                  args.positions, seen)
            print(f"{n_positions} positions from {n_games} games, {n_keep} won or drawn "
                  f"for the side to move{' and not in the earlier sets' if seen else ''}, "
                  f"{len(sample)} sampled", flush=True)
            if args.sample is not None:
                args.sample.write_text(json.dumps([[v, s] for v, s in sample]) + "\n")
                print(f"written to {args.sample}", flush=True)
        print("| level | positions | value kept | critical kept | wins thrown away "
              "| draws lost | best plies | s/move | wins kept by distance (1/3/5/7/9+) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for level in levels:
            work = [(level, args.seed * 100_000 + i, p) for i, p in enumerate(sample)]
            progress = Progress(level, len(work), time.monotonic, sys.stderr)
            results = []
            for r in pool.map(choose, work, chunksize=4):
                results.append(r)
                progress.step()
            print(_row(level, results), flush=True)
    return 0


def _read_sample(path: Path) -> list[Position]:
    return [(view, int(seat)) for view, seat in json.loads(path.read_text())]


def _key(position: Position) -> tuple[int, int]:
    s = _state(position)
    return s.pieces(s.turn), s.pieces(1 - s.turn)


def _sample(pool: ProcessPoolExecutor, squares: str, seed: int, games: int, n: int,
            seen: set[tuple[int, int]] | None) -> tuple[list[Position], int, int]:
    """The sample of the games of ``seed``: (positions, all positions, won or drawn ones).
    With ``seen`` (not None), positions in it and repeats are left out."""
    jobs = [(squares, w, b, seed * 1000 + 10 * i + g)
            for i, (w, b) in enumerate(PAIRS) for g in range(games)]
    positions: list[Position] = []
    progress = Progress("games", len(jobs), time.monotonic, sys.stderr)
    for found in pool.map(game_positions, jobs):
        positions += found
        progress.step()
    table = table_for(squares)
    keep = []
    for p in positions:
        s = _state(p)
        code = table.code(s.pieces(s.turn), s.pieces(1 - s.turn))
        if result_of(code) != "loss":
            keep.append(p)
    Random(seed).shuffle(keep)
    if seen is not None:
        mine = set(seen)
        distinct = []
        for p in keep:
            k = _key(p)
            if k not in mine:
                mine.add(k)
                distinct.append(p)
        keep = distinct
    return keep[:n], len(positions), len(keep)


def _row(level: str, results: list[Result]) -> str:
    n = len(results)
    kept = sum(result_of(a) == result_of(b) for b, a, _, _ in results)
    critical = [(b, a) for b, a, w, _ in results if result_of(w) != result_of(b)]
    critical_kept = sum(result_of(a) == result_of(b) for b, a in critical)
    wins = [(b, a) for b, a, _, _ in results if result_of(b) == "win"]
    thrown = sum(result_of(a) != "win" for _, a in wins)
    draws = [(b, a) for b, a, _, _ in results if result_of(b) == "draw"]
    lost = sum(result_of(a) == "loss" for _, a in draws)
    best = sum(a == b for b, a, _, _ in results)
    seconds = sum(r[3] for r in results) / max(1, n)
    by_distance = []
    for lo, hi in ((1, 1), (3, 3), (5, 5), (7, 7), (9, 253)):
        group = [(b, a) for b, a in wins if lo <= b <= hi]
        ok = sum(result_of(a) == "win" for _, a in group)
        by_distance.append(f"{ok}/{len(group)}")
    return (f"| {level} | {n} | {_pct(kept, n)} | {_pct(critical_kept, len(critical))} "
            f"({len(critical)}) | {thrown}/{len(wins)} | {lost}/{len(draws)} | {_pct(best, n)} "
            f"| {seconds:.2f} | {' '.join(by_distance)} |")


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


if __name__ == "__main__":
    sys.exit(main())
