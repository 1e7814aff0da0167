"""The event store, and the one way to create, join, play, import and read games (consumers,
HTTP, bots, clocks, seeds, demo data, benchmarks).

The event log in PostgreSQL is the truth, and this module its only writer: every event goes
through :func:`append` (an :class:`Append`: the events, their hash chain, one SQL text), from
:func:`submit` on a database thread (sync, autocommitted or inside the caller's transaction)
or :func:`submit_async` on the event loop (async), which share the stale check and the cache.
Appending checks the expected sequence number (a unique ``(game, seq)`` index makes a stale
append fail cleanly); each event row carries a hash chaining it to the previous one. A
per-process cache keeps ``(seq, state, log)`` per game so a move costs one ``decide`` +
``evolve`` + one INSERT; the cache can be dropped at any time (:func:`drop_cache`) and is
rebuilt from the log on a miss.

All functions here but :func:`submit_async` are synchronous (Django database access); async
code runs them on the per-game worker threads of :mod:`server.games.shards`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import secrets as _secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from random import Random
from typing import Any

from django.db import IntegrityError, connection, transaction
from psycopg.errors import UniqueViolation

import core
from core import upcast
from core.api import ALL, IllegalMoveError, OptionsError, dumps
from core.api import Game as CoreGame
from core.errors import EventVersionError
from server.leagues.models import League

from . import tablerules
from .dbpool import ADB, knob
from .inputs import shown, text_ok
from .models import Game, Seat
from .shards import SHARDS

log = logging.getLogger("server.games")

GENESIS = "0" * 64
SNAPSHOT_EVERY = 256
CACHE_SIZE = int(os.environ.get("GAMENIGHT_CACHE_GAMES", "4096"))
"""The most games whose fold is kept in memory (least recently used go first)."""
CACHE_BYTES = int(float(os.environ.get("GAMENIGHT_CACHE_MB", "256")) * 2**20)
"""The most bytes (estimated, :attr:`Entry.nbytes`) the cached folds may take together."""
RECORD_OVERHEAD = 400
"""Bytes a cached event takes beyond its JSON text times :data:`JSON_FACTOR`: the tuple,
the dict and its small objects (measured with tracemalloc on the soak's games)."""
JSON_FACTOR = 6
SNAPSHOT_BYTES = 4096


# --------------------------------------------------------------------------- errors


class StaleError(IllegalMoveError):
    """The command's expected sequence number is not the game's current one."""

    def __init__(self, expected: Any, actual: int) -> None:
        super().__init__(
            "stale", f"expected_seq {expected!r} is stale: the game is at seq {actual}"
        )
        self.seq = actual

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason, "seq": self.seq}


class EmptyBatch(ValueError):
    """An append of no events was asked for: refused before any SQL is built."""


class NotFound(LookupError):
    pass


class JoinError(ValueError):
    pass


# --------------------------------------------------------------------------- hash chain


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


# --------------------------------------------------------------------------- cache


Record = tuple[int, "int | None", dict[str, Any]]
"""(seq, acting seat or None, event)"""


@dataclass
class Entry:
    """Cached fold of one game's log. Only ever replaced/extended under the game's lock."""

    game_id: int
    kind: str
    game: CoreGame
    num_seats: int
    seq: int
    state: Any
    last_hash: str
    log: list[Record]
    snapshots: dict[int, Any] = field(default_factory=dict)
    finished: bool = False
    nbytes: int = 0
    """Estimated memory of this fold (what the cache's byte budget counts)."""

    def extend(self, records: list[Record], hashes: list[str], state: Any) -> None:
        for rec in records:
            self.log.append(rec)
        self.nbytes += records_bytes(records)
        self.seq = records[-1][0] if records else self.seq
        self.state = state
        if hashes:
            self.last_hash = hashes[-1]
        if self.seq // SNAPSHOT_EVERY > (self.seq - len(records)) // SNAPSHOT_EVERY:
            self.snapshots[self.seq] = state
            self.nbytes += SNAPSHOT_BYTES
        with _cache_lock:
            if _cache.get(self.game_id) is self:
                _cache_bytes[0] += self.nbytes - self.counted
                self.counted = self.nbytes
                _shrink()

    counted: int = 0
    """(under ``_cache_lock``) what of :attr:`nbytes` the cache's total holds."""


def records_bytes(records: list[Record]) -> int:
    """Estimated memory of cached events (see :data:`RECORD_OVERHEAD`)."""
    return sum(RECORD_OVERHEAD + JSON_FACTOR * len(dumps(ev)) for _seq, _seat, ev in records)


_cache: OrderedDict[int, Entry] = OrderedDict()
"""Folds of the games in use, least recently used first; bounded by :data:`CACHE_SIZE` games
and :data:`CACHE_BYTES` bytes."""
_cache_bytes = [0]
_cache_lock = threading.Lock()


