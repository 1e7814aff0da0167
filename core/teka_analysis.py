"""The analysis of a finished Teka match, hand by hand and card by card, double-dummy
(:mod:`core.teka_dd`: every hand known, all four seats playing perfectly to the end).

For each hand that was played: the deal, the declaring side's tricks at the opening lead in
the named trumps and in each other suit (*par*), the contract against it, each raise and
whether it was safe, and for every card played the declaring side's tricks before and after
it; a card that lowered its own side's figure *cost* that many tricks. Then per seat and per
side the tricks lost to play, and the hands whose result differs from par (*swings*), with
those that decided the match. The JSON is described in ``docs/protocol.md``.

Solving is injected: :func:`analyse` takes a ``solve`` function that returns the declaring
side's tricks from a :class:`core.teka_dd.Position` or ``None`` when it gave up (a time
budget), so a server can bound every solve; a figure that depends on a solve cut short is
``null`` in the result and listed under ``cut_short``. Without one, every solve runs to the
end (:func:`full_solver`).
"""

from __future__ import annotations

from typing import Final, Protocol

from core.api import TABLE_EVENTS, Obj
from core.teka import (
    DOUBLE_13,
    GAME,
    MIN_BID,
    SEATS,
    SUITS,
    TekaState,
    side_of,
    sort_key,
    sorted_cards,
)
from core.teka_dd import Position, Solver, position_from_state

VERSION: Final = 1
"""Bumped whenever the analysis JSON or its figures change (a cache key)."""

BACKGROUND: Final = True
"""A match takes minutes to analyse: the server computes it off the request path
(``server.games.analysis_jobs``) and answers with the progress until it is ready."""

NOTE: Final = (
    "figures are the declaring side's tricks in the whole hand under double-dummy play "
    "(every hand known, all seats perfect to the last card, the hand's early stop ignored); "
    "a card's cost is the tricks it lost its own side; par is at the opening lead, the "
    "bidder leading"
)


class SolveFn(Protocol):
    """Tricks the declaring side takes from a position to the end (:func:`core.teka_dd.solve`),
    or ``None`` when the solve was cut short."""

    def __call__(self, position: Position) -> int | None: ...


class CardsFn(Protocol):
    """The declaring side's tricks after each legal card of the seat to play
    (:func:`core.teka_dd.solve_cards`), or ``None`` when the solve was cut short."""

    def __call__(self, position: Position) -> dict[str, int] | None: ...


class ProgressFn(Protocol):
    """Called before each hand is solved: ``(hand index from 1, hands in all)``."""

    def __call__(self, hand: int, hands: int) -> None: ...


class _FullSolver:
    def __init__(self) -> None:
        self.solver = Solver()

    def __call__(self, position: Position) -> int | None:
        self.solver.load(position)
        return self.solver.value()

    def cards(self, position: Position) -> dict[str, int] | None:
        self.solver.load(position)
        return self.solver.card_values()


def full_solver() -> _FullSolver:
    """A solve function without a time budget (one transposition table for all calls);
    its ``cards`` method is the matching :class:`CardsFn`."""
    return _FullSolver()


class HandPlan:
    """One played hand read from the log: what to solve and what happened."""

    def __init__(self, state: TekaState, calls: list[Obj]) -> None:
        self.hand_no: int = state.hand_no
        self.dealer: int = state.dealer
        self.bidder: int = state.bidder
        self.side: int = side_of(state.bidder)
        self.trumps: str = state.trumps
        self.double13: bool = state.double13
        self.forced: bool = state.forced
        self.first_bid: int = state.bid
        self.sitting_out: int = state.sitting_out
        self.calls: list[Obj] = [dict(c) for c in calls]
        self.deal: list[list[str]] = [list(h) for h in state.hands]
        self.positions: list[Position] = [position_from_state(state)]
        """``positions[k]``: after ``k`` cards of the hand (0: the opening lead)."""
        self.won: list[int] = [0]
        """``won[k]``: tricks the declaring side had completed after ``k`` cards."""
        self.plays: list[Obj] = []
        self.raises: list[Obj] = []
        self.score: Obj | None = None
        self.final_bid: int = state.bid
        self.raised: bool = False

    def opening(self, trumps: str) -> Position:
        """The opening lead with ``trumps`` as the trump suit."""
        hands = [[] if s == self.sitting_out else h for s, h in enumerate(self.deal)]
        return Position(hands, trumps, self.bidder, [], True, self.sitting_out, self.side)


