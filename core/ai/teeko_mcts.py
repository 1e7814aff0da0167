"""Teeko engine for the bots: bitboards, playouts and UCT Monte Carlo tree search.

A position is two 25-bit ints (bit ``rank * 5 + file``, ``a1`` = 0): the pieces of the side
to move (``cur``) and of the other side (``oth``), plus the ply number. Winning is looked up
in a set of the pattern masks; "which square completes a pattern" in a dict from every
three-piece subset of a pattern to the completing squares, so finding a win in 1, or the
squares an opponent threatens, costs a few dict look-ups.

The search (see docs/ai.md):

* exact tactics at the root first: take a win in 1, never allow a win in 1 when a move
  avoids it, find forced wins in 3 plies (move, any reply, win); from ``hard`` up, also
  avoid moves that give the opponent a forced win in 3, and (within a node budget) play
  forced wins within 7 plies and avoid moves that give the opponent one;
* then UCT over a tree kept in flat lists, with a small MCTS-solver (proven wins/losses);
* playouts: take a win, block a threatened win, otherwise a random move; cut after a few
  plies and scored by a pattern-closeness evaluation.

Compiled by mypyc with the rest of core/: plain ints and lists in the hot loops.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.base import Bot, answer_draw_offer
from core.api import Obj
from core.teeko import GAME, NEIGHBOURS, TeekoState, pattern_masks, position_key, square_name

SQUARES: Final = 25
FULL: Final = (1 << 25) - 1
STEPS: Final = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
PLACE: Final = 31
HASH_SLOTS: Final = 4096
HASH_SHIFT: Final = 20
"""The "from" field of a placement's move code (moves are ``from << 5 | to``)."""
NO_MOVE: Final = -1

# Results of a playout / node value, from the point of view of one side.
WIN: Final = 1.0
DRAW: Final = 0.5
LOSS: Final = 0.0

# Weights of the pattern-closeness evaluation, by number of own pieces in a pattern that
# holds no enemy piece (0..3 pieces; 4 is a win and never evaluated).
EVAL_WEIGHTS: Final = [0, 1, 4, 16]
EVAL_SCALE: Final = 12.0


def _popcount_table() -> list[int]:
    t = [0] * 8192
    for i in range(1, 8192):
        t[i] = t[i >> 1] + (i & 1)
    return t


POP13: Final = _popcount_table()


def popcount(x: int) -> int:
    return POP13[x & 8191] + POP13[x >> 13]


def lowest_square(bit: int) -> int:
    """Index of a single-bit mask."""
    return bit.bit_length() - 1


def place_code(to: int) -> int:
    return (PLACE << 5) | to


def slide_code(frm: int, to: int) -> int:
    return (frm << 5) | to


