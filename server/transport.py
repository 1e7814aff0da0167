"""The one place that reaches into the WebSocket server's internals (daphne, autobahn,
twisted): everything else of the server talks ASGI and uses only the few names below.
Why it exists, what it buys and how to move it to new versions: docs/transport.md.

* :func:`install` (called by :mod:`server.asgi`) makes daphne build its WebSocket protocol
  with two changes (:func:`game_protocol`) for every connection:

  - **Oversize frames.** A client message over the limit is refused as soon as a frame
    header announces it, before its payload is read: the ``error`` frame that
    ``too_large(limit)`` returns, then a close frame with code 1009; whatever the client
    still sends is read and discarded until it answers the close. Left to itself, autobahn
    would buffer the message up to daphne's own limit (1 MiB) and then drop the TCP
    connection without a word, and the consumer could only see a message once it was
    whole. autobahn's limits (which also bound what the server sends) are raised to at
    least ours so that ours always comes first.
  - **Close codes.** autobahn's ``sendClose`` accepts only 1000 and 3000-4999, so daphne
    raised (and closed nothing) when the consumer closed with 1009, 1011 or 1013; here the
    codes RFC 6455 lets a server send are sent as they are.

* :func:`install_stop` (called by :mod:`server.asgi`) bounds how long a stop (SIGTERM,
  Ctrl-C) waits for requests in flight: the process ends within about twice
  ``GAMENIGHT_STOP_GRACE`` seconds whatever a request's worker thread is doing (before, a
  view that kept waiting kept daphne from exiting).

* :func:`direct_wire` gives a consumer a :class:`DirectWire` for its socket: pre-encoded
  frames written straight to the connection instead of through daphne's ASGI ``send``
  (docs/benchmarks-server.md, "Optimisations"), or None when that would not be exactly what
  autobahn sends, or when the installed versions are not those of :data:`WRITTEN_FOR`.

:data:`WRITTEN_FOR` names the versions this module was written and measured for; they are
pinned in pyproject.toml, and tests/test_transport.py fails, saying which differ, on any
other.
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

log = logging.getLogger("server.transport")

WRITTEN_FOR: dict[str, str] = {"daphne": "4.2.3", "twisted": "26.10.0", "autobahn": "26.11.1"}
"""Distribution -> the version whose internals this module uses (pinned in pyproject.toml)."""

SERVER_CLOSE_CODES = frozenset({1001, 1002, 1003, 1007, 1008, 1009, 1011, 1012, 1013, 1014})
"""Close codes RFC 6455 lets a server send that autobahn's ``sendClose`` refuses."""


def installed_versions() -> dict[str, str | None]:
    """Distribution -> its installed version (None: not installed), for :data:`WRITTEN_FOR`."""
    out: dict[str, str | None] = {}
    for name in WRITTEN_FOR:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def mismatches(installed: Mapping[str, str | None] | None = None) -> list[str]:
    """One line per distribution whose installed version is not the one this module was
    written for (``installed``: the versions to judge, by default those installed)."""
    have = installed_versions() if installed is None else installed
    return [
        f"{name}: {have.get(name) or 'not'} installed, {want} expected"
        for name, want in WRITTEN_FOR.items()
        if have.get(name) != want
    ]


@functools.cache
def _versions_ok() -> bool:
    bad = mismatches()
    if bad:
        log.warning(
            "server.transport was written for %s; %s: frames go through daphne's ASGI send "
            "(docs/transport.md)",
            ", ".join(f"{k} {v}" for k, v in WRITTEN_FOR.items()),
            "; ".join(bad),
        )
    return not bad


# --------------------------------------------------------------------------- protocol


def install(max_frame: Callable[[], int], too_large: Callable[[int], str]) -> None:
    """Make daphne build a :func:`game_protocol` connection for every WebSocket.
    ``max_frame()``: the largest client message in bytes (read per connection);
    ``too_large(limit)``: the text frame that refuses a bigger one. ImportError without
    daphne."""
    from daphne import ws_protocol

    _versions_ok()
    ws_protocol.WebSocketFactory.protocol = game_protocol(
        ws_protocol.WebSocketProtocol, max_frame, too_large
    )