def plan(events: list[Obj]) -> tuple[list[HandPlan], TekaState]:
    """The hands played in a Teka match (thrown-in deals are skipped) and its last state;
    ``ValueError`` for events that are not a Teka match."""
    state: TekaState = GAME.initial()
    hands: list[HandPlan] = []
    current: HandPlan | None = None
    calls: list[Obj] = []
    started = False
    for event in events:
        kind = str(event.get("type", ""))
        if kind in TABLE_EVENTS:
            continue
        try:
            state = GAME.evolve(state, event)
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise ValueError(f"not a Teka match: {exc}") from exc
        if kind == "start":
            started = True
        elif kind == "deal":
            calls = []
            current = None
        elif kind == "bid":
            calls.append({"seat": int(event["seat"]), "call": event["call"]})
        elif kind == "trumps":
            current = HandPlan(state, calls)
            hands.append(current)
        elif kind == "play" and current is not None:
            n = len(current.plays)
            current.plays.append(
                {
                    "n": n + 1,
                    "trick": len(state.tricks) + (1 if state.trick else 0),
                    "seat": int(event["seat"]),
                    "card": str(event["card"]),
                    "signal": event.get("signal"),
                }
            )
            current.positions.append(position_from_state(state))
            current.won.append(state.won[current.side])
        elif kind == "raise" and current is not None:
            current.raises.append(
                {"seat": int(event["seat"]), "to": int(event["to"]),
                 "after_cards": len(current.plays), "accepted": None}
            )
        elif kind == "accept_raise" and current is not None and current.raises:
            if state.raised and state.bid == int(current.raises[-1]["to"]):
                current.raises[-1]["accepted"] = True
        elif kind == "refuse_raise" and current is not None and current.raises:
            current.raises[-1]["accepted"] = False
        elif kind == "score" and current is not None:
            sheet = state.sheet[-1]
            current.score = dict(sheet)
            current.final_bid = int(sheet["bid"])
            current.raised = bool(sheet["raised"])
            current = None
    if not started:
        raise ValueError("not a Teka match (no start event)")
    return hands, state


def _cards_left(position: Position) -> int:
    return sum(len(h) for h in position.hands) + len(position.trick)


def par_points(h: HandPlan, made: bool) -> list[int]:
    """Points per side had the hand ended ``made`` (or not) at its opening contract."""
    pts = [0, 0]
    if h.double13:
        pts[h.side if made else 1 - h.side] = 26 if made else 52
    elif h.forced and h.first_bid == MIN_BID:
        pts[h.side] = MIN_BID if made else -MIN_BID
    elif made:
        pts[h.side] = h.first_bid
    else:
        pts[1 - h.side] = 2 * h.first_bid
    return pts


def _contract_verdict(bid: int, par: int | None) -> str | None:
    if par is None:
        return None
    if bid > par:
        return "overbid"
    if bid < par:
        return "underbid"
    return "exact"


def analyse_hand(
    h: HandPlan, solve: SolveFn, cut: list[Obj], number: int, cards_fn: CardsFn | None = None
) -> Obj:
    """The analysis of one hand (see the module docstring); cut-short solves go to ``cut``.
    With ``cards_fn``, a costly card gets the cards that were best instead (``best``)."""
    n = len(h.positions)
    values: list[int | None] = [None] * n
    # Last card first: the later positions are small and fill the transposition table the
    # earlier ones use. Once one is cut short, the earlier (bigger) ones are not tried.
    given_up = False
    for k in range(n - 1, -1, -1):
        pos = h.positions[k]
        if _cards_left(pos) == 0:
            values[k] = h.won[k]
            continue
        v = None if given_up else solve(pos)
        values[k] = None if v is None else h.won[k] + v
        if v is None:
            why = "skipped" if given_up else "budget"
            given_up = True
            if k == 0:
                cut.append({"hand": number, "what": "par", "suit": h.trumps, "why": why})
            else:
                cut.append({"hand": number, "what": "card", "n": k, "why": why})
    par: Obj = {}
    for suit in SUITS:
        if suit == h.trumps:
            par[suit] = values[0]
            continue
        v = solve(h.opening(suit))
        par[suit] = v
        if v is None:
            cut.append({"hand": number, "what": "par", "suit": suit, "why": "budget"})
    par_trumps = values[0]
    cards: list[Obj] = []
    lost = [0] * SEATS
    for i, p in enumerate(h.plays):
        before = values[i]
        after = values[i + 1]
        seat = int(p["seat"])
        cost: int | None = None
        if before is not None and after is not None:
            cost = before - after if side_of(seat) == h.side else after - before
            cost = max(cost, 0)
            lost[seat] += cost
        entry = dict(p)
        entry["before"] = before
        entry["after"] = after
        entry["cost"] = cost
        if cost and cards_fn is not None:
            entry["best"] = _best_cards(h, i, seat, cards_fn)
        cards.append(entry)
    raises: list[Obj] = []
    for r in h.raises:
        value = values[int(r["after_cards"])]
        entry = dict(r)
        entry["value"] = value
        entry["safe"] = None if value is None else value >= int(r["to"])
        raises.append(entry)
    should_make = None if par_trumps is None else par_trumps >= h.first_bid
    result: Obj | None = None
    swing: list[int] | None = None
    if h.score is not None:
        made = bool(h.score["made"])
        result = {
            "made": made,
            "tricks": list(h.score["tricks"]),
            "points": list(h.score["points"]),
            "totals": list(h.score["totals"]),
        }
        if should_make is not None:
            ideal = par_points(h, should_make)
            swing = [int(h.score["points"][s]) - ideal[s] for s in (0, 1)]
    if should_make is None or result is None:
        outcome = None
    elif bool(result["made"]):
        outcome = "made_as_par" if should_make else "made_against_par"
    else:
        outcome = "failed_against_par" if should_make else "failed_as_par"
    return {
        "hand": h.hand_no,
        "index": number,
        "dealer": h.dealer,
        "bidder": h.bidder,
        "side": h.side,
        "calls": h.calls,
        "contract": {
            "bid": h.first_bid,
            "final_bid": h.final_bid,
            "double13": h.double13,
            "forced": h.forced,
            "raised": h.raised,
            "call": DOUBLE_13 if h.double13 else h.first_bid,
        },
        "trumps": h.trumps,
        "sitting_out": h.sitting_out,
        "deal": [sorted_cards(c) for c in h.deal],
        "par": par_trumps,
        "par_suits": par,
        "verdict": _contract_verdict(h.first_bid, par_trumps),
        "should_make": should_make,
        "result": result,
        "outcome": outcome,
        "swing": swing,
        "raises": raises,
        "cards": cards,
        "lost": lost,
    }


