"""The game socket: /ws/games/<id>/ (protocol in docs/protocol.md).

A connection says ``hello`` (seat + credentials, or spectator; the last seq it has), gets
what it missed, then live frames, each redacted for its viewer. Commands go through
:func:`server.games.append.submit` on the game's worker thread; the frames come from the hub
after commit. Every frame a connection receives goes through one outbox, in order.

A :class:`GameConsumer` owns its state. Others reach it through the hub
(:class:`server.games.hub.Socket` is all they see) and may only read its ``seat`` and
``viewer``, hand it frames (``push_text``, ``push_live``, ``push_final``), tell it that
another process appended events (``notified``), and revoke its seat (``revoke_seat``).

It is an ASGI application of its own, written against the ASGI WebSocket messages only
(``websocket.connect``/``receive``/``disconnect`` in, ``accept``/``send``/``close`` out):
no channels consumer underneath. A channels consumer would give every socket a channel of
the channel layer (this server hears of other processes' moves on one channel per process:
:meth:`server.games.hub.Hub.subscribe`) and hop to a thread before every message to close
stale database connections (this consumer never touches the database on the event loop).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from core.api import ALL, SPECTATOR, IllegalMoveError
from server import transport

from . import cache, dbpool, runtime, seating
from .inputs import BadInput, loads, shown
from .inputs import reason as safe_reason
from .runtime import HUB, SHARDS, Frame

log = logging.getLogger("server.games")

MAX_BACKLOG = 10000
"""Frames queued for one socket before it is closed as not reading (code 1013)."""

MAX_BUFFERED = 8 * 1024 * 1024
"""Bytes waiting in a socket's send buffer (direct path) before it is closed as not reading."""

Outgoing = str | Frame


def _err(code: str, reason: str, **extra: Any) -> str:
    return json.dumps({"type": "error", "code": code, "reason": safe_reason(reason), **extra})


def too_large_frame(limit: int) -> str:
    """The ``error`` frame for a client frame over ``limit`` bytes (the socket then closes
    with 1009); sent by this consumer or, under daphne, by :mod:`server.transport` before
    the frame is even read."""
    return _err("too_large", f"frames are limited to {limit} bytes")


def frame_bytes(text: str, limit: int) -> int:
    """The UTF-8 size of ``text`` when it may be over ``limit``, else its length."""
    return len(text.encode("utf-8", "surrogatepass")) if 4 * len(text) > limit else len(text)


def _hello_sync(game_id: int, seat: Any, token: Any, secret: Any,
                cookie: Any = None) -> dict[str, Any]:
    """(worker thread) check the game and the credentials; seat info for presence. A seat
    named with neither a token nor a secret may be held by the user of the browser's session
    cookie (``cookie``: a member's seat on the seat page)."""
    from .models import Game

    g = (
        Game.objects.filter(pk=game_id)
        .values("id", "kind", "options", "status", "num_seats")
        .first()
    )
    if g is None:
        return {"error": ("not_found", f"no game {game_id}")}
    if seat is not None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < g["num_seats"]:
            return {"error": ("wrong_seat", f"no seat {shown(seat)} at this table")}
        user = seating.user_for_token(token) if token else None
        if user is None and not token and not secret and cookie:
            from .accounts import session_cookie_user

            user = session_cookie_user(cookie)
        if not seating.seat_holder_ok(game_id, seat, user=user, secret=secret):
            return {"error": ("forbidden", f"these credentials do not hold seat {seat}")}
    e = cache.entry(game_id, fresh=True)
    return {"game": g, "seats": runtime.seat_info(game_id), "finished": e.finished}


Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]


