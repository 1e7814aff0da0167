"""bench/busy.py, the busy processes beside a run (the suite under load, docs/checks.md): it
starts them, runs the command among them, passes its exit status on, and none of them
outlives it, however it ends (the command's end, ``stop``, or a ``kill -9`` of the script)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bench import busy

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0  # seconds: only a hang takes this long

SIBLINGS = (
    "import json, os, psutil, sys\n"
    "kids = psutil.Process(os.getppid()).children()\n"
    f"print(json.dumps([p.pid for p in kids if {busy.MARK!r} in p.cmdline()]))\n"
    "sys.exit(3)\n")
"""The command run among the busy processes: prints their pids, exits with status 3."""


def busy_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "bench.busy", "--per-core", "0.5", *args]


def gone(pids: list[int]) -> bool:
    """Every process of ``pids`` has ended (a zombie not yet reaped counts as ended)."""
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                return False
        except psutil.NoSuchProcess:
            pass
    return True


def wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + WAIT
    while not gone(pids):
        assert time.monotonic() < deadline, f"still running: {pids}"
        time.sleep(0.1)


def started(proc: subprocess.Popen[str]) -> list[int]:
    """The pids of the busy processes, from the script's first line."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("[busy] started 1 busy processes"), line
    return [int(p) for p in line.split("pids")[1].split()]


def test_the_command_runs_among_the_busy_processes_which_end_with_it() -> None:
    done = subprocess.run([*busy_cmd(), "--", sys.executable, "-c", SIBLINGS], cwd=ROOT,
                          capture_output=True, text=True, timeout=WAIT, check=False)
    assert done.returncode == 3, done.stdout + done.stderr  # the command's exit status
    lines = done.stdout.splitlines()
    pids = [int(p) for p in lines[0].split("pids")[1].split()]
    assert len(pids) == max(1, round(0.5 * (os.cpu_count() or 1)))
    assert json.loads(lines[1]) == pids  # they were running while the command ran
    assert "exit status 3" in lines[2] and "busy processes" in lines[2]
    assert gone(pids)  # stopped before the script returned


def test_stop_ends_the_script_and_its_busy_processes(tmp_path: Path) -> None:
    pidfile = tmp_path / "busy.pid"
    proc = subprocess.Popen([*busy_cmd("--pidfile", str(pidfile))], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        pids = started(proc)
        assert proc.stdout is not None
        assert "running until stopped" in proc.stdout.readline()  # (after the pid file)
        assert pidfile.read_text().split() == [str(proc.pid)]
        stop = subprocess.run(busy_cmd("stop", "--pidfile", str(pidfile)), cwd=ROOT,
                              capture_output=True, text=True, timeout=WAIT, check=False)
        assert stop.returncode == 0, stop.stdout + stop.stderr
        assert proc.wait(WAIT) == 0
        assert gone(pids) and not pidfile.exists()
        again = subprocess.run(busy_cmd("stop", "--pidfile", str(pidfile)), cwd=ROOT,
                               capture_output=True, text=True, timeout=WAIT, check=False)
        assert again.returncode == 1 and "no busy processes running" in again.stdout
    finally:
        proc.kill()
        proc.wait()


def test_a_kill_9_of_the_script_leaves_no_busy_process() -> None:
    proc = subprocess.Popen(busy_cmd("--seconds", "600"), cwd=ROOT, stdout=subprocess.PIPE,
                            text=True)
    try:
        pids = started(proc)
        assert not gone(pids)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(WAIT)
        wait_gone(pids)
    finally:
        proc.kill()
        proc.wait()


def test_bad_arguments_are_refused() -> None:
    for args in (["--per-core", "0"], ["--memory", "-1"], ["stop", "--seconds", "3"]):
        done = subprocess.run(busy_cmd(*args), cwd=ROOT, capture_output=True, text=True,
                              timeout=WAIT, check=False)
        assert done.returncode == 2 and "error" in done.stderr, (args, done.stderr)
