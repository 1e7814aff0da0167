"""Database connections are bounded by settings (docs/deploy.md, "Connections"): a real
daphne, real sockets, the real (test) PostgreSQL. HTTP requests do not leak connections; a
command that cannot get a connection, or finds the database gone, gets exactly one answer
(``unavailable``, with its ref) and appends nothing; ``/healthz`` tells "busy" from "down"."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets
from server_fixtures import start_daphne, stop_daphne
from server_helpers import Client, close_all, http

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

APP = "gamenight-pool-test"


def db_json(host: str | None = None, port: str | None = None) -> str:
    """The test database for daphne (as the app role, like start_daphne), its connections
    named ``APP`` (to count them)."""
    from django.db import connection

    from server import dbconfig

    sd = connection.settings_dict
    user, password = dbconfig.app_credentials() or (sd["USER"], sd["PASSWORD"])
    return json.dumps({
        "NAME": sd["NAME"], "USER": user, "PASSWORD": password,
        "HOST": host if host is not None else sd["HOST"],
        "PORT": port if port is not None else str(sd["PORT"]),
        "OPTIONS": {"application_name": APP},
    })


def direct() -> psycopg.Connection[Any]:
    """A connection of the test's own, outside every pool."""
    from django.db import connection

    sd = connection.settings_dict
    return psycopg.connect(dbname=sd["NAME"], user=sd["USER"], password=sd["PASSWORD"] or None,
                           host=sd["HOST"], port=str(sd["PORT"]), autocommit=True)


def backends() -> int:
    """daphne's backends on the test database. (Of another role's sessions PostgreSQL shows
    only pid, database and user: daphne's are told by its role, else by their name.)"""
    from server import dbconfig

    app = dbconfig.app_credentials()
    with direct() as conn:
        if app is not None:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND usename = %s", [app[0]]).fetchone()
        else:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = %s", [APP]).fetchone()
    return int(row[0]) if row else 0


def start(tmp_path: Path, **env: str) -> Any:
    return start_daphne(tmp_path, extra_env={"GAMENIGHT_DB_JSON": db_json(), **env})


async def player(server: Any, game: dict[str, Any], seat: int) -> Client:
    ws = await websockets.connect(f"{server.ws}/ws/games/{game['id']}/")
    c = Client(ws.send, ws.recv, f"seat{seat}")
    c.ws = ws  # type: ignore[attr-defined]
    w = await c.hello(seat, secret=game["guest_secrets"][str(seat)])
    assert w["type"] == "welcome", w
    return c


def new_game(server: Any) -> dict[str, Any]:
    status, g = http(server, "POST", "/api/games/", {
        "kind": "teeko", "seats": [{"kind": "guest"}, {"kind": "guest"}]})
    assert status == 201, g
    return g


async def blocked_on(conn: psycopg.Connection[Any], table: str) -> None:
    """Wait until some session waits for a lock on ``table`` (up to 2 minutes: a hang)."""
    for _ in range(2400):
        row = conn.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
            " WHERE c.relname = %s AND NOT l.granted", [table]).fetchone()
        if row and row[0]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"nobody waits on {table}")


async def answers(c: Client, ref: str, quiet: float = 1.0) -> list[dict[str, Any]]:
    """Every ok/error frame about ``ref`` until nothing comes for ``quiet`` seconds."""
    await c.drain(quiet)
    return [f for f in c.frames if f.get("ref") == ref and f["type"] in ("ok", "error")]


