"""Teeko rules core (core.teeko): patterns, placement and moves, wins, draws, notation."""

from __future__ import annotations

import itertools
import json
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import ALL, SPECTATOR, IllegalMoveError, OptionsError, Outcome
from core.api import dumps, fold
from core.teeko import (
    GAME,
    NEIGHBOURS,
    parse_square,
    pattern_masks,
    square_name,
)

RNG = Random(0)


def sq_mask(*names: str) -> int:
    m = 0
    for n in names:
        m |= 1 << parse_square(n)
    return m


def cmd(text: str) -> dict[str, Any]:
    """Test shorthand: ``c3`` places, ``b2-c3`` moves, other words are command types."""
    if "-" in text:
        frm, to = text.split("-")
        return {"type": "move", "from": frm, "to": to}
    if len(text) == 2:
        return {"type": "place", "to": text}
    return {"type": text}


class Table:
    """A game driven through the public API, with its event log."""

    def __init__(self, **options: Any) -> None:
        self.log = GAME.start(GAME.options(options), RNG)
        self.state = fold(GAME, self.log)

    def send(self, seat: int, text: str | dict[str, Any]) -> list[dict[str, Any]]:
        command = cmd(text) if isinstance(text, str) else text
        events = GAME.decide(self.state, seat, command, RNG)
        for ev in events:
            self.state = GAME.evolve(self.state, ev)
        self.log.extend(events)
        return events

    def play(self, *moves: str) -> list[dict[str, Any]]:
        """Each move by the seat to move."""
        events: list[dict[str, Any]] = []
        for m in moves:
            events = self.send(GAME.to_act(self.state)[0], m)
        return events

    def refuse(self, seat: int, text: str | dict[str, Any], code: str, words: str) -> str:
        before = dumps(GAME.view(self.state, ALL))
        command = cmd(text) if isinstance(text, str) else text
        with pytest.raises(IllegalMoveError) as err:
            GAME.decide(self.state, seat, command, RNG)
        assert err.value.code == code, err.value.reason
        assert words in err.value.reason
        assert dumps(GAME.view(self.state, ALL)) == before
        return err.value.reason

    @property
    def view(self) -> dict[str, Any]:
        return GAME.view(self.state, SPECTATOR)

    @property
    def outcome(self) -> Outcome | None:
        return GAME.outcome(self.state)


# A full placement that forms no pattern in any set: White a1 c1 e2 b4, Black b1 d1 a3 e4.
QUIET_PLACEMENT = ("a1", "b1", "c1", "d1", "e2", "a3", "b4", "e4")


# -- patterns ------------------------------------------------------------------------------


def names(mask: int) -> set[str]:
    return {square_name(i) for i in range(25) if mask >> i & 1}


def xy(name: str) -> tuple[int, int]:
    i = parse_square(name)
    return i % 5, i // 5


def is_line(cells: list[tuple[int, int]]) -> bool:
    cells = sorted(cells)
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(cells)}
    return len(steps) == 1 and steps.pop() in {(1, 0), (0, 1), (1, 1), (1, -1)}


