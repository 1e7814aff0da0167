"""The Teeko solver (core.teeko_solve) and table reader (core.teeko_table), on small boards.

The full 5x5 tables take minutes to build and are never built here; a 4x4 game with three
pieces a side is solved completely and every entry compared with a plain search, and a 4x4
game with four pieces (with the square patterns) is checked like a built table.
"""

from __future__ import annotations

import time
from itertools import combinations
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from core.teeko import build_patterns, neighbour_masks, pattern_masks  # noqa: E402
from core.teeko_solve import (  # noqa: E402
    Spec,
    bounded,
    build,
    check,
    main,
    symmetries,
    transform,
)
from core.teeko_table import (  # noqa: E402
    DRAW,
    INVALID,
    Solved,
    TableError,
    colex_rank,
    layer_sizes,
    load,
    squeeze,
    table_path,
)


def sq(name: str, size: int = 4) -> int:
    """Bit of square ``"b2"`` on a ``size`` board."""
    return 1 << ((int(name[1]) - 1) * size + "abcde".index(name[0]))


def bits(names: str, size: int = 4) -> int:
    out = 0
    for n in names.split():
        out |= sq(n, size)
    return out


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Solved:
    """4x4 board, three pieces a side, lines of three win."""
    path = tmp_path_factory.mktemp("tables") / "small.tbl"
    build(Spec("axis", 4, 3), path)
    return Solved(path)


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Solved:
    """4x4 board, four pieces a side, lines of four and upright squares win."""
    path = tmp_path_factory.mktemp("tables") / "four.tbl"
    build(Spec("axis", 4, 4), path)
    return Solved(path)


def plain_solution(size: int, pieces: int, patterns: set[int]) -> dict[tuple[int, int], int]:
    """Every position's value by the definition, with no retrograde bookkeeping: the
    movement phase by sweeps (in sweep ``d`` a position is won if a move reaches a position
    lost in ``d - 1``, lost if every move reaches a position won in less than ``d``), the
    placement phase by recursion over the placements."""
    cells = size * size
    nb = neighbour_masks(size)
    masks = [sum(1 << c for c in combo) for combo in combinations(range(cells), pieces)]
    value: dict[tuple[int, int], int] = {}
    children: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for mover in masks:
        if mover in patterns:
            continue
        for opp in masks:
            if mover & opp:
                continue
            if opp in patterns:
                value[(mover, opp)] = 0
                continue
            kids = []
            for frm in range(cells):
                if mover >> frm & 1:
                    for to in range(cells):
                        if nb[frm] >> to & 1 and not (mover | opp) >> to & 1:
                            kids.append((opp, mover & ~(1 << frm) | 1 << to))
            children[(mover, opp)] = kids
    open_ = list(children)
    d = 1
    while True:
        decided = []
        for pos in open_:
            kids = [value.get(k, DRAW) for k in children[pos]]
            if any(v == d - 1 and v % 2 == 0 for v in kids):
                decided.append((pos, d))
            elif all(v < d and v % 2 == 1 for v in kids):
                decided.append((pos, d))
        if not decided and d > 2:
            break
        for pos, v in decided:
            value[pos] = v
        open_ = [p for p in open_ if p not in value]
        d += 1
    for pos in open_:
        value[pos] = DRAW

    def placed(mover: int, opp: int) -> int:
        if (mover, opp) in value:
            return value[(mover, opp)]
        if opp in patterns:  # the opponent's last placement made a line
            value[(mover, opp)] = 0
            return 0
        best: int | None = None
        for to in range(cells):
            if (mover | opp) >> to & 1:
                continue
            new = mover | 1 << to
            if new in patterns:
                v = 1
            else:
                child = placed(opp, new)
                v = child + 1 if child != DRAW else DRAW
            if best is None or _pref(v) > _pref(best):
                best = v
        assert best is not None
        value[(mover, opp)] = best
        return best

    for m in range(pieces):
        for n in (m, m + 1):
            for mover_cells in combinations(range(cells), m):
                rest = [c for c in range(cells) if c not in mover_cells]
                for opp_cells in combinations(rest, n):
                    placed(sum(1 << c for c in mover_cells), sum(1 << c for c in opp_cells))
    return value


def _pref(code: int) -> int:
    if code == DRAW:
        return 0
    return 1000 - code if code % 2 else code - 1000


def test_every_entry_of_the_small_game_matches_a_plain_search(small: Solved) -> None:
    patterns = set(build_patterns("axis", 4, 3))
    reference = plain_solution(4, 3, patterns)
    checked = 0
    for (mover, opp), want in reference.items():
        assert small.code(mover, opp) == want, (mover, opp)
        checked += 1
    # Every position the file holds was compared, except those where the mover has a
    # pattern (they cannot occur; the table marks them INVALID).
    total = sum(c for _, _, c in layer_sizes(4, 3))
    invalid = sum(1 for b in small.data[4096:] if b == INVALID)
    assert checked + invalid == total
    assert invalid > 0
    assert small.code(0, 0) == 5  # the first player wins in 5 (lines of three on 4x4)