def test_http_requests_stay_inside_the_pool(transactional_db: Any, tmp_path: Path) -> None:
    """30 sequential and 24 concurrent state requests: PostgreSQL never sees more backends
    from the server than its pools allow (before: one more per request, kept open)."""
    server = start(tmp_path, GAMENIGHT_DB_POOL="3", GAMENIGHT_ASYNC_DB_CONNECTIONS="2")
    try:
        g = new_game(server)
        for _ in range(30):
            status, body = http(server, "GET", f"/api/games/{g['id']}/state/")
            assert status == 200, body
        assert 1 <= backends() <= 3 + 2
        results: list[int] = []

        def one() -> None:
            results.append(http(server, "GET", f"/api/games/{g['id']}/state/?events=1")[0])

        threads = [threading.Thread(target=one) for _ in range(24)]
        for t in threads:
            t.start()
        peak = 0
        while any(t.is_alive() for t in threads):
            peak = max(peak, backends())
            time.sleep(0.02)
        assert results == [200] * 24
        assert max(peak, backends()) <= 3 + 2
        status, health = http(server, "GET", "/healthz")
        assert status == 200 and health["pools"]["sync"]["max"] == 3
    finally:
        stop_daphne(server)


async def test_no_free_connection(transactional_db: Any, tmp_path: Path) -> None:
    """Every connection is held (appends wait on a table lock): a command on another game
    gets one ``unavailable`` answer with its ref, nothing is appended and its table hears
    nothing; HTTP answers 503 JSON; ``/healthz`` says "busy". After the lock all goes on."""
    server = start(tmp_path, GAMENIGHT_DB_POOL="1", GAMENIGHT_ASYNC_DB_CONNECTIONS="1",
                   GAMENIGHT_DB_POOL_TIMEOUT="1")
    lock = direct()
    try:
        ga, gb = new_game(server), new_game(server)
        a0, a1 = await player(server, ga, 0), await player(server, ga, 1)
        b0, b1 = await player(server, gb, 0), await player(server, gb, 1)
        lock.execute("BEGIN")
        lock.execute("LOCK TABLE games_event IN SHARE MODE")  # (inserts wait)
        await a0.send({"type": "command", "command": {"type": "place", "to": "a1"},
                       "expected_seq": a0.seq, "ref": "a-1"})
        await blocked_on(lock, "games_event")  # (the one async connection waits on the lock)
        t0 = time.monotonic()
        answer = await b0.command({"type": "place", "to": "a1"}, ref="b-1")
        assert time.monotonic() - t0 < 5
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        assert answer["reason"] == "no free database connection"
        # The sync pool: a state request holds its only connection (games are locked too).
        lock.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")
        held = asyncio.ensure_future(asyncio.to_thread(
            http, server, "GET", f"/api/games/{ga['id']}/state/"))
        await blocked_on(lock, "games_game")  # (the one sync connection waits too)
        status, body = await asyncio.to_thread(http, server, "GET", f"/api/games/{gb['id']}/")
        assert status == 503 and body["error"]["code"] == "unavailable", body
        status, health = await asyncio.to_thread(http, server, "GET", "/healthz")
        assert status == 503 and health["database"] == "busy", health
        assert health["reason"] == "no free database connection"
        lock.execute("COMMIT")
        assert (await held)[0] == 200
        assert [f["type"] for f in await answers(a0, "a-1")] == ["ok"]
        assert [f["type"] for f in await answers(b0, "b-1")] == ["error"]
        assert b0.seq == b1.seq == 1 and not [f for f in b1.frames[2:] if f["type"] == "events"]
        assert (await b0.command({"type": "place", "to": "a1"}))["type"] == "ok"
        await b1.sync_to(2)
        with direct() as conn:
            rows = conn.execute("SELECT count(*) FROM games_event WHERE game_id = %s",
                                [gb["id"]]).fetchone()
        assert rows == (2,)
        await close_all([a0, a1, b0, b1])
    finally:
        with contextlib.suppress(Exception):
            lock.close()
        stop_daphne(server)


