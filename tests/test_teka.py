"""Teka rules core: rulebook cases (seeds/teka.txt + RULES.md "Teka")."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from leaks import strings_in

from core import ALL, SPECTATOR, IllegalMoveError, OptionsError
from core.api import dumps, fold
from core.teka import (
    DECK,
    GAME,
    RANKS,
    TekaState,
    cut_deck,
    deal_hands,
    playable_cards,
)

S = [r + "S" for r in RANKS]
H = [r + "H" for r in RANKS]
D = [r + "D" for r in RANKS]
C = [r + "C" for r in RANKS]
SUITED = [S, H, D, C]
"""Seat 0 all spades, seat 1 all hearts, seat 2 all diamonds, seat 3 all clubs."""


def new(hands: list[list[str]], dealer: int = 0, **opts: Any) -> TekaState:
    options = GAME.options({"first_dealer": dealer, **opts})
    assert sorted(c for h in hands for c in h) == sorted(DECK)
    state: TekaState = fold(
        GAME,
        [
            {"type": "start", "options": options},
            {"type": "deal", "dealer": dealer, "hand": 1, "hands": hands},
        ],
    )
    return state


def do(state: TekaState, seat: int, cmd: dict[str, Any], seed: int = 0) -> TekaState:
    events = GAME.decide(state, seat, cmd, Random(seed))
    for ev in events:
        state = GAME.evolve(state, ev)
    return state


def events_of(state: TekaState, seat: int, cmd: dict[str, Any]) -> list[dict[str, Any]]:
    return GAME.decide(state, seat, cmd, Random(0))


def bids(state: TekaState, *calls: Any) -> TekaState:
    for call in calls:
        state = do(state, GAME.to_act(state)[0], {"type": "bid", "call": call})
    return state


def play(state: TekaState, card: str, signal: str | None = None) -> TekaState:
    seat = GAME.to_act(state)[0]
    cmd: dict[str, Any] = {"type": "play", "card": card}
    if signal:
        cmd["signal"] = signal
    return do(state, seat, cmd)


def play_auto(state: TekaState, tricks: int) -> TekaState:
    """Play ``tricks`` tricks, each seat playing its first legal card."""
    target = len(state.tricks) + tricks
    while state.phase == "play" and len(state.tricks) < target:
        seat = GAME.to_act(state)[0]
        cmd = next(c for c in GAME.legal_commands(state, seat) if c["type"] == "play")
        state = do(state, seat, cmd)
    return state


def illegal(state: TekaState, seat: int, cmd: Any, code: str = "illegal") -> str:
    with pytest.raises(IllegalMoveError) as err:
        GAME.decide(state, seat, cmd, Random(0))
    assert err.value.code == code, err.value.reason
    return err.value.reason


# -- options and start ------------------------------------------------------------------


def test_options() -> None:
    assert GAME.options(None) == {
        "seats": 4,
        "target": 104,
        "draw_for_partners": False,
        "first_dealer": 0,
    }
    for bad in (
        {"seats": 3},
        {"target": 0},
        {"target": True},
        {"draw_for_partners": 1},
        {"first_dealer": 4},
        {"colour": "red"},
    ):
        with pytest.raises(OptionsError):
            GAME.options(bad)


def test_start_shuffles_once_and_deals_from_after_the_dealer() -> None:
    events = GAME.start(GAME.options({"first_dealer": 2}), Random(5))
    assert [e["type"] for e in events] == ["start", "shuffle", "deal"]
    deck = events[1]["deck"]
    assert sorted(deck) == sorted(DECK)
    hands = events[2]["hands"]
    assert hands[3] == deck[0:13]  # player after dealer 2 gets the first 13
    assert hands[0] == deck[13:26]
    assert hands[1] == deck[26:39]
    assert hands[2] == deck[39:52]
    state = fold(GAME, events)
    assert state.dealer == 2
    assert state.phase in ("bidding", "throw_in")


def test_draw_for_partners_records_draw_and_seating() -> None:
    for seed in range(20):
        events = GAME.start(GAME.options({"draw_for_partners": True}), Random(seed))
        assert [e["type"] for e in events] == ["start", "draw", "shuffle", "deal"]
        draw = events[1]
        cards = [c["rank"] + c["suit"] for c in draw["cards"]]
        strength = [RANKS.index(c[0]) * 4 + 3 - "SHDC".index(c[1]) for c in cards]
        order = sorted(range(4), key=lambda p: -strength[p])
        seating = draw["seating"]
        assert sorted(seating) == [0, 1, 2, 3]
        assert seating[0] == order[0]  # highest card: seat 0, first dealer
        assert {seating[0], seating[2]} == {order[0], order[1]}  # two highest are partners
        assert {seating[1], seating[3]} == {order[2], order[3]}
        assert draw["first_dealer"] == 0
        state = fold(GAME, events)
        assert state.dealer == 0
        assert GAME.view(state, SPECTATOR)["seating"] == seating
        # the draw is public, but no card string may name a card now in someone's hand
        assert not strings_in(GAME.redact(draw, 1)) & set(DECK)


# -- bidding ----------------------------------------------------------------------------


def test_bidding_order_starts_after_dealer_and_dealer_forced() -> None:
    st = new(SUITED, dealer=2)
    assert GAME.to_act(st) == [3]
    st = bids(st, "pass", "ter", "behi ter")
    assert GAME.to_act(st) == [2]
    assert illegal(st, 2, {"type": "bid", "call": "pass"}).startswith("the first three")
    calls = [c["call"] for c in GAME.legal_commands(st, 2)]
    assert calls == [8, 9, 10, 11, 12, 13, "double 13"]
    st = bids(st, 8)
    assert st.phase == "trumps" and st.bidder == 2 and st.forced
    illegal(st, 0, {"type": "trumps", "suit": "S"}, "not_your_turn")


def test_numbers_must_be_higher_and_later_double_13_wins() -> None:
    st = new(SUITED)
    st = bids(st, 9)
    illegal(st, 2, {"type": "bid", "call": 9})
    illegal(st, 2, {"type": "bid", "call": 8})
    illegal(st, 2, {"type": "bid", "call": 14})
    illegal(st, 2, {"type": "bid", "call": 7})
    illegal(st, 2, {"type": "bid", "call": "nine"}, "malformed")
    illegal(st, 3, {"type": "bid", "call": 10}, "not_your_turn")
    st = bids(st, "double 13")
    illegal(st, 3, {"type": "bid", "call": 13})
    st = bids(st, "double 13", "pass")
    assert st.phase == "trumps" and st.bidder == 3 and st.double13 and not st.forced
    st = new(SUITED)
    st = bids(st, 8, 10, "pass", 11)
    assert st.bidder == 0 and st.bid == 11 and not st.forced


# -- first trick --------------------------------------------------------------------------


def test_first_lead_must_be_trump_if_able() -> None:
    st = bids(new(SUITED), 8, "pass", "pass", "pass")  # seat 1 (hearts only) bids
    st = do(st, 1, {"type": "trumps", "suit": "S"})
    # seat 1 holds no spade: any card leads
    assert len([c for c in GAME.legal_commands(st, 1) if c["type"] == "play"]) == 13 * 4
    # seat 0 declares spades holding 2S..7S (not the ace): the lead must be a spade
    hands = [S[:6] + H[6:], S[6:] + H[:6], D, C]
    st = bids(new(hands, dealer=3), 8, "pass", "pass", "pass")
    st = do(st, 0, {"type": "trumps", "suit": "S"})
    assert (
        illegal(st, 0, {"type": "play", "card": "AH"}) == "the first trick must be led with a trump"
    )
    cards = {c["card"] for c in GAME.legal_commands(st, 0) if c["type"] == "play"}
    assert cards == set(S[:6])
    st = play(st, "4S")
    assert st.trick[0]["card"] == "4S"
    # after the first trick any card may lead
    st = play_auto(st, 1)
    assert st.tricks[0]["winner"] == 1 and len(GAME.legal_commands(st, 1)) > 4 * 7


def ace_rule_state(hands: list[list[str]]) -> TekaState:
    """Seat 0 bids 8 (dealer 3) and names spades."""
    st = bids(new(hands, dealer=3), 8, "pass", "pass", "pass")
    return do(st, 0, {"type": "trumps", "suit": "S"})


def test_ace_of_trumps_must_surely_win_the_first_trick() -> None:
    # Seat 1 holds AS QS 2S; seat 2 holds KS later in the trick: only the ace is safe.
    hands = [
        ["5S", "3S", *H[:11]],
        ["AS", "QS", "2S", *H[11:], *D[:8]],
        ["KS", "4S", *D[8:], *C[:6]],
        ["JS", "TS", "9S", "8S", "7S", "6S", *C[6:]],
    ]
    st = play(ace_rule_state(hands), "5S")
    cards = [c["card"] for c in GAME.legal_commands(st, 1) if c["type"] == "play"]
    assert set(cards) == {"AS"}
    reason = illegal(st, 1, {"type": "play", "card": "QS"})
    assert "KS" not in reason and "ace of trumps" in reason
    illegal(st, 1, {"type": "play", "card": "2S"})
    # Without the king still to come, the queen surely wins too.
    hands2 = [
        ["5S", "3S", *H[:11]],
        ["AS", "QS", "2S", *H[11:], *D[:8]],
        ["KS", "4S", *D[8:], *C[:6]],
        ["JS", "TS", "9S", "8S", "7S", "6S", *C[6:]],
    ]
    hands2[0][0], hands2[2][0] = "KS", "5S"  # seat 0 holds the king, seat 2 the five
    st = play(ace_rule_state(hands2), "3S")
    cards = [c["card"] for c in GAME.legal_commands(st, 1) if c["type"] == "play"]
    assert set(cards) == {"AS", "QS"}
    # A trump already played counts too: the king led leaves only the ace.
    st = play(ace_rule_state(hands2), "KS")
    cards = [c["card"] for c in GAME.legal_commands(st, 1) if c["type"] == "play"]
    assert set(cards) == {"AS"}
    # The other players' legal moves do not depend on the rule.
    st = play(st, "AS")
    cards = [c["card"] for c in GAME.legal_commands(st, 2) if c["type"] == "play"]
    assert set(cards) == {"5S", "4S"}


def test_ace_rule_when_the_leader_holds_the_ace() -> None:
    hands = [
        ["AS", "KS", "3S", *H[:10]],
        ["QS", "2S", *H[10:], *D[:8]],
        ["JS", *D[8:], *C[:7]],
        ["TS", "9S", "8S", "7S", "6S", "5S", "4S", *C[7:]],
    ]
    st = ace_rule_state(hands)
    cards = {c["card"] for c in GAME.legal_commands(st, 0) if c["type"] == "play"}
    assert cards == {"AS", "KS"}
    assert GAME.view(st, 0)["playable"] == ["AS", "KS"]
    illegal(st, 0, {"type": "play", "card": "3S"})


def test_ace_rule_overrides_following_suit() -> None:
    # Seat 0 declares spades holding none and leads a heart; seat 1 holds hearts and the AS.
    hands = [[*H[:12], "2D"], ["AS", "AH", "2S", *D[1:11]], S[1:12] + D[11:], C]
    st = ace_rule_state(hands)
    st = play(st, "5H")
    cards = {c["card"] for c in GAME.legal_commands(st, 1) if c["type"] == "play"}
    assert cards == {"AS"}  # not the heart, and not the 2S (seat 2 still holds spades)
    illegal(st, 1, {"type": "play", "card": "AH"})
    st = play(st, "AS")
    assert st.trick[-1]["card"] == "AS"


def test_follow_suit_and_trick_winner() -> None:
    hands = [
        ["AC", "KC", "QC", "JC", "TC", "9C", "8C", "AH", "2H", "AD", "2D", "2S", "3S"],
        ["7C", "6C", "KH", "3H", "4H", "KD", "3D", "4D", "4S", "5S", "6S", "7S", "8S"],
        ["5C", "4C", "QH", "5H", "6H", "QD", "5D", "6D", "9S", "TS", "JS", "QS", "KS"],
        ["3C", "2C", "JH", "7H", "8H", "9H", "TH", "JD", "7D", "8D", "9D", "TD", "AS"],
    ]
    st = bids(new(hands, dealer=3), 8, "pass", "pass", "pass")
    st = do(st, 0, {"type": "trumps", "suit": "C"})
    # seat 0 holds the ace of clubs: any club above the 7C surely wins
    cards = {c["card"] for c in GAME.legal_commands(st, 0) if c["type"] == "play"}
    assert cards == {"AC", "KC", "QC", "JC", "TC", "9C", "8C"}
    for card in ("8C", "7C", "5C", "2C"):
        st = play(st, card)
    assert st.tricks[0]["winner"] == 0 and st.leader == 0 and st.won == [1, 0]
    st = play(st, "AH")
    assert "follow suit" in illegal(st, 1, {"type": "play", "card": "4S"})
    for card in ("3H", "5H", "TH"):
        st = play(st, card)
    assert st.tricks[1]["winner"] == 0
    for card in ("2H", "KH", "QH", "JH"):
        st = play(st, card)
    assert st.tricks[2]["winner"] == 1  # highest of the led suit
    for card in ("4S", "KS", "AS", "2S"):
        st = play(st, card)
    assert st.tricks[3]["winner"] == 3
    st = play(st, "7H")
    # seat 0 has no heart left: any card, and an off-suit card does not win
    assert len([c for c in GAME.legal_commands(st, 0) if c["type"] == "play"]) == 4 * 9
    for card in ("2D", "4H", "6H"):
        st = play(st, card)
    assert st.tricks[4]["winner"] == 3
    for card in ("8H", "9C", "6C", "QD"):
        st = play(st, card)
    assert st.tricks[5]["winner"] == 0  # the trump wins
    assert st.won == [3, 3] and st.leader == 0


def test_trumping_wins() -> None:
    st = bids(new(SUITED, dealer=3), 8, "pass", "pass", "pass")
    st = do(st, 0, {"type": "trumps", "suit": "H"})  # seat 0 has no hearts: any lead
    st = play(st, "2S")
    st = play(st, "2H")  # seat 1 trumps (also the ace holder: any heart surely wins)
    st = play(st, "AD")
    st = play(st, "AC")
    assert st.tricks[0]["winner"] == 1


# -- scoring --------------------------------------------------------------------------


def declared(
    calls: list[Any], suit: str, dealer: int = 3, hands: list[list[str]] | None = None, **opts: Any
) -> TekaState:
    st = bids(new(hands or SUITED, dealer=dealer, **opts), *calls)
    return do(st, st.bidder, {"type": "trumps", "suit": suit})


def test_made_scores_the_bid_and_stops_early() -> None:
    st = declared([9, "pass", "pass", "pass"], "S")  # seat 0 holds all spades
    st = play_auto(st, 8)
    assert st.phase == "play"
    st = play_auto(st, 1)
    assert st.phase == "cut" and st.scores == [9, 0]
    assert st.sheet[-1]["made"] and st.sheet[-1]["tricks"] == [9, 0]
    assert st.sheet[-1]["points"] == [9, 0] and st.sheet[-1]["totals"] == [9, 0]
    assert GAME.view(st, 1)["counts"] == [0, 0, 0, 0]


def test_failed_scores_twice_the_bid_to_opponents() -> None:
    st = declared([8, "pass", "pass", "pass"], "S", dealer=0)  # seat 1 bids, seat 0 wins all
    st = play_auto(st, 5)
    assert st.phase == "play"
    st = play_auto(st, 1)  # opponents hold 6 > 13 - 8
    assert st.phase == "cut" and st.scores == [16, 0] and not st.sheet[-1]["made"]


def test_forced_eight_made_and_failed() -> None:
    st = declared(["pass", "pass", "pass", 8], "S", dealer=0)
    assert st.forced and st.bidder == 0
    st = play_auto(st, 8)
    assert st.scores == [8, 0]
    # dealer 1 forced to 8, names spades (holds none): fails, own side loses 8
    st = declared(["pass", "pass", "pass", 8], "S", dealer=1)
    st = play_auto(st, 6)
    assert st.scores == [0, -8] and st.sheet[-1]["points"] == [0, -8]


def test_forced_other_bid_scores_normally() -> None:
    st = declared(["pass", "pass", "pass", 10], "S", dealer=1)
    assert st.forced
    st = play_auto(st, 4)
    assert st.scores == [20, 0]
    st = declared(["pass", "pass", "pass", 9], "S", dealer=0)
    st = play_auto(st, 9)
    assert st.scores == [9, 0]


def test_forced_eight_raised_scores_normally() -> None:
    st = declared(["pass", "pass", "pass", 8], "S", dealer=1)
    st = do(st, 1, {"type": "raise", "to": 9})
    st = do(st, 0, {"type": "accept_raise"})
    st = do(st, 2, {"type": "accept_raise"})
    assert st.bid == 9 and st.raised
    st = play_auto(st, 5)
    assert st.scores == [18, 0]


def test_double_13_made_partner_sits_out_three_card_tricks() -> None:
    st = declared(["double 13", "pass", "pass", "pass"], "S")
    assert st.sitting_out == 2
    v = GAME.view(st, 1)
    assert v["sitting_out"] == 2 and v["counts"] == [13, 13, 13, 13]
    illegal(st, 0, {"type": "raise", "to": 13})
    st = play(st, "AS")
    assert GAME.to_act(st) == [1]
    st = play(st, "2H")
    assert GAME.to_act(st) == [3]  # seat 2 skipped
    st = play(st, "2C")
    assert len(st.tricks[0]["cards"]) == 3 and st.trick == []
    st = play_auto(st, 12)
    assert st.scores == [26, 0] and st.sheet[-1]["tricks"] == [13, 0]
    # the laid-aside hand is gathered face down at the end
    assert st.unplayed[2] == D and st.deck[-13:] == D


def test_double_13_failed() -> None:
    st = declared(["double 13", "pass", "pass", "pass"], "S", dealer=0)  # seat 1: hearts
    assert st.sitting_out == 3
    st = play(st, "AH")
    st = play(st, "AD")
    st = play(st, "2S")  # seat 0 trumps (ace holder: any spade surely wins, nobody after)
    assert st.phase == "cut" and st.scores == [52, 0]


def test_raise_accepted_then_made() -> None:
    st = declared([8, "pass", "pass", "pass"], "S")
    st = play(st, "AS")
    # mid-trick and off turn
    assert {"type": "raise", "to": 10} in GAME.legal_commands(st, 0)
    st = do(st, 0, {"type": "raise", "to": 10})
    assert GAME.to_act(st) == [1, 3]
    assert GAME.view(st, 2)["raise"]["pending"] == 10
    illegal(st, 1, {"type": "play", "card": "2H"}, "not_your_turn")
    illegal(st, 0, {"type": "accept_raise"}, "not_your_turn")
    illegal(st, 2, {"type": "accept_raise"}, "not_your_turn")
    st = do(st, 3, {"type": "accept_raise"})
    assert GAME.to_act(st) == [1]
    st = do(st, 1, {"type": "accept_raise"})
    assert st.bid == 10 and st.raised and GAME.to_act(st) == [1]
    # at most one raise per trick
    illegal(st, 0, {"type": "raise", "to": 11})
    st = play_auto(st, 1)
    assert {"type": "raise", "to": 11} in GAME.legal_commands(st, 0)
    st = play_auto(st, 8)
    assert st.phase == "play" and st.won == [9, 0]
    st = play_auto(st, 1)
    assert st.scores == [10, 0] and st.sheet[-1]["bid"] == 10


def test_raise_refused_keeps_bid() -> None:
    st = declared([8, "pass", "pass", "pass"], "S")
    st = do(st, 0, {"type": "raise", "to": 12})
    st = do(st, 1, {"type": "accept_raise"})
    st = do(st, 3, {"type": "refuse_raise"})
    assert st.bid == 8 and not st.raised and st.raise_to == 0
    illegal(st, 0, {"type": "raise", "to": 9})  # the raise of this trick was used
    illegal(st, 1, {"type": "raise", "to": 9})
    st = play_auto(st, 8)
    assert st.scores == [8, 0]


def test_raise_accepted_then_failed() -> None:
    st = declared([8, "pass", "pass", "pass"], "S", dealer=0)  # seat 1 declarer, loses all
    st = do(st, 1, {"type": "raise", "to": 9})
    st = do(st, 0, {"type": "accept_raise"})
    st = do(st, 2, {"type": "accept_raise"})
    st = play_auto(st, 4)
    assert st.phase == "play"
    st = play_auto(st, 1)  # 5 > 13 - 9
    assert st.scores == [18, 0]


def test_accepted_raise_that_cannot_be_made_ends_the_hand_at_once() -> None:
    st = declared([8, "pass", "pass", "pass"], "S", dealer=0)
    st = play_auto(st, 2)
    st = play(st, "QS")  # seat 0 won both tricks and leads the third
    assert st.won == [2, 0]
    st = do(st, 1, {"type": "raise", "to": 12})
    st = do(st, 0, {"type": "accept_raise"})
    evs = events_of(st, 2, {"type": "accept_raise"})
    assert [e["type"] for e in evs] == ["accept_raise", "score"]
    st = do(st, 2, {"type": "accept_raise"})
    assert st.phase == "cut" and st.scores == [24, 0] and not st.sheet[-1]["made"]
    # the unfinished trick is gathered after the completed ones, then the hands
    assert st.deck[:8] == ["AH", "AD", "AC", "AS", "KS", "KH", "KD", "KC"]
    assert st.deck[8:9] == ["QS"]
    assert st.deck[9:] == S[:10] + H[:11] + D[:11] + C[:11]


def test_negative_scores_and_match_end_at_target() -> None:
    st = declared(["pass", "pass", "pass", 8], "S", dealer=1, target=8)
    st = play_auto(st, 6)
    assert st.scores == [0, -8] and st.phase == "cut" and GAME.outcome(st) is None
    st = declared([8, "pass", "pass", "pass"], "S", target=8)
    st = play_auto(st, 8)
    out = GAME.outcome(st)
    assert st.phase == "over" and out is not None
    assert out.winners == [0, 2] and out.scores == [8, 0, 8, 0]
    assert GAME.to_act(st) == []
    illegal(st, 0, {"type": "cut"}, "game_over")


# -- the deal between hands ---------------------------------------------------------------


def test_gather_cut_and_deal_rotation() -> None:
    st = declared([9, "pass", "pass", "pass"], "S")  # dealer 3
    st = play_auto(st, 9)
    assert st.phase == "cut" and st.dealer == 0  # deal passes to the next seat
    expected = gather_expected(st)
    assert st.deck == expected
    assert GAME.to_act(st) == [0]
    illegal(st, 1, {"type": "cut"}, "not_your_turn")
    ev1 = events_of(st, 0, {"type": "cut"})
    assert [e["type"] for e in ev1] == ["cut"]
    at1 = ev1[0]["at"]
    assert 1 <= at1 <= 51
    assert GAME.redact(ev1[0], 2) == {"type": "cut", "seat": 0}  # the cut point is hidden
    st = do(st, 0, {"type": "cut"})
    assert st.deck == expected[at1:] + expected[:at1]
    assert GAME.to_act(st) == [1]
    ev2 = events_of(st, 1, {"type": "cut"})
    assert [e["type"] for e in ev2] == ["cut", "deal"]
    deck = cut_deck(st.deck, ev2[0]["at"])
    hands = ev2[1]["hands"]
    assert hands[1] == deck[:13] and hands[2] == deck[13:26] and hands[0] == deck[39:]
    st = do(st, 1, {"type": "cut"}, seed=0)
    assert st.dealer == 0 and st.hand_no == 2 and st.hands == hands


def gather_expected(st: TekaState) -> list[str]:
    out = [e["card"] for t in st.tricks for e in t["cards"]]
    return out + [c for h in st.unplayed for c in h]


def test_cut_moves_top_cards_to_bottom() -> None:
    assert cut_deck(["a", "b", "c", "d", "e"], 2) == ["c", "d", "e", "a", "b"]
    deck = list(DECK)
    hands = deal_hands(deck, 1)
    assert hands[2] == deck[:13] and hands[1] == deck[39:]


def low_hands() -> list[list[str]]:
    """Seat 2 holds only cards up to a 10 (nothing above a ten)."""
    low = [c for c in DECK if c[0] in "23456789T"]
    high = [c for c in DECK if c[0] in "JQKA"]
    seat2 = low[:13]
    rest = low[13:] + high
    return [rest[0::3], rest[1::3], seat2, rest[2::3]]


def test_throw_in_keep_goes_to_bidding() -> None:
    st = new(low_hands(), dealer=1)
    assert st.phase == "throw_in" and GAME.to_act(st) == [2]
    v0 = GAME.view(st, 0)
    assert v0["to_act"] == [] and v0["throw_in"] == {"pending": True, "you": None}
    v2 = GAME.view(st, 2)
    assert v2["to_act"] == [2] and v2["throw_in"]["you"] == "undecided"
    assert GAME.legal_commands(st, 2) == [{"type": "keep"}, {"type": "throw_in"}]
    assert (
        illegal(st, 0, {"type": "keep"}, "not_your_turn") == "you have no throw-in decision to make"
    )
    illegal(st, 2, {"type": "bid", "call": "pass"})
    ev = events_of(st, 2, {"type": "keep"})[0]
    assert GAME.redact(ev, 0) == {"type": "keep"}  # who could throw in stays private
    assert GAME.redact(ev, 2) == {"type": "keep", "seat": 2}
    st = do(st, 2, {"type": "keep"})
    assert st.phase == "bidding" and GAME.to_act(st) == [2]


def test_throw_in_redeals_by_same_dealer_after_two_cuts() -> None:
    hands = low_hands()
    st = new(hands, dealer=1)
    ev = events_of(st, 2, {"type": "throw_in"})[0]
    assert GAME.redact(ev, 0) == {"type": "throw_in", "seat": 2}
    st = do(st, 2, {"type": "throw_in"})
    assert st.phase == "cut" and st.dealer == 1 and st.hand_no == 1
    assert st.deck == hands[0] + hands[1] + hands[2] + hands[3]
    assert GAME.to_act(st) == [1]
    st = do(st, 1, {"type": "cut"}, seed=3)
    assert GAME.to_act(st) == [2]
    deck_before = list(st.deck)
    evs = events_of(st, 2, {"type": "cut"})
    st = do(st, 2, {"type": "cut"})
    deck = cut_deck(deck_before, evs[0]["at"])
    assert st.dealer == 1 and st.hands[2] == deck[:13] and st.hands[1] == deck[39:]
    # the unplayed cards of the thrown-in hand were never shown to the others
    v = GAME.view(st, 0)
    assert not (strings_in(v) & (set(DECK) - set(st.hands[0])))


# -- signals, views, leaks ------------------------------------------------------------------


def test_signals_are_public() -> None:
    st = declared([8, "pass", "pass", "pass"], "S")
    evs = events_of(st, 0, {"type": "play", "card": "AS", "signal": "slam"})
    assert evs[0]["signal"] == "slam"
    assert GAME.redact(evs[0], 1)["signal"] == "slam"
    st = play(st, "AS", "slam")
    st = play(st, "2H", "drop")
    for viewer in (1, 2, SPECTATOR):
        trick = GAME.view(st, viewer)["trick"]
        assert [e["signal"] for e in trick] == ["slam", "drop"]
    illegal(st, 2, {"type": "play", "card": "2D", "signal": "wink"}, "malformed")


def test_views_and_deal_show_only_own_cards() -> None:
    events = GAME.start(GAME.options({}), Random(11))
    st = fold(GAME, events)
    deal = events[-1]
    for seat in range(4):
        v = GAME.view(st, seat)
        others = set(DECK) - set(st.hands[seat])
        assert sorted(v["hand"]) == sorted(st.hands[seat])
        assert not strings_in(v) & others
        red = GAME.redact(deal, seat)
        assert red["hands"][seat] == st.hands[seat]
        assert not strings_in(red) & others
        assert set(GAME.secrets(st, seat)) == others
    assert not strings_in(GAME.view(st, SPECTATOR)) & set(DECK)
    assert GAME.redact(events[1], 0) == {"type": "shuffle"}
    assert GAME.view(st, ALL)["hands"] == st.hands


def test_played_cards_are_not_secret_but_unplayed_stay_hidden() -> None:
    st = declared([8, "pass", "pass", "pass"], "S")
    st = play(st, "AS")
    assert "AS" not in GAME.secrets(st, 1)
    st = play_auto(st, 8)
    assert st.phase == "cut"
    sec = set(GAME.secrets(st, 0))
    assert sec == set(H[:5] + D[:5] + C[:5])  # the others' unplayed cards
    assert not strings_in(GAME.view(st, 0)) & sec


def test_errors_are_classified() -> None:
    st = declared([8, "pass", "pass", "pass"], "S")
    illegal(st, 1, {"type": "play", "card": "2H"}, "not_your_turn")
    illegal(st, 0, {"type": "play", "card": "2H"})
    illegal(st, 0, {"type": "play", "card": "ZZ"}, "malformed")
    illegal(st, 0, {"type": "dance"}, "malformed")
    illegal(st, 0, "play", "malformed")
    illegal(st, 7, {"type": "play", "card": "AS"}, "wrong_seat")
    illegal(st, 0, {"type": "bid", "call": 9})
    illegal(st, 0, {"type": "raise", "to": 8})
    illegal(st, 0, {"type": "raise", "to": 14})
    illegal(st, 1, {"type": "accept_raise"})


# -- resampling for bots ---------------------------------------------------------------------


def original_hands_consistent(game_state: TekaState, hands: list[list[str]]) -> bool:
    """Replay the hand so far from the hands the sample implies: was every play legal?"""
    start = [list(h) for h in hands]
    all_tricks = [t["cards"] for t in game_state.tricks] + [game_state.trick]
    for cards in all_tricks:
        for e in cards:
            start[e["seat"]].append(e["card"])
    cur = [list(h) for h in start]
    for ti, cards in enumerate(all_tricks):
        done: list[dict[str, Any]] = []
        for e in cards:
            ok = playable_cards(
                cur[e["seat"]],
                done,
                ti == 0,
                game_state.trumps,
                cur,
                e["seat"],
                game_state.sitting_out,
            )
            if e["card"] not in ok:
                return False
            cur[e["seat"]].remove(e["card"])
            done.append(e)
    return True


def test_resample_respects_view_voids_and_first_trick() -> None:
    checked = 0
    for seed in range(30):
        rng = Random(seed)
        opts = GAME.options({"target": 20, "draw_for_partners": seed % 2 == 1})
        st = fold(GAME, GAME.start(opts, Random(seed)))
        steps = 0
        while GAME.outcome(st) is None and steps < 600:
            steps += 1
            if st.phase == "play":
                for viewer in range(4):
                    view = GAME.view(st, viewer)
                    again = GAME.resample(json_roundtrip(view), viewer, Random(steps))
                    assert dumps(GAME.view(again, viewer)) == dumps(view)
                    assert GAME.legal_commands(again, viewer) == GAME.legal_commands(st, viewer)
                    assert sorted(c for h in again.hands for c in h) == sorted(
                        c for h in st.hands for c in h
                    )
                    assert original_hands_consistent(st, again.hands)
                    checked += 1
            seat = rng.choice(GAME.to_act(st))
            moves = [c for c in GAME.legal_commands(st, seat) if c["type"] != "raise"]
            st = do(st, seat, rng.choice(moves), seed=steps)
    assert checked > 500


def json_roundtrip(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value))


def test_resample_during_throw_in_keeps_someone_deciding() -> None:
    st = new(low_hands(), dealer=1)
    for viewer in (0, 1, 3):
        v = GAME.view(st, viewer)
        again = GAME.resample(v, viewer, Random(viewer))
        assert dumps(GAME.view(again, viewer)) == dumps(v)
        assert GAME.to_act(again), "the resampled state must wait for some throw-in decision"
        assert viewer not in GAME.to_act(again)
    v = GAME.view(st, 2)
    again = GAME.resample(v, 2, Random(0))
    assert GAME.legal_commands(again, 2) == GAME.legal_commands(st, 2)
