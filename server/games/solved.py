"""Solved Teeko tables on the server: a missing one is built in the background on first use.

The build (``python -m core.teeko_solve build``, about two minutes and 0.8 GiB per pattern
set, see docs/ai.md) runs as a child process writing ``var/teeko/<squares>.tbl``; a lock file
``<squares>.building`` beside it keeps other processes from starting a second one, and its
output goes to ``<squares>.log``. Until the table is there the ``perfect`` level plays like
``max`` and the analysis endpoint answers 409 saying so. Off under pytest and when
``GAMENIGHT["TEEKO_SOLVE_ON_DEMAND"]`` is false.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.conf import settings

from core.teeko_table import TableError, load, table_dir

log = logging.getLogger("server.games")

STALE_SECONDS = 30 * 60
"""A lock file older than this is left from a build that died: it is removed."""

_started: dict[str, subprocess.Popen[bytes]] = {}
_lock = threading.Lock()


def enabled() -> bool:
    return bool(settings.GAMENIGHT.get("TEEKO_SOLVE_ON_DEMAND", False))


def ensure_table(squares: str) -> str | None:
    """None when the table of ``squares`` can be read; else a sentence for the user: the
    build has started now, is under way, or is off (and how to run it)."""
    try:
        if load(squares) is not None:
            return None
    except TableError as exc:
        return f"the Teeko table of {squares!r} is unusable ({exc})"
    manual = f"./gamenight solve teeko --squares {squares}"
    if not enabled():
        return f"the Teeko table of {squares!r} is not built ({manual})"
    directory = table_dir()
    lock_path = directory / f"{squares}.building"
    with _lock:
        proc = _started.get(squares)
        if proc is not None and proc.poll() is None:
            return f"the Teeko table of {squares!r} is being built: try again in a few minutes"
        directory.mkdir(parents=True, exist_ok=True)
        try:
            if time.time() - lock_path.stat().st_mtime > STALE_SECONDS:
                lock_path.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
        try:
            fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return f"the Teeko table of {squares!r} is being built: try again in a few minutes"
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        with open(directory / f"{squares}.log", "ab") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "core.teeko_solve", "build", "--squares", squares,
                 "--quiet", "--dir", str(directory)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        _started[squares] = proc
    log.warning("building the Teeko table of %r in the background (pid %d)", squares, proc.pid)
    threading.Thread(target=_reap, args=(squares, proc, lock_path), daemon=True).start()
    return (f"the Teeko table of {squares!r} was not built; building it now (a few minutes): "
            "try again then")


def _reap(squares: str, proc: subprocess.Popen[bytes], lock_path: Path) -> None:
    code = proc.wait()
    lock_path.unlink(missing_ok=True)
    if code:
        log.error("building the Teeko table of %r failed (exit code %d)", squares, code)
    else:
        log.warning("the Teeko table of %r is built", squares)
