"""Reading a solved Teeko table: the value of any position under perfect play.

A table (built by :mod:`core.teeko_solve`, ``./gamenight solve teeko``) holds one byte per
position *with the side to move*: the mover's pieces and the opponent's pieces, whatever
their colours (White and Black play by the same rules, so one table serves both). The byte
is the number of plies to the end of the game under perfect play: odd means the mover wins
in that many plies, even means the mover loses in that many (``0``: the opponent has just
made a pattern), :data:`DRAW` (255) means neither side can force a win. Perfect play means
the winner wins as fast as it can and the loser resists as long as it can.

Positions are grouped in layers by the piece counts (mover, opponent): the movement phase
``(4, 4)`` first, then the placement layers ``(3, 4), (3, 3), (2, 3), ..., (0, 0)`` (the mover
has a piece to place exactly when it has fewer than four on the board). Inside a layer a
position's index is ``rank(mover) * C(cells - m, n) + rank(opponent squeezed into the cells
the mover leaves free)``, ranks in the combinatorial number system (colex order).

The file: 4096 bytes of header (magic, a JSON description, zero padding) then the layers,
read through ``mmap``. Queries need nothing outside the standard library.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from pathlib import Path
from typing import Any, Final, Protocol

from core.teeko import PATTERN_SETS, PIECES, SIZE, build_patterns, neighbour_masks

MAGIC: Final = b"GNTEEKO\x01"
HEADER_BYTES: Final = 4096
DRAW: Final = 255
"""Byte of a position neither side can win."""
INVALID: Final = 254
"""Byte of a position that cannot occur (the mover has a pattern, or pieces overlap)."""
MAX_PLIES: Final = 253
"""The longest distance the byte can hold."""


class TableError(Exception):
    """A table file is missing, damaged or of another game."""


def _binomials(n: int) -> list[list[int]]:
    c = [[0] * (n + 2) for _ in range(n + 1)]
    for i in range(n + 1):
        c[i][0] = 1
        for k in range(1, i + 1):
            c[i][k] = c[i - 1][k - 1] + (c[i - 1][k] if k <= i - 1 else 0)
    return c


BINOM: Final[list[list[int]]] = _binomials(32)
"""``BINOM[n][k]`` is C(n, k) for n <= 32."""


def colex_rank(mask: int) -> int:
    """Rank of the set of bits of ``mask`` among the sets of as many bits, in colex order:
    ``sum C(c_i, i + 1)`` over its elements ``c_0 < c_1 < ...``."""
    r = 0
    i = 0
    while mask:
        low = mask & -mask
        r += BINOM[low.bit_length() - 1][i + 1]
        i += 1
        mask ^= low
    return r


def squeeze(mask: int, taken: int) -> int:
    """``mask`` with the squares of ``taken`` (disjoint from it) removed from the board: each
    bit moves down by the number of ``taken`` bits below it."""
    out = 0
    while mask:
        low = mask & -mask
        out |= low >> (taken & (low - 1)).bit_count()
        mask ^= low
    return out


def layer_order(pieces: int) -> list[tuple[int, int]]:
    """The layers (mover's pieces, opponent's pieces) in file order."""
    out = [(pieces, pieces)]
    for m in range(pieces - 1, -1, -1):
        out.append((m, m + 1))
        out.append((m, m))
    return out


def layer_sizes(size: int, pieces: int) -> list[tuple[int, int, int]]:
    """``(m, n, count)`` per layer in file order: C(cells, m) * C(cells - m, n)."""
    cells = size * size
    return [(m, n, BINOM[cells][m] * BINOM[cells - m][n]) for m, n in layer_order(pieces)]


def code_text(code: int) -> str:
    """``"win in 5"``, ``"loss in 4"``, ``"draw"`` (for the side to move)."""
    if code == DRAW:
        return "draw"
    if code == INVALID:
        return "impossible"
    return f"{'win' if code % 2 else 'loss'} in {code}"


def code_json(code: int) -> dict[str, Any]:
    """``{"result": "win"|"loss"|"draw", "plies": n|None, "text": ...}`` for the mover."""
    if code == DRAW:
        return {"result": "draw", "plies": None, "text": "draw"}
    if code == INVALID:
        return {"result": "impossible", "plies": None, "text": "impossible"}
    return {"result": "win" if code % 2 else "loss", "plies": code, "text": code_text(code)}


def after_move(child: int) -> int:
    """The mover's value of a move, given the value ``child`` of the position it leads to
    (where the opponent moves): a win becomes a loss one ply longer and the other way."""
    return child + 1 if child < INVALID else child


def preference(code: int) -> int:
    """A number that orders values the way the mover prefers them: a faster win first, then
    a slower win, a draw, a slow loss, a fast loss."""
    if code == DRAW:
        return 0
    if code % 2:
        return 1000 - code
    return code - 1000


def table_dir() -> Path:
    """``GAMENIGHT_TEEKO_TABLES``, else ``GAMENIGHT_VAR/teeko``, else ``var/teeko`` beside
    the ``core`` package (the repository root)."""
    own = os.environ.get("GAMENIGHT_TEEKO_TABLES", "").strip()
    if own:
        return Path(own)
    var = os.environ.get("GAMENIGHT_VAR", "").strip()
    base = Path(var) if var else Path(__file__).resolve().parent.parent / "var"
    return base / "teeko"


def table_path(squares: str, directory: Path | None = None) -> Path:
    """Where the table of pattern set ``squares`` lives."""
    if squares not in PATTERN_SETS:
        raise ValueError(f"unknown pattern set {squares!r}; one of {', '.join(PATTERN_SETS)}")
    return (directory if directory is not None else table_dir()) / f"{squares}.tbl"


def pack_header(meta: dict[str, Any]) -> bytes:
    """The 4096-byte header of a table file holding ``meta``."""
    text = json.dumps(meta, sort_keys=True).encode()
    if len(text) + 12 > HEADER_BYTES:
        raise ValueError("table header too long")
    return (MAGIC + struct.pack("<I", len(text)) + text).ljust(HEADER_BYTES, b"\0")


class Table(Protocol):
    """What the players of a table use: a :class:`Solved` file, or a stand-in in tests."""

    pieces: int
    cells: int
    patterns: frozenset[int]
    neighbours: list[int]

    def code(self, mover: int, opp: int) -> int:
        """The byte of the position: the mover's value."""
        ...

    def children(self, mover: int, opp: int) -> list[tuple[int, int, int]]:
        """The mover's plies ``(from, to, value for the mover)`` (see :func:`plies_of`)."""
        ...


