"""The frames the server sends on a game's sockets (docs/protocol.md): events with the
viewer's view, the game's end, a bot's progress, the catch-up of a socket that is behind; and
:class:`Frame`, one frame's text and wire bytes, made once for all its recipients."""

from __future__ import annotations

import json
import struct
from typing import Any

from core.api import ALL

from . import cache, clocks, reading

CATCHUP_CHUNK = 500


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
    e: cache.Entry, recs: list[cache.Record], state: Any, viewer: int, with_view: bool = True
) -> str:
    frame: dict[str, Any] = {
        "type": "events",
        "game": e.game_id,
        "from": recs[0][0] if recs else None,
        "to": recs[-1][0] if recs else e.seq,
        "events": reading.redact_records(e, recs, viewer),
    }
    if with_view:
        frame.update(reading.viewer_view(e, state, viewer))
        clock = clocks.frame_clock(e, frame["to"], state, viewer)
        if clock is not None:
            frame["clock"] = clock
    return json.dumps(frame, separators=(",", ":"))


def finished_frame(e: cache.Entry, state: Any, seq: int, outcome: Any) -> str:
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
    e = cache.entry(game_id, fresh=True)
    clocks.ensure(e)
    with cache.game_lock(game_id):
        head, state, recs = e.seq, e.state, e.log[max(after, 0) : e.seq]
    out: list[tuple[int, str]] = []
    for i in range(0, max(len(recs), 1), CATCHUP_CHUNK):
        chunk = recs[i : i + CATCHUP_CHUNK]
        last = i + CATCHUP_CHUNK >= len(recs)
        out.append((chunk[-1][0] if chunk else head, events_frame(e, chunk, state, viewer, last)))
    outcome = e.game.outcome(state)
    final = finished_frame(e, state, head, outcome) if outcome is not None else None
    return head, out, final


def bot_frame(game_id: int, seat: int, seq: int, share: float) -> str:
    return json.dumps(
        {"type": "bot", "game": game_id, "seat": seat, "seq": seq, "progress": round(share, 3)}
    )
