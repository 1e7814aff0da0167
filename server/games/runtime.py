"""Per-process machinery between the store and the sockets.

* :class:`Shards`: a few long-lived worker threads, which borrow a database connection from
  the process's pool (:mod:`server.games.dbpool`) for a run of jobs and give it back after
  :data:`RELEASE_AFTER` seconds without one. Work for a game always runs on thread
  ``game_id % N``, so one game's commits (and their broadcasts) keep their order while other
  games proceed on other threads.
* :class:`Hub`: which sockets watch which game. After each commit (``transaction.on_commit``)
  the committing thread builds one frame per distinct viewer (seat or spectator), redacted by
  the core, and hands them to the event loop, which queues them on each socket. No channel
  layer on the hot path; with ``REDIS_URL`` set, other processes are told too (channels_redis
  group ``game-<id>``, one channel per process: :meth:`Hub.subscribe`) and their sockets
  catch up from the log.
* :class:`BotRunner`: bots think in a process pool (or threads), never on the event loop, and
  submit through :func:`server.games.store.submit` like anyone else.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import gc
import itertools
import json
import logging
import multiprocessing
import os
import queue
import secrets
import signal
import struct
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from django.db import InterfaceError, OperationalError, connection
from psycopg import OperationalError as PsycopgOperationalError
from psycopg.errors import UniqueViolation

from core.api import ALL, SPECTATOR, IllegalMoveError, dumps

from . import botworker, clocks, dbpool, store

log = logging.getLogger("server.games")

PROCESS_ID = secrets.token_hex(6)
CATCHUP_CHUNK = 500


knob = dbpool.knob
"""A ``settings.GAMENIGHT`` value (``knob("DB_SHARDS", 8)``)."""


# --------------------------------------------------------------------------- shards


RELEASE_AFTER = 0.05
"""Seconds a worker thread waits for its next job before it gives its connection back."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


class Shards:
    def __init__(self, n: int) -> None:
        self.n = max(1, n)
        self.queues: list[queue.SimpleQueue[Any]] = []
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def _start(self) -> None:
        with self.lock:
            if self.queues:
                return
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


SHARDS = Shards(int(knob("DB_SHARDS", 8)))


# --------------------------------------------------------------------------- async path


ADB = dbpool.ADB
AWAY_GAMES = int(os.environ.get("GAMENIGHT_AWAY_GAMES", "4096"))
"""The most games whose presence times (:attr:`Hub.left_at`) a process keeps."""
ASYNC_LOCKS: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
"""One asyncio lock per game while a submit holds it (weak: the table does not grow with the
number of games ever played)."""


async def submit(game_id: int, seat: int, command: Any, expected_seq: Any) -> store.SubmitResult:
    """The socket path of :func:`server.games.store.submit`: same checks, same statement,
    run on the event loop when the game is cached and no thread is busy with it (else on the
    game's worker thread). ``{"type": "replace_with_bot", "seat": K}`` is the table's, not
    the game's: see :func:`server.games.clocks.replace_with_bot`."""
    store.check_expected(expected_seq)
    if isinstance(command, dict) and command.get("type") == "replace_with_bot":
        away = HUB.away(game_id, command.get("seat"))
        return await SHARDS.call(
            game_id, clocks.replace_with_bot, game_id, seat, command, expected_seq, away
        )
    if not knob("ASYNC_DB", True):
        return await SHARDS.call(game_id, store.submit, game_id, seat, command, expected_seq)
    alock = ASYNC_LOCKS.get(game_id)
    if alock is None:
        alock = ASYNC_LOCKS[game_id] = asyncio.Lock()
    async with alock:
        e = store._cache.get(game_id)
        tlock = store.game_lock(game_id)
        if e is None or expected_seq > e.seq or not tlock.acquire(blocking=False):
            return await SHARDS.call(game_id, store.submit, game_id, seat, command, expected_seq)
        try:
            if expected_seq != e.seq:
                raise store.StaleError(expected_seq, e.seq)
            move = store.Move(e, seat, command, store.new_rng())
            try:
                await ADB.execute(move.sql, move.params)
            except UniqueViolation:
                store.drop_cache(game_id)  # (another process appended that seq first)
            except Exception:
                store.drop_cache(game_id)
                raise
            else:
                return move.committed()
        finally:
            tlock.release()
        # Outside the game's lock: the database thread that answers may be waiting for it
        # (a catch-up, a bot's move), and it waited for ever while this held the lock
        # (tests/test_server_lock_order.py).
        seq = await SHARDS.call(game_id, store.current_seq, game_id)
        raise store.StaleError(expected_seq, seq)


