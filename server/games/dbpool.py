"""Database connections, bounded per process by settings (docs/deploy.md, "Connections").

* **Sync work** (HTTP views, the shard threads of :mod:`server.games.shards`): Django's pool
  option for psycopg 3 (``DATABASES["default"]["OPTIONS"]["pool"]``, a
  ``psycopg_pool.ConnectionPool`` of at most ``GAMENIGHT_DB_POOL`` connections, set up in
  ``server/settings.py``). ``CONN_MAX_AGE`` is 0: a request borrows a connection and gives it
  back when it ends (Django closes it on ``request_finished``); a shard thread gives its
  connection back when it has had no job for 50 ms. Per-thread persistent connections leaked under
  ASGI (every request runs in a thread of its own, and each kept its connection).
* **The socket hot path** (:func:`server.games.loopsubmit.submit_async` on the event loop): a
  ``psycopg_pool.AsyncConnectionPool`` of at most ``GAMENIGHT_ASYNC_DB_CONNECTIONS``.

A caller that cannot get a connection within ``GAMENIGHT_DB_POOL_TIMEOUT`` seconds gets
``PoolTimeout``. :func:`unavailable` turns that (and a database that went away) into the
reason given to clients: socket ``error`` code ``unavailable``, HTTP 503, ``/healthz``.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import InterfaceError, OperationalError
from psycopg import AsyncConnection
from psycopg import OperationalError as PsycopgOperationalError
from psycopg_pool import AsyncConnectionPool, PoolTimeout

if TYPE_CHECKING:
    from django.db.backends.postgresql.base import DatabaseWrapper

BUSY = "no free database connection"
DOWN = "the database does not answer"


def knob(name: str, default: Any) -> Any:
    return getattr(settings, "GAMENIGHT", {}).get(name, default)


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in out and len(out) < 10:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a pool's ``PoolTimeout``."""
    return any(isinstance(e, PoolTimeout) for e in _chain(exc))


def unavailable(exc: BaseException) -> str | None:
    """:data:`BUSY` when ``exc`` says every connection of a pool was lent out, :data:`DOWN`
    when the database could not be reached (or went away in the middle), else None (a bug,
    not the database: the caller answers ``server_error``)."""
    chain = _chain(exc)
    if timed_out(exc):
        # The pool waited in vain: because all its connections were in use, or because it
        # could not open new ones. Ask the database directly which it is.
        return DOWN if probe() is not None else BUSY
    if any(isinstance(e, (PsycopgOperationalError, OperationalError, InterfaceError))
           for e in chain):
        return DOWN
    return None


_probe_lock = threading.Lock()
_probe_at = 0.0
_probe_error: str | None = None


