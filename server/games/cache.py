"""The per-process cache of game folds: ``(seq, state, log)`` per game (an :class:`Entry`),
so a move costs one ``decide`` + ``evolve`` + one INSERT. :func:`entry` loads a game's log
and folds it on a miss; the cache is bounded (:func:`cache_size` games, :func:`cache_bytes`
bytes, least recently used out first) and can be dropped at any time (:func:`drop_cache`):
the log is the truth. Each game has a lock (:func:`game_lock`); an entry is only replaced or
extended under it. Database threads take it with :func:`db_lock` (connection first, lock
second).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection

import core
from core import upcast
from core.api import Game as CoreGame
from core.api import dumps
from core.errors import EventVersionError

from .chain import GENESIS

SNAPSHOT_EVERY = 256


def cache_size() -> int:
    """The most games whose fold is kept in memory (least recently used go first):
    ``GAMENIGHT_CACHE_GAMES`` (settings)."""
    size: Any = settings.GAMENIGHT.get("CACHE_GAMES", 4096)
    return int(size)


def cache_bytes() -> int:
    """The most bytes (estimated, :attr:`Entry.nbytes`) the cached folds may take together:
    ``GAMENIGHT_CACHE_MB`` (settings)."""
    mb: Any = settings.GAMENIGHT.get("CACHE_MB", 256)
    return int(float(mb) * 2**20)

RECORD_OVERHEAD = 400
"""Bytes a cached event takes beyond its JSON text times :data:`JSON_FACTOR`: the tuple,
the dict and its small objects (measured with tracemalloc on the soak's games)."""
JSON_FACTOR = 6
SNAPSHOT_BYTES = 4096


class NotFound(LookupError):
    """No such game (or no seat with the code given)."""


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
"""Folds of the games in use, least recently used first; bounded by :func:`cache_size` games
and :func:`cache_bytes` bytes."""
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
    size, most = cache_size(), cache_bytes()
    while len(_cache) > 1 and (len(_cache) > size or _cache_bytes[0] > most):
        _gid, old = _cache.popitem(last=False)
        _cache_bytes[0] -= old.counted
        old.counted = 0


def cache_figures() -> dict[str, int]:
    """Games and estimated bytes in the cache, and game locks alive (for tests and soaks)."""
    with _cache_lock:
        return {"games": len(_cache), "bytes": _cache_bytes[0], "locks": len(_game_locks)}


def db_lock(game_id: int) -> GameLock:
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
        with db_lock(game_id):
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
        with db_lock(game_id):
            refresh(e)
    return e


def refresh(e: Entry) -> None:
    records, hashes = _fetch_records(e.game_id, e.seq, e.kind)
    if records:
        state = e.state
        for _seq, _seat, event in records:
            state = e.game.evolve(state, event)
        e.extend(records, hashes, state)
        e.finished = e.game.outcome(state) is not None
