"""The analyses of finished games that take long (a module that says ``BACKGROUND``, such as
:mod:`core.teka_analysis`: a Teka match double-dummy), computed off the request path as a
budgeted service and kept in a file cache (derived data, never the log):
``<cache>/<kind>-<game>-v<version>-<head>.json`` (``version``: the analysis module's
``VERSION``; ``head``: the start of the hash of the game's last event).

**The queue.** A request for a match not analysed yet (:func:`lookup`) puts it in a queue
of bounded length, ``<cache>/queue.json`` (read and written under an exclusive ``flock`` on
``<cache>/queue.lock``, so every server process sharing the cache shares one queue), and is
answered ``202`` with where it is (``position``, ``ahead``) or, once it runs, how far it
got; every later request, from this process or another, shares that one computation. A
request is refused, changing nothing, when:

* the client already has :func:`per_client` matches waiting or running (``429``
  ``too_many_analyses``): a client is a logged-in user, else an address (an IPv6 address
  by its /64 network);
* :func:`queue_length` matches asked for are already waiting (``503`` ``queue_full``); for
  a request that watches (below), when as many *watched* matches wait, and for a logged-in
  user who watches, as many watched by users: strangers asking for matches nobody watches,
  or claiming to watch them, cannot shut an open replay (a member's) out.

Both with ``Retry-After``. Asking again for a match already in the queue is never refused.

**Order.** Matches someone is watching come first: the replay pages and the app ask with
``watch=1`` while the replay is open (every 2 s), and a match stays *watched* for
:data:`WATCH_SECONDS` after such a request; one client keeps at most
:data:`WATCHES_PER_CLIENT` matches watched at a time (beyond it a request is answered but
not watched). Among them, those a logged-in user watches go first: an address can claim to
watch, an account is the club's. Then matches people asked for, then league matches
analysed ahead of anyone's asking (:func:`on_batch`: a league match that finishes is queued
at the lowest rank, :data:`AHEAD`); within one rank, first come first served.

**Runners.** Each server process runs ``GAMENIGHT_TEKA_ANALYSES`` analyses at a time
(default 1) taking the queue in order, plus ``GAMENIGHT_ANALYSIS_WATCHED_SLOTS`` (default 1)
that take only watched matches: a watched replay never waits behind a match nobody watches.
The runner threads exist only while there is work (started by the request that queues it,
ending when the queue is empty). A runner holds an exclusive ``flock`` on the match's
``.lock`` file while it works; a match marked running whose lock is free lost its runner (a
process killed) and is queued again.

**Budget.** Each solve runs in a child process (:class:`server.games.dd_worker.BudgetedSolve`)
with ``GAMENIGHT_TEKA_SOLVE_SECONDS`` (30) for one solve and :func:`cpu_seconds`
(``GAMENIGHT_ANALYSIS_CPU_SECONDS``, 120) of the child's CPU for the whole match. Past the
match's budget no figure is solved any more: the analysis ends at once with what was solved,
marked ``"partial": true`` (the figures not solved are ``null`` and listed in ``cut_short``).

The cache directory: ``GAMENIGHT_ANALYSIS_DIR``, else ``<GAMENIGHT_VAR>/analysis``.
"""

from __future__ import annotations

import fcntl
import importlib
import ipaddress
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from .dbpool import knob

log = logging.getLogger("server.games")

FAILED_RETRY_SECONDS = 60.0
"""A failed analysis is not started again for this long (its reason is answered)."""
POLL_SECONDS = 2
"""How soon a client asks again while its analysis waits or runs (``Retry-After``)."""
WATCH_SECONDS = 10.0
"""A match stays watched this long after a request with ``watch=1``."""
WATCHES_PER_CLIENT = 2
"""How many matches one client may keep watched at a time."""
QUEUE_LENGTH = 20
"""Default of ``GAMENIGHT_ANALYSIS_QUEUE``: matches asked for that may wait."""
PER_CLIENT = 3
"""Default of ``GAMENIGHT_ANALYSIS_PER_CLIENT``: matches one client may have waiting or
running."""
CPU_SECONDS = 120.0
"""Default of ``GAMENIGHT_ANALYSIS_CPU_SECONDS``: the solver's CPU time for one match."""
AHEAD_LENGTH = 200
"""At most this many league matches wait to be analysed ahead of asking (more are not
queued: they are analysed when someone asks)."""
FULL_RETRY_SECONDS = 60
CLIENT_RETRY_SECONDS = 30

ASKED, AHEAD = 1, 2
"""Ranks in the queue: asked for by someone, a league match analysed ahead of asking (a
watched match goes before both: :func:`_order`)."""