class GameConsumer:
    game_id: int
    viewer: int = SPECTATOR
    seat: int | None = None

    def __init__(self, scope: dict[str, Any], send: Send) -> None:
        self.scope = scope
        self.base_send = send
        self.revoked = False

    @classmethod
    def as_asgi(cls) -> ASGIApp:
        """The ASGI application of the game socket route: a consumer per connection."""

        async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
            await cls(scope, send).serve(receive)

        return app

    async def serve(self, receive: Receive) -> None:
        """Handle the connection's messages, one at a time and in order, until it ends."""
        while True:
            message = await receive()
            kind = message["type"]
            if kind == "websocket.receive":
                await self.receive(message.get("text"), message.get("bytes"))
            elif kind == "websocket.connect":
                await self.connect()
            elif kind == "websocket.disconnect":
                await self.disconnect(message.get("code", 1000))
                return

    async def accept(self) -> None:
        await self.base_send({"type": "websocket.accept", "subprotocol": None})

    async def close(self, code: int) -> None:
        await self.base_send({"type": "websocket.close", "code": code})

    async def connect(self) -> None:
        HUB.set_loop(asyncio.get_running_loop())
        raw_id = str(self.scope["url_route"]["kwargs"]["game_id"])
        # An id no game can have (PostgreSQL bigint) is game 0, which never exists.
        self.game_id = int(raw_id) if len(raw_id) <= 18 else 0
        self.joined = False
        self.ready = False
        self.sent_seq = 0
        self.pending: list[tuple[int, int, Outgoing]] = []
        self.outbox: asyncio.Queue[Outgoing | None] = asyncio.Queue()
        self.writer: asyncio.Task[None] | None = None
        self.catching_up = False
        self.notified_seq = 0  # another process's events announced during the hello
        self.finished_sent = False
        self.overflowed = False
        self.pending_final: Outgoing | None = None
        self.wire: transport.DirectWire | None = None
        self.max_frame = int(dbpool.knob("MAX_FRAME", 65536))
        await self.accept()
        if dbpool.knob("DIRECT_WIRE", True):
            self.wire = transport.direct_wire(self.base_send)
        if log.isEnabledFor(logging.DEBUG):
            how = "none" if self.wire is None else "socket" if self.wire.raw else "transport"
            log.debug("game %s: direct wire %s", self.game_id, how)
        self.writer = asyncio.ensure_future(self._write())

    async def _write(self) -> None:
        """The ASGI way out: frames the direct path could not take, in order."""
        outbox, send = self.outbox, self.base_send
        while True:
            item = await outbox.get()
            while True:  # everything queued, in one go
                if item is None:
                    return
                text = item.text if isinstance(item, Frame) else item
                try:
                    await send({"type": "websocket.send", "text": text})
                except Exception:
                    return
                if outbox.empty():
                    break
                item = outbox.get_nowait()

    def push_text(self, item: Outgoing) -> None:
        """Send a frame, after everything pushed before it (nothing once the seat is
        revoked)."""
        if self.revoked:
            return
        wire = self.wire
        if wire is not None and self.outbox.empty():
            # Nothing waits in the outbox, so writing now keeps the order.
            frame = item if isinstance(item, Frame) else Frame(item)
            if wire.ready(len(frame.wire)):
                try:
                    buffered = wire.write(frame.wire)
                except Exception:  # (never let one socket stop a broadcast to the others)
                    log.exception("game %s: direct write failed; closing the socket", self.game_id)
                    self.wire = None
                    self.overflowed = True
                    self.overflow_task = asyncio.ensure_future(self.close(code=1011))
                    return
                if buffered > MAX_BUFFERED:
                    self._overflow()
                return
        self.outbox.put_nowait(item)
        if self.outbox.qsize() > MAX_BACKLOG:
            self._overflow()

    def _overflow(self) -> None:
        if not self.overflowed:
            # The client does not read: drop it rather than buffer without end. It can
            # reconnect with its last seq and get what it missed from the log.
            self.overflowed = True
            log.warning("game %s: closing a socket that stopped reading", self.game_id)
            self.overflow_task = asyncio.ensure_future(self.close(code=1013))

    def _flush_final(self) -> None:
        if self.ready and self.pending_final is not None:
            text, self.pending_final = self.pending_final, None
            self.push_final(text)

    def push_final(self, text: Outgoing) -> None:
        """The ``finished`` frame, once per connection."""
        if not self.ready:  # after the events still to come
            self.pending_final = text
        elif not self.finished_sent:
            self.finished_sent = True
            self.push_text(text)

    def push_live(self, first: int, last: int, text: Outgoing) -> None:
        """A committed batch of events ``first..last`` (event loop thread)."""
        if not self.ready:
            self.pending.append((first, last, text))
            return
        if last <= self.sent_seq:
            return  # already sent (came in the catch-up)
        if first > self.sent_seq + 1:  # a gap (another process appended): read the log
            self.pending.append((first, last, text))
            self._start_catch_up()
            return
        self.push_text(text)
        self.sent_seq = last

    def _start_catch_up(self) -> None:
        if not self.catching_up and not self.revoked:
            self.ready = False
            self.catching_up = True
            self.catchup_task = asyncio.ensure_future(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            _head, frames, final = await SHARDS.call(
                self.game_id, runtime.catchup_frames, self.game_id, self.viewer, self.sent_seq
            )
            for last, text in frames:
                self.push_text(text)
                self.sent_seq = max(self.sent_seq, last)
            if final is not None:
                self.push_final(final)
        except Exception as exc:
            reason = await asyncio.to_thread(dbpool.unavailable, exc)
            if reason is None:
                log.exception("catch-up failed for game %s", self.game_id)
            self.push_text(_err("unavailable" if reason else "server_error",
                                f"could not read the game log: {reason or 'server error'}"))
        finally:
            self.catching_up = False
            self.ready = True
            pending, self.pending = self.pending, []
            for first, last, out in pending:
                self.push_live(first, last, out)
            self._flush_final()

    async def disconnect(self, code: int) -> None:
        if self.joined:
            HUB.leave(self.game_id, self)
            HUB.send_presence(self.game_id)
        if self.writer is not None:
            self.outbox.put_nowait(None)

    # ---------------------------------------------------------------- receiving

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        answer: dict[str, Any] = {}  # (what an error answer to this frame carries: its ref)
        try:
            if text_data is None:
                self.push_text(_err("malformed", "binary frames are not supported; send JSON text"))
                return
            if frame_bytes(text_data, self.max_frame) > self.max_frame:
                self.push_text(too_large_frame(self.max_frame))
                await self.close_after_sent(1009)
                return
            try:
                msg = loads(text_data)
            except BadInput as exc:
                self.push_text(_err("malformed", exc.reason))
                return
            if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
                self.push_text(_err("malformed", "a message is a JSON object with a string 'type'"))
                return
            kind = msg["type"]
            if kind == "command":
                answer["ref"] = msg.get("ref")
            if kind == "hello":
                await self._hello(msg)
            elif kind == "command":
                await self._command(msg)
            elif kind == "ping":
                self.push_text(json.dumps({"type": "pong", "ref": msg.get("ref")}))
            elif kind == "presence":
                self.push_text(
                    json.dumps(HUB.presence(self.game_id))
                    if self.joined
                    else _err("not_joined", "say hello first")
                )
            else:
                self.push_text(_err("malformed", f"unknown message type {shown(kind)}"))
        except Exception as exc:
            await self._failed(exc, answer)

    def revoke_seat(self, text: str, code: int) -> None:
        """(event loop) This socket's seat is no longer held by its credentials (the
        organiser handed it to another phone or to a bot): ``text`` is the last frame it
        gets; then it closes with ``code`` once that is sent."""
        self.push_text(text)
        self.revoked = True  # (push_text sends nothing more; no catch-up starts)
        self.revoke_task = asyncio.ensure_future(self.close_after_sent(code))

    async def close_after_sent(self, code: int) -> None:
        """Close the socket with ``code`` once everything queued for it is sent."""
        await asyncio.sleep(0)
        self.outbox.put_nowait(None)
        if self.writer is not None:
            await self.writer
        await self.close(code=code)

    async def _failed(self, exc: Exception, answer: dict[str, Any]) -> None:
        """The one answer to a frame whose handling failed: ``unavailable`` when no database
        connection could be had or the database went away (nothing was appended: the frame
        may be sent again), else ``server_error``."""
        reason = await asyncio.to_thread(dbpool.unavailable, exc)
        if reason is not None:
            log.warning("game %s: %s (%s: %s)", self.game_id, reason, type(exc).__name__, exc)
            self.push_text(_err("unavailable", reason, **answer))
        else:
            log.error("error handling a frame in game %s", self.game_id, exc_info=exc)
            self.push_text(_err("server_error", "the server could not handle that message",
                                **answer))

    def _session_cookie(self) -> str | None:
        """The browser's session cookie sent with the socket's handshake, if any."""
        from django.conf import settings
        from django.http.cookie import parse_cookie

        for key, value in self.scope.get("headers", []):
            if key == b"cookie":
                return parse_cookie(value.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
        return None

    async def _hello(self, msg: dict[str, Any]) -> None:
        if self.joined:
            self.push_text(_err("already_joined", "this connection already said hello"))
            return
        last_seq = msg.get("last_seq", 0)
        if last_seq is None:
            last_seq = 0
        if not isinstance(last_seq, int) or isinstance(last_seq, bool) or last_seq < 0:
            self.push_text(_err("malformed", "last_seq must be a non-negative integer"))
            return
        seat = msg.get("seat")
        info = await SHARDS.call(
            self.game_id, _hello_sync, self.game_id, seat, msg.get("token"), msg.get("secret"),
            self._session_cookie() if seat is not None else None,
        )
        if "error" in info:
            code, reason = info["error"]
            self.push_text(_err(code, reason))
            return
        self.seat = seat
        self.viewer = ALL if info["finished"] else (seat if seat is not None else SPECTATOR)
        self.sent_seq = last_seq
        self.joined = True
        room = HUB.join(self.game_id, self)
        room.seats = info["seats"]
        await HUB.subscribe(self.game_id)
        g = info["game"]
        self.push_text(
            json.dumps(
                {
                    "type": "welcome",
                    "game": self.game_id,
                    "kind": g["kind"],
                    "options": g["options"],
                    "status": g["status"],
                    "seat": seat,
                    "viewer": self.viewer,
                    "seats": info["seats"],
                }
            )
        )
        try:
            head, frames, final = await SHARDS.call(
                self.game_id, runtime.catchup_frames, self.game_id, self.viewer, last_seq
            )
            if last_seq > head:
                self.push_text(
                    _err(
                        "malformed",
                        f"last_seq {last_seq} is ahead of the game ({head}); sending the "
                        "whole log",
                    )
                )
                self.sent_seq = 0
                head, frames, final = await SHARDS.call(
                    self.game_id, runtime.catchup_frames, self.game_id, self.viewer, 0
                )
        except Exception as exc:
            # Joined, but the log could not be read (no free connection, database away):
            # such a socket would never get an event (and a second hello is refused). Say
            # why, then close it (1013, try again later): the client comes back with its
            # last_seq.
            await self._failed(exc, {})
            await self.close_after_sent(1013)
            return
        for last, text in frames:
            self.push_text(text)
            self.sent_seq = max(self.sent_seq, last)
        if final is not None:
            self.push_final(final)
        self.ready = True
        pending, self.pending = self.pending, []
        for first, last, out in pending:
            self.push_live(first, last, out)
        self._flush_final()
        if self.notified_seq > self.sent_seq:
            self._start_catch_up()
        HUB.send_presence(self.game_id)
        SHARDS.submit(self.game_id, runtime.BOTS.kick, self.game_id)

    async def _command(self, msg: dict[str, Any]) -> None:
        ref = msg.get("ref")
        if not self.joined:
            self.push_text(_err("not_joined", "say hello first", ref=ref))
            return
        if self.seat is None:
            self.push_text(_err("forbidden", "spectators cannot send commands", ref=ref))
            return
        if "seat" in msg and not (type(msg["seat"]) is int and msg["seat"] == self.seat):
            self.push_text(
                _err(
                    "wrong_seat",
                    f"this connection holds seat {self.seat}, not {shown(msg['seat'])}",
                    ref=ref,
                )
            )
            return
        if msg.get("command") is None:
            self.push_text(_err("malformed", "a command message has a 'command'", ref=ref))
            return
        try:
            result = await runtime.submit(
                self.game_id, self.seat, msg["command"], msg.get("expected_seq")
            )
        except IllegalMoveError as exc:
            err = exc.to_json()
            err["reason"] = safe_reason(err.get("reason", ""))
            self.push_text(json.dumps({"type": "error", **err, "ref": ref}))
            return
        if ref is not None:
            self.push_text(json.dumps({"type": "ok", "ref": ref, "seq": result.seq}))

    # ---------------------------------------------------------------- channel layer

    def notified(self, seq: int) -> None:
        """(from the hub) another process appended events up to ``seq``: read the log."""
        if not self.joined:
            return
        if not self.ready and not self.catching_up:
            # The hello is still reading the log and has sent nothing of it yet: a catch-up
            # now would read from before its frames and send them twice. Look after it.
            self.notified_seq = max(self.notified_seq, seq)
            return
        if seq > self.sent_seq:
            self._start_catch_up()
