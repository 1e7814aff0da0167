"""Tiku board model: pieces, discs, hands; tap a piece then a highlighted square."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
FILES = "abcdef"


class TikuModel:
    def __init__(self) -> None:
        self.view: Obj = {}
        self.legal: list[Obj] = []
        self.selected: str | None = None

    def update(self, view: Obj, legal: list[Obj]) -> None:
        self.view = view or {}
        self.legal = [c for c in legal if c.get("type") in ("move", "pass")]
        if self.selected is not None and self.selected not in self.movable():
            self.selected = None

    def piece_at(self, square: str) -> Obj | None:
        for p in self.view.get("pieces", []):
            if p.get("square") == square:
                return dict(p)
        return None

    def disc_at(self, square: str) -> int | None:
        d = (self.view.get("discs") or {}).get(square)
        return int(d) if d is not None else None

    def movable(self) -> set[str]:
        return {c["from"] for c in self.legal if c["type"] == "move"}

    def targets(self) -> set[str]:
        if self.selected is None:
            return set()
        return {c["to"] for c in self.legal if c["type"] == "move" and c["from"] == self.selected}

    def diagonal_targets(self) -> set[str]:
        out = set()
        for to in self.targets():
            if to[0] != self.selected[0] and to[1] != self.selected[1]:  # type: ignore[index]
                out.add(to)
        return out

    def can_pass(self) -> bool:
        return any(c["type"] == "pass" for c in self.legal)

    def last_path(self) -> set[str]:
        last = self.view.get("last_move") or {}
        out = set(last.get("placed", [])) | set(last.get("kept", []))
        if last.get("to"):
            out.add(last["to"])
        return out

    def tap(self, square: str) -> Obj | None:
        if self.selected is not None:
            for c in self.legal:
                if c["type"] == "move" and c["from"] == self.selected and c["to"] == square:
                    self.selected = None
                    return c
        self.selected = square if square in self.movable() and square != self.selected else None
        return None