class Tables:
    """Lookup tables of one pattern set."""

    def __init__(self, squares: str) -> None:
        masks = pattern_masks(squares)
        self.squares = squares
        self.masks: list[int] = list(masks)
        # Win test without allocating: a collision-free multiplicative hash of the patterns
        # into HASH_SLOTS slots; ``b`` wins iff ``slot[hash(b)] == b``.
        k = 0
        while True:
            k += 1
            mul = ((k * 0x9E3779B1) & 0xFFFFFFFF) | 1
            slots = [-1] * HASH_SLOTS
            ok = True
            for m in masks:
                h = ((m * mul) >> HASH_SHIFT) & (HASH_SLOTS - 1)
                if slots[h] != -1:
                    ok = False
                    break
                slots[h] = m
            if ok:
                break
        self.hmul = mul
        self.slots: list[int] = slots
        compl: dict[int, int] = {}
        for m in masks:
            for s in range(SQUARES):
                if (m >> s) & 1:
                    k = m ^ (1 << s)
                    compl[k] = compl.get(k, 0) | (1 << s)
        self.compl: dict[int, int] = compl
        self.nb: list[int] = list(NEIGHBOURS)
        dest: list[int] = []
        for sq in range(SQUARES):
            for df, dr in STEPS:
                f = sq % 5 + df
                r = sq // 5 + dr
                dest.append(r * 5 + f if 0 <= f < 5 and 0 <= r < 5 else -1)
        self.dest: list[int] = dest
        """``dest[square * 8 + direction]``: the square a king step away, or -1."""

    # ------------------------------------------------------------------ move generation

    def is_win(self, b: int) -> bool:
        return self.slots[((b * self.hmul) >> HASH_SHIFT) & (HASH_SLOTS - 1)] == b

    def moves(self, cur: int, oth: int) -> list[int]:
        """Every legal move of the side owning ``cur``."""
        occ = cur | oth
        out: list[int] = []
        if popcount(cur) < 4:
            for s in range(SQUARES):
                if not (occ >> s) & 1:
                    out.append(place_code(s))
            return out
        r = cur
        while r:
            low = r & -r
            r ^= low
            f = lowest_square(low)
            d = self.nb[f] & ~occ & FULL
            while d:
                lo2 = d & -d
                d ^= lo2
                out.append(slide_code(f, lowest_square(lo2)))
        return out

    def win_move(self, cur: int, oth: int) -> int:
        """A move of ``cur`` that wins at once, or NO_MOVE."""
        n = popcount(cur)
        empty = FULL & ~(cur | oth)
        if n == 3:
            c = self.compl.get(cur, 0) & empty
            if c:
                return place_code(lowest_square(c & -c))
            return NO_MOVE
        if n == 4:
            r = cur
            while r:
                low = r & -r
                r ^= low
                f = lowest_square(low)
                c = self.compl.get(cur ^ low, 0) & empty & self.nb[f]
                if c:
                    return slide_code(f, lowest_square(c & -c))
        return NO_MOVE

    def targets(self, cur: int, oth: int) -> int:
        """Squares ``cur`` could complete a pattern on with its next move (as a mask)."""
        n = popcount(cur)
        empty = FULL & ~(cur | oth)
        if n == 3:
            return self.compl.get(cur, 0) & empty
        t = 0
        if n == 4:
            r = cur
            while r:
                low = r & -r
                r ^= low
                t |= self.compl.get(cur ^ low, 0) & empty & self.nb[lowest_square(low)]
        return t

    def evaluate(self, cur: int, oth: int) -> float:
        """Pattern closeness: chance-like score in (0, 1) for the side to move (``cur``)."""
        sc = 0
        so = 0
        for m in self.masks:
            a = cur & m
            b = oth & m
            if not b:
                sc += EVAL_WEIGHTS[popcount(a)]
            elif not a:
                so += EVAL_WEIGHTS[popcount(b)]
        return 1.0 / (1.0 + math.exp(-(sc - so) / EVAL_SCALE))


def play(cur: int, code: int) -> int:
    """``cur`` after its move ``code``."""
    frm = code >> 5
    to = code & 31
    if frm == PLACE:
        return cur | (1 << to)
    return (cur ^ (1 << frm)) | (1 << to)


TABLES: Final[dict[str, Tables]] = {}


def tables_for(squares: str) -> Tables:
    t = TABLES.get(squares)
    if t is None:
        t = Tables(squares)
        TABLES[squares] = t
    return t


