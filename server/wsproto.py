"""daphne's WebSocket protocol as the game sockets need it (installed by server.asgi, so it
holds however daphne is started: ``./gamenight serve``, ``daphne server.asgi:application``,
the tests).

* **Oversize frames.** A client message over ``GAMENIGHT_MAX_FRAME`` bytes (default 64 KiB)
  is refused as soon as a frame header announces it, before its payload is read: the
  server sends the ``error`` frame with code ``too_large``, then a close frame with code
  1009, and reads (and discards) whatever the client still sends until it answers the
  close. Left to itself, autobahn would buffer the message up to daphne's own limit (1 MiB)
  and then drop the TCP connection without a word; and the consumer could only see a
  message once it was whole. autobahn's limits (which also bound what the server sends)
  are raised to at least ours so that ours always comes first.
* **Close codes.** autobahn's ``sendClose`` accepts only 1000 and 3000-4999, so daphne
  raised (and closed nothing) when the consumer closed with 1009, 1011 or 1013; here the
  codes RFC 6455 lets a server send are sent as they are.
"""

from __future__ import annotations

from typing import Any

from daphne import ws_protocol

SERVER_CLOSE_CODES = frozenset({1001, 1002, 1003, 1007, 1008, 1009, 1011, 1012, 1013, 1014})


def max_frame() -> int:
    from server.games.dbpool import knob

    return int(knob("MAX_FRAME", 65536))


class GameWebSocketProtocol(ws_protocol.WebSocketProtocol):  # type: ignore[misc]
    game_max_frame = 65536

    def _connectionMade(self) -> None:
        super()._connectionMade()  # copies the factory's options (daphne's limits) to self
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
        from server.games.consumers import too_large_frame

        self.sendMessage(too_large_frame(self.game_max_frame).encode(), False)
        self.failedByMe = True  # autobahn drops the rest of the message
        self.sendCloseFrame(code=1009, reasonUtf8=b"frame too large", isReply=False)

    def serverClose(self, code: Any = None) -> None:
        if code in SERVER_CLOSE_CODES and self.state == self.STATE_OPEN:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            super().serverClose(code)


def install() -> None:
    """Make daphne build :class:`GameWebSocketProtocol` for every WebSocket connection."""
    ws_protocol.WebSocketFactory.protocol = GameWebSocketProtocol
