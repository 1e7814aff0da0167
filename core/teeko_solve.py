"""Solving Teeko by retrograde analysis, and checking a solved table.

``python -m core.teeko_solve build --squares axis`` (``./gamenight solve teeko --squares
axis``) writes ``var/teeko/axis.tbl``, read by :mod:`core.teeko_table`; ``check`` verifies a
built table. Needs numpy, so this module stays out of the compiled core (see setup.py).

The movement phase (both sides have all their pieces on the board) is solved by retrograde
analysis over an array indexed ``rank(mover) * C(cells, pieces) + rank(opponent)``: the
combinations in colex order, pairs whose pieces overlap left as holes, dropped when the
table is written. Every position starts undecided (:data:`DRAW`) with the count of its
moves; positions where the opponent has just made a pattern are lost in 0. Then, depth by
depth: the predecessors (found by stepping a piece of the side that just moved back) of
positions lost in ``d`` are won in ``d + 1``; each predecessor of a position won in ``d``
loses one move from its count, and when the count reaches 0 every move of it leads to a
win for the other side, so it is lost in ``d + 1``. What is never decided is a draw.
Because the steps run depth by depth, a win is found at its shortest distance and a loss at
its longest. The placement layers form no cycles: each is computed from the next one by
taking the best over the placements, from ``(pieces - 1, pieces)`` down to the empty board.

The builder takes the board size and piece count, so the tests solve a 4x4 game with three
pieces a side completely and compare every entry with a plain search.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import resource
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import numpy.typing as npt

from core.teeko import PATTERN_SETS, PIECES, SIZE, build_patterns, neighbour_masks
from core.teeko_table import (
    DRAW,
    HEADER_BYTES,
    INVALID,
    MAX_PLIES,
    Solved,
    TableError,
    after_move,
    code_text,
    layer_order,
    layer_sizes,
    pack_header,
    preference,
    table_path,
)

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]

FRONTIER_CHUNK = 1 << 19
"""Positions whose predecessors are generated at once (bounds the temporary arrays)."""
BLOCK = 1 << 21
"""Entries handled at once in the full passes."""
NO_MOVE = -30000
"""Preference of a placement on an occupied square."""


@dataclass(frozen=True)
class Spec:
    """The game solved: board side, pieces a side, pattern set."""

    squares: str = PATTERN_SETS[0]
    size: int = SIZE
    pieces: int = PIECES

    @property
    def cells(self) -> int:
        return self.size * self.size

    def patterns(self) -> list[int]:
        return build_patterns(self.squares, self.size, self.pieces)


class Progress:
    """A progress bar with the time so far and an estimate of the time left, on stderr.
    ``weights`` are the shares of the total work of the named phases."""

    def __init__(self, weights: dict[str, float], enabled: bool = True) -> None:
        total = sum(weights.values())
        self.weights = {k: v / total for k, v in weights.items()}
        self.done_before: dict[str, float] = {}
        acc = 0.0
        for k, v in self.weights.items():
            self.done_before[k] = acc
            acc += v
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, phase: str, fraction: float, note: str = "") -> None:
        """Report that ``phase`` is ``fraction`` (0..1) done."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.5 and fraction < 1.0:
            return
        self.last = now
        share = self.done_before[phase] + self.weights[phase] * min(1.0, max(0.0, fraction))
        elapsed = now - self.t0
        eta = elapsed * (1 - share) / share if share > 0.01 else float("nan")
        bar = "#" * int(share * 30)
        eta_text = f"{eta:4.0f} s left" if eta == eta else "   ? s left"
        sys.stderr.write(
            f"\r[{bar:<30}] {share * 100:5.1f}% {elapsed:5.0f} s, {eta_text}  {phase} {note}"
            "\033[K"
        )
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


