"""A game's lock is never held by a thread that waits for a pooled database connection.

Found by the soak (server/ops/soak.py, two daphne processes, docs/benchmarks-server.md): an
HTTP view holds its connection from its first query (``get_game``) and then waits for the
game's lock in ``store.entry``; a database thread took that lock first (a cache miss or a
refresh) and then waited for a connection, of which the view threads held them all. Both
waited until the pool gave up (``GAMENIGHT_DB_POOL_TIMEOUT``), again and again: 199 waiters
and 2 moves/s. Now a thread gets its connection before it takes a game's lock.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(90)]


def test_a_thread_takes_its_connection_before_a_games_lock(server_runtime: Any) -> None:
    from django.db import connection

    from server.games import store

    pool = getattr(connection, "pool", None)
    if pool is None:
        pytest.skip("no connection pool configured (GAMENIGHT_DB_POOL=0)")
    game = store.create_game("teeko", {}, [{"kind": "guest", "name": "a"},
                                           {"kind": "guest", "name": "b"}])
    gid = game.pk
    connection.close()  # (this thread's connection back to the pool)
    store.drop_cache()

    release = threading.Event()
    view_has_conn = threading.Event()
    results: dict[str, Any] = {}

    def holder(ready: threading.Event) -> None:  # a request busy elsewhere
        connection.ensure_connection()
        ready.set()
        release.wait(60)
        connection.close()

    def view() -> None:  # like views.state: a query first, then the game's entry
        try:
            connection.ensure_connection()
            view_has_conn.set()
            time.sleep(0.5)  # (the database thread below takes the game's lock meanwhile)
            results["view"] = store.entry(gid, fresh=True).seq
        except Exception as exc:
            results["view"] = exc
        finally:
            connection.close()

    def db_thread() -> None:  # like a catch-up on a shard thread: no connection yet
        view_has_conn.wait(30)
        try:
            results["db"] = store.entry(gid).seq
        except Exception as exc:
            results["db"] = exc
        finally:
            connection.close()

    holders = []
    for _ in range(pool.max_size - 1):
        ready = threading.Event()
        t = threading.Thread(target=holder, args=(ready,), daemon=True)
        t.start()
        assert ready.wait(30)
        holders.append(t)
    try:
        threads = [threading.Thread(target=view, daemon=True),
                   threading.Thread(target=db_thread, daemon=True)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        took = time.monotonic() - t0
    finally:
        release.set()
        for t in holders:
            t.join(10)
    assert results.get("view") == 1, results
    assert results.get("db") == 1, results  # before: PoolTimeout after the pool's timeout
    assert took < 5, took
