#!/usr/bin/env python3
"""Write the frozen corpus of old logs, ``tests/corpus/*.jsonl``: run ONCE, never again.

    python tests/make_corpus.py            # writes only the files that do not exist yet
    python tests/make_corpus.py --list     # the logs it knows, without writing

The corpus is what today's code wrote, kept so that every later release is checked to fold
the same logs to the same states and outcomes (``tests/test_corpus.py``). A file is never
rewritten: when an event format changes, its logs stay as they are and the game's upcasters
(``core.upcast``) must read them. New logs may be added (a new game, a new kind of event):
this script then writes only the new files.

A file is JSON lines in canonical JSON. The first line describes the log:
``{"corpus": name, "game": kind, "options": raw options, "about": what it covers,
"events": count, "outcome": the outcome at the end (or null)}``; then one line per event,
``{"seq", "seat", "v": schema version, "event", "view": digest}`` where ``digest`` is the
first 16 hex digits of the sha256 of ``dumps(view(state, ALL))`` after that event.

Each log is played by the rules core itself, ``random.Random(seed)`` choosing every command
(meta commands such as ``resign`` only where a scenario asks) and the game's own chance; the
server's table events (``table``, ``timeout``, ``seat_to_bot``) and organisers' ``result``
events are written in the form the server appends them (``server/games/clocks.py``,
``core.api.result_event``).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core import ALL, GAMES, SPECTATOR, upcast  # noqa: E402
from core.api import META_COMMANDS, Game, dumps  # noqa: E402

CORPUS = HERE / "corpus"
CAP = 400
"""Commands at most in one random run (a long Teka match stays unfinished at that)."""


def digest(game: Game, state: Any) -> str:
    """What a corpus line records of the state after its event."""
    return hashlib.sha256(dumps(game.view(state, ALL)).encode()).hexdigest()[:16]


class Log:
    """A log being written: the game, its state, its records."""

    def __init__(self, kind: str, options: dict[str, Any], seed: int) -> None:
        self.kind = kind
        self.game = GAMES[kind]
        self.raw = options
        self.rng = Random(seed)
        self.state = self.game.initial()
        self.records: list[dict[str, Any]] = []
        self.append(None, self.game.start(self.game.options(options), self.rng))

    def append(self, seat: int | None, events: list[dict[str, Any]]) -> None:
        for ev in events:
            self.state = self.game.evolve(self.state, ev)
            self.records.append({"seq": len(self.records) + 1, "seat": seat,
                                 "v": upcast.current(self.kind), "event": ev,
                                 "view": digest(self.game, self.state)})

    def over(self) -> bool:
        return self.game.outcome(self.state) is not None

    def command(self, seat: int, command: dict[str, Any]) -> None:
        self.append(seat, self.game.decide(self.state, seat, command, self.rng))

    def move(self, seat: int | None = None, meta: bool = False) -> None:
        """One random command of ``seat`` (default: a random seat the game waits for)."""
        if seat is None:
            seat = self.rng.choice(self.game.to_act(self.state))
        legal = self.game.legal_commands(self.state, seat)
        moves = legal if meta else [c for c in legal if c["type"] not in META_COMMANDS] or legal
        self.command(seat, self.rng.choice(moves))

    def play(self, commands: int = CAP, until: Callable[[Log], bool] | None = None) -> None:
        for _ in range(commands):
            if self.over() or not self.game.to_act(self.state) or (until and until(self)):
                return
            self.move()

    def table(self, running: bool, move_limit: int | None = 30, clock: int | None = None,
              increment: int = 0, abandon: int | None = 120) -> None:
        self.append(None, [{"type": "table", "move_limit": move_limit, "clock": clock,
                            "increment": increment, "abandon": abandon, "running": running}])

    def timeout(self, seat: int) -> None:
        """A seat out of time: the loss the core gives, or a bot's move for the seat."""
        ev: dict[str, Any] = {"type": "timeout", "seat": seat}
        if seat not in self.game.visible_to_act(self.state, SPECTATOR):
            ev["hidden"] = True
        forfeit = self.game.forfeit(self.state, seat)
        self.append(None, [ev, *forfeit])
        if not forfeit:
            self.move(seat)

    def seat_to_bot(self, seat: int, by: int | None, level: str = "random") -> None:
        self.append(None, [{"type": "seat_to_bot", "seat": seat, "by": by, "level": level}])

    def result(self, winners: list[int], reason: str, scores: list[int] | None = None) -> None:
        command = {"type": "result", "winners": winners, "reason": reason, "scores": scores}
        self.append(None, self.game.decide_result(self.state, command))

    def text(self, name: str, about: str) -> str:
        out = self.game.outcome(self.state)
        head = {"corpus": name, "game": self.kind, "options": self.raw, "about": about,
                "events": len(self.records), "outcome": None if out is None else out.to_json()}
        return "".join(dumps(x) + "\n" for x in [head, *self.records])