class Playout:
    """Playouts with their own small generator (xorshift32, seeded from a ``Random``)."""

    def __init__(self, tables: Tables, seed: int, smart: bool, depth: int) -> None:
        self.t = tables
        self.x = (seed & 0xFFFFFFFF) or 0x9E3779B9
        self.smart = smart
        self.depth = depth
        self.buf: list[int] = [0] * 64
        self.plies = 0

    def rand(self) -> int:
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def random_move(self, cur: int, oth: int, only: int) -> int:
        """A uniformly random legal move of ``cur``; landing on ``only`` if it is not 0 and
        some move does (else any move). NO_MOVE if there is none."""
        occ = cur | oth
        nb = self.t.nb
        if popcount(cur) < 4:
            free = FULL & ~occ
            if not only & free:
                if free:
                    while True:  # rejection sampling: uniform over the empty squares
                        s = self.rand() % SQUARES
                        if not (occ >> s) & 1:
                            return place_code(s)
                return NO_MOVE
            free &= only  # uniform over the empty target squares
            n = popcount(free)
            k = self.rand() % n
            while k:
                free &= free - 1
                k -= 1
            return place_code(lowest_square(free & -free))
        if not only:
            # Rejection sampling over (piece, direction): uniform over the legal moves.
            dest = self.t.dest
            for _ in range(64):
                x = self.rand()
                p = cur
                for _ in range(x & 3):
                    p &= p - 1
                f = lowest_square(p & -p)
                to = dest[f * 8 + ((x >> 2) & 7)]
                if to >= 0 and not (occ >> to) & 1:
                    return slide_code(f, to)
        buf = self.buf
        n = 0
        r = cur
        while r:
            low = r & -r
            r ^= low
            f = lowest_square(low)
            d = nb[f] & ~occ & FULL
            while d:
                lo2 = d & -d
                d ^= lo2
                buf[n] = slide_code(f, lowest_square(lo2))
                n += 1
        if n == 0:
            return NO_MOVE
        if only:
            m = 0
            for i in range(n):
                c = buf[i]
                if (only >> (c & 31)) & 1:
                    buf[m] = c
                    m += 1
            if m:
                n = m
        return buf[self.rand() % n]

    def run(self, cur: int, oth: int, limit: int) -> float:
        """Play from (``cur`` to move, ``oth``) for at most ``limit`` plies (the game's move
        cap) and ``self.depth`` plies (then evaluate). Result for the side to move."""
        t = self.t
        slots = t.slots
        hmul = t.hmul
        smart = self.smart
        depth = self.depth
        me = True  # is the side to move the one we score for?
        ply = 0
        while True:
            if ply >= limit:
                self.plies += ply
                return DRAW
            if ply >= depth:
                self.plies += ply
                v = t.evaluate(cur, oth)
                return v if me else 1.0 - v
            only = 0
            if smart:
                w = t.win_move(cur, oth)
                if w != NO_MOVE:
                    self.plies += ply + 1
                    return WIN if me else LOSS
                only = t.targets(oth, cur)
            code = self.random_move(cur, oth, only)
            if code == NO_MOVE:
                self.plies += ply
                return DRAW
            cur = play(cur, code)
            ply += 1
            if slots[((cur * hmul) >> HASH_SHIFT) & (HASH_SLOTS - 1)] == cur:
                self.plies += ply
                return WIN if me else LOSS
            cur, oth = oth, cur
            me = not me


# ---------------------------------------------------------------------------- tactics


def safe_moves(t: Tables, cur: int, oth: int, moves: list[int]) -> list[int]:
    """The moves after which the opponent has no win in 1."""
    return [m for m in moves if t.win_move(oth, play(cur, m)) == NO_MOVE]


def wins_in_3(t: Tables, cur: int, oth: int, code: int) -> bool:
    """After ``cur`` plays ``code`` (not itself a win), does every reply lose to a win in 1?
    (False when the opponent has no reply at all.)"""
    c1 = play(cur, code)
    if t.win_move(oth, c1) != NO_MOVE:
        return False
    replies = t.moves(oth, c1)
    if not replies:
        return False
    for r in replies:
        if t.win_move(c1, play(oth, r)) == NO_MOVE:
            return False
    return True


def forced_win_in_3(t: Tables, cur: int, oth: int, moves: list[int]) -> int:
    """A move among ``moves`` that wins by force within 3 plies, or NO_MOVE."""
    for m in moves:
        if wins_in_3(t, cur, oth, m):
            return m
    return NO_MOVE


def gives_forced_win_in_3(t: Tables, cur: int, oth: int, code: int) -> bool:
    """After ``cur`` plays ``code``, can the opponent force a win within 3 plies?"""
    c1 = play(cur, code)
    for r in t.moves(oth, c1):
        if wins_in_3(t, oth, c1, r):
            return True
    return False


def win_within(t: Tables, cur: int, oth: int, plies: int, budget: list[int]) -> bool:
    """Can ``cur`` (to move) force a win within ``plies`` plies (odd)? Exact AND/OR search;
    ``budget[0]`` counts the nodes still allowed, and when it runs out the answer is False
    (not proven)."""
    if t.win_move(cur, oth) != NO_MOVE:
        return True
    if plies < 3 or budget[0] <= 0:
        return False
    budget[0] -= 1
    placing = popcount(oth) < 4
    for m in t.moves(cur, oth):
        c1 = play(cur, m)
        if t.win_move(oth, c1) != NO_MOVE:
            continue
        if plies == 3 and (popcount(c1) < 3 or (placing and popcount(t.targets(c1, oth)) < 2)):
            # No win in 1 after any reply: with fewer than three pieces there is none, and a
            # placing opponent covers a single threatened square.
            continue
        replies = t.moves(oth, c1)
        if not replies:
            continue
        ok = True
        for r in replies:
            if not win_within(t, c1, play(oth, r), plies - 2, budget):
                ok = False
                break
        if ok:
            return True
    return False


