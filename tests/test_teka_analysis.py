"""core.teka_analysis on constructed matches (tests/teka_match.py): par, the contract
against it, the cost of every card, swings; and the budgeted solver of the server
(server.games.dd_worker), whose cut-short solves leave their figures null."""

from __future__ import annotations

from random import Random

import pytest
from teka_match import BID, DEAL, THROW, best_card, teka_match, throwing

from core.teka import DECK, DOUBLE_13, SUITS, TekaState
from core.teka_analysis import analyse, par_points, plan
from core.teka_dd import Position, solve


def test_a_perfect_hand_has_no_costly_card() -> None:
    a = analyse(teka_match(best_card))
    (h,) = a["hands"]
    assert h["deal"][0][:3] == ["AS", "KS", "QS"] and h["trumps"] == "S" and h["bidder"] == 0
    assert h["par"] == 10 and h["par_suits"] == {"S": 10, "H": 7, "D": 0, "C": 0}
    assert h["verdict"] == "exact" and h["outcome"] == "made_as_par" and h["swing"] == [0, 0]
    assert h["cards"] and all(c["cost"] == 0 for c in h["cards"])
    assert all(c["before"] == c["after"] == 10 for c in h["cards"])
    assert [p["tricks_lost"] for p in a["summary"]["players"]] == [0, 0, 0, 0]
    assert a["summary"]["swings"] == [] and a["cut_short"] == []


def test_a_card_that_throws_a_trick_is_marked_with_its_cost() -> None:
    """East discards the ace of hearts on the first trick: South's jack of hearts then wins
    the third heart round, a trick for the declarers (10 -> 11)."""
    a = analyse(teka_match(throwing(THROW)))
    (h,) = a["hands"]
    costly = [(c["n"], c["seat"], c["card"], c["cost"]) for c in h["cards"] if c["cost"]]
    assert costly == [(2, 1, "AH", 1)]
    card = h["cards"][1]
    assert (card["trick"], card["before"], card["after"]) == (1, 10, 11)
    # any diamond kept the trick (East had ten; the ace, king, queen of hearts did not)
    assert card["best"] == ["AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D"]
    assert all("best" not in c for c in h["cards"] if not c["cost"])
    assert h["lost"] == [0, 1, 0, 0]
    summary = a["summary"]
    assert [p["tricks_lost"] for p in summary["players"]] == [0, 1, 0, 0]
    assert [p["costly"] for p in summary["players"]] == [0, 1, 0, 0]
    assert [s["tricks_lost"] for s in summary["sides"]] == [0, 1]


def test_an_overbid_made_by_the_defence_s_mistake_swung_the_match() -> None:
    a = analyse(teka_match(throwing(THROW), bid=BID + 1))
    (h,) = a["hands"]
    assert h["par"] == 10 and h["contract"]["bid"] == 11 and h["verdict"] == "overbid"
    assert h["should_make"] is False and h["result"]["made"] is True
    assert h["outcome"] == "made_against_par"
    # made: 11 to North-South; at par it fails: 22 to East-West
    assert h["swing"] == [11, -22]
    s = a["summary"]
    assert s["winner"] == 0 and s["swings"] == [1] and s["decisive"] == [1]
    assert [x["points_lost"] for x in s["sides"]] == [0, 33]
    # played well, the same overbid fails as par says
    b = analyse(teka_match(best_card, bid=BID + 1))["hands"][0]
    assert b["outcome"] == "failed_as_par" and b["swing"] == [0, 0]


def test_an_underbid_and_the_figures_per_suit_are_the_opening_lead_s() -> None:
    a = analyse(teka_match(best_card, bid=9))
    h = a["hands"][0]
    assert h["verdict"] == "underbid" and h["outcome"] == "made_as_par"
    plans, _ = plan(teka_match(best_card, bid=9))
    for suit in SUITS:
        assert h["par_suits"][suit] == solve(plans[0].opening(suit))


def test_a_raise_is_checked_against_the_figure_when_it_was_made() -> None:
    """North raises 9 to 11 after the first trick, both opponents accept: unsafe (10 at
    most); the hand then fails."""

    def raise_once(state: TekaState) -> list[tuple[int, dict[str, object]]]:
        if len(state.tricks) == 1 and not state.raised:
            return [(0, {"type": "raise", "to": 11}), (1, {"type": "accept_raise"}),
                    (3, {"type": "accept_raise"})]
        return []

    h = analyse(teka_match(best_card, bid=9, before_card=raise_once))["hands"][0]
    assert h["raises"] == [
        {"seat": 0, "to": 11, "after_cards": 4, "accepted": True, "value": 10, "safe": False}
    ]
    assert h["contract"]["final_bid"] == 11 and h["contract"]["raised"] is True
    assert h["result"]["made"] is False