class GameLock:
    """One game's re-entrant lock. Kept only while someone holds a reference to it (the
    table is weak): a lock nobody refers to is held by nobody, so forgetting it is safe, and
    the table never grows with the number of games ever played."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


_game_locks: weakref.WeakValueDictionary[int, GameLock] = weakref.WeakValueDictionary()


def game_lock(game_id: int) -> GameLock:
    with _cache_lock:
        lock = _game_locks.get(game_id)
        if lock is None:
            lock = _game_locks[game_id] = GameLock()
    return lock


def _shrink() -> None:
    """(under ``_cache_lock``) forget least recently used folds until both bounds hold (the
    one in use last always stays)."""
    while len(_cache) > 1 and (len(_cache) > CACHE_SIZE or _cache_bytes[0] > CACHE_BYTES):
        _gid, old = _cache.popitem(last=False)
        _cache_bytes[0] -= old.counted
        old.counted = 0


def cache_figures() -> dict[str, int]:
    """Games and estimated bytes in the cache, and game locks alive (for tests and soaks)."""
    with _cache_lock:
        return {"games": len(_cache), "bytes": _cache_bytes[0], "locks": len(_game_locks)}


def _db_lock(game_id: int) -> GameLock:
    """(database threads) the game's lock, to take once this thread holds its database
    connection: a thread that waited for a pooled connection while holding a game's lock
    deadlocked with HTTP views that held connections and waited for that lock, until the pool
    gave up (tests/test_server_lock_order.py). Connection first, lock second, everywhere."""
    connection.ensure_connection()
    return game_lock(game_id)


def drop_cache(game_id: int | None = None) -> None:
    """Forget cached state (all games, or one); it is rebuilt from the log on the next use."""
    with _cache_lock:
        if game_id is None:
            for cached in _cache.values():
                cached.counted = 0
            _cache.clear()
            _cache_bytes[0] = 0
        else:
            old = _cache.pop(game_id, None)
            if old is not None:
                _cache_bytes[0] -= old.counted
                old.counted = 0


def _decode(payload: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(payload) if isinstance(payload, (str, bytes)) else payload
    return out


def _fetch_records(game_id: int, after: int, kind: str) -> tuple[list[Record], list[str]]:
    """The game's stored events after seq ``after``, each upcast to the current version of
    ``kind``'s events (what the core folds and clients are sent), and their hashes. Raises
    EventVersionError (a newer release wrote the log), before any is folded."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT seq, seat, payload::text, hash, version FROM games_event "
            "WHERE game_id = %s AND seq > %s ORDER BY seq",
            [game_id, after],
        )
        rows = cur.fetchall()
    try:
        events = upcast.upcast_log(kind, [(r[4], json.loads(r[2])) for r in rows])
    except EventVersionError as exc:
        raise EventVersionError(f"game {game_id}: {exc}") from None
    return [(r[0], r[1], ev) for r, ev in zip(rows, events, strict=True)], [r[3] for r in rows]


def _load(game_id: int) -> Entry:
    with connection.cursor() as cur:
        cur.execute("SELECT kind, num_seats, status FROM games_game WHERE id = %s", [game_id])
        row = cur.fetchone()
    if row is None:
        raise NotFound(f"no game {game_id}")
    kind, num_seats, _status = row
    game = core.GAMES[kind]
    records, hashes = _fetch_records(game_id, 0, kind)
    state = game.initial()
    snapshots: dict[int, Any] = {}
    evolve = game.evolve
    for seq, _seat, event in records:
        state = evolve(state, event)
        if seq % SNAPSHOT_EVERY == 0:
            snapshots[seq] = state
    entry = Entry(
        game_id,
        kind,
        game,
        num_seats,
        records[-1][0] if records else 0,
        state,
        hashes[-1] if hashes else GENESIS,
        records,
        snapshots,
    )
    entry.finished = game.outcome(state) is not None if records else False
    entry.nbytes = records_bytes(records) + SNAPSHOT_BYTES * len(snapshots)
    return entry


def cached(game_id: int) -> Entry | None:
    """The cached fold of a game, or None (no database: safe on the event loop)."""
    return _cache.get(game_id)


def entry(game_id: int, *, fresh: bool = False) -> Entry:
    """The cached fold of a game (loaded on a miss). ``fresh`` also reads newer events that
    another process may have appended."""
    e = _cache.get(game_id)
    if e is None:
        with _db_lock(game_id):
            e = _cache.get(game_id)
            if e is None:
                e = _load(game_id)
                with _cache_lock:
                    _cache[game_id] = e
                    e.counted = e.nbytes
                    _cache_bytes[0] += e.nbytes
                    _shrink()
                return e
    else:
        with _cache_lock:
            if game_id in _cache:
                _cache.move_to_end(game_id)
    if fresh and not e.finished:
        with _db_lock(game_id):
            _refresh(e)
    return e


def _refresh(e: Entry) -> None:
    records, hashes = _fetch_records(e.game_id, e.seq, e.kind)
    if records:
        state = e.state
        for _seq, _seat, event in records:
            state = e.game.evolve(state, event)
        e.extend(records, hashes, state)
        e.finished = e.game.outcome(state) is not None


# --------------------------------------------------------------------------- commit hooks


@dataclass
class Batch:
    """Events just committed for one game (given to listeners after commit)."""

    game_id: int
    entry: Entry
    records: list[Record]
    state: Any
    seq: int
    outcome: Any

    @property
    def first_seq(self) -> int:
        return self.records[0][0]