def install_stop(grace: Callable[[], float]) -> None:
    """Make a stop of daphne (SIGTERM, Ctrl-C) end the process within about twice
    ``grace()`` seconds, whatever requests are in flight. Does nothing where daphne's server
    is not running this process (``daphne.server`` not imported: an in-process test).

    Why: daphne stops its reactor only once every application instance it cancelled has
    ended, and a Django view runs in a worker thread that nothing can interrupt (asgiref's
    ``sync_to_async`` waits for the thread before the cancelled request ends). So a view
    still waiting (for a lock, for the database) held the stop for as long as it waited.
    And when the request ended before its thread (daphne cancels a request again once its
    client has been gone for 10 s), the reactor stopped; the thread, its view done, then
    waited for the stopped event loop to carry the response back (whitenoise's middleware
    calls the view through ``async_to_sync``), and Python's exit joined that thread for
    ever.

    Here the stop waits at most ``grace()`` seconds for the cancelled requests (one whose
    view finishes by then has done its work, and the process exits as before), then stops
    the reactor, with one warning naming the requests left. From then on a daemon thread
    gives the exit ``grace()`` seconds more; a process still there then has a thread that
    will not end by itself (stuck as above, or its view still waiting): one warning names
    the threads left and where each waits, and ``os._exit(0)`` ends the process (stopping
    was asked for and done). A watchdog, not a cure, because a Python thread cannot be
    stopped from outside and the wait it is stuck in may be anyone's (a lock, a query, a
    pool). Nothing is half-written: the database decides. A transaction the view had not
    committed never will (its connection is gone: PostgreSQL rolls it back once the
    statement in hand stops waiting), one committed is in the log. What a request in
    flight loses is its answer, as it did before (daphne cancels it at the stop)."""
    daphne_server = sys.modules.get("daphne.server")
    if daphne_server is None:
        return
    kill_all = daphne_server.Server.kill_all_applications
    if getattr(kill_all, "gamenight_stop", False):
        return

    def kill_all_applications(self: Any) -> Any:
        from twisted.internet import defer
        from twisted.internet import reactor as installed

        reactor: Any = installed  # (typed as the module it replaces)
        limit = max(0.0, float(grace()))
        done: Any = defer.Deferred()

        def give_up() -> None:
            if done.called:
                return
            left = [
                repr(protocol) for protocol, details in list(self.connections.items())
                if details.get("application_instance") is not None
                and not details["application_instance"].done()
            ]
            log.warning("stopping without %d request(s) still running %g s after the stop "
                        "was asked for: %s", len(left), limit, "; ".join(left))
            done.callback(None)

        def ended(_result: Any) -> None:
            if not done.called:
                done.callback(None)

        timer = reactor.callLater(limit, give_up)
        done.addBoth(lambda _r: timer.cancel() if timer.active() else None)
        reactor.addSystemEventTrigger("after", "shutdown", exit_watchdog, limit)
        kill_all(self).addBoth(ended)  # (fires when every cancelled instance has ended)
        return done

    kill_all_applications.gamenight_stop = True  # type: ignore[attr-defined]
    daphne_server.Server.kill_all_applications = kill_all_applications


def exit_watchdog(limit: float) -> threading.Thread:
    """A daemon thread that ends the process with ``os._exit(0)`` if it is still there
    ``limit`` seconds from now, after one warning naming the threads still running (the
    exit joins them) and where each waits (:func:`install_stop`)."""

    def watch() -> None:
        time.sleep(limit)
        frames = sys._current_frames()
        left = []
        for t in threading.enumerate():
            if t.daemon or t is threading.main_thread() or t.ident not in frames:
                continue
            f: Any = frames[t.ident]
            while f.f_back is not None and os.path.basename(f.f_code.co_filename) in (
                    "threading.py", "queue.py"):
                f = f.f_back  # (where it waits, not the lock it waits on)
            left.append(f"{t.name} in {f.f_code.co_name} "
                        f"({os.path.basename(f.f_code.co_filename)}:{f.f_lineno})")
        log.warning("the process had not exited %g s after daphne stopped: ended without "
                    "waiting for %s", limit, "; ".join(left) or "its exit")
        for handler in logging.getLogger().handlers + log.handlers:
            handler.flush()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    thread = threading.Thread(target=watch, name="gamenight-stop-watchdog", daemon=True)
    thread.start()
    return thread


def game_protocol(
    base: type[Any], max_frame: Callable[[], int], too_large: Callable[[int], str]
) -> type[Any]:
    """daphne's WebSocket protocol class ``base`` with the oversize-frame refusal and the
    close codes described in the module's docstring."""

    class GameWebSocketProtocol(base):  # type: ignore[misc]
        game_max_frame = 65536

        def _connectionMade(self) -> None:
            super()._connectionMade()  # copies the factory's options (daphne's limits)
            limit = self.game_max_frame = max_frame()
            for attr in ("maxMessagePayloadSize", "maxFramePayloadSize"):
                current = int(getattr(self, attr, 0) or 0)
                if 0 < current < limit:
                    setattr(self, attr, limit)

        def onMessageFrameBegin(self, length: int) -> None:
            if (
                not self.failedByMe
                and self.state == self.STATE_OPEN
                and self.message_data_total_length + length > self.game_max_frame
            ):
                self.refuse_oversize()
            super().onMessageFrameBegin(length)  # (records the frame; ignores it once failed)

        def refuse_oversize(self) -> None:
            self.sendMessage(too_large(self.game_max_frame).encode(), False)
            self.failedByMe = True  # autobahn drops the rest of the message
            self.sendCloseFrame(code=1009, reasonUtf8=b"frame too large", isReply=False)

        def serverClose(self, code: Any = None) -> None:
            if code in SERVER_CLOSE_CODES and self.state == self.STATE_OPEN:
                self.sendCloseFrame(code=code, isReply=False)
            else:
                super().serverClose(code)

    return GameWebSocketProtocol


