"""Busy processes beside a run: the suite under load, as on a shared CI machine.

    python -m bench.busy [--per-core 2] [--memory MB] -- COMMAND ...
    python -m bench.busy [--per-core 2] [--memory MB] --seconds 600
    python -m bench.busy [--per-core 2] [--pidfile var/busy.pid] &   ...   python -m bench.busy stop

(``./gamenight bench busy ...`` is the same.) It starts ``--per-core`` busy processes for each
core (2 by default: on a 2-core machine four processes, a load average of about 4 beside the
run): each a pure CPU loop in Python, and with ``--memory`` each also allocates that many MB,
writes every byte and frees them, twice a second (memory churn: the allocator, the page
cache and the memory bandwidth are shared too). It prints what it started, then

* with a command after ``--``: runs it, stops the busy processes when it ends, prints how
  long it took and exits with its exit status (``./gamenight bench busy -- ./gamenight test``);
* with ``--seconds``: stops them after that long;
* else: runs until stopped (Ctrl-C, SIGTERM, or ``stop``, which reads the pid file).

The busy processes never outlive it: each one exits when its parent is gone (Linux: the
kernel kills it at once; elsewhere it sees within half a second that its parent changed), so
a ``kill -9`` of this script leaves nothing behind either.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
PIDFILE = ROOT / "var" / "busy.pid"
MARK = "gamenight-busy-worker"
"""The busy processes' first argument: how a person (or a test) tells them from others."""

WORKER = r"""
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
parent, mb = int(sys.argv[2]), int(sys.argv[3])
if sys.platform.startswith("linux"):
    try:  # the kernel kills this process when its parent ends (PR_SET_PDEATHSIG)
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass
x, t = 1, time.monotonic()
while os.getppid() == parent:
    for _ in range(100000):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    if time.monotonic() - t >= 0.5:
        t = time.monotonic()
        if mb:
            block = bytearray(b"\x01") * (mb << 20)
            del block
"""


def say(msg: str) -> None:
    print(f"[busy] {msg}", flush=True)


def start(n: int, memory_mb: int) -> list[subprocess.Popen[bytes]]:
    me = str(os.getpid())
    return [subprocess.Popen([sys.executable, "-c", WORKER, MARK, me, str(memory_mb)],
                             stdin=subprocess.DEVNULL)
            for _ in range(n)]


def stop(workers: list[subprocess.Popen[bytes]]) -> None:
    for w in workers:
        if w.poll() is None:
            w.terminate()
    for w in workers:
        try:
            w.wait(timeout=30)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()


def load() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - not on Windows
        return "load average unknown"


class Stop(Exception):
    """SIGTERM or SIGINT: stop the busy processes and end."""


def run(args: argparse.Namespace) -> int:
    cores = os.cpu_count() or 1
    n = max(1, round(args.per_core * cores))
    workers = start(n, args.memory)
    churn = f", each churning {args.memory} MB twice a second" if args.memory else ""
    say(f"started {n} busy processes ({args.per_core:g} per core x {cores} cores: CPU loops"
        f"{churn}): pids {' '.join(str(w.pid) for w in workers)}")
    child: subprocess.Popen[bytes] | None = None
    pidfile: Path | None = None

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if child is not None and child.poll() is None:
            # The command decides when it is done (a Ctrl-C reached it too, from the
            # terminal; a SIGTERM is passed on to it).
            if signum == signal.SIGTERM:
                child.terminate()
            return
        raise Stop

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    t0 = time.monotonic()
    code = 0
    try:
        if args.command:
            child = subprocess.Popen(args.command)
            code = child.wait()
            what = " ".join(" ".join(args.command).split())  # (one line)
            what = what if len(what) <= 80 else what[:77] + "..."
            say(f"{what}: exit status {code} after "
                f"{time.monotonic() - t0:.0f} s beside {n} busy processes ({load()})")
        elif args.seconds is not None:
            time.sleep(args.seconds)
        else:
            pidfile = Path(args.pidfile)
            pidfile.parent.mkdir(parents=True, exist_ok=True)
            pidfile.write_text(f"{os.getpid()}\n")
            say(f"running until stopped (Ctrl-C, or: python -m bench.busy stop --pidfile "
                f"{pidfile})")
            while True:
                time.sleep(3600)
    except Stop:
        pass
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        stop(workers)
        if pidfile is not None:
            with contextlib.suppress(OSError):
                if pidfile.read_text().strip() == str(os.getpid()):
                    pidfile.unlink()
        say(f"stopped the {n} busy processes after {time.monotonic() - t0:.0f} s")
    return code


def stop_running(pidfile: Path, wait: float = 60.0) -> int:
    """``stop``: SIGTERM to the running busy script named in ``pidfile``; wait until it ended."""
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        say(f"no busy processes running ({pidfile} missing or empty)")
        return 1
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        say(f"process {pid} from {pidfile} is not running (a stale pid file: removed)")
        pidfile.unlink(missing_ok=True)
        return 1
    deadline = time.monotonic() + wait
    while pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if pidfile.exists():
        say(f"process {pid} did not stop within {wait:.0f} s")
        return 1
    say(f"stopped (process {pid})")
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    command: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(
        prog="python -m bench.busy",
        description="Start busy processes (CPU loops, optionally memory churn) beside a "
                    "command, for a time, or until stopped; they never outlive this script.",
        epilog="examples: python -m bench.busy --per-core 2 -- ./gamenight test;  "
               "python -m bench.busy --seconds 600;  python -m bench.busy & ... "
               "python -m bench.busy stop")
    p.add_argument("action", nargs="?", choices=["start", "stop"], default="start",
                   help="start (the default) or stop the ones started without a command and "
                        "without --seconds (through the pid file)")
    p.add_argument("--per-core", type=float, default=2.0,
                   help="busy processes per core (2)")
    p.add_argument("--memory", type=int, default=0, metavar="MB",
                   help="each busy process also allocates, writes and frees this many MB "
                        "twice a second (0)")
    p.add_argument("--seconds", type=float, help="stop after this long")
    p.add_argument("--pidfile", default=str(PIDFILE),
                   help=f"where the running script's pid is kept ({PIDFILE.relative_to(ROOT)})")
    args = p.parse_args(argv)
    args.command = command
    if args.per_core <= 0:
        p.error("--per-core must be positive")
    if args.memory < 0:
        p.error("--memory must not be negative")
    if args.action == "stop" and (command or args.seconds is not None):
        p.error("stop takes no command and no --seconds")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.action == "stop":
        return stop_running(Path(args.pidfile))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
