"""Teeko in the terminal: ``python -m core.cli`` (or ``./gamenight play``).

Two people at one keyboard, or a person against the computer (``core.ai.bots`` when it is
installed, else a player of uniformly random legal moves), or two computers. The board is
printed as text; moves are typed in the notation of ``docs/rules/teeko.md``: ``c3`` places
a piece, ``b2-c3`` (or ``b2c3``, ``b2 c3``) moves one; ``help`` lists the other words.

Unlike the rest of ``core`` this module does I/O (the terminal and a clock for the
computer's thinking time); the rules themselves stay in :mod:`core.teeko`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from random import Random
from typing import Any

from core.api import META_COMMANDS, IllegalMoveError, Obj
from core.teeko import GAME, PATTERN_SETS, SEAT_CHARS, SEAT_NAMES, TeekoState, parse_square

Reader = Callable[[str], str]
Writer = Callable[[str], None]

HELP = """\
Commands:
  c3            place a piece on c3 (while you have pieces in hand)
  b2-c3         move your piece from b2 to c3 (one square, any direction; also b2c3, b2 c3)
  moves         list your legal moves
  draw          offer a draw (your opponent answers at once)
  resign        give up the game
  board         print the board again
  help          this text
  quit          leave the program
Win by making four in a row (across, up, diagonally) or the four corners of a square."""


WORDS: dict[str, str] = {
    "resign": "resign",
    "accept": "accept_draw",
    "accept_draw": "accept_draw",
    "decline": "decline_draw",
    "decline_draw": "decline_draw",
}
"""Typed words that are commands (``draw`` is handled apart: it asks the opponent)."""


def board_text(view: Obj) -> str:
    """The board as text, rank 5 at the top; the last move in (), a winning pattern in []."""
    win = set(view.get("winning_squares") or [])
    last = view.get("last") or {}
    last_squares = {last.get("from"), last.get("to")}
    lines = ["     a  b  c  d  e"]
    for k, row in enumerate(view["board"]):
        rank = 5 - k
        cells = ""
        for f, ch in enumerate(row):
            name = "abcde"[f] + str(rank)
            if name in win:
                cells += f"[{ch}]"
            elif name in last_squares and ch != ".":
                cells += f"({ch})"
            else:
                cells += f" {ch} "
        lines.append(f"  {rank} {cells} {rank}")
    lines.append("     a  b  c  d  e")
    return "\n".join(lines)


def status_text(view: Obj) -> str:
    hand = view["in_hand"]
    parts = [f"ply {view['ply']}"]
    if view["phase"] == "place":
        parts.append(f"in hand: White {hand[0]}, Black {hand[1]}")
    if view.get("draw_offer") is not None:
        parts.append(f"{SEAT_NAMES[view['draw_offer']]} offers a draw")
    return " | ".join(parts)


def notation(command: Obj) -> str:
    """``c3``, ``b2-c3`` or the command type (``resign``...)."""
    if command["type"] == "place":
        return str(command["to"])
    if command["type"] == "move":
        return f"{command['from']}-{command['to']}"
    return str(command["type"])


def parse_move(text: str) -> Obj:
    """A typed move as a command: ``c3`` -> place, ``b2-c3`` / ``b2c3`` / ``b2 c3`` -> move.
    Raises ``ValueError`` with a message for the player."""
    t = text.strip().lower().replace("-", " ").replace(">", " ")
    parts = t.split()
    if len(parts) == 1 and len(parts[0]) == 4:
        parts = [parts[0][:2], parts[0][2:]]
    if len(parts) == 1:
        return {"type": "place", "to": _square(parts[0])}
    if len(parts) == 2:
        return {"type": "move", "from": _square(parts[0]), "to": _square(parts[1])}
    raise ValueError(f"cannot read {text.strip()!r}: type a square like c3 or a move like b2-c3")


def _square(s: str) -> str:
    parse_square(s)  # raises ValueError with a readable message
    return s


def outcome_text(view: Obj) -> str:
    out = view["outcome"]
    reason = out["reason"]
    if out["winners"]:
        winner = SEAT_NAMES[out["winners"][0]]
        if reason == "pattern":
            squares = " ".join(view.get("winning_squares") or [])
            return f"{winner} wins with {squares}."
        if reason == "resign":
            return f"{SEAT_NAMES[1 - out['winners'][0]]} resigns: {winner} wins."
        return f"{winner} wins ({reason})."
    words = {
        "draw_agreed": "Draw by agreement.",
        "repetition": "Draw: the same position came up a third time.",
        "move_cap": "Draw: the move limit was reached.",
    }
    return words.get(reason, f"Draw ({reason}).")


class Computer:
    """The computer player of one seat: a ``core.ai`` bot if available, else random moves."""

    def __init__(self, level: str, think: float, rng: Random) -> None:
        self.rng = rng
        self.think = think
        self.bot: Any = None
        self.level = "random"
        bots = load_bots()
        if bots is not None:
            self.bot = bots.make_bot("teeko", level)
            self.level = level

    def choose(self, state: TeekoState, seat: int) -> Obj:
        legal = GAME.legal_commands(state, seat)
        if self.bot is not None:
            deadline = time.monotonic() + self.think

            def should_stop() -> bool:
                return time.monotonic() >= deadline

            try:
                command: Obj = self.bot.choose(GAME.view(state, seat), seat, self.rng, should_stop)
                if command in legal:
                    return command
            except (ValueError, IllegalMoveError):
                pass
        if GAME.to_act(state) != [seat]:  # asked to answer a draw offer off turn
            return {"type": "decline_draw"}
        moves = [c for c in legal if c["type"] not in META_COMMANDS]
        return self.rng.choice(moves)


def load_bots() -> Any:
    """``core.ai.bots`` when it exists, else None."""
    try:
        return importlib.import_module("core.ai.bots")
    except ImportError:
        return None


def bot_levels() -> list[str]:
    bots = load_bots()
    if bots is None:
        return ["random"]
    levels: list[str] = list(bots.LEVELS.get("teeko", ["random"]))
    return levels


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gamenight play",
        description="Play Teeko in the terminal, against a person or the computer.",
    )
    p.add_argument("--white", choices=["human", "computer"], default="human")
    p.add_argument("--black", choices=["human", "computer"], default="computer")
    p.add_argument("--level", default=None, help="computer strength (see --levels)")
    p.add_argument("--levels", action="store_true", help="list the computer's levels and exit")
    p.add_argument("--squares", choices=list(PATTERN_SETS), default=PATTERN_SETS[0])
    p.add_argument("--repetition", action="store_true", help="third repetition is a draw")
    p.add_argument("--move-cap", type=int, default=0, help="plies until a draw (0: none)")
    p.add_argument("--think", type=float, default=5.0, help="computer's seconds per move")
    p.add_argument("--seed", type=int, default=None)
    return p


class Session:
    """One game at the terminal."""

    def __init__(
        self, options: Obj, players: list[Computer | None], read: Reader, write: Writer
    ) -> None:
        self.players = players
        self.read = read
        self.write = write
        self.rng = Random(0)
        self.state: TeekoState = GAME.initial()
        for ev in GAME.start(GAME.options(options), self.rng):
            self.state = GAME.evolve(self.state, ev)

    def apply(self, seat: int, command: Obj) -> None:
        for ev in GAME.decide(self.state, seat, command, self.rng):
            self.state = GAME.evolve(self.state, ev)

    def show(self) -> None:
        view = GAME.view(self.state, -1)
        self.write(board_text(view))
        self.write(status_text(view))

    def run(self) -> int:
        """Play until the game ends (0) or a player quits (1)."""
        self.show()
        while GAME.outcome(self.state) is None:
            seat = GAME.to_act(self.state)[0]
            player = self.players[seat]
            if player is None:
                if not self.human_turn(seat):
                    self.write("Game abandoned.")
                    return 1
            else:
                command = player.choose(self.state, seat)
                self.write(f"{SEAT_NAMES[seat]} ({SEAT_CHARS[seat]}) plays {notation(command)}")
                self.apply(seat, command)
                self.show()
        self.write(outcome_text(GAME.view(self.state, -1)))
        return 0

    def prompt(self, text: str) -> str | None:
        try:
            return self.read(text)
        except EOFError:
            return None

    def human_turn(self, seat: int) -> bool:
        """Read commands until ``seat`` has played (True) or quits (False)."""
        name = f"{SEAT_NAMES[seat]} ({SEAT_CHARS[seat]})"
        while True:
            verb = "place" if self.state.placing() else "move"
            line = self.prompt(f"{name} to {verb}> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word in ("quit", "exit", "q"):
                return False
            if word in ("help", "?", "h"):
                self.write(HELP)
                continue
            if word == "":
                continue
            if word == "board":
                self.show()
                continue
            if word == "moves":
                legal = GAME.legal_commands(self.state, seat)
                self.write(" ".join(notation(c) for c in legal if c["type"] not in META_COMMANDS))
                continue
            if word in ("draw", "offer", "offer_draw"):
                if self.offer_draw(seat):
                    return True
                continue
            command: Obj
            if word in WORDS:
                command = {"type": WORDS[word]}
            else:
                try:
                    command = parse_move(line)
                except ValueError as e:
                    self.write(f"{e} (type help for the commands)")
                    continue
            try:
                self.apply(seat, command)
            except IllegalMoveError as e:
                self.write(f"Not allowed: {e.reason}")
                continue
            if command["type"] in ("place", "move", "resign", "accept_draw"):
                self.show()
                return True

    def offer_draw(self, seat: int) -> bool:
        """Offer a draw and get the answer now. True when the game ended drawn."""
        try:
            self.apply(seat, {"type": "offer_draw"})
        except IllegalMoveError as e:
            self.write(f"Not allowed: {e.reason}")
            return False
        other = 1 - seat
        player = self.players[other]
        if player is None:
            line = self.prompt(
                f"{SEAT_NAMES[other]}, {SEAT_NAMES[seat]} offers a draw. Accept? [y/n] "
            )
            accept = line is not None and line.strip().lower() in ("y", "yes", "accept")
            answer: Obj = {"type": "accept_draw" if accept else "decline_draw"}
        else:
            answer = player.choose(self.state, other)
            if answer["type"] not in ("accept_draw", "decline_draw"):
                answer = {"type": "decline_draw"}
        self.apply(other, answer)
        if answer["type"] == "accept_draw":
            self.write(f"{SEAT_NAMES[other]} accepts the draw.")
            return True
        self.write(f"{SEAT_NAMES[other]} declines the draw.")
        return False


def main(argv: list[str] | None = None, read: Reader = input, write: Writer = print) -> int:
    args = build_parser().parse_args(argv)
    levels = bot_levels()
    if args.levels:
        write("Computer levels (weakest first): " + ", ".join(levels))
        return 0
    level: str = args.level if args.level is not None else levels[min(2, len(levels) - 1)]
    if level not in levels:
        write(f"unknown level {level!r}; one of {', '.join(levels)}")
        return 2
    if args.move_cap < 0:
        write("--move-cap must be 0 (no cap) or more")
        return 2
    seed = args.seed if args.seed is not None else time.time_ns()
    rng = Random(seed)
    players: list[Computer | None] = []
    for who in (args.white, args.black):
        players.append(
            Computer(level, args.think, Random(rng.getrandbits(64))) if who == "computer" else None
        )
    options: Obj = {
        "squares": args.squares,
        "repetition": args.repetition,
        "move_cap": args.move_cap,
    }
    computers = [SEAT_NAMES[i] for i, p in enumerate(players) if p is not None]
    first = next((p for p in players if p is not None), None)
    rules = f"Teeko, {args.squares} squares"
    if args.repetition:
        rules += ", draw on threefold repetition"
    if args.move_cap:
        rules += f", drawn after {args.move_cap} plies"
    write(rules + ".")
    if first is not None:
        write(f"The computer ({first.level}) plays {' and '.join(computers)}.")
    write("White moves first. Type help for the commands.")
    try:
        return Session(options, players, read, write).run()
    except KeyboardInterrupt:
        write("\nGame abandoned.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
