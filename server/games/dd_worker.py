"""Double-dummy solves with a time budget: a child process that solves Teka positions
(:mod:`core.teka_dd`) one at a time, and :class:`BudgetedSolve`, the parent's side, which
ends the child when a solve runs past its budget (a compiled search cannot be interrupted
from inside) and starts a fresh one for the next position. No Django here.

Protocol on the child's stdin/stdout, one JSON object a line: the parent writes a position
(``hands``, ``trumps``, ``leader``, ``trick``, ``first_trick``, ``sitting_out``, ``side``, the
fields of :class:`core.teka_dd.Position`; ``"cards": true`` asks for every legal card's
figure), the child answers ``{"value": tricks}`` (``{"cards": {card: tricks}}``) or
``{"error": reason}`` (and ``{"ready": true}`` once, when it has started); each answer also
carries ``"cpu"``, the child's CPU seconds so far (what a match's CPU budget counts). The
child ends at the end of its input, or when its parent dies.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import IO, Any

from core.teka_dd import Position

START_SECONDS = 60.0
"""How long the child may take to start (import the compiled core)."""
SOLVE_SECONDS = 30.0
"""Default budget of one solve (``GAMENIGHT_TEKA_SOLVE_SECONDS``; the server's settings)."""


def position_json(p: Position) -> dict[str, Any]:
    return {
        "hands": p.hands, "trumps": p.trumps, "leader": p.leader, "trick": p.trick,
        "first_trick": p.first_trick, "sitting_out": p.sitting_out, "side": p.side,
    }


def _position(d: dict[str, Any]) -> Position:
    return Position(
        [[str(c) for c in h] for h in d["hands"]], str(d["trumps"]), int(d["leader"]),
        [str(c) for c in d["trick"]], bool(d["first_trick"]), int(d["sitting_out"]),
        int(d["side"]),
    )


class BudgetedSolve:
    """A solve function for :func:`core.teka_analysis.analyse`: the declaring side's tricks,
    or ``None`` when the solve took more than ``budget`` seconds (the child is ended then).
    ``close()`` ends the child.

    ``cpu_budget``: the CPU seconds all the solves together may take (the child's own CPU
    time, its start not counted; a solve cut short counts its whole time). A solve never
    runs past what is left of it; once it is spent (``exhausted``), every solve answers
    ``None`` at once, without asking the child (``refused`` counts them)."""

    def __init__(self, budget: float, cpu_budget: float | None = None) -> None:
        self.budget = budget
        self.cpu_budget = cpu_budget
        self.proc: subprocess.Popen[bytes] | None = None
        self.solves = 0
        self.cut = 0
        self.refused = 0
        self.slowest = 0.0
        self.cpu = 0.0
        self.exhausted = False
        self._child_cpu = 0.0

    def _start(self) -> subprocess.Popen[bytes]:
        """The child, started and ready (its imports are not counted in a solve's budget)."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server.games.dd_worker", str(os.getpid())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
            assert self.proc.stdout is not None
            line = _read_line(self.proc.stdout, time.monotonic() + START_SECONDS)
            if line is None:
                self.close()
                raise RuntimeError("the double-dummy solver process did not start")
            self._child_cpu = float(json.loads(line).get("cpu", 0.0))
        return self.proc

    def __call__(self, position: Position) -> int | None:
        answer = self._ask(position_json(position))
        return None if answer is None else int(answer["value"])

    def cards(self, position: Position) -> dict[str, int] | None:
        """The declaring side's tricks after each legal card (None: cut short)."""
        answer = self._ask({**position_json(position), "cards": True})
        return None if answer is None else {str(c): int(v) for c, v in answer["cards"].items()}

    def _ask(self, question: dict[str, Any]) -> dict[str, Any] | None:
        limit = self.budget
        if self.cpu_budget is not None:
            left = self.cpu_budget - self.cpu
            if left <= 0:
                self.exhausted = True
                self.refused += 1
                return None
            limit = min(limit, left)  # (CPU time never runs faster than the clock)
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        t0 = time.monotonic()
        try:
            proc.stdin.write(json.dumps(question).encode() + b"\n")
            proc.stdin.flush()
            line = _read_line(proc.stdout, t0 + limit)
        except OSError:
            line = None
        took = time.monotonic() - t0
        self.solves += 1
        self.slowest = max(self.slowest, took)
        if line is None:
            self.cut += 1
            self.cpu += took
            if limit < self.budget:
                self.exhausted = True
            self.close()
            return None
        answer: dict[str, Any] = json.loads(line)
        if "cpu" in answer:
            cpu = float(answer["cpu"])
            self.cpu += max(0.0, cpu - self._child_cpu)
            self._child_cpu = cpu
        else:
            self.cpu += took
        if "error" in answer:
            raise ValueError(f"the solver refused a position: {answer['error']}")
        return answer

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdin, proc.stdout):
            if f is not None:
                f.close()


def _read_line(stream: IO[bytes], deadline: float) -> bytes | None:
    """One line from ``stream`` by ``deadline`` (monotonic), else None."""
    fd = stream.fileno()
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buf += chunk
    return buf


def main(argv: list[str]) -> int:
    """The child: solve each position read from stdin, answer on stdout."""
    from server.lifeline import die_with_parent

    die_with_parent(int(argv[0]) if argv else None)
    from core.teka_dd import Solver

    solver = Solver()
    sys.stdout.write(json.dumps({"ready": True, "cpu": time.process_time()}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            question = json.loads(line)
            solver.load(_position(question))
            out: dict[str, Any] = (
                {"cards": solver.card_values()} if question.get("cards") else
                {"value": solver.value()}
            )
        except (ValueError, KeyError, TypeError) as exc:
            out = {"error": str(exc)}
        out["cpu"] = time.process_time()
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
