"""Which sound a change of the game calls for (no Kivy: the screen plays it).

The game screen takes a :class:`Snapshot` of its session at every redraw and plays what
:func:`cue` says for the change since the last one: ``end`` (the game is over), ``trick``
(a Teka trick was won), ``turn`` (it has become your turn), ``move`` (any other move).
One sound at a time, the most telling; nothing for the first look at a game, for a move
taken back, or for a game being watched that is already over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CUES = ("move", "trick", "turn", "end")


@dataclass(frozen=True)
class Snapshot:
    events: int
    my_turn: bool
    finished: bool
    tricks: int


def snapshot(session: Any) -> Snapshot:
    view = session.view or {}
    won = view.get("tricks_won") or []
    tricks = sum(int(t) for t in won if isinstance(t, int))
    return Snapshot(events=len(session.events), my_turn=bool(session.my_turn),
                    finished=session.outcome is not None, tricks=tricks)


def cue(before: Snapshot | None, after: Snapshot) -> str | None:
    if before is None or after.events < before.events:
        return None
    if after.finished and not before.finished:
        return "end"
    if after.finished:
        return None
    if after.tricks > before.tricks:
        return "trick"
    if after.my_turn and not before.my_turn:
        return "turn"
    if after.events > before.events:
        return "move"
    return None
