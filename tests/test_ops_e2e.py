"""End to end, with real processes: ``python -m server.run`` and a daphne killed with SIGKILL.

* The run command starts on a fresh embedded PostgreSQL of its own, prints an admin login and
  the LAN address, answers HTTP, and on SIGINT stops daphne and that PostgreSQL.
* Kill/restart: a Teeko game is played over real WebSockets, the daphne process is killed
  with ``kill -9``, started again; the game resumes from the log with the same state, a client
  reconnects with ``last_seq`` and catches up, and play goes on.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bench.loadbench import free_port
from server import dbconfig

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def http(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            raw = resp.read()
            ctype = resp.headers.get("Content-Type", "")
            return resp.status, json.loads(raw) if "json" in ctype else raw.decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def wait_http(url: str, proc: subprocess.Popen[Any], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early with {proc.returncode}")
        try:
            http("GET", url)
            return
        except (OSError, urllib.error.URLError):
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer in {timeout} s")


EMBEDDED_ONLY = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")),
    reason="DATABASE_URL is set: this test checks the embedded-PostgreSQL path")


def base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "GAMENIGHT_DB_JSON", "PYTEST_CURRENT_TEST")}
    env["DJANGO_SETTINGS_MODULE"] = "server.settings"
    env["GAMENIGHT_ANNOUNCE"] = "0"  # no mDNS on this machine's network (test_lan_discovery)
    env.update(extra)
    return env


# --------------------------------------------------------------------------- server.run


def _ignore_sigint() -> None:
    """(child, before exec) what a shell does to a job started in the background (``&``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_run_command(port: int, *extra: str, script: bool = False,
                      **env_extra: str) -> tuple[subprocess.Popen[str], Path, list[str]]:
    """``python -m server.run`` on its own var/ and embedded server (kept between runs like a
    real installation: the first run initdbs and creates the admin, later runs print the same
    login), started as from a script in the background: SIGINT ignored. With ``script``,
    ``./gamenight serve`` (on this interpreter, GAMENIGHT_PYTHON) in a process group of its
    own, as a terminal's foreground job. Returns the process, its PGDATA and its output up to
    the banner's admin login line."""
    # one installation per xdist worker: two workers' tests on one embedded server each saw
    # the other's sessions ("left running: 1 other session") and stopped it under the other
    var = ROOT / "var" / f"runtest{os.environ.get('PYTEST_XDIST_WORKER', '')}"
    pgdata = var / "pg"
    var.mkdir(parents=True, exist_ok=True)
    env = base_env(GAMENIGHT_PGDATA=str(pgdata), GAMENIGHT_VAR=str(var),
                   GAMENIGHT_DB_NAME="gamenight", GAMENIGHT_PYTHON=sys.executable, **env_extra)
    env.pop("GAMENIGHT_PG_KEEP", None)
    dbconfig.stop_embedded(pgdata)  # a leftover from an interrupted run
    if script:
        cmd = [sys.executable, str(ROOT / "gamenight"), "serve"]
        how: dict[str, Any] = {"process_group": 0}
    else:
        cmd = [sys.executable, "-m", "server.run"]
        how = {"preexec_fn": _ignore_sigint}
    proc = subprocess.Popen([*cmd, "--port", str(port), *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, **how)
    out: list[str] = []
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line)
        if "Admin login" in line:
            break
    return proc, pgdata, out


def stop_run_command(proc: subprocess.Popen[str], pgdata: Path) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    dbconfig.stop_embedded(pgdata)


def assert_clean_stop(proc: subprocess.Popen[str], sig: int, group: bool = False) -> str:
    """``sig`` (to its process group with ``group``, as a terminal's Ctrl-C) stops it with
    exit code 0, saying what it stopped, no traceback. (A daphne that had to be killed after
    its 10 s would still say "daphne stopped": how long the stop takes is no evidence on a
    loaded machine; the wait is a deadline only a hang reaches.)"""
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    rest, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest, rest
    lines = [ln for ln in rest.splitlines() if ln.startswith("[gamenight]")]
    assert lines == ["[gamenight] stopping", "[gamenight] daphne stopped",
                     "[gamenight] embedded PostgreSQL stopped"], rest
    return rest


@pytest.mark.slow
@EMBEDDED_ONLY
def test_run_command_serves_and_stops_cleanly_on_sigint() -> None:
    """Started with SIGINT ignored (as a script's background job is), SIGINT still stops it."""
    port = free_port()
    proc, pgdata, out = start_run_command(port)
    var = pgdata.parent
    try:
        text = "".join(out)
        assert "Tablets: connect to" in text, text
        m = re.search(r"Admin login \((created|existing)\):\s+(\S+) / (\S+)", text)
        assert m, text
        username, password = m.group(2), m.group(3)
        assert (var / "admin-password.txt").read_text().strip() == password
        assert username == "admin"
        addr = re.search(r"Tablets: connect to\s+http://([0-9.]+):(\d+)", text)
        assert addr and int(addr.group(2)) == port
        assert dbconfig.running_info(pgdata) is not None

        wait_http(f"http://127.0.0.1:{port}/api/kinds/", proc)
        status, kinds = http("GET", f"http://127.0.0.1:{port}/api/kinds/")
        assert status == 200 and "teeko" in [k["kind"] for k in kinds["kinds"]]
        status, page = http("GET", f"http://127.0.0.1:{port}/admin/login/")
        assert status == 200 and "Django" in page
        # Listening on every interface: the LAN address answers too.
        status, _ = http("GET", f"http://{addr.group(1)}:{port}/api/kinds/")
        assert status == 200
        status, leagues = http("GET", f"http://127.0.0.1:{port}/api/games/?status=finished")
        assert status == 200 and len(leagues["games"]) >= 1  # the demo matches
        # daphne runs as the restricted role (migrations ran as the owner): its sessions on
        # the database are all gamenight_app's.
        assert "daphne's database role: gamenight_app" in text, text
        info = dbconfig.running_info(pgdata)
        assert info is not None
        import psycopg

        with psycopg.connect(host=info["host"], port=str(info["port"]), user="postgres",
                             dbname="gamenight", autocommit=True) as conn:
            users = {r[0] for r in conn.execute(
                "SELECT usename FROM pg_stat_activity WHERE datname = 'gamenight'"
                " AND pid <> pg_backend_pid()")}
            owner = conn.execute("SELECT tableowner FROM pg_tables "
                                 "WHERE tablename = 'games_event'").fetchone()
        assert users == {dbconfig.APP_ROLE}, users
        assert owner == (dbconfig.OWNER_ROLE,)

        pg_pid = dbconfig.running_info(pgdata)["pid"]  # type: ignore[index]
        assert_clean_stop(proc, signal.SIGINT)
        assert dbconfig.running_info(pgdata) is None
        assert not dbconfig._pid_alive(pg_pid)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        stop_run_command(proc, pgdata)


@pytest.mark.slow
@EMBEDDED_ONLY
def test_run_command_stops_quietly_on_sigterm_while_daphne_starts() -> None:
    """SIGTERM right after the banner, while daphne is still importing: no traceback (SIGINT
    to a daphne that is importing printed a KeyboardInterrupt traceback), the embedded
    PostgreSQL stopped (the run command's own pooled session kept it running before)."""
    proc, pgdata, out = start_run_command(free_port(), "--no-demo", "--host", "127.0.0.1")
    try:
        assert "Tablets: connect to" in "".join(out), "".join(out)
        assert_clean_stop(proc, signal.SIGTERM)
        assert dbconfig.running_info(pgdata) is None
    finally:
        stop_run_command(proc, pgdata)


# --------------------------------------------------------------------------- kill -9 / restart


class Client:
    """A WebSocket client of one game, following docs/protocol.md."""

    def __init__(self, url: str, seat: int | None = None, secret: str | None = None) -> None:
        self.url, self.seat, self.secret = url, seat, secret
        self.last_seq = 0
        self.frame: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, open_timeout=30, ping_interval=None)
        self.frame = None  # only frames of this connection count from now on
        hello: dict[str, Any] = {"type": "hello", "last_seq": self.last_seq}
        if self.seat is not None:
            hello.update(seat=self.seat, secret=self.secret)
        await self.ws.send(json.dumps(hello))
        msg = await self.recv("welcome")
        assert msg["seat"] == self.seat

    async def recv(self, kind: str, timeout: float = 60) -> dict[str, Any]:
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if msg["type"] == "error":
                raise AssertionError(f"server error: {msg}")
            if msg["type"] == "events":
                for rec in msg["events"]:
                    assert rec["seq"] == len(self.events) + 1 or rec["seq"] <= len(self.events)
                    if rec["seq"] == len(self.events) + 1:
                        self.events.append(rec)
                self.last_seq = max(self.last_seq, msg["to"])
                if "view" in msg:
                    self.frame = msg
            if msg["type"] == kind:
                return msg

    async def until_seq(self, seq: int) -> dict[str, Any]:
        while self.last_seq < seq or self.frame is None or self.frame["to"] < seq:
            await self.recv("events")
        return self.frame

    async def close(self) -> None:
        await self.ws.close()


