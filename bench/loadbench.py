"""Load benchmark of the game server: scripted clients over real WebSockets (prints figures).

    python -m bench.loadbench [all|capacity|latency|replay] [options]

Without ``--url`` it starts its own daphne (one process, ``server.asgi``) on a free port,
against a separate database ``gamenight_bench`` on the embedded PostgreSQL (or the one in
``DATABASE_URL``), and stops it at the end. With ``--url http://host:port`` it drives a server
that is already running (games are created over the HTTP API, so it works remotely).

Scenarios (Teeko; a game that ends is replaced by a new one):

* capacity (closed loop): ``--games`` tables (100), two players each answering the moment the
  previous event arrives, S spectators per table (``--spectators 1,10``): moves/s, errors.
* latency (open loop): ``--latency-games`` tables (200), each making one move per second,
  two spectators each: time from sending a command to the moment every recipient (both
  players and the spectators) has the event, p50/p95/p99/max.
* replay: rebuild the state of a 10,000-event game: the core fold alone, and the server's
  cold load (database read + decode + fold, cache dropped).

The protocol followed is docs/protocol.md: ``POST /api/games/`` with guest seats, then
``/ws/games/<id>/`` with ``hello`` (seat + secret, or none for a spectator) and ``command``
messages carrying ``expected_seq``; the server answers ``ok`` and sends ``events`` frames
(``to`` = last seq, ``to_act``, ``legal`` for a seat, ``outcome``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
META = {"resign", "offer_draw", "accept_draw", "decline_draw"}


# --------------------------------------------------------------------------- HTTP


def _http(base: str, method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base.rstrip("/") + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


async def create_game(base: str, options: dict[str, Any]) -> tuple[int, dict[str, str]]:
    out = await asyncio.to_thread(_http, base, "POST", "/api/games/", {
        "kind": "teeko", "options": options,
        "seats": [{"kind": "guest", "name": "bench-0"}, {"kind": "guest", "name": "bench-1"}],
    })
    return int(out["id"]), {str(k): v for k, v in out["guest_secrets"].items()}


def ws_base(http_base: str) -> str:
    if http_base.startswith("https://"):
        return "wss://" + http_base[len("https://"):].rstrip("/")
    return "ws://" + http_base.removeprefix("http://").rstrip("/")


async def ws_connect(url: str) -> Any:
    from websockets.asyncio.client import connect

    return await connect(url, compression=None, max_size=None, ping_interval=None,
                         open_timeout=60, close_timeout=2)


# --------------------------------------------------------------------------- stats


@dataclass
class Stats:
    moves: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    games_started: int = 0
    games_finished: int = 0
    frames: int = 0
    latencies: list[float] = field(default_factory=list)
    late_ticks: int = 0
    counting: bool = False
    client_cpu: float = float("nan")
    pg_cpu: float = float("nan")
    redis_cpu: float = float("nan")
    pg_connections: int = -1
    redis_connections: int = -1
    machine_idle: float = float("nan")

    def error(self, code: str) -> None:
        self.errors += 1
        self.error_codes[code] = self.error_codes.get(code, 0) + 1


def _seq_of(text: str) -> int | None:
    """``to`` of an events frame, without parsing it all (spectators only need this)."""
    if not text.startswith('{"type":"events"'):
        return None
    i = text.find('"to":')
    if i < 0:
        return None
    j = i + 5
    k = j
    while k < len(text) and text[k].isdigit():
        k += 1
    return int(text[j:k]) if k > j else None


def pick(frame: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    moves = [c for c in frame.get("legal") or [] if c.get("type") not in META]
    return rng.choice(moves) if moves else None


# --------------------------------------------------------------------------- capacity

SPREAD = {"how": "sockets"}


class Table:
    """One game: its players and spectators (closed loop or ticked)."""

    def __init__(self, bases: list[str], n_spec: int, stats: Stats, rng: random.Random,
                 options: dict[str, Any], index: int = 0) -> None:
        self.bases, self.n_spec, self.stats, self.rng, self.options = (
            bases, n_spec, stats, rng, options)
        self.index = index
        self.head = 0
        self.frames: dict[int, dict[str, Any]] = {}
        self.pending: dict[int, list[Any]] = {}  # seq -> [t_send, recipients left, t_last]
        self.recipients = 2 + n_spec
        self.finished = asyncio.Event()
        self.ref = 0

    def _url(self, k: int) -> str:
        """Socket ``k`` of this table (players 0, 1, then spectators) goes to process
        ``(table + k) % N`` (``SPREAD`` "sockets"): with two processes the two players of a
        game are always on different ones, and every move crosses Redis. With "tables" every
        socket of a table goes to process ``table % N`` (what nginx's ``hash $uri`` on
        ``/ws/games/<id>/`` gives)."""
        shift = k if SPREAD["how"] == "sockets" else 0
        base = self.bases[(self.index + shift) % len(self.bases)]
        return f"{ws_base(base)}/ws/games/{self.game_id}/"

    async def open(self) -> None:
        self.game_id, self.secrets = await create_game(
            self.bases[self.index % len(self.bases)], self.options)
        self.players = [await ws_connect(self._url(k)) for k in range(2)]
        self.specs = [await ws_connect(self._url(2 + k)) for k in range(self.n_spec)]
        for seat, ws in enumerate(self.players):
            await ws.send(json.dumps({"type": "hello", "seat": seat,
                                      "secret": self.secrets[str(seat)], "last_seq": 0}))
        for ws in self.specs:
            await ws.send(json.dumps({"type": "hello", "last_seq": 0}))
        self.stats.games_started += 1

    async def close(self) -> None:
        for ws in [*self.players, *self.specs]:
            with contextlib.suppress(Exception):
                await ws.close()

    def _arrived(self, seq: int, now: float) -> None:
        for s in [s for s in self.pending if s <= seq]:
            rec = self.pending[s]
            rec[1] -= 1
            rec[2] = now
            if rec[1] == 0:
                del self.pending[s]
                if self.stats.counting:
                    self.stats.latencies.append(rec[2] - rec[0])

    async def send_move(self, seat: int, frame: dict[str, Any]) -> bool:
        cmd = pick(frame, self.rng)
        if cmd is None:
            return False
        self.ref += 1
        seq = int(frame["to"])
        self.pending[seq + 1] = [time.perf_counter(), self.recipients, 0.0]
        await self.players[seat].send(json.dumps({
            "type": "command", "command": cmd, "expected_seq": seq, "ref": self.ref}))
        return True

    async def run_player(self, seat: int, closed_loop: bool) -> None:
        ws = self.players[seat]
        async for text in ws:
            now = time.perf_counter()
            msg = json.loads(text)
            kind = msg.get("type")
            if kind == "events":
                self.stats.frames += 1
                to = int(msg["to"])
                self._arrived(to, now)
                if "to_act" not in msg:
                    continue  # a catch-up chunk before the last one
                self.head = max(self.head, to)
                self.frames[seat] = msg
                if msg.get("outcome") is not None:
                    self.finished.set()
                    return
                if closed_loop and seat in msg["to_act"] and to == self.head:
                    await self.send_move(seat, msg)
            elif kind == "ok":
                if self.stats.counting:
                    self.stats.moves += 1
            elif kind == "error":
                if self.stats.counting:
                    self.stats.error(str(msg.get("code")))
            elif kind == "finished":
                self.finished.set()
                return

    async def run_spectator(self, ws: Any) -> None:
        async for text in ws:
            seq = _seq_of(text)
            if seq is not None:
                self.stats.frames += 1
                self._arrived(seq, time.perf_counter())

    async def tick(self, period: float, stop: float) -> None:
        """Open loop: one move every ``period`` seconds, whoever is to act."""
        await asyncio.sleep(self.rng.random() * period)
        next_t = time.perf_counter()
        while not self.finished.is_set() and time.perf_counter() < stop:
            sent = False
            for seat in (0, 1):
                f = self.frames.get(seat)
                if f is not None and seat in f.get("to_act", []) and int(f["to"]) == self.head \
                        and self.head + 1 not in self.pending:
                    sent = await self.send_move(seat, f)
                    break
            if not sent and self.stats.counting:
                self.stats.late_ticks += 1
            next_t += period
            await asyncio.sleep(max(0.0, next_t - time.perf_counter()))


async def run_tables(bases: list[str], n_games: int, n_spec: int, seconds: float,
                     warmup: float, closed_loop: bool, seed: int,
                     pids: list[int] | None = None) -> tuple[Stats, float, float | None]:
    """Run ``n_games`` tables for ``warmup + seconds``; figures count only after warm-up."""
    stats = Stats()
    rng = random.Random(seed)
    options = {"move_cap": 0}
    t_start = time.perf_counter()
    stop_at = [float("inf")]
    sem = asyncio.Semaphore(20)

    async def one_table(i: int) -> None:
        trng = random.Random(rng.random())
        while time.perf_counter() < stop_at[0]:
            t = Table(bases, n_spec, stats, trng, options, i)
            async with sem:
                await t.open()
            tasks = [asyncio.ensure_future(t.run_player(s, closed_loop)) for s in (0, 1)]
            tasks += [asyncio.ensure_future(t.run_spectator(ws)) for ws in t.specs]
            if not closed_loop:
                tasks.append(asyncio.ensure_future(t.tick(1.0, stop_at[0])))
            fin = asyncio.ensure_future(t.finished.wait())
            remaining = stop_at[0] - time.perf_counter()
            await asyncio.wait([fin], timeout=max(0.0, remaining) if remaining != float("inf")
                               else None)
            if t.finished.is_set():
                stats.games_finished += 1
            for task in tasks:
                task.cancel()
            fin.cancel()
            await t.close()

    # Open every table first, then start the clock.
    runners = [asyncio.ensure_future(one_table(i)) for i in range(n_games)]
    while stats.games_started < n_games:
        await asyncio.sleep(0.05)
        if time.perf_counter() - t_start > 120:
            raise RuntimeError(f"only {stats.games_started}/{n_games} tables opened in 120 s")
    stop_at[0] = time.perf_counter() + warmup + seconds
    await asyncio.sleep(warmup)
    stats.counting = True
    prof = None
    pid = pids[0] if pids else None
    if PROFILE["path"] and pid:
        prof = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(pid), "-d",
             str(int(seconds)), "-r", "200", "-f", "raw", "-o", PROFILE["path"], "--threads",
             "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pg0 = postgres_cpu()
    redis0 = redis_cpu()
    c0 = sum(cpu_seconds(p) for p in pids) if pids else None
    own0 = sum(os.times()[:2])
    idle0 = machine_idle()
    t0 = time.perf_counter()
    stop_sampling = asyncio.Event()
    sampler = asyncio.ensure_future(sample_connections(stats, stop_sampling))
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - t0
    cpu = (sum(cpu_seconds(p) for p in pids) - c0) if pids and c0 is not None else None
    stats.client_cpu = (sum(os.times()[:2]) - own0) / elapsed
    stats.pg_cpu = (postgres_cpu() - pg0) / elapsed
    stats.redis_cpu = (redis_cpu() - redis0) / elapsed
    stop_sampling.set()
    await sampler
    if prof is not None:
        prof.wait()
    stats.machine_idle = (machine_idle() - idle0) / elapsed
    stats.counting = False
    await asyncio.wait(runners, timeout=10)
    for r in runners:
        r.cancel()
    return stats, elapsed, cpu


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


# --------------------------------------------------------------------------- server


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range of local ports for outgoing connections (Linux's default
    elsewhere)."""
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port free on 127.0.0.1 now, below the range the kernel gives outgoing connections:
    a client's socket cannot take it before the server binds it (one picked by the kernel,
    from that range, was taken so under load). Another process may still pick it first:
    callers that start a server retry with another (``tests/server_fixtures.py``)."""
    lo, _hi = ephemeral_ports()
    rng = random.SystemRandom()
    for _ in range(100):
        port = rng.randrange(10000, max(10001, lo))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prepare_database(db_name: str) -> dict[str, str]:
    """Set up Django in this process on database ``db_name`` (embedded PostgreSQL, unless
    ``DATABASE_URL``), migrate it, and return the environment a daphne process needs to
    serve the same database."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    os.environ["GAMENIGHT_DB_ROLE"] = "owner"  # migrate here; daphne runs as the app role
    if not os.environ.get("DATABASE_URL"):
        os.environ["GAMENIGHT_DB_NAME"] = db_name
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from server import dbconfig

    call_command("migrate", interactive=False, verbosity=0)
    connections.close_all()
    env = dict(os.environ)
    env["GAMENIGHT_DB_ROLE"] = "app"
    if not os.environ.get("DATABASE_URL"):
        env["GAMENIGHT_PGDATA"] = str(dbconfig.pgdata_dir(Path(settings.BASE_DIR)))
    return env