class Combos:
    """The ``k``-element subsets of the cells in colex order: ``masks[r]`` and ``squares[r]``
    (its cells, ascending) for rank ``r``."""

    def __init__(self, cells: int, k: int) -> None:
        sets = sorted(combinations(range(cells), k), key=lambda c: c[::-1])
        self.masks: I64 = np.array([sum(1 << i for i in c) for c in sets], dtype=np.int64)
        self.squares: I64 = np.array(sets, dtype=np.int64).reshape(len(sets), k)
        self.count = len(sets)


class Builder:
    """Solves one :class:`Spec`; :meth:`build` returns the layers in file order (compact)."""

    def __init__(self, spec: Spec, progress: Progress | None = None) -> None:
        if spec.cells > 25 or not 1 <= spec.pieces <= 4 or 2 * spec.pieces >= spec.cells:
            raise ValueError(f"cannot solve {spec}: at most 25 cells and 4 pieces a side")
        self.spec = spec
        self.progress = progress
        p, cells = spec.pieces, spec.cells
        self.combos = {k: Combos(cells, k) for k in range(p + 1)}
        self.rank = np.zeros(1 << cells, dtype=np.uint16)
        for c in self.combos.values():
            self.rank[c.masks] = np.arange(c.count, dtype=np.uint16)
        full = self.combos[p]
        self.is_pattern = np.zeros(full.count, dtype=bool)
        self.is_pattern[self.rank[np.array(spec.patterns(), dtype=np.int64)]] = True
        nb = neighbour_masks(spec.size)
        self.neighbour_mask: I64 = np.array(nb, dtype=np.int64)
        steps = np.zeros((cells, 8), dtype=np.int64)
        for i, m in enumerate(nb):
            bits = [1 << j for j in range(cells) if m >> j & 1]
            steps[i, : len(bits)] = bits
        self.steps: I64 = steps
        self.max_plies = 0

    def _tick(self, phase: str, fraction: float, note: str = "") -> None:
        if self.progress is not None:
            self.progress.update(phase, fraction, note)

    # -- the movement phase ---------------------------------------------------------------

    def movement(self) -> U8:
        """The movement phase in the holey layout (``INVALID`` in the holes)."""
        full = self.combos[self.spec.pieces]
        n = full.count
        val = np.full(n * n, DRAW, dtype=np.uint8)
        count = np.zeros(n * n, dtype=np.uint8)
        rows = max(1, BLOCK // n)
        for r0 in range(0, n, rows):
            r1 = min(n, r0 + rows)
            x = full.masks[r0:r1, None]
            y = full.masks[None, :]
            occupied = x | y
            c = np.zeros((r1 - r0, n), dtype=np.uint8)
            for k in range(self.spec.pieces):
                reach = self.neighbour_mask[full.squares[r0:r1, k]][:, None]
                c += np.bitwise_count(reach & ~occupied).astype(np.uint8)
            v = np.full((r1 - r0, n), DRAW, dtype=np.uint8)
            # Lost in 0: the opponent has just made a pattern. (A side with no move would
            # lose too; on the boards solved here four pieces always have one.)
            v[self.is_pattern[None, :] | (c == 0)] = 0
            v[((x & y) != 0) | self.is_pattern[r0:r1, None]] = INVALID
            val[r0 * n : r1 * n] = v.ravel()
            count[r0 * n : r1 * n] = c.ravel()
            self._tick("movement: set-up", r1 / n)
        valid = int(np.count_nonzero(val != INVALID))
        decided = 0
        depth = 0
        frontier = np.flatnonzero(val == 0)
        while frontier.size:
            if depth >= MAX_PLIES:
                raise ValueError(f"distances beyond {MAX_PLIES} plies do not fit a byte")
            for f0 in range(0, frontier.size, FRONTIER_CHUNK):
                chunk = frontier[f0 : f0 + FRONTIER_CHUNK]
                preds = self._predecessors(chunk)
                preds = preds[val[preds] == DRAW]
                if depth % 2 == 0:  # the chunk is lost: its predecessors are won
                    val[preds] = depth + 1
                else:  # the chunk is won: one refutation fewer for each predecessor
                    np.subtract.at(count, preds, 1)
                    val[preds[count[preds] == 0]] = depth + 1
                self._tick(
                    "movement: retrograde",
                    (decided + f0 + chunk.size) / valid,
                    f"depth {depth}",
                )
            decided += frontier.size
            self.max_plies = max(self.max_plies, depth)
            depth += 1
            frontier = np.flatnonzero(val == depth)
        self._tick("movement: retrograde", 1.0, f"depth {depth}")
        return val

    def _predecessors(self, chunk: I64) -> I64:
        """Holey indices of the positions one ply before those of ``chunk``: the opponent
        (who has just moved) steps a piece back; the mover of the result is that opponent."""
        full = self.combos[self.spec.pieces]
        n = full.count
        rx = chunk // n
        ry = chunk - rx * n
        y = full.masks[ry]
        occupied = full.masks[rx] | y
        out: list[I64] = []
        for k in range(self.spec.pieces):
            s = full.squares[ry, k]
            base = y ^ (np.int64(1) << s)
            back = self.steps[s]
            ok = (back != 0) & ((back & occupied[:, None]) == 0)
            moved = (base[:, None] | back)[ok]
            rows = np.broadcast_to(rx[:, None], ok.shape)[ok]
            out.append(self.rank[moved].astype(np.int64) * n + rows)
        return np.concatenate(out)

    # -- the placement layers ----------------------------------------------------------------

    def placement(self, m: int, n: int, after: U8) -> U8:
        """Layer ``(m, n)`` (the mover places its piece ``m + 1``) in the holey layout, from
        ``after``, the holey layer ``(n, m + 1)`` its placements lead to."""
        cm, cn = self.combos[m], self.combos[n]
        width = self.combos[m + 1].count
        last = m + 1 == self.spec.pieces
        lut = np.array([preference(after_move(s)) for s in range(256)], dtype=np.int16)
        lut[INVALID] = NO_MOVE
        out = np.empty(cm.count * cn.count, dtype=np.uint8)
        rows = max(1, BLOCK // (4 * cn.count))
        column = np.arange(cn.count, dtype=np.int64)[None, :] * width
        for r0 in range(0, cm.count, rows):
            r1 = min(cm.count, r0 + rows)
            x = cm.masks[r0:r1, None]
            y = cn.masks[None, :]
            occupied = x | y
            best = np.full((r1 - r0, cn.count), NO_MOVE, dtype=np.int16)
            for t in range(self.spec.cells):
                bit = np.int64(1) << t
                placed = x | bit
                r = self.rank[placed].astype(np.int64)
                key = lut[after[column + np.minimum(r, width - 1)]]
                if last:
                    key = np.where(self.is_pattern[np.minimum(r, width - 1)], 999, key)
                key = np.where((occupied & bit) == 0, key, NO_MOVE)
                np.maximum(best, key, out=best)
            code = np.where(best > 0, 1000 - best, np.where(best < 0, best + 1000, DRAW))
            v = code.astype(np.uint8)
            if n == self.spec.pieces:
                v[np.broadcast_to(self.is_pattern[None, :], v.shape)] = 0
            v[(x & y) != 0] = INVALID
            out[r0 * cn.count : r1 * cn.count] = v.ravel()
            self._tick(f"placement {m}+{n}", r1 / cm.count)
        return out

    def compact(self, m: int, n: int, holey: U8) -> U8:
        """The entries of layer ``(m, n)`` without the holes, in file order."""
        cm, cn = self.combos[m], self.combos[n]
        grid = holey.reshape(cm.count, cn.count)
        rows = max(1, BLOCK // cn.count)
        parts = []
        for r0 in range(0, cm.count, rows):
            r1 = min(cm.count, r0 + rows)
            keep = (cm.masks[r0:r1, None] & cn.masks[None, :]) == 0
            parts.append(grid[r0:r1][keep])
        out = np.concatenate(parts)
        return out

    def build(self) -> list[U8]:
        """Every layer, compact, in file order (see :func:`core.teeko_table.layer_order`)."""
        p = self.spec.pieces
        holey: dict[tuple[int, int], U8] = {(p, p): self.movement()}
        for m, n in layer_order(p)[1:]:
            holey[(m, n)] = self.placement(m, n, holey[(n, m + 1)])
            codes = holey[(m, n)]
            played = codes[codes < INVALID]
            if played.size:
                self.max_plies = max(self.max_plies, int(played.max()))
        out = []
        for m, n in layer_order(p):
            out.append(self.compact(m, n, holey.pop((m, n))))
        return out


def write_table(spec: Spec, layers: list[U8], path: Path, stats: dict[str, Any]) -> None:
    """Write the layers with their header to ``path`` (through a temporary file)."""
    expected = [c for _, _, c in layer_sizes(spec.size, spec.pieces)]
    if [int(a.size) for a in layers] != expected:
        raise ValueError(f"layer sizes {[a.size for a in layers]} != {expected}")
    crc = 0
    for a in layers:
        crc = zlib.crc32(a.tobytes(), crc)
    meta = {
        "format": 1,
        "game": "teeko",
        "squares": spec.squares,
        "size": spec.size,
        "pieces": spec.pieces,
        "patterns": spec.patterns(),
        "crc32": crc,
        **stats,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    # a temporary file of this builder's own, published whole by one rename
    tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as f:
            f.write(pack_header(meta))
            for a in layers:
                f.write(a.tobytes())
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


class Busy(RuntimeError):
    """Another process is building the same table."""


def lock_path(path: Path) -> Path:
    """The lock file of the table at ``path`` (``<squares>.building``)."""
    return path.with_suffix(".building")


class build_lock:  # (used like a function: ``with build_lock(path):``)
    """Hold the one build of the table at ``path`` across every process (the CLI, the
    server's builds): an exclusive ``flock`` on ``<squares>.building``, which the kernel lets
    go when the holder dies, so no lock is ever left behind. Entering raises :class:`Busy`
    at once when another process holds it."""

    def __init__(self, path: Path) -> None:
        self.lock = lock_path(path)
        self.name = path.name
        self.fd = -1

    def __enter__(self) -> None:
        self.lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Busy(f"the table {self.name} is being built by another process") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # (lets go of the flock)
            self.fd = -1


def building(path: Path) -> bool:
    """Whether some process holds the build lock of the table at ``path`` now (creates
    nothing)."""
    try:
        fd = os.open(lock_path(path), os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def build(spec: Spec, path: Path, progress: Progress | None = None) -> dict[str, Any]:
    """Solve ``spec`` and write its table to ``path``; returns the figures of the build."""
    t0 = time.monotonic()
    builder = Builder(spec, progress)
    layers = builder.build()
    seconds = time.monotonic() - t0
    sizes = layer_sizes(spec.size, spec.pieces)
    counts = {"win": 0, "loss": 0, "draw": 0}
    for a in layers:
        played = a[a != INVALID]
        counts["draw"] += int(np.count_nonzero(played == DRAW))
        counts["win"] += int(np.count_nonzero((played % 2 == 1) & (played != DRAW)))
        counts["loss"] += int(np.count_nonzero(played % 2 == 0))
    start = int(layers[-1][0])
    stats: dict[str, Any] = {
        "build_seconds": round(seconds, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "max_plies": builder.max_plies,
        "positions": sum(c for _, _, c in sizes),
        "counts": counts,
        "start": code_text(start),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_table(spec, layers, path, stats)
    stats["file_bytes"] = path.stat().st_size
    return stats


# -- checks -------------------------------------------------------------------------------


def symmetries(size: int) -> list[list[int]]:
    """The 8 symmetries of the square board as square permutations (identity first)."""
    out = []
    for turn in range(4):
        for mirror in (False, True):
            perm = []
            for i in range(size * size):
                f, r = i % size, i // size
                if mirror:
                    f = size - 1 - f
                for _ in range(turn):
                    f, r = r, size - 1 - f
                perm.append(r * size + f)
            out.append(perm)
    return out


def transform(mask: int, perm: list[int]) -> int:
    """``mask`` with every square ``i`` moved to ``perm[i]``."""
    out = 0
    while mask:
        low = mask & -mask
        mask ^= low
        out |= 1 << perm[low.bit_length() - 1]
    return out


def bounded(table: Solved, mover: int, opp: int, depth: int) -> int | None:
    """The exact value (a table byte) of the position if the game ends within ``depth``
    plies under perfect play, else None: a plain depth-limited search that does not read
    the table (``table`` only supplies the board)."""
    if opp in table.patterns:
        return 0
    if depth == 0:
        return None
    best_win = -1
    longest_loss = -1
    open_child = False
    for child_mover, child_opp in _child_positions(table, mover, opp):
        if child_opp in table.patterns:
            return 1
        r = bounded(table, child_mover, child_opp, depth - 1)
        if r is None:
            open_child = True
        elif r % 2 == 0:
            if best_win < 0 or r + 1 < best_win:
                best_win = r + 1
        else:
            longest_loss = max(longest_loss, r + 1)
    if best_win > 0:
        return best_win
    if open_child or longest_loss < 0:
        return None
    return longest_loss


def _child_positions(table: Solved, mover: int, opp: int) -> Iterator[tuple[int, int]]:
    occupied = mover | opp
    if mover.bit_count() < table.pieces:
        for t in range(table.cells):
            if not occupied >> t & 1:
                yield opp, mover | 1 << t
        return
    bits = mover
    while bits:
        low = bits & -bits
        bits ^= low
        targets = table.neighbours[low.bit_length() - 1] & ~occupied
        while targets:
            t = targets & -targets
            targets ^= t
            yield opp, mover ^ low | t


def random_position(rng: Random, table: Solved) -> tuple[int, int]:
    """A random position of a random layer, weighted towards the movement phase, with no
    pattern for the mover."""
    while True:
        m, n = rng.choice(layer_order(table.pieces) + [(table.pieces, table.pieces)] * 4)
        cells = rng.sample(range(table.cells), m + n)
        mover = sum(1 << c for c in cells[:m])
        opp = sum(1 << c for c in cells[m:])
        if mover not in table.patterns:
            return mover, opp


def check(table: Solved, samples: int = 2000, searches: int = 100, depth: int = 4,
          seed: int = 1, progress: Progress | None = None) -> list[str]:
    """Verify a table; returns the failures (empty when it passed): the file's checksum;
    ``samples`` random positions whose value must be the best over their plies and equal in
    all 8 symmetric images; ``searches`` positions (half of them decided within ``depth``)
    whose value a plain ``depth``-ply search must reproduce."""
    failures: list[str] = []
    crc = zlib.crc32(memoryview(table.data)[HEADER_BYTES:])
    if crc != table.meta.get("crc32"):
        failures.append(f"checksum {crc} != {table.meta.get('crc32')} in the header")
    rng = Random(seed)
    perms = symmetries(table.size)
    for i in range(samples):
        mover, opp = random_position(rng, table)
        code = table.code(mover, opp)
        children = table.children(mover, opp)
        if children:
            best = max(children, key=lambda c: preference(c[2]))[2]
        else:
            best = 0 if opp in table.patterns else INVALID
        if best != code:
            failures.append(f"{mover:#x}/{opp:#x}: {code_text(code)}, best ply {code_text(best)}")
        for perm in perms[1:]:
            image = table.code(transform(mover, perm), transform(opp, perm))
            if image != code:
                failures.append(f"{mover:#x}/{opp:#x}: {code_text(code)}, image {code_text(image)}")
        if progress is not None:
            progress.update("successors and symmetry", (i + 1) / samples)
    done = 0
    close = 0
    while done < searches:
        mover, opp = random_position(rng, table)
        code = table.code(mover, opp)
        if code > depth and close < searches // 2 and done - close >= searches // 2:
            continue  # the first half: positions decided within the search depth
        close += code <= depth
        found = bounded(table, mover, opp, depth)
        want = code if code <= depth else None
        if found != want:
            failures.append(f"{mover:#x}/{opp:#x}: table {code_text(code)}, search {found}")
        done += 1
        if progress is not None:
            progress.update("depth-limited search", done / searches)
    return failures


PUBLISHED = {"classic": "draw", "axis": "win in 13"}
"""Published values of the empty board (White to move); see docs/ai.md for where our pattern
sets differ from the published rule sets."""


# -- command line -------------------------------------------------------------------------


def _build_command(spec: Spec, path: Path, quiet: bool) -> int:
    """(holding the build lock) solve ``spec`` into ``path`` with a progress bar."""
    progress = Progress(
        {
            "movement: set-up": 4,
            "movement: retrograde": 80,
            **{f"placement {m}+{n}": 4.0 / (1 + 4 * (3 - m)) for m, n in layer_order(4)[1:]},
        },
        enabled=not quiet,
    )
    stats = build(spec, path, progress)
    progress.finish()
    print(f"{path}: {stats['file_bytes']} bytes, built in {stats['build_seconds']} s, "
          f"peak RSS {stats['peak_rss_mib']} MiB, start position: {stats['start']}, "
          f"longest: {stats['max_plies']} plies")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="gamenight solve teeko",
        description="Solve Teeko (build), or verify a built table (check).",
    )
    ap.add_argument("action", nargs="?", choices=("build", "check", "info"), default="build")
    ap.add_argument("--squares", choices=PATTERN_SETS, default=PATTERN_SETS[0])
    ap.add_argument("--dir", type=Path, default=None, help="table directory (var/teeko)")
    ap.add_argument("--force", action="store_true", help="rebuild an existing table")
    ap.add_argument("--samples", type=int, default=2000, help="check: positions sampled")
    ap.add_argument("--searches", type=int, default=100, help="check: positions searched")
    ap.add_argument("--depth", type=int, default=4, help="check: search depth in plies")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    path = table_path(args.squares, args.dir)
    spec = Spec(args.squares)
    if args.action == "build":
        if path.exists() and not args.force:
            print(f"{path} exists (--force rebuilds it)")
            return 0
        try:
            with build_lock(path):
                if path.exists() and not args.force:  # (built meanwhile by another process)
                    print(f"{path} exists (--force rebuilds it)")
                    return 0
                return _build_command(spec, path, args.quiet)
        except Busy as exc:
            print(f"{exc}: not started twice")
            return 3
    try:
        table = Solved(path)
    except TableError as exc:
        print(f"no table: {exc} (build it with ./gamenight solve teeko --squares {args.squares})")
        return 1
    start = table.code(0, 0)
    if args.action == "info":
        meta = {k: v for k, v in table.meta.items() if k != "patterns"}
        print(f"{path}: {meta}")
        return 0
    t0 = time.monotonic()
    progress = Progress({"successors and symmetry": 1, "depth-limited search": 1},
                        enabled=not args.quiet)
    failures = check(table, args.samples, args.searches, args.depth, progress=progress)
    progress.finish()
    print(f"start position: {code_text(start)}", end="")
    published = PUBLISHED.get(args.squares)
    if published is not None:
        print(f" (published: {published}{'' if published == code_text(start) else ', differs'})")
    else:
        print()
    for f in failures[:20]:
        print("FAIL", f)
    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failures, "
          f"{time.monotonic() - t0:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
