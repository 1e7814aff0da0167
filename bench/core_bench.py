"""Benchmarks that print figures: ``python -m bench.core_bench`` (``./gamenight bench``).

    python -m bench.core_bench [--seconds S] [--only GAME] [--build-scratch]
        Compiled (this process; must have core.COMPILED) and pure Python (a subprocess with
        GAMENIGHT_PURE=1) side by side: random playthroughs per second of every game through
        the API, the Teeko playout figure and Teeko MCTS iterations per second.

    python -m bench.core_bench tournament [--games N] [--only GAME] [--pairs A:B,...]
                                    [--move-cap P] [--jobs J] [--build-scratch]
        Bot levels against each other with fixed seeds, sides alternating: W/D/L of the
        first-named level with a 95% Wilson interval, and the bots' time per move.

    python -m bench.core_bench bots [--tiku N] [--teka N] [--tedoku N] [--only GAME]
        The Tiku, Teka and Tedoku bot tables of ``core.ai.tournaments``.

    python -m bench.core_bench solved [--positions N] [--levels easy,medium,hard,max]
                                      [--squares S]
        The Teeko levels measured against the solved table (``bench.teeko_bench``).

``--build-scratch`` compiles a copy of core/ with mypyc in a temporary directory and runs
the benchmark from there (the work tree is never touched). Without it the compiled figures
need an installed compiled core (``./gamenight bench`` builds it). Results: docs/benchmarks.md.

This driver is never compiled (it times things and starts processes).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from random import Random

import core
from core.ai.bots import Bot, make_bot
from core.ai.tournaments import Progress, wilson
from core.api import META_COMMANDS, Obj, apply, fold

# ------------------------------------------------------------------------------ figures

PLAYOUT_CAP = 200
"""The Teeko playout workload: empty board, uniformly random moves, axis, <= 200 plies."""


def random_playthroughs(name: str, seconds: float) -> float | None:
    """Random games per second through the API (``None`` if the game is not implemented)."""
    game = core.GAMES[name]
    rng = Random(1)
    try:
        variants = game.example_options()
        done = 0
        start = time.perf_counter()
        while True:
            options = game.options(variants[done % len(variants)])
            state = fold(game, game.start(options, rng))
            steps = 0
            while game.outcome(state) is None and steps < 20000:
                seat = rng.choice(game.to_act(state))
                legal = game.legal_commands(state, seat)
                moves = [c for c in legal if c["type"] not in META_COMMANDS] or legal
                state, _ = apply(game, state, seat, rng.choice(moves), rng)
                steps += 1
            done += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return done / elapsed
    except NotImplementedError:
        return None


def teeko_playouts(seconds: float) -> tuple[float, float]:
    """(playouts/s, plies/s) of the Teeko playout workload, pure-random policy."""
    from core.ai.teeko_mcts import Playout, tables_for

    p = Playout(tables_for("axis"), 12345, False, PLAYOUT_CAP)
    n = 0
    start = time.perf_counter()
    while True:
        for _ in range(50):
            p.run(0, 0, PLAYOUT_CAP)
        n += 50
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed, p.plies / elapsed


def teeko_mcts(seconds: float) -> float:
    """MCTS iterations/s of the ``hard`` level searching from the empty board."""
    from core.ai.teeko_mcts import LEVELS, Search, tables_for

    t = tables_for("axis")
    iterations = LEVELS["hard"].iterations
    total = 0
    start = time.perf_counter()
    deadline = start + seconds
    seed = 1
    while time.perf_counter() < deadline:
        s = Search(t, seed)
        res = s.run_root(
            0,
            0,
            0,
            1 << 30,
            t.moves(0, 0),
            [],
            iterations,
            lambda: time.perf_counter() >= deadline,
            None,
        )
        total += res.iterations
        seed += 1
    return total / (time.perf_counter() - start)


def measure(seconds: float, only: str | None) -> Obj:
    out: Obj = {"compiled": core.COMPILED, "games": {}}
    for name in sorted(core.GAMES):
        if only is None or only == name:
            out["games"][name] = random_playthroughs(name, seconds)
    if only is None or only == "teeko":
        out["playouts"], out["plies"] = teeko_playouts(seconds)
        out["mcts"] = teeko_mcts(seconds)
    return out


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


def ratio(a: float | None, b: float | None) -> str:
    return "" if a is None or b is None or b == 0 else f"{a / b:.1f}x"


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench(args: argparse.Namespace) -> int:
    assert core.COMPILED or not args.require_compiled, "the scratch copy did not load compiled"
    only = ["--only", args.only] if args.only else []
    print(
        f"gamenight bench  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
        f"Python {platform.python_version()}  {os.cpu_count()} CPUs  {platform.machine()}  "
        f"{args.seconds:g} s per figure  {load()}",
        flush=True,
    )
    compiled: Obj | None = None
    if core.COMPILED:
        print(f"compiled: this process, core from {Path(core.__file__).parent}", flush=True)
        compiled = measure(args.seconds, args.only)
    else:
        print("compiled: not available here (use --build-scratch, or ./gamenight bench)")
    print("pure:     a subprocess with GAMENIGHT_PURE=1", flush=True)
    env = dict(os.environ, GAMENIGHT_PURE="1")
    res = subprocess.run(
        [sys.executable, "-m", "bench.core_bench", "worker", "--seconds", str(args.seconds),
         *only],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    pure: Obj = json.loads(res.stdout)
    assert not pure["compiled"], "the GAMENIGHT_PURE=1 subprocess loaded the compiled core"
    if compiled is not None:
        assert compiled["compiled"]
    c: Obj = compiled or {"games": {}}
    rows: list[tuple[str, float | None, float | None]] = []
    for name in sorted(pure["games"]):
        rows.append(
            (f"{name}: random playthroughs/s (API)", c["games"].get(name), pure["games"][name])
        )
    if "playouts" in pure:
        rows.append(
            ("teeko: playouts/s (random, axis, <=200 plies)", c.get("playouts"), pure["playouts"])
        )
        rows.append(("teeko: playout plies/s", c.get("plies"), pure["plies"]))
        rows.append(("teeko: MCTS iterations/s (hard, empty board)", c.get("mcts"), pure["mcts"]))
    print(f"\n{'':48} {'compiled':>12} {'pure':>10} {'ratio':>7}")
    for label, a, b in rows:
        print(f"{label:48} {fmt(a):>12} {fmt(b):>10} {ratio(a, b):>7}")
    return 0


# --------------------------------------------------------------------------- tournaments

TOURNAMENTS: dict[str, list[tuple[str, str]]] = {
    "teeko": [
        ("easy", "random"),
        ("medium", "random"),
        ("hard", "random"),
        ("medium", "easy"),
        ("hard", "medium"),
    ],
}
"""Default pairings per game (first level is the one scored). Other games add theirs."""


def bot_for(name: str, level: str) -> Bot:
    """A registered level, or for Teeko an experiment ``mcts-ITERATIONS-POLICY-DEPTH``
    (POLICY ``smart`` or ``random``): the full bot with that budget and playout policy."""
    if name == "teeko" and level.startswith("mcts-"):
        from core.ai.teeko_mcts import Level, TeekoBot

        _, iterations, policy, depth = level.split("-")
        cfg = Level(int(iterations), smart=policy == "smart", depth=int(depth))
        return TeekoBot("medium", cfg)
    return make_bot(name, level)


def play_game(job: tuple[str, str, str, int, int]) -> tuple[int, int, int, dict[str, list[float]]]:
    """One game; returns (result for level A: 1 win, 0 draw, -1 loss; plies; seat of A;
    per level, the seconds of each of its moves)."""
    name, a, b, seed, move_cap = job
    game = core.GAMES[name]
    seat_a = seed % 2
    levels = [a, b] if seat_a == 0 else [b, a]
    bots = [bot_for(name, lv) for lv in levels]
    rng = Random(seed)
    raw: Obj = {"move_cap": move_cap} if name == "teeko" else {}
    state = fold(game, game.start(game.options(raw), rng))
    times: dict[str, list[float]] = {a: [], b: []}
    plies = 0
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        start = time.perf_counter()
        command = bots[seat].choose(game.view(state, seat), seat, rng)
        times[levels[seat]].append(time.perf_counter() - start)
        state, _ = apply(game, state, seat, command, rng)
        plies += 1
    outcome = game.outcome(state)
    assert outcome is not None
    result = 0 if outcome.is_draw else 1 if seat_a in outcome.winners else -1
    return result, plies, seat_a, times


def tournament(args: argparse.Namespace) -> int:
    assert core.COMPILED or not args.require_compiled, "the scratch copy did not load compiled"
    names = [args.only] if args.only else sorted(TOURNAMENTS)
    print(
        f"gamenight tournament  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
        f"core: {'compiled' if core.COMPILED else 'pure Python'}  {args.jobs} jobs  "
        f"move cap {args.move_cap} plies  {args.games} games per pairing  {load()}",
        flush=True,
    )
    for name in names:
        pairs = TOURNAMENTS.get(name, [])
        if args.pairs:
            pairs = [(p.split(":")[0], p.split(":")[1]) for p in args.pairs.split(",")]
        for a, b in pairs:
            jobs = [(name, a, b, args.seed + i, args.move_cap) for i in range(args.games)]
            start = time.perf_counter()
            prog = Progress(f"{name} {a} vs {b} games", len(jobs), time.perf_counter, sys.stderr)
            results = []
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                for r in pool.map(play_game, jobs):  # in order: a line as they finish
                    results.append(r)
                    prog.step()
            w = sum(1 for r in results if r[0] == 1)
            d = sum(1 for r in results if r[0] == 0)
            loss = sum(1 for r in results if r[0] == -1)
            n = len(results)
            lo, hi = wilson(w, n)
            slo, shi = wilson(2 * w + d, 2 * n)
            white_wins = sum(1 for r in results if r[0] == 1 and r[2] == 0)
            plies = sum(r[1] for r in results) / max(1, n)
            secs: dict[str, list[float]] = {a: [], b: []}
            for r in results:
                for lv, ts in r[3].items():
                    secs[lv].extend(ts)
            timing = "  ".join(
                f"{lv}: {sum(ts) / len(ts):.3f} s/move (max {max(ts):.2f})"
                for lv, ts in secs.items()
                if ts
            )
            print(
                f"{name} {a} vs {b}: W {w} D {d} L {loss} of {n}  "
                f"win {w / n:.1%} [95% {lo:.1%}-{hi:.1%}]  "
                f"score {(w + d / 2) / n:.1%} [{slo:.1%}-{shi:.1%}]  "
                f"{a} as White won {white_wins}/{(n + 1) // 2}  "
                f"{plies:.0f} plies/game  {time.perf_counter() - start:.0f} s\n    {timing}",
                flush=True,
            )
    return 0


# ------------------------------------------------------------------------------ driver


def build_scratch() -> Path:
    """A temporary copy of core/ compiled with mypyc (as tools/compile_check does), with a
    copy of bench/ beside it to run from."""
    root = Path(__file__).resolve().parent.parent
    tmp = Path(tempfile.mkdtemp(prefix="gn-bench."))
    for pkg in ("core", "bench"):
        shutil.copytree(
            root / pkg, tmp / pkg, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
        )
    mods = sorted(
        p.relative_to(tmp).as_posix()
        for p in (tmp / "core").rglob("*.py")
        if p.name != "__init__.py"
    )
    mypyc = Path(sys.executable).parent / "mypyc"
    print(f"compiling a scratch copy of core/ in {tmp} ...", flush=True)
    start = time.perf_counter()
    res = subprocess.run([str(mypyc), "--strict", *mods], cwd=tmp, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stdout[-4000:], res.stderr[-4000:], sep="\n")
        shutil.rmtree(tmp, ignore_errors=True)
        raise SystemExit("mypyc failed")
    print(f"compiled in {time.perf_counter() - start:.0f} s", flush=True)
    return tmp


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="bench.core_bench", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "command", nargs="?", default="bench", choices=["bench", "tournament", "worker"]
    )
    ap.add_argument("--seconds", type=float, default=3.0, help="time per figure (bench)")
    ap.add_argument("--only", default=None, help="one game")
    ap.add_argument(
        "--build-scratch",
        action="store_true",
        help="compile a scratch copy of core/ and run from it",
    )
    ap.add_argument("--require-compiled", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--games", type=int, default=100, help="games per pairing (tournament)")
    ap.add_argument("--pairs", default="", help="pairings A:B,... (tournament)")
    ap.add_argument("--move-cap", type=int, default=200, help="plies before a draw")
    ap.add_argument("--seed", type=int, default=1000, help="first seed (tournament)")
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="parallel games (tournament)"
    )
    args = ap.parse_args(argv)
    if args.only and args.only not in core.GAMES:
        ap.error(f"unknown game {args.only!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "bots":  # Tiku, Teka and Tedoku bot tables (core.ai.tournaments)
        from core.ai.tournaments import main as bots_main

        return bots_main(argv[1:])
    if argv and argv[0] == "solved":  # the Teeko levels against the solved table
        from bench.teeko_bench import main as solved_main

        return solved_main(argv[1:])
    if argv and argv[0] == "dd":  # the Teka double-dummy solver against DDS and brute force
        from bench.teka_dd_bench import main as dd_main

        return dd_main(argv[1:])
    if argv and argv[0] == "duplicate":  # Teka bot levels in duplicate (docs/ai.md)
        from bench.teka_duplicate import main as duplicate_main

        return duplicate_main(argv[1:])
    args = parse(argv)
    if args.build_scratch:
        tmp = build_scratch()
        try:
            rest = [a for a in argv if a != "--build-scratch"]
            env = dict(os.environ, PYTHONPATH=str(tmp))
            env.pop("GAMENIGHT_PURE", None)
            return subprocess.call(
                [sys.executable, "-m", "bench.core_bench", *rest, "--require-compiled"], cwd=tmp,
                env=env,
            )
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.command == "worker":
        print(json.dumps(measure(args.seconds, args.only)))
        return 0
    run: Callable[[argparse.Namespace], int] = tournament if args.command == "tournament" else bench
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