def square_side(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(squared side, 1 if axis-aligned else 0) when the four cells are a square's corners."""
    d = sorted((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 for a, b in itertools.combinations(cells, 2))
    if not (d[0] > 0 and d[0] == d[1] == d[2] == d[3] and d[4] == d[5] == 2 * d[0]):
        return None
    axis = any(
        (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 == d[0] and (a[0] == b[0] or a[1] == b[1])
        for a, b in itertools.combinations(cells, 2)
    )
    return d[0], int(axis)


def brute_force(kind: str) -> set[frozenset[str]]:
    """Every winning set of four squares, from the geometric definition of each rule set."""
    out: set[frozenset[str]] = set()
    for combo in itertools.combinations([square_name(i) for i in range(25)], 4):
        cells = [xy(n) for n in combo]
        side = square_side(cells)
        if (
            is_line(cells)
            or (side is not None and kind == "tilted")
            or (side is not None and kind == "axis" and side[1] == 1)
            or (side == (1, 1) and kind == "classic")
        ):
            out.add(frozenset(combo))
    return out


@pytest.mark.parametrize(("kind", "count"), [("axis", 58), ("tilted", 78), ("classic", 44)])
def test_pattern_counts_and_geometry(kind: str, count: int) -> None:
    masks = pattern_masks(kind)
    assert len(masks) == count
    assert len(set(masks)) == count
    assert all(m.bit_count() == 4 and 0 < m < 1 << 25 for m in masks)
    assert {frozenset(names(m)) for m in masks} == brute_force(kind)


def test_pattern_families() -> None:
    lines = [m for m in pattern_masks("axis") if is_line([xy(n) for n in names(m)])]
    assert len(lines) == 28
    rows = [m for m in lines if len({xy(n)[1] for n in names(m)}) == 1]
    cols = [m for m in lines if len({xy(n)[0] for n in names(m)}) == 1]
    assert (len(rows), len(cols), len(lines) - len(rows) - len(cols)) == (10, 10, 8)
    sides = [square_side([xy(n) for n in names(m)]) for m in pattern_masks("axis")]
    assert [sides.count((s * s, 1)) for s in (1, 2, 3, 4)] == [16, 9, 4, 1]
    axis, tilted, classic = (set(pattern_masks(k)) for k in ("axis", "tilted", "classic"))
    assert classic < axis < tilted


@pytest.mark.parametrize(
    ("squares", "axis", "tilted", "classic"),
    [
        (("a1", "e1", "a5", "e5"), True, True, False),  # corners of the board
        (("a1", "b1", "a2", "b2"), True, True, True),  # 2x2
        (("b2", "d2", "b4", "d4"), True, True, False),  # side 2
        (("b1", "c2", "b3", "a2"), False, True, False),  # tilted (1,1)
        (("c1", "d3", "b4", "a2"), False, True, False),  # tilted (1,2)
        (("a3", "c1", "e3", "c5"), False, True, False),  # tilted (2,2), the big diamond
        (("a1", "b1", "c1", "d1"), True, True, True),  # row
        (("b2", "b3", "b4", "b5"), True, True, True),  # column
        (("b1", "c2", "d3", "e4"), True, True, True),  # diagonal
        (("e1", "d2", "c3", "b4"), True, True, True),  # anti-diagonal
        (("a1", "b1", "c1", "e1"), False, False, False),  # gap in the row
        (("a1", "c1", "a2", "c2"), False, False, False),  # rectangle, not a square
        (("a1", "b2", "c3", "e5"), False, False, False),
    ],
)
def test_pattern_membership(
    squares: tuple[str, ...], axis: bool, tilted: bool, classic: bool
) -> None:
    m = sq_mask(*squares)
    found = tuple(m in pattern_masks(kind) for kind in ("axis", "tilted", "classic"))
    assert found == (axis, tilted, classic)


def test_pattern_masks_unknown_and_fresh() -> None:
    with pytest.raises(ValueError):
        pattern_masks("hexagons")
    pattern_masks("axis").clear()
    assert len(pattern_masks("axis")) == 58


def test_squares_and_neighbours() -> None:
    assert [square_name(i) for i in (0, 4, 5, 12, 24)] == ["a1", "e1", "a2", "c3", "e5"]
    assert all(parse_square(square_name(i)) == i for i in range(25))
    for bad in ("f1", "a0", "a6", "", "a10", "3c", "c 3", "C3", "c3 ", " c3", "c3\n"):
        with pytest.raises(ValueError):
            parse_square(bad)
    with pytest.raises(ValueError):
        square_name(25)
    counts = [NEIGHBOURS[i].bit_count() for i in range(25)]
    assert counts[0] == counts[4] == counts[20] == counts[24] == 3
    assert counts[parse_square("c1")] == 5 and counts[parse_square("c3")] == 8
    assert NEIGHBOURS[parse_square("b2")] == sq_mask("a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3")
    assert all(
        (NEIGHBOURS[i] >> j & 1) == (NEIGHBOURS[j] >> i & 1) for i in range(25) for j in range(25)
    )


def test_nobody_can_ever_be_blocked() -> None:
    """Four pieces always touch at least five empty-or-foreign squares, and the opponent has
    only four pieces: a player always has a move, so the rules need no pass."""
    for combo in itertools.combinations(range(25), 4):
        own = sum(1 << i for i in combo)
        around = 0
        for i in combo:
            around |= NEIGHBOURS[i]
        assert (around & ~own).bit_count() >= 5


# -- options -------------------------------------------------------------------------------


def test_options() -> None:
    assert GAME.options(None) == {"seats": 2, "squares": "axis", "repetition": False, "move_cap": 0}
    assert (
        GAME.options({"squares": "tilted", "repetition": True, "move_cap": 50, "seats": 2})[
            "move_cap"
        ]
        == 50
    )
    for bad in (
        {"seats": 3},
        {"squares": "round"},
        {"repetition": "yes"},
        {"move_cap": -1},
        {"move_cap": True},
        {"move_cap": 2.5},
        {"colour": "red"},
    ):
        with pytest.raises(OptionsError):
            GAME.options(bad)
    variants = [GAME.options(o) for o in GAME.example_options()]
    assert {v["squares"] for v in variants} == {"axis", "tilted", "classic"}
    assert any(v["repetition"] for v in variants)
    assert all(v["move_cap"] > 0 for v in variants)


def test_start_and_first_view() -> None:
    t = Table()
    assert t.log == [
        {
            "type": "start",
            "options": {"seats": 2, "squares": "axis", "repetition": False, "move_cap": 0},
        }
    ]
    v = t.view
    assert v["board"] == ["....."] * 5
    assert (v["phase"], v["turn"], v["to_act"], v["in_hand"], v["ply"]) == (
        "place",
        0,
        [0],
        [4, 4],
        0,
    )
    assert v["last"] is None and v["outcome"] is None and v["winning_squares"] is None
    assert GAME.legal_commands(t.state, 0)[:2] == [
        {"type": "place", "to": "a1"},
        {"type": "place", "to": "b1"},
    ]
    assert len(GAME.legal_commands(t.state, 0)) == 25 + 2  # + resign, offer_draw
    assert GAME.legal_commands(t.state, 1) == [{"type": "resign"}, {"type": "offer_draw"}]


# -- placing and moving --------------------------------------------------------------------


def test_placement_then_moves() -> None:
    t = Table()
    assert t.play("c3") == [{"type": "placed", "seat": 0, "to": "c3"}]
    assert t.view["board"][2] == "..W.." and t.view["in_hand"] == [3, 4] and t.view["turn"] == 1
    t.play("b2")
    assert t.view["board"][3] == ".B..."
    assert t.view["last"] == {"type": "placed", "seat": 1, "to": "b2"}
    t.play("a1", "e5", "e1", "a5", "b4")
    assert t.view["phase"] == "place" and t.view["in_hand"] == [0, 1]
    t.play("d4")
    assert t.view["phase"] == "move" and t.view["in_hand"] == [0, 0] and t.view["turn"] == 0
    assert t.view["pieces"] == [["a1", "e1", "c3", "b4"], ["b2", "d4", "a5", "e5"]]
    moves = GAME.legal_commands(t.state, 0)
    assert {"type": "move", "from": "a1", "to": "b1"} in moves
    assert {"type": "move", "from": "a1", "to": "b2"} not in moves  # occupied
    assert all(m["type"] != "place" for m in moves)
    assert t.play("c3-d3") == [{"type": "moved", "seat": 0, "from": "c3", "to": "d3"}]
    assert t.view["board"] == ["B...B", ".W.B.", "...W.", ".B...", "W...W"]
    assert t.view["last"] == {"type": "moved", "seat": 0, "from": "c3", "to": "d3"}


def test_win_on_fourth_placement() -> None:
    t = Table()
    t.play("a1", "a5", "b1", "b5", "c1", "c5")
    assert t.outcome is None
    events = t.play("d1")
    assert events == [
        {"type": "placed", "seat": 0, "to": "d1"},
        {
            "type": "game_over",
            "winners": [0],
            "reason": "pattern",
            "squares": ["a1", "b1", "c1", "d1"],
        },
    ]
    assert t.outcome == Outcome([0], "pattern")
    v = t.view
    assert v["winning_squares"] == ["a1", "b1", "c1", "d1"]
    assert v["phase"] == "over" and v["to_act"] == [] and v["outcome"]["winners"] == [0]
    assert GAME.legal_commands(t.state, 0) == GAME.legal_commands(t.state, 1) == []
    t.refuse(1, "d5", "game_over", "over")
    t.refuse(1, "resign", "game_over", "over")


def test_black_wins_on_placement() -> None:
    t = Table()
    t.play("a1", "b2", "e1", "b3", "a5", "b4", "c1")
    assert t.outcome is None
    t.play("b5")
    assert t.outcome == Outcome([1], "pattern")
    assert t.view["winning_squares"] == ["b2", "b3", "b4", "b5"]


def test_win_on_a_move() -> None:
    t = Table()
    t.play("a2", "a1", "b2", "b1", "c2", "c1", "e3", "e5")
    assert t.outcome is None and t.view["phase"] == "move"
    events = t.play("e3-d2")
    assert events == [
        {"type": "moved", "seat": 0, "from": "e3", "to": "d2"},
        {
            "type": "game_over",
            "winners": [0],
            "reason": "pattern",
            "squares": ["a2", "b2", "c2", "d2"],
        },
    ]
    assert t.outcome == Outcome([0], "pattern")
    assert t.view["winning_squares"] == ["a2", "b2", "c2", "d2"]


FAMILIES = [
    # name, the pattern, the pattern sets where it wins
    ("row", ("b3", "c3", "d3", "e3"), {"axis", "tilted", "classic"}),
    ("column", ("d1", "d2", "d3", "d4"), {"axis", "tilted", "classic"}),
    ("diagonal", ("a2", "b3", "c4", "d5"), {"axis", "tilted", "classic"}),
    ("anti-diagonal", ("e1", "d2", "c3", "b4"), {"axis", "tilted", "classic"}),
    ("square 1", ("c3", "d3", "c4", "d4"), {"axis", "tilted", "classic"}),
    ("square 2", ("a1", "c1", "a3", "c3"), {"axis", "tilted"}),
    ("square 3", ("b2", "e2", "b5", "e5"), {"axis", "tilted"}),
    ("square 4 (board corners)", ("a1", "e1", "a5", "e5"), {"axis", "tilted"}),
    ("tilted (1,1)", ("c2", "d3", "c4", "b3"), {"tilted"}),
    ("tilted (1,2)", ("c1", "d3", "b4", "a2"), {"tilted"}),
    ("tilted (2,1)", ("b1", "d2", "c4", "a3"), {"tilted"}),
    ("tilted (1,3)", ("d1", "e4", "b5", "a2"), {"tilted"}),
    ("tilted (2,2)", ("c1", "e3", "c5", "a3"), {"tilted"}),
]


def family_setup(pattern: tuple[str, ...]) -> tuple[list[str], str]:
    """A placement (White: three of the pattern and a piece next to the fourth; Black: four
    harmless pieces) and White's move that completes the pattern."""
    target = parse_square(pattern[-1])
    taken = {parse_square(n) for n in pattern}
    helper = next(i for i in range(25) if NEIGHBOURS[target] >> i & 1 and i not in taken)
    white = [*pattern[:3], square_name(helper)]
    free = [i for i in range(25) if i not in taken and i != helper]
    tilted = set(pattern_masks("tilted"))
    black = next(c for c in itertools.combinations(free, 4) if sum(1 << i for i in c) not in tilted)
    order = [x for pair in zip(white, [square_name(i) for i in black], strict=True) for x in pair]
    return order, f"{square_name(helper)}-{pattern[-1]}"


@pytest.mark.parametrize(("family", "pattern", "wins_in"), FAMILIES, ids=[f[0] for f in FAMILIES])
@pytest.mark.parametrize("kind", ["axis", "tilted", "classic"])
def test_each_family_wins_where_it_counts(
    family: str, pattern: tuple[str, ...], wins_in: set[str], kind: str
) -> None:
    assert (sq_mask(*pattern) in pattern_masks(kind)) == (kind in wins_in)
    # On a move:
    placement, move = family_setup(pattern)
    t = Table(squares=kind)
    t.play(*placement)
    assert t.outcome is None and t.view["phase"] == "move"
    t.play(move)
    if kind in wins_in:
        assert t.outcome == Outcome([0], "pattern")
        assert t.view["winning_squares"] == sorted(pattern, key=parse_square)
    else:
        assert t.outcome is None and t.view["turn"] == 1
    # On the fourth placement (Black placed on the squares White used above):
    t = Table(squares=kind)
    black = placement[1::2]
    for k in range(4):
        t.play(pattern[k])
        if k < 3:
            t.play(black[k])
    assert (t.outcome == Outcome([0], "pattern")) == (kind in wins_in)


# -- refused commands ----------------------------------------------------------------------


def test_refused_during_placement() -> None:
    t = Table()
    t.play("c3")
    t.refuse(1, "c3", "illegal", "c3 is already occupied")
    t.refuse(0, "d3", "not_your_turn", "Black's turn")
    t.refuse(1, "c3-c4", "illegal", "4 pieces to place")
    t.refuse(0, "c3-c4", "not_your_turn", "Black's turn")
    t.refuse(1, {"type": "place"}, "malformed", '"to"')
    t.refuse(1, {"type": "place", "to": "f6"}, "malformed", "not a square")
    t.refuse(1, {"type": "place", "to": 12}, "malformed", "square")
    t.refuse(1, {"type": "move", "from": "c3"}, "malformed", '"to"')
    t.refuse(1, {"type": "castle"}, "malformed", "unknown command type")
    t.refuse(1, {"to": "c4"}, "malformed", "type")
    t.refuse(1, ["place", "c4"], "malformed", "JSON object")
    for seat in (-1, 2, "0", None, True):
        t.refuse(seat, "d4", "wrong_seat", "no seat")  # type: ignore[arg-type]
    t.refuse(1, "accept_draw", "illegal", "no draw offer")
    t.refuse(1, "decline_draw", "illegal", "no draw offer")
    t.play("d4", "a1")
    assert t.view["in_hand"] == [2, 3]
    t.refuse(1, "d4-d5", "illegal", "3 pieces to place")


def test_refused_during_moves() -> None:
    t = Table()
    t.play(*QUIET_PLACEMENT)  # White a1 c1 e2 b4, Black b1 d1 a3 e4
    t.refuse(0, "c3", "illegal", "all your pieces are on the board")
    t.refuse(0, "a1-c3", "illegal", "c3 is not next to a1")
    t.refuse(0, "b1-b2", "illegal", "the piece on b1 is Black's")
    t.refuse(0, "c3-c4", "illegal", "there is no piece on c3")
    t.refuse(0, "a1-b1", "illegal", "b1 is already occupied")  # onto the opponent
    t.refuse(0, "b4-a3", "illegal", "a3 is already occupied")
    t.refuse(0, "a1-a1", "illegal", "another square")
    t.refuse(1, "b1-b2", "not_your_turn", "White's turn")
    t.play("c1-c2")
    t.refuse(1, "d1-c2", "illegal", "c2 is already occupied")  # onto a piece
    t.refuse(1, "e4-e2", "illegal", "not next to")
    assert t.view["ply"] == 9


def test_refused_reasons_read_well() -> None:
    t = Table()
    reason = t.refuse(0, {"type": "place", "to": "z9"}, "malformed", "'z9'")
    assert "a-e" in reason and "1-5" in reason
    t.play("c3")
    t.send(1, "resign")
    t.refuse(0, "d4", "game_over", "the game is over")
    t.refuse(0, "offer_draw", "game_over", "the game is over")


# -- draws, resignation, repetition, move cap ----------------------------------------------


SHUFFLE = ("a1-a2", "b1-b2", "a2-a1", "b2-b1")  # after QUIET_PLACEMENT: back to the start


def test_repetition_draw_on_third_occurrence() -> None:
    t = Table(repetition=True)
    t.play(*QUIET_PLACEMENT)
    start = t.view["history"]
    assert len(start) == 1 and start[0] == "...../.W..B/B..../....W/WBWB. 0"
    t.play(*SHUFFLE)  # the start position, White to move, for the 2nd time
    assert t.outcome is None
    t.play(*SHUFFLE[:3])
    assert t.outcome is None
    events = t.play(SHUFFLE[3])  # 3rd time
    assert events[-1] == {"type": "game_over", "winners": [], "reason": "repetition"}
    assert t.outcome == Outcome([], "repetition")
    # Other positions met twice do not count: same moves without the rule go on.
    t = Table()
    t.play(*QUIET_PLACEMENT, *SHUFFLE, *SHUFFLE, *SHUFFLE)
    assert t.outcome is None and t.view["history"] == []


def test_repetition_needs_the_same_side_to_move() -> None:
    t = Table(repetition=True)
    t.play(*QUIET_PLACEMENT)  # the start position, White to move: once
    # White loses a tempo with a triangle: the same squares, now with Black to move.
    t.play("e2-e3", "b1-b2", "e3-d2", "b2-b1", "d2-e2")
    assert t.view["board"] == GAME.view(fold(GAME, t.log[:9]), ALL)["board"]
    t.play("b1-b2", "a1-a2", "b2-b1", "a2-a1")  # 2nd time with Black to move
    t.play("b1-b2", "a1-a2", "b2-b1")
    assert t.outcome is None
    t.play("a2-a1")  # 3rd time with Black to move
    assert t.outcome == Outcome([], "repetition")
    assert t.view["ply"] == 8 + 5 + 4 + 4


def test_resample_keeps_history_and_offer() -> None:
    t = Table(repetition=True, move_cap=100)
    t.play(*QUIET_PLACEMENT, *SHUFFLE, *SHUFFLE[:3])
    t.send(0, "offer_draw")
    view = json.loads(json.dumps(GAME.view(t.state, 1)))
    again = GAME.resample(view, 1, Random(5))
    assert dumps(GAME.view(again, ALL)) == dumps(GAME.view(t.state, ALL))
    # the rebuilt state knows the repetition: the next shuffle draws there too
    GAME.decide(again, 1, {"type": "decline_draw"}, RNG)
    state = again
    for ev in GAME.decide(state, 1, cmd(SHUFFLE[3]), RNG):
        state = GAME.evolve(state, ev)
    assert GAME.outcome(state) == Outcome([], "repetition")


def test_move_cap() -> None:
    t = Table(move_cap=10)
    t.play(*QUIET_PLACEMENT, "a1-a2")
    assert t.outcome is None and t.view["ply"] == 9
    events = t.play("b1-b2")
    assert events[-1] == {"type": "game_over", "winners": [], "reason": "move_cap"}
    assert t.outcome == Outcome([], "move_cap")
    t.refuse(0, "a2-a1", "game_over", "over")
    # A pattern on the capped ply still wins.
    t = Table(move_cap=9)
    t.play("a2", "a1", "b2", "b1", "c2", "c1", "e3", "e5")
    t.play("e3-d2")
    assert t.outcome == Outcome([0], "pattern")
    # The cap can fall inside the placement phase.
    t = Table(move_cap=3)
    t.play("a1", "b1", "c1")
    assert t.outcome == Outcome([], "move_cap")


def test_resign_by_either_seat_at_any_time() -> None:
    t = Table()
    t.play("c3")
    assert {"type": "resign"} in GAME.legal_commands(t.state, 0)  # not White's turn
    events = t.send(0, "resign")
    assert events == [
        {"type": "resigned", "seat": 0},
        {"type": "game_over", "winners": [1], "reason": "resign"},
    ]
    assert t.outcome == Outcome([1], "resign")
    t = Table()
    t.play(*QUIET_PLACEMENT)
    t.send(1, "resign")
    assert t.outcome == Outcome([0], "resign") and t.view["to_act"] == []


def test_draw_offer_accepted() -> None:
    t = Table()
    t.play("c3")
    assert t.send(0, "offer_draw") == [{"type": "draw_offered", "seat": 0}]
    assert t.view["draw_offer"] == 0
    t.refuse(0, "offer_draw", "illegal", "already offered")
    t.refuse(0, "accept_draw", "illegal", "your own draw offer")
    t.refuse(1, "offer_draw", "illegal", "accept or decline")
    assert GAME.legal_commands(t.state, 1)[-2:] == [
        {"type": "accept_draw"},
        {"type": "decline_draw"},
    ]
    assert GAME.legal_commands(t.state, 0)[-1] == {"type": "resign"}
    events = t.send(1, "accept_draw")
    assert events == [
        {"type": "draw_accepted", "seat": 1},
        {"type": "game_over", "winners": [], "reason": "draw_agreed"},
    ]
    assert t.outcome == Outcome([], "draw_agreed")
    assert t.view["draw_offer"] is None


def test_draw_offer_declined_or_lapsed() -> None:
    t = Table()
    t.send(1, "offer_draw")  # off turn
    assert t.send(0, "decline_draw") == [{"type": "draw_declined", "seat": 0}]
    assert t.view["draw_offer"] is None and t.view["turn"] == 0
    t.refuse(0, "accept_draw", "illegal", "no draw offer")
    # An offer stands while the offerer moves ...
    t.send(0, "offer_draw")
    t.play("c3")
    assert t.view["draw_offer"] == 0
    # ... and lapses when the opponent moves instead of answering.
    t.play("d4")
    assert t.view["draw_offer"] is None
    t.refuse(0, "accept_draw", "illegal", "no draw offer")
    t.refuse(1, "accept_draw", "illegal", "no draw offer")
    # A new offer is allowed afterwards.
    t.send(1, "offer_draw")
    t.send(0, "accept_draw")
    assert t.outcome == Outcome([], "draw_agreed")


def test_events_fold_and_round_trip() -> None:
    t = Table(squares="tilted", repetition=True, move_cap=40)
    t.play(*QUIET_PLACEMENT, *SHUFFLE)
    t.send(1, "offer_draw")
    t.play("a1-a2")
    t.send(0, "resign")
    log = json.loads(json.dumps(t.log))
    assert dumps(GAME.view(fold(GAME, log), ALL)) == dumps(GAME.view(t.state, ALL))
    assert GAME.secrets(t.state, 0) == []
    assert all(GAME.redact(ev, 1) == ev for ev in log)
    assert GAME.view(t.state, 0) == GAME.view(t.state, SPECTATOR) == GAME.view(t.state, ALL)


# -- properties ----------------------------------------------------------------------------


ALL_MOVES = [{"type": "place", "to": square_name(i)} for i in range(25)] + [
    {"type": "move", "from": square_name(i), "to": square_name(j)}
    for i in range(25)
    for j in range(25)
]


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["axis", "tilted", "classic"]),
    repetition=st.booleans(),
    choices=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=80),
)
def test_random_games_keep_invariants(kind: str, repetition: bool, choices: list[int]) -> None:
    """Legal sequences: at most four pieces a side, every listed move is accepted and every
    other placement or move is refused without a change, the board never shows a pattern
    before the end, fold equals live and resample equals the state."""
    t = Table(squares=kind, repetition=repetition)
    masks = set(pattern_masks(kind))
    for k, choice in enumerate(choices):
        if t.outcome is not None:
            break
        seat = t.view["turn"]
        legal = GAME.legal_commands(t.state, seat)
        moves = [c for c in legal if c["type"] in ("place", "move")]
        if k % 9 == 0:  # the whole command space: listed <=> accepted
            before = dumps(GAME.view(t.state, ALL))
            for c in ALL_MOVES:
                try:
                    GAME.decide(t.state, seat, c, RNG)
                    accepted = True
                except IllegalMoveError as e:
                    assert e.code == "illegal"
                    accepted = False
                assert accepted == (c in moves), c
            assert dumps(GAME.view(t.state, ALL)) == before
        t.send(seat, moves[choice % len(moves)])
        v = t.view
        white, black = (sq_mask(*p) if p else 0 for p in v["pieces"])
        assert white & black == 0
        assert white.bit_count() + v["in_hand"][0] == 4 and black.bit_count() + v["in_hand"][1] == 4
        assert v["in_hand"][0] - v["in_hand"][1] in (0, -1)
        if t.outcome is None:
            assert white not in masks and black not in masks
        else:
            assert t.outcome.reason in ("pattern", "repetition")
            if t.outcome.reason == "pattern":
                won = white if t.outcome.winners == [0] else black
                assert won in masks and sq_mask(*v["winning_squares"]) == won
        again = GAME.resample(json.loads(json.dumps(v)), seat, Random(1))
        assert dumps(GAME.view(again, ALL)) == dumps(GAME.view(t.state, ALL))
    assert dumps(GAME.view(fold(GAME, json.loads(json.dumps(t.log))), ALL)) == dumps(
        GAME.view(t.state, ALL)
    )


