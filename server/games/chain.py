"""The hash chain of a game's event log: each event row carries
``sha256(previous hash + the event's canonical JSON)`` (:func:`chain_hash`), from
:data:`GENESIS`; :func:`verify_chain` recomputes it from the rows (never from the cache) and
checks it against the chain head a trigger keeps, and the game row's outcome against the
log's fold (:class:`ChainReport` says where it breaks). Appending is :mod:`.append`'s.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

import core
from core import upcast
from core.api import dumps
from core.errors import EventVersionError

from .models import Game

GENESIS = "0" * 64


def chain_hash(
    prev: str, seq: int, seat: int | None, event: dict[str, Any], version: int = upcast.FIRST
) -> str:
    """sha256 of the previous hash + canonical JSON of the event record
    (``dumps({"seq": seq, "seat": seat, "event": event})``, with ``"v": version`` when the
    event's schema version is not the first: the chain vouches for the format an event is
    read in, and the hashes of first-version events are what they always were)."""
    return chain_hash_json(prev, seq, seat, dumps(event), version)


def chain_hash_json(
    prev: str, seq: int, seat: int | None, event_json: str, version: int = upcast.FIRST
) -> str:
    """:func:`chain_hash` given ``dumps(event)``: the record's canonical JSON has its keys
    sorted (event, seat, seq, v), so it is assembled around the event's JSON."""
    seat_json = "null" if seat is None else str(int(seat))
    v = "" if version == upcast.FIRST else f',"v":{int(version)}'
    body = f'{{"event":{event_json},"seat":{seat_json},"seq":{int(seq)}{v}}}'
    return hashlib.sha256((prev + body).encode()).hexdigest()


@dataclass
class ChainReport:
    ok: bool
    events: int
    bad_seq: int | None = None
    reason: str = ""
    head: str | None = None
    """The hash of the last event (None for a game without events)."""
    hashes: list[str] = field(default_factory=list, repr=False)
    """Every event's hash, seq 1 first (for checks against an export)."""
    versions: list[int] = field(default_factory=list)
    """The schema versions the log's events are stored in (``core.upcast``), each once."""

    def __bool__(self) -> bool:
        """A report is no truth value: ``if report`` (always true) read as "the chain is
        fine" hid broken chains. Say what is meant: ``report.ok``."""
        raise TypeError("a ChainReport has no truth value: test report.ok")

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.events,
            "head": self.head,
            "bad_seq": self.bad_seq,
            "reason": self.reason,
            "versions": self.versions,
        }


def verify_chain(game_id: int) -> ChainReport:
    """Recompute a game's hash chain from the database rows (never from the cache), and
    compare its end with the game's chain head (``games_chainhead``, kept by a trigger on
    each INSERT): a deleted last event or a history rewritten with recomputed hashes no
    longer ends at the recorded head."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT seq, seat, type, payload::text, hash, outcome::text, version "
            "FROM games_event WHERE game_id = %s ORDER BY seq",
            [game_id],
        )
        rows = cur.fetchall()
        cur.execute("SELECT events, head FROM games_chainhead WHERE game_id = %s", [game_id])
        recorded = cur.fetchone()
        cur.execute("SELECT kind, status, outcome FROM games_game WHERE id = %s", [game_id])
        stored = cur.fetchone()
    prev = GENESIS
    hashes: list[str] = []
    n = len(rows)
    last = rows[-1][4] if rows else None
    for i, (seq, seat, typ, payload, h, _ended, version) in enumerate(rows, start=1):
        if seq != i:
            return ChainReport(False, n, i, f"sequence gap: expected {i}, found {seq}", last)
        event = json.loads(payload)
        if event.get("type") != typ:
            return ChainReport(False, n, seq, "type column differs from the payload", last)
        want = chain_hash(prev, seq, seat, event, version)
        if not hmac.compare_digest(want, h):
            return ChainReport(False, n, seq, "hash mismatch: event or chain edited", last)
        hashes.append(h)
        prev = h
    if recorded is None:
        if rows:
            return ChainReport(False, n, 1, "no chain head recorded for this game", last)
        return ChainReport(True, 0)
    head_events, head = int(recorded[0]), str(recorded[1])
    if head_events != n:
        return ChainReport(
            False, n, min(head_events, n) + 1,
            f"the chain head records {head_events} events, the log has {n}", last,
        )
    if not hmac.compare_digest(head, last or ""):
        return ChainReport(
            False, n, n, "the last event's hash differs from the recorded chain head "
            "(history rewritten)", last,
        )
    versions = sorted({int(r[6]) for r in rows})
    if stored is not None:
        ended = [r[5] for r in rows]
        try:
            events = upcast.upcast_log(str(stored[0]), [(r[6], json.loads(r[3])) for r in rows])
        except EventVersionError as exc:
            return ChainReport(False, n, None, f"the log cannot be folded: {exc}", last,
                               versions=versions)
        wrong = _outcome_differs(stored, events, ended)
        if wrong:
            bad = next((r[0] for r in rows[:-1] if r[5] is not None), n)
            return ChainReport(False, n, bad, wrong, last, versions=versions)
    return ChainReport(True, n, head=last, hashes=hashes, versions=versions)


def _outcome_differs(
    stored: tuple[Any, Any, Any], events: list[dict[str, Any]], ended: list[str | None]
) -> str:
    """Why the game row's status and outcome, or the outcome its events carry (``ended``, the
    ``outcome`` column: NULL but on the last event of a finished game), are not those of
    its log's fold, or ``""``. ``events``: the log in the current version (upcast)."""
    from core.api import fold

    kind, status, outcome = stored
    cg = core.GAMES.get(kind)
    if cg is None or not events:
        return ""
    if any(x is not None for x in ended[:-1]):
        return "an event before the last carries an outcome (the log ends at the last)"
    folded = cg.outcome(fold(cg, events))
    want = None if folded is None else json.loads(dumps(folded.to_json()))
    have = json.loads(outcome) if isinstance(outcome, str) else outcome
    if want != have:
        return "the stored outcome differs from the outcome of the log"
    if (json.loads(ended[-1]) if ended[-1] is not None else None) != want:
        return "the outcome the last event carries differs from the outcome of the log"
    if (status == Game.FINISHED) != (want is not None):
        return "the game's status differs from its log (finished or not)"
    return ""