QUEUED, RUNNING = "queued", "running"


def cache_dir() -> Path:
    """``GAMENIGHT_ANALYSIS_DIR``, else ``var/analysis``."""
    own = str(knob("ANALYSIS_DIR", ""))
    return Path(own) if own else Path(settings.VAR_DIR) / "analysis"


def queue_length() -> int:
    """``GAMENIGHT_ANALYSIS_QUEUE``: how many matches asked for may wait (default 20)."""
    return int(knob("ANALYSIS_QUEUE", QUEUE_LENGTH))


def per_client() -> int:
    """``GAMENIGHT_ANALYSIS_PER_CLIENT``: how many matches one client may have waiting or
    running (default 3)."""
    return int(knob("ANALYSIS_PER_CLIENT", PER_CLIENT))


def cpu_seconds() -> float:
    """``GAMENIGHT_ANALYSIS_CPU_SECONDS``: the solver's CPU seconds for one match (120)."""
    return float(knob("ANALYSIS_CPU_SECONDS", CPU_SECONDS))


def _slots() -> dict[str, int]:
    return {
        "any": int(knob("TEKA_ANALYSES", 1)),
        "watched": int(knob("ANALYSIS_WATCHED_SLOTS", 1)),
    }


def client_of(user: Any, address: str) -> str:
    """The key a request's limits count under: ``user:<id>`` for a logged-in user, else
    ``ip:<address>`` (an IPv6 address by its /64 network: one machine has many of them)."""
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"ip:{address or 'unknown'}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"ip:{ip.ipv4_mapped}"
        return f"ip:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
    return f"ip:{ip}"


@dataclass(frozen=True)
class Job:
    """One game's analysis: the game's kind and id, the module analysing it (``analyse``,
    ``VERSION``) and the hash of the game's last event."""

    kind: str
    game_id: int
    module: Any
    head: str

    @property
    def key(self) -> str:
        return f"{self.kind}-{self.game_id}-v{self.module.VERSION}-{self.head[:16]}"


@dataclass(frozen=True)
class Answer:
    """What :func:`lookup` answers: the HTTP status, the JSON body, ``Retry-After`` (or
    None)."""

    status: int
    body: dict[str, Any]
    retry_after: int | None = None


def _paths(key: str) -> tuple[Path, Path, Path]:
    base = cache_dir() / key
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


# --------------------------------------------------------------------------- the queue


@contextmanager
def _queue() -> Iterator[list[dict[str, Any]]]:
    """The queue's entries, under the queue's lock (every process); written back when
    changed. An entry: ``key``, ``kind``, ``game``, ``head``, ``client`` (who asked first;
    ``""`` for a match queued ahead), ``rank`` (:data:`ASKED` or :data:`AHEAD`),
    ``created``, ``watched_until``, ``watched_by``, ``state`` (queued, running), and while
    it runs ``pid`` and ``started``."""
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "queue.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = _read(d / "queue.json")
        jobs: list[dict[str, Any]] = [
            j for j in (data.get("jobs") if isinstance(data, dict) else None) or []
            if isinstance(j, dict) and isinstance(j.get("key"), str)
        ]
        before = json.dumps(jobs, sort_keys=True)
        yield jobs
        if json.dumps(jobs, sort_keys=True) != before:
            _write(d / "queue.json", {"jobs": jobs})


def _watched(j: dict[str, Any], now: float) -> bool:
    return float(j.get("watched_until") or 0) > now


def _standing(j: dict[str, Any], now: float) -> int:
    """0: watched by a logged-in user, 1: watched (by an address), 2: not watched."""
    if not _watched(j, now):
        return 2
    return 0 if str(j.get("watched_by", "")).startswith("user:") else 1


def _order(now: float) -> Any:
    """The queue's order: watched by a logged-in user, watched, asked, ahead; then first
    come first served."""

    def key(j: dict[str, Any]) -> tuple[int, int, float]:
        return _standing(j, now), int(j.get("rank", ASKED)), float(j.get("created", 0))

    return key


def _locked(path: Path) -> bool:
    """Whether someone holds ``path``'s ``flock`` (a runner at work on that match)."""
    try:
        f = open(path, "a+b")
    except OSError:
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def _reap(jobs: list[dict[str, Any]]) -> None:
    """(under the queue's lock) Matches analysed meanwhile leave the queue; a match marked
    running whose runner is gone (its lock is free) waits again."""
    for j in list(jobs):
        result, _, lock = _paths(j["key"])
        if result.exists():
            jobs.remove(j)
        elif j.get("state") == RUNNING and not _locked(lock):
            log.warning("the analysis of match %s lost its runner: queued again", j.get("game"))
            j["state"] = QUEUED
            j.pop("pid", None)
            j.pop("started", None)