# -- terminal game (core.cli) --------------------------------------------------------------


def run_cli(args: list[str], typed: list[str]) -> tuple[int, str]:
    from core import cli

    lines = iter(typed)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    code = cli.main(args, read, out.append)
    return code, "\n".join(out)


def test_cli_parse_move() -> None:
    from core.cli import notation, parse_move

    assert parse_move("c3") == {"type": "place", "to": "c3"}
    for text in ("b2-c3", "b2c3", " B2 C3 ", "b2 - c3"):
        assert parse_move(text) == {"type": "move", "from": "b2", "to": "c3"}
    for bad in ("z9", "b2-c3-d4", "hello"):
        with pytest.raises(ValueError):
            parse_move(bad)
    assert notation({"type": "move", "from": "b2", "to": "c3"}) == "b2-c3"


def test_cli_two_people_to_a_win() -> None:
    typed = ["a1", "a5", "help", "a5", "b1", "b5", "c1", "a1-a2", "c5", "d1"]
    code, out = run_cli(["--white", "human", "--black", "human"], typed)
    assert code == 0
    assert "Not allowed: a5 is already occupied" in out
    assert "Not allowed: you still have 2 pieces to place" in out
    assert "Commands:" in out
    assert "  1 [W][W][W][W] .  1" in out
    assert out.endswith("White wins with a1 b1 c1 d1.")