def probe(max_age: float = 1.0) -> str | None:
    """None when a new connection to the database can be opened now, else why not. One
    connection outside the pools, at most one at a time per process, and at most once a
    second (the last answer is reused)."""
    global _probe_at, _probe_error
    import psycopg

    with _probe_lock:
        if time.monotonic() - _probe_at < max_age:
            return _probe_error
        try:
            with psycopg.connect(conninfo(), autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            _probe_error = None
        except Exception as exc:  # any failure to connect means "down"
            _probe_error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
        _probe_at = time.monotonic()
        return _probe_error


def conninfo() -> str:
    """The libpq connection string of Django's default database."""
    from django.db import connections
    from psycopg.conninfo import make_conninfo

    sd = connections["default"].settings_dict
    kw = {
        "dbname": sd["NAME"],
        "user": sd.get("USER") or None,
        "password": sd.get("PASSWORD") or None,
        "host": sd.get("HOST") or None,
        "port": str(sd["PORT"]) if sd.get("PORT") else None,
    }
    for k, v in (sd.get("OPTIONS") or {}).items():
        if isinstance(v, (str, int)) and k not in ("server_side_binding", "pool",
                                                   "prepare_threshold", "isolation_level",
                                                   "assume_role"):
            kw[k] = v
    return make_conninfo("", **{k: v for k, v in kw.items() if v is not None})


def default_connection() -> DatabaseWrapper:
    """This thread's connection to the default database: a PostgreSQL one (the only
    database gamenight runs on), with Django's ``pool`` and ``close_pool``."""
    from django.db import connections

    return cast("DatabaseWrapper", connections["default"])


def sync_pool() -> Any:
    """Django's pool for the default database (None when pooling is off)."""
    return default_connection().pool


def stats() -> dict[str, Any]:
    """Sizes and use of this process's pools (for ``/healthz``)."""
    out: dict[str, Any] = {}
    pool = sync_pool()
    if pool is not None:
        s = pool.get_stats()
        out["sync"] = {"max": pool.max_size, "open": s.get("pool_size", 0),
                       "idle": s.get("pool_available", 0),
                       "waiting": s.get("requests_waiting", 0)}
    if ADB.pool is not None:
        s = ADB.pool.get_stats()
        out["async"] = {"max": ADB.size, "open": s.get("pool_size", 0),
                        "idle": s.get("pool_available", 0),
                        "waiting": s.get("requests_waiting", 0)}
    return out


def new_async_pool(dsn: str, size: int, timeout: float,
               configure: Callable[[AsyncConnection[Any]], Awaitable[None]] | None = None,
               ) -> AsyncConnectionPool[Any]:
    """A new (not yet open) pool of at most ``size`` autocommit connections to ``dsn`` for
    the event loop; callers wait up to ``timeout`` seconds for one. While the database is
    away it keeps trying to connect (:func:`server.dbconfig.reconnect_options`)."""
    from server import dbconfig

    return AsyncConnectionPool(
        dsn, kwargs={"autocommit": True}, min_size=1, max_size=max(1, size), timeout=timeout,
        max_idle=60, open=False, name="gamenight-async", num_workers=1, configure=configure,
        **dbconfig.reconnect_options(float(knob("DB_RECONNECT_MAX_DELAY", 2.0)),
                                     asynchronous=True),
    )


class AsyncDB:
    """Autocommit psycopg ``AsyncConnection``s on the event loop (``psycopg_pool``'s
    ``AsyncConnectionPool``): the socket hot path appends a move without leaving the loop
    (no thread hop, no GIL ping-pong). The pool belongs to the loop it was opened on.
    Its size and wait (``GAMENIGHT_ASYNC_DB_CONNECTIONS``, ``GAMENIGHT_DB_POOL_TIMEOUT``)
    are read from the settings when the pool is opened, unless given here."""

    def __init__(self, size: int | None = None, timeout: float | None = None) -> None:
        self.given = (size, timeout)
        self.size = 0
        self.pool: AsyncConnectionPool[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.opening: asyncio.Lock | None = None
        self.conns: weakref.WeakSet[AsyncConnection[Any]] = weakref.WeakSet()
        """The pool's connections (to close them when the pool's loop is gone)."""

    async def _pool(self) -> AsyncConnectionPool[Any]:
        loop = asyncio.get_running_loop()
        if self.pool is not None and self.loop is loop:
            return self.pool
        if self.loop is not loop or self.opening is None:
            self.forget()
            self.loop = loop
            self.opening = asyncio.Lock()
        async with self.opening:
            if self.pool is None:
                size, timeout = self.given
                self.size = max(1, int(knob("ASYNC_DB_CONNECTIONS", 4) if size is None
                                       else size))
                wait = float(knob("DB_POOL_TIMEOUT", 10.0) if timeout is None else timeout)
                pool = new_async_pool(conninfo(), self.size, wait, configure=self._opened)
                await pool.open(wait=False)
                self.pool = pool
        return self.pool

    async def _opened(self, conn: AsyncConnection[Any]) -> None:
        self.conns.add(conn)

    async def execute(self, sql: str, params: list[Any]) -> None:
        pool = await self._pool()
        try:
            await self._execute(pool, sql, params)
        except PoolTimeout:
            raise
        except PsycopgOperationalError:
            # The server went away (restart): drop the dead idle connections and try once
            # more. Safe: a move that did get committed fails the retry as a duplicate
            # (game, seq).
            await pool.check()
            await self._execute(pool, sql, params)

    @staticmethod
    async def _execute(pool: AsyncConnectionPool[Any], sql: str, params: list[Any]) -> None:
        async with pool.connection() as conn:
            await conn.execute(sql, params, prepare=True)

    async def aclose(self) -> None:
        """Close the pool from the loop it belongs to (the one running this), waiting for
        its tasks to end: a loop that ends with the pool open cancels its tasks, and
        psycopg_pool's scheduler swallows a cancel that comes while it runs a job and then
        waits for ever (the loop never ends). Nothing when the pool is another loop's."""
        pool = self.pool
        if pool is None or self.loop is not asyncio.get_running_loop():
            return
        self.pool = self.loop = self.opening = None
        try:
            await asyncio.wait_for(pool.close(timeout=5), 15)
        finally:
            self.conns = weakref.WeakSet()

    def forget(self) -> None:
        """Close every connection (also from another thread, or after the loop died)."""
        pool, loop = self.pool, self.loop
        self.pool = self.loop = self.opening = None
        if pool is None:
            return
        if loop is not None and loop.is_running() and not loop.is_closed():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                task = loop.create_task(pool.close())
                _closing.add(task)
                task.add_done_callback(_closing.discard)
            else:
                try:
                    asyncio.run_coroutine_threadsafe(pool.close(), loop).result(5)
                except Exception:
                    pass
            return
        if loop is not None and not loop.is_closed():
            # The loop has stopped but is not closed yet (a test's loop between the test and
            # its end): close the pool in it, so that none of the pool's tasks is left for
            # the loop's end to cancel (psycopg_pool's scheduler swallows a cancel that
            # comes while it runs a job, then waits for ever: the loop never ended).
            try:
                loop.run_until_complete(asyncio.wait_for(pool.close(timeout=5), 15))
                self.conns = weakref.WeakSet()
                return
            except Exception:
                pass  # (another loop runs in this thread, or the close failed: as below)
        # The loop is gone, and the pool's workers with it (its close() cannot run): close
        # its connections themselves.
        for conn in list(self.conns):
            try:
                conn.pgconn.finish()
            except Exception:
                pass
        self.conns = weakref.WeakSet()


_closing: set[asyncio.Task[None]] = set()

ADB = AsyncDB()
