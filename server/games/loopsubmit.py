"""A seat's command appended from the event loop (the socket hot path): the store's append
(:mod:`.append`: the same stale check, statement and cache) executed on the loop's own
connections (:data:`server.games.dbpool.ADB`) when the game is cached and no thread is busy
with it, else :func:`server.games.append.submit` on the game's database thread
(:mod:`.shards`). The store imports nothing of this layer.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from psycopg.errors import UniqueViolation

from .append import StaleError, SubmitResult, check_expected, current_seq, decided, submit
from .cache import cached, drop_cache, game_lock
from .dbpool import ADB, knob
from .shards import SHARDS

ASYNC_LOCKS: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
"""One asyncio lock per game while :func:`submit_async` holds it (weak: the table does not
grow with the number of games ever played)."""


async def submit_async(
    game_id: int, seat: int, command: Any, expected_seq: Any
) -> SubmitResult:
    """(async face, the event loop) :func:`submit` with the same checks and statement, run
    on the event loop (:data:`server.games.dbpool.ADB`) when the game is cached and no thread
    is busy with it, else :func:`submit` on the game's database thread."""
    check_expected(expected_seq)
    if not knob("ASYNC_DB", True):
        return await SHARDS.call(game_id, submit, game_id, seat, command, expected_seq)
    alock = ASYNC_LOCKS.get(game_id)
    if alock is None:
        alock = ASYNC_LOCKS[game_id] = asyncio.Lock()
    async with alock:
        e = cached(game_id)
        tlock = game_lock(game_id)
        if e is None or expected_seq > e.seq or not tlock.acquire(blocking=False):
            return await SHARDS.call(game_id, submit, game_id, seat, command, expected_seq)
        try:
            batch = decided(e, seat, command, expected_seq, None, None)
            try:
                await ADB.execute(*batch.statements[0])
            except UniqueViolation:
                drop_cache(game_id)  # (another process appended that seq first)
            except Exception:
                drop_cache(game_id)
                raise
            else:
                return batch.committed()
        finally:
            tlock.release()
        # Outside the game's lock: the database thread that answers may be waiting for it
        # (a catch-up, a bot's move), and it waited for ever while this held the lock
        # (tests/test_server_lock_order.py).
        seq = await SHARDS.call(game_id, current_seq, game_id)
        raise StaleError(expected_seq, seq)