def _going(kind: str, options: dict[str, Any], seed: int, commands: int) -> Log:
    """A log of ``commands`` random commands, from the first seed from ``seed`` on whose game
    has not ended by then (a random Teka bid of double 13 often ends a match at once)."""
    for s in range(seed, seed + 1000):
        log = Log(kind, options, s)
        log.play(commands)
        if not log.over():
            return log
    raise RuntimeError(f"every {kind} game ended within {commands} commands")


def _waiting(log: Log) -> int:
    return log.game.to_act(log.state)[0]


def option_runs() -> dict[str, tuple[str, Callable[[], Log]]]:
    """Every game with every example option set, played at random to its end (or CAP)."""
    out: dict[str, tuple[str, Callable[[], Log]]] = {}
    for kind, game in GAMES.items():
        for i, raw in enumerate(game.example_options()):
            def run(kind: str = kind, raw: dict[str, Any] = raw, i: int = i) -> Log:
                log = Log(kind, raw, 1000 + 10 * i + len(kind))
                log.play()
                return log
            out[f"{kind}-options-{i}"] = (f"{kind} with options {dumps(raw)}, random play", run)
    return out


def teeko_forfeit() -> Log:
    log = Log("teeko", {}, 11)
    log.play(7)
    log.result([1], "forfeit")
    return log


def teeko_draw_agreed() -> Log:
    log = Log("teeko", {"repetition": True}, 12)
    log.play(5)
    seat = _waiting(log)
    log.command(seat, {"type": "offer_draw"})
    log.command(1 - seat, {"type": "decline_draw"})
    log.play(3)
    seat = _waiting(log)
    log.command(seat, {"type": "offer_draw"})
    log.command(1 - seat, {"type": "accept_draw"})
    return log


def teeko_clock_timeout() -> Log:
    log = Log("teeko", {"squares": "tilted"}, 13)
    log.table(False, move_limit=None, clock=300, increment=5, abandon=None)
    log.table(True, move_limit=None, clock=300, increment=5, abandon=None)
    log.play(9)
    log.timeout(_waiting(log))
    return log


def teeko_resign() -> Log:
    log = Log("teeko", {"squares": "classic"}, 14)
    log.play(12)
    log.command(_waiting(log), {"type": "resign"})
    return log


def tiku_adjudicated() -> Log:
    log = Log("tiku", {"points": True}, 21)
    log.play(25)
    log.result([0], "adjudicated")
    return log


def tiku_abandoned() -> Log:
    """A seat away past the abandon time, handed to a bot; later adjudicated."""
    log = Log("tiku", {}, 22)
    log.table(False)
    log.table(True)
    log.play(10)
    seat = _waiting(log)
    log.seat_to_bot(seat, 1 - seat)
    log.play(10)
    log.result([1 - seat], "adjudicated")
    return log


def tiku_timeout_resign() -> Log:
    log = Log("tiku", {"diagonal": True}, 23)
    log.table(False, move_limit=None, clock=120, increment=2, abandon=60)
    log.table(True, move_limit=None, clock=120, increment=2, abandon=60)
    log.play(6)
    log.command(_waiting(log), {"type": "resign"})
    return log


def tedoku_void() -> Log:
    log = Log("tedoku", {"seats": 3}, 31)
    log.play(20)
    log.result([], "void")
    return log