def forced_win_in(
    t: Tables, cur: int, oth: int, moves: list[int], plies: int, budget: list[int]
) -> int:
    """A move among ``moves`` (none of them a win in 1) after which every reply leaves
    ``cur`` a forced win within ``plies - 2`` plies, or NO_MOVE."""
    for m in moves:
        c1 = play(cur, m)
        if t.win_move(oth, c1) != NO_MOVE:
            continue
        replies = t.moves(oth, c1)
        if not replies:
            continue
        ok = True
        for r in replies:
            if not win_within(t, c1, play(oth, r), plies - 2, budget):
                ok = False
                break
        if ok:
            return m
    return NO_MOVE


def gives_forced_win_in(
    t: Tables, cur: int, oth: int, code: int, plies: int, budget: list[int]
) -> bool:
    """After ``cur`` plays ``code``, can the opponent force a win within ``plies`` plies?
    (False when not proven within the budget.)"""
    return win_within(t, oth, play(cur, code), plies, budget)


# ------------------------------------------------------------------------------ search


WON: Final = 1
LOST: Final = -1
DRAWN: Final = 2
"""Solver status of a node, for its side to move (0: unknown)."""


class SearchResult:
    def __init__(self, move: int, value: float, iterations: int, draw_rate: float) -> None:
        self.move = move
        self.value = value
        """Estimated chance of winning (draw = 1/2) for the side to move at the root."""
        self.iterations = iterations
        self.draw_rate = draw_rate