LISTENERS: list[Callable[[Batch], None]] = []
"""Called (in the committing thread) after each commit that appended events."""

SEAT_LISTENERS: list[Callable[[int], None]] = []
"""Called with a game id after its seats changed (join)."""


def _notify(batch: Batch) -> None:
    for fn in LISTENERS:
        try:
            fn(batch)
        except Exception:  # a listener must never undo a committed move
            log.exception("event listener failed")


def _notify_seats(game_id: int) -> None:
    for fn in SEAT_LISTENERS:
        try:
            fn(game_id)
        except Exception:
            log.exception("seat listener failed")


# --------------------------------------------------------------------------- appending
#
# The one way events enter the log. An :class:`Append` is a batch of one game's events with
# their hash chain and the SQL that appends them (:func:`_statements`, the same text for every
# writer); :func:`append` executes it on this thread's connection and :func:`submit_async` on
# the event loop. The unique ``(game, seq)`` key is the concurrency control: an append at a
# seq another one took first fails, and the faces say so as :class:`StaleError`.

_INSERT_HEAD = (
    "INSERT INTO games_event "
    "(game_id, seq, type, payload, seat, created_at, hash, outcome, version) VALUES "
)
_INSERT_ROW = "(%s, %s, %s, %s::jsonb, %s, now(), %s, %s::jsonb, %s)"
_INSERT_ROW_AT = "(%s, %s, %s, %s::jsonb, %s, %s, %s, %s::jsonb, %s)"
"""A row's outcome is the game's outcome (JSON) on the event that ends it, else NULL: the
database refuses a game's outcome that its last event does not carry (migration 0008). Its
last value is the event's schema version (``core.upcast``; migration 0009)."""


INSERT_CHUNK = 1000
"""The most events one statement appends (an imported log takes several statements, in one
transaction; a command's events always fit in one)."""

_FINISH_CTE = (
    "UPDATE games_game SET status = 'finished', finished_at = coalesce(%s, now()), "
    "outcome = %s::jsonb WHERE id = %s AND (SELECT count(*) FROM ins) > 0"
)
"""(counts ``ins``, so all the events are inserted before the game is marked finished: no event
may follow a finished game, see migration 0006)"""


def _statements(
    game_id: int,
    records: list[Record],
    prev: str,
    outcome: Any,
    times: list[datetime] | None = None,
    versions: list[int] | None = None,
) -> tuple[list[tuple[str, list[Any]]], list[str]]:
    """The SQL that appends ``records`` after the event whose hash is ``prev``, and the
    events' hashes. One multi-row INSERT per :data:`INSERT_CHUNK` events; each row's
    ``created_at`` is the transaction's ``now()``, or ``times`` (an imported log's).
    ``outcome``: the core's outcome the events end the game with (None: it goes on), put on
    the last event; the last statement then also marks the game finished, at the last
    event's time. ``versions``: each event's schema version (an imported log's, as
    recorded); None: the current version of the game's kind (read from its row)."""
    if not records:
        raise EmptyBatch("no events to append")
    if versions is None:
        kind = Game.objects.filter(pk=game_id).values_list("kind", flat=True).first()
        versions = [upcast.current(kind or "")] * len(records)
    row = _INSERT_ROW if times is None else _INSERT_ROW_AT
    out = _outcome_json(outcome)
    end = len(records) - 1
    hashes: list[str] = []
    statements: list[tuple[str, list[Any]]] = []
    for start in range(0, len(records), INSERT_CHUNK):
        chunk = records[start : start + INSERT_CHUNK]
        params: list[Any] = []
        for i, (seq, seat, event) in enumerate(chunk, start=start):
            payload = dumps(event)
            prev = chain_hash_json(prev, seq, seat, payload, versions[i])
            hashes.append(prev)
            at = () if times is None else (times[i],)
            params.extend((game_id, seq, event["type"], payload, seat, *at, prev,
                           out if i == end else None, versions[i]))
        statements.append((_INSERT_HEAD + ",".join([row] * len(chunk)), params))
    if out is not None:
        sql, params = statements[-1]
        finished_at = None if times is None else times[-1]
        statements[-1] = (f"WITH ins AS ({sql} RETURNING 1) {_FINISH_CTE}",
                          [*params, finished_at, out, game_id])
    return statements, hashes


def _outcome_json(outcome: Any) -> str | None:
    """The stored JSON of a core outcome (None: the game goes on), as both the ending event
    and the game row carry it."""
    return None if outcome is None else dumps(outcome.to_json())


def _execute_now(sql: str, params: list[Any]) -> None:
    """Run one statement in autocommit mode, prepared (one round trip)."""
    connection.ensure_connection()
    try:
        connection.connection.execute(sql, params, prepare=True)
    except Exception:
        connection.errors_occurred = True  # the worker checks the connection before reuse
        raise


def new_rng() -> Random:
    return Random(_secrets.randbits(64))


@dataclass
class SubmitResult:
    seq: int
    records: list[Record]
    outcome: Any


