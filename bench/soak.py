"""Soak and fault run of the game server: mixed load for minutes, bounds checked (prints figures).

    python -m bench.soak [--minutes 30] [--workers 2] [--faults] [options]

It starts ``--workers`` daphne processes (``server.asgi``, one port each; more than one needs
``REDIS_URL``, the processes then share events through Redis) against a separate database
``gamenight_soak`` on the embedded PostgreSQL (or ``DATABASE_URL``), the same way
``bench/loadbench.py`` does, and drives them for ``--minutes`` with:

* ``--games`` live tables (100) of all four kinds, replaced when they end: Teeko (two
  players, or a player and a bot), Tiku (the same), Tedoku (three seats: two players and a
  bot), Teka (four seats: two players and two bots). Players are socket clients that act
  like people: they think 0.2-2 s before a move (a random legal one), sometimes ping, and now
  and then drop their connection and come back with ``hello`` + ``last_seq`` as the Kivy
  client does (retry after 0.5 s, doubling up to 5 s). The players of one game are spread over
  the daphne processes.
* Spectators joining (``last_seq`` 0: the whole log) and leaving, up to 3 per table.
* HTTP polling of ``/api/games/<id>/state/`` (also ``?events=1``), ``/api/games/<id>/log/``,
  ``/api/games/?status=live``, the front page ``/`` and ``/healthz``.
* 1 % junk frames from players (``--junk``): malformed commands with a ``ref``, stale and
  wrong-seat commands, not JSON, JSON arrays, binary frames, unknown types, deep nesting.

Every few seconds (``--sample``) it samples PostgreSQL connections of the database
(``pg_stat_activity``) against the configured bound, daphne's RSS and moves/s, and prints a
progress line every 30 s. It checks: every command frame with a ``ref`` gets exactly one
``ok``/``error`` answer within ``--answer-timeout`` seconds; no HTTP 5xx; no socket closed by
the server; events arrive in order without gaps; junk never gets ``ok`` nor ``server_error``.
After the run: every move answered ``ok`` and every event a client received is in the log
(and every touched game's hash chain verifies), and no process started by a daphne (bot
workers) outlives it.

``--faults`` (the fault run) also does, in turn every ``--fault-every`` seconds: ``kill -9``
of a daphne and a restart on the same port, a restart of the embedded PostgreSQL
(``server.dbconfig.stop_embedded`` / ``ensure_embedded``), and ``pg_terminate_backend`` of
every backend of the database. A fault waits until a move was acknowledged since the one
before (a fault on an idle server proves nothing), however long that takes. Socket drops and
5xx within a fault (until the servers answer again, plus ``--grace`` seconds) are counted
apart; the bounds on lost moves, unanswered commands and orphan processes hold throughout.

Exit status 1 when a bound is crossed (the figures say which), else 0.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.loadbench import (
    ROOT,
    free_port,
    pick,
    prepare_database,
    spawn_daphne,
    wait_http,
    ws_base,
    ws_connect,
)

APP_NAME = "gamenight-soak"
"""application_name of this harness's own database sessions (not counted against the bound)."""
DAPHNE_APP_NAME = "gamenight-soak-daphne"
"""application_name of the daphne processes' sessions (``PGAPPNAME``): the backends that
``terminate`` faults end (never the sessions of whoever else uses the database)."""

# (kind, options, seat plan): "p" = a socket player, a level name = a bot seat.
MIXES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("teeko", {"move_cap": 100}, ["p", "p"]),
    ("tiku", {}, ["p", "easy"]),
    ("tedoku", {"seats": 3}, ["p", "p", "random"]),
    ("teka", {}, ["p", "p", "random", "easy"]),
    ("teeko", {"move_cap": 100}, ["p", "easy"]),
    ("tiku", {}, ["p", "p"]),
    ("tedoku", {"seats": 3}, ["p", "random", "p"]),
    ("teka", {}, ["p", "random", "p", "random"]),
]

JUNK_WITH_REF = ["bad_command", "no_command", "bad_seq", "stale", "wrong_seat"]
JUNK_WITHOUT_REF = ["not_json", "array", "binary", "unknown_type", "deep"]


# --------------------------------------------------------------------------- figures


@dataclass
class Figures:
    """Everything counted during a run (``asdict`` gives the JSON of ``--json``)."""

    workers: int = 1
    faults_mode: bool = False
    seconds: float = 0.0
    games_created: int = 0
    games_finished: int = 0
    games_stalled: int = 0
    create_failures: dict[str, int] = field(default_factory=dict)
    commands: int = 0  # command frames with a ref (moves and junk)
    acked: int = 0  # `ok` answers to moves
    answer_codes: dict[str, int] = field(default_factory=dict)
    unanswered: int = 0  # no answer within the timeout on an open socket
    unanswered_detail: list[str] = field(default_factory=list)
    duplicate_answers: int = 0
    late_answers: int = 0
    cut_by_close: int = 0  # a command in flight when its socket closed (faults, drops)
    answer_max_s: float = 0.0
    junk_sent: dict[str, int] = field(default_factory=dict)
    junk_answers: dict[str, dict[str, int]] = field(default_factory=dict)
    junk_accepted: int = 0
    stray_errors: dict[str, int] = field(default_factory=dict)
    errors_in_faults: dict[str, int] = field(default_factory=dict)  # without a ref, allowed
    server_errors: int = 0  # `server_error` frames outside faults
    order_errors: int = 0
    order_detail: list[str] = field(default_factory=list)
    last_seq_ahead: int = 0
    hello_failures: dict[str, int] = field(default_factory=dict)
    hello_failures_in_faults: dict[str, int] = field(default_factory=dict)
    connect_failures: int = 0
    connect_failures_in_faults: int = 0
    socket_errors: int = 0  # closed by the server outside faults
    socket_error_detail: dict[str, int] = field(default_factory=dict)
    drops_in_faults: int = 0
    reconnects: int = 0
    spectators: int = 0
    http: dict[str, int] = field(default_factory=dict)
    http_5xx: int = 0
    http_5xx_detail: dict[str, int] = field(default_factory=dict)
    http_5xx_in_faults: int = 0
    http_5xx_in_faults_codes: dict[str, int] = field(default_factory=dict)
    http_errors: int = 0  # no HTTP answer at all outside faults
    http_errors_in_faults: int = 0
    http_max_s: float = 0.0
    pg_bound: int = 0
    pg_bound_source: str = ""
    pg_max: int = 0
    pg_samples: int = 0
    pg_over_bound: int = 0
    pg_max_daphne: int = 0
    pg_max_total: int = 0
    pg_max_connections: int = 0
    rss: dict[str, dict[str, float]] = field(default_factory=dict)
    rss_growth_bound: float = 0.2
    rss_hours: dict[str, dict[str, float]] = field(default_factory=dict)
    rss_children_max_mb: float = 0.0
    moves_per_s: float = 0.0
    moves_per_s_min: float = 0.0
    moves_per_s_max: float = 0.0
    harness_cpu: float = 0.0  # share of one core used by this process (the clients)
    faults: list[dict[str, Any]] = field(default_factory=list)
    until_met: bool | None = None  # run() with ``until``: whether it held before the deadline
    lost_acked: int = 0
    lost_seen: int = 0
    lost_detail: list[str] = field(default_factory=list)
    chains_checked: int = 0
    chains_bad: int = 0
    orphans: int = 0
    orphan_detail: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def bump(self, table: dict[str, int], key: str, n: int = 1) -> None:
        table[key] = table.get(key, 0) + n


# --------------------------------------------------------------------------- servers