def test_a_double_13_is_solved_with_the_partner_s_hand_laid_aside() -> None:
    a = analyse(teka_match(best_card, bid=DOUBLE_13))
    (h,) = a["hands"]
    assert h["contract"]["double13"] and h["sitting_out"] == 2 and len(h["deal"][2]) == 13
    three = [list(DEAL[0]), list(DEAL[1]), [], list(DEAL[3])]
    for suit in SUITS:
        assert h["par_suits"][suit] == solve(Position(three, suit, 0, [], True, 2, 0))
    assert h["par"] == h["par_suits"]["S"] and h["verdict"] in ("overbid", "exact")
    assert all(c["seat"] != 2 for c in h["cards"]) and all(c["cost"] == 0 for c in h["cards"])


def test_forced_and_double_13_par_points() -> None:
    plans, _ = plan(teka_match(best_card))
    h = plans[0]
    assert par_points(h, True) == [10, 0] and par_points(h, False) == [0, 20]
    h.forced, h.first_bid = True, 8
    assert par_points(h, False) == [-8, 0]
    h.double13 = True
    assert par_points(h, True) == [26, 0] and par_points(h, False) == [0, 52]


def test_not_a_teka_match() -> None:
    with pytest.raises(ValueError):
        analyse([{"type": "placed", "seat": 0, "to": "a1"}])
    with pytest.raises(ValueError):
        analyse([])


def random_match(seed: int) -> list[dict[str, object]]:
    """A random deal played by the first legal card (slow to solve at its opening lead)."""
    deck = list(DECK)
    Random(seed).shuffle(deck)
    deal = [deck[i * 13 : (i + 1) * 13] for i in range(4)]
    return teka_match(lambda state, seat, legal: legal[0], deal=deal, bid=8)


def test_the_budgeted_solver_cuts_a_slow_solve_short_and_goes_on() -> None:
    """A real child process: a full random deal at its opening lead takes seconds, over a
    0.2 s budget (None, the child is ended); the next position is solved by a fresh one."""
    from server.games.dd_worker import BudgetedSolve

    solve_fn = BudgetedSolve(0.2)
    try:
        plans, _ = plan(random_match(7))
        assert solve_fn(plans[0].opening("H")) is None  # (cut: not waited for to its end)
        late = Position(
            [list(DEAL[s][:2]) for s in range(4)], "S", 0, [], False, -1, 0
        )
        assert solve_fn(late) == solve(late)
        assert (solve_fn.solves, solve_fn.cut) == (2, 1)
    finally:
        solve_fn.close()


def test_figures_cut_short_are_null_and_listed() -> None:
    from server.games.dd_worker import BudgetedSolve

    solve_fn = BudgetedSolve(0.2)
    try:
        a = analyse(random_match(7), solve_fn)
    finally:
        solve_fn.close()
    h = a["hands"][0]
    cut = a["cut_short"]
    assert h["par"] is None and {"hand": 1, "what": "par", "suit": h["trumps"],
                                 "why": "skipped"} in cut
    # one position ran out of time; the bigger ones before it were not tried
    assert [x["why"] for x in cut if x["what"] == "card" or x["suit"] == h["trumps"]] == [
        "budget"] + ["skipped"] * (len([x for x in cut if x["what"] == "card"]))
    assert {x["why"] for x in cut if x["what"] == "par" and x["suit"] != h["trumps"]} == {
        "budget"}
    assert h["verdict"] is None and h["outcome"] is None
    unknown = {c["n"] for c in h["cards"] if c["cost"] is None}
    cut_cards = {int(x["n"]) for x in cut if x["what"] == "card"}
    # a card's cost needs the figures before and after it
    assert all("best" not in c for c in h["cards"])  # (no cards function given)
    assert unknown == {n for n in range(1, len(h["cards"]) + 1)
                       if n in cut_cards or n - 1 in cut_cards or n == 1}
    assert h["cards"][-1]["cost"] is not None  # (the last positions are small: solved)