def tedoku_timeout_bot() -> Log:
    """Four seats; a seat runs out of time twice (a bot draws for it), one is handed to a bot
    for good; played to the end."""
    log = Log("tedoku", {"seats": 4, "bonus": True}, 32)
    log.table(False, move_limit=60, abandon=180)
    log.table(True, move_limit=60, abandon=180)
    log.play(9)
    log.timeout(log.game.to_act(log.state)[-1])
    log.play(6)
    log.timeout(log.game.to_act(log.state)[0])
    log.seat_to_bot(2, 0, "greedy")
    log.play()
    return log


def tedoku_off_board() -> Log:
    log = Log("tedoku", {"seats": 2}, 33)
    log.play(8)
    log.result([1], "off_board", [40, 52])
    return log


def teka_throw_in() -> Log:
    """A Teka match where a weak hand throws in (a redeal), then a keep, to the end or CAP."""
    for seed in range(41, 400):
        log = Log("teka", {"target": 20}, seed)
        thrown = kept = False
        for _ in range(CAP):
            if log.over() or not log.game.to_act(log.state):
                break
            seat = log.rng.choice(log.game.to_act(log.state))
            legal = [c["type"] for c in log.game.legal_commands(log.state, seat)]
            if "throw_in" in legal and not thrown:
                log.command(seat, {"type": "throw_in"})
                thrown = True
            elif "keep" in legal and thrown and not kept:
                log.command(seat, {"type": "keep"})
                kept = True
            else:
                log.move(seat)
        if thrown and kept:
            return log
    raise RuntimeError("no seed deals a hand that may be thrown in")


def teka_off_board() -> Log:
    log = _going("teka", {"target": 30}, 42, 9)
    log.result([1, 3], "off_board", [12, 31, 12, 31])
    return log


def teka_timeout_seat_to_bot() -> Log:
    for seed in range(43, 1000):
        log = Log("teka", {"draw_for_partners": True, "target": 15}, seed)
        log.table(False, move_limit=45, abandon=90)
        log.table(True, move_limit=45, abandon=90)
        log.play(3)
        if log.over():
            continue
        log.timeout(_waiting(log))
        log.play(10)
        if log.over():
            continue
        log.seat_to_bot(_waiting(log), None, "random")
        log.play()
        return log
    raise RuntimeError("every match ended before its seat was handed to a bot")


def teka_forfeit() -> Log:
    log = _going("teka", {}, 44, 12)
    log.result([0, 2], "forfeit")
    return log


SCENARIOS: dict[str, tuple[str, Callable[[], Log]]] = {
    **option_runs(),
    "teeko-forfeit": ("a forfeit decided by the organiser", teeko_forfeit),
    "teeko-draw-agreed": ("draw offers: one declined, one accepted",
                          teeko_draw_agreed),
    "teeko-clock-timeout": ("a chess clock; the seat to move runs out of time",
                            teeko_clock_timeout),
    "teeko-resign": ("a resignation", teeko_resign),
    "tiku-adjudicated": ("points game adjudicated by the organiser", tiku_adjudicated),
    "tiku-abandoned": ("a seat away handed to a bot, the game later adjudicated",
                       tiku_abandoned),
    "tiku-timeout-resign": ("a clock with increment, then a resignation", tiku_timeout_resign),
    "tedoku-void": ("three seats, the game declared void", tedoku_void),
    "tedoku-timeout-bot": ("four seats: timeouts a bot answers, a seat handed to a bot",
                           tedoku_timeout_bot),
    "tedoku-off-board": ("two seats, a result played on paper", tedoku_off_board),
    "teka-throw-in": ("a match with a hand thrown in (redeal) and one kept", teka_throw_in),
    "teka-off-board": ("a match finished on a physical table", teka_off_board),
    "teka-timeout-seat-to-bot": ("partners drawn; a timeout, a seat handed to a bot",
                                 teka_timeout_seat_to_bot),
    "teka-forfeit": ("a partnership forfeits", teka_forfeit),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="name the logs, write nothing")
    args = parser.parse_args(argv)
    CORPUS.mkdir(exist_ok=True)
    for name, (about, make) in SCENARIOS.items():
        path = CORPUS / f"{name}.jsonl"
        if args.list or path.exists():
            print(f"{'exists ' if path.exists() else 'missing'} {name}: {about}")
            continue
        log = make()
        path.write_text(log.text(name, about))
        print(f"wrote   {path.name}: {len(log.records)} events")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