def _die_with_harness() -> None:
    """(daphne child, before exec) SIGINT back to default; on Linux also SIGINT when the
    harness dies, so a crashed soak leaves no daphne behind."""
    from server.run import _die_with_parent

    _die_with_parent()


class Cluster:
    """``n`` daphne processes, one port each, which can be killed and started again."""

    def __init__(self, n: int, env: dict[str, str], logdir: Path) -> None:
        self.env = env
        self.logdir = logdir
        self.ports = [free_port() for _ in range(n)]
        self.bases = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * n
        self.logs: list[Any] = [None] * n
        self.starts = [0] * n
        # pid -> (create_time, cmdline): every process seen below a daphne of this run
        self.seen: dict[int, tuple[float, str]] = {}

    def start(self, i: int) -> None:
        logdir = self.logdir
        logdir.mkdir(parents=True, exist_ok=True)
        if self.logs[i] is None:
            self.logs[i] = open(logdir / f"soak-daphne{i}.log", "ab")
        self.starts[i] += 1
        self.logs[i].write(f"--- start {self.starts[i]} at {time.strftime('%H:%M:%S')}\n"
                           .encode())
        self.logs[i].flush()
        self.procs[i] = spawn_daphne(self.ports[i], self.env, self.logs[i], _die_with_harness)

    def wait_ready(self, i: int, timeout: float = 90) -> None:
        wait_http(self.bases[i], self.procs[i], timeout,
                  what=f"daphne {i} (see {self.logdir}/soak-daphne{i}.log)")

    def start_all(self) -> None:
        for i in range(len(self.ports)):
            self.start(i)
        for i in range(len(self.ports)):
            self.wait_ready(i)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p is not None and p.poll() is None]

    def track(self) -> None:
        """Remember every process below each daphne (bot workers, their helpers)."""
        import psutil

        for pid in [*self.pids()]:
            try:
                root = psutil.Process(pid)
                self.seen.setdefault(pid, (root.create_time(), "daphne"))
                for c in root.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        if c.pid not in self.seen:
                            self.seen[c.pid] = (c.create_time(), " ".join(c.cmdline())[:160])
            except psutil.Error:
                continue

    def kill9(self, i: int) -> int:
        proc = self.procs[i]
        assert proc is not None
        self.track()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return proc.pid

    def stop_all(self) -> None:
        """SIGINT (daphne's graceful stop), then SIGKILL after 15 s."""
        self.track()
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 15
        for p in self.procs:
            if p is None:
                continue
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in self.logs:
            if log is not None:
                log.close()

    def orphans(self, wait: float = 5.0) -> list[str]:
        """Processes seen below a daphne that are still alive once every daphne is gone."""
        import psutil

        deadline = time.monotonic() + wait
        while True:
            alive = []
            for pid, (created, cmd) in self.seen.items():
                with contextlib.suppress(psutil.Error):
                    p = psutil.Process(pid)
                    if abs(p.create_time() - created) < 0.01 and p.status() != "zombie":
                        alive.append((pid, cmd))
            if not alive or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        out = [f"pid {pid}: {cmd}" for pid, cmd in alive]
        for pid, _ in alive:  # ours: do not leave them running on a shared machine
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return out

    def rss(self) -> tuple[dict[int, float], float]:
        """RSS in MB of each running daphne, and of all their children together."""
        import psutil

        own: dict[int, float] = {}
        children = 0.0
        for pid in self.pids():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                own[pid] = p.memory_info().rss / 2**20
                for c in p.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        children += c.memory_info().rss / 2**20
        return own, children


# --------------------------------------------------------------------------- database


def db_params() -> dict[str, Any]:
    """psycopg connection parameters of Django's default database (this process)."""
    from django.db import connections

    sd = connections["default"].settings_dict
    kw: dict[str, Any] = {"dbname": sd["NAME"], "user": sd.get("USER") or None,
                          "password": sd.get("PASSWORD") or None, "host": sd.get("HOST") or None,
                          "port": str(sd["PORT"]) if sd.get("PORT") else None}
    return {k: v for k, v in kw.items() if v is not None}


def pg_connect() -> Any:
    """A session for watching: as the superuser ``postgres`` where there is one without a
    password (the embedded server), which sees and may end every session; else as this
    process's own role."""
    import psycopg

    params = db_params()
    with contextlib.suppress(psycopg.Error):
        return psycopg.connect(**{**params, "user": "postgres", "password": ""},
                               autocommit=True, connect_timeout=5, application_name=APP_NAME)
    return psycopg.connect(**params, autocommit=True, connect_timeout=5,
                           application_name=APP_NAME)


def connection_bound(workers: int) -> tuple[int, str]:
    """The most PostgreSQL connections the configuration allows ``workers`` processes."""
    from django.conf import settings

    gn = getattr(settings, "GAMENIGHT", {})
    if "DB_POOL" in gn:  # (server/settings.py: the bound of one process)
        # + 1: the probe (server/games/dbpool.py) that tells "busy" from "down", as
        # docs/deploy.md states the budget
        per = int(gn["DB_POOL"]) + int(gn.get("ASYNC_DB_CONNECTIONS", 0)) + 1
        src = (f"(DB_POOL {gn['DB_POOL']} + ASYNC_DB_CONNECTIONS "
               f"{gn.get('ASYNC_DB_CONNECTIONS', 0)} + 1 probe) x {workers}")
    else:
        per = int(gn.get("DB_SHARDS", 8)) + int(gn.get("ASYNC_DB_CONNECTIONS", 8))
        src = (f"(no pool setting: DB_SHARDS {gn.get('DB_SHARDS')} + ASYNC_DB_CONNECTIONS "
               f"{gn.get('ASYNC_DB_CONNECTIONS')}) x {workers}")
    return per * workers, src


class PgWatch:
    """Counts the database's sessions (``pg_stat_activity``), reconnecting when needed."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.dbname = db_params()["dbname"]

    def _conn(self) -> Any:
        if self.conn is None or self.conn.closed or self.conn.broken:
            self.conn = pg_connect()
        return self.conn

    def sample(self) -> tuple[int, int, int, int] | None:
        """(client sessions on the database but this harness's (not autovacuum workers), of
        them the daphne processes', client sessions on the whole server, max_connections)."""
        try:
            row = self._conn().execute(
                "SELECT count(*) FILTER (WHERE datname = %s AND application_name <> %s"
                "  AND backend_type = 'client backend'),"
                " count(*) FILTER (WHERE datname = %s AND application_name = %s),"
                " count(*) FILTER (WHERE backend_type = 'client backend'),"
                " current_setting('max_connections')::int"
                " FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
                (self.dbname, APP_NAME, self.dbname, DAPHNE_APP_NAME)).fetchone()
            return int(row[0]), int(row[1]), int(row[2]), int(row[3])
        except Exception:
            self.close()
            return None

    def terminate_backends(self) -> int:
        """End every session of the daphne processes on the database (their bot workers')."""
        rows = self._conn().execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid() AND application_name = %s",
            (self.dbname, DAPHNE_APP_NAME)).fetchall()
        return sum(1 for r in rows if r[0])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.conn is not None:
                self.conn.close()
        self.conn = None


# --------------------------------------------------------------------------- clients


