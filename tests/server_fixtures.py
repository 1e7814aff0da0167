"""pytest fixtures for the server tests (registered from conftest.py via pytest_plugins)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.loadbench import free_port, spawn_daphne
from server.lifeline import set_pdeathsig

ROOT = Path(__file__).resolve().parent.parent

TRUNCATE_GUARDS = {
    "games_event": "games_event_no_truncate",
    "games_chainhead": "games_chainhead_no_truncate",
    "games_correction": "games_correction_no_truncate",
    "leagues_clubevent": "leagues_clubevent_no_truncate",
}
"""Triggers refusing TRUNCATE (migration 0003), set aside while the tests flush the database."""


TEST_JOIN_RATE = "1000000/minute"
"""Every test comes from 127.0.0.1: the joins and code lookups of the whole run share one
address, so the suite's servers (in-process and daphne, which inherit the environment) allow
many; the tests of the limit itself start their server with a rate of their own
(tests/test_server_private_tables.py)."""
os.environ.setdefault("GAMENIGHT_JOIN_RATE", TEST_JOIN_RATE)


def pytest_configure(config: Any) -> None:
    from django.conf import settings

    if settings.configured:  # (already read from the environment: the same relaxed rate)
        settings.GAMENIGHT["JOIN_RATE"] = os.environ["GAMENIGHT_JOIN_RATE"]
    _guard_flush()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """(pytest-django's, run just before the test database is made) Django's pool of the
    default database closed: one made earlier (``connection.pool``, as the server's pool
    statistics ask for it, is past pytest-django's guard) holds connections to the database
    the settings named *before* the test database existed, and Django makes the test database
    without closing it; every test of that worker then spoke to the development database
    (tests/test_suite_database.py)."""
    from server.games import dbpool

    dbpool.default_connection().close_pool()


def _guard_flush() -> None:
    """Between transactional tests pytest-django empties every table with one TRUNCATE (as
    the tables' owner, inside one transaction): the triggers that refuse TRUNCATE of the
    event log and of the chain heads are disabled for that transaction only."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    flush = DatabaseOperations.execute_sql_flush
    if getattr(flush, "gamenight_guarded", False):
        return

    def execute_sql_flush(self: Any, sql_list: list[str]) -> None:
        guards = [(t, g) for t, g in TRUNCATE_GUARDS.items()
                  if any(f'"{t}"' in stmt for stmt in sql_list)]
        pre = [f"ALTER TABLE {t} DISABLE TRIGGER {g}" for t, g in guards]
        post = [f"ALTER TABLE {t} ENABLE TRIGGER {g}" for t, g in guards]
        flush(self, [*pre, *sql_list, *post])

    execute_sql_flush.gamenight_guarded = True  # type: ignore[attr-defined]
    DatabaseOperations.execute_sql_flush = execute_sql_flush  # type: ignore[method-assign]


@pytest.fixture
async def loop_pool_closed() -> Any:
    """(Given to every async test that uses :func:`server_runtime`, by tests/conftest.py.)
    After the test, the event loop's database pool is closed in the test's own loop, before
    the loop ends: left open, its tasks were cancelled by the loop's end, and psycopg_pool's
    scheduler, cancelled while it ran a job, swallowed the cancel and waited for ever (a
    teardown that hung until the test's timeout, in one run in three)."""
    yield
    from server.games import dbpool

    await dbpool.ADB.aclose()


@pytest.fixture
def server_runtime(settings: Any) -> Iterator[Any]:
    """The server's per-process machinery, reset after the test: worker threads' database
    connections closed (so the test database can be flushed and dropped), caches dropped,
    bots run in threads."""
    from server.games import cache, dbpool, loopsubmit, runtime

    # (bots answer as soon as they have chosen: tests that check the pacing ask for it)
    settings.GAMENIGHT = {
        **settings.GAMENIGHT,
        "BOT_POOL": "thread",
        "BOT_WORKERS": 2,
        "BOT_PACE": 0.0,
        "BOT_WATCH_PACE": 0.0,
    }
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    snapshot_every = cache.SNAPSHOT_EVERY
    runtime.BOTS.shutdown()
    runtime.BOTS.bot_seats.clear()
    runtime.BOTS.enabled = True
    yield runtime
    pool = runtime.BOTS.pool
    runtime.BOTS.shutdown()
    if pool is not None:  # a bot still choosing (on a loaded machine it may take long)
        pool.shutdown(wait=True, cancel_futures=True)
    # ... and its job submitting the choice, where its event loop still runs; a job whose
    # loop ended with the test never finishes and is forgotten (it would hold every later
    # test's teardown for the whole deadline).
    deadline = time.time() + 60
    while live_bot_tasks(runtime.BOTS) and time.time() < deadline:
        time.sleep(0.02)
    runtime.BOTS.jobs.clear()
    runtime.BOTS.tasks.clear()
    runtime.BOTS.asked.clear()
    runtime.BOTS.inflight.clear()
    runtime.BOTS.bot_seats.clear()
    from server.leagues import ratings

    ratings.drain()  # (a game finished on the loop is rated in a thread of its own)
    runtime.SHARDS.close_connections()
    dbpool.ADB.forget()
    loopsubmit.ASYNC_LOCKS.clear()
    runtime.HUB.rooms.clear()
    runtime.HUB.loop = None
    if runtime.HUB.listener is not None:  # (the channel-layer reader of that test's loop)
        runtime.HUB.listener.cancel()
    runtime.HUB.listener = runtime.HUB.listener_loop = None
    from server.games import clocks

    clocks.forget()
    cache.drop_cache()
    cache.SNAPSHOT_EVERY = snapshot_every


def live_bot_tasks(bots: Any) -> list[Any]:
    """The bot runner's jobs still running on an event loop that runs."""
    return [t for t in list(bots.tasks) if not t.done() and t.get_loop().is_running()]


class Daphne:
    def __init__(self, port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.port = port
        self.proc = proc
        self.log = log
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}"
        self.app_name = ""

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]


def _die_with_parent() -> None:
    """(Linux) the daphne child gets SIGTERM if the test process dies first."""
    set_pdeathsig(signal.SIGTERM)


def daphne_env(name: str = "daphne", extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a daphne process serving the *test* database (passed in
    GAMENIGHT_DB_JSON) as the restricted app role, like a real server (the tests themselves
    connect as the tables' owner); its sessions are named ``gamenight-test-<name>-<pid>``."""
    from django.db import connection

    from server import dbconfig

    sd = connection.settings_dict
    db = {k: sd[k] for k in ("NAME", "USER", "PASSWORD", "HOST", "PORT")}
    app = dbconfig.app_credentials()
    if app is not None:
        db["USER"], db["PASSWORD"] = app
    db["OPTIONS"] = {
        k: v for k, v in (sd.get("OPTIONS") or {}).items() if isinstance(v, (str, int))
    }
    app_name = f"gamenight-test-{name}-{os.getpid()}"
    db["OPTIONS"]["application_name"] = app_name  # its sessions in pg_stat_activity
    env = dict(os.environ)
    env.update(
        {
            "GAMENIGHT_DB_JSON": json.dumps(db),
            "DJANGO_SETTINGS_MODULE": "server.settings",
            "GAMENIGHT_BOT_WORKERS": "2",
            "GAMENIGHT_BOT_TIME_LIMIT": "2",
            "GAMENIGHT_BOT_PACE": "0",
            "GAMENIGHT_BOT_WATCH_PACE": "0",
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        }
    )
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def start_daphne(
    tmp_path: Path, name: str = "daphne", extra_env: dict[str, str] | None = None,
    port: int | None = None,
) -> Daphne:
    """daphne as a real process on a free port (or ``port``: a restart where clients
    reconnect), on the *test* database (see :func:`daphne_env`). Bots think in its process
    pool."""
    # (its own analysis queue, kept across a restart of the same name: a match queued by an
    # earlier test's server is not taken up by this one after the database was flushed)
    env = daphne_env(name, {"GAMENIGHT_ANALYSIS_DIR": str(tmp_path / f"{name}-analysis"),
                            **(extra_env or {})})
    app_name = json.loads(env["GAMENIGHT_DB_JSON"])["OPTIONS"]["application_name"]
    # (another process may take a free port between the pick and daphne's bind: a loaded
    # run saw it; then another port, but never for a caller's own port, a restart)
    for _ in range(5 if port is None else 1):
        server = _spawn_daphne(tmp_path, name, env, port or free_port())
        server.app_name = app_name
        try:
            return _started(server)
        except PortTaken:
            pass
    pytest.fail(f"daphne could not listen: {server.output()}")


class PortTaken(Exception):
    """daphne exited at its start because its port was in use."""


def _spawn_daphne(tmp_path: Path, name: str, env: dict[str, str], port: int) -> Daphne:
    log = tmp_path / f"{name}.log"
    with open(log, "wb") as out:
        proc = spawn_daphne(port, env, out, _die_with_parent
                            if sys.platform.startswith("linux") else None)
    return Daphne(port, proc, log)


def _started(server: Daphne) -> Daphne:
    """``server`` once it says it listens and accepts connections (a connection alone could
    reach another process holding the port); :class:`PortTaken` if it exited for want of
    its port."""
    deadline = time.time() + 120  # (Django's start on a loaded machine: only a hang takes this)
    listening = f"Listening on TCP address 127.0.0.1:{server.port}"
    while True:
        if server.proc.poll() is not None:
            out = server.output()
            if "Address already in use" in out:
                raise PortTaken(out)
            pytest.fail(f"daphne exited: {out}")
        try:
            if listening in server.output():
                with socket.create_connection(("127.0.0.1", server.port), timeout=0.5):
                    return server
        except OSError:
            pass
        if time.time() > deadline:
            server.proc.kill()
            pytest.fail(f"daphne did not start: {server.output()}")
        time.sleep(0.1)


def stop_daphne(server: Daphne) -> None:
    """SIGTERM, then SIGKILL after 15 s: no assertion rests on it. (A daphne exits within
    about twice ``GAMENIGHT_STOP_GRACE``, 3 s, even with a request in flight whose view is
    still waiting: server/transport.py, ``install_stop``; before that fix such a daphne could
    hang at exit, docs/checks.md.)"""
    server.proc.terminate()
    try:
        server.proc.wait(15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(5)


@pytest.fixture
def daphne_server(transactional_db: Any, tmp_path: Path) -> Iterator[Daphne]:
    """One daphne process on the test database (see :func:`start_daphne`)."""
    server = start_daphne(tmp_path)
    try:
        yield server
    finally:
        stop_daphne(server)


@pytest.fixture
def daphne_pair(transactional_db: Any, tmp_path: Path) -> Iterator[list[Daphne]]:
    """Two daphne processes sharing the test database and Redis (REDIS_URL)."""
    servers = [start_daphne(tmp_path, f"daphne{i}") for i in range(2)]
    try:
        yield servers
    finally:
        for s in servers:
            stop_daphne(s)