async def test_a_pool_lent_for_a_moment_is_healthy(transactional_db: Any, tmp_path: Path) -> None:
    """The only sync connection is held for about 2 s (a state request waiting on a lock):
    ``/healthz`` waits for it as a request would (the pool timeout: 60 s here, so that only a
    hang reaches it) and answers 200. It said 503 "busy" after a second, so a balancer took a
    working daphne out under load."""
    server = start(tmp_path, GAMENIGHT_DB_POOL="1", GAMENIGHT_DB_POOL_TIMEOUT="60")
    lock = direct()
    try:
        g = new_game(server)
        lock.execute("BEGIN")
        lock.execute("LOCK TABLE games_game IN ACCESS EXCLUSIVE MODE")
        held = asyncio.ensure_future(asyncio.to_thread(
            http, server, "GET", f"/api/games/{g['id']}/state/"))
        await blocked_on(lock, "games_game")  # (the one sync connection waits)
        health = asyncio.ensure_future(asyncio.to_thread(http, server, "GET", "/healthz"))
        await asyncio.sleep(2)
        lock.execute("COMMIT")
        status, body = await health
        assert status == 200 and body["database"] == "ok", body
        assert (await held)[0] == 200
    finally:
        with contextlib.suppress(Exception):
            lock.close()
        stop_daphne(server)