def plies_of(table: Table, mover: int, opp: int) -> list[tuple[int, int, int]]:
    """The mover's plies as ``(from, to, value for the mover)``; ``from`` is -1 for a
    placement. Empty when the position is over (the opponent has a pattern)."""
    if opp in table.patterns:
        return []
    occupied = mover | opp
    out: list[tuple[int, int, int]] = []
    if mover.bit_count() < table.pieces:
        for to in range(table.cells):
            if not occupied >> to & 1:
                out.append((-1, to, _after(table, mover | 1 << to, opp)))
        return out
    bits = mover
    while bits:
        low = bits & -bits
        bits ^= low
        frm = low.bit_length() - 1
        targets = table.neighbours[frm] & ~occupied
        while targets:
            t = targets & -targets
            targets ^= t
            out.append((frm, t.bit_length() - 1, _after(table, mover ^ low | t, opp)))
    return out


def _after(table: Table, moved: int, opp: int) -> int:
    if moved in table.patterns:
        return 1
    return after_move(table.code(opp, moved))


class Solved:
    """A table opened read-only. ``code(mover, opp)`` is the byte of a position."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with open(path, "rb") as f:
                head = f.read(HEADER_BYTES)
                if len(head) < HEADER_BYTES or head[:8] != MAGIC:
                    raise TableError(f"{path} is not a Teeko table")
                (length,) = struct.unpack("<I", head[8:12])
                self.meta: dict[str, Any] = json.loads(head[12 : 12 + length])
                self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            raise TableError(f"cannot read {path}: {exc}") from exc
        except ValueError as exc:
            raise TableError(f"{path}: damaged header: {exc}") from exc
        try:
            self.size: int = int(self.meta["size"])
            self.pieces: int = int(self.meta["pieces"])
            self.patterns: frozenset[int] = frozenset(int(p) for p in self.meta["patterns"])
        except (KeyError, TypeError, ValueError) as exc:
            self.data.close()
            raise TableError(f"{path}: damaged header: {exc!r}") from exc
        self.cells: int = self.size * self.size
        self.neighbours: list[int] = neighbour_masks(self.size)
        self.offsets: dict[tuple[int, int], int] = {}
        self.widths: dict[tuple[int, int], int] = {}
        offset = HEADER_BYTES
        for m, n, count in layer_sizes(self.size, self.pieces):
            self.offsets[(m, n)] = offset
            self.widths[(m, n)] = BINOM[self.cells - m][n]
            offset += count
        if len(self.data) != offset:
            raise TableError(f"{path}: {len(self.data)} bytes, expected {offset} (incomplete?)")

    def close(self) -> None:
        self.data.close()

    def index(self, mover: int, opp: int) -> int:
        """Byte offset of the position in the file. Raises ``ValueError`` for piece counts
        no layer holds or overlapping pieces."""
        m, n = mover.bit_count(), opp.bit_count()
        key = (m, n)
        if key not in self.offsets or mover & opp:
            raise ValueError(f"no position with {m} and {n} pieces (or overlapping pieces)")
        return self.offsets[key] + colex_rank(mover) * self.widths[key] + colex_rank(
            squeeze(opp, mover)
        )

    def code(self, mover: int, opp: int) -> int:
        """The byte of the position: the mover's value (see the module docstring)."""
        return self.data[self.index(mover, opp)]

    def children(self, mover: int, opp: int) -> list[tuple[int, int, int]]:
        """The mover's plies ``(from, to, value for the mover)`` (see :func:`plies_of`)."""
        return plies_of(self, mover, opp)