def spawn_daphne(port: int, env: dict[str, str], log: Any,
                 preexec_fn: Any = None) -> subprocess.Popen[bytes]:
    """One daphne process (``server.asgi``) on 127.0.0.1:``port``, output to ``log``."""
    return subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "server.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=preexec_fn)


def wait_http(base: str, proc: subprocess.Popen[bytes] | None, timeout: float = 60,
              what: str = "daphne") -> None:
    """Wait until ``base`` answers ``GET /api/kinds/``; RuntimeError if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _http(base, "GET", "/api/kinds/")
            return
        except Exception:
            if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.2)


class LocalServer:
    """``processes`` daphne processes on free ports against the ``gamenight_bench`` database;
    with more than one (or ``redis=True``) a Redis of its own (``redis-server`` on a free
    port, nothing saved) carries the channel layer, as ``./gamenight serve --workers N``."""

    def __init__(self, db_name: str = "gamenight_bench", priority: int = 0,
                 processes: int = 1, redis: bool = False) -> None:
        self.db_name = db_name
        self.priority = priority
        self.processes = max(1, processes)
        self.redis = redis or self.processes > 1
        self.procs: list[subprocess.Popen[bytes]] = []
        self.redis_proc: subprocess.Popen[bytes] | None = None
        self.pids: list[int] = []

    def __enter__(self) -> list[str]:
        env = prepare_database(self.db_name)
        from server.games import dbpool

        dbpool.default_connection().close_pool()  # (count only the server's connections)
        SAMPLE["conninfo"] = dbpool.conninfo()
        env.pop("REDIS_URL", None)
        if self.redis:
            env["REDIS_URL"] = self._start_redis()
        self.log = open(ROOT / "var" / "loadbench-daphne.log", "wb")
        prio = self.priority

        def raise_priority() -> None:
            if prio:
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, 0, -prio)

        ports = [free_port() for _ in range(self.processes)]
        self.procs = [spawn_daphne(port, env, self.log, raise_priority) for port in ports]
        if prio:
            self.restore = set_priority([os.getpid(), *postgres_pids()], -prio)
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        for proc, base in zip(self.procs, bases, strict=True):
            wait_http(base, proc, what="daphne (see var/loadbench-daphne.log)")
        self.pids = [p.pid for p in self.procs]
        return bases

    def _start_redis(self) -> str:
        import shutil

        exe = shutil.which("redis-server")
        if exe is None:
            url = os.environ.get("REDIS_URL", "")
            if not url:
                raise RuntimeError("several processes need Redis: install redis-server or "
                                   "set REDIS_URL")
            SAMPLE["redis_url"] = url
            return url
        port = free_port()
        self.redis_proc = subprocess.Popen(
            [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--maxclients", "10000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or self.redis_proc.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        url = f"redis://127.0.0.1:{port}/0"
        SAMPLE["redis_url"] = url
        SAMPLE["redis_pid"] = self.redis_proc.pid
        return url

    def __exit__(self, *exc: Any) -> None:
        for pid, value in getattr(self, "restore", {}).items():
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, pid, value)
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(2)
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.redis_proc is not None:
            self.redis_proc.terminate()
            self.redis_proc.wait(10)
        SAMPLE.clear()
        self.log.close()


SAMPLE: dict[str, Any] = {}
"""What :func:`sample_connections` looks at (set by :class:`LocalServer`): the database's
conninfo, the Redis URL and redis-server's pid."""


