"""Schema versions of the games' events, and the upcasters that read old ones.

A log is never rewritten, so an event keeps the format it was written in. Every stored event
carries the schema version of its game's events when it was written (the event table's
``version`` column, ``"v"`` in exported records). :data:`VERSIONS` is each game's current
version; :data:`UPCASTERS` is each game's chain of upcasters, ``UPCASTERS[game][v - 1]``
the pure function that takes an event of version ``v`` (a JSON object, not modified) to the
same event in version ``v + 1``. Folding a stored log goes through :func:`upcast` first:
``evolve`` only ever sees events of the current version, and never re-validates them (a
start event's options were validated when the game was created).

A version applies to the whole log of a game: the table's events (``table``, ``timeout``,
``seat_to_bot``) and ``result`` are part of it, so changing one of those is a step in every
game's chain. How to change an event format: ``docs/protocol.md``, "Event versions".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from core.api import Game, Obj
from core.errors import EventVersionError

Upcaster = Callable[[Obj], Obj]
"""Takes an event of version ``v`` to version ``v + 1``: pure, returns a new object."""

FIRST: Final = 1
"""The version of every event written before versions existed (and of a record without
one): the format of the first versioned release."""

VERSIONS: Final[dict[str, int]] = {"teeko": 1, "tiku": 1, "tedoku": 1, "teka": 1}
"""The current schema version of each game's events: what is written today. A game not
listed (a plug-in game without a chain) is at :data:`FIRST`."""

UPCASTERS: Final[dict[str, list[Upcaster]]] = {"teeko": [], "tiku": [], "tedoku": [], "teka": []}
"""Each game's chain: ``len(UPCASTERS[game]) == VERSIONS[game] - 1``."""


def current(kind: str) -> int:
    """The schema version of ``kind``'s events written today."""
    return VERSIONS.get(kind, FIRST)


def check(kind: str, version: Any) -> int:
    """``version`` as a version of ``kind``'s events this core reads, or
    :class:`EventVersionError` saying why not (not a whole number from 1, or newer than
    the current version)."""
    if not isinstance(version, int) or isinstance(version, bool) or version < FIRST:
        raise EventVersionError(f"an event's schema version is a whole number from {FIRST}, "
                                f"not {version!r}")
    now = current(kind)
    if version > now:
        raise EventVersionError(
            f"{kind} events of schema version {version} are newer than this gamenight reads "
            f"(up to {now}): a newer release wrote them; upgrade to read this log"
        )
    return version


def upcast(kind: str, version: Any, event: Obj) -> Obj:
    """``event``, stored at ``version``, in the current version of ``kind``'s events (the
    same object when it is current). Raises :class:`EventVersionError`. (``version: Any``:
    a wrong type is this error, compiled too.)"""
    now = current(kind)
    first = check(kind, version)
    if first == now:
        return event
    steps = UPCASTERS.get(kind, [])
    out = event
    for v in range(first, now):
        out = steps[v - FIRST](out)
    return out


def upcast_log(kind: str, stored: Iterable[tuple[Any, Obj]]) -> list[Obj]:
    """The events of a stored log, ``(version, event)`` pairs in order, in the current
    version. Raises :class:`EventVersionError` naming the first event (from 1) that cannot
    be read, before any is folded."""
    now = current(kind)
    out: list[Obj] = []
    i = 0
    for version, event in stored:
        i += 1
        if version == now and type(version) is int:  # (today's: the common case, fast)
            out.append(event)
            continue
        try:
            out.append(upcast(kind, version, event))
        except EventVersionError as exc:
            raise EventVersionError(f"event {i}: {exc}") from None
    return out


def fold_stored(game: Game, stored: Iterable[tuple[Any, Obj]]) -> Any:
    """The state a stored log of ``game`` (``(version, event)`` pairs) folds to."""
    state = game.initial()
    for event in upcast_log(game.name, stored):
        state = game.evolve(state, event)
    return state


def register(kind: str, step: Upcaster) -> int:
    """Add ``step`` (today's version of ``kind`` to the next) to ``kind``'s chain and make
    that next version current; returns it. For a test that tries a new format out: the
    core's own steps are written in :data:`UPCASTERS` with :data:`VERSIONS`."""
    UPCASTERS.setdefault(kind, []).append(step)
    VERSIONS[kind] = current(kind) + 1
    return VERSIONS[kind]


def unregister(kind: str) -> None:
    """Take back the last step :func:`register` added to ``kind``'s chain."""
    UPCASTERS[kind].pop()
    VERSIONS[kind] = current(kind) - 1