class Append:
    """Events to append to one game's log after the event whose hash is ``prev``: the
    records, their hashes, the state after them (for the cache; None when not cached), the
    outcome they end the game with (None: it goes on) and the SQL that appends them
    (:func:`_statements`). ``entry``: the cached fold they extend (a command's)."""

    def __init__(
        self,
        game_id: int,
        records: list[Record],
        prev: str,
        state: Any,
        outcome: Any,
        times: list[datetime] | None = None,
        entry: Entry | None = None,
        versions: list[int] | None = None,
    ) -> None:
        self.game_id = game_id
        self.records = records
        self.state = state
        self.outcome = outcome
        self.entry = entry
        self.statements, self.hashes = _statements(game_id, records, prev, outcome, times, versions)

    @classmethod
    def decide(
        cls,
        e: Entry,
        seat: int,
        command: Any,
        rng: Random,
        pre: list[tuple[int | None, dict[str, Any]]] | None = None,
    ) -> Append:
        """A command decided on the cached state ``e``: its events after ``pre``, (seat,
        event) pairs the server appends first in the same statement (a ``timeout`` before
        the move a bot makes for the seat that ran out of time); ``command`` None: only
        those."""
        game = e.game
        pairs = list(pre or [])
        if command is not None:
            pairs += [(seat, ev) for ev in game.decide(e.state, seat, command, rng)]
        state = e.state
        for _s, ev in pairs:
            state = game.evolve(state, ev)
        if not pairs:
            # Nothing to append: never an empty INSERT (PostgreSQL would refuse its syntax).
            raise IllegalMoveError("malformed", "a command is required")
        if len(pairs) > INSERT_CHUNK:  # (one statement, autocommitted or on the event loop)
            raise IllegalMoveError("malformed", f"a command makes at most {INSERT_CHUNK} events")
        records: list[Record] = [(e.seq + i, s, ev) for i, (s, ev) in enumerate(pairs, start=1)]
        return cls(e.game_id, records, e.last_hash, state, game.outcome(state), entry=e,
                   versions=[upcast.current(e.kind)] * len(records))

    def result(self) -> SubmitResult:
        return SubmitResult(self.records[-1][0], self.records, self.outcome)

    def committed(self) -> SubmitResult:
        """Install in the cache and notify listeners (call right after the commit)."""
        assert self.entry is not None, "only a command's append extends a cached fold"
        _committed(self.entry, self.records, self.hashes, self.state, self.outcome)
        return self.result()


def append(batch: Append) -> None:
    """(sync face) execute ``batch``'s SQL on this thread's connection: inside the caller's
    transaction when there is one (in a savepoint: a refused append leaves that transaction
    usable), else one prepared statement in autocommit mode, committed when it returns
    (several: in one transaction). Raises IntegrityError or UniqueViolation when its first
    seq is taken, and what the database's guards raise."""
    if connection.in_atomic_block or len(batch.statements) > 1:
        with transaction.atomic(), connection.cursor() as cur:
            for sql, params in batch.statements:
                cur.execute(sql, params)
        return
    _execute_now(*batch.statements[0])


def check_expected(expected_seq: Any) -> int:
    if not isinstance(expected_seq, int) or isinstance(expected_seq, bool):
        raise IllegalMoveError("malformed", "expected_seq must be an integer")
    return expected_seq


def current_seq(game_id: int) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(seq), 0) FROM games_event WHERE game_id = %s", [game_id])
        return int(cur.fetchone()[0])


def _decided(
    e: Entry,
    seat: int,
    command: Any,
    expected_seq: int,
    rng: Random | None,
    pre: list[tuple[int | None, dict[str, Any]]] | None,
) -> Append:
    """(under the game's lock) the stale check both faces make, then the command decided."""
    if expected_seq != e.seq:
        raise StaleError(expected_seq, e.seq)
    return Append.decide(e, seat, command, rng or new_rng(), pre)


def submit(
    game_id: int,
    seat: int,
    command: Any,
    expected_seq: Any,
    rng: Random | None = None,
    pre: list[tuple[int | None, dict[str, Any]]] | None = None,
) -> SubmitResult:
    """Apply ``command`` from ``seat`` (already authorised by the caller) if the game is at
    ``expected_seq``. Appends the events in one statement; listeners run after commit (the
    caller's, inside a transaction). ``pre``: table events appended first, in the same
    statement (see :meth:`Append.decide`). Raises :class:`IllegalMoveError` (incl.
    :class:`StaleError`, code ``stale``)."""
    check_expected(expected_seq)
    with _db_lock(game_id):
        e = entry(game_id)
        if expected_seq > e.seq and not e.finished:
            _refresh(e)  # another process may have appended
        batch = _decided(e, seat, command, expected_seq, rng, pre)
        try:
            append(batch)
        except (IntegrityError, UniqueViolation):
            drop_cache(game_id)
            raise StaleError(expected_seq, current_seq(game_id)) from None
        except Exception:
            drop_cache(game_id)
            raise
        if connection.in_atomic_block:
            # Inside a caller's transaction: the cache and listeners when that one commits.
            transaction.on_commit(batch.committed)
            return batch.result()
        return batch.committed()


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
        e = _cache.get(game_id)
        tlock = game_lock(game_id)
        if e is None or expected_seq > e.seq or not tlock.acquire(blocking=False):
            return await SHARDS.call(game_id, submit, game_id, seat, command, expected_seq)
        try:
            batch = _decided(e, seat, command, expected_seq, None, None)
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