class Search:
    """UCT with a small MCTS-solver; the tree is kept in flat lists indexed by node."""

    def __init__(
        self,
        tables: Tables,
        seed: int,
        exploration: float = 0.9,
        smart: bool = True,
        depth: int = 8,
        solver: bool = False,
    ) -> None:
        self.t = tables
        self.c = exploration
        self.solver = solver
        """Expansion also marks the moves that allow a win in 1 as lost (for the mover)."""
        self.playout = Playout(tables, seed, smart, depth)
        # One entry per node. A node's position is not stored: it is replayed on the way down.
        self.move: list[int] = []
        self.first: list[int] = []  # first child (children are contiguous), -1: not expanded
        self.count: list[int] = []
        self.visits: list[int] = []
        self.value: list[float] = []  # sum of results for the side that moved into the node
        self.status: list[int] = []  # solver: WON / LOST for the side to move, DRAWN, 0
        self.draws = 0
        self.cap = 1 << 30

    def add(self, move: int, status: int) -> int:
        self.move.append(move)
        self.first.append(-1)
        self.count.append(0)
        self.visits.append(0)
        self.value.append(0.0)
        self.status.append(status)
        return len(self.move) - 1

    def expand(self, node: int, cur: int, oth: int, moves: list[int]) -> None:
        t = self.t
        first = len(self.move)
        won = False
        lost = 0
        solver = self.solver
        for m in moves:
            c1 = play(cur, m)
            if t.is_win(c1):
                self.add(m, LOST)
                won = True
            elif solver and t.win_move(oth, c1) != NO_MOVE:
                self.add(m, WON)  # the opponent wins at once
                lost += 1
            else:
                self.add(m, 0)
        self.first[node] = first
        self.count[node] = len(moves)
        if won:
            self.status[node] = WON
        elif lost == len(moves) and lost > 0:
            self.status[node] = LOST

    def select(self, node: int) -> int:
        first = self.first[node]
        n = self.count[node]
        logn = math.log(self.visits[node] + 1)
        best = -1
        best_score = -1.0
        fallback = first
        for i in range(first, first + n):
            st = self.status[i]
            if st == LOST:
                return i
            if st == WON:
                fallback = i
                continue
            v = self.visits[i]
            if v == 0:
                return i
            score = self.value[i] / v + self.c * math.sqrt(logn / v)
            if score > best_score:
                best_score = score
                best = i
        return best if best >= 0 else fallback

    def resolve(self, node: int) -> bool:
        """Update the solver status of ``node`` from its children; True if it changed."""
        if self.status[node] != 0 or self.first[node] < 0:
            return False
        first = self.first[node]
        all_lost = True
        for i in range(first, first + self.count[node]):
            st = self.status[i]
            if st == LOST:
                self.status[node] = WON
                return True
            if st != WON:
                all_lost = False
        if all_lost and self.count[node] > 0:
            self.status[node] = LOST
            return True
        return False

    def iterate(self, cur: int, oth: int, ply: int) -> None:
        """One descent from the root (``cur`` to move, ``oth``, at ``ply``), a playout and
        the update of the path."""
        node = 0
        path = [0]
        t = self.t
        cap = self.cap
        while self.status[node] == 0 and ply < cap:
            if self.first[node] < 0:
                if self.visits[node] == 0:
                    break
                moves = t.moves(cur, oth)
                if not moves:
                    break
                self.expand(node, cur, oth, moves)
                if self.status[node] != 0:
                    break
            node = self.select(node)
            path.append(node)
            moved = play(cur, self.move[node])
            cur = oth
            oth = moved
            ply += 1
        st = self.status[node]
        if st == WON:
            r = WIN
        elif st == LOST:
            r = LOSS
        elif st == DRAWN or ply >= cap:
            r = DRAW
        else:
            r = self.playout.run(cur, oth, cap - ply)
        if r == DRAW:
            self.draws += 1
        changed = True
        for k in range(len(path) - 1, -1, -1):
            n = path[k]
            self.visits[n] += 1
            self.value[n] += 1.0 - r
            r = 1.0 - r
            if changed and k < len(path) - 1:
                changed = self.resolve(n)

    def run_root(
        self,
        cur: int,
        oth: int,
        ply: int,
        cap: int,
        root_moves: list[int],
        repeats: list[int],
        iterations: int,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[float], None] | None,
    ) -> SearchResult:
        """Search from (``cur`` to move, ``oth``) at ``ply``; the game is drawn at ply ``cap``.
        Only ``root_moves`` are considered at the root. ``repeats`` (empty, or one count per
        root move) says how often the position after each move already occurred: a third
        occurrence is a draw, and a winning side prefers new positions (progress)."""
        self.cap = cap
        root = self.add(NO_MOVE, 0)
        self.expand(root, cur, oth, root_moves)
        first = self.first[root]
        if repeats:
            for k in range(len(root_moves)):
                if repeats[k] >= 2 and self.status[first + k] == 0:
                    self.status[first + k] = DRAWN  # a third occurrence: drawn by repetition
        done = 0
        while done < iterations and self.status[root] == 0:
            self.iterate(cur, oth, ply)
            done += 1
            if (done & 63) == 0:
                if should_stop is not None and should_stop():
                    break
                if progress is not None and (done & 1023) == 0:
                    progress(done / iterations)
        best = self.best_child(root)
        if self.status[root] == WON:
            value = 1.0
        elif self.status[root] == LOST:
            value = 0.0
        else:
            value = self.mean(best)
            if repeats and value > 0.6 and repeats[best - first] > 0:
                # Winning: prefer a move to a position not seen yet, if nearly as good.
                for i in range(first, first + self.count[root]):
                    if (
                        repeats[i - first] == 0
                        and self.status[i] == 0
                        and self.visits[i] * 2 >= self.visits[best]
                        and self.mean(i) >= value - 0.05
                    ):
                        best = i
                        break
        v = self.visits[root]
        return SearchResult(self.move[best], value, done, self.draws / v if v else 0.0)

    def mean(self, node: int) -> float:
        """Mean result for the side that moved into ``node``."""
        v = self.visits[node]
        return self.value[node] / v if v else 0.5

    def best_child(self, node: int) -> int:
        first = self.first[node]
        best = first
        best_key = -1.0
        for i in range(first, first + self.count[node]):
            st = self.status[i]
            if st == LOST:
                return i
            v = self.visits[i]
            key = float(v) + (self.value[i] / v if v else 0.0)
            if st == WON:
                key = -0.5
            if key > best_key:
                best_key = key
                best = i
        return best