async def sample_connections(stats: Stats, stop: asyncio.Event, every: float = 0.25) -> None:
    """The most PostgreSQL backends on the bench database (other than this one) and Redis
    clients (other than this one) seen during the window, into ``stats``."""
    conn: Any = None
    red: Any = None
    try:
        if SAMPLE.get("conninfo"):
            import psycopg

            conn = await asyncio.to_thread(
                lambda: psycopg.connect(SAMPLE["conninfo"], autocommit=True))
        if SAMPLE.get("redis_url"):
            import redis

            red = redis.Redis.from_url(SAMPLE["redis_url"])

        def once() -> None:
            if conn is not None:
                # (of other roles' sessions PostgreSQL shows only pid, database and user)
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid()"
                ).fetchone()
                stats.pg_connections = max(stats.pg_connections, int(row[0]) if row else 0)
            if red is not None:
                n = int(red.info("clients")["connected_clients"]) - 1
                stats.redis_connections = max(stats.redis_connections, n)

        while not stop.is_set():
            await asyncio.to_thread(once)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
    except Exception as exc:
        print(f"  (connection sampling stopped: {type(exc).__name__}: {exc})", flush=True)
    finally:
        if conn is not None:
            conn.close()
        if red is not None:
            red.close()


def redis_cpu() -> float:
    """CPU seconds used so far by the benchmark's own redis-server (nan without one)."""
    pid = SAMPLE.get("redis_pid")
    return cpu_seconds(int(pid)) if pid else float("nan")