class Proxy:
    """TCP on 127.0.0.1 to the embedded PostgreSQL's Unix socket; ``down()`` cuts every
    connection and refuses new ones (the database is gone), ``up()`` brings it back."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.port = 0
        self.conns: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.up()

    def up(self) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(64)
        self.port = s.getsockname()[1]
        self.listener = s
        threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def _accept(self, s: socket.socket) -> None:
        while True:
            try:
                client, _ = s.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.target)
            self.conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def down(self) -> None:
        if self.listener is not None:
            with contextlib.suppress(OSError):  # (wakes the thread blocked in accept())
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            self.listener = None
        for s in self.conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self.conns.clear()


async def test_database_down(transactional_db: Any, tmp_path: Path) -> None:
    """The database goes away under a running game: a command gets one ``unavailable``
    answer with its ref within seconds, the other seat nothing, ``/healthz`` says "down";
    when the database is back the game goes on with nothing lost or doubled."""
    from django.db import connection

    sd = connection.settings_dict
    if not str(sd["HOST"]).startswith("/"):
        pytest.skip("needs the embedded PostgreSQL on a Unix socket")
    proxy = Proxy(f"{sd['HOST']}/.s.PGSQL.{sd['PORT']}")
    server = start_daphne(tmp_path, extra_env={
        "GAMENIGHT_DB_JSON": db_json("127.0.0.1", str(proxy.port)),
        "GAMENIGHT_DB_POOL_TIMEOUT": "1"})
    try:
        g = new_game(server)
        p0, p1 = await player(server, g, 0), await player(server, g, 1)
        assert (await p0.command({"type": "place", "to": "a1"}))["type"] == "ok"
        await p1.sync_to(2)
        proxy.down()
        answer = await p1.command({"type": "place", "to": "b1"}, ref="down-1")  # (not a hang)
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        assert answer["reason"] == "the database does not answer"
        status, health = await asyncio.to_thread(http, server, "GET", "/healthz")
        assert status == 503 and health["database"] == "down", health
        assert [f["type"] for f in await answers(p1, "down-1", 0.5)] == ["error"]
        assert p0.seq == p1.seq == 2
        proxy.up()
        back = time.monotonic()
        while True:  # (the pools reconnect with a capped backoff: "unavailable" until then)
            answer = await p1.command({"type": "place", "to": "b1"})
            if answer["type"] == "ok" or time.monotonic() - back > 120:
                break
            assert answer["code"] == "unavailable", answer
            await asyncio.sleep(0.25)
        assert answer["type"] == "ok", answer
        await p0.sync_to(3)
        assert [e["seq"] for e in p0.events] == [1, 2, 3] == [e["seq"] for e in p1.events]
        while True:
            status, health = await asyncio.to_thread(http, server, "GET", "/healthz")
            if status == 200 or time.monotonic() - back > 120:
                break
            await asyncio.sleep(0.25)
        assert status == 200, health
        await close_all([p0, p1])
    finally:
        stop_daphne(server)
        proxy.down()


def _unix_socket_target() -> str:
    """The test PostgreSQL's Unix socket (the proxy's target), or skip."""
    from django.db import connection

    target = "/var/run/postgresql/.s.PGSQL.5432"
    sd = connection.settings_dict
    if str(sd["HOST"]).startswith("/"):
        target = f"{sd['HOST']}/.s.PGSQL.{sd['PORT']}"
    elif not Path(target).exists():
        pytest.skip("needs PostgreSQL on a Unix socket")
    return target


def _proxied_conninfo(proxy: Proxy) -> str:
    from django.db import connection

    sd = connection.settings_dict
    return (f"host=127.0.0.1 port={proxy.port} dbname={sd['NAME']} user={sd['USER']}"
            + (f" password={sd['PASSWORD']}" if sd.get("PASSWORD") else ""))


OUTAGE = 17.0
"""Seconds the database is away: psycopg_pool alone tries 1, 3, 7 and 15 s (each +-10 %)
into the outage, then not before about 28 s."""
BACK_WITHIN = 8.0
"""Seconds after the database is back within which a waiting request has its connection."""


async def test_pools_reconnect_soon_after_an_outage(django_db_setup: Any) -> None:
    """During an outage the server's pools keep trying to connect, never more than
    ``GAMENIGHT_DB_RECONNECT_MAX_DELAY`` (2 s) apart, even with one request waiting and
    nothing else asking; once the database is back that request gets its connection within
    seconds. The sync pool is built with the options settings.py gives Django, the event
    loop's by :func:`server.games.dbpool.new_async_pool`. psycopg_pool alone backs off 1, 2, 4,
    8 ... s without a ceiling: with the database back 9 s after the first failed attempt,
    the next came 6 s later (so /healthz said "busy" and every request was refused in
    between; the CI failure of test_database_down); after this outage, 11 s or more."""
    from django.conf import settings
    from psycopg_pool import ConnectionPool

    from server.games import dbpool

    proxy = Proxy(_unix_socket_target())
    dsn = _proxied_conninfo(proxy)
    options = {**settings.DATABASES["default"]["OPTIONS"]["pool"], "name": "outage-test"}
    sync: ConnectionPool[Any] = ConnectionPool(
        dsn, open=True, check=ConnectionPool.check_connection, **options)
    loop_pool = dbpool.new_async_pool(dsn, 2, 120)
    got: dict[str, float] = {}

    def sync_request() -> None:
        with sync.connection(timeout=120) as conn:
            conn.execute("SELECT 1")
        got["sync"] = time.monotonic()

    async def loop_request() -> None:
        async with loop_pool.connection(timeout=120) as conn:
            await conn.execute("SELECT 1")
        got["async"] = time.monotonic()

    try:
        await asyncio.to_thread(sync.wait, 60)
        await loop_pool.open(wait=True, timeout=60)
        proxy.down()
        await loop_pool.check()  # (as AsyncDB.execute does when a connection fails)
        waiting = [asyncio.ensure_future(asyncio.to_thread(sync_request)),
                   asyncio.ensure_future(loop_request())]
        await asyncio.sleep(OUTAGE)
        assert got == {} and not any(w.done() for w in waiting), waiting
        proxy.up()
        back = time.monotonic()
        await asyncio.wait_for(asyncio.gather(*waiting), 120)
        late = {k: round(t - back, 1) for k, t in got.items()}
        print(f"connections back {late} s after the database")
        assert max(late.values()) < BACK_WITHIN, late
    finally:
        sync.close()
        await loop_pool.close()
        proxy.down()


async def test_a_failing_command_is_answered_once_with_its_ref(server_runtime: Any,
                                                               monkeypatch: Any) -> None:
    """A command whose handling raises gets one ``server_error`` carrying its ref (before:
    the error had no ref, so the sender could not tell which command it answered); one that
    finds no connection gets ``unavailable`` with its ref, and nothing is appended."""
    from psycopg_pool import PoolTimeout
    from server_helpers import communicator

    from server.games import append, creating, dbpool, runtime

    game = await runtime.SHARDS.call(0, creating.create_game, "teeko", {},
                                     [{"kind": "guest"}, {"kind": "guest"}])
    c = await communicator(game.pk)
    await c.hello(0, secret=game.guest_secrets[0])

    async def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(runtime, "submit", broken)
    answer = await c.command({"type": "place", "to": "a1"}, ref="bug-1")
    assert (answer["type"], answer["code"]) == ("error", "server_error")

    async def no_connection(*args: Any) -> Any:
        raise PoolTimeout("couldn't get a connection after 10.00 sec")

    monkeypatch.setattr(runtime, "submit", no_connection)
    monkeypatch.setattr(dbpool, "probe", lambda max_age=1.0: None)  # (the database answers)
    answer = await c.command({"type": "place", "to": "a1"}, ref={"n": 2})
    assert answer["code"] == "unavailable" and answer["reason"] == dbpool.BUSY
    await c.drain(0.3)
    assert [f["ref"] for f in c.frames if f["type"] == "error"] == ["bug-1", {"n": 2}]
    assert await runtime.SHARDS.call(0, append.current_seq, game.pk) == 1
    await close_all([c])


def test_forgetting_the_loops_pool_leaves_no_task_in_its_loop(transactional_db: Any) -> None:
    """A test's event loop, stopped but not yet closed, has used the loop's pool; forgetting
    the pool (the server fixture's teardown) closes it in that loop, so that its end has
    nothing to cancel. Before: the pool's scheduler and worker tasks were left there, and a
    scheduler cancelled while it ran a job swallowed the cancel and waited for ever (a
    loaded run's teardown hung until the 90 s timeout)."""
    from server.games import dbpool

    db = dbpool.AsyncDB(2, 10.0)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(db.execute("SELECT 1", []))
        assert [t for t in asyncio.all_tasks(loop) if not t.done()]  # (the pool's own)
        db.forget()
        left = [t for t in asyncio.all_tasks(loop) if not t.done()]
        assert left == [], left
        assert db.pool is None
    finally:
        loop.close()


def test_a_pool_whose_idle_connections_were_all_killed_lends_a_live_one(
        transactional_db: Any) -> None:
    """Every idle connection of the sync pool was killed (a database restart, backends
    terminated): the next borrower gets a live connection within the pool's wait. Before:
    psycopg_pool checks the idle connections one per attempt and waits 1, 2, 4 ... s between
    attempts, so four dead ones used up the 10 s wait (PoolTimeout in a shard thread, seen in
    the whole suite where the pool had grown; alone it held one or two)."""
    from django.db import connection

    pool = connection.pool
    assert pool is not None
    n = min(6, pool.max_size)
    pids: list[int] = []
    barrier = threading.Barrier(n)

    def hold() -> None:
        with pool.connection(timeout=120) as conn:
            pids.append(conn.info.backend_pid)
            barrier.wait(timeout=120)  # all n lent at once: the pool grows to n

    threads = [threading.Thread(target=hold) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert len(set(pids)) == n
    deadline = time.monotonic() + 120
    while pool.get_stats().get("pool_available", 0) < n and time.monotonic() < deadline:
        time.sleep(0.05)  # (given back: the pool resets each before it is idle again)
    with direct() as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [pids])

    def borrow() -> int:  # as a shard thread does; the pool's own wait (10 s)
        from django.db import connection as thread_connection

        try:
            with thread_connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                return int(cur.fetchone()[0])
        finally:
            thread_connection.close()

    with ThreadPoolExecutor(1) as one:
        assert one.submit(borrow).result(timeout=180) not in pids