def _committed(
    e: Entry, records: list[Record], hashes: list[str], state: Any, outcome: Any
) -> None:
    with game_lock(e.game_id):
        if e.seq == records[0][0] - 1:
            e.extend(records, hashes, state)
            e.finished = outcome is not None
        else:  # the cache moved meanwhile: rebuild it from the log
            drop_cache(e.game_id)
    _notify(Batch(e.game_id, e, records, state, records[-1][0], outcome))


def start_running(game_id: int) -> None:
    """(inside the transaction that took the last seat, the game row locked) when the table
    has time rules, append them again with ``running: true``; clocks start here."""
    e = entry(game_id, fresh=True)
    rules = tablerules.rules_in(e.log)
    if rules is None or rules.get("running"):
        return
    ev = {**rules, "running": True}
    for _ in range(10):
        try:
            with transaction.atomic():
                submit(game_id, 0, None, e.seq, pre=[(None, ev)])
            return
        except StaleError:  # a move came in meanwhile (the first seat may move)
            e = entry(game_id, fresh=True)
    raise JoinError("the game kept moving while the last seat was taken: try again")


def append_result(
    game_id: int, winners: Any, reason: Any, scores: Any = None
) -> SubmitResult:
    """End a game not yet over with a result decided by its organiser: one ``result``
    event appended to its log (:func:`core.api.result_event`: forfeit, adjudicated, void,
    off_board), never a change of any row but the game's status. The rules core decides
    the result like any command (``Game.decide_result``: well formed, and possible for the
    game and its options: Teka's winners one partnership...). Raises OptionsError saying
    why it is refused (or that the game is over), NotFound, StaleError (a move came first:
    try again)."""
    from core.api import RESULT

    e = entry(game_id, fresh=True)
    if e.finished or e.game.outcome(e.state) is not None:
        raise OptionsError("the game is over: its result stands (the log is permanent)")
    command = {"type": RESULT, "winners": winners, "reason": reason, "scores": scores}
    try:
        events = e.game.decide_result(e.state, command)
    except IllegalMoveError as exc:
        raise OptionsError(exc.reason) from None
    return submit(game_id, 0, None, e.seq, pre=[(None, ev) for ev in events])


# --------------------------------------------------------------------------- creating


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _seat_rows(game: Game, specs: list[Any] | None, n: int) -> tuple[list[Seat], dict[int, str]]:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    if specs is not None and not isinstance(specs, list):
        raise OptionsError(
            f"seats is a list of seats like [{{'kind': 'open'}}], not {shown(specs)}"
        )
    specs = list(specs or [])
    if len(specs) > n:
        raise OptionsError(f"{len(specs)} seats given but the table has {n}")
    specs += [{"kind": Seat.OPEN}] * (n - len(specs))
    rows: list[Seat] = []
    guest_secrets: dict[int, str] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = {"kind": spec}
        if not isinstance(spec, dict):
            raise OptionsError(f"seat {i}: a seat is an object like {{'kind': 'open'}}")
        kind = spec.get("kind", Seat.OPEN)
        seat = Seat(game=game, number=i, kind=kind if isinstance(kind, str) else "")
        if kind == Seat.OPEN:
            pass
        elif kind == Seat.BOT:
            seat.bot_level = bot_level(game.kind, spec.get("level"))
            seat.name = seat_name(spec.get("name"), f"Bot ({seat.bot_level})", OptionsError)
            seat.claimed = True
        elif kind == Seat.USER:
            user = spec.get("user")
            if user is None:
                username = spec.get("username")
                user = (
                    User.objects.filter(username=username).first()
                    if isinstance(username, str)
                    else None
                )
            if user is None:
                raise OptionsError(f"seat {i}: unknown user {shown(spec.get('username'))}")
            seat.user = user
            seat.name = user.get_username()
            seat.claimed = True
        elif kind == Seat.GUEST:
            name = seat_name(spec.get("name"), f"Guest {i + 1}", OptionsError)
            secret = _secrets.token_urlsafe(16)
            seat.name = name
            seat.secret = hash_secret(secret)
            seat.claimed = True
            guest_secrets[i] = secret
        else:
            raise OptionsError(
                f"seat {i}: unknown seat kind {shown(kind)} (open, user, guest, bot)"
            )
        rows.append(seat)
    return rows, guest_secrets


MAX_NAME = 60


def seat_name(name: Any, default: str, exc: type[ValueError]) -> str:
    """A player's or bot's name as stored: a string without control characters, cut to
    :data:`MAX_NAME`; ``default`` when None or empty. Raises ``exc``."""
    if name is None or name == "":
        return default
    if not isinstance(name, str):
        raise exc("a name is a string")
    if not text_ok(name):
        raise exc("a name must not contain control characters or lone surrogates")
    return name.strip()[:MAX_NAME] or default


