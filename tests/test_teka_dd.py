"""The Teka double-dummy solver (core.teka_dd) against DDS (endplay) and a plain minimax.

The 10,000-position comparison and the speed run are a command:
``python -m bench.core_bench dd check|speed|brute`` (docs/ai.md).
"""

from __future__ import annotations

from random import Random

import pytest

from bench.teka_dd_bench import brute_force, dds_cards, random_position
from core.teka import TekaState, playable_cards, side_of
from core.teka_dd import Position, Solver, legal_cards, position_from_state, solve, solve_cards


def _best(pos: Position, cards: dict[str, int]) -> int:
    vals = cards.values()
    return max(vals) if side_of(pos.to_play()) == pos.side else min(vals)


@pytest.mark.parametrize("kind", ["first trick", "double 13", "later"])
def test_small_endings_agree_with_brute_force(kind: str) -> None:
    rng = Random(kind)
    for _ in range(120):
        n = rng.randrange(1, 5)
        if kind == "first trick":
            pos = random_position(rng, cards_per_hand=n, tricks_done=0, in_trick=rng.randrange(4))
        elif kind == "double 13":
            pos = random_position(
                rng, cards_per_hand=n, tricks_done=0, in_trick=rng.randrange(3), double13=True
            )
        else:
            pos = random_position(rng, cards_per_hand=n + 1, tricks_done=1)
        ref = brute_force(pos)
        assert solve_cards(pos) == ref, (pos.hands, pos.trumps, pos.leader, pos.trick)
        assert solve(pos) == _best(pos, ref)


def test_endings_agree_with_dds() -> None:
    pytest.importorskip("endplay", reason="DDS (endplay) is a dev dependency")
    rng = Random(22)
    solver = Solver()
    for i in range(300):
        pos = random_position(rng, tricks_done=rng.randrange(7, 12), in_trick=i % 4)
        ref = dds_cards(pos)
        assert solve_cards(pos, solver) == ref, (pos.hands, pos.trumps, pos.leader, pos.trick)
        assert solve(pos, solver) == _best(pos, ref)


def test_longer_endings_agree_with_dds() -> None:
    pytest.importorskip("endplay", reason="DDS (endplay) is a dev dependency")
    # (Whole deals take the solver up to seconds each: they are in the check command.)
    rng = Random(2022)
    for i in range(8):
        pos = random_position(rng, tricks_done=5, in_trick=i % 4)
        ref = dds_cards(pos)
        assert solve_cards(pos) == ref, (pos.hands, pos.trumps, pos.leader, pos.trick)


def test_ten_trick_endings_agree_with_dds() -> None:
    pytest.importorskip("endplay", reason="DDS (endplay) is a dev dependency")
    # Three tricks played, every card's figure (mid-trick ones among them).
    rng = Random(2023)
    solver = Solver()
    for i in range(6):
        pos = random_position(rng, tricks_done=3, in_trick=i % 4)
        ref = dds_cards(pos)
        assert solve_cards(pos, solver) == ref, (pos.hands, pos.trumps, pos.leader, pos.trick)
        assert solve(pos, solver) == _best(pos, ref)


def test_legal_cards_are_core_teka_rules() -> None:
    rng = Random(5)
    for i in range(400):
        pos = random_position(
            rng, tricks_done=0 if i % 2 else rng.randrange(3), double13=i % 3 == 0
        )
        seat = pos.to_play()
        trick = []
        s = pos.leader
        for c in pos.trick:
            trick.append({"seat": s, "card": c})
            s = (s + 1) % 4 if (s + 1) % 4 != pos.sitting_out else (s + 2) % 4
        expect = playable_cards(
            pos.hands[seat], trick, pos.first_trick, pos.trumps, pos.hands, seat, pos.sitting_out
        )
        assert sorted(legal_cards(pos)) == sorted(expect)
        assert sorted(solve_cards(pos) if len(pos.hands[seat]) <= 3 else expect) == sorted(expect)


def test_ace_of_trumps_holder_must_win_the_first_trick() -> None:
    # Seat 0 has led the 2 of spades (trumps); seat 1 holds the ace and the 3: the ace rule
    # allows only a trump above every trump still to come (seat 2's king), so the ace.
    pos = Position([["4H"], ["AS", "3S"], ["KS", "5H"], ["6H", "7H"]], "S", 0, ["2S"], True)
    assert legal_cards(pos) == ["AS"]
    # The ace takes trick one (seat 2 must follow with the king); seat 1's 3 of spades is then
    # the last trump and takes trick two: side 0 takes nothing.
    assert solve_cards(pos) == {"AS": 0}
    # Side 1's count of the same play: both tricks.
    pos.side = 1
    assert solve(pos) == 2


def test_position_from_state_counts_the_bidders_side() -> None:
    st = TekaState()
    st.phase = "play"
    st.trumps = "H"
    st.bidder = 1
    st.leader = 1
    st.hands = [["AS"], ["AH"], ["KS"], ["2C"]]
    st.tricks = [{"leader": 1, "cards": [], "winner": 1}] * 12
    pos = position_from_state(st)
    assert pos.side == 1 and not pos.first_trick
    assert solve(pos) == 1  # seat 1's ace of trumps takes the last trick


def test_bad_positions_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        Position([["AS"], ["AS"], ["KS"], ["QS"]], "S", 0)
    with pytest.raises(ValueError, match="trumps"):
        Position([["AS"], ["KS"], ["QS"], ["JS"]], "N", 0)
    with pytest.raises(ValueError, match="same number"):
        solve(Position([["AS", "2S"], ["KS"], ["QS"], ["JS"]], "S", 0))
    st = TekaState()
    with pytest.raises(ValueError, match="in play"):
        position_from_state(st)


def test_position_from_state_lays_the_double_13_partners_hand_aside() -> None:
    """In a double 13 the state still holds the partner's laid-aside hand; the position
    leaves it out (three hands play), as the rules have it."""
    st = TekaState()
    st.phase = "play"
    st.trumps = "S"
    st.bidder = 0
    st.leader = 0
    st.sitting_out = 2
    st.double13 = True
    st.hands = [["AS"], ["KS"], ["QH"], ["2C"]]
    st.tricks = [{"leader": 0, "cards": [], "winner": 0}] * 12
    pos = position_from_state(st)
    assert pos.hands[2] == [] and pos.sitting_out == 2
    assert solve(pos) == 1
