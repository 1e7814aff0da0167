"""The one way events enter a game's log. The event log in PostgreSQL is the truth, and this
module its only writer: every event goes through :func:`append` (an :class:`Append`: the
events, their hash chain, one SQL text), from :func:`submit` on a database thread (sync,
autocommitted or inside the caller's transaction) or
:func:`server.games.loopsubmit.submit_async` on the event loop, which share the stale check
(:func:`decided`) and the cache (:mod:`.cache`). Appending checks the expected sequence
number (a unique ``(game, seq)`` index makes a stale append fail cleanly); each event row
carries a hash chaining it to the previous one (:mod:`.chain`). After each commit the
listeners hear of it (:mod:`.listeners`). :func:`append_result` ends a game with an
organiser's result, an event like any other.

All functions here are synchronous (Django database access); async code runs them on the
per-game worker threads of :mod:`server.games.shards`.
"""

from __future__ import annotations

import secrets as _secrets
from dataclasses import dataclass
from datetime import datetime
from random import Random
from typing import Any

from django.db import IntegrityError, connection, transaction
from psycopg.errors import UniqueViolation

from core import upcast
from core.api import IllegalMoveError, OptionsError, dumps

from .cache import Entry, Record, db_lock, drop_cache, entry, game_lock, refresh
from .chain import chain_hash_json
from .listeners import Batch, notify
from .models import Game


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


# The SQL. An :class:`Append` is a batch of one game's events with their hash chain and the
# SQL that appends them (:func:`_statements`, the same text for every writer); :func:`append`
# executes it on this thread's connection and ``submit_async`` on the event loop. The unique
# ``(game, seq)`` key is the concurrency control: an append at a seq another one took first
# fails, and the faces say so as :class:`StaleError`.


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


def decided(
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
    with db_lock(game_id):
        e = entry(game_id)
        if expected_seq > e.seq and not e.finished:
            refresh(e)  # another process may have appended
        batch = decided(e, seat, command, expected_seq, rng, pre)
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


def _committed(
    e: Entry, records: list[Record], hashes: list[str], state: Any, outcome: Any
) -> None:
    with game_lock(e.game_id):
        if e.seq == records[0][0] - 1:
            e.extend(records, hashes, state)
            e.finished = outcome is not None
        else:  # the cache moved meanwhile: rebuild it from the log
            drop_cache(e.game_id)
    notify(Batch(e.game_id, e, records, state, records[-1][0], outcome))


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