def test_cli_draw_offer_and_resign() -> None:
    code, out = run_cli(["--black", "human"], ["c3", "draw", "n", "d4", "draw", "y"])
    assert code == 0 and "White declines the draw." in out
    assert out.endswith("Draw by agreement.")
    code, out = run_cli(["--black", "human", "--repetition", "--move-cap", "30"], ["resign"])
    assert code == 0 and "drawn after 30 plies" in out
    assert out.endswith("White resigns: Black wins.")


def test_cli_quit_and_end_of_input() -> None:
    code, out = run_cli(["--black", "human"], ["c3", "quit"])
    assert code == 1 and out.endswith("Game abandoned.")
    code, out = run_cli(["--black", "human"], [])
    assert code == 1


def test_cli_computer_plays_legal_moves_to_the_end() -> None:
    args = ["--white", "computer", "--black", "computer", "--level", "random", "--seed", "4"]
    code, out = run_cli([*args, "--move-cap", "40", "--squares", "classic"], [])
    assert code == 0
    assert "White (W) plays" in out and "Black (B) plays" in out
    assert out.splitlines()[-1].startswith(("White wins", "Black wins", "Draw: the move limit"))
    code, out = run_cli(["--levels"], [])
    assert code == 0 and "random" in out
    code, out = run_cli(["--level", "godlike"], [])
    assert code == 2


