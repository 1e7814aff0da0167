"""Teeko board model: what to highlight and what a tap on a square sends."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
FILES = "abcde"


def squares() -> list[str]:
    return [f + str(r) for r in range(1, 6) for f in FILES]


class TeekoModel:
    def __init__(self) -> None:
        self.view: Obj = {}
        self.legal: list[Obj] = []
        self.selected: str | None = None

    def update(self, view: Obj, legal: list[Obj]) -> None:
        self.view = view or {}
        self.legal = [c for c in legal if c.get("type") in ("place", "move")]
        if self.selected is not None and self.selected not in self.movable():
            self.selected = None

    # -- what the board draws --------------------------------------------------------------
    def owner(self, square: str) -> int | None:
        for seat, sqs in enumerate(self.view.get("pieces", [[], []])):
            if square in sqs:
                return seat
        return None

    def movable(self) -> set[str]:
        return {c["from"] for c in self.legal if c["type"] == "move"}

    def targets(self) -> set[str]:
        """Squares a tap would play to now (placements, or moves of the selected piece)."""
        if any(c["type"] == "place" for c in self.legal):
            return {c["to"] for c in self.legal if c["type"] == "place"}
        if self.selected is None:
            return set()
        return {c["to"] for c in self.legal if c["type"] == "move" and c["from"] == self.selected}

    def winning(self) -> set[str]:
        return set(self.view.get("winning_squares") or [])

    def last(self) -> set[str]:
        last = self.view.get("last") or {}
        return {s for s in (last.get("from"), last.get("to")) if s}

    # -- taps --------------------------------------------------------------------------------
    def tap(self, square: str) -> Obj | None:
        """A tap on ``square``: the command to send, or ``None`` (selection changed)."""
        for c in self.legal:
            if c["type"] == "place" and c["to"] == square:
                return c
        if self.selected is not None:
            for c in self.legal:
                if c["type"] == "move" and c["from"] == self.selected and c["to"] == square:
                    self.selected = None
                    return c
        if square in self.movable():
            self.selected = None if self.selected == square else square
        else:
            self.selected = None
        return None