# --------------------------------------------------------------------------- direct wire


def direct_wire(send: Any) -> DirectWire | None:
    """The direct way out for the socket whose ASGI ``send`` this is, or None: another ASGI
    server (or a test communicator), another version of daphne, autobahn or twisted than
    :data:`WRITTEN_FOR`, or a connection that does not look as this module expects."""
    try:
        from daphne.server import Server
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:
        return None
    if not (isinstance(send, functools.partial) and send.args):
        return None
    server, proto = getattr(send.func, "__self__", None), send.args[0]
    if not (isinstance(server, Server) and isinstance(proto, WebSocketProtocol)):
        return None
    if not _versions_ok():
        return None
    try:
        wire = DirectWire(proto, server.connections)
        wire.ready(0)
    except AttributeError:  # another autobahn: use the ASGI path
        return None
    return wire


class DirectWire:
    """The direct way out for a socket served by daphne: a complete WebSocket frame's bytes
    go straight to the connection's transport. The ASGI way (``send`` → daphne
    ``handle_reply`` → ``serverSend`` → UTF-8 encode → autobahn ``sendMessage``/``sendFrame``
    → transport) does the same per socket and per frame; at 12 recipients per move that was
    most of the server's CPU.

    Used only while it writes exactly what autobahn would: open connection, no per-message
    compression negotiated, no frames queued inside autobahn, payload within autobahn's
    size limit (:meth:`ready`); otherwise the caller uses the ASGI ``send``."""

    __slots__ = ("conns", "ground", "max_payload", "open_state", "proto", "raw")

    def __init__(self, proto: Any, conns: dict[Any, Any]) -> None:
        self.proto = proto
        self.conns = conns
        self.open_state = proto.STATE_OPEN
        self.ground = proto.SEND_STATE_GROUND
        self.max_payload = int(getattr(proto, "maxMessagePayloadSize", 0) or 0)
        # A plain twisted TCP transport (no TLS) whose send buffer we can see: frames go to
        # its socket at once when that buffer is empty (see :meth:`write`).
        t = proto.transport
        tcp: ModuleType | None
        try:
            from twisted.internet import tcp
        except ImportError:
            tcp = None
        self.raw = (
            tcp is not None
            and isinstance(t, tcp.Connection)
            and all(
                hasattr(t, a)
                for a in (
                    "_tempDataLen",
                    "dataBuffer",
                    "offset",
                    "socket",
                    "_writeDisconnected",
                    "TLS",
                )
            )
        )
        """Whether :meth:`write` may send on the socket itself and report what is buffered."""

    def ready(self, size: int) -> bool:
        """Whether a frame with a ``size``-byte payload may be written directly now."""
        p = self.proto
        c = self.conns.get(p)
        return (
            c is not None
            and not c.get("disconnected")
            and p.state == self.open_state
            and p._perMessageCompress is None
            and not p.send_queue
            and p.send_state == self.ground
            and not (0 < self.max_payload < size)
            and p.transport is not None
        )

    def write(self, data: bytes) -> int:
        """Write ``data`` (one or more complete server-to-client WebSocket frames); returns
        the bytes still buffered for this socket."""
        t = self.proto.transport
        if (
            self.raw
            and not t._tempDataLen
            and t.offset == len(t.dataBuffer)
            and t.connected
            and not t.disconnecting
            and not t._writeDisconnected
            and not t.TLS
        ):
            # Nothing is waiting in twisted's buffer: send now instead of t.write(), which
            # would register the socket for writing (epoll_ctl), wait for the next loop
            # turn, send, and unregister it again (epoll_ctl) -- for every frame.
            try:
                sent = t.socket.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                sent = 0  # (let twisted find the broken connection on its own write)
            if sent == len(data):
                return 0
            data = data[sent:]
        t.write(data)
        if not self.raw:
            return 0
        return int(len(t.dataBuffer) - t.offset + t._tempDataLen)