def test_cli_human_against_the_computer() -> None:
    """The person places wherever is free; the computer answers until the game ends."""
    from core import cli

    out: list[str] = []
    session: list[Any] = []

    def read(prompt: str) -> str:
        state = session[0].state
        legal = [c for c in GAME.legal_commands(state, 0) if c["type"] in ("place", "move")]
        return cli.notation(legal[len(out) % len(legal)])

    players: list[cli.Computer | None] = [None, cli.Computer("random", 1.0, Random(2))]
    session.append(cli.Session({"move_cap": 30}, players, read, out.append))
    assert session[0].run() == 0
    assert "Black (B) plays" in "\n".join(out)
    assert GAME.outcome(session[0].state) is not None


def test_rules_page_view_example_is_real() -> None:
    """The view shown in docs/rules/teeko.md is what the core produces."""
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "rules" / "teeko.md").read_text()
    example = json.loads(page.split("### View")[1].split("```json")[1].split("```")[0])
    t = Table(repetition=True, move_cap=200)
    t.play(*QUIET_PLACEMENT)
    assert GAME.view(t.state, 0) == example


def test_branching_from_one_state_keeps_histories_apart() -> None:
    """States share their history list; evolving one state twice (as a search does) must not
    let one branch see the other's positions."""
    t = Table(repetition=True)
    t.play(*QUIET_PLACEMENT, "a1-a2", "b1-b2")
    root = t.state
    branches = []
    for move in ("a2-a1", "e2-e3", "a2-a1"):
        state = root
        for ev in GAME.decide(state, 0, cmd(move), RNG):
            state = GAME.evolve(state, ev)
        branches.append(GAME.view(state, ALL)["history"])
    assert branches[0] == branches[2] != branches[1]
    assert branches[0][:-1] == branches[1][:-1] == GAME.view(root, ALL)["history"]
    assert len(GAME.view(root, ALL)["history"]) == 3
