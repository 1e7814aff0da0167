"""The database threads: a few long-lived worker threads, which borrow a database connection
from the process's pool (:mod:`server.games.dbpool`) for a run of jobs and give it back after
:data:`RELEASE_AFTER` seconds without one. Work for a game always runs on thread
``game_id % N``, so one game's commits (and their broadcasts) keep their order while other
games proceed on other threads."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django.db import InterfaceError, OperationalError, connection
from psycopg import OperationalError as PsycopgOperationalError

from . import dbpool
from .dbpool import knob

log = logging.getLogger("server.games")

RELEASE_AFTER = 0.05
"""Seconds a worker thread waits for its next job before it gives its connection back."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


class Shards:
    """``n`` worker threads (None: ``GAMENIGHT_DB_SHARDS``, read from the settings when the
    first job comes)."""

    def __init__(self, n: int | None = None) -> None:
        self.wanted = n
        self.n = 1
        self.queues: list[queue.SimpleQueue[Any]] = []
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def _start(self) -> None:
        with self.lock:
            if self.queues:
                return
            self.n = max(1, int(knob("DB_SHARDS", 8) if self.wanted is None else self.wanted))
            qs: list[queue.SimpleQueue[Any]] = [queue.SimpleQueue() for _ in range(self.n)]
            for i, q in enumerate(qs):
                t = threading.Thread(
                    target=self._work, args=(q,), name=f"gamenight-db-{i}", daemon=True
                )
                t.start()
                self.threads.append(t)
            self.queues = qs

    @staticmethod
    def _work(q: queue.SimpleQueue[Any]) -> None:
        while True:
            try:
                item = q.get(timeout=RELEASE_AFTER)
            except queue.Empty:
                # Idle for a moment: give the connection back to the pool (docs/deploy.md,
                # "Connections"); under load a thread keeps it from one job to the next.
                _release_connection()
                item = q.get()
            if item is None:
                return
            fut, fn, args, kw = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                try:
                    res = fn(*args, **kw)
                except (OperationalError, InterfaceError, PsycopgOperationalError) as exc:
                    if dbpool.timed_out(exc):
                        raise  # (waiting as long again would not help)
                    # The server went away (restart): a new connection and once more. A
                    # command is safe to retry: its expected_seq makes a duplicate append
                    # fail as stale.
                    connection.close()
                    res = fn(*args, **kw)
            except BaseException as exc:
                fut.set_exception(exc)
            else:
                fut.set_result(res)

    def submit(
        self, key: int, fn: Callable[_P, _T], /, *args: _P.args, **kw: _P.kwargs
    ) -> concurrent.futures.Future[_T]:
        if not self.queues:
            self._start()
        fut: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self.queues[key % self.n].put((fut, fn, args, kw))
        return fut

    async def call(
        self, key: int, fn: Callable[_P, _T], /, *args: _P.args, **kw: _P.kwargs
    ) -> _T:
        return await asyncio.wrap_future(self.submit(key, fn, *args, **kw))

    def close_connections(self) -> None:
        """Close every worker thread's database connection (tests; before dropping a db)."""
        if not self.queues:
            return
        # (look the connection up inside the worker: ``connection`` is per thread)
        futs = [self.submit(i, _close_connections) for i in range(self.n)]
        concurrent.futures.wait(futs, timeout=10)


def _close_connections() -> None:
    from django.db import connections

    connections.close_all()


def _release_connection() -> None:
    """Give this thread's connection back to the pool (outside a transaction only)."""
    try:
        if connection.connection is not None and not connection.in_atomic_block:
            connection.close()
    except Exception:
        log.debug("could not release a connection", exc_info=True)


SHARDS = Shards()