def _entry(job: Job, client: str, rank: int, now: float) -> dict[str, Any]:
    return {"key": job.key, "kind": job.kind, "game": job.game_id, "head": job.head,
            "client": client, "rank": rank, "created": now, "watched_until": 0.0,
            "watched_by": "", "state": QUEUED}


def _watches(jobs: list[dict[str, Any]], j: dict[str, Any] | None, client: str,
             now: float) -> int:
    """How many matches but ``j`` ``client`` keeps watched."""
    return sum(1 for o in jobs if o is not j and o.get("watched_by") == client
               and _watched(o, now))


def _watch(jobs: list[dict[str, Any]], j: dict[str, Any], client: str, now: float) -> bool:
    """Mark ``j`` watched by ``client`` for :data:`WATCH_SECONDS`, unless the client already
    watches :data:`WATCHES_PER_CLIENT` other matches; whether ``j`` is watched now."""
    if _watches(jobs, j, client, now) < WATCHES_PER_CLIENT:
        j["watched_until"] = now + WATCH_SECONDS
        j["watched_by"] = client
    return _watched(j, now)


def progress_text(p: dict[str, Any]) -> str:
    if p.get("state") == "running" and p.get("hands"):
        return f"hand {p['hand']} of {p['hands']}"
    return "starting"


def _where(jobs: list[dict[str, Any]], j: dict[str, Any], now: float) -> dict[str, Any]:
    """The 202 answer for ``j``: its place while it waits, its progress while it runs."""
    watched = _watched(j, now)
    if j.get("state") == RUNNING:
        p = _read(_paths(j["key"])[1]) or {}
        return {"state": "computing", "progress": progress_text(p), "hand": p.get("hand"),
                "hands": p.get("hands"), "position": 0, "ahead": 0, "watched": watched,
                "retry_after": POLL_SECONDS}
    waiting = sorted((o for o in jobs if o.get("state") == QUEUED), key=_order(now))
    ahead = next(i for i, o in enumerate(waiting) if o is j)
    running = sum(1 for o in jobs if o.get("state") == RUNNING)
    text = ("next in the queue" if ahead == 0 else
            f"in the queue, {ahead} {'match' if ahead == 1 else 'matches'} ahead")
    return {"state": "queued", "progress": text, "hand": None, "hands": None,
            "position": ahead + 1, "ahead": ahead, "running": running, "watched": watched,
            "retry_after": POLL_SECONDS}


def lookup(g: Any, module: Any, head: str, client: str = "", watch: bool = False) -> Answer:
    """The answer for game ``g``'s analysis by ``module``: ``200`` with it when it is in the
    cache; else ``202`` with its place in the queue or its progress (queued by this request
    if it was not); ``429``/``503`` when the client's or the server's queue is full;
    ``503`` for a minute after a failure. ``head``: the hash of the match's last event, part
    of the cache key (a cache kept across databases never answers for another match of the
    same number). ``client``: the key the request's limits count under
    (:func:`client_of`); ``watch``: the request comes from a replay that is open."""
    job = Job(str(g.kind), int(g.pk), module, head)
    result, progress, _ = _paths(job.key)
    done = _read(result)
    if done is not None:
        return Answer(200, done)
    p = _read(progress)
    if (p is not None and p.get("state") == "failed"
            and time.time() - float(p.get("time", 0)) < FAILED_RETRY_SECONDS):
        return Answer(503, {"error": {"code": "analysis_failed", "reason":
                                      f"the analysis failed ({p.get('reason')}); it is "
                                      "tried again in a minute"}},
                      int(FAILED_RETRY_SECONDS))
    now = time.time()
    with _queue() as jobs:
        _reap(jobs)
        j = next((o for o in jobs if o["key"] == job.key), None)
        if j is None:
            done = _read(result)  # (finished meanwhile)
            if done is not None:
                return Answer(200, done)
            mine = sum(1 for o in jobs if client and o.get("client") == client)
            if client and mine >= per_client():
                return Answer(429, {"error": {"code": "too_many_analyses", "reason":
                              f"you already have {mine} matches waiting for their "
                              "analysis; ask again when one of them is ready"}},
                              CLIENT_RETRY_SECONDS)
            # (a replay open on a new match counts against the watched matches waiting,
            # a member's against the members': strangers filling the queue with matches
            # nobody watches, or claiming to watch, do not shut it out)
            watching = watch and _watches(jobs, None, client, now) < WATCHES_PER_CLIENT
            mine = (0 if client.startswith("user:") else 1) if watching else 2
            waiting = sum(1 for o in jobs if o.get("state") == QUEUED
                          and o.get("rank") == ASKED and _standing(o, now) <= mine)
            if waiting >= queue_length():
                return Answer(503, {"error": {"code": "queue_full", "reason":
                              f"the server's analysis queue is full ({waiting} matches "
                              "wait); ask again in a minute"}}, FULL_RETRY_SECONDS)
            j = _entry(job, client, ASKED, now)
            jobs.append(j)
            log.info("match %d queued for analysis (%d waiting)", job.game_id, waiting + 1)
        elif j.get("rank") == AHEAD:
            j["rank"] = ASKED  # (someone asks now: the client is not charged for it)
        if watch:
            _watch(jobs, j, client, now)
        answer = _where(jobs, j, now)
        queued = [o for o in jobs if o.get("state") == QUEUED]
    _kick(bool(queued), any(_watched(o, now) for o in queued))
    return Answer(202, answer, POLL_SECONDS)