PROFILE: dict[str, str | None] = {"path": None}


def postgres_pids() -> list[int]:
    """The embedded PostgreSQL's processes (postmaster and children), if it runs."""
    try:
        import psutil

        from server import dbconfig

        info = dbconfig.running_info(dbconfig.pgdata_dir(ROOT))
        if info is None:
            return []
        root = psutil.Process(info["pid"])
        return [root.pid, *(c.pid for c in root.children(recursive=True))]
    except Exception:
        return []


def set_priority(pids: list[int], value: int) -> dict[int, int]:
    """Set the scheduling priority (nice) of ``pids``; returns the old values."""
    old: dict[int, int] = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            old[pid] = os.getpriority(os.PRIO_PROCESS, pid)
            os.setpriority(os.PRIO_PROCESS, pid, value)
    return old


def postgres_cpu() -> float:
    """CPU seconds used so far by the embedded PostgreSQL (postmaster and its children)."""
    try:
        import psutil

        from server import dbconfig

        info = dbconfig.running_info(dbconfig.pgdata_dir(ROOT))
        if info is None:
            return float("nan")
        root = psutil.Process(info["pid"])
        total = 0.0
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                t = proc.cpu_times()
                total += t.user + t.system
        return total
    except Exception:
        return float("nan")


def machine_idle() -> float:
    """Idle CPU seconds of the whole machine so far (all cores; Linux /proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        return (int(fields[3]) + int(fields[4])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc), for the server's CPU share."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


# --------------------------------------------------------------------------- replay


def long_teeko_log(n_events: int, seed: int = 7) -> list[dict[str, Any]]:
    """A Teeko game of ``n_events`` events that never ends: random moves avoiding wins."""
    from core import GAMES
    from core.api import apply, fold

    game = GAMES["teeko"]
    rng = random.Random(seed)
    opts = game.options({"move_cap": 0, "repetition": False})
    events = game.start(opts, rng)
    state = fold(game, events)
    while len(events) < n_events:
        seat = game.to_act(state)[0]
        moves = [c for c in game.legal_commands(state, seat) if c["type"] not in META]
        rng.shuffle(moves)
        for cmd in moves:
            new_state, new = apply(game, state, seat, cmd, rng)
            if game.outcome(new_state) is None:
                break
        state = new_state
        events.extend(new)
    return events[:n_events]


def replay_bench(n_events: int = 10_000, repeat: int = 5, db: bool = True) -> dict[str, float]:
    import core
    from core import GAMES
    from core.api import fold

    path = ROOT / "var" / f"bench-teeko-{n_events}.jsonl"
    if path.exists():
        events = [json.loads(line) for line in path.read_text().splitlines()]
    else:
        events = long_teeko_log(n_events)
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
    game = GAMES["teeko"]
    out: dict[str, float] = {"events": float(len(events)), "compiled": float(core.COMPILED)}
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        state = fold(game, events)
        times.append(time.perf_counter() - t0)
    assert game.outcome(state) is None
    out["core_fold_s"] = min(times)
    if db:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
        os.environ.setdefault("GAMENIGHT_DB_ROLE", "owner")  # migrates
        if not os.environ.get("DATABASE_URL"):
            os.environ.setdefault("GAMENIGHT_DB_NAME", "gamenight_bench")
        import django

        django.setup()
        from django.core.management import call_command

        from server.games import cache, creating

        call_command("migrate", interactive=False, verbosity=0)
        t0 = time.perf_counter()
        g = creating.import_game("teeko", None, [{"kind": "guest", "name": "a"},
                                              {"kind": "guest", "name": "b"}], events)
        out["import_s"] = time.perf_counter() - t0
        times = []
        for _ in range(repeat):
            cache.drop_cache()
            t0 = time.perf_counter()
            e = cache.entry(g.pk)
            times.append(time.perf_counter() - t0)
        assert e.seq == len(events)
        assert game.view(e.state, -2) == game.view(state, -2)
        out["server_load_s"] = min(times)
        out["server_load_median_s"] = statistics.median(times)
    return out


# --------------------------------------------------------------------------- main


def report_tables(title: str, stats: Stats, elapsed: float, cpu: float | None) -> None:
    rate = stats.moves / elapsed if elapsed else 0.0
    if cpu is not None and rate:
        per_move = cpu / elapsed / rate
        pg = stats.pg_cpu / rate if stats.pg_cpu == stats.pg_cpu else float("nan")
        red = stats.redis_cpu / rate if stats.redis_cpu == stats.redis_cpu else float("nan")
        print(f"  cost per move: daphne {per_move * 1000:.2f} ms CPU (all processes), "
              f"PostgreSQL {pg * 1000:.2f} ms CPU"
              + (f", Redis {red * 1000:.3f} ms CPU" if red == red else "")
              + f" -> one dedicated core for daphne would carry ~{1 / per_move:.0f} moves/s",
              flush=True)
    if stats.pg_connections >= 0 or stats.redis_connections >= 0:
        print(f"  connections (most seen): PostgreSQL {stats.pg_connections}"
              + (f", Redis {stats.redis_connections}" if stats.redis_connections >= 0 else ""),
              flush=True)
    print(f"{title}: {stats.moves / elapsed:8.1f} moves/s  errors {stats.errors}"
          f"{' ' + json.dumps(stats.error_codes) if stats.error_codes else ''}"
          f"  frames received {stats.frames}  games finished {stats.games_finished}"
          + (f"  server CPU {cpu / elapsed * 100:.0f}%" if cpu is not None else "")
          + f"  PostgreSQL CPU {stats.pg_cpu * 100:.0f}%"
          + (f"  Redis CPU {stats.redis_cpu * 100:.0f}%" if stats.redis_cpu == stats.redis_cpu
             else "")
          + f"  client CPU {stats.client_cpu * 100:.0f}%"
          + f"  machine idle {stats.machine_idle * 100:.0f}% of a core", flush=True)


def report_pools(bases: list[str]) -> None:
    """Each process's pools as its ``/healthz`` gives them (configured bound, open now)."""
    parts = []
    for base in bases:
        try:
            pools = _http(base, "GET", "/healthz").get("pools", {})
        except Exception as exc:
            parts.append(f"{base}: {type(exc).__name__}")
            continue
        parts.append(", ".join(f"{k} {v.get('open')}/{v.get('max')} open" for k, v in
                               sorted(pools.items())))
    print(f"  pools per process (open/max): {'; '.join(parts)}", flush=True)


