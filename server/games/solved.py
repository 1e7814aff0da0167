"""Solved Teeko tables on the server: built only when an operator asks, never by a request.

A table takes minutes and hundreds of MB to build (``python -m core.teeko_solve build``, see
docs/ai.md): a request that started one let anyone make the server do that. Now a table is
built by ``./gamenight solve teeko --squares <set>`` (or ``manage.py solve_teeko``), by
:func:`start_build` (the admin), or at start-up for the sets named in
``GAMENIGHT_TEEKO_BUILD`` (``axis,tilted``; :func:`build_at_start`). Every builder takes the
same lock, an exclusive ``flock`` on ``var/teeko/<squares>.building``
(:func:`core.teeko_solve.build_lock`): one build per table across every process and the
CLI; each writes its own temporary file and publishes it by one rename.

Without the table the ``perfect`` level plays like ``max``, and the analysis and hint
endpoints answer at once that analysis is not available (:func:`ensure_table`).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

from core.teeko_table import TableError, load, table_dir, table_path

log = logging.getLogger("server.games")

_started: dict[str, subprocess.Popen[bytes]] = {}
_lock = threading.Lock()


def _building(squares: str) -> bool:
    try:
        from core.teeko_solve import building
    except ImportError:  # (numpy missing: nothing can build here)
        return False
    return building(table_path(squares))


def ensure_table(squares: str) -> str | None:
    """None when the table of ``squares`` can be read; else, at once, a sentence saying
    analysis is not available and why (never starts a build)."""
    try:
        if load(squares) is not None:
            return None
    except TableError as exc:
        return f"analysis is not available: the Teeko table of {squares!r} is unusable ({exc})"
    except ValueError as exc:  # (an unknown pattern set)
        return f"analysis is not available: {exc}"
    if _building(squares):
        return (f"analysis is not available yet: the Teeko table of {squares!r} is being "
                "built")
    return (f"analysis is not available: the Teeko table of {squares!r} is not built (an "
            f"operator builds it: ./gamenight solve teeko --squares {squares})")


def start_build(squares: str) -> str:
    """(an operator: the admin, :func:`build_at_start`) build the table of ``squares`` in a
    child process unless it is there or being built; says what was done."""
    path = table_path(squares)  # (ValueError for an unknown set)
    if path.exists():
        return f"the Teeko table of {squares!r} is built"
    with _lock:
        proc = _started.get(squares)
        if (proc is not None and proc.poll() is None) or _building(squares):
            return f"the Teeko table of {squares!r} is being built"
        directory = table_dir()
        directory.mkdir(parents=True, exist_ok=True)
        with open(directory / f"{squares}.log", "ab") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "core.teeko_solve", "build", "--squares", squares,
                 "--quiet", "--dir", str(directory)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        _started[squares] = proc
    log.warning("building the Teeko table of %r in the background (pid %d)", squares, proc.pid)
    threading.Thread(target=_reap, args=(squares, proc), daemon=True).start()
    return f"building the Teeko table of {squares!r} (pid {proc.pid}, a few minutes)"


def build_at_start() -> None:
    """Start the builds of the sets named in ``GAMENIGHT_TEEKO_BUILD`` (comma separated)."""
    from .dbpool import knob

    for squares in knob("TEEKO_BUILD", []):
        try:
            log.warning("%s", start_build(squares))
        except ValueError as exc:
            log.error("GAMENIGHT_TEEKO_BUILD: %s", exc)


def _reap(squares: str, proc: subprocess.Popen[bytes]) -> None:
    code = proc.wait()
    if code == 3:
        log.warning("the Teeko table of %r is being built by another process", squares)
    elif code:
        log.error("building the Teeko table of %r failed (exit code %d)", squares, code)
    else:
        log.warning("the Teeko table of %r is built", squares)