def test_hand_built_wins_and_losses_in_the_small_game(small: Solved) -> None:
    # Win in 1: a1 b1 and c2, c2-c1 completes a1 b1 c1.
    assert small.code(bits("a1 b1 c2"), bits("a4 b4 d4")) == 1
    # Lost in 0: the opponent has just made a line.
    assert small.code(bits("a1 b2 d1"), bits("a4 b4 c4")) == 0
    # Placement: with a1 b1 on the board and c1 free the third piece wins at once.
    assert small.code(bits("a1 b1"), bits("d4 c3")) == 1
    # Every placement loses: the opponent's b1 c1 c2 threaten more lines (c2-d1 makes
    # b1 c1 d1, ...) than one piece can block; the slowest defence loses in 4.
    mover, opp = bits("a1 d4"), bits("b1 c1 c2")
    assert small.code(mover, opp) == 4
    kids = small.children(mover, opp)
    assert len(kids) == 11 and all(v != DRAW and v % 2 == 0 for _, _, v in kids)
    assert sorted(v for _, _, v in kids) == [2] * 10 + [4]
    assert bounded(small, mover, opp, 4) == 4
    # Wins in 3 and 5: the first such positions (in rank order) agree with a plain search
    # that finds no faster win.
    assert small.code(*_first_with(small, 3)) == 3
    assert small.code(*_first_with(small, 5)) == 5


def _first_with(table: Solved, code: int) -> tuple[int, int]:
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 3)]
    for mover in masks:
        for opp in masks:
            if not mover & opp and table.code(mover, opp) == code:
                # A plain search agrees and sees no faster win.
                assert bounded(table, mover, opp, code) == code
                assert bounded(table, mover, opp, code - 1) is None
                return mover, opp
    raise AssertionError(f"no position with value {code}")


def test_losing_positions_lose_whatever_the_move(small: Solved) -> None:
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 3)]
    seen = 0
    for mover in masks[::7]:
        for opp in masks[::5]:
            if mover & opp or opp in small.patterns or mover in small.patterns:
                continue
            code = small.code(mover, opp)
            kids = small.children(mover, opp)
            if code != DRAW and code % 2 == 0:
                assert all(v % 2 == 0 and v != DRAW and v <= code for _, _, v in kids)
                assert max(v for _, _, v in kids) == code
                seen += 1
    assert seen > 20


def test_a_built_table_passes_its_checks(four: Solved) -> None:
    assert check(four, samples=400, searches=30, depth=4) == []


def test_the_check_finds_a_damaged_entry(tmp_path: Path) -> None:
    path = tmp_path / "t.tbl"
    build(Spec("axis", 4, 3), path)
    good = Solved(path)
    mover, opp = _first_with(good, 3)
    at = good.index(mover, opp)
    good.close()
    raw = bytearray(path.read_bytes())
    raw[at] = 5
    path.write_bytes(bytes(raw))
    damaged = Solved(path)
    assert any("checksum" in f for f in check(damaged, samples=10, searches=2, depth=2))


def test_values_are_invariant_under_the_8_symmetries(four: Solved) -> None:
    perms = symmetries(4)
    assert len({tuple(p) for p in perms}) == 8
    patterns = set(build_patterns("tilted", 5))
    for perm in symmetries(5):  # the pattern sets map onto themselves
        assert {transform(m, perm) for m in patterns} == patterns
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 4)]
    for mover in masks[::37]:
        for opp in masks[::41]:
            if mover & opp or mover in four.patterns:
                continue
            code = four.code(mover, opp)
            assert {four.code(transform(mover, p), transform(opp, p)) for p in perms} == {code}


def test_ranks_and_squeeze() -> None:
    for k in range(5):
        masks = [sum(1 << c for c in combo) for combo in combinations(range(9), k)]
        ranks = sorted(colex_rank(m) for m in masks)
        assert ranks == list(range(len(masks)))
    assert squeeze(0b10100, 0b00011) == 0b101
    assert squeeze(0b1000001, 0b0100100) == 0b10001


def test_the_5x5_builder_tables_and_patterns_match_the_rules_core() -> None:
    for name, count in (("axis", 58), ("tilted", 78), ("classic", 44)):
        assert build_patterns(name) == pattern_masks(name)
        assert len(pattern_masks(name)) == count
    assert next(c for _, _, c in layer_sizes(5, 4)) == 75_710_250


def test_missing_damaged_and_foreign_tables(tmp_path: Path) -> None:
    assert load("axis", tmp_path) is None
    path = table_path("axis", tmp_path)
    path.write_bytes(b"nonsense")
    with pytest.raises(TableError):
        load("axis", tmp_path)
    build(Spec("axis", 4, 3), path)  # a table, but not of 5x5 Teeko
    with pytest.raises(TableError):
        load("axis", tmp_path)
    build(Spec("axis", 4, 4), tmp_path / "x.tbl")
    raw = (tmp_path / "x.tbl").read_bytes()
    (tmp_path / "y.tbl").write_bytes(raw[:-10])
    with pytest.raises(TableError, match="expected"):
        Solved(tmp_path / "y.tbl")


def test_queries_take_well_under_a_millisecond(four: Solved) -> None:
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 4)]
    pairs = [(a, b) for a in masks[::60] for b in masks[::70] if not a & b]
    assert len(pairs) > 200
    t0 = time.perf_counter()
    for a, b in pairs:
        four.code(a, b)
    per_query = (time.perf_counter() - t0) / len(pairs)
    # About 0.02 ms in pure Python: a lookup, not a search (which takes milliseconds to
    # seconds). The bound is 250 times that, room for any load short of a hang.
    assert per_query < 5e-3


def test_check_and_build_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--squares", "axis", "--dir", str(tmp_path), "--quiet"]) == 1
    assert "no table" in capsys.readouterr().out
    # An existing table is not rebuilt without --force (a 5x5 build takes minutes).
    table_path("tilted", tmp_path).write_bytes(b"x")
    assert main(["build", "--squares", "tilted", "--dir", str(tmp_path), "--quiet"]) == 0
    assert "--force rebuilds it" in capsys.readouterr().out