# ------------------------------------------------------------------------------- bots


class Level:
    """How one level plays. Probabilities are per decision (1.0 = always)."""

    def __init__(
        self,
        iterations: int,
        take_win: float = 1.0,
        block: float = 1.0,
        blunder: float = 0.0,
        win3: bool = True,
        avoid3: bool = False,
        smart: bool = True,
        depth: int = 8,
        solver: bool = False,
        win_plies: int = 0,
        avoid_plies: int = 0,
        budget: int = 20000,
        exploration: float = 0.9,
    ) -> None:
        self.iterations = iterations
        self.take_win = take_win
        """Chance of seeing a win in 1."""
        self.block = block
        """Chance of seeing the opponent's win in 1 (and not allowing it)."""
        self.blunder = blunder
        """Chance of playing a random (otherwise allowed) move instead of searching."""
        self.win3 = win3
        """Find forced wins in 3 plies."""
        self.avoid3 = avoid3
        """Avoid moves that give the opponent a forced win in 3 plies (when one does not)."""
        self.smart = smart
        """Playouts take a win and block a threatened win (else: uniformly random moves)."""
        self.depth = depth
        """Playouts stop after this many plies and are scored by the evaluation."""
        self.solver = solver
        """The tree marks moves that allow a win in 1 as lost when it expands a node, so
        the MCTS-solver proves wins and losses two plies sooner."""
        self.win_plies = win_plies
        """Exact search at the root for forced wins within this many plies (5, 7; 0: off)."""
        self.avoid_plies = avoid_plies
        """Drop the root moves after which the opponent has a forced win within this many
        plies (5, 7; 0: off), deepening by two plies at a time."""
        self.budget = budget
        """Node budget of all those exact searches together, per decision (a search out of
        budget proves nothing): half for our wins, the rest for the opponent's, where each
        root move's check gets a fair share of what is left."""
        self.exploration = exploration
        """UCT exploration constant."""


LEVELS: Final[dict[str, Level]] = {
    "easy": Level(60, take_win=0.9, block=0.6, blunder=0.25, win3=False),
    "medium": Level(1500),
    "hard": Level(15000, avoid3=True, win_plies=7, avoid_plies=7, budget=3000),
    "max": Level(120000, avoid3=True, win_plies=7, avoid_plies=7, budget=3000),
}

ACCEPT_BELOW: Final = 0.25
"""A bot accepts a draw offer when its winning chance is below this..."""
DEAD_DRAW: Final = 0.8
"""...or when at least this share of its simulated games end drawn."""


def command_of(code: int) -> Obj:
    frm = code >> 5
    to = square_name(code & 31)
    if frm == PLACE:
        return {"type": "place", "to": to}
    return {"type": "move", "from": square_name(frm), "to": to}


