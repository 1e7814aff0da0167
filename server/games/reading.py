"""Reading a game: its records (:func:`records`), the state at any seq (:func:`state_at`),
and what a viewer may see of them: the one place a record's envelope is made for a viewer
(:func:`redact_record`) and a state's view (:func:`viewer_view`), for sockets, catch-up and
HTTP alike.
"""

from __future__ import annotations

from typing import Any

from core.api import ALL
from core.api import Game as CoreGame

from .cache import Entry, Record, entry


def records(game_id: int, after: int = 0, upto: int | None = None) -> list[Record]:
    e = entry(game_id)
    hi = e.seq if upto is None else min(upto, e.seq)
    return e.log[max(after, 0) : hi]


def state_at(game_id: int, seq: int | None = None) -> tuple[Entry, int, Any]:
    """(entry, seq, state after event ``seq``) — the latest state when seq is None."""
    e = entry(game_id, fresh=True)
    if seq is None or seq >= e.seq:
        return e, e.seq, e.state
    seq = max(seq, 0)
    base = max((s for s in e.snapshots if s <= seq), default=0)
    state = e.snapshots[base] if base else e.game.initial()
    for _s, _seat, event in e.log[base:seq]:
        state = e.game.evolve(state, event)
    return e, seq, state


def viewer_view(e: Entry, state: Any, viewer: int) -> dict[str, Any]:
    """What ``viewer`` sees: view, who acts, legal commands (seats), outcome."""
    g = e.game
    out = g.outcome(state)
    return {
        "view": g.view(state, viewer),
        "to_act": g.visible_to_act(state, viewer),
        "legal": g.legal_commands(state, viewer) if viewer >= 0 and out is None else [],
        "outcome": out.to_json() if out is not None else None,
    }


def redact_record(
    game: CoreGame, seq: int, seat: int | None, event: dict[str, Any], viewer: int
) -> dict[str, Any]:
    """The record ``{"seq", "seat", "event"}`` as ``viewer`` may receive it: the one place
    where a record's envelope is made for a viewer (sockets, catch-up, HTTP state and log).

    The event is ``game.redact(event, viewer)``. The envelope must not say what that body
    hides: when the event names its seat and the redacted body leaves it out (Teka's
    ``keep``: who was asked about a throw-in is secret), the envelope's ``seat`` is ``None``
    too. ``seq`` is public (it is how clients resume and how commands are ordered)."""
    if viewer == ALL:
        return {"seq": seq, "seat": seat, "event": event}
    body = game.redact(event, viewer)
    if seat is not None and "seat" in event and body.get("seat") != event["seat"]:
        seat = None
    return {"seq": seq, "seat": seat, "event": body}


def redact_records(e: Entry, recs: list[Record], viewer: int) -> list[dict[str, Any]]:
    """:func:`redact_record` for each record."""
    if viewer == ALL:
        return [{"seq": s, "seat": seat, "event": ev} for s, seat, ev in recs]
    g = e.game
    return [redact_record(g, s, seat, ev, viewer) for s, seat, ev in recs]