def bot_levels(kind: str) -> list[str]:
    try:
        from core.ai.bots import LEVELS
    except ImportError:
        return ["random"]
    return list(LEVELS.get(kind, ["random"]))


def bot_level(kind: str, level: Any) -> str:
    """A bot level name of ``kind``: a name from core.ai.bots.LEVELS, an index into that list,
    or None (the default: the second level when there is one, else "random")."""
    levels = bot_levels(kind)
    if level is None:
        return levels[1] if len(levels) > 1 else levels[0]
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < len(levels):
        return levels[level]
    if isinstance(level, str) and level in levels:
        return level
    raise OptionsError(
        f"unknown bot level {shown(level)} for {kind}: one of {', '.join(levels)}"
        f" or 0..{len(levels) - 1}"
    )


def _game_kind(kind: Any) -> CoreGame:
    if not isinstance(kind, str) or kind not in core.GAMES:
        known = ", ".join(sorted(core.GAMES))
        raise OptionsError(f"unknown game kind {shown(kind)}; one of {known}")
    return core.GAMES[kind]


def _league(league: Any, kind: str) -> League | None:
    if league is None:
        return None
    if not isinstance(league, League):
        if not isinstance(league, int) or isinstance(league, bool) or not 0 < league < 2**63:
            raise OptionsError("league is a league id (a number)")
        league = League.objects.filter(pk=league).first()
        if league is None:
            raise OptionsError("no such league")
    if league.kind != kind:
        raise OptionsError(f"league {league.name!r} plays {league.kind}, not {kind}")
    found: League = league  # (a League by now; the parameter is any input)
    return found


def _season(season: Any, league: League | None) -> Any:
    """The season a new game counts in: ``season`` (a Season or its id) checked to be one of
    ``league``'s, or None. Raises OptionsError."""
    if season is None:
        return None
    from server.leagues.models import Season

    if league is None:
        raise OptionsError("a season is one of a league's: give the league too")
    if not isinstance(season, Season):
        if not isinstance(season, int) or isinstance(season, bool) or not 0 < season < 2**63:
            raise OptionsError("season is a season id (a number)")
        season = Season.objects.filter(pk=season).first()
        if season is None:
            raise OptionsError("no such season")
    if season.league_id != league.pk:
        raise OptionsError(f"the season {season.name!r} is not one of {league.name!r}")
    return season


def _new_code() -> str:
    from .models import new_join_code

    for _ in range(20):
        code = new_join_code()
        if not Game.objects.filter(code=code).exists():
            return code
    return new_join_code() + new_join_code()[:2]


def _store_game(
    kind: str,
    options: dict[str, Any],
    seats: list[Any] | None,
    records: list[Record],
    state: Any,
    league: Any,
    created_by: Any,
    times: list[datetime] | None = None,
    created_at: datetime | None = None,
    table: dict[str, Any] | None = None,
    season: Any = None,
    versions: list[int] | None = None,
    public: bool = False,
) -> tuple[Game, dict[int, str]]:
    """Store a new game with its first ``records``. Times: the game's ``created_at`` and its
    events' are the transaction's ``now()`` (so the game is never created after its first
    event), or ``created_at`` and ``times`` as given (an imported log). ``versions``: the
    records' schema versions as recorded (an imported log; default: today's)."""
    cg = core.GAMES[kind]
    versions = list(versions or [upcast.current(kind)] * len(records))
    n = int(options["seats"])
    outcome = cg.outcome(state) if records else None
    with transaction.atomic():
        in_league = _league(league, kind)
        game = Game(
            kind=kind,
            options=options,
            num_seats=n,
            code=_new_code(),
            league=in_league,
            season=_season(season, in_league),
            created_by=created_by,
            public=public,
        )
        game.save()
        with connection.cursor() as cur:  # (auto_now_add took Python's clock, after now())
            cur.execute(
                "UPDATE games_game SET created_at = coalesce(%s, now()) WHERE id = %s "
                "RETURNING created_at",
                [created_at, game.pk],
            )
            game.created_at = cur.fetchone()[0]
        rows, guest_secrets = _seat_rows(game, seats, n)
        Seat.objects.bulk_create(rows)
        status = Game.LIVE if all(s.filled for s in rows) else Game.OPEN
        Game.objects.filter(pk=game.pk).update(status=status)
        game.status = status
        if table is not None and outcome is None:
            # The table's time rules, in the log; they run once every seat is taken.
            ev = tablerules.table_event(table, running=status == Game.LIVE)
            records = [*records, (len(records) + 1, None, ev)]
            versions.append(upcast.current(kind))
        if records:
            append(Append(game.pk, records, GENESIS, state, outcome, times, versions=versions))
        if outcome is not None:
            game.refresh_from_db()
        gid = game.pk
        if records:

            def after() -> None:
                try:
                    e = entry(gid)
                except NotFound:
                    return
                _notify(Batch(gid, e, records, e.state, e.seq, outcome))

            transaction.on_commit(after)
    return game, guest_secrets