def _summary(hands: list[Obj], state: TekaState) -> Obj:
    players: list[Obj] = []
    for seat in range(SEATS):
        mine = [c for h in hands for c in h["cards"] if c["seat"] == seat]
        players.append(
            {
                "seat": seat,
                "cards": len(mine),
                "costly": sum(1 for c in mine if (c["cost"] or 0) > 0),
                "tricks_lost": sum(int(c["cost"] or 0) for c in mine),
                "unknown": sum(1 for c in mine if c["cost"] is None),
            }
        )
    scores = list(state.scores)
    winner = side_of(state.winners[0]) if state.winners else -1
    margin = abs(scores[0] - scores[1])
    swings: list[int] = []
    decisive: list[int] = []
    sides: list[Obj] = [
        {"side": s, "tricks_lost": 0, "points_lost": 0} for s in (0, 1)
    ]
    for h in hands:
        for seat in range(SEATS):
            sides[side_of(seat)]["tricks_lost"] += h["lost"][seat]
        sw = h["swing"]
        if sw is None or (sw[0] == 0 and sw[1] == 0):
            continue
        swings.append(int(h["index"]))
        net0 = sw[0] - sw[1]  # what the hand's departure from par gave side 0 over side 1
        if net0 < 0:
            sides[0]["points_lost"] += -net0
        else:
            sides[1]["points_lost"] += net0
        if winner >= 0:
            toward_winner = net0 if winner == 0 else -net0
            if toward_winner > 0 and toward_winner >= margin:
                decisive.append(int(h["index"]))
    return {
        "players": players,
        "sides": sides,
        "scores": scores,
        "winner": winner,
        "margin": margin,
        "swings": swings,
        "decisive": decisive,
    }


def _best_cards(h: HandPlan, i: int, seat: int, cards_fn: CardsFn) -> list[str] | None:
    """The best cards ``seat`` held for the ``i``-th card of the hand (None: cut short)."""
    values = cards_fn(h.positions[i])
    if not values:
        return None
    mine = side_of(seat) == h.side
    target = max(values.values()) if mine else min(values.values())
    return sorted((c for c, v in values.items() if v == target), key=sort_key)


def analyse(
    events: list[Obj],
    solve: SolveFn | None = None,
    progress: ProgressFn | None = None,
    cards: CardsFn | None = None,
) -> Obj:
    """The analysis of a Teka match given its events (as stored, every card known); see
    the module docstring and ``docs/protocol.md``. ``ValueError`` for events that are not a
    Teka match. ``cards``: how to find the best cards where a card was costly (without
    ``solve`` and ``cards``, the full solver does both)."""
    plans, state = plan(events)
    if solve is None:
        full = full_solver()
        s: SolveFn = full
        cards = full.cards if cards is None else cards
    else:
        s = solve
    cut: list[Obj] = []
    hands: list[Obj] = []
    for i, h in enumerate(plans):
        if progress is not None:
            progress(i + 1, len(plans))
        hands.append(analyse_hand(h, s, cut, i + 1, cards))
    return {
        "game": "teka",
        "version": VERSION,
        "target": state.target,
        "hands": hands,
        "summary": _summary(hands, state),
        "cut_short": cut,
        "note": NOTE,
    }


__all__ = [
    "NOTE",
    "VERSION",
    "CardsFn",
    "HandPlan",
    "ProgressFn",
    "SolveFn",
    "analyse",
    "analyse_hand",
    "full_solver",
    "par_points",
    "plan",
]
