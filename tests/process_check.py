"""The test run leaves no process behind (a pytest plugin, registered from conftest.py).

At start the run puts a token in its environment (``GAMENIGHT_TEST_RUN``); every process
the tests start inherits it, however far down (daphne, its bot workers, their resource
tracker, server.run, PostgreSQL servers started by tests), and keeps it when its parent
dies and it is re-parented, which is exactly when a parent-child walk would lose it. At
the end of the session every process that carries the token is found (psutil reads the
environment of the user's processes), given 5 s to finish exiting, and if any is still
there the run fails with their pids and command lines, and they are killed.

Not counted: the pytest process itself and its own multiprocessing resource tracker (both
end with pytest), and the embedded PostgreSQL this process started for the test database
(stopped at exit by server.dbconfig, or kept on purpose with ``GAMENIGHT_PG_KEEP=1``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

ENV = "GAMENIGHT_TEST_RUN"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""Set in a worker process of pytest-xdist (``-n``): the run's token is the controller's,
which the workers and everything they start inherit, and the controller checks once, at
the end, when every worker is gone."""
TOKEN = (os.environ.get(ENV, "") if WORKER else "") or f"{os.getpid()}-{secrets.token_hex(4)}"
os.environ[ENV] = TOKEN

XDIST_WORKER_BOOT = "exec(eval(sys.stdin.readline()))"
"""(the command line of an xdist worker, execnet's bootstrap)"""


def _expected() -> set[int]:
    """Processes that may still run at session end: the embedded test PostgreSQL (its
    postmaster and backends) when this very process started it."""
    from server import dbconfig

    keep: set[int] = set()
    for pgdata in list(dbconfig._STARTED_HERE):
        if not dbconfig.started_here(pgdata):
            continue
        info = dbconfig.running_info(Path(pgdata))
        if info is None:
            continue
        with contextlib.suppress(psutil.Error):
            pm = psutil.Process(info["pid"])
            keep.add(pm.pid)
            keep.update(c.pid for c in pm.children(recursive=True))
    return keep


def run_processes(token: str = TOKEN) -> list[psutil.Process]:
    """Live processes (zombies aside) carrying ``token``, other than this one, its
    resource tracker and the expected PostgreSQL."""
    me = os.getpid()
    keep = _expected()
    found: list[psutil.Process] = []
    for p in psutil.process_iter(["pid", "ppid", "status", "cmdline"]):
        if p.pid == me or p.pid in keep or p.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            if p.environ().get(ENV) != token:
                continue
        except (psutil.Error, OSError):
            continue
        cmd = " ".join(p.info["cmdline"] or [])
        if p.info["ppid"] == me and "multiprocessing.resource_tracker" in cmd:
            continue
        if p.info["ppid"] == me and XDIST_WORKER_BOOT in cmd:
            continue  # (an xdist worker being shut down: it ends with the run)
        found.append(p)
    return found


def describe(procs: list[psutil.Process]) -> str:
    lines = []
    for p in procs:
        with contextlib.suppress(psutil.Error):
            lines.append(f"  pid {p.pid} (parent {p.ppid()}): {' '.join(p.cmdline())[:200]}")
    return "\n".join(lines)


def leftovers(grace: float = 5.0) -> list[psutil.Process]:
    """The run's processes still alive after ``grace`` seconds (processes that are being
    stopped get that long to finish)."""
    deadline = time.monotonic() + grace
    while True:
        found = run_processes()
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.2)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if os.environ.get("GAMENIGHT_ALLOW_LEFTOVER_PROCESSES", "") not in ("", "0") or WORKER:
        return
    found = leftovers()
    if not found:
        return
    text = describe(found)
    for p in found:
        with contextlib.suppress(psutil.Error):
            p.kill()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    msg = (f"the test run left {len(found)} process(es) running (now killed):\n{text}")
    if reporter is not None:
        reporter.write_sep("!", "processes left running", red=True, bold=True)
        reporter.write_line(msg, red=True)
    else:
        print(msg, flush=True)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