def create_game(
    kind: str,
    options: dict[str, Any] | None = None,
    seats: list[Any] | None = None,
    league: Any = None,
    created_by: Any = None,
    rng: Random | None = None,
    table: Any = None,
    season: Any = None,
    public: Any = False,
) -> Game:
    """Create a game and append its start events. ``seats``: one spec per seat, e.g.
    ``{"kind": "open"}``, ``{"kind": "bot", "level": 2}``, ``{"kind": "user", "username": "ann"}``
    or ``{"kind": "guest", "name": "Bob"}`` (missing seats are open). ``table``: time rules
    (see :func:`server.games.tablerules.parse_rules`; None: none). ``season``: the season of
    ``league`` the game counts in (a Season or its id; None: none). ``public``: listed to
    everyone (else private: docs/protocol.md, "Private tables"). Guest secrets are on
    ``game.guest_secrets`` ({seat: secret}). Raises OptionsError."""
    if not isinstance(public, bool):
        raise OptionsError("public is true (listed to everyone) or false (private)")
    cg = _game_kind(kind)
    opts = cg.options(options if options is not None else {})
    rules = tablerules.parse_rules(kind, table)
    events = cg.start(opts, rng or new_rng())
    records: list[Record] = [(i, None, ev) for i, ev in enumerate(events, start=1)]
    seats = reseat(seats, events)
    state = cg.initial()
    for ev in events:
        state = cg.evolve(state, ev)
    game, guest_secrets = _store_game(
        kind, opts, seats, records, state, league, created_by, table=rules, season=season,
        public=public,
    )
    game.guest_secrets = guest_secrets  # type: ignore[attr-defined]
    game.seating = seating(events)  # type: ignore[attr-defined]
    return game


def seating(events: list[dict[str, Any]]) -> list[int] | None:
    """``seating[seat]`` = lobby place, when the start drew for seats (else None)."""
    for ev in events:
        if ev["type"] == "draw" and ev.get("seating") is not None:
            return [int(p) for p in ev["seating"]]
    return None


def table_seat(game: Game, place: Any) -> int:
    """The table seat of lobby ``place`` in a game just made by :func:`create_game` (the
    same number unless the start drew for seats). Raises JoinError."""
    if not isinstance(place, int) or isinstance(place, bool):
        raise JoinError("seat must be an integer")
    if not 0 <= place < game.num_seats:
        raise JoinError(f"no seat {place} at this table")
    order = getattr(game, "seating", None)
    return order.index(place) if order and place in order else place


def reseat(seats: list[Any] | None, events: list[dict[str, Any]]) -> list[Any] | None:
    """Seat specs in game-seat order. A start that draws for seats (Teka's partner draw)
    records ``seating[seat] = lobby place``; ``seats`` are given in lobby order."""
    for ev in events:
        seating = ev.get("seating")
        if ev["type"] == "draw" and seating is not None and seats and len(seats) <= len(seating):
            lobby = list(seats) + [{"kind": "open"}] * (len(seating) - len(seats))
            return [lobby[place] for place in seating]
    return seats


def import_game(
    kind: str,
    options: dict[str, Any] | None,
    seats: list[Any] | None,
    events: Iterable[Any],
    league: Any = None,
    created_by: Any = None,
    *,
    times: list[datetime] | None = None,
    created_at: datetime | None = None,
    season: Any = None,
    public: bool = False,
) -> Game:
    """Store a recorded log (with its hash chain); ``public``: listed to everyone. ``events``
    are event objects, or records
    ``{"seat": s, "event": {...}, "v": version}`` as exported by the HTTP log endpoint. Each
    event is stored as recorded, in its schema version: a record's ``"v"`` (1 when it has
    none, as in exports made before versions), today's for an event object (made by today's
    code, as the demo data and tests make them); the log is checked by folding it through the
    upcasters (:mod:`core.upcast`), its start events' options (in today's version) by the
    game's validator. The stored options are the start event's when ``options`` is None.

    Times: ``times`` (one per event, in order), else the records' ``"time"`` (ISO 8601, as
    the log export writes them) when every record has one, else now. The game is created at
    ``created_at`` (default: its first event's time) and finished at its last event's."""
    cg = _game_kind(kind)
    records: list[Record] = []
    versions: list[int] = []
    found: list[datetime] = []
    state = cg.initial()
    for i, item in enumerate(events, start=1):
        version: Any = upcast.current(kind)  # (an event object: written by today's code)
        if isinstance(item, dict) and "event" in item and "type" not in item:
            seat, ev = item.get("seat"), item["event"]
            version = item.get("v", upcast.FIRST)
            if isinstance(item.get("time"), str):
                try:
                    found.append(datetime.fromisoformat(item["time"]))
                except ValueError:
                    raise OptionsError(f"event {i}: time is not ISO 8601") from None
        else:
            seat, ev = None, item
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise OptionsError(f"event {i} is not an object with a type")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise OptionsError(f"event {i}: seat must be an integer or null")
        ev = json.loads(dumps(ev))
        try:
            version = upcast.check(kind, version)
            now = upcast.upcast(kind, version, ev)
        except EventVersionError as exc:
            raise OptionsError(f"event {i}: {exc}") from None
        if i == 1 and now["type"] != "start":
            raise OptionsError("a log begins with a start event")
        if now["type"] == "start":
            _check_start_options(cg, i, now.get("options"))
            if options is None:
                options = now["options"]
        try:
            state = cg.evolve(state, now)
        except Exception as exc:
            raise OptionsError(f"event {i} does not apply: {exc}") from exc
        records.append((i, seat, ev))
        versions.append(version)
    if not records:
        raise OptionsError("a log begins with a start event")
    opts = cg.options(options)
    if times is None and len(found) == len(records):
        times = found
    if times is not None:
        times = list(times)
        if len(times) != len(records) or any(b < a for a, b in pairwise(times)):
            raise OptionsError("times: one per event, in order")
        if created_at is None:
            created_at = times[0]
        elif created_at > times[0]:
            raise OptionsError("times: the game is created before its first event")
    game, guest_secrets = _store_game(
        kind, opts, seats, records, state, league, created_by, times, created_at,
        season=season, versions=versions, public=public,
    )
    game.guest_secrets = guest_secrets  # type: ignore[attr-defined]
    return game


