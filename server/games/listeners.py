"""Who hears of commits: the store tells whoever subscribed after each commit (the
socket layer, clocks, bots and ratings register themselves at start:
:func:`server.games.runtime.install`, ``LeaguesConfig.ready``). The store imports none of
them. A listener runs in the committing thread, and its failure never undoes the commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cache import Entry, Record

log = logging.getLogger("server.games")


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


def notify(batch: Batch) -> None:
    """(the store, right after a commit that appended events) tell every listener."""
    for fn in LISTENERS:
        try:
            fn(batch)
        except Exception:  # a listener must never undo a committed move
            log.exception("event listener failed")


def notify_seats(game_id: int) -> None:
    """(after a commit that changed a game's seats: a join, a seat released or handed to a
    bot) tell every seat listener."""
    for fn in SEAT_LISTENERS:
        try:
            fn(game_id)
        except Exception:
            log.exception("seat listener failed")
