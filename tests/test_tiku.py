"""Tiku rules: the rulebook's examples as positions, the RULES.md rulings, both variants, the
notation, and invariants (Hypothesis) such as disc conservation."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import ALL, SPECTATOR, IllegalMoveError, OptionsError, Outcome
from core.api import apply, dumps, fold
from core.tiku import GAME, NAMES, TikuState, move_list, play_move

RNG = Random(0)

# -- helpers -----------------------------------------------------------------------------------

# Board diagrams: ranks 6..1 from top to bottom, files a..f left to right.
# W / B: White (seat 0) / Black (seat 1) piece; X / Y: the same, turned over (diagonal spent);
# w / b: a White / Black disc; . empty.


def position(
    rows: list[str],
    turn: int = 0,
    hands: list[int] | None = None,
    options: dict[str, Any] | None = None,
    first: int | None = None,
    match: list[int] | None = None,
    round_no: int = 1,
) -> TikuState:
    """A state set up from a diagram (through ``resample``: Tiku hides nothing)."""
    assert len(rows) == 6
    pieces: list[dict[str, Any]] = []
    discs: dict[str, int] = {}
    for k, row in enumerate(rows):
        assert len(row) == 6, row
        rank = 6 - k
        for f, ch in enumerate(row):
            sq = "abcdef"[f] + str(rank)
            if ch in "WBXY":
                seat = 0 if ch in "WX" else 1
                pieces.append({"square": sq, "seat": seat, "flipped": ch in "XY"})
            elif ch in "wb":
                discs[sq] = 0 if ch == "w" else 1
            else:
                assert ch == ".", ch
    if hands is None:
        on_board = [sum(1 for v in discs.values() if v == s) for s in (0, 1)]
        hands = [14 - on_board[0], 14 - on_board[1]]
    opts = GAME.options(options or {})
    view = {
        "started": True,
        "options": opts,
        "pieces": pieces,
        "discs": discs,
        "hands": hands,
        "turn": turn,
        "first": turn if first is None else first,
        "round": round_no,
        "match": match if opts["points"] else None,
        "rounds": [],
        "moves": 0,
        "last_move": None,
        "outcome": None,
    }
    return GAME.resample(view, 0, Random(0))


def diagram(state: TikuState) -> list[str]:
    v = GAME.view(state, ALL)
    grid = [["."] * 6 for _ in range(6)]
    for p in v["pieces"]:
        f, r = "abcdef".index(p["square"][0]), int(p["square"][1])
        grid[6 - r][f] = ("X" if p["seat"] == 0 else "Y") if p["flipped"] else "WB"[p["seat"]]
    for sq, seat in v["discs"].items():
        f, r = "abcdef".index(sq[0]), int(sq[1])
        grid[6 - r][f] = "wb"[seat]
    return ["".join(row) for row in grid]


def move(frm: str, to: str) -> dict[str, Any]:
    return {"type": "move", "from": frm, "to": to}


def play(state: TikuState, seat: int, command: Any) -> tuple[TikuState, list[dict[str, Any]]]:
    new, events = apply(GAME, state, seat, command, RNG)
    return new, events


def new_game(options: dict[str, Any] | None = None, seed: int = 0) -> tuple[TikuState, list[Any]]:
    log = GAME.start(GAME.options(options or {}), Random(seed))
    return fold(GAME, log), log


def refused(state: TikuState, seat: Any, command: Any, code: str) -> str:
    before = dumps(GAME.view(state, ALL))
    with pytest.raises(IllegalMoveError) as err:
        GAME.decide(state, seat, command, RNG)
    assert err.value.code == code, err.value.reason
    assert dumps(GAME.view(state, ALL)) == before
    return err.value.reason


def conserved(state: TikuState) -> None:
    v = GAME.view(state, ALL)
    for seat in (0, 1):
        on_board = sum(1 for s in v["discs"].values() if s == seat)
        assert on_board + v["hands"][seat] == 14
        assert sum(1 for p in v["pieces"] if p["seat"] == seat) == 6
    assert not set(v["discs"]) & {p["square"] for p in v["pieces"]}


# -- options and set-up ------------------------------------------------------------------------


def test_options_defaults_and_errors() -> None:
    assert GAME.options(None) == {
        "seats": 2,
        "points": False,
        "target": 20,
        "diagonal": False,
        "move_cap": 0,
    }
    assert GAME.options({"points": True, "target": 7})["target"] == 7
    bad_options: list[Any] = [
        {"seats": 3},
        {"points": 1},
        {"target": 0},
        {"target": True},
        {"target": "20"},
        {"diagonal": "yes"},
        {"move_cap": -1},
        {"colour": "red"},
        [],
    ]
    for bad in bad_options:
        with pytest.raises(OptionsError):
            GAME.options(bad)
    assert len(GAME.example_options()) == 4


def test_start_position_and_random_first_player() -> None:
    state, log = new_game()
    assert log[0] == {"type": "start", "options": GAME.options({})}
    assert log[1]["type"] == "first_player"
    assert diagram(state) == ["......", "BBBBBB", "......", "......", "WWWWWW", "......"]
    v = GAME.view(state, SPECTATOR)
    assert v["hands"] == [14, 14]
    assert v["discs"] == {}
    assert v["turn"] == log[1]["seat"] == v["first"]
    assert GAME.to_act(state) == [v["turn"]]
    firsts = {new_game(seed=s)[1][1]["seat"] for s in range(20)}
    assert firsts == {0, 1}


def test_legal_commands_of_the_opening() -> None:
    state = position(["......", "BBBBBB", "......", "......", "WWWWWW", "......"], turn=0)
    cmds = GAME.legal_commands(state, 0)
    assert cmds[-1] == {"type": "resign"}
    moves = {(c["from"], c["to"]) for c in cmds[:-1]}
    # each piece: one square down, two squares up (rank 5 holds Black's pieces)
    assert len(moves) == 18
    assert ("a2", "a1") in moves and ("a2", "a4") in moves and ("a2", "a5") not in moves
    assert GAME.legal_commands(state, 1) == [{"type": "resign"}]
    assert len(move_list(state)) == 18


# -- the rulebook's examples -------------------------------------------------------------------


def test_two_white_discs_are_placed() -> None:
    state = position(["......", "BBBBBB", "......", "......", "WWWWWW", "......"], turn=0)
    state, events = play(state, 0, move("c2", "c4"))
    ev = events[0]
    assert ev["type"] == "moved"
    assert ev["placed"] == ["c2", "c3"] and ev["returned"] == [] and ev["kept"] == []
    assert ev["hands"] == [12, 14] and ev["diagonal"] is False
    assert diagram(state) == ["......", "BBBBBB", "..W...", "..w...", "WWwWWW", "......"]
    assert GAME.to_act(state) == [1]


def test_two_black_discs_are_placed() -> None:
    state = position(["......", "BBBBBB", "..W...", "..w...", "WWwWWW", "......"], turn=1)
    state, events = play(state, 1, move("e5", "e3"))
    assert events[0]["placed"] == ["e5", "e4"]
    assert diagram(state) == ["......", "BBBBbB", "..W.b.", "..w.B.", "WWwWWW", "......"]


def test_one_black_disc_returned_five_white_discs_placed() -> None:
    state = position(
        [
            "......",
            ".B.BBB",
            "...B..",
            "...B..",
            "bWWWWW",
            "W.....",
        ],
        turn=0,
    )
    conserved(state)
    state, events = play(state, 0, move("a1", "a6"))
    ev = events[0]
    assert ev["placed"] == ["a1", "a2", "a3", "a4", "a5"]  # five white discs on the board
    assert ev["returned"] == [{"square": "a2", "seat": 1}]  # one black disc back to Black
    assert ev["kept"] == []
    assert diagram(state)[0][0] == "W" and [row[0] for row in diagram(state)[1:]] == ["w"] * 5
    v = GAME.view(state, ALL)
    assert v["hands"] == [14 - 5, 13 + 1]
    conserved(state)


def test_three_white_discs_returned_four_black_discs_placed() -> None:
    # The destination's white disc goes back first, then two more on crossed squares.
    state = position(
        [
            ".B.B.B",
            "B.B..w",
            ".....w",
            "W.W...",
            "..W..w",
            "W.W.BW",
        ],
        turn=1,
    )
    state, events = play(state, 1, move("f6", "f2"))
    ev = events[0]
    assert ev["returned"] == [
        {"square": "f2", "seat": 0},
        {"square": "f5", "seat": 0},
        {"square": "f4", "seat": 0},
    ]
    assert ev["placed"] == ["f6", "f5", "f4", "f3"]
    assert ev["kept"] == []
    assert [row[5] for row in diagram(state)] == ["b", "b", "b", "b", "B", "W"]
    assert ev["hands"] == [11 + 3, 14 - 4]
    conserved(state)


def test_three_returned_four_placed_on_crossed_squares() -> None:
    state = position(
        [
            "BB...B",
            "w.B.B.",
            "w.....",
            "w.W...",
            "..W..W",
            "W.W.BW",
        ],
        turn=1,
    )
    state, events = play(state, 1, move("a6", "a2"))
    ev = events[0]
    assert ev["placed"] == ["a6", "a5", "a4", "a3"]
    assert [r["square"] for r in ev["returned"]] == ["a5", "a4", "a3"]
    assert all(r["seat"] == 0 for r in ev["returned"])
    assert ev["hands"] == [14, 10]
    conserved(state)


# -- discs: own discs stay, destination discs go back ------------------------------------------


def test_own_discs_stay_and_cost_nothing() -> None:
    state = position(
        [
            "BBBBB.",
            ".....B",
            ".w....",
            ".w....",
            "......",
            "WWWWWW",
        ],
        turn=0,
    )
    state, events = play(state, 0, move("b1", "b5"))
    ev = events[0]
    assert ev["placed"] == ["b1", "b2"] and ev["kept"] == ["b3", "b4"] and ev["returned"] == []
    assert ev["hands"] == [10, 14]
    assert [row[1] for row in diagram(state)] == ["B", "W", "w", "w", "w", "w"]


def test_destination_disc_returned_own_and_opponent() -> None:
    rows = [
        "BBBBB.",
        ".....B",
        "...w..",
        "...b..",
        "......",
        "WWWWWW",
    ]
    state = position(rows, turn=0)
    after, events = play(state, 0, move("d1", "d3"))  # lands on a black disc
    assert events[0]["returned"] == [{"square": "d3", "seat": 1}]
    assert events[0]["hands"] == [11, 14]
    assert diagram(after)[3] == "...W.."
    after, events = play(state, 0, move("d1", "d4"))  # lands on its own disc
    ev = events[0]
    assert ev["returned"][0] == {"square": "d4", "seat": 0}
    assert ev["returned"][1] == {"square": "d3", "seat": 1}
    assert ev["placed"] == ["d1", "d2", "d3"]
    # own disc back (+1), three laid (-3); Black's disc from d3 back to Black
    assert ev["hands"] == [13 + 1 - 3, 13 + 1]
    conserved(after)


def test_no_disc_under_a_piece_and_start_square_always_gets_one() -> None:
    state, _ = new_game(seed=3)
    rng = Random(5)
    for _ in range(30):
        if GAME.outcome(state) is not None:
            break
        seat = GAME.to_act(state)[0]
        cmd = rng.choice([c for c in GAME.legal_commands(state, seat) if c["type"] == "move"])
        state, events = play(state, seat, cmd)
        assert events[0]["placed"][0] == cmd["from"]
        conserved(state)


# -- end of the game ---------------------------------------------------------------------------


def test_last_disc_ends_the_game_mid_move() -> None:
    state = position(
        [
            "BBBBB.",
            "....B.",
            "......",
            ".....b",
            "......",
            "WWWWWW",
        ],
        turn=0,
        hands=[2, 13],
    )
    state, events = play(state, 0, move("f1", "f5"))
    assert [e["type"] for e in events] == ["moved", "round_end", "game_over"]
    ev = events[0]
    assert ev["placed"] == ["f1", "f2"]  # the last disc; f3 and f4 get none
    assert ev["returned"] == [] and ev["hands"] == [0, 13]
    assert diagram(state)[3] == ".....b"  # Black's disc on f3 was not reached: it stays
    assert diagram(state)[1][5] == "W"
    assert events[1] == {
        "type": "round_end",
        "round": 1,
        "winners": [0],
        "reason": "last_disc",
        "hands": [0, 13],
    }
    assert GAME.outcome(state) == Outcome([0], "last_disc", [0, 13])
    assert events[2] == {
        "type": "game_over",
        "winners": [0],
        "reason": "last_disc",
        "scores": [0, 13],
    }
    assert GAME.to_act(state) == []
    assert GAME.legal_commands(state, 0) == GAME.legal_commands(state, 1) == []
    refused(state, 1, move("a6", "a5"), "game_over")
    refused(state, 0, {"type": "resign"}, "game_over")


def test_destination_disc_returned_before_the_last_disc_is_counted() -> None:
    # One disc in hand, landing on its own disc: it comes back first, so two are laid.
    state = position(
        [
            "BBBBB.",
            ".....w",
            "......",
            "......",
            "......",
            "WWWWWW",
        ],
        turn=0,
        hands=[1, 14],
    )
    state, events = play(state, 0, move("f1", "f5"))
    ev = events[0]
    assert ev["returned"] == [{"square": "f5", "seat": 0}]
    assert ev["placed"] == ["f1", "f2"]
    assert events[1]["reason"] == "last_disc" and events[1]["winners"] == [0]
    assert [row[5] for row in diagram(state)] == [".", "W", ".", ".", "w", "w"]


def test_opponent_disc_replaced_by_the_last_disc() -> None:
    state = position(
        [
            "BBBBB.",
            "......",
            "......",
            "......",
            ".....b",
            ".WWWWW",
        ],
        turn=0,
        hands=[2, 13],
    )
    state, events = play(state, 0, move("f1", "f6"))
    assert events[0]["placed"] == ["f1", "f2"]
    assert events[0]["returned"] == [{"square": "f2", "seat": 1}]
    assert events[0]["hands"] == [0, 14]
    assert GAME.outcome(state) == Outcome([0], "last_disc", [0, 14])


# -- passing and blocked positions -------------------------------------------------------------

BLACK_BOXED = [
    "....W.",
    "......",
    "W.....",
    "BW....",
    "BBW...",
    "BBBW.W",
]


def test_automatic_pass_when_the_opponent_cannot_move() -> None:
    state = position(BLACK_BOXED, turn=0)
    state, events = play(state, 0, move("e6", "e5"))
    assert [e["type"] for e in events] == ["moved", "passed"]
    assert events[1] == {"type": "passed", "seat": 1}
    assert GAME.to_act(state) == [0]
    assert GAME.legal_commands(state, 1) == [{"type": "resign"}]
    refused(state, 1, {"type": "pass"}, "not_your_turn")
    # White keeps moving while Black is boxed in; freeing Black hands the turn back.
    state, events = play(state, 0, move("f1", "f2"))
    assert [e["type"] for e in events] == ["moved", "passed"]
    state, events = play(state, 0, move("d1", "e1"))
    assert [e["type"] for e in events] == ["moved"]
    assert GAME.to_act(state) == [1]
    assert {"type": "move", "from": "c1", "to": "d1"} in GAME.legal_commands(state, 1)


def test_pass_command_only_without_a_legal_move() -> None:
    state = position(BLACK_BOXED, turn=1)  # set up with the boxed-in side to act
    assert GAME.legal_commands(state, 1) == [{"type": "pass"}, {"type": "resign"}]
    refused(state, 1, move("a1", "a2"), "illegal")
    state, events = play(state, 1, {"type": "pass"})
    assert events == [{"type": "passed", "seat": 1}]
    assert GAME.to_act(state) == [0]
    reason = refused(state, 0, {"type": "pass"}, "illegal")
    assert "pass" in reason


FULL_BOARD = ["WBWBWB", "BWBWBW", "WBWBWB", "BWBWBW", "WBWBWB", "BWBWBW"]


def test_blocked_on_both_sides_fewer_discs_wins() -> None:
    # With six pieces a side a blocked position cannot arise (a piece next to an empty square
    # can always move); the ruling is still implemented, shown on a full board.
    state = position(FULL_BOARD, turn=0, hands=[5, 3])
    assert GAME.legal_commands(state, 0) == [{"type": "pass"}, {"type": "resign"}]
    state, events = play(state, 0, {"type": "pass"})
    assert [e["type"] for e in events] == ["passed", "round_end", "game_over"]
    assert events[1]["reason"] == "blocked" and events[1]["winners"] == [1]
    assert GAME.outcome(state) == Outcome([1], "blocked", [5, 3])


def test_blocked_on_both_sides_equal_is_a_draw() -> None:
    state = position(FULL_BOARD, turn=1, hands=[4, 4])
    state, _ = play(state, 1, {"type": "pass"})
    assert GAME.outcome(state) == Outcome([], "blocked", [4, 4])
    assert GAME.outcome(state).is_draw  # type: ignore[union-attr]


# -- resign and the move cap -------------------------------------------------------------------


def test_resign_by_either_seat() -> None:
    state, log = new_game(seed=1)
    turn = GAME.to_act(state)[0]
    other = 1 - turn
    assert GAME.legal_commands(state, other) == [{"type": "resign"}]
    after, events = play(state, other, {"type": "resign"})
    assert events == [
        {"type": "resigned", "seat": other},
        {"type": "game_over", "winners": [turn], "reason": "resign", "scores": [14, 14]},
    ]
    assert GAME.outcome(after) == Outcome([turn], "resign", [14, 14])
    assert dumps(GAME.view(fold(GAME, log + events), ALL)) == dumps(GAME.view(after, ALL))


def test_move_cap_ends_drawn() -> None:
    state, _ = new_game({"move_cap": 3}, seed=2)
    for _ in range(3):
        seat = GAME.to_act(state)[0]
        state, events = play(state, seat, GAME.legal_commands(state, seat)[0])
    assert events[-1]["type"] == "game_over"
    out = GAME.outcome(state)
    assert out is not None and out.winners == [] and out.reason == "move_cap"


# -- variant: points ---------------------------------------------------------------------------

NEAR_END = [
    "BBBBB.",
    "....B.",
    "......",
    "......",
    "......",
    "WWWWWW",
]


def test_points_round_scoring_and_loser_starts() -> None:
    opts = {"points": True, "diagonal": True}
    state = position(NEAR_END, turn=0, hands=[1, 9], options=opts, first=0, match=[4, 6])
    state, events = play(state, 0, move("f1", "f3"))
    assert [e["type"] for e in events] == ["moved", "round_end", "next_round"]
    assert events[1] == {
        "type": "round_end",
        "round": 1,
        "winners": [0],
        "reason": "last_disc",
        "hands": [0, 9],
        "points": [9, 0],
        "match": [13, 6],
    }
    assert events[2] == {"type": "next_round", "round": 2, "first": 1}
    v = GAME.view(state, ALL)
    assert v["round"] == 2 and v["match"] == [13, 6] and v["first"] == 1 and v["turn"] == 1
    assert v["hands"] == [14, 14] and v["discs"] == {} and v["last_move"] is None
    assert diagram(state) == ["......", "BBBBBB", "......", "......", "WWWWWW", "......"]
    assert not any(p["flipped"] for p in v["pieces"])
    assert v["rounds"] == [events[1]]
    assert GAME.outcome(state) is None
    # the next round is a normal round: Black (the loser) moves
    state, events = play(state, 1, move("a5", "a3"))
    assert events[0]["placed"] == ["a5", "a4"]


def test_points_flips_reset_each_round() -> None:
    opts = {"points": True, "diagonal": True}
    rows = ["BBBBB.", "....Y.", "......", "......", "..X...", "WW.WWW"]
    state = position(rows, turn=0, hands=[1, 9], options=opts, first=1)
    state, _ = play(state, 0, move("f1", "f2"))
    assert not any(p["flipped"] for p in GAME.view(state, ALL)["pieces"])


def test_points_match_ends_at_target() -> None:
    opts = {"points": True, "target": 20}
    state = position(NEAR_END, turn=0, hands=[1, 3], options=opts, match=[17, 19])
    state, events = play(state, 0, move("f1", "f3"))
    assert [e["type"] for e in events] == ["moved", "round_end", "game_over"]
    assert events[1]["points"] == [3, 0] and events[1]["match"] == [20, 19]
    assert events[2] == {
        "type": "game_over",
        "winners": [0],
        "reason": "points",
        "scores": [20, 19],
    }
    assert GAME.outcome(state) == Outcome([0], "points", [20, 19])


def test_points_drawn_round_other_player_starts() -> None:
    opts = {"points": True}
    state = position(FULL_BOARD, turn=1, hands=[4, 4], options=opts, first=1, match=[2, 3])
    state, events = play(state, 1, {"type": "pass"})
    assert [e["type"] for e in events] == ["passed", "round_end", "next_round"]
    assert events[1]["winners"] == [] and events[1]["points"] == [0, 0]
    assert events[2] == {"type": "next_round", "round": 2, "first": 0}
    assert GAME.view(state, ALL)["match"] == [2, 3]


def test_points_resign_loses_the_match() -> None:
    state = position(NEAR_END, turn=0, hands=[1, 3], options={"points": True}, match=[17, 2])
    state, _ = play(state, 0, {"type": "resign"})
    assert GAME.outcome(state) == Outcome([1], "resign", [17, 2])


def test_points_full_match_random_play_is_consistent() -> None:
    state, log = new_game({"points": True, "target": 25}, seed=11)
    rng = Random(11)
    first_of_round = {1: log[1]["seat"]}
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        moves = [c for c in GAME.legal_commands(state, seat) if c["type"] != "resign"]
        state, events = play(state, seat, rng.choice(moves))
        log += events
        for ev in events:
            if ev["type"] == "round_end" and len(ev["winners"]) == 1:
                assert ev["points"][ev["winners"][0]] == ev["hands"][1 - ev["winners"][0]]
            if ev["type"] == "next_round":
                prev = next(e for e in reversed(log) if e["type"] == "round_end")
                assert ev["first"] == 1 - prev["winners"][0]
                first_of_round[ev["round"]] = ev["first"]
        conserved(state)
    out = GAME.outcome(state)
    assert out is not None and out.reason == "points"
    assert max(out.scores) >= 25 and out.scores[out.winners[0]] >= 25
    assert len(first_of_round) >= 2
    rounds = GAME.view(state, ALL)["rounds"]
    assert sum(r["points"][0] for r in rounds) == out.scores[0]
    assert dumps(GAME.view(fold(GAME, log), ALL)) == dumps(GAME.view(state, ALL))


# -- variant: diagonal -------------------------------------------------------------------------


def test_diagonal_once_then_flipped() -> None:
    opts = {"diagonal": True}
    state = position(["......", "BBBBBB", "......", "......", "WWWWWW", "......"], options=opts)
    moves = {(c.get("from"), c.get("to")) for c in GAME.legal_commands(state, 0)}
    assert ("c2", "a4") in moves and ("c2", "f5") not in moves and ("c2", "e4") in moves
    state, events = play(state, 0, move("c2", "e4"))
    ev = events[0]
    assert ev["diagonal"] is True and ev["placed"] == ["c2", "d3"]
    assert {"square": "e4", "seat": 0, "flipped": True} in GAME.view(state, ALL)["pieces"]
    assert diagram(state) == ["......", "BBBBBB", "....X.", "...w..", "WWwWWW", "......"]
    state, _ = play(state, 1, move("a5", "a4"))
    reason = refused(state, 0, move("e4", "f5"), "illegal")
    assert "diagonal" in reason
    reason = refused(state, 0, move("e4", "c6"), "illegal")
    assert "diagonal" in reason
    flipped_moves = [c for c in GAME.legal_commands(state, 0) if c.get("from") == "e4"]
    assert {c["to"] for c in flipped_moves} == {"e3", "d4", "c4", "b4", "f4"}
    state, events = play(state, 0, move("e4", "e3"))
    assert {"square": "e3", "seat": 0, "flipped": True} in GAME.view(state, ALL)["pieces"]
    # another, still unflipped piece may make its own diagonal move
    state, _ = play(state, 1, move("b5", "b4"))
    state, events = play(state, 0, move("f2", "e1"))
    assert events[0]["diagonal"] is True


def test_diagonal_refused_without_option_and_blocked_paths() -> None:
    state = position(["......", "BBBBBB", "......", "......", "WWWWWW", "......"])
    assert "diagonal" in refused(state, 0, move("c2", "d3"), "illegal")
    opts = {"diagonal": True}
    state = position(["......", "BBBBBB", "......", "..B...", "WWWWWW", "......"], options=opts)
    assert "blocks" in refused(state, 0, move("b2", "d4"), "illegal")
    assert "occupied" in refused(state, 0, move("b2", "c3"), "illegal")


def test_diagonal_lays_discs_and_returns_like_orthogonal() -> None:
    opts = {"diagonal": True}
    state = position(["BBBBBB", ".....w", "....b.", "...w..", "......", "WWWWWW"], options=opts)
    state, events = play(state, 0, move("b1", "f5"))
    ev = events[0]
    assert ev["returned"] == [{"square": "f5", "seat": 0}, {"square": "e4", "seat": 1}]
    assert ev["placed"] == ["b1", "c2", "e4"] and ev["kept"] == ["d3"]
    conserved(state)


# -- refused commands --------------------------------------------------------------------------


def test_illegal_moves_refused_with_nothing_changed() -> None:
    state = position(["......", "BBBBBB", "......", "b.....", "WWWWWW", "......"], turn=0)
    junks: list[Any] = [None, 7, "move", [], {}, {"type": 1}, {"type": "jump"}]
    for junk in junks:
        refused(state, 0, junk, "malformed")
    refused(state, 0, {"type": "move", "from": "b2"}, "malformed")
    refused(state, 0, {"type": "move", "from": "b2", "to": "g9"}, "malformed")
    refused(state, 0, {"type": "move", "from": 12, "to": "b3"}, "malformed")
    for bad_seat in (-1, 2, 99, "0", True, None):
        refused(state, bad_seat, move("b2", "b3"), "wrong_seat")
    refused(state, 1, move("b5", "b4"), "not_your_turn")
    refused(state, 1, {"type": "pass"}, "not_your_turn")
    assert "no piece" in refused(state, 0, move("c3", "c4"), "illegal")
    assert "Black" in refused(state, 0, move("b5", "b4"), "illegal")
    assert "straight" in refused(state, 0, move("b2", "c4"), "illegal")
    assert "at least one" in refused(state, 0, move("b2", "b2"), "illegal")
    assert "blocks" in refused(state, 0, move("b2", "b6"), "illegal")
    assert "occupied" in refused(state, 0, move("b2", "b5"), "illegal")
    assert "occupied" in refused(state, 0, move("b2", "c2"), "illegal")
    refused(state, 0, {"type": "pass"}, "illegal")
    refused(GAME.initial(), 0, {"type": "resign"}, "illegal")
    # the a3 disc does not block anything
    after, _ = play(state, 0, move("a2", "a4"))
    assert diagram(after)[2] == "W....."


def test_squares_have_one_spelling_and_extra_keys_are_ignored() -> None:
    """A square is written one way (``c2``): upper case or spaces are refused with the
    reason, not read as another square; keys a command does not use are ignored."""
    state = position(["......", "BBBBBB", "......", "......", "WWWWWW", "......"])
    for bad in ("C2", " c2", "c2 "):
        with pytest.raises(IllegalMoveError, match="not a square"):
            GAME.decide(state, 0, {"type": "move", "from": bad, "to": "c4"}, Random(0))
    _, events = play(state, 0, {"type": "move", "from": "c2", "to": "c4", "note": "x"})
    assert events[0]["from"] == "c2" and events[0]["to"] == "c4"


# -- views, replay, bots' fast path ------------------------------------------------------------


def test_view_contents_and_no_hidden_information() -> None:
    state, log = new_game({"diagonal": True}, seed=4)
    seat = GAME.to_act(state)[0]
    state, events = play(state, seat, GAME.legal_commands(state, seat)[0])
    v = GAME.view(state, SPECTATOR)
    assert v == GAME.view(state, 0) == GAME.view(state, 1) == GAME.view(state, ALL)
    assert set(v) >= {
        "pieces",
        "discs",
        "hands",
        "turn",
        "to_act",
        "round",
        "match",
        "last_move",
        "outcome",
        "rounds",
        "first",
        "options",
    }
    assert v["last_move"] == {k: val for k, val in events[0].items() if k not in ("type", "hands")}
    assert v["match"] is None and v["outcome"] is None
    for ev in log + events:
        assert GAME.redact(ev, SPECTATOR) == ev
        assert GAME.secrets(state, 0) == []
    again = GAME.resample(v, 1, Random(9))
    assert dumps(GAME.view(again, ALL)) == dumps(v)


OPTION_SETS = [*GAME.example_options(), {"points": True, "target": 5}]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    opt=st.sampled_from(OPTION_SETS),
    seed=st.integers(0, 2**16),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=120),
)
def test_invariants_random_play(opt: dict[str, Any], seed: int, picks: list[int]) -> None:
    """Disc conservation, no disc under a piece, fast path == API path, replay and resample
    give the same state, after every command."""
    state, log = new_game(opt, seed)
    fast = state.copy()
    for pick in picks:
        if GAME.outcome(state) is not None:
            break
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_commands(state, seat)
        encoded = move_list(state)
        assert [c for c in legal if c["type"] == "move"] == [
            move(NAMES[m // 36], NAMES[m % 36]) for m in encoded
        ]
        cmd = legal[pick % (len(legal) - 1)]  # never the final resign
        hands = list(GAME.view(state, ALL)["hands"])
        state, events = play(state, seat, cmd)
        log += events
        play_move(fast, encoded[pick % (len(legal) - 1)])
        assert dumps(GAME.view(fast, ALL)) == dumps(GAME.view(state, ALL))
        conserved(state)
        moved = events[0]
        # the event's account matches the hands: laid, and returned to either side
        back = [sum(1 for r in moved["returned"] if r["seat"] == s) for s in (0, 1)]
        hands[seat] -= len(moved["placed"])
        assert moved["hands"] == [hands[0] + back[0], hands[1] + back[1]]
        v = GAME.view(state, ALL)
        assert dumps(GAME.view(GAME.resample(v, 0, Random(1)), ALL)) == dumps(v)
    assert dumps(GAME.view(fold(GAME, log), ALL)) == dumps(GAME.view(state, ALL))
