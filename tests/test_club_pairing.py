"""Pairing properties (hypothesis): round robin, Swiss, Teka partnerships,
Tedoku tables."""

from __future__ import annotations

import itertools
from collections import Counter
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.leagues import pairing

sizes = st.integers(min_value=2, max_value=24)


def once_per_round(rnd: pairing.Round, players: list[int]) -> None:
    seen = rnd.players()
    assert len(seen) == len(set(seen)), rnd  # at most one game per round
    assert sorted(seen) == sorted(players), rnd  # everyone plays or has the bye


@given(sizes)
def test_round_robin_every_pair_exactly_once_and_byes_rotate(n):
    players = list(range(100, 100 + n))
    pairs: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    first: Counter[int] = Counter()
    rounds = pairing.round_robin_rounds(n)
    for r in range(rounds):
        rnd = pairing.round_robin(players, r)
        once_per_round(rnd, players)
        assert len(rnd.byes) == n % 2
        byes.update(rnd.byes)
        for a, b in rnd.tables:
            pairs[frozenset((a, b))] += 1
            first[a] += 1
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(pairs.values()) == {1}
    if n % 2:
        assert byes == Counter(players)  # each player sits out exactly once
    assert max(first.values()) - min(first.values(), default=0) <= rounds  # (sanity)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=20), st.integers(min_value=0, max_value=10**6))
def test_swiss_no_repeats_while_possible_one_game_a_round_byes_rotate(n, seed):
    rng = Random(seed)
    players = list(range(n))
    points = dict.fromkeys(players, 0.0)
    met: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    for r in range(max(1, n // 2)):  # (a round without a repeat always exists this long)
        rnd = pairing.swiss(players, points, met, dict(byes))
        once_per_round(rnd, players)
        assert len(rnd.byes) == n % 2
        if rnd.byes:
            # the bye goes to someone with the fewest byes so far
            assert byes[rnd.byes[0]] == min(byes[p] for p in players)
        byes.update(rnd.byes)
        for b in rnd.byes:
            points[b] += 1
        for a, b in rnd.tables:
            pair = frozenset((a, b))
            assert pair not in met, (r, a, b)
            met.add(pair)
            x = rng.random()
            points[a] += 1 if x < 0.45 else 0.5 if x < 0.55 else 0
            points[b] += 0 if x < 0.45 else 0.5 if x < 0.55 else 1


def test_swiss_pairs_within_score_groups_first():
    points = {1: 2, 2: 2, 3: 1, 4: 1, 5: 0, 6: 0}
    rnd = pairing.swiss(list(points), points, set(), {})
    assert sorted(frozenset(t) for t in rnd.tables) == sorted(
        [frozenset((1, 2)), frozenset((3, 4)), frozenset((5, 6))])
    # top two met already: each goes down to the next group
    rnd = pairing.swiss(list(points), points, {frozenset((1, 2))}, {})
    assert frozenset((1, 2)) not in {frozenset(t) for t in rnd.tables}
    # when every pairing repeats, it still pairs everyone
    everyone = {frozenset(p) for p in itertools.combinations([1, 2, 3, 4], 2)}
    rnd = pairing.swiss([1, 2, 3, 4], {}, everyone, {})
    assert sorted(rnd.players()) == [1, 2, 3, 4]


@given(st.integers(min_value=2, max_value=24))
def test_teka_each_player_partners_each_other_player(n):
    players = list(range(n))
    partners: Counter[frozenset[int]] = Counter()
    for r in range(pairing.round_robin_rounds(n)):
        rnd = pairing.teka(players, r)
        once_per_round(rnd, players)
        for t in rnd.tables:
            assert len(t) == 4
            a, b, c, d = t
            assert a is not None and c is not None  # a partnership is two players
            partners[frozenset((a, c))] += 1
            if b is not None or d is not None:
                assert b is not None and d is not None
                partners[frozenset((b, d))] += 1
    assert set(partners) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(partners.values()) == {1}


@given(st.integers(min_value=0, max_value=60), st.integers(min_value=3, max_value=8),
       st.integers(min_value=0, max_value=50))
def test_tedoku_tables_of_three_to_eight(n, size, r):
    players = list(range(n))
    rnd = pairing.tedoku(players, r, size)
    once_per_round(rnd, players)
    if n >= 3:
        assert not rnd.byes
        assert all(3 <= len(t) <= 8 for t in rnd.tables)
        lens = [len(t) for t in rnd.tables]
        assert max(lens) - min(lens) <= 1
    else:
        assert not rnd.tables
    assert pairing.tedoku(players, r, size) == rnd  # the same round comes out the same
