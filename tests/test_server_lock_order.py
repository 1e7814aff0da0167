"""A game's lock is never held by a thread that waits for a pooled database connection,
nor by the event loop while it waits for a database thread.

Found by the soak (bench/soak.py, two daphne processes, docs/benchmarks-server.md): an
HTTP view holds its connection from its first query (``get_game``) and then waits for the
game's lock in ``cache.entry``; a database thread took that lock first (a cache miss or a
refresh) and then waited for a connection, of which the view threads held them all. Both
waited until the pool gave up (``GAMENIGHT_DB_POOL_TIMEOUT``), again and again: 199 waiters
and 2 moves/s. Now a thread gets its connection before it takes a game's lock.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def test_a_thread_takes_its_connection_before_a_games_lock(server_runtime: Any) -> None:
    from django.db import connection

    from server.games import cache, creating

    pool = getattr(connection, "pool", None)
    if pool is None:
        pytest.skip("no connection pool configured (GAMENIGHT_DB_POOL=0)")
    game = creating.create_game("teeko", {}, [{"kind": "guest", "name": "a"},
                                           {"kind": "guest", "name": "b"}])
    gid = game.pk
    connection.close()  # (this thread's connection back to the pool)
    cache.drop_cache()

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
            # the database thread below is in cache.entry, waiting for the pool's last
            # connection (before the fix: holding the game's lock while it waited)
            deadline = time.monotonic() + 120
            while pool.get_stats().get("requests_waiting", 0) < 1:
                assert time.monotonic() < deadline, "the database thread never waited"
                time.sleep(0.005)
            results["view"] = cache.entry(gid, fresh=True).seq
        except Exception as exc:
            results["view"] = exc
        finally:
            connection.close()

    def db_thread() -> None:  # like a catch-up on a shard thread: no connection yet
        view_has_conn.wait(30)
        try:
            results["db"] = cache.entry(gid).seq
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


async def test_a_move_that_lost_its_seq_to_another_process_does_not_hold_the_lock(
    server_runtime: Any, monkeypatch: Any,
) -> None:
    """The event loop appends a move of a cached game while holding the game's lock; when
    another process had appended that seq first (UniqueViolation) it asked a database thread
    for the game's seq, still holding the lock, while that thread waited for the lock (a
    catch-up): both waited for ever, and with them every thread that then wanted that game
    (each holding a pool connection: the process's pool ran dry). Found by the two-process
    soak. Now the lock is let go first: the move is answered stale."""
    import asyncio

    from server.games import append, cache, creating, dbpool, runtime

    game = await runtime.SHARDS.call(0, creating.create_game, "teeko", {}, [
        {"kind": "guest", "name": "a"}, {"kind": "guest", "name": "b"}])
    gid = game.pk
    stale = await runtime.SHARDS.call(gid, cache.entry, gid)  # cached at seq 1
    # "another process" appends seq 2: this process's cache is left at seq 1
    cache.drop_cache(gid)
    legal = stale.game.legal_commands(stale.state, 0)
    await runtime.SHARDS.call(gid, append.submit, gid, 0, legal[0], 1)
    with cache._cache_lock:
        cache._cache[gid] = stale

    real_execute = dbpool.ADB.execute
    go = asyncio.Event()

    appending = asyncio.Event()
    wants_lock = threading.Event()

    async def slow_execute(sql: str, params: list[Any]) -> None:
        appending.set()
        await go.wait()  # (meanwhile a database thread wants the game's lock)
        await real_execute(sql, params)

    real_db_lock = cache.db_lock

    def db_lock(game_id: int) -> Any:
        lock = real_db_lock(game_id)
        wants_lock.set()  # (it is taken right after this returns)
        return lock

    monkeypatch.setattr(dbpool.ADB, "execute", slow_execute)
    monkeypatch.setattr(cache, "db_lock", db_lock)
    move = asyncio.ensure_future(runtime.submit(gid, 0, legal[1], 1))
    await asyncio.wait_for(appending.wait(), 60)  # the loop now holds the lock, in the append
    catch_up = runtime.SHARDS.submit(gid, cache.entry, gid, fresh=True)
    assert await asyncio.to_thread(wants_lock.wait, 60)
    go.set()
    with pytest.raises(append.StaleError) as refused:
        await asyncio.wait_for(move, 60)  # before: never answered
    assert refused.value.to_json()["seq"] == 2
    assert (await asyncio.wait_for(asyncio.wrap_future(catch_up), 60)).seq == 2