_OPEN: dict[str, Table] = {}
"""The tables opened by :func:`load`, by path (:func:`opened`)."""


def opened() -> dict[str, Table]:
    """The tables :func:`load` has opened, by path: the registry itself, where a test puts a
    stand-in for a table (``monkeypatch.setitem(opened(), str(table_path(squares)),
    stub)``, so that it goes again after the test)."""
    return _OPEN


def available(path: Path) -> bool:
    """Is there a table at ``path`` to read: opened already (:func:`opened`) or built on
    disk? (Cheap: it reads nothing.)"""
    return str(path) in _OPEN or path.exists()


def load(squares: str, directory: Path | None = None) -> Table | None:
    """The table of ``squares`` if it is built (opened once and kept), else None. A damaged
    or foreign file raises :class:`TableError`."""
    path = table_path(squares, directory)
    key = str(path)
    hit = _OPEN.get(key)
    if hit is not None:
        return hit
    if not path.exists():
        return None
    table = Solved(path)
    if table.meta.get("squares") != squares or table.patterns != frozenset(
        build_patterns(squares, table.size, table.pieces)
    ):
        table.close()
        raise TableError(f"{path} is not the table of pattern set {squares!r}")
    if (table.size, table.pieces) != (SIZE, PIECES):
        table.close()
        raise TableError(f"{path} is a {table.size}x{table.size} table, not Teeko's")
    _OPEN[key] = table
    return table


def forget() -> None:
    """Close the tables opened by :func:`load` (after a rebuild, and in tests)."""
    for table in _OPEN.values():
        if isinstance(table, Solved):
            table.close()
    _OPEN.clear()
