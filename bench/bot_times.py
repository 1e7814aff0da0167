"""Seconds a bot takes a move in the app, per game and level, under the app's per-level limits
(``client_kivy.vm.session.think_limit``): ``python -m bench.bot_times``. Results: docs/ai.md,
"Time per move in the app".

    python -m bench.bot_times [--moves 16] [--games teeko,tiku,tedoku,teka]
                              [--levels easy,medium,hard,max] [--cap 8] [--seed 1]
                              [--flat]

Each level plays a game against itself (every seat that level, the seeds fixed) until it has
made ``--moves`` decisions, each timed from the view handed to the bot to its answer, with
the app's clock: the level's limit, at most ``--cap`` seconds (the settings' cap, 8 by
default; ``--flat``: that cap alone, as before the levels had limits). A decision with a
single legal move is not counted (the app plays it without a search too). Printed per game
and level: the decisions timed, the median and the longest seconds, and the limit. Run it
with ``GAMENIGHT_PURE=1`` for what a phone runs (the pure-Python core; ``core.COMPILED`` is
printed)."""

from __future__ import annotations

import argparse
import statistics
import time
from random import Random

import core
from client_kivy.vm.session import think_limit
from core.ai.bots import device_levels, make_bot, missing_levels
from core.api import META_COMMANDS, Obj


def limit_of(level: str, cap: float, flat: bool) -> float:
    return cap if flat else min(cap, think_limit(level))


def time_level(game_name: str, level: str, moves: int, limit: float, seed: int) -> list[float]:
    """Seconds of ``moves`` decisions of ``level`` playing ``game_name`` against itself."""
    game = core.GAMES[game_name]
    rng = Random(seed)
    seats = game.min_seats
    options = game.options({"seats": seats} if game.min_seats != game.max_seats else {})
    bot = make_bot(game_name, level)
    out: list[float] = []
    while len(out) < moves:
        state = game.initial()
        for ev in game.start(options, rng):
            state = game.evolve(state, ev)
        while game.outcome(state) is None and len(out) < moves:
            seat = game.to_act(state)[0]
            legal = [c for c in game.legal_commands(state, seat)
                     if c.get("type") not in META_COMMANDS]
            view: Obj = game.view(state, seat)
            if len(legal) == 1:
                command = legal[0]
            else:
                started = time.monotonic()
                deadline = started + limit

                def stop(at: float = deadline) -> bool:
                    return time.monotonic() >= at

                command = bot.choose(view, seat, Random(rng.getrandbits(64)), stop, None)
                out.append(time.monotonic() - started)
            for ev in game.decide(state, seat, command, rng):
                state = game.evolve(state, ev)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=16)
    parser.add_argument("--games", default="teeko,tiku,tedoku,teka")
    parser.add_argument("--levels", default="")
    parser.add_argument("--cap", type=float, default=8.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--flat", action="store_true")
    args = parser.parse_args(argv)
    print(f"core.COMPILED = {core.COMPILED}; {args.moves} decisions a level; cap {args.cap} s")
    print("| game | level | limit | decisions | median s | max s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for game_name in args.games.split(","):
        missing = missing_levels(game_name)  # (not offered in the app: no table here)
        levels = [lv for lv in device_levels(game_name) if lv != "random" and lv not in missing]
        if args.levels:
            levels = [lv for lv in levels if lv in args.levels.split(",")]
        for level in levels:
            limit = limit_of(level, args.cap, args.flat)
            seconds = time_level(game_name, level, args.moves, limit, args.seed)
            print(f"| {game_name} | {level} | {limit:g} s | {len(seconds)} | "
                  f"{statistics.median(seconds):.2f} | {max(seconds):.2f} |", flush=True)


if __name__ == "__main__":
    main()