def run_server(args: Any, bases: list[str], pids: list[int] | None, tag: str) -> None:
    """The capacity and latency runs against one server (one or more processes)."""
    if args.what in ("all", "capacity"):
        for n_spec in [int(x) for x in args.spectators.split(",") if x]:
            PROFILE["path"] = f"{args.profile}-{tag}-S{n_spec}.txt" if args.profile else None
            stats, elapsed, cpu = asyncio.run(run_tables(
                bases, args.games, n_spec, args.seconds, args.warmup, True, args.seed, pids))
            report_tables(f"capacity {tag} G={args.games} S={n_spec}", stats, elapsed, cpu)
            report_pools(bases)
    if args.what in ("all", "latency"):
        PROFILE["path"] = f"{args.profile}-{tag}-latency.txt" if args.profile else None
        stats, elapsed, cpu = asyncio.run(run_tables(
            bases, args.latency_games, args.latency_spectators, args.seconds, args.warmup,
            False, args.seed, pids))
        lat = [x * 1000 for x in stats.latencies]
        report_tables(f"latency {tag} G={args.latency_games} S={args.latency_spectators} "
                      f"(1 move/s/table)", stats, elapsed, cpu)
        print(f"latency send -> every recipient ({len(lat)} moves): "
              f"p50 {pct(lat, 50):.1f} ms  p95 {pct(lat, 95):.1f} ms  "
              f"p99 {pct(lat, 99):.1f} ms  max {max(lat, default=float('nan')):.1f} ms"
              f"  (late ticks {stats.late_ticks})", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.loadbench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("what", nargs="?", default="all",
                   choices=["all", "capacity", "latency", "replay"])
    p.add_argument("--url", help="drive a running server (http://host:port; several, comma "
                                 "separated, for processes sharing Redis); default: start one")
    p.add_argument("--spread", choices=["sockets", "tables"], default="sockets",
                   help="with several processes: each socket of a table on another process "
                        "(sockets, default: players of one game on different processes) or "
                        "every socket of a table on the same one (tables)")
    p.add_argument("--processes", default="1", metavar="N[,M...]",
                   help="own server: daphne processes, each count a run of its own (e.g. 1,2: "
                        "one process, then two; more than one, or several counts, use a "
                        "redis-server of the benchmark's own for every run)")
    p.add_argument("--games", type=int, default=100, help="capacity: tables (100)")
    p.add_argument("--spectators", default="1,10", help="capacity: spectators per table (1,10)")
    p.add_argument("--seconds", type=float, default=15.0, help="measured seconds per run (15)")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (3)")
    p.add_argument("--latency-games", type=int, default=200, help="latency: tables (200)")
    p.add_argument("--latency-spectators", type=int, default=2)
    p.add_argument("--events", type=int, default=10_000, help="replay: log length (10000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--priority", type=int, default=0, metavar="N",
                   help="(root, own server only) run daphne, PostgreSQL and the clients at "
                        "nice -N, so that other work on a shared machine disturbs less")
    p.add_argument("--profile", metavar="FILE",
                   help="record the daphne process with py-spy during each measured window "
                        "(raw collapsed stacks; FILE gets a -<run> suffix)")
    args = p.parse_args(argv)

    import core

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),)
    print(f"gamenight load benchmark — core {'compiled' if core.COMPILED else 'pure Python'}, "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f}, python {sys.version.split()[0]}",
          flush=True)
    if args.what in ("all", "replay"):
        r = replay_bench(args.events)
        print(f"replay {int(r['events'])} events: core fold {r['core_fold_s'] * 1000:.1f} ms; "
              f"server cold load (DB read + fold) {r['server_load_s'] * 1000:.1f} ms "
              f"(median {r['server_load_median_s'] * 1000:.1f} ms); "
              f"import {r['import_s'] * 1000:.0f} ms", flush=True)
    if args.what == "replay":
        return 0

    SPREAD["how"] = args.spread
    counts = [int(x) for x in args.processes.split(",") if x]
    runs: list[Any] = (
        [contextlib.nullcontext([u for u in args.url.split(",") if u])] if args.url
        else [LocalServer(priority=args.priority, processes=n, redis=len(counts) > 1)
              for n in counts])
    for server in runs:
        with server as bases:
            pids = getattr(server, "pids", None)
            n = len(bases)
            where = "Redis" if getattr(server, "redis", n > 1) else "no channel layer"
            tag = f"P={n}" + (f" spread={args.spread}" if n > 1 else "")
            print(f"server {', '.join(bases)}: {n} process{'es' if n > 1 else ''} ({where})"
                  + (f" (daphne pids {', '.join(map(str, pids))}, started here)" if pids
                     else ""), flush=True)
            run_server(args, bases, pids, tag)
    return 0


if __name__ == "__main__":
    sys.exit(main())
