"""Finished Teka matches for the analysis tests: one hand to a low target, on deals that the
double-dummy solver settles in milliseconds (long runs of equal cards, few real choices).

:data:`DEAL`: seat 0 holds ten top spades and three small hearts, seat 1 the ace, king and
queen of hearts and ten diamonds, seat 2 the small spades and middle hearts, seat 3 every
club. Seat 0 bids 10 in spades: par is 10 (ten spade tricks; the defenders' three hearts).
Seat 1 throwing the ace of hearts away on the first trick lets seat 2's jack win the third
heart round: that card costs its side a trick (:data:`THROW`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.teka import GAME, TekaState, side_of, state_playable
from core.teka_dd import position_from_state, solve_cards

Obj = dict[str, Any]

DEAL: list[list[str]] = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "2H", "3H", "4H"],
    ["AH", "KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D"],
    ["4S", "3S", "2S", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4D", "3D", "2D"],
    ["AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C", "2C"],
]
BIDDER = 0
BID = 10
TRUMPS = "S"
THROW = (1, "AH")
"""``(seat, card)``: the card that throws a trick away (seat 1 discards its ace of hearts)."""

SEATS: list[Obj] = [{"kind": "guest", "name": n} for n in ("Ann", "Bob", "Cleo", "Dev")]
"""The players of the stored matches (``creating.import_game(..., SEATS, events)``)."""

Chooser = Callable[[TekaState, int, list[str]], str]


def best_card(state: TekaState, seat: int, legal: list[str]) -> str:
    """A double-dummy best card for ``seat`` (the first of the best, in hand order)."""
    values = solve_cards(position_from_state(state))
    mine = side_of(seat) == side_of(state.bidder)
    target = max(values.values()) if mine else min(values.values())
    return next(c for c in legal if values[c] == target)


def throwing(seat_card: tuple[int, str]) -> Chooser:
    """Best play, except that ``seat_card[0]`` plays ``seat_card[1]`` as soon as it may."""

    def choose(state: TekaState, seat: int, legal: list[str]) -> str:
        if seat == seat_card[0] and seat_card[1] in legal:
            return seat_card[1]
        return best_card(state, seat, legal)

    return choose


def teka_match(
    choose: Chooser = best_card,
    deal: list[list[str]] | None = None,
    bidder: int = BIDDER,
    bid: int | str = BID,
    trumps: str = TRUMPS,
    target: int = 1,
    before_card: Callable[[TekaState], list[tuple[int, Obj]]] | None = None,
) -> list[Obj]:
    """The events of a whole Teka match: one hand of ``deal`` (dealt by the seat before
    ``bidder``, who bids ``bid`` while the others pass), played out by ``choose``, to a
    target the hand reaches. ``before_card(state)``: commands ``(seat, command)`` to give
    before each card (a raise and its answers)."""
    hands = deal if deal is not None else DEAL
    dealer = (bidder - 1) % 4
    deck = [c for i in range(4) for c in hands[(dealer + 1 + i) % 4]]
    events: list[Obj] = [
        {"type": "start", "options": GAME.options({"target": target, "first_dealer": dealer})},
        {"type": "shuffle", "deck": deck},
        {"type": "deal", "dealer": dealer, "hand": 1, "hands": [list(h) for h in hands]},
    ]
    state: TekaState = GAME.initial()
    for e in events:
        state = GAME.evolve(state, e)

    def apply(seat: int, command: Obj) -> None:
        nonlocal state
        from random import Random

        for ev in GAME.decide(state, seat, command, Random(0)):
            events.append(ev)
            state = GAME.evolve(state, ev)

    for seat in range(4):
        if state.phase == "throw_in" and state.eligible[seat]:
            apply(seat, {"type": "keep"})
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        apply(seat, {"type": "bid", "call": bid if seat == bidder else "pass"})
    apply(bidder, {"type": "trumps", "suit": trumps})
    while state.phase == "play":
        for seat, command in before_card(state) if before_card is not None else []:
            apply(seat, command)
        if state.phase != "play":
            break
        seat = GAME.to_act(state)[0]
        legal = state_playable(state, seat)
        apply(seat, {"type": "play", "card": choose(state, seat, legal)})
    assert state.phase == "over", state.phase
    return events