class Soak:
    """One run: tables, spectators, pollers, sampling and faults."""

    def __init__(self, args: argparse.Namespace, cluster: Cluster, pgdata: Path | None,
                 until: Callable[[Figures], bool] | None = None) -> None:
        self.args = args
        self.until = until
        self.cluster = cluster
        self.pgdata = pgdata
        self.f = Figures(workers=len(cluster.bases), faults_mode=bool(args.faults))
        self.rng = random.Random(args.seed)
        self.stopping = False
        self.refs = itertools.count(1)
        self.players: set[Player] = set()
        self.tables: list[Table] = []
        self.acks: list[tuple[int, int, int | None]] = []  # (game, seq, seat) answered ok
        self.created: list[int] = []  # games
        self.seen: dict[int, int] = {}  # game -> highest seq a client received
        self.moves_window = 0
        self.fault_until = 0.0  # inside a fault until this monotonic time
        self.in_fault = False
        self.http_pool = concurrent.futures.ThreadPoolExecutor(args.pollers + 4, "soak-http")
        self.samples: list[dict[str, Any]] = []
        self.rss_series: dict[int, list[tuple[float, float]]] = {}  # pid -> (t, MB)
        self.t_start = time.monotonic()
        self.cpu0 = sum(os.times()[:2])
        lo, _, hi = args.think.partition(",")
        self.think = (float(lo), float(hi or lo))

    # ---------------------------------------------------------------- helpers

    def faulty(self) -> bool:
        return self.in_fault or time.monotonic() < self.fault_until

    def base_for(self, n: int) -> str:
        return self.cluster.bases[n % len(self.cluster.bases)]

    def saw(self, game: int, seq: int) -> None:
        if seq > self.seen.get(game, 0):
            self.seen[game] = seq

    def http(self, base: str, path: str, body: Any = None) -> tuple[int, bytes, float]:
        """(status or 0 when no answer, body, seconds); never raises."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(base + path, data=data,
                                     method="POST" if body is not None else "GET",
                                     headers={"Content-Type": "application/json"})
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, resp.read(), time.perf_counter() - t0
        except urllib.error.HTTPError as exc:
            try:
                raw = exc.read()
            except Exception:
                raw = b""
            return exc.code, raw, time.perf_counter() - t0
        except Exception as exc:
            return 0, repr(exc).encode(), time.perf_counter() - t0

    def count_http(self, path: str, status: int, raw: bytes, seconds: float) -> None:
        f = self.f
        label = path.split("?")[0]
        if "/api/games/" in label and label.count("/") > 3:
            label = "/api/games/<id>/" + label.rstrip("/").rsplit("/", 1)[-1] + "/"
        f.bump(f.http, f"{label} {status or 'no answer'}")
        f.http_max_s = max(f.http_max_s, seconds)
        if status >= 500 or status == 0:
            body = " ".join(raw[:300].decode(errors="replace").split())
            if "<html" in body.lower():
                title = body[body.lower().find("<title>") + 7:]
                body = f"(an HTML page: {title[:title.lower().find('</title>')][:40].strip()})"
            if self.faulty():
                if status:
                    f.http_5xx_in_faults += 1
                    f.bump(f.http_5xx_in_faults_codes, f"{status} {body[:60]}")
                else:
                    f.http_errors_in_faults += 1
            else:
                if status:
                    f.http_5xx += 1
                else:
                    f.http_errors += 1
                f.bump(f.http_5xx_detail, f"{label} {status or 'no answer'} {body[:100]}")

    async def get(self, base: str, path: str) -> tuple[int, bytes]:
        loop = asyncio.get_running_loop()
        status, raw, secs = await loop.run_in_executor(self.http_pool, self.http, base, path,
                                                       None)
        self.count_http(path, status, raw, secs)
        return status, raw

    # ---------------------------------------------------------------- tables

    async def table_slot(self, i: int) -> None:
        kind, options, plan = MIXES[i % len(MIXES)]
        trng = random.Random(self.rng.random())
        while not self.stopping:
            t = Table(self, kind, options, plan, trng)
            if not await t.open():
                await asyncio.sleep(1.0)
                continue
            self.tables.append(t)
            await t.run()
            self.tables.remove(t)

    async def poller(self, n: int) -> None:
        rng = random.Random(self.rng.random())
        paths = [("state", 40), ("state_events", 10), ("log", 25), ("front", 12),
                 ("healthz", 5), ("list", 8)]
        names = [p for p, _ in paths]
        weights = [w for _, w in paths]
        while not self.stopping:
            what = rng.choices(names, weights)[0]
            if what in ("state", "state_events", "log") and self.tables:
                g = rng.choice(self.tables).game_id
                path = {"state": f"/api/games/{g}/state/",
                        "state_events": f"/api/games/{g}/state/?events=1",
                        "log": f"/api/games/{g}/log/"}[what]
            elif what == "healthz":
                path = "/healthz"
            elif what == "list":
                path = "/api/games/?status=live&limit=20"
            else:
                path = "/"
            await self.get(self.base_for(rng.randrange(1 << 30)), path)
            await asyncio.sleep(rng.uniform(0.1, 0.6))

    # ---------------------------------------------------------------- sampling

    async def watch_answers(self) -> None:
        """Commands without an answer after the timeout, on a socket that is still open."""
        timeout = self.args.answer_timeout
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for p in list(self.players):
                for ref, (t0, what) in list(p.pending.items()):
                    if now - t0 > timeout:
                        del p.pending[ref]
                        p.timed_out.add(ref)
                        self.f.unanswered += 1
                        if len(self.f.unanswered_detail) < 20:
                            sent = time.localtime(time.time() - (now - t0))
                            line = (f"{p.table.kind} game {p.table.game_id} seat {p.seat} on "
                                    f"{p.base} ref {ref} ({what}), sent "
                                    f"{time.strftime('%H:%M:%S', sent)}")
                            self.f.unanswered_detail.append(line)
                            print(f"[soak] unanswered: {line}", flush=True)
                        p.changed.set()

    def rss_figures(self) -> None:
        """Per daphne: RSS at start (after a warm-up: the first minute, or a fifth of a
        shorter run, since that process appeared), at the end, and the largest."""
        warm = min(60.0, self.args.seconds / 5)
        for pid, series in self.rss_series.items():
            t0 = series[0][0]
            start = next(((t, mb) for t, mb in series if t >= t0 + warm), series[-1])
            half = (start[0] + series[-1][0]) / 2
            middle = next(((t, mb) for t, mb in series if t >= half), series[-1])
            self.f.rss[str(pid)] = {
                "start": start[1], "middle": middle[1], "end": series[-1][1],
                "max": max(mb for _, mb in series), "minutes": (series[-1][0] - start[0]) / 60}
            # the first and the last hour (they overlap in a run shorter than two hours)
            first = [mb for t, mb in series if t < t0 + 3600]
            last = [mb for t, mb in series if t >= series[-1][0] - 3600]
            mean = sum(last) / len(last)
            self.f.rss_hours[str(pid)] = {
                "first_mean": sum(first) / len(first), "last_mean": mean,
                "last_min": min(last), "last_max": max(last), "last_start": last[0],
                "last_end": last[-1], "last_change": (last[-1] - last[0]) / last[0],
                "last_spread": (max(last) - min(last)) / mean}

    def sample(self, pg: PgWatch) -> dict[str, Any]:
        self.cluster.track()
        s: dict[str, Any] = {"t": time.monotonic(), "moves": self.moves_window}
        self.moves_window = 0
        got = pg.sample()
        if got is not None:
            s["pg"], s["pg_daphne"], s["pg_total"], s["pg_max"] = got
        own, children = self.cluster.rss()
        s["rss"] = own
        s["rss_children"] = children
        s["fault"] = self.faulty()
        return s

    async def sampler(self, pg: PgWatch, t_start: float) -> None:
        f = self.f
        last_print = time.monotonic()
        interval = self.args.sample
        acked0 = f.acked
        while True:
            await asyncio.sleep(interval)
            s = await asyncio.to_thread(self.sample, pg)
            self.samples.append(s)
            if "pg" in s:
                f.pg_samples += 1
                f.pg_max = max(f.pg_max, s["pg"])
                f.pg_max_daphne = max(f.pg_max_daphne, s["pg_daphne"])
                f.pg_max_total = max(f.pg_max_total, s["pg_total"])
                f.pg_max_connections = s["pg_max"]
                if s["pg"] > f.pg_bound:
                    f.pg_over_bound += 1
            f.rss_children_max_mb = max(f.rss_children_max_mb, s["rss_children"])
            for pid, mb in s["rss"].items():
                self.rss_series.setdefault(pid, []).append((s["t"], mb))
            self.rss_figures()
            now = time.monotonic()
            if now - last_print >= self.args.progress:
                rate = (f.acked - acked0) / (now - last_print)
                acked0 = f.acked
                last_print = now
                rss = " ".join(f"{mb:.0f}" for mb in s["rss"].values())
                print(f"[soak {(now - t_start) / 60:5.1f} min] {rate:6.1f} moves/s  "
                      f"acked {f.acked}  games {f.games_created} created/{f.games_finished} "
                      f"finished  pg {s.get('pg', '?')}/{f.pg_bound} (max {f.pg_max})  "
                      f"unanswered {f.unanswered}  5xx {f.http_5xx}"
                      f"{f'+{f.http_5xx_in_faults} in faults' if f.faults_mode else ''}  "
                      f"socket errors {f.socket_errors}"
                      f"{f' drops in faults {f.drops_in_faults}' if f.faults_mode else ''}  "
                      f"order errors {f.order_errors}  daphne RSS {rss} MB  "
                      f"faults {len(f.faults)}  load {os.getloadavg()[0]:.1f}", flush=True)
                if self.args.samples_file:
                    with open(self.args.samples_file, "a") as out:
                        out.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} "
                                  f"min {(now - t_start) / 60:6.1f} daphne RSS MB {rss} "
                                  f"moves/s {rate:.1f} games {f.games_created}/"
                                  f"{f.games_finished}\n")

    # ---------------------------------------------------------------- faults

    async def faulter(self, pg: PgWatch) -> None:
        kinds = [k for k in self.args.fault_kinds.split(",") if k]
        if self.pgdata is None and "pg_restart" in kinds:
            print("[soak] no embedded PostgreSQL (DATABASE_URL or GAMENIGHT_DB_JSON): no "
                  "pg_restart faults", flush=True)
            kinds.remove("pg_restart")
        n = 0
        acked = self.f.acked
        while kinds and (not self.args.fault_count or n < self.args.fault_count):
            await asyncio.sleep(self.args.fault_every)
            while self.f.acked == acked and not self.stopping:  # a server at work
                await asyncio.sleep(0.2)
            if self.stopping:
                return
            kind = kinds[n % len(kinds)]
            n += 1
            rec: dict[str, Any] = {"kind": kind, "at": time.strftime("%H:%M:%S")}
            t0 = time.monotonic()
            self.in_fault = True
            try:
                if kind == "kill9":
                    i = (n // len(kinds)) % len(self.cluster.bases)
                    rec["pid"] = self.cluster.kill9(i)
                    rec["daphne"] = i
                    self.cluster.start(i)
                    await asyncio.to_thread(self.cluster.wait_ready, i)
                elif kind == "pg_restart":
                    from server import dbconfig

                    assert self.pgdata is not None
                    pg.close()
                    await asyncio.to_thread(dbconfig.stop_embedded, self.pgdata)
                    await asyncio.sleep(self.args.pg_down)
                    await asyncio.to_thread(dbconfig.ensure_embedded, self.pgdata)
                elif kind == "terminate":
                    rec["backends"] = await asyncio.to_thread(pg.terminate_backends)
                else:
                    raise SystemExit(f"unknown fault {kind!r}")
                # Recovered when every daphne answers /healthz with 200.
                while True:
                    codes = [(await self.get(b, "/healthz"))[0] for b in self.cluster.bases]
                    if all(c == 200 for c in codes) or time.monotonic() - t0 > 120:
                        break
                    await asyncio.sleep(0.2)
                rec["recovered_s"] = round(time.monotonic() - t0, 2)
                rec["healthz"] = codes
                rec["acked"] = acked = self.f.acked  # moves acknowledged until it recovered
            except Exception as exc:
                rec["error"] = repr(exc)
            finally:
                self.in_fault = False
                self.fault_until = time.monotonic() + self.args.grace
            self.f.faults.append(rec)
            print(f"[soak] fault {rec}", flush=True)

    # ---------------------------------------------------------------- the run

    async def run(self) -> Figures:
        args, f = self.args, self.f
        f.pg_bound, f.pg_bound_source = connection_bound(len(self.cluster.bases))
        pg = PgWatch()
        t_start = time.monotonic()
        slots = [asyncio.ensure_future(self.table_slot(i)) for i in range(args.games)]
        pollers = [asyncio.ensure_future(self.poller(i)) for i in range(args.pollers)]
        watcher = asyncio.ensure_future(self.watch_answers())
        sampler = asyncio.ensure_future(self.sampler(pg, t_start))
        helpers = [watcher, sampler]
        if args.faults:
            helpers.append(asyncio.ensure_future(self.faulter(pg)))
        end = t_start + args.seconds
        # With ``until`` the run goes on past its length until that holds, up to the deadline.
        deadline = t_start + max(args.seconds, args.max_seconds or 0.0)
        stop_early = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):  # end the run now, with its figures
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop_early.set)
        while not stop_early.is_set():
            now = time.monotonic()
            if now >= end:
                if self.until is None:
                    break
                f.until_met = self.until(f)
                if f.until_met or now >= deadline:
                    break
            await asyncio.sleep(min(1.0, end - now) if now < end else 1.0)
            for task in helpers:
                if task.done() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        f.seconds = time.monotonic() - t_start
        # Wind down: no new moves; answers in flight still count (up to the timeout); a
        # fault under way is carried through to its recovery.
        self.stopping = True
        if args.faults:
            fault_task = helpers.pop()
            await asyncio.wait([fault_task], timeout=180)
        for p in list(self.players):
            p.quiet = True
        deadline = time.monotonic() + args.answer_timeout + 2
        while any(p.pending for p in self.players) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        for task in helpers:
            task.cancel()
        for t in list(self.tables):
            t.done.set()
        await asyncio.wait([*slots, *pollers], timeout=30)
        for task in [*slots, *pollers]:
            task.cancel()
        pg.close()
        self.http_pool.shutdown(wait=False, cancel_futures=True)
        rates = [s["moves"] / args.sample for s in self.samples if not s["fault"]]
        if rates:
            f.moves_per_s_min, f.moves_per_s_max = min(rates), max(rates)
        f.moves_per_s = f.acked / f.seconds if f.seconds else 0.0
        f.harness_cpu = (sum(os.times()[:2]) - self.cpu0) / f.seconds if f.seconds else 0.0
        return f


class Table:
    """One game: its socket players (bots are the server's), spectators coming and going."""

    def __init__(self, soak: Soak, kind: str, options: dict[str, Any], plan: list[str],
                 rng: random.Random) -> None:
        self.soak, self.kind, self.options, self.plan, self.rng = soak, kind, options, plan, rng
        self.done = asyncio.Event()
        self.game_id = 0
        self.last_event = time.monotonic()

    async def open(self) -> bool:
        seats = [{"kind": "guest", "name": f"soak-{i}"} if s == "p"
                 else {"kind": "bot", "level": s} for i, s in enumerate(self.plan)]
        loop = asyncio.get_running_loop()
        base = self.soak.base_for(self.rng.randrange(1 << 30))
        status, raw, secs = await loop.run_in_executor(
            self.soak.http_pool, self.soak.http, base, "/api/games/",
            {"kind": self.kind, "options": self.options, "seats": seats})
        self.soak.count_http("/api/games/ POST", status, raw, secs)
        if status != 201:
            self.soak.f.bump(self.soak.f.create_failures, str(status))
            return False
        out = json.loads(raw)
        self.game_id = int(out["id"])
        self.soak.created.append(self.game_id)
        self.secrets = {int(k): v for k, v in out["guest_secrets"].items()}
        self.soak.f.games_created += 1
        return True

    async def run(self) -> None:
        soak = self.soak
        players = [Player(self, seat, secret) for seat, secret in sorted(self.secrets.items())]
        tasks = [asyncio.ensure_future(p.run()) for p in players]
        tasks.append(asyncio.ensure_future(self.spectators()))
        stall = soak.args.stall
        while not self.done.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.done.wait(), 5)
            if not self.done.is_set() and time.monotonic() - self.last_event > stall \
                    and not soak.faulty():
                soak.f.games_stalled += 1
                print(f"[soak] {self.kind} game {self.game_id} made no progress for {stall} s: "
                      f"left (seats {self.plan}, players at seq "
                      f"{[p.seq for p in players]})", flush=True)
                break
        self.done.set()
        # Let the last answers in flight arrive, then leave.
        for p in players:
            p.quiet = True
        deadline = time.monotonic() + soak.args.answer_timeout
        while any(p.pending for p in players) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        for p in players:
            await p.leave()
        await asyncio.wait(tasks, timeout=10)
        for task in tasks:
            task.cancel()

    def progressed(self) -> None:
        self.last_event = time.monotonic()

    def finished(self) -> None:
        if not self.done.is_set():
            self.soak.f.games_finished += 1
            self.done.set()

    async def spectators(self) -> None:
        specs: list[asyncio.Future[None]] = []
        while not self.done.is_set():
            await asyncio.sleep(self.rng.uniform(2, 15))
            specs = [s for s in specs if not s.done()]
            if len(specs) < 3 and not self.soak.stopping:
                self.soak.f.spectators += 1
                specs.append(asyncio.ensure_future(
                    Spectator(self).run(self.rng.uniform(5, 40))))
        for s in specs:
            s.cancel()