def _check_start_options(cg: CoreGame, i: int, options: Any) -> None:
    """An imported start event's options (in today's version) are the game's validated
    options, defaults filled in: ``evolve`` trusts a start event, so an import is where they
    are checked. Raises OptionsError."""
    try:
        valid = cg.options(options)
    except OptionsError as exc:
        raise OptionsError(f"event {i}: the start event's options are refused: {exc}") from None
    if valid != options:
        raise OptionsError(f"event {i}: the start event's options are not in their validated "
                           f"form, defaults filled in: {dumps(valid)}")


# --------------------------------------------------------------------------- seats


def join_seat(
    game_id: int, seat: int | None = None, user: Any = None, name: str | None = None,
    code: str | None = None,
) -> tuple[int, str | None]:
    """Take an open seat (or the given one) as ``user`` or as a guest called ``name``.
    Returns (seat number, guest secret or None). A user who already holds a seat (the asked
    one, or any when none is asked) gets it back. ``code``: the seat's code the caller gave
    (checked again under the game's lock: a seat released meanwhile has a new one). Raises
    JoinError / NotFound."""
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise JoinError("seat must be an integer")
    authed = user is not None and getattr(user, "is_authenticated", False)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise NotFound(f"no game {game_id}")
        if game.status == Game.FINISHED:
            raise JoinError("the game is over")
        seats = list(game.seat_set.all())
        if code is not None and not any(s.number == seat and s.code == code for s in seats):
            raise NotFound(f"no seat with code {shown(code)}")
        if authed:
            mine = [
                s
                for s in seats
                if s.user_id == user.pk
                and s.kind != Seat.BOT  # (a seat handed to a bot is not theirs any more)
                and (seat is None or s.number == seat)
            ]
            if mine:
                return mine[0].number, None
        free = [s for s in seats if s.kind == Seat.OPEN and not s.claimed]
        if seat is not None:
            if not 0 <= seat < len(seats):
                raise JoinError(f"no seat {seat} at this table")
            free = [s for s in free if s.number == seat]
            if not free:
                raise JoinError(f"seat {seat} is taken")
        if not free:
            raise JoinError("no open seat")
        s = free[0]
        secret: str | None = None
        if authed:
            s.kind, s.user, s.name = Seat.USER, user, user.get_username()
        else:
            # (a seat handed to another phone keeps its player's name: see tables.release)
            guest = seat_name(name, s.name or f"Guest {s.number + 1}", JoinError)
            secret = _secrets.token_urlsafe(16)
            s.kind, s.name, s.secret = Seat.GUEST, guest, hash_secret(secret)
        s.claimed = True
        s.save()
        if all(x.filled for x in seats):
            if Game.objects.filter(pk=game_id, status=Game.OPEN).update(status=Game.LIVE):
                start_running(game_id)
        transaction.on_commit(lambda: _notify_seats(game_id))
        return s.number, secret


def seat_replaced(s: Seat) -> bool:
    """Whether a bot seat was a player's, handed to a bot when they left (``seat_to_bot``):
    its user or guest secret stays on the row."""
    return s.kind == Seat.BOT and (s.user_id is not None or bool(s.secret))


def seat_holder_ok(game_id: int, seat: int, user: Any = None, secret: str | None = None) -> bool:
    """Whether these credentials hold ``seat`` (a user seat: that user; a guest seat: its
    secret). Bot seats are never held by a client."""
    s = Seat.objects.filter(game_id=game_id, number=seat).first()
    if s is None or s.kind == Seat.BOT or not s.claimed:
        return False
    if s.kind == Seat.USER:
        return (
            user is not None and getattr(user, "is_authenticated", False) and s.user_id == user.pk
        )
    if s.kind == Seat.GUEST:
        return (
            isinstance(secret, str)
            and bool(s.secret)
            and hmac.compare_digest(s.secret, hash_secret(secret))
        )
    return False


def user_for_token(key: Any, request: Any = None) -> Any:
    """The user of an API token, or None (:func:`server.games.accounts.user_for_token`:
    tokens are stored hashed, and each use is noted)."""
    from .accounts import user_for_token

    return user_for_token(key, request)


# --------------------------------------------------------------------------- reading


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
