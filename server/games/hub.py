"""Which sockets watch which game (:class:`Hub`). After each commit (``transaction.on_commit``)
the committing thread builds one frame per distinct viewer (seat or spectator), redacted by
the core, and hands them to the event loop, which queues them on each socket. No channel
layer on the hot path; with ``REDIS_URL`` set, other processes are told too (channels_redis
group ``game-<id>``, one channel per process: :meth:`Hub.subscribe`) and their sockets catch
up from the log."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from django.conf import settings

from core.api import SPECTATOR

from . import cache, listeners, seating
from .dbpool import knob
from .frames import Frame, events_frame, finished_frame
from .shards import SHARDS

log = logging.getLogger("server.games")

PROCESS_ID = secrets.token_hex(6)


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class Socket(Protocol):
    """A game socket as the hub, and whoever finds one through it, sees it
    (:class:`server.games.consumers.GameConsumer`): who it is, and the few things it may be
    asked to do. Its other state is its own."""

    @property
    def seat(self) -> int | None: ...

    @property
    def viewer(self) -> int: ...

    def push_text(self, item: str | Frame) -> None:
        """Send a frame after everything sent to it before."""

    def push_live(self, first: int, last: int, text: str | Frame) -> None:
        """A committed batch of events ``first..last`` (in order; gaps are read from the log)."""

    def push_final(self, text: str | Frame) -> None:
        """The ``finished`` frame (sent once, after the events before it)."""

    def notified(self, seq: int) -> None:
        """Another process appended events up to ``seq``."""

    def revoke_seat(self, text: str, code: int) -> None:
        """Its seat is no longer its own: ``text`` is its last frame, then it closes with
        ``code``."""


class Room:
    def __init__(self) -> None:
        self.conns: set[Socket] = set()
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
        # up to GAMENIGHT_AWAY_GAMES games, oldest first out; forgotten when a finished
        # game's last socket closes.
        self.left_at: dict[tuple[int, int], float] = {}
        self.seen_at: collections.OrderedDict[int, float] = collections.OrderedDict()
        self.forgetting: list[Callable[[int], None]] = []
        """Called with a finished game's id when its last socket here closes (the bot
        runner forgets the game: :func:`server.games.runtime.install`)."""

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
            if settings.REDIS_URL:
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
        if layer is None or channel is None or loop is None or not on_loop(loop):
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
    def join(self, game_id: int, conn: Socket) -> Room:
        with self.lock:
            room = self.rooms.setdefault(game_id, Room())
            self.seen_at.setdefault(game_id, time.monotonic())
            room.conns.add(conn)
            room.viewers[conn.viewer] = room.viewers.get(conn.viewer, 0) + 1
            return room

    def leave(self, game_id: int, conn: Socket) -> None:
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
                e = cache.cached(game_id)
                if e is not None and e.finished:  # nobody watches a finished game: forget it
                    cache.drop_cache(game_id)
                    for forget in self.forgetting:
                        forget(game_id)
                    self._forget_away(game_id)
                self._bound_away()

    def _forget_away(self, game_id: int) -> None:
        """(under ``self.lock``) the presence times of a game."""
        if self.seen_at.pop(game_id, None) is not None:
            for key in [k for k in self.left_at if k[0] == game_id]:
                del self.left_at[key]

    def _bound_away(self) -> None:
        """(under ``self.lock``) at most ``GAMENIGHT_AWAY_GAMES`` games' presence times: the
        games first seen longest ago and with no socket here go first."""
        most = int(knob("AWAY_GAMES", 4096))
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
    def on_batch(self, batch: listeners.Batch) -> None:
        loop = self.live_loop()
        viewers = self.viewer_ids(batch.game_id)
        if loop is not None and viewers:
            e = batch.entry
            # One frame per distinct viewer (seat, spectator), shared by its sockets.
            frames = {v: Frame(events_frame(e, batch.records, batch.state, v)) for v in viewers}
            final = None
            if batch.outcome is not None:
                final = Frame(finished_frame(e, batch.state, batch.seq, batch.outcome))
            if on_loop(loop):
                self.deliver(batch, frames, final)  # (ordered before the sender's "ok")
            else:
                loop.call_soon_threadsafe(self.deliver, batch, frames, final)
        layer = self.channel_layer()
        if layer is not None and loop is not None:
            msg = {"type": "game.notify", "origin": PROCESS_ID, "game": batch.game_id,
                   "seq": batch.seq}
            asyncio.run_coroutine_threadsafe(layer.group_send(f"game-{batch.game_id}", msg), loop)

    # -- event loop thread --
    def deliver(
        self, batch: listeners.Batch, frames: dict[int, Frame], final: Frame | None
    ) -> None:
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
        e = cache.cached(game_id)
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
    if _FROZEN or not knob("GC_FREEZE", True):
        return
    _FROZEN = True
    gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(int(knob("GC_GEN0", 20000)), gen1, gen2)


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
            "replaced": seating.seat_replaced(s),
        }
        for s in Seat.objects.filter(game_id=game_id).order_by("number")
    ]


HUB = Hub()