class TeekoBot(Bot):
    """Exact tactics near the root, then UCT (see the module docstring and docs/ai.md)."""

    def __init__(self, level: str, cfg: Level | None = None) -> None:
        super().__init__(GAME, level)
        self.cfg = cfg if cfg is not None else LEVELS[level]

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        state = GAME.resample(view, seat, rng)
        if not isinstance(state, TeekoState):
            raise TypeError("not a Teeko state")
        legal = GAME.legal_commands(state, seat)
        offered = state.draw_offer == 1 - seat
        if state.turn != seat or state.over:
            # Not our move: the only thing to do is answer a draw offer.
            agree = offered and self.accepts_draw(state, seat, rng, should_stop, progress)
            answer = answer_draw_offer(legal, agree)
            if answer is None:
                raise ValueError(f"seat {seat} has nothing to answer")
            return answer
        code, value, draw_rate = self.decide(state, seat, rng, should_stop, progress)
        if offered and (value < ACCEPT_BELOW or draw_rate >= DEAD_DRAW):
            accept = answer_draw_offer(legal, True)
            if accept is not None:
                return accept
        if progress is not None:
            progress(1.0)
        return command_of(code)

    def accepts_draw(
        self,
        state: TeekoState,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[float], None] | None,
    ) -> bool:
        """Our view of a position where the opponent is to move."""
        t = tables_for(state.squares)
        cur = state.pieces(state.turn)
        oth = state.pieces(seat)
        moves = t.moves(cur, oth)
        if not moves:
            return True
        cap = state.move_cap if state.move_cap > 0 else 1 << 30
        search = Search(
            t,
            rng.getrandbits(32),
            self.cfg.exploration,
            smart=self.cfg.smart,
            depth=self.cfg.depth,
            solver=self.cfg.solver,
        )
        res = search.run_root(
            cur, oth, state.ply, cap, moves, [], self.cfg.iterations, should_stop, progress
        )
        return 1.0 - res.value < ACCEPT_BELOW or res.draw_rate >= DEAD_DRAW

    def decide(
        self,
        state: TeekoState,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[float], None] | None,
    ) -> tuple[int, float, float]:
        """(move code, winning chance, share of drawn simulations) for the side to move."""
        cfg = self.cfg
        t = tables_for(state.squares)
        cur = state.pieces(seat)
        oth = state.pieces(1 - seat)
        moves = t.moves(cur, oth)
        if not moves:
            raise ValueError("no legal move")
        win = t.win_move(cur, oth)
        if win != NO_MOVE and (cfg.take_win >= 1.0 or rng.random() < cfg.take_win):
            return win, 1.0, 0.0
        candidates = moves
        if cfg.block >= 1.0 or rng.random() < cfg.block:
            safe = safe_moves(t, cur, oth, moves)
            if not safe:
                return moves[0], 0.0, 0.0  # every move loses at once
            candidates = safe
        if cfg.win3:
            w3 = forced_win_in_3(t, cur, oth, candidates)
            if w3 != NO_MOVE:
                return w3, 1.0, 0.0
        # One node budget for all the deeper searches of this decision: half of it for our
        # forced wins, the rest (and what they leave) for the opponent's.
        budget = [cfg.budget // 2]
        plies = 5
        while plies <= cfg.win_plies:
            w5 = forced_win_in(t, cur, oth, candidates, plies, budget)
            if w5 != NO_MOVE:
                return w5, 1.0, 0.0
            plies += 2
        if cfg.avoid3 and len(candidates) > 1:
            sound = [m for m in candidates if not gives_forced_win_in_3(t, cur, oth, m)]
            if sound:
                candidates = sound
        budget[0] += cfg.budget - cfg.budget // 2
        plies = 5
        while plies <= cfg.avoid_plies and len(candidates) > 1 and budget[0] > 0:
            sound = []
            for k, m in enumerate(candidates):
                each = [budget[0] // (len(candidates) - k)]  # a fair share of what is left
                spent = each[0]
                if not gives_forced_win_in(t, cur, oth, m, plies, each):
                    sound.append(m)
                budget[0] -= spent - each[0]
            if not sound:
                break
            candidates = sound
            plies += 2
        if len(candidates) == 1:
            return candidates[0], 0.5, 0.0
        if cfg.blunder > 0.0 and rng.random() < cfg.blunder:
            return candidates[rng.randrange(len(candidates))], 0.5, 0.0
        cap = state.move_cap if state.move_cap > 0 else 1 << 30
        search = Search(
            t,
            rng.getrandbits(32),
            self.cfg.exploration,
            smart=self.cfg.smart,
            depth=self.cfg.depth,
            solver=self.cfg.solver,
        )
        res = search.run_root(
            cur,
            oth,
            state.ply,
            cap,
            candidates,
            self.repeats(state, seat, cur, candidates),
            cfg.iterations,
            should_stop,
            progress,
        )
        return res.move, res.value, res.draw_rate

    def repeats(self, state: TeekoState, seat: int, cur: int, moves: list[int]) -> list[int]:
        """How often the position after each move already occurred (the rules keep the
        positions only with the repetition option; placements never repeat)."""
        if not state.repetition or state.placing():
            return []
        oth = state.pieces(1 - seat)
        out: list[int] = []
        for m in moves:
            c = play(cur, m)
            key = position_key(c, oth, 1 - seat) if seat == 0 else position_key(oth, c, 1 - seat)
            out.append(state.repeats(key))
        return out