class Conn:
    """What players and spectators share: one socket at a time, reconnecting like the client
    (hello with the last seq received; retry after 0.5 s, doubling to 5 s)."""

    seat: int | None = None

    def __init__(self, table: Table) -> None:
        self.table = table
        self.soak = table.soak
        self.seq = 0
        self.ws: Any = None
        self.leaving = False
        self.welcomed = False
        self.state: dict[str, Any] | None = None
        self.unref: collections.deque[str] = collections.deque()  # junk awaiting an error
        self.base = ""

    def url(self, n: int) -> str:
        self.base = self.soak.base_for(n)
        return f"{ws_base(self.base)}/ws/games/{self.table.game_id}/"

    def hello(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "hello", "last_seq": self.seq}
        if self.seat is not None:
            msg["seat"] = self.seat
            msg["secret"] = self.table.secrets[self.seat]
        return msg

    async def connect(self, n: int) -> Any:
        """A welcomed socket, or None once the table is done."""
        delay = 0.5
        f = self.soak.f
        while not self.table.done.is_set() and not self.leaving:
            try:
                ws = await ws_connect(self.url(n))
            except Exception:
                if self.soak.faulty():
                    f.connect_failures_in_faults += 1
                else:
                    f.connect_failures += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            self.welcomed = False
            self.unref.clear()
            await ws.send(json.dumps(self.hello()))
            return ws
        return None

    def on_events(self, msg: dict[str, Any]) -> None:
        frm, to = msg.get("from"), int(msg["to"])
        ok = (to == self.seq) if frm is None else (frm == self.seq + 1 and to >= frm)
        if not ok:
            f = self.soak.f
            f.order_errors += 1
            if len(f.order_detail) < 20:
                who = "spectator" if self.seat is None else f"seat {self.seat}"
                line = (f"{self.table.kind} game {self.table.game_id} {who} on "
                        f"{self.base}: had {self.seq}, got from {frm} to {to} at "
                        f"{time.strftime('%H:%M:%S')}")
                f.order_detail.append(line)
                print(f"[soak] events out of order: {line}", flush=True)
        self.seq = max(self.seq, to)
        self.soak.saw(self.table.game_id, to)
        self.table.progressed()
        if "to_act" in msg:
            self.state = msg
            if msg.get("outcome") is not None:
                self.table.finished()

    def on_hello_error(self, msg: dict[str, Any]) -> None:
        code = str(msg.get("code"))
        if code == "malformed" and "ahead" in str(msg.get("reason", "")):
            # The server has fewer events than this client saw: events were lost.
            self.soak.f.last_seq_ahead += 1
            self.seq = 0
            return
        f = self.soak.f
        f.bump(f.hello_failures_in_faults if self.soak.faulty() else f.hello_failures, code)

    def dropped(self, exc: BaseException | None) -> None:
        """The socket closed without this client asking."""
        if self.leaving or (self.table.done.is_set() and exc is None):
            return
        f = self.soak.f
        code = getattr(getattr(exc, "rcvd", None), "code", None)
        why = f"close {code}" if code is not None else type(exc).__name__ if exc else "closed"
        if self.soak.faulty():
            f.drops_in_faults += 1
        else:
            f.socket_errors += 1
            f.bump(f.socket_error_detail, why)

    async def close(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()


class Player(Conn):
    """A person at a seat: thinks, moves, pings, sometimes sends junk or walks off a while."""

    def __init__(self, table: Table, seat: int, secret: str) -> None:
        super().__init__(table)
        self.seat = seat
        self.rng = random.Random(table.rng.random())
        self.pending: dict[int, tuple[float, str]] = {}  # ref -> (sent at, what)
        self.timed_out: set[int] = set()
        self.answered: set[int] = set()
        self.moves: dict[int, bool] = {}  # ref -> is a real move
        self.changed = asyncio.Event()
        self.quiet = False
        self.n = table.game_id + seat  # which daphne

    async def run(self) -> None:
        soak = self.soak
        soak.players.add(self)
        first = True
        try:
            while not self.table.done.is_set() and not self.leaving:
                ws = await self.connect(self.n)
                if ws is None:
                    return
                if not first:
                    soak.f.reconnects += 1
                first = False
                self.ws = ws
                actor = asyncio.ensure_future(self.act(ws))
                exc: BaseException | None = None
                try:
                    async for text in ws:
                        self.on_frame(text)
                except Exception as e:
                    exc = e
                finally:
                    actor.cancel()
                    self.ws = None
                    if self.pending:
                        soak.f.cut_by_close += len(self.pending)
                        self.pending.clear()
                if not self.leaving:
                    self.dropped(exc)
                    await asyncio.sleep(0.5)
                elif not self.table.done.is_set() and not soak.stopping:
                    # walked off for a while: come back with last_seq
                    await asyncio.sleep(self.rng.uniform(0.5, 3))
                    self.leaving = False
        finally:
            soak.players.discard(self)

    async def leave(self) -> None:
        self.leaving = True
        await self.close()

    def on_frame(self, text: str | bytes) -> None:
        msg = json.loads(text)
        kind = msg.get("type")
        soak, f = self.soak, self.soak.f
        if kind == "events":
            self.on_events(msg)
            self.changed.set()
        elif kind == "welcome":
            self.welcomed = True
        elif kind in ("ok", "error"):
            ref = msg.get("ref")
            if kind == "error" and (not self.welcomed or "ahead" in str(msg.get("reason"))):
                self.on_hello_error(msg)
                return
            if isinstance(ref, int) and ref in self.pending:
                t0, what = self.pending.pop(ref)
                self.answered.add(ref)
                f.answer_max_s = max(f.answer_max_s, time.monotonic() - t0)
                code = "ok" if kind == "ok" else str(msg.get("code"))
                f.bump(f.answer_codes, code)
                if what == "move":
                    if kind == "ok":
                        f.acked += 1
                        soak.moves_window += 1
                        soak.acks.append((self.table.game_id, int(msg["seq"]), self.seat))
                else:
                    f.junk_answers.setdefault(what, {})
                    f.bump(f.junk_answers[what], code)
                    if kind == "ok":
                        f.junk_accepted += 1
                if code == "server_error" and not soak.faulty():
                    f.server_errors += 1
                self.changed.set()
            elif isinstance(ref, int) and ref in self.answered:
                f.duplicate_answers += 1
            elif isinstance(ref, int) and ref in self.timed_out:
                f.late_answers += 1
                self.timed_out.discard(ref)
                self.answered.add(ref)
            elif ref is None and kind == "error" and self.unref:
                what = self.unref.popleft()
                f.junk_answers.setdefault(what, {})
                f.bump(f.junk_answers[what], str(msg.get("code")))
                if msg.get("code") == "server_error" and not soak.faulty():
                    f.server_errors += 1
            else:
                f.bump(f.errors_in_faults if soak.faulty() else f.stray_errors,
                       f"{kind} {msg.get('code')}: {str(msg.get('reason'))[:60]}")
        elif kind == "finished":
            self.table.finished()

    async def act(self, ws: Any) -> None:
        rng = self.rng
        while True:
            await self.changed.wait()
            self.changed.clear()
            st = self.state
            if self.quiet or st is None or st.get("outcome") is not None or self.pending \
                    or self.seat not in st.get("to_act", []):
                continue
            await asyncio.sleep(rng.uniform(*self.soak.think))
            if self.state is not st or self.pending or self.quiet:
                self.changed.set()
                continue
            if rng.random() < self.soak.args.junk:
                await self.send_junk(ws, st)
                self.changed.set()
                continue
            cmd = pick(st, rng)
            if cmd is None:
                continue
            await self.send_command(ws, {"type": "command", "command": cmd,
                                         "expected_seq": int(st["to"])}, "move")
            if rng.random() < 0.02 and not self.quiet:
                await self.walk_off()
                return
            if rng.random() < 0.02:
                await ws.send(json.dumps({"type": "ping", "ref": f"p{self.seat}"}))

    async def send_command(self, ws: Any, msg: dict[str, Any], what: str) -> None:
        ref = next(self.soak.refs)
        msg["ref"] = ref
        self.pending[ref] = (time.monotonic(), what)
        self.soak.f.commands += 1
        await ws.send(json.dumps(msg))

    async def walk_off(self) -> None:
        """Wait for the answer, then close the socket (run() comes back with last_seq)."""
        deadline = time.monotonic() + self.soak.args.answer_timeout
        while self.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        self.leaving = True
        await self.close()

    async def send_junk(self, ws: Any, st: dict[str, Any]) -> None:
        rng, f = self.rng, self.soak.f
        seq = int(st["to"])
        what = rng.choice(JUNK_WITH_REF + JUNK_WITHOUT_REF)
        f.bump(f.junk_sent, what)
        legal = pick(st, rng) or {"type": "pass"}
        if what in JUNK_WITH_REF:
            msg: dict[str, Any] = {"type": "command", "expected_seq": seq}
            if what == "bad_command":
                msg["command"] = {"type": "teleport", "to": [1, {"x": None}]}
            elif what == "bad_seq":
                msg["command"], msg["expected_seq"] = legal, rng.choice(["7", -3, 1.5, None])
            elif what == "stale":
                msg["command"], msg["expected_seq"] = legal, max(0, seq - 1 - rng.randrange(3))
            elif what == "wrong_seat":
                msg["command"], msg["seat"] = legal, (self.seat or 0) + 1
            await self.send_command(ws, msg, what)
            return
        self.unref.append(what)
        if what == "not_json":
            await ws.send('{"type": "command", "command": {"type"')
        elif what == "array":
            await ws.send(json.dumps([{"type": "command"}, 1, None]))
        elif what == "binary":
            await ws.send(bytes(rng.randrange(256) for _ in range(32)))
        elif what == "unknown_type":
            await ws.send(json.dumps({"type": "teleport", "to": "c3"}))
        elif what == "deep":
            depth = rng.choice([100, 2000, 10000])
            await ws.send('{"type": "command", "command": ' + "[" * depth
                          + "]" * depth + "}")


class Spectator(Conn):
    """Watches for a while (joins with last_seq 0, may drop and come back), then leaves."""

    async def run(self, stay: float) -> None:
        until = time.monotonic() + stay
        n = random.randrange(1 << 30)
        rejoin = random.random() < 0.3
        try:
            while time.monotonic() < until and not self.table.done.is_set():
                ws = await self.connect(n)
                if ws is None:
                    return
                self.ws = ws
                exc: BaseException | None = None
                try:
                    left = until - time.monotonic()
                    if rejoin:
                        left, rejoin = left / 2, False
                    async with asyncio.timeout(max(0.1, left)):
                        async for text in ws:
                            msg = json.loads(text)
                            kind = msg.get("type")
                            if kind == "events":
                                self.on_events(msg)
                            elif kind == "welcome":
                                self.welcomed = True
                            elif kind == "error" and (
                                    not self.welcomed or "ahead" in str(msg.get("reason"))):
                                self.on_hello_error(msg)
                            elif kind == "error":
                                f = self.soak.f
                                f.bump(f.errors_in_faults if self.soak.faulty()
                                       else f.stray_errors, f"spectator {msg.get('code')}")
                    # the socket ended by itself
                    self.dropped(None)
                except TimeoutError:
                    pass  # time to leave (or to come back with last_seq)
                except Exception as e:
                    exc = e
                    self.dropped(exc)
                finally:
                    self.leaving = True
                    await self.close()
                    self.leaving = False
                if exc is not None:
                    await asyncio.sleep(0.5)
        finally:
            with contextlib.suppress(Exception):
                await self.close()


# --------------------------------------------------------------------------- checks


def check_log(soak: Soak) -> None:
    """Every acknowledged move and every event a client received is in the log; chains."""
    from django.db import connection

    from server.games import chain

    f = soak.f
    games = sorted({g for g, _, _ in soak.acks} | set(soak.seen) | set(soak.created))
    rows: dict[int, dict[int, int | None]] = {}
    with connection.cursor() as cur:
        for i in range(0, len(games), 500):
            cur.execute("SELECT game_id, seq, seat FROM games_event WHERE game_id = ANY(%s)",
                        [games[i:i + 500]])
            for g, seq, seat in cur.fetchall():
                rows.setdefault(g, {})[seq] = seat
    for g, seq, seat in soak.acks:
        if rows.get(g, {}).get(seq, "missing") != seat:
            f.lost_acked += 1
            if len(f.lost_detail) < 20:
                f.lost_detail.append(f"game {g}: ok for seq {seq} (seat {seat}), log has "
                                     f"{rows.get(g, {}).get(seq, 'nothing')} there")
    for g, seq in soak.seen.items():
        have = max(rows.get(g, {0: None}))
        if have < seq:
            f.lost_seen += 1
            if len(f.lost_detail) < 20:
                f.lost_detail.append(f"game {g}: a client received seq {seq}, log ends at {have}")
    for g in games:
        f.chains_checked += 1
        if not chain.verify_chain(g).ok:
            f.chains_bad += 1
    connection.close()


def judge(f: Figures) -> list[str]:
    bad = []
    if f.pg_over_bound:
        bad.append(f"PostgreSQL connections over the bound {f.pg_bound} in {f.pg_over_bound} "
                   f"of {f.pg_samples} samples (max {f.pg_max})")
    if not f.pg_samples:
        bad.append("no PostgreSQL connection sample")
    for name, value in [("unanswered commands", f.unanswered),
                        ("duplicate answers", f.duplicate_answers),
                        ("late answers", f.late_answers),
                        ("HTTP 5xx", f.http_5xx), ("HTTP requests without answer", f.http_errors),
                        ("socket errors", f.socket_errors),
                        ("connect failures", f.connect_failures),
                        ("server_error answers", f.server_errors),
                        ("events out of order", f.order_errors),
                        ("hello ahead of the log", f.last_seq_ahead),
                        ("junk accepted", f.junk_accepted),
                        ("stalled games", f.games_stalled),
                        ("acknowledged moves lost", f.lost_acked),
                        ("received events not in the log", f.lost_seen),
                        ("bad hash chains", f.chains_bad),
                        ("orphan processes", f.orphans)]:
        if value:
            bad.append(f"{name}: {value}")
    if f.hello_failures:
        bad.append(f"hello failures: {f.hello_failures}")
    http500 = sum(n for k, n in f.http_5xx_in_faults_codes.items() if k.startswith("500"))
    if http500:
        bad.append(f"HTTP 500 during faults: {http500} (503 says the database is away)")
    if f.stray_errors:
        bad.append(f"unexpected error frames: {f.stray_errors}")
    if f.acked == 0:
        bad.append("no move was acknowledged")
    if f.until_met is False:
        bad.append(f"what the run waited for did not happen within {f.seconds:.0f} s")
    for pid, r in f.rss.items():
        if r["minutes"] * 60 < f.seconds / 2:
            continue  # (a daphne started late in a fault run: too short to judge)
        if r["end"] > r["middle"] * (1 + f.rss_growth_bound) and r["end"] - r["middle"] > 30:
            bad.append(f"daphne {pid} RSS grew from {r['middle']:.0f} MB half-way to "
                       f"{r['end']:.0f} MB at the end")
    for rec in f.faults:
        if "error" in rec or rec.get("recovered_s", 0) > 110:
            bad.append(f"fault did not recover: {rec}")
    return bad


def report(f: Figures) -> None:
    print("\n=== soak figures ===")
    print(f"processes {f.workers}, faults {'on' if f.faults_mode else 'off'}, "
          f"{f.seconds / 60:.1f} min, load average now {os.getloadavg()[0]:.1f}, "
          f"this harness (all clients) used {f.harness_cpu * 100:.0f}% of a core")
    print(f"moves acknowledged {f.acked} ({f.moves_per_s:.1f}/s; per sample "
          f"{f.moves_per_s_min:.1f}-{f.moves_per_s_max:.1f}/s), games created "
          f"{f.games_created}, finished {f.games_finished}, stalled {f.games_stalled}"
          + (f", create failures {f.create_failures}" if f.create_failures else ""))
    print(f"PostgreSQL connections of the database: max {f.pg_max} vs bound {f.pg_bound} "
          f"{f.pg_bound_source}; over the bound in {f.pg_over_bound} of {f.pg_samples} "
          f"samples (daphne's own sessions max {f.pg_max_daphne}); server-wide client "
          f"sessions max {f.pg_max_total} of max_connections "
          f"{f.pg_max_connections}")
    print(f"commands with a ref {f.commands}: unanswered {f.unanswered}, duplicate answers "
          f"{f.duplicate_answers}, late {f.late_answers}, cut by a closed socket "
          f"{f.cut_by_close}, slowest answer {f.answer_max_s:.2f} s; answers {f.answer_codes}")
    for line in f.unanswered_detail:
        print(f"  unanswered: {line}")
    print(f"junk sent {sum(f.junk_sent.values())} {f.junk_sent}; accepted {f.junk_accepted}")
    print(f"  answers to junk: {f.junk_answers}")
    if f.stray_errors:
        print(f"  unexpected error frames: {f.stray_errors}")
    if f.errors_in_faults:
        print(f"  error frames without a ref during faults: {f.errors_in_faults}")
    print(f"HTTP: 5xx {f.http_5xx}, no answer {f.http_errors}"
          + (f"; during faults 5xx {f.http_5xx_in_faults} {f.http_5xx_in_faults_codes}, "
             f"no answer {f.http_errors_in_faults}" if f.faults_mode else "")
          + f"; slowest {f.http_max_s:.2f} s")
    print(f"  {dict(sorted(f.http.items()))}")
    for line, n in f.http_5xx_detail.items():
        print(f"  http x{n}: {line}")
    print(f"sockets: errors (closed by the server) {f.socket_errors} {f.socket_error_detail}, "
          f"connect failures {f.connect_failures}"
          + (f"; during faults drops {f.drops_in_faults}, connect failures "
             f"{f.connect_failures_in_faults}" if f.faults_mode else "")
          + f"; reconnects {f.reconnects}; spectators {f.spectators}; server_error "
          f"{f.server_errors}; events out of order {f.order_errors}; hello failures "
          f"{f.hello_failures}"
          + (f" (during faults {f.hello_failures_in_faults})" if f.faults_mode else "")
          + f"; hello ahead of the log {f.last_seq_ahead}")
    for line in f.order_detail:
        print(f"  order: {line}")
    if len(f.rss) > 4:  # (a fault run: a daphne for each kill -9)
        ends = [r["end"] for r in f.rss.values()]
        print(f"{len(f.rss)} daphne processes one after the other: RSS at their ends "
              f"{min(ends):.1f}-{max(ends):.1f} MB, largest "
              f"{max(r['max'] for r in f.rss.values()):.1f} MB")
    for pid, r in f.rss.items() if len(f.rss) <= 4 else ():
        print(f"daphne pid {pid} RSS: start {r['start']:.1f} MB, half-way {r['middle']:.1f} MB, "
              f"end {r['end']:.1f} MB ({r['minutes']:.1f} min after the start), "
              f"max {r['max']:.1f} MB")
    for pid, h in f.rss_hours.items():
        print(f"daphne pid {pid} RSS by hour: first hour mean {h['first_mean']:.1f} MB; last "
              f"hour mean {h['last_mean']:.1f} MB, {h['last_min']:.1f}-{h['last_max']:.1f} MB, "
              f"from {h['last_start']:.1f} to {h['last_end']:.1f} MB "
              f"({h['last_change'] * 100:+.1f} %; spread {h['last_spread'] * 100:.1f} % of the "
              f"mean)")
    print(f"bot workers and other children RSS (all together) max {f.rss_children_max_mb:.1f} MB")
    if f.faults_mode:
        kinds = collections.Counter(r["kind"] for r in f.faults)
        rec = [r.get("recovered_s", float("nan")) for r in f.faults]
        print(f"faults {len(f.faults)} {dict(kinds)}; recovered in "
              f"{min(rec, default=0):.1f}-{max(rec, default=0):.1f} s")
    print(f"log check: acknowledged moves lost {f.lost_acked}, received events not in the log "
          f"{f.lost_seen}, hash chains checked {f.chains_checked}, bad {f.chains_bad}")
    for line in f.lost_detail:
        print(f"  lost: {line}")
    print(f"orphan processes after the run: {f.orphans}")
    for line in f.orphan_detail:
        print(f"  orphan: {line}")
    if f.failures:
        print("FAILED: " + "; ".join(f.failures), flush=True)
    else:
        print("all bounds held", flush=True)


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.soak",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30.0, help="length of the run (30)")
    p.add_argument("--seconds", type=float, help="length in seconds (overrides --minutes)")
    p.add_argument("--max-seconds", type=float,
                   help="run() with a condition (``until``, the test): how long the run may "
                        "go on past its length waiting for it (default: not at all)")
    p.add_argument("--workers", type=int, default=1,
                   help="daphne processes (1); more than one needs REDIS_URL")
    p.add_argument("--games", type=int, default=100, help="live tables (100)")
    p.add_argument("--pollers", type=int, default=6, help="HTTP polling clients (6)")
    p.add_argument("--junk", type=float, default=0.01, help="share of junk frames (0.01)")
    p.add_argument("--think", default="0.2,2.0",
                   help="a player's thinking time before a move, seconds: min,max (0.2,2.0)")
    p.add_argument("--faults", action="store_true", help="the fault run (see above)")
    p.add_argument("--fault-kinds", default="kill9,pg_restart,terminate",
                   help="faults, in turn (kill9,pg_restart,terminate)")
    p.add_argument("--fault-every", type=float, default=20.0, help="seconds between faults (20)")
    p.add_argument("--fault-count", type=int, default=0,
                   help="stop after this many faults (0: no limit)")
    p.add_argument("--pg-down", type=float, default=2.0,
                   help="seconds PostgreSQL stays down in a pg_restart (2)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds after a fault's recovery still counted as the fault (5)")
    p.add_argument("--answer-timeout", type=float, default=30.0,
                   help="seconds within which a command must be answered (30)")
    p.add_argument("--stall", type=float, default=120.0,
                   help="a table with no event for this long counts as stalled (120)")
    p.add_argument("--rss-growth", type=float, default=0.2,
                   help="bound on daphne RSS growth over the second half of the run, as a "
                        "share (0.2; and more than 30 MB)")
    p.add_argument("--sample", type=float, default=5.0, help="seconds between samples (5)")
    p.add_argument("--progress", type=float, default=30.0, help="seconds between lines (30)")
    p.add_argument("--db", default="gamenight_soak", help="database name (gamenight_soak)")
    p.add_argument("--bot-time-limit", default="2", help="GAMENIGHT_BOT_TIME_LIMIT for daphne")
    p.add_argument("--logdir", default=str(ROOT / "var"), help="daphne logs go here (var/)")
    p.add_argument("--json", help="write the figures to this file as JSON")
    p.add_argument("--cache-games", type=int,
                   help="daphne's game cache bound in games (GAMENIGHT_CACHE_GAMES; 4096)")
    p.add_argument("--cache-mb", type=float,
                   help="daphne's game cache bound in MB (GAMENIGHT_CACHE_MB; 256)")
    p.add_argument("--samples-file",
                   help="append each progress line's RSS sample to this file as well")
    p.add_argument("--heap-profile", type=float, default=0.0,
                   help="every this many seconds daphne writes the allocation sites that "
                        "grew most since its first snapshot (tracemalloc) to "
                        "<logdir>/heap-<pid>.txt (0: off; it slows daphne down)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.seconds is None:
        args.seconds = args.minutes * 60
    return args


def run(args: argparse.Namespace, env: dict[str, str] | None = None,
        until: Callable[[Figures], bool] | None = None) -> Figures:
    """One soak run. ``env``: the daphne environment when Django is already set up (tests
    pass the test database in ``GAMENIGHT_DB_JSON``); else the ``--db`` database is
    prepared here. ``until``: the run lasts ``--seconds`` and then until this holds of the
    figures (checked every second), at most ``--max-seconds`` in all; ``until_met`` in the
    figures says whether it held (a test waits for what it needs, not for a time)."""
    if args.workers > 1 and not os.environ.get("REDIS_URL", "").strip():
        raise SystemExit("--workers > 1 needs REDIS_URL (e.g. redis://127.0.0.1:6379/2)")
    if env is None:
        env = prepare_database(args.db)
    from server.games import dbpool

    with contextlib.suppress(Exception):  # (Django's psycopg pool keeps one session open)
        dbpool.default_connection().close_pool()
    env = {**env, "GAMENIGHT_BOT_TIME_LIMIT": str(args.bot_time_limit),
           "PYTHONUNBUFFERED": "1", "PGAPPNAME": DAPHNE_APP_NAME}
    if args.cache_games is not None:
        env["GAMENIGHT_CACHE_GAMES"] = str(args.cache_games)
    if args.cache_mb is not None:
        env["GAMENIGHT_CACHE_MB"] = str(args.cache_mb)
    if args.heap_profile > 0:
        env["GAMENIGHT_HEAP_PROFILE"] = f"{args.heap_profile}:{Path(args.logdir).resolve()}"
    if env.get("GAMENIGHT_DB_JSON"):  # (tests) name daphne's sessions there too
        db = json.loads(env["GAMENIGHT_DB_JSON"])
        db["OPTIONS"] = {**db.get("OPTIONS", {}), "application_name": DAPHNE_APP_NAME}
        env["GAMENIGHT_DB_JSON"] = json.dumps(db)
    env.pop("PYTEST_CURRENT_TEST", None)
    pgdata: Path | None = None
    if not env.get("DATABASE_URL") and not env.get("GAMENIGHT_DB_JSON") \
            and env.get("GAMENIGHT_PGDATA"):
        pgdata = Path(env["GAMENIGHT_PGDATA"])
    elif env.get("GAMENIGHT_PGDATA") and env.get("GAMENIGHT_DB_JSON"):
        pgdata = None  # a test database on a shared server: never restart it
    cluster = Cluster(args.workers, env, Path(args.logdir))
    cluster.start_all()
    faults = f", faults {args.fault_kinds} every {args.fault_every:.0f} s" if args.faults else ""
    print(f"[soak] {args.workers} daphne process(es) {cluster.bases} pids {cluster.pids()}, "
          f"{args.games} tables, {args.seconds / 60:.1f} min{faults}", flush=True)
    soak = Soak(args, cluster, pgdata, until)
    soak.f.rss_growth_bound = args.rss_growth
    try:
        figures = asyncio.run(soak.run())
    finally:
        cluster.stop_all()
    orphans = cluster.orphans()
    figures.orphans = len(orphans)
    figures.orphan_detail = orphans
    check_log(soak)
    figures.failures = judge(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(figures), indent=1))
    return figures


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import core

    print(f"gamenight soak - core {'compiled' if core.COMPILED else 'pure Python'}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, "
          f"python {sys.version.split()[0]}, REDIS_URL {os.environ.get('REDIS_URL') or '-'}",
          flush=True)
    try:
        figures = run(args)
        report(figures)
    finally:
        from server.run import stop_database

        stop_database()  # the embedded PostgreSQL, unless others use it
    return 1 if figures.failures else 0


if __name__ == "__main__":
    sys.exit(main())