# --------------------------------------------------------------------------- frames


def ws_text_frame(payload: bytes) -> bytes:
    """A complete server-to-client WebSocket text message (RFC 6455: FIN + opcode 1, no mask,
    no extension) around ``payload`` (UTF-8)."""
    n = len(payload)
    if n <= 125:
        head = bytes((0x81, n))
    elif n <= 0xFFFF:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + payload


class Frame:
    """One text frame that several sockets receive (every spectator of a game, a seat with
    two connections, presence): UTF-8 encoding and WebSocket framing are done once, on the
    first socket that needs them, and the same bytes are written to every other one."""

    __slots__ = ("_wire", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._wire: bytes | None = None

    @property
    def wire(self) -> bytes:
        if self._wire is None:
            self._wire = ws_text_frame(self.text.encode())
        return self._wire


def events_frame(
    e: store.Entry, recs: list[store.Record], state: Any, viewer: int, with_view: bool = True
) -> str:
    frame: dict[str, Any] = {
        "type": "events",
        "game": e.game_id,
        "from": recs[0][0] if recs else None,
        "to": recs[-1][0] if recs else e.seq,
        "events": store.redact_records(e, recs, viewer),
    }
    if with_view:
        frame.update(store.viewer_view(e, state, viewer))
        clock = clocks.frame_clock(e, frame["to"], state, viewer)
        if clock is not None:
            frame["clock"] = clock
    return json.dumps(frame, separators=(",", ":"))


def finished_frame(e: store.Entry, state: Any, seq: int, outcome: Any) -> str:
    return json.dumps(
        {
            "type": "finished",
            "game": e.game_id,
            "seq": seq,
            "outcome": outcome.to_json(),
            "view": e.game.view(state, ALL),
        },
        separators=(",", ":"),
    )


def catchup_frames(
    game_id: int, viewer: int, after: int
) -> tuple[int, list[tuple[int, str]], str | None]:
    """(head seq, [(last seq, frame)], finished frame or None): everything after ``after``
    for ``viewer``, in chunks, the view of the head state on the last frame (always at least
    one frame); the ``finished`` frame when the game is over."""
    e = store.entry(game_id, fresh=True)
    clocks.ensure(e)
    with store.game_lock(game_id):
        head, state, recs = e.seq, e.state, e.log[max(after, 0) : e.seq]
    out: list[tuple[int, str]] = []
    for i in range(0, max(len(recs), 1), CATCHUP_CHUNK):
        chunk = recs[i : i + CATCHUP_CHUNK]
        last = i + CATCHUP_CHUNK >= len(recs)
        out.append((chunk[-1][0] if chunk else head, events_frame(e, chunk, state, viewer, last)))
    outcome = e.game.outcome(state)
    final = finished_frame(e, state, head, outcome) if outcome is not None else None
    return head, out, final


# --------------------------------------------------------------------------- hub


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class Room:
    def __init__(self) -> None:
        self.conns: set[Any] = set()
        self.viewers: dict[int, int] = {}
        self.seats: list[dict[str, Any]] = []
        self.bot_seats: dict[int, str] = {}


class Hub:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.rooms: dict[int, Room] = {}
        self.lock = threading.Lock()
        self.layer: Any = None
        self.layer_checked = False
        # With REDIS_URL: this process's one channel in the groups ``game-<id>`` of the games
        # it has sockets on, and the task that reads it (see :meth:`subscribe`).
        self.hub_channel: str | None = None
        self.listener: asyncio.Task[None] | None = None
        self.listener_loop: asyncio.AbstractEventLoop | None = None
        self.pending_drops: set[asyncio.Task[None]] = set()
        # Redis pub/sub keeps nothing for a subscriber whose connection is down: the
        # reconciler compares the heads of the games watched here with what was told.
        self.reconciler: asyncio.Task[None] | None = None
        # When (monotonic) each seat's last socket here closed, and when this process first
        # had a socket on each game: how long a seat has been away (abandoned seats).
        # Kept for games with no socket here too (a seat away for long may be given to a bot),
        # up to AWAY_GAMES games, oldest first out; forgotten when a finished game's last
        # socket closes.
        self.left_at: dict[tuple[int, int], float] = {}
        self.seen_at: collections.OrderedDict[int, float] = collections.OrderedDict()

    def set_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is not loop:
            self.loop = loop
            freeze_startup_heap()

    def live_loop(self) -> asyncio.AbstractEventLoop | None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return None
        return loop

    def channel_layer(self) -> Any:
        if not self.layer_checked:
            self.layer_checked = True
            if os.environ.get("REDIS_URL"):
                from channels.layers import get_channel_layer

                self.layer = get_channel_layer()
        return self.layer

    # -- other processes (event loop thread) --
    async def subscribe(self, game_id: int) -> None:
        """Hear of other processes' moves in ``game_id`` (with ``REDIS_URL``). One channel per
        process is in the group ``game-<id>``, not one per socket: a move costs one Redis
        message per process that has sockets on the game, whatever the number of sockets,
        and this process tells its own sockets (:meth:`notify`). Called at each ``hello``
        (which also keeps the membership from expiring)."""
        layer = self.channel_layer()
        if layer is None:
            return
        loop = asyncio.get_running_loop()
        if self.listener_loop is not loop or self.listener is None or self.listener.done():
            self.listener_loop = loop
            self.hub_channel = await layer.new_channel()
            self.listener = loop.create_task(self._listen(layer, self.hub_channel))
            every = float(knob("REDIS_RECONCILE", 5.0))
            if every > 0:
                self.reconciler = loop.create_task(self._reconcile(every))
        assert self.hub_channel is not None
        await layer.group_add(f"game-{game_id}", self.hub_channel)

    async def _listen(self, layer: Any, channel: str) -> None:
        while True:
            try:
                msg = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("channel layer receive failed; retrying in 1 s", exc_info=True)
                await asyncio.sleep(1)
                continue
            if msg.get("type") == "game.notify" and msg.get("origin") != PROCESS_ID:
                try:
                    self.notify(int(msg["game"]), int(msg.get("seq", 0)))
                except Exception:
                    log.exception("could not pass on a notification: %r", msg)

    async def _reconcile(self, every: float) -> None:
        """Every ``every`` seconds, the log heads of the games this process has sockets on
        (one query, the chain-head table), passed on as notifications: a notification
        lost while this process's Redis subscription was down is made good within that time
        (pub/sub keeps no backlog). Sockets already up to date ignore it."""
        while True:
            await asyncio.sleep(every)
            games = list(self.rooms)
            if not games:
                continue
            try:
                heads = await SHARDS.call(games[0], log_heads, games)
            except Exception:
                log.warning("could not read the log heads to reconcile", exc_info=True)
                continue
            for game_id, seq in heads.items():
                self.notify(game_id, seq)

    def notify(self, game_id: int, seq: int) -> None:
        """Another process appended events up to ``seq``: the sockets here read the log."""
        room = self.rooms.get(game_id)
        if room is not None:
            for conn in list(room.conns):
                conn.notified(seq)

    def _unsubscribe(self, game_id: int) -> None:
        layer, channel, loop = self.layer, self.hub_channel, self.listener_loop
        if layer is None or channel is None or loop is None or not _on_loop(loop):
            return

        async def drop() -> None:
            group = f"game-{game_id}"
            with contextlib.suppress(Exception):
                await layer.group_discard(group, channel)
                if game_id in self.rooms:  # a socket joined again meanwhile
                    await layer.group_add(group, channel)

        task = loop.create_task(drop())
        self.pending_drops.add(task)
        task.add_done_callback(self.pending_drops.discard)

    # -- membership (event loop thread) --
    def join(self, game_id: int, conn: Any) -> Room:
        with self.lock:
            room = self.rooms.setdefault(game_id, Room())
            self.seen_at.setdefault(game_id, time.monotonic())
            room.conns.add(conn)
            room.viewers[conn.viewer] = room.viewers.get(conn.viewer, 0) + 1
            return room

    def leave(self, game_id: int, conn: Any) -> None:
        with self.lock:
            room = self.rooms.get(game_id)
            if room is None or conn not in room.conns:
                return
            room.conns.discard(conn)
            if conn.seat is not None and not any(c.seat == conn.seat for c in room.conns):
                self.left_at[(game_id, conn.seat)] = time.monotonic()
            n = room.viewers.get(conn.viewer, 0) - 1
            if n > 0:
                room.viewers[conn.viewer] = n
            else:
                room.viewers.pop(conn.viewer, None)
            if not room.conns:
                self.rooms.pop(game_id, None)
                self._unsubscribe(game_id)
                e = store._cache.get(game_id)
                if e is not None and e.finished:  # nobody watches a finished game: forget it
                    store.drop_cache(game_id)
                    BOTS.forget(game_id)
                    self._forget_away(game_id)
                self._bound_away()

    def _forget_away(self, game_id: int) -> None:
        """(under ``self.lock``) the presence times of a game."""
        if self.seen_at.pop(game_id, None) is not None:
            for key in [k for k in self.left_at if k[0] == game_id]:
                del self.left_at[key]

    def _bound_away(self) -> None:
        """(under ``self.lock``) at most AWAY_GAMES games' presence times: the games first
        seen longest ago and with no socket here go first."""
        most = AWAY_GAMES
        if len(self.seen_at) <= most:
            return
        for game_id in list(self.seen_at):
            if len(self.seen_at) <= most:
                break
            if game_id not in self.rooms:
                self._forget_away(game_id)

    def away(self, game_id: int, seat: Any) -> float | None:
        """Seconds seat ``seat`` has had no socket on this process (None: it has one). A
        seat never seen here counts from when this process first had a socket on the game."""
        with self.lock:
            room = self.rooms.get(game_id)
            if room is not None and any(c.seat == seat for c in room.conns):
                return None
            now = time.monotonic()
            since = self.seen_at.get(game_id, now)
            if isinstance(seat, int):
                since = max(since, self.left_at.get((game_id, seat), since))
            return now - since

    def viewer_ids(self, game_id: int) -> list[int]:
        with self.lock:
            room = self.rooms.get(game_id)
            return list(room.viewers) if room is not None else []

    # -- after commit (committing thread) --
    def on_batch(self, batch: store.Batch) -> None:
        loop = self.live_loop()
        viewers = self.viewer_ids(batch.game_id)
        if loop is not None and viewers:
            e = batch.entry
            # One frame per distinct viewer (seat, spectator), shared by its sockets.
            frames = {v: Frame(events_frame(e, batch.records, batch.state, v)) for v in viewers}
            final = None
            if batch.outcome is not None:
                final = Frame(finished_frame(e, batch.state, batch.seq, batch.outcome))
            if _on_loop(loop):
                self.deliver(batch, frames, final)  # (ordered before the sender's "ok")
            else:
                loop.call_soon_threadsafe(self.deliver, batch, frames, final)
        layer = self.channel_layer()
        if layer is not None and loop is not None:
            msg = {"type": "game.notify", "origin": PROCESS_ID, "game": batch.game_id,
                   "seq": batch.seq}
            asyncio.run_coroutine_threadsafe(layer.group_send(f"game-{batch.game_id}", msg), loop)
        BOTS.after_batch(batch)

    # -- event loop thread --
    def deliver(self, batch: store.Batch, frames: dict[int, Frame], final: Frame | None) -> None:
        room = self.rooms.get(batch.game_id)
        if room is None:
            return
        for conn in list(room.conns):
            frame = frames.get(conn.viewer)
            if frame is None:
                frame = Frame(events_frame(batch.entry, batch.records, batch.state, conn.viewer))
                frames[conn.viewer] = frame
            conn.push_live(batch.first_seq, batch.seq, frame)
            if final is not None:
                conn.push_final(final)
        if final is not None or batch.records[0][2].get("type") == "start":
            self.send_presence(batch.game_id)

    def broadcast(self, game_id: int, text: str, audience: frozenset[int] | None = None) -> None:
        """Send ``text`` to every socket of the room, or only to those whose viewer is in
        ``audience``."""
        room = self.rooms.get(game_id)
        if room is not None:
            frame = Frame(text)
            for conn in list(room.conns):
                if audience is None or conn.viewer in audience:
                    conn.push_text(frame)

    def broadcast_threadsafe(
        self, game_id: int, text: str, audience: frozenset[int] | None = None
    ) -> None:
        loop = self.live_loop()
        if loop is not None:
            loop.call_soon_threadsafe(self.broadcast, game_id, text, audience)

    def presence(self, game_id: int) -> dict[str, Any]:
        room = self.rooms.get(game_id)
        seats: list[dict[str, Any]] = []
        spectators = 0
        to_act: list[int] = []
        if room is not None:
            connected = {c.seat for c in room.conns if c.seat is not None}
            spectators = sum(1 for c in room.conns if c.seat is None)
            seats = []
            for s in room.seats:
                on = s["seat"] in connected or s["kind"] == "bot"
                away = None
                if not on and s.get("taken"):  # (whole seconds: see replace_with_bot)
                    seconds = self.away(game_id, s["seat"])
                    away = int(seconds) if seconds is not None else None
                seats.append(dict(s, connected=on, away=away))
        e = store._cache.get(game_id)
        if e is not None:
            to_act = e.game.visible_to_act(e.state, SPECTATOR)  # the room hears this
        return {
            "type": "presence",
            "game": game_id,
            "seats": seats,
            "spectators": spectators,
            "to_act": to_act,
        }

    def send_presence(self, game_id: int) -> None:
        self.broadcast(game_id, json.dumps(self.presence(game_id), separators=(",", ":")))

    def on_seats_changed(self, game_id: int) -> None:
        """(committing thread) a seat was taken: reload seat info, tell the room."""
        loop = self.live_loop()
        if loop is None or game_id not in self.rooms:
            return
        info = seat_info(game_id)
        loop.call_soon_threadsafe(self._set_seats, game_id, info)

    def _set_seats(self, game_id: int, info: list[dict[str, Any]]) -> None:
        room = self.rooms.get(game_id)
        if room is not None:
            room.seats = info
            self.send_presence(game_id)


_FROZEN = False


def freeze_startup_heap() -> None:
    """Once per process, when the server starts serving, tune the cyclic garbage collector,
    whose collections stop the event loop (every move in flight waits):

    * ``gc.freeze()``: everything allocated so far (Django, the rules, daphne: ~100k
      objects, never garbage) is left out of every later collection. A full collection
      under load took 62-164 ms of CPU before, 53-109 ms after.
    * generation-0 threshold 700 -> ``GAMENIGHT_GC_GEN0`` (20000): a socket's or a game's
      objects live some seconds; with collections every 700 allocations they were promoted
      to the old generation and, with tables coming and going, triggered a full collection
      every few seconds. With 20000 most die before any collection sees them: no full
      collection in a 15 s latency run, young collections of 10-17 ms instead.

    ``GAMENIGHT_GC_FREEZE=0`` leaves the collector alone."""
    global _FROZEN
    on = os.environ.get("GAMENIGHT_GC_FREEZE", "1") not in ("", "0")
    if _FROZEN or not knob("GC_FREEZE", on):
        return
    _FROZEN = True
    gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(int(os.environ.get("GAMENIGHT_GC_GEN0", "20000")), gen1, gen2)


def log_heads(game_ids: list[int]) -> dict[int, int]:
    """(worker thread) {game id: number of events in its log}."""
    from .models import ChainHead

    return dict(ChainHead.objects.filter(game_id__in=game_ids).values_list("game_id", "events"))


def seat_info(game_id: int) -> list[dict[str, Any]]:
    from .models import Seat

    return [
        {
            "seat": s.number,
            "kind": s.kind,
            "name": s.name,
            "taken": s.filled,
            "bot_level": s.bot_level or None,
            "replaced": store.seat_replaced(s),
        }
        for s in Seat.objects.filter(game_id=game_id).order_by("number")
    ]


HUB = Hub()


# --------------------------------------------------------------------------- bots


_SYSTEM_RANDOM = secrets.SystemRandom()
TICK = 0.25
"""Seconds between the progress frames of a paced bot question."""


@dataclass(frozen=True)
class Ask:
    """One bot question as the runner treats it (see :meth:`BotRunner.question`)."""

    seq: int
    audience: frozenset[int] | None
    """Who may hear the bot think (None: everybody; the empty set: nobody)."""
    wait: float
    """Seconds from the question before the answer is submitted (0: as soon as it is
    chosen)."""


def bot_frame(game_id: int, seat: int, seq: int, share: float) -> str:
    return json.dumps(
        {"type": "bot", "game": game_id, "seat": seat, "seq": seq, "progress": round(share, 3)}
    )


class BotRunner:
    """Starts a bot whenever a game waits for a bot seat; at most one job per (game, seat)."""

    def __init__(self) -> None:
        self.inflight: set[tuple[int, int]] = set()
        self.jobs: dict[int, tuple[int, int]] = {}
        self.job_ids = itertools.count(1)
        self.pool: concurrent.futures.Executor | None = None
        self.lock = threading.Lock()
        self.bot_seats: dict[int, dict[int, str]] = {}
        self.progress_queue: Any = None
        self.enabled = True
        self.failures: dict[tuple[int, int], int] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.asked: dict[tuple[int, int], Ask] = {}

    def _seats(self, game_id: int) -> dict[int, str]:
        seats = self.bot_seats.get(game_id)
        if seats is None:
            from .models import Seat

            seats = {
                s.number: s.bot_level or "random"
                for s in Seat.objects.filter(game_id=game_id, kind=Seat.BOT)
            }
            self.bot_seats[game_id] = seats
            # (a cache of the seat rows: the oldest go first beyond the cache's size)
            while len(self.bot_seats) > store.CACHE_SIZE:
                self.bot_seats.pop(next(iter(self.bot_seats)), None)
        return seats

    def _executor(self) -> concurrent.futures.Executor:
        with self.lock:
            if self.pool is None:
                workers = int(knob("BOT_WORKERS", 1))
                if knob("BOT_POOL", "process") == "thread":
                    botworker.set_sink(self._progress)
                    self.pool = concurrent.futures.ThreadPoolExecutor(workers, "gamenight-bot")
                else:
                    ctx = multiprocessing.get_context("spawn")
                    self.progress_queue = ctx.Queue()
                    self.pool = concurrent.futures.ProcessPoolExecutor(
                        workers,
                        mp_context=ctx,
                        initializer=botworker.init,
                        initargs=(self.progress_queue, os.getpid()),
                    )
                    threading.Thread(
                        target=self._read_progress, daemon=True, name="gamenight-bot-progress"
                    ).start()
                    # Run before concurrent.futures' own exit hook (these run last first),
                    # which would wait for a bot that is thinking.
                    register = getattr(threading, "_register_atexit", None)
                    if register is not None:
                        register(self._kill_workers)
            return self.pool

    def _kill_workers(self) -> None:
        """(process exit) end the bot workers at once: a daphne that stops must not wait for a
        bot to finish thinking (up to ``BOT_TIME_LIMIT`` seconds). Workers also die by
        themselves when this process is gone (:func:`server.lifeline.die_with_parent`)."""
        pool = self.pool
        if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    proc.kill()

    def _read_progress(self) -> None:
        q = self.progress_queue
        while True:
            try:
                job, share = q.get()
            except (EOFError, OSError):
                return
            self._progress(job, share)

    def _progress(self, job: int, share: float) -> None:
        """(any thread) the bot's own progress report: passed on unless the question is
        paced (then the frames tell the share of the wait instead, see :meth:`_tick`)."""
        where = self.jobs.get(job)
        ask = self.asked.get(where) if where is not None else None
        if where is None or ask is None or ask.wait > 0 or ask.audience == frozenset():
            return
        frame = bot_frame(where[0], where[1], ask.seq, share)
        HUB.broadcast_threadsafe(where[0], frame, ask.audience)

    @staticmethod
    def question(game: Any, state: Any, seat: int, seq: int, view: Any) -> Ask:
        """How the runner treats a bot's question at ``seq`` (see docs/protocol.md, "What
        each viewer sees"):

        * who may hear the bot think: the viewers whose ``visible_to_act`` lists the seat;
        * a question whose existence is secret for someone (Teka's throw-in) is answered no
          sooner than a person might: after a random third of ``BOT_SECRET_DELAY`` to all
          of it;
        * a decision made on what only this seat knows (its view holds one of the
          spectator's secrets: a Teka hand) is answered after a random half of
          ``BOT_PACE`` to all of it, whatever the bot's thinking took (which grows with the
          number of cards it may play, and is nothing for a forced card); its progress
          frames then tell the share of that wait.
        """
        viewers = [SPECTATOR, *range(game.seats(state))]
        told = frozenset(v for v in viewers if seat in game.visible_to_act(state, v))
        audience = None if len(told) == len(viewers) else told
        if audience is not None:
            most = float(knob("BOT_SECRET_DELAY", 4.0))
            return Ask(seq, audience, _SYSTEM_RANDOM.uniform(most / 3, most))
        pace = float(knob("BOT_PACE", 1.0))
        if pace > 0:
            text = dumps(view)
            if any(dumps(x) in text for x in game.secrets(state, SPECTATOR)):
                return Ask(seq, None, _SYSTEM_RANDOM.uniform(pace / 2, pace))
        return Ask(seq, None, 0.0)

    def forget(self, game_id: int) -> None:
        """A finished game: drop what the runner remembered of it."""
        self.bot_seats.pop(game_id, None)
        for key in [k for k in self.failures if k[0] == game_id]:
            self.failures.pop(key, None)

    def after_batch(self, batch: store.Batch) -> None:
        """(committing thread) start bots the game now waits for."""
        if batch.outcome is not None:
            self.forget(batch.game_id)
        if not self.enabled or batch.outcome is not None:
            return
        self._start_for(batch.game_id, batch.entry, batch.state, batch.seq)

    def kick(self, game_id: int) -> None:
        """(worker thread) look at the game's current state and start bots if needed."""
        try:
            e = store.entry(game_id, fresh=True)
        except store.NotFound:
            return
        with store.game_lock(game_id):
            state, seq = e.state, e.seq
        if e.game.outcome(state) is None:
            self._start_for(game_id, e, state, seq)

    def _start_for(self, game_id: int, e: store.Entry, state: Any, seq: int) -> None:
        loop = HUB.live_loop()
        if loop is None:
            return
        bots = self.bot_seats.get(game_id)
        if bots is None:
            if _on_loop(loop):  # no database access on the event loop: look on a worker
                SHARDS.submit(game_id, self.kick, game_id)
                return
            bots = self._seats(game_id)
        if not bots:
            return
        for seat in e.game.to_act(state):
            if seat not in bots:
                continue
            with self.lock:
                if (game_id, seat) in self.inflight:
                    continue
                self.inflight.add((game_id, seat))
            view = e.game.view(state, seat)
            self.asked[(game_id, seat)] = self.question(e.game, state, seat, seq, view)
            loop.call_soon_threadsafe(self._launch, game_id, e.kind, seat, bots[seat], seq, view)

    def _launch(self, game_id: int, kind: str, seat: int, level: str, seq: int, view: Any) -> None:
        task = asyncio.ensure_future(self._run(game_id, kind, seat, level, seq, view))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(
        self, game_id: int, kind: str, seat: int, level: str, seq: int, view: Any
    ) -> None:
        job = next(self.job_ids)
        log.debug("bot job %s: game %s seat %s level %s seq %s", job, game_id, seat, level, seq)
        self.jobs[job] = (game_id, seat)
        loop = asyncio.get_running_loop()
        asked_at = loop.time()
        ask = self.asked.get((game_id, seat))
        ticker = None
        if ask is not None and ask.wait > 0 and ask.audience != frozenset():
            ticker = asyncio.ensure_future(self._tick(game_id, seat, ask, asked_at))
        try:
            seed = secrets.randbits(64)
            limit = float(knob("BOT_TIME_LIMIT", 10.0))
            if self.failures.get((game_id, seat), 0) >= 3:
                level = "random"  # a bot that keeps failing falls back to random moves
            command = await loop.run_in_executor(
                self._executor(), botworker.choose, kind, view, seat, level, seed, job, limit
            )
            if command is None:
                return
            if ask is not None and ask.wait > loop.time() - asked_at:
                await asyncio.sleep(ask.wait - (loop.time() - asked_at))
            await SHARDS.call(game_id, self._submit, game_id, seat, command, seq, dumps(view))
            self.failures.pop((game_id, seat), None)
        except IllegalMoveError as exc:
            log.warning("bot %s/%s refused: %s %s", game_id, seat, exc.code, exc.reason)
            self.failures[(game_id, seat)] = self.failures.get((game_id, seat), 0) + 1
        except Exception:
            log.exception("bot %s/%s failed", game_id, seat)
            self.failures[(game_id, seat)] = self.failures.get((game_id, seat), 0) + 1
            if self.failures[(game_id, seat)] > 6:
                return  # give up on this seat until something else happens in the game
        finally:
            if ticker is not None:
                ticker.cancel()
            self.jobs.pop(job, None)
            with self.lock:
                self.inflight.discard((game_id, seat))
                self.asked.pop((game_id, seat), None)
        # Look again: the same seat may be to act again (a trick winner leads), which the
        # commit of this very move could not start while this job was still in flight.
        if self.enabled:
            SHARDS.submit(game_id, self.kick, game_id)

    @staticmethod
    async def _tick(game_id: int, seat: int, ask: Ask, start: float) -> None:
        """(event loop) progress frames of a paced question: the share of its wait."""
        loop = asyncio.get_running_loop()
        share = 0.0
        while True:
            HUB.broadcast(game_id, bot_frame(game_id, seat, ask.seq, share), ask.audience)
            if share >= 1.0:
                return
            await asyncio.sleep(TICK)
            share = min(1.0, (loop.time() - start) / ask.wait)

    @staticmethod
    def _submit(game_id: int, seat: int, command: Any, seq: int, view_dump: str) -> str:
        try:
            store.submit(game_id, seat, command, seq)
            return "ok"
        except store.StaleError:
            # Others acted meanwhile (Tedoku: everyone places at once). If what this bot
            # sees is unchanged, its choice still stands: submit it at the current seq.
            e = store.entry(game_id, fresh=True)
            with store.game_lock(game_id):
                state, now = e.state, e.seq
                if seat in e.game.to_act(state) and dumps(e.game.view(state, seat)) == view_dump:
                    store.submit(game_id, seat, command, now)
                    return "ok"
            return "rethink"

    def shutdown(self) -> None:
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


BOTS = BotRunner()


def install() -> None:
    """Hook the hub into the store (called from AppConfig.ready)."""
    die_with = os.environ.get("GAMENIGHT_DIE_WITH", "")
    if die_with.isdigit():  # a daphne of server.run: stop when server.run is gone
        from server import lifeline

        # On Linux the kernel signals us (PR_SET_PDEATHSIG, set before exec); this covers a
        # server.run that died before that, and other systems.
        lifeline.die_with_parent(int(die_with), signal.SIGTERM,
                                 watchdog=not sys.platform.startswith("linux"))
    if os.environ.get("GAMENIGHT_TEEKO_BUILD"):  # (an operator's: see solved.py)
        from . import solved

        solved.build_at_start()
    if os.environ.get("GAMENIGHT_HEAP_PROFILE"):
        from server.ops import heapprofile

        heapprofile.start(os.environ["GAMENIGHT_HEAP_PROFILE"])
    interval = os.environ.get("GAMENIGHT_SWITCH_INTERVAL")
    if interval:
        sys.setswitchinterval(float(interval))
    if clocks.on_batch not in store.LISTENERS:
        store.LISTENERS.insert(0, clocks.on_batch)  # (before the hub: frames show the clock)
    if HUB.on_batch not in store.LISTENERS:
        store.LISTENERS.append(HUB.on_batch)
    if HUB.on_seats_changed not in store.SEAT_LISTENERS:
        store.SEAT_LISTENERS.append(HUB.on_seats_changed)
