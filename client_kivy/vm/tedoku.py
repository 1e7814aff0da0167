"""Tedoku sheet model: pick a shape, rotate / flip it, put a ghost on the sheet, confirm."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
ROWS = "ABCDEFGHI"
BASE: dict[str, list[tuple[int, int]]] = {
    "O": [(0, 0), (0, 1), (1, 0), (1, 1)],
    "I": [(0, 0), (0, 1), (0, 2), (0, 3)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "L": [(0, 0), (1, 0), (2, 0), (2, 1)],
    "S": [(0, 1), (0, 2), (1, 0), (1, 1)],
    "B1": [(0, 0)],
    "B2": [(0, 0), (0, 1)],
    "B4": [(0, 0), (0, 1), (1, 0), (1, 1)],
}
SHAPE_NAMES = {"O": "Square", "I": "Line", "T": "T", "L": "L", "S": "S", "B1": "Bonus 1",
               "B2": "Bonus 2", "B4": "Bonus 2x2"}
DIE_NAMES = {"O": "Square", "I": "Line", "T": "T", "L": "L", "S": "S", "W": "Wild"}


def cell_name(r: int, c: int) -> str:
    return f"{ROWS[r]}{c + 1}"


def parse_cell(cell: str) -> tuple[int, int]:
    return ROWS.index(cell[0].upper()), int(cell[1:]) - 1


def normalise(cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return sorted((r - r0, c - c0) for r, c in cells)


def card_cells(card: str | None) -> set[str]:
    if not card:
        return set()
    kind, _, val = card.partition(":")
    if kind == "row":
        r = ROWS.index(val)
        return {cell_name(r, c) for c in range(9)}
    if kind == "col":
        c = int(val) - 1
        return {cell_name(r, c) for r in range(9)}
    if kind == "sector":
        k = int(val) - 1
        r0, c0 = (k // 3) * 3, (k % 3) * 3
        return {cell_name(r0 + dr, c0 + dc) for dr in range(3) for dc in range(3)}
    return set()


def card_text(card: str | None) -> str:
    if not card:
        return ""
    kind, _, val = card.partition(":")
    return {"row": "Row", "col": "Column", "sector": "Sector"}.get(kind, kind) + " " + val


class TedokuModel:
    def __init__(self) -> None:
        self.view: Obj = {}
        self.legal: list[Obj] = []
        self.viewer = 0
        self.shape: str | None = None
        self.rotation = 0
        self.flipped = False
        self.anchor: tuple[int, int] | None = None
        self._legal_sets: dict[frozenset[str], Obj] = {}

    def update(self, view: Obj, legal: list[Obj], viewer: int = 0) -> None:
        turn_changed = (view or {}).get("turn") != self.view.get("turn")
        self.view = view or {}
        self.legal = list(legal)
        self.viewer = viewer
        self._legal_sets = {frozenset(c["cells"]): c for c in self.legal
                            if c.get("type") == "place"}
        shapes = self.shapes()
        if turn_changed or self.shape not in shapes:
            self.shape = shapes[0] if shapes else None
            self.rotation, self.flipped, self.anchor = 0, False, None

    # -- what can be drawn -----------------------------------------------------------------
    def shapes(self) -> list[str]:
        """Shapes with at least one legal placement now (rolled ones first, then bonus)."""
        found = {c.get("shape") for c in self.legal if c.get("type") == "place"}
        order = ["O", "I", "T", "L", "S", "B1", "B2", "B4"]
        return [s for s in order if s in found]

    def can_skip(self) -> bool:
        return any(c.get("type") == "skip" for c in self.legal)

    def me(self) -> Obj:
        for p in self.view.get("players") or []:
            if p.get("seat") == self.viewer:
                return dict(p)
        players = self.view.get("players") or [{}]
        return dict(players[0])

    def others(self) -> list[Obj]:
        return [p for p in self.view.get("players") or [] if p.get("seat") != self.me().get("seat")]

    # -- the ghost ----------------------------------------------------------------------------
    def oriented(self) -> list[tuple[int, int]]:
        if self.shape is None:
            return []
        cells = list(BASE[self.shape])
        for _ in range(self.rotation % 4):
            cells = [(c, -r) for r, c in cells]
        if self.flipped:
            cells = [(r, -c) for r, c in cells]
        return normalise(cells)

    def rotate(self) -> None:
        self.rotation = (self.rotation + 1) % 4

    def flip(self) -> None:
        self.flipped = not self.flipped

    def choose(self, shape: str) -> None:
        if shape in self.shapes():
            self.shape = shape
            self.rotation, self.flipped = 0, False

    def ghost(self) -> list[tuple[int, int]]:
        """The cells the ghost covers, around the tapped cell (the shape's cell nearest its
        middle on it). Near the sheet's edge (a tap there, a turn there) the ghost snaps
        inside: another of its cells on the tapped one, the nearest to the middle that keeps
        it on the sheet, else the whole ghost moved in against the edge."""
        if self.anchor is None or self.shape is None:
            return []
        cells = self.oriented()
        n = len(cells)
        cr = sum(r for r, _ in cells) / n
        cc = sum(c for _, c in cells) / n
        ar, ac = self.anchor
        pivots = sorted(cells, key=lambda rc: ((rc[0] - cr) ** 2 + (rc[1] - cc) ** 2, rc))
        for pr, pc in pivots:
            placed = [(ar + r - pr, ac + c - pc) for r, c in cells]
            if all(0 <= r < 9 and 0 <= c < 9 for r, c in placed):
                return placed
        placed = [(ar + r - pivots[0][0], ac + c - pivots[0][1]) for r, c in cells]
        rows = [r for r, _ in placed]
        cols = [c for _, c in placed]
        dr = max(0, -min(rows)) - max(0, max(rows) - 8)
        dc = max(0, -min(cols)) - max(0, max(cols) - 8)
        return [(r + dr, c + dc) for r, c in placed]

    def ghost_command(self) -> Obj | None:
        cells = self.ghost()
        if not cells or any(not (0 <= r < 9 and 0 <= c < 9) for r, c in cells):
            return None
        key = frozenset(cell_name(r, c) for r, c in cells)
        cmd = self._legal_sets.get(key)
        if cmd is None:
            return None
        if self.shape in ("B1", "B2", "B4", "O") and cmd.get("shape") != self.shape:
            # a 2x2 is the O while the O may be drawn; the bonus 2x2 otherwise
            if not (self.shape == "B4" and cmd.get("shape") == "O"):
                return None
        return cmd

    def ghost_cells(self) -> list[str]:
        return [cell_name(r, c) for r, c in self.ghost() if 0 <= r < 9 and 0 <= c < 9]

    def misfit_command(self) -> Obj | None:
        """The place command the ghost would be, to ask the rules why it does not fit
        (``None`` when the ghost runs off the sheet or is not there)."""
        cells = self.ghost()
        if not cells or any(not (0 <= r < 9 and 0 <= c < 9) for r, c in cells):
            return None
        return {"type": "place", "shape": self.shape, "cells": self.ghost_cells()}

    def tap(self, cell: str) -> None:
        self.anchor = parse_cell(cell)

    def placement_for(self, cells: list[str]) -> Obj | None:
        return self._legal_sets.get(frozenset(cells))

    def set_ghost_to(self, cmd: Obj) -> None:
        """Choose the shape, orientation and anchor that put the ghost exactly on ``cmd``."""
        target = frozenset(parse_cell(c) for c in cmd["cells"])
        self.shape = cmd.get("shape") or self.shape
        for flip in (False, True):
            for rot in range(4):
                self.rotation, self.flipped = rot, flip
                for cell in cmd["cells"]:
                    self.anchor = parse_cell(cell)
                    if frozenset(self.ghost()) == target:
                        return
        raise ValueError(f"no orientation gives {cmd}")