def queue_ahead(kind: str, game_id: int, module: Any, head: str) -> bool:
    """Queue a finished match to be analysed before anyone asks (at the lowest rank); False
    when it is analysed or queued already, or too many wait."""
    job = Job(kind, game_id, module, head)
    if _paths(job.key)[0].exists():
        return False
    with _queue() as jobs:
        if any(o["key"] == job.key for o in jobs):
            return False
        if sum(1 for o in jobs if o.get("rank") == AHEAD) >= AHEAD_LENGTH:
            log.warning("match %d is not analysed ahead: %d matches wait for that already",
                        game_id, AHEAD_LENGTH)
            return False
        jobs.append(_entry(job, "", AHEAD, time.time()))
    _kick(True, False)
    return True


def on_batch(batch: Any) -> None:
    """(store listener, after the commit; served processes only: :func:`serve`) a batch that
    finished a match with a background analysis: if it is a league match, queue it ahead
    (in a thread: the listener may run on the event loop, and reads the database)."""
    if batch.outcome is None or _module(str(batch.entry.kind)) is None:
        return
    threading.Thread(target=_ahead, args=(int(batch.game_id),), daemon=True,
                     name=f"gamenight-analysis-ahead-{batch.game_id}").start()


def _ahead(game_id: int) -> None:
    from django.db import connection

    from .models import ChainHead, Game

    try:
        row = (Game.objects.filter(pk=game_id, league__isnull=False, status=Game.FINISHED)
               .values_list("kind", flat=True).first())
        if row is None:
            return
        module = _module(row)
        head = ChainHead.objects.filter(game_id=game_id).values_list("head", flat=True).first()
        if module is not None and head:
            queue_ahead(row, game_id, module, head)
    except Exception:
        log.exception("match %d could not be queued for analysis", game_id)
    finally:
        connection.close()


def _module(kind: str) -> Any:
    """The background analysis module of games of ``kind``, or None."""
    import core

    game = core.GAMES.get(kind)
    name = game.analysis_module() if game is not None else None
    if not name:
        return None
    module = importlib.import_module(name)
    return module if getattr(module, "BACKGROUND", False) else None


def serve() -> None:
    """(a served process, at its start) hear of finished league matches, and take up the
    matches left queued by a process that stopped."""
    from . import listeners

    if on_batch not in listeners.LISTENERS:
        listeners.LISTENERS.append(on_batch)
    threading.Thread(target=resume, daemon=True, name="gamenight-analysis-resume").start()


def resume() -> None:
    """Start runners if matches wait (after a restart: nobody may ask for them again)."""
    try:
        now = time.time()
        with _queue() as jobs:
            _reap(jobs)
            queued = [o for o in jobs if o.get("state") == QUEUED]
        if queued:
            _kick(True, any(_watched(o, now) for o in queued))
    except OSError:
        log.exception("the analysis queue cannot be read")


# --------------------------------------------------------------------------- runners

_proc_lock = threading.Lock()
_generation = 0
_threads: dict[str, int] = {"any": 0, "watched": 0}


def _kick(any_queued: bool, watched_queued: bool) -> None:
    """Make sure this process has its runners while matches wait."""
    global _generation
    if not any_queued:
        return
    slots = _slots()
    with _proc_lock:
        _generation += 1
        for lane in ("any", "watched") if watched_queued else ("any",):
            while _threads[lane] < slots[lane]:
                _threads[lane] += 1
                threading.Thread(target=_runner, args=(lane,), daemon=True,
                                 name=f"gamenight-analysis-{lane}").start()


