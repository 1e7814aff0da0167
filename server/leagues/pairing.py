"""Pairing a round: round robin (the circle method), Swiss, Teka's rotating partnerships and
Tedoku tables. Pure functions of player ids (no database).

Written here rather than taken from PyPI: the pairing libraries found there
(``caissify-pairings``: FIDE Dutch Swiss and Berger tables; ``bracketool``,
``asyroro``...) pair two-player chess-style games only; none seats 2 v 2 partnerships
that rotate or tables of 3 to 8, and a club's needs here are small enough to state and test
(tests/test_club_pairing.py: hypothesis properties).

A :class:`Round` is tables (player ids in seat order; ``None`` is a seat for a bot) and
byes (players who sit the round out)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from math import ceil
from random import Random

Player = int


@dataclass
class Round:
    tables: list[tuple[Player | None, ...]] = field(default_factory=list)
    byes: list[Player] = field(default_factory=list)

    def players(self) -> list[Player]:
        return [p for t in self.tables for p in t if p is not None] + list(self.byes)


def round_robin_rounds(n: int) -> int:
    """Rounds of a single round robin of ``n`` players (each pair meets once)."""
    return 0 if n < 2 else n - 1 if n % 2 == 0 else n


def _circle(players: Sequence[Player], r: int) -> list[tuple[Player | None, Player | None]]:
    """Round ``r`` (0-based, taken modulo the cycle) of the circle method: the first player
    stays, the others turn one place a round; with an odd number a ``None`` joins (its
    partner has the bye)."""
    arr: list[Player | None] = list(players)
    if len(arr) % 2:
        arr.append(None)
    n = len(arr)
    if n < 2:
        return []
    r %= n - 1
    rest = arr[1:]
    rest = rest[-r:] + rest[:-r] if r else rest
    arr = [arr[0], *rest]
    return [(arr[i], arr[n - 1 - i]) for i in range(n // 2)]


def round_robin(players: Sequence[Player], r: int) -> Round:
    """Round ``r`` (0-based) of a round robin: over :func:`round_robin_rounds` rounds every
    pair meets exactly once and, with an odd number, each player has one bye. Who moves
    first alternates."""
    out = Round()
    for i, (a, b) in enumerate(_circle(players, r)):
        if a is None or b is None:
            out.byes.append(a if b is None else b)  # type: ignore[arg-type]
        else:
            out.tables.append((a, b) if (r + i) % 2 == 0 else (b, a))
    return out


def swiss(
    players: Sequence[Player],
    points: dict[Player, float],
    met: set[frozenset[Player]],
    byes: dict[Player, int],
    budget: int = 200_000,
) -> Round:
    """A Swiss round: players in order of points (then the order given), each paired with
    the nearest player below in the standings they have not met (score groups first); no
    repeat pairing while one can be avoided (a search, ``budget`` steps, else the fewest
    repeats greedily). With an odd number the bye goes to the lowest-placed player with the
    fewest byes so far."""
    order = sorted(players, key=lambda p: -points.get(p, 0.0))  # (stable: ties keep order)
    bye_order = sorted(reversed(order), key=lambda p: byes.get(p, 0))
    candidates: list[Player | None] = list(bye_order) if len(order) % 2 else [None]
    for bye in candidates:
        pool = [p for p in order if p != bye]
        steps = [budget]
        pairs = _match(pool, met, steps)
        if pairs is not None:
            return _swiss_round(pairs, bye, points)
        if steps[0] <= 0:
            break
    bye = candidates[0]
    pool = [p for p in order if p != bye]
    pairs = []
    while pool:  # greedy, repeats allowed: the best-placed with the nearest not met, if any
        a = pool.pop(0)
        j = next((i for i, b in enumerate(pool) if frozenset((a, b)) not in met), 0)
        pairs.append((a, pool.pop(j)))
    return _swiss_round(pairs, bye, points)


def _swiss_round(pairs: list[tuple[Player, Player]], bye: Player | None,
                 points: dict[Player, float]) -> Round:
    out = Round(byes=[bye] if bye is not None else [])
    for i, (a, b) in enumerate(pairs):
        out.tables.append((a, b) if i % 2 == 0 else (b, a))
    return out


def _match(pool: list[Player], met: set[frozenset[Player]], steps: list[int]
           ) -> list[tuple[Player, Player]] | None:
    if not pool:
        return []
    steps[0] -= 1
    if steps[0] < 0:
        return None
    a, rest = pool[0], pool[1:]
    for i, b in enumerate(rest):
        if frozenset((a, b)) in met:
            continue
        tail = _match(rest[:i] + rest[i + 1 :], met, steps)
        if tail is not None:
            return [(a, b), *tail]
        if steps[0] < 0:
            return None
    return None


def teka(players: Sequence[Player], r: int) -> Round:
    """Round ``r`` of Teka's rotating partnerships: the partnerships are round ``r`` of a
    round robin of the players (so over :func:`round_robin_rounds` rounds each player
    partners each other player once); two partnerships make a table (partners at seats
    0 & 2 and 1 & 3). A partnership left over plays two bots; a player without a partner
    has the bye."""
    rr = round_robin(players, r)
    pairs = list(rr.tables)
    out = Round(byes=list(rr.byes))
    shift = r % len(pairs) if pairs else 0  # (who meets whom turns too)
    pairs = pairs[shift:] + pairs[:shift]
    for i in range(0, len(pairs) - 1, 2):
        (a, c), (b, d) = pairs[i], pairs[i + 1]
        out.tables.append((a, b, c, d))
    if len(pairs) % 2:
        a, c = pairs[-1]
        out.tables.append((a, None, c, None))
    return out


def table_sizes(n: int, size: int) -> list[int]:
    """Tables of 3 to 8 for ``n`` players, near ``size`` each (as even as can be); [] when
    fewer than 3."""
    if n < 3:
        return []
    size = min(max(size, 3), 8)
    k = max(1, min(ceil(n / size), n // 3))
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def tedoku(players: Sequence[Player], r: int, size: int = 4, seed: Hashable = 0) -> Round:
    """Round ``r`` of Tedoku tables: everyone seated at tables of 3 to 8 (near ``size``),
    table mates drawn anew each round (a shuffle seeded by ``seed`` and ``r``: the same
    round comes out the same). Fewer than 3 players: byes."""
    sizes = table_sizes(len(players), size)
    if not sizes:
        return Round(byes=list(players))
    order = sorted(players)
    Random(f"{seed}:{r}").shuffle(order)
    out = Round()
    at = 0
    for s in sizes:
        out.tables.append(tuple(order[at : at + s]))
        at += s
    return out