def start_daphne(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
         "server.asgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def play(players: list[Client], moves: int, rng_seed: int) -> None:
    import random

    rng = random.Random(rng_seed)
    for _ in range(moves):
        frame = players[0].frame
        assert frame is not None and frame["outcome"] is None
        seat = frame["to_act"][0]
        me = players[seat]
        head = me.frame["to"]  # type: ignore[index]
        legal = [c for c in me.frame["legal"] if c["type"] not in ("resign", "offer_draw")]  # type: ignore[index]
        await me.ws.send(json.dumps({"type": "command", "command": rng.choice(legal),
                                     "expected_seq": head, "ref": head}))
        await me.recv("ok")
        for p in players:
            await p.until_seq(head + 1)


@pytest.mark.slow
def test_kill_9_and_restart_resumes_the_game_from_the_log() -> None:
    env = base_env(GAMENIGHT_DB_NAME="gn_ops_restart", GAMENIGHT_PG_KEEP="1")
    if not os.environ.get("DATABASE_URL"):
        env["GAMENIGHT_PGDATA"] = str(dbconfig.pgdata_dir(ROOT))
    else:
        env["DATABASE_URL"] = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/gn_ops_restart"
        pytest.skip("uses the embedded PostgreSQL (creates its own database there)")
    setup = subprocess.run([sys.executable, "-m", "server.run", "--setup-only", "--no-demo"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    port = free_port()
    base, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    proc = start_daphne(port, env)
    try:
        wait_http(f"{base}/api/kinds/", proc)
        status, game = http("POST", f"{base}/api/games/", {
            "kind": "teeko", "options": {},
            "seats": [{"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bo"}]})
        assert status == 201, game
        url = f"{ws}/ws/games/{game['id']}/"
        secrets = game["guest_secrets"]

        async def first_half() -> tuple[list[Client], Client]:
            players = [Client(url, s, secrets[str(s)]) for s in (0, 1)]
            spectator = Client(url)
            for c in [*players, spectator]:
                await c.connect()
                await c.until_seq(1)
            await play(players, 5, rng_seed=3)  # 5 placements: nobody can have won yet
            await spectator.until_seq(players[0].last_seq)
            return players, spectator

        players, spectator = asyncio.run(first_half())
        seq_before = spectator.last_seq
        view_before = spectator.frame["view"]  # type: ignore[index]
        seat_view_before = players[1].frame["view"]  # type: ignore[index]
        to_act_before = spectator.frame["to_act"]  # type: ignore[index]
        assert seq_before >= 6

        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        assert proc.returncode == -signal.SIGKILL
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()

        proc = start_daphne(port, env)
        wait_http(f"{base}/api/kinds/", proc)

        async def second_half() -> None:
            # The old sockets died with the process; the clients reconnect with last_seq.
            for c in [*players, spectator]:
                await c.connect()
                frame = await c.until_seq(seq_before)
                assert frame["to"] == seq_before
                assert frame["events"] == []  # nothing missed: nothing resent
            assert spectator.frame["view"] == view_before  # type: ignore[index]
            assert spectator.frame["to_act"] == to_act_before  # type: ignore[index]
            assert players[1].frame["view"] == seat_view_before  # type: ignore[index]
            # A newcomer catches up from scratch to the same state.
            late = Client(url)
            await late.connect()
            assert (await late.until_seq(seq_before))["view"] == view_before
            assert [r["event"] for r in late.events] == [r["event"] for r in spectator.events]
            # Play goes on, and everybody gets the new events.
            await play(players, 2, rng_seed=4)
            for c in [spectator, late]:
                await c.until_seq(seq_before + 2)
            assert late.events == spectator.events
            for c in [*players, spectator, late]:
                await c.close()

        asyncio.run(second_half())
        status, verify = http("GET", f"{base}/api/games/{game['id']}/verify/")
        assert status == 200 and verify["ok"] is True, verify
        assert verify["events"] == seq_before + 2
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# --------------------------------------------------------------------------- --workers


def _redis_url() -> str | None:
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        return None
    return "redis://127.0.0.1:6379/0"


@pytest.mark.slow
def test_workers_share_one_port_and_deliver_across_processes() -> None:
    """``server.run --workers 2``: two daphne processes accept on one socket; a move made on
    one process reaches spectators connected to the other (through Redis)."""
    import psutil

    redis_url = _redis_url()
    if redis_url is None:
        pytest.skip("no Redis (REDIS_URL unset and nothing on 127.0.0.1:6379)")
    if os.environ.get("DATABASE_URL"):
        pytest.skip("uses the embedded PostgreSQL (creates its own database there)")
    env = base_env(GAMENIGHT_DB_NAME="gn_ops_workers", GAMENIGHT_PG_KEEP="1",
                   REDIS_URL=redis_url, GAMENIGHT_PGDATA=str(dbconfig.pgdata_dir(ROOT)),
                   GAMENIGHT_VAR=str(ROOT / "var" / "workerstest"))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "server.run", "--port", str(port),
                             "--workers", "2", "--no-demo", "--host", "127.0.0.1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    base, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/api/kinds/", proc, timeout=120)
        children = psutil.Process(proc.pid).children()
        assert len(children) == 2
        status, game = http("POST", f"{base}/api/games/", {
            "kind": "teeko", "options": {},
            "seats": [{"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bo"}]})
        assert status == 201, game
        url = f"{ws}/ws/games/{game['id']}/"

        async def scenario() -> set[int]:
            players = [Client(url, s, game["guest_secrets"][str(s)]) for s in (0, 1)]
            watchers = [Client(url) for _ in range(8)]
            for c in [*players, *watchers]:
                await c.connect()
                await c.until_seq(1)
            # Which process holds each client's socket (by the client's local port).
            served: dict[int, set[int]] = {}
            for child in children:
                for conn in child.net_connections(kind="tcp"):
                    if conn.laddr and conn.laddr.port == port and conn.raddr:
                        served.setdefault(child.pid, set()).add(conn.raddr.port)
            await play(players, 4, rng_seed=5)
            for c in watchers:
                await c.until_seq(5)
                assert c.events == players[0].events
            for c in [*players, *watchers]:
                await c.close()
            return {pid for pid, ports in served.items() if ports}

        pids = asyncio.run(scenario())
        # With 10 sockets over 2 processes, both serve some (the kernel spreads accepts);
        # if every socket landed on one process the delivery above proved nothing new.
        if len(pids) < 2:
            pytest.skip("all sockets were accepted by one process this time")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                out, _ = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
        else:
            out, _ = proc.communicate()
    assert proc.returncode == 0, out
    assert "2 daphne processes" in out and "daphne stopped" in out, out


# --------------------------------------------------------------------------- no orphans


def _alive(p: Any) -> bool:
    import psutil

    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.django_db(transaction=True)
def test_kill_9_of_daphne_leaves_no_bot_worker(daphne_server: Any) -> None:
    """Bots think in daphne's process pool (spawned workers plus multiprocessing's resource
    tracker). ``kill -9`` of daphne leaves them re-parented to init unless they die with it."""
    import psutil

    status, game = http("POST", f"{daphne_server.http}/api/games/", {
        "kind": "teeko", "options": {},
        "seats": [{"kind": "bot", "level": "random"}, {"kind": "guest", "name": "Ann"}]})
    assert status == 201, game
    daphne = psutil.Process(daphne_server.proc.pid)
    deadline = time.monotonic() + 120
    workers: list[Any] = []
    while time.monotonic() < deadline:  # the bot's first move starts the pool
        children = daphne.children(recursive=True)
        workers = [c for c in children if "spawn_main" in " ".join(c.cmdline())]
        if workers:
            break
        time.sleep(0.1)
    assert workers, [c.cmdline() for c in daphne.children(recursive=True)]
    children = daphne.children(recursive=True)  # workers and the resource tracker
    daphne_server.proc.send_signal(signal.SIGKILL)
    daphne_server.proc.wait(60)
    deadline = time.monotonic() + 60
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [(c.pid, c.cmdline()) for c in children if _alive(c)]
    assert not left, left


def test_the_run_check_finds_a_process_left_behind() -> None:
    """The session-end check (tests/process_check.py) sees a process of the run even after
    its parent is gone and it was re-parented."""
    import psutil
    from process_check import run_processes

    code = ("import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
            "'import time; time.sleep(600)'], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL); "
            "print(p.pid, flush=True)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    orphan = psutil.Process(int(out.stdout.split()[0]))  # its parent has exited
    try:
        assert orphan.pid in [p.pid for p in run_processes()]
    finally:
        orphan.kill()
        orphan.wait(60)
    assert orphan.pid not in [p.pid for p in run_processes()]


EXIT_WHILE_THINKING = """
import os, time
os.environ["DJANGO_SETTINGS_MODULE"] = "server.settings"
os.environ["GAMENIGHT_DB_JSON"] = (  # never connected to
    '{"NAME": "x", "USER": "x", "PASSWORD": "", "HOST": "127.0.0.1", "PORT": "1"}')
import django
django.setup()
from server.games import runtime
pool = runtime.BOTS.executor()
thinking = pool.submit(time.sleep, 900)  # a bot that thinks for 15 minutes
deadline = time.monotonic() + 120
while not (getattr(pool, "_processes", None) and thinking.running()) \
        and time.monotonic() < deadline:  # (handed to a worker)
    time.sleep(0.05)
print(*[p.pid for p in pool._processes.values()], flush=True)
input()  # the test holds the workers' handles before this process exits
"""


def test_a_process_that_exits_does_not_wait_for_a_thinking_bot() -> None:
    """Python's exit waits for the process pool's running tasks: a daphne told to stop hung
    until its bot finished thinking (up to GAMENIGHT_BOT_TIME_LIMIT)."""
    import psutil

    proc = subprocess.Popen([sys.executable, "-c", EXIT_WHILE_THINKING], cwd=ROOT,
                            env=base_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdin is not None
    workers = [psutil.Process(int(pid)) for pid in proc.stdout.readline().split()]
    proc.stdin.write("\n")
    proc.stdin.close()
    proc.wait(180)  # (had it waited for the bot, it would take 15 minutes)
    assert proc.returncode == 0
    deadline = time.monotonic() + 60
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and not any(_alive(w) for w in workers)


@pytest.mark.slow
@EMBEDDED_ONLY
def test_ctrl_c_on_gamenight_serve_stops_it_cleanly() -> None:
    """Ctrl-C at a terminal signals the whole foreground process group. The ``gamenight``
    script waited for server.run in a child: it printed a KeyboardInterrupt traceback and
    killed server.run 0.25 s later, before the embedded PostgreSQL was stopped. It now execs
    server.run, so the signal reaches the server alone."""
    port = free_port()
    proc, pgdata, out = start_run_command(port, "--no-demo", "--host", "127.0.0.1", script=True)
    try:
        assert "Tablets: connect to" in "".join(out), "".join(out)
        wait_http(f"http://127.0.0.1:{port}/api/kinds/", proc)
        assert_clean_stop(proc, signal.SIGINT, group=True)
        assert dbconfig.running_info(pgdata) is None
    finally:
        stop_run_command(proc, pgdata)


SLOW_POLL = """
# (made by test_a_stop_that_lands_inside_a_poll_of_daphne_still_stops)
import os, subprocess, threading, time

_MARKER = os.environ.get("GAMENIGHT_TEST_SLOW_POLL")


class _SlowLock:
    \"\"\"Popen's waitpid lock that, taken the first time by a poll, holds on to it for 5 s
    (and says so in the marker file): the instant a signal may land, made long.\"\"\"

    def __init__(self):
        self._lock = threading.Lock()
        self._slowed = False

    def acquire(self, blocking=True, timeout=-1):
        got = self._lock.acquire(blocking, timeout)
        if got and not blocking and not self._slowed:
            self._slowed = True
            open(_MARKER, "w").close()
            time.sleep(5)
        return got

    def release(self):
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()


if _MARKER:
    _init = subprocess.Popen.__init__

    def _slowed_init(self, args, *rest, **kw):
        _init(self, args, *rest, **kw)
        if "daphne" in [str(a) for a in args]:
            self._waitpid_lock = _SlowLock()

    subprocess.Popen.__init__ = _slowed_init
"""


@pytest.mark.slow
@EMBEDDED_ONLY
def test_a_stop_that_lands_inside_a_poll_of_daphne_still_stops(tmp_path: Path) -> None:
    """The run command looks at its daphne every half second (``Popen.poll``). A SIGINT that
    came just as a poll had taken the Popen's lock raised KeyboardInterrupt there, out of the
    signal handler, before the lock was released; the stop's wait for daphne then waited for
    that lock for ever (a loaded run of the Ctrl-C test hung so, after "stopping"). The
    instant is made long here: the lock, once taken by a poll, is held 5 s, and the signal
    is sent then. A stop must still end cleanly."""
    (tmp_path / "sitecustomize.py").write_text(SLOW_POLL)
    marker = tmp_path / "polling"
    port = free_port()
    proc, pgdata, out = start_run_command(
        port, "--no-demo", "--host", "127.0.0.1",
        PYTHONPATH=str(tmp_path), GAMENIGHT_TEST_SLOW_POLL=str(marker))
    try:
        assert "Tablets: connect to" in "".join(out), "".join(out)
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "no poll of daphne"
        assert_clean_stop(proc, signal.SIGINT)
        assert dbconfig.running_info(pgdata) is None
    finally:
        stop_run_command(proc, pgdata)


@pytest.mark.slow
@EMBEDDED_ONLY
def test_kill_9_of_the_run_command_takes_daphne_and_its_bot_workers_along() -> None:
    """SIGKILL of server.run: its daphne gets SIGTERM from the kernel (PR_SET_PDEATHSIG) and
    stops; daphne's bot workers follow it."""
    import psutil

    port = free_port()
    proc, pgdata, _ = start_run_command(port, "--no-demo", "--host", "127.0.0.1")
    try:
        wait_http(f"http://127.0.0.1:{port}/api/kinds/", proc)
        status, game = http("POST", f"http://127.0.0.1:{port}/api/games/", {
            "kind": "teeko", "options": {},
            "seats": [{"kind": "bot", "level": "random"}, {"kind": "guest", "name": "Ann"}]})
        assert status == 201, game
        run = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            tree = [p for p in run.children(recursive=True)
                    if "postgres" not in " ".join(p.cmdline())]
            if any("spawn_main" in " ".join(p.cmdline()) for p in tree):
                break
            time.sleep(0.1)
        assert any("daphne" in " ".join(p.cmdline()) for p in tree), tree
        assert any("spawn_main" in " ".join(p.cmdline()) for p in tree), tree
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        deadline = time.monotonic() + 60
        while any(_alive(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [(p.pid, p.cmdline()) for p in tree if _alive(p)]
        assert not left, left
    finally:
        stop_run_command(proc, pgdata)


@pytest.mark.slow
@EMBEDDED_ONLY
def test_a_daphne_that_dies_stops_the_run_command() -> None:
    """A daphne that dies (here SIGKILL) takes the run command down with it, saying so and
    stopping the embedded PostgreSQL, with daphne's exit code: no server left that serves
    nothing."""
    import psutil

    port = free_port()
    proc, pgdata, _ = start_run_command(port, "--no-demo", "--host", "127.0.0.1")
    try:
        wait_http(f"http://127.0.0.1:{port}/api/kinds/", proc)
        daphnes = [p for p in psutil.Process(proc.pid).children()
                   if "daphne" in " ".join(p.cmdline())]
        assert len(daphnes) == 1, daphnes
        daphnes[0].kill()
        rest, _ = proc.communicate(timeout=180)
        assert proc.returncode != 0, rest
        lines = [ln for ln in rest.splitlines() if ln.startswith("[gamenight]")]
        assert lines == [f"[gamenight] daphne (pid {daphnes[0].pid}) exited with code -9; stopping",
                         "[gamenight] stopping", "[gamenight] daphne stopped",
                         "[gamenight] embedded PostgreSQL stopped"], rest
        assert dbconfig.running_info(pgdata) is None
    finally:
        stop_run_command(proc, pgdata)


def _orphan_after(child_code: str) -> Any:
    """Start a parent that starts ``child_code`` and exits at once; the child's process."""
    import psutil

    parent = ("import os, subprocess, sys\n"
              f"p = subprocess.Popen([sys.executable, '-c', {child_code!r}, str(os.getpid())], "
              "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
              "print(p.pid, os.getpid(), flush=True)\n")
    out = subprocess.run([sys.executable, "-c", parent], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env=base_env())
    return psutil.Process(int(out.stdout.split()[0]))


@pytest.mark.parametrize("call", [
    # the parent died before the death signal was set: the child sees it at once
    "lifeline.die_with_parent(PARENT)",
    # no death signal (other systems): the watchdog thread sees the parent change
    "lifeline.watch_parent(PARENT)",
])
def test_a_child_ends_when_its_parent_is_gone(call: str) -> None:
    code = ("import os, sys, time\n"
            "PARENT = int(sys.argv[1])\n"
            "while os.getppid() == PARENT:  # the parent exits meanwhile\n"
            "    time.sleep(0.05)\n"
            "from server import lifeline\n"
            f"{call}\n"
            "time.sleep(600)  # (ended with its parent, long before)\n")
    child = _orphan_after(code)
    try:
        deadline = time.monotonic() + 60
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child)
    finally:
        if _alive(child):
            child.kill()


def _count(conn: Any, sql: str, *params: Any) -> int:
    row = conn.execute(sql, params).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.django_db(transaction=True)
def test_sigterm_stops_daphne_while_a_request_waits(daphne_server: Any) -> None:
    """SIGTERM while an HTTP request is in flight, its view waiting (for a table lock this
    test holds until daphne is gone), stops daphne all the same: the stop waits
    GAMENIGHT_STOP_GRACE seconds for the request, then as long for the exit, then ends the
    process. Before, daphne waited for the view for as long as it waited (here for ever),
    and a view that ended after the reactor had stopped left its thread waiting for the
    stopped event loop, which Python's exit joined. The request (a new game, made in one
    transaction) is dropped whole: its transaction was never committed."""
    import psycopg
    from django.db import connection

    from server.games.models import Game

    sd = connection.settings_dict
    dsn = {"host": sd["HOST"], "port": str(sd["PORT"]), "user": sd["USER"],
           "password": sd["PASSWORD"] or None, "dbname": sd["NAME"]}
    locker = psycopg.connect(**dsn)
    try:
        locker.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")  # (until daphne ends)
        body = json.dumps({"kind": "teeko", "options": {}, "seats": [
            {"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bob"}]}).encode()
        client = socket.create_connection(("127.0.0.1", daphne_server.port), timeout=60)
        client.sendall(b"POST /api/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       b"Content-Type: application/json\r\n"
                       b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        # (the request's query: the ORM's, quoted; the clocks' re-arm at the start reads the
        # table too, in SQL of its own)
        waiting = ("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                   " AND wait_event_type = 'Lock' AND query LIKE '%%FROM \"games_game\"%%'")
        sessions = "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
        with psycopg.connect(**dsn, autocommit=True) as watch:
            deadline = time.monotonic() + 120
            while not _count(watch, waiting, daphne_server.app_name):
                assert time.monotonic() < deadline, daphne_server.output()
                time.sleep(0.1)
            # the request's view is certainly in flight: it waits for the lock held here
            daphne_server.proc.send_signal(signal.SIGTERM)
            try:
                daphne_server.proc.wait(60)
            except subprocess.TimeoutExpired:
                pytest.fail("daphne still running 60 s after SIGTERM with a request in "
                            f"flight: {daphne_server.output()}")
            assert daphne_server.proc.returncode == 0, daphne_server.output()
            assert "stopping without 1 request(s) still running" in daphne_server.output()
            # (PostgreSQL sees the client gone once the statement stops waiting)
            locker.rollback()
            deadline = time.monotonic() + 60
            while _count(watch, sessions, daphne_server.app_name):
                assert time.monotonic() < deadline, "daphne's database session outlived it"
                time.sleep(0.1)
        assert not Game.objects.exists()
        client.close()
    finally:
        locker.close()