def _runner(lane: str) -> None:
    """Take matches from the queue (``lane`` "watched": only watched ones) until none is
    left; then end (a later request starts a new runner)."""
    try:
        while True:
            with _proc_lock:
                generation = _generation
            claimed = _claim(lane)
            if claimed is None:
                with _proc_lock:
                    if _generation == generation:  # (nothing queued since the look)
                        return
                continue
            _run(*claimed)
    except Exception:
        log.exception("an analysis runner failed")
    finally:
        with _proc_lock:
            _threads[lane] -= 1


def _claim(lane: str) -> tuple[dict[str, Any], IO[bytes]] | None:
    """The first match waiting (watched first, then asked, then ahead; ``lane`` "watched":
    watched only), marked running, with its lock held; or None."""
    now = time.time()
    with _queue() as jobs:
        _reap(jobs)
        waiting = sorted((o for o in jobs if o.get("state") == QUEUED), key=_order(now))
        for j in waiting:
            if lane == "watched" and not _watched(j, now):
                break
            f = open(_paths(j["key"])[2], "a+b")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # (an older server process at work on it)
                f.close()
                continue
            j.update(state=RUNNING, pid=os.getpid(), started=now)
            return dict(j), f
    return None


def _events(game_id: int) -> list[Any]:
    from django.db import connection

    from . import cache

    try:
        return [ev for _, _, ev in cache.entry(game_id, fresh=True).log]
    finally:
        connection.close()  # (back to the pool: the analysis holds none)


def _run(j: dict[str, Any], lock_file: IO[bytes]) -> None:
    from . import cache
    from .dd_worker import SOLVE_SECONDS, BudgetedSolve

    game_id = int(j["game"])
    result, progress, _ = _paths(j["key"])
    budget = float(knob("TEKA_SOLVE_SECONDS", SOLVE_SECONDS))
    cpu = cpu_seconds()
    solve = BudgetedSolve(budget, cpu)
    t0 = time.monotonic()
    waited = time.time() - float(j.get("created", time.time()))
    log.warning("analysing match %d in the background (%.0f s a solve, %.0f CPU s the match "
                "at most; waited %.1f s)", game_id, budget, cpu, waited)
    at = [0, 0]
    try:
        module = _module(str(j["kind"]))
        if module is None:
            raise ValueError(f"{j['kind']} games have no background analysis")
        _write(progress, {"state": "running", "hand": None, "hands": None, "time": time.time()})
        events = _events(game_id)

        def report(hand: int, hands: int) -> None:
            if not solve.exhausted:
                at[:] = [hand, hands]
            _write(progress, {"state": "running", "hand": hand, "hands": hands,
                              "time": time.time()})

        out = module.analyse(events, solve, report, solve.cards)
        out["id"] = game_id
        out["partial"] = solve.exhausted
        if solve.exhausted:
            out["partial_reason"] = (
                f"the match's budget of {cpu:g} CPU seconds ran out in hand {at[0]} of "
                f"{at[1]}: the figures not solved by then are null")
        out["budget"] = {"seconds_per_solve": budget, "cpu_seconds": cpu,
                         "cpu_used": round(solve.cpu, 3), "solves": solve.solves,
                         "cut_short": solve.cut, "not_tried": solve.refused,
                         "slowest": round(solve.slowest, 3),
                         "seconds": round(time.monotonic() - t0, 3),
                         "waited": round(waited, 3)}
        _write(result, out)
        progress.unlink(missing_ok=True)
        log.info("analysed match %d in %.1f s (%d solves, %d cut short, %.1f CPU s%s)",
                 game_id, time.monotonic() - t0, solve.solves, solve.cut, solve.cpu,
                 ", partial" if solve.exhausted else "")
    except cache.NotFound:
        # (the database was restored from a backup older than the queue, say: nothing to
        # analyse, and nothing went wrong in this process)
        log.warning("match %d is not in the database: its analysis is dropped", game_id)
        _write(progress, {"state": "failed", "reason": f"match {game_id} does not exist",
                          "time": time.time()})
    except Exception as exc:
        log.exception("the analysis of match %d failed", game_id)
        _write(progress, {"state": "failed", "reason": str(exc) or type(exc).__name__,
                          "time": time.time()})
    finally:
        solve.close()
        try:
            with _queue() as jobs:
                jobs[:] = [o for o in jobs if o["key"] != j["key"]]
        finally:
            lock_file.close()
