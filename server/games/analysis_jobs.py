"""The analyses of finished games that take long (a module that says ``BACKGROUND``, such as
:mod:`core.teka_analysis`: a Teka match double-dummy), computed off the request path and kept
in a file cache (derived data, never the log): ``<cache>/<kind>-<game>-v<version>-<head>.json``
(``version``: the analysis module's ``VERSION``; ``head``: the start of the hash of the game's
last event).

A request for a match not analysed yet starts its analysis (:func:`lookup`) and is answered
``202`` with the progress; every later request, in this process or another one, shares that
computation: an exclusive ``flock`` on the ``.lock`` file of the same name is held from the
request that starts it to the end, and the progress is a small JSON file beside it. The
analyses run in threads (``GAMENIGHT_TEKA_ANALYSES`` at a time, default 1); each thread
only waits on a child process that solves (:class:`server.games.dd_worker.BudgetedSolve`,
``GAMENIGHT_TEKA_SOLVE_SECONDS`` a solve), so the server's own processes stay responsive.

The cache directory: ``GAMENIGHT_ANALYSIS_DIR``, else ``<GAMENIGHT_VAR>/analysis``.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings

log = logging.getLogger("server.games")

FAILED_RETRY_SECONDS = 60.0
"""A failed analysis is not started again for this long (its reason is answered)."""

_slots: threading.Semaphore | None = None
_slots_lock = threading.Lock()


def cache_dir() -> Path:
    own = os.environ.get("GAMENIGHT_ANALYSIS_DIR", "").strip()
    return Path(own) if own else Path(settings.VAR_DIR) / "analysis"


@dataclass(frozen=True)
class Job:
    """One game's analysis: the game's kind and id, the module analysing it (``analyse``,
    ``VERSION``) and the hash of the game's last event."""

    kind: str
    game_id: int
    module: Any
    head: str


def _paths(job: Job) -> tuple[Path, Path, Path]:
    base = cache_dir() / f"{job.kind}-{job.game_id}-v{job.module.VERSION}-{job.head[:16]}"
    return (base.with_suffix(".json"), base.with_suffix(".progress"),
            base.with_suffix(".lock"))


def _write(path: Path, data: Any) -> None:
    """Write JSON by one rename (a reader never sees half a file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    os.replace(tmp, path)


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _start(job: Job, events: list[Any], lock_file: IO[bytes]) -> None:
    """Run the analysis in a daemon thread (a stopping server does not wait for it; its
    solver child ends with the process) once one of the ``GAMENIGHT_TEKA_ANALYSES`` slots
    (default 1) is free."""
    global _slots
    with _slots_lock:
        if _slots is None:
            try:
                n = max(1, int(os.environ.get("GAMENIGHT_TEKA_ANALYSES", "1")))
            except ValueError:
                n = 1
            _slots = threading.Semaphore(n)
        slots = _slots

    def work() -> None:
        with slots:
            _run(job, events, lock_file)

    threading.Thread(target=work, daemon=True, name=f"gamenight-analysis-{job.game_id}").start()


def progress_text(p: dict[str, Any]) -> str:
    if p.get("state") == "running" and p.get("hands"):
        return f"hand {p['hand']} of {p['hands']}"
    if p.get("state") == "queued":
        return "waiting for another analysis to finish"
    return "starting"


def lookup(g: Any, module: Any, head: str, events: Any) -> tuple[int, dict[str, Any]]:
    """``(200, analysis)`` when it is in the cache, else ``(202, progress)`` (an analysis is
    running or was just started for ``events``, a callable returning the match's events,
    called only when one starts), or ``(503, error)`` after a failure. ``head``: the hash of
    the match's last event, part of the cache key (a cache kept across databases never
    answers for another match of the same number). ``g``: the game's row; ``module``: its
    game's analysis module."""
    job = Job(str(g.kind), int(g.pk), module, head)
    result, progress, lock = _paths(job)
    done = _read(result)
    if done is not None:
        return 200, done
    lock.parent.mkdir(parents=True, exist_ok=True)
    f = open(lock, "a+b")  # (held by the job until it ends)
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        p = _read(progress) or {"state": "starting"}
        return 202, _pending(p)
    try:
        done = _read(result)  # (finished between the first look and the lock)
        if done is not None:
            f.close()
            return 200, done
        p = _read(progress)
        if (p is not None and p.get("state") == "failed"
                and time.time() - float(p.get("time", 0)) < FAILED_RETRY_SECONDS):
            f.close()
            return 503, {"error": {"code": "analysis_failed", "reason":
                         f"the analysis failed ({p.get('reason')}); it is tried again "
                         "in a minute"}}
        evs = list(events())
        p = {"state": "queued", "time": time.time()}
        _write(progress, p)
        _start(job, evs, f)
    except BaseException:
        f.close()
        raise
    return 202, _pending(p)


def _pending(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "state": "computing",
        "progress": progress_text(p),
        "hand": p.get("hand"),
        "hands": p.get("hands"),
        "retry_after": 2,
    }


def _run(job: Job, events: list[Any], lock_file: IO[bytes]) -> None:
    from .dd_worker import BudgetedSolve, solve_seconds

    game_id = job.game_id
    result, progress, _ = _paths(job)
    budget = solve_seconds()
    solve = BudgetedSolve(budget)
    t0 = time.monotonic()
    log.warning("analysing match %d in the background (%.0f s a solve at most)",
                game_id, budget)
    try:

        def report(hand: int, hands: int) -> None:
            _write(progress, {"state": "running", "hand": hand, "hands": hands,
                              "time": time.time()})

        out = job.module.analyse(events, solve, report, solve.cards)
        out["id"] = game_id
        out["budget"] = {"seconds_per_solve": budget, "solves": solve.solves,
                         "cut_short": solve.cut, "slowest": round(solve.slowest, 3),
                         "seconds": round(time.monotonic() - t0, 3)}
        _write(result, out)
        progress.unlink(missing_ok=True)
        log.info("analysed game %d in %.1f s (%d solves, %d cut short)",
                 game_id, time.monotonic() - t0, solve.solves, solve.cut)
    except Exception as exc:
        log.exception("the analysis of game %d failed", game_id)
        _write(progress, {"state": "failed", "reason": str(exc) or type(exc).__name__,
                          "time": time.time()})
    finally:
        solve.close()
        lock_file.close()
