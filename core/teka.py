"""Teka: Afghan four-player partnership trick-taking game, a match to 104 points.

Rules, options and notation, the project's rulings included: ``docs/rules/teka.md``.

Seats 0 & 2 play against 1 & 3 ("side" 0 and side 1); every rotation is in seat order.
Cards are strings ``"2S"``..``"AS"`` (ranks ``23456789TJQKA``, suits ``S H D C``).

Flow of one hand: ``deal`` (after the shuffle for the first hand, after two ``cut``
commands later) -> ``throw_in`` (only if some hand holds nothing above a 10) -> ``bidding``
(one call each) -> ``trumps`` -> ``play`` (with raises) -> ``score`` -> ``cut`` ... until a
side reaches the target.

Exported for bots (``core.ai``): :data:`DECK`, :func:`card_rank`, :func:`side_of`,
:class:`TekaState` (attributes documented in ``__init__``).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any, Final

from core import wording
from core.api import (
    ALL,
    Game,
    IllegalMoveError,
    Obj,
    OptionsError,
    Outcome,
    check_seat,
    choice_field,
    require_obj,
)

SEATS: Final = 4
SUITS: Final = "SHDC"
RANKS: Final = "23456789TJQKA"
DECK: Final[list[str]] = [r + s for s in SUITS for r in RANKS]
"""The 52 cards, spades 2..A, then hearts, diamonds, clubs."""
HAND_SIZE: Final = 13
TRICKS: Final = 13
PASS_CALLS: Final[list[str]] = ["pass", "ter", "behi ter"]
DOUBLE_13: Final = "double 13"
MIN_BID: Final = 8
MAX_BID: Final = 13
SIGNALS: Final[list[str]] = ["slam", "snap", "drop"]
TEN: Final = 8
"""Rank index of the 10: a hand with every rank index <= TEN may be thrown in."""
DEFAULT_TARGET: Final = 104
MAX_TARGET: Final = 10000

COMMAND_TYPES: Final = "keep, throw_in, bid, trumps, play, raise, accept_raise, refuse_raise, cut"

SIDE_NAMES: Final = ("North-South", "East-West")
"""The partnerships in words: seats 0 and 2, seats 1 and 3."""
CALL_WORDS: Final = {"pass": "passed", "ter": "said ter", "behi ter": "said behi ter",
                     "double 13": "bid double 13"}
"""A call that is not a number, as a verb."""
CALL_MEANINGS: Final = {
    "pass": "no bid",
    "ter": "a pass that tells your partner: I can win few or no tricks",
    "behi ter": "a pass that tells your partner: my hand is very weak",
    "double 13": "all 13 tricks, your partner sits out: beats any number",
}
"""A call that is not a number, in a few words for the one choosing it (the rules:
docs/rules/players/teka.md, "Bidding")."""
SIGNAL_MEANINGS: Final = {
    "slam": "partner, lead this suit when you next lead",
    "snap": "partner, lead the other suit of this colour (\u2665 and \u2666, \u2660 and \u2663)",
    "drop": "I have no more cards of this suit",
}
"""What each signal tells the partner (and everyone: signals are public)."""
FORCED_MEANING: Final = "the first three passed, so the dealer had to bid"
"""Why a contract is marked forced."""
RAISE_MEANING: Final = ("Both opponents must accept. Made, it scores the new number; failed, "
                        "the opponents score twice it.")
"""What a raise means for the declarer's side, said before it is proposed."""
DOING: Final = {"cut": "cutting the deck", "bidding": "bidding", "trumps": "naming trumps",
                "play": "playing a card"}
"""What a seat to act is doing, by the view's phase."""


def card_rank(card: str) -> int:
    """0 for a 2 .. 12 for an ace."""
    return RANKS.index(card[0])


def is_card(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 2 and value[0] in RANKS and value[1] in SUITS


def side_of(seat: int) -> int:
    """0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def sort_key(card: str) -> int:
    """Display order: suits S H D C, high cards first."""
    return SUITS.index(card[1]) * 16 + (12 - RANKS.index(card[0]))


def sorted_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=sort_key)


def _draw_strength(card: str) -> int:
    # Partner draw: rank first; equal ranks are ordered by suit, spades highest (S H D C).
    return card_rank(card) * 4 + (3 - SUITS.index(card[1]))


class TekaState:
    """A whole match. Hands keep their cards in the order dealt (the gather order needs it)."""

    def __init__(self) -> None:
        self.options: Obj = {}
        self.target: int = DEFAULT_TARGET
        self.draw: list[Obj] = []
        """Partner draw (option ``draw_for_partners``): ``{"rank","suit"}`` per lobby place."""
        self.seating: list[int] = [0, 1, 2, 3]
        """``seating[seat]`` = lobby place of the player who sits at ``seat``."""
        self.phase: str = "init"
        """init, deal, throw_in, bidding, trumps, play, cut, over."""
        self.dealer: int = 0
        self.hand_no: int = 1
        self.deck: list[str] = []
        """Undealt cards, top first (only between hands)."""
        self.hands: list[list[str]] = [[], [], [], []]
        self.unplayed: list[list[str]] = [[], [], [], []]
        """Cards still held when the last hand ended or was thrown in (gathered face down)."""
        self.cuts: int = 0
        self.eligible: list[bool] = [False, False, False, False]
        self.decided: list[bool] = [False, False, False, False]
        self.bids: list[Obj] = []
        self.bidder: int = -1
        self.bid: int = 0
        self.first_bid: int = 0
        self.double13: bool = False
        self.forced: bool = False
        self.raised: bool = False
        self.trumps: str = ""
        self.sitting_out: int = -1
        self.leader: int = -1
        self.trick: list[Obj] = []
        """Cards of the trick in progress: ``{"seat","card","signal"}`` in play order."""
        self.tricks: list[Obj] = []
        """Completed tricks of this hand: ``{"leader","cards","winner"}``."""
        self.won: list[int] = [0, 0]
        self.raise_to: int = 0
        self.raise_accepted: list[int] = []
        self.raise_trick: int = -1
        self.scores: list[int] = [0, 0]
        self.sheet: list[Obj] = []
        self.winners: list[int] = []
        self.reason: str = "score"  # (another reason: a ``result`` event ended the match)

    def copy(self) -> TekaState:
        s = TekaState()
        s.options = self.options
        s.target = self.target
        s.draw = self.draw
        s.seating = list(self.seating)
        s.phase = self.phase
        s.dealer = self.dealer
        s.hand_no = self.hand_no
        s.deck = list(self.deck)
        s.hands = [list(h) for h in self.hands]
        s.unplayed = [list(h) for h in self.unplayed]
        s.cuts = self.cuts
        s.eligible = list(self.eligible)
        s.decided = list(self.decided)
        s.bids = list(self.bids)
        s.bidder = self.bidder
        s.bid = self.bid
        s.first_bid = self.first_bid
        s.double13 = self.double13
        s.forced = self.forced
        s.raised = self.raised
        s.trumps = self.trumps
        s.sitting_out = self.sitting_out
        s.leader = self.leader
        s.trick = list(self.trick)
        s.tricks = list(self.tricks)
        s.won = list(self.won)
        s.raise_to = self.raise_to
        s.raise_accepted = list(self.raise_accepted)
        s.raise_trick = self.raise_trick
        s.scores = list(self.scores)
        s.sheet = list(self.sheet)
        s.winners = list(self.winners)
        s.reason = self.reason
        return s


# ---------------------------------------------------------------------------------------
# Rule helpers (pure functions on a state)


def next_seat(state: TekaState, seat: int) -> int:
    """The next seat in turn order that takes part in play (skips a double-13 partner)."""
    s = (seat + 1) % SEATS
    if s == state.sitting_out:
        s = (s + 1) % SEATS
    return s


def active_count(state: TekaState) -> int:
    return 3 if state.sitting_out >= 0 else 4


def to_play(state: TekaState) -> int:
    """The seat whose card the current trick waits for."""
    if not state.trick:
        return state.leader
    return next_seat(state, int(state.trick[-1]["seat"]))


def next_bidder(state: TekaState) -> int:
    return (state.dealer + 1 + len(state.bids)) % SEATS


def must_bid(state: TekaState) -> bool:
    """The dealer's call after three passes: a pass is not allowed."""
    return len(state.bids) == 3 and all(b["call"] in PASS_CALLS for b in state.bids)


def high_number(state: TekaState) -> int:
    """Highest number called so far (0 if none); 14 once a double 13 is on the table."""
    best = 0
    for b in state.bids:
        call = b["call"]
        if call == DOUBLE_13:
            return 14
        if isinstance(call, int) and call > best:
            best = call
    return best


def cutter(state: TekaState) -> int:
    return state.dealer if state.cuts == 0 else (state.dealer + 1) % SEATS


def opponents(state: TekaState) -> list[int]:
    return [(state.bidder + 1) % SEATS, (state.bidder + 3) % SEATS]


def raise_allowed(state: TekaState) -> bool:
    """May the declarer propose a raise now? (RULES.md Teka: raise)."""
    return (
        state.phase == "play"
        and not state.double13
        and state.raise_to == 0
        and state.bid < MAX_BID
        and state.raise_trick != len(state.tricks)
    )


def playable_cards(
    hand: list[str],
    trick: list[Obj],
    first_trick: bool,
    trumps: str,
    hands: list[list[str]],
    seat: int,
    sitting_out: int,
) -> list[str]:
    """Cards of ``hand`` that ``seat`` may play to ``trick`` (RULES.md Teka: first trick,
    ace of trumps, follow suit). ``hands`` are every seat's current cards (the ace rule
    looks at the trumps of the players still to play to the trick)."""
    if first_trick and ("A" + trumps) in hand:
        # The ace holder must play a trump that surely wins the first trick: higher than
        # every trump already played to it and every trump held by players still to play.
        played_seats = [int(e["seat"]) for e in trick]
        best = -1
        for e in trick:
            c = str(e["card"])
            if c[1] == trumps and card_rank(c) > best:
                best = card_rank(c)
        for s in range(SEATS):
            if s == seat or s == sitting_out or s in played_seats:
                continue
            for c in hands[s]:
                if c[1] == trumps and card_rank(c) > best:
                    best = card_rank(c)
        return [c for c in hand if c[1] == trumps and card_rank(c) > best]
    if not trick:
        if first_trick:
            own_trumps = [c for c in hand if c[1] == trumps]
            if own_trumps:
                return own_trumps
        return list(hand)
    led = str(trick[0]["card"])[1]
    follow = [c for c in hand if c[1] == led]
    return follow if follow else list(hand)


def state_playable(state: TekaState, seat: int) -> list[str]:
    return playable_cards(
        state.hands[seat],
        state.trick,
        not state.tricks,
        state.trumps,
        state.hands,
        seat,
        state.sitting_out,
    )


def trick_winner(cards: list[Obj], trumps: str) -> int:
    led = str(cards[0]["card"])[1]
    best_seat = -1
    best = -1
    for e in cards:
        c = str(e["card"])
        if c[1] == trumps:
            v = 100 + card_rank(c)
        elif c[1] == led:
            v = card_rank(c)
        else:
            v = -1
        if v > best:
            best = v
            best_seat = int(e["seat"])
    return best_seat


def hand_result(state: TekaState) -> str:
    """``made``, ``failed`` or ``""`` (the hand goes on). RULES.md Teka: early stop."""
    if state.bidder < 0 or state.phase != "play":
        return ""
    own = state.won[side_of(state.bidder)]
    other = state.won[1 - side_of(state.bidder)]
    if own >= state.bid:
        return "made"
    if other > TRICKS - state.bid:
        return "failed"
    return ""


MAX_HAND_POINTS: Final = 52
"""The most points one hand gives (a failed double 13 gives the other side 52; a failed bid
of 13, 26): a match played to the end is won with at most target - 1 + 52 points."""


def hand_points(state: TekaState, made: bool) -> list[int]:
    """Points per side for the hand just ended (RULES.md Teka: scoring)."""
    pts = [0, 0]
    mine = side_of(state.bidder)
    if state.double13:
        if made:
            pts[mine] = 26
        else:
            pts[1 - mine] = 52
    elif state.forced and state.first_bid == MIN_BID and not state.raised:
        pts[mine] = MIN_BID if made else -MIN_BID
    elif made:
        pts[mine] = state.bid
    else:
        pts[1 - mine] = 2 * state.bid
    return pts


def gather(state: TekaState) -> list[str]:
    """The deck after a hand (RULES.md Teka: gather), top card first: completed tricks in
    the order won (each in play order), the unfinished trick, then the hands in seat order,
    each in the order dealt (a laid-aside double-13 hand included)."""
    out: list[str] = []
    for t in state.tricks:
        for e in t["cards"]:
            out.append(str(e["card"]))
    for e in state.trick:
        out.append(str(e["card"]))
    for h in state.hands:
        out.extend(h)
    return out


def deal_hands(deck: list[str], dealer: int) -> list[list[str]]:
    """13 cards at once to each player, starting with the player after the dealer."""
    hands: list[list[str]] = [[], [], [], []]
    for i in range(SEATS):
        seat = (dealer + 1 + i) % SEATS
        hands[seat] = list(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE])
    return hands


def may_throw_in(hand: list[str]) -> bool:
    return bool(hand) and all(card_rank(c) <= TEN for c in hand)


def cut_deck(deck: list[str], at: int) -> list[str]:
    """A cut at ``at`` moves the top ``at`` cards to the bottom."""
    return deck[at:] + deck[:at]


# ---------------------------------------------------------------------------------------


def _forbid_voids(tricks: list[list[Obj]], trumps: str, unseen: list[str],
                  forbid: dict[int, set[str]]) -> None:
    """Known voids: a player who did not follow suit holds none of the led suit. On the first
    trick a trump played to a side-suit lead may be the ace-holder's duty, so no void is read
    from it; a first lead that is not a trump shows no trumps."""
    for ti, cards in enumerate(tricks):
        led = str(cards[0]["card"])[1]
        if ti == 0 and trumps and led != trumps:
            lead_seat = int(cards[0]["seat"])
            if lead_seat in forbid:
                forbid[lead_seat].update(x for x in unseen if x[1] == trumps)
        for e in cards[1:]:
            p = int(e["seat"])
            card = str(e["card"])
            if card[1] == led or p not in forbid:
                continue
            if ti == 0 and trumps and card[1] == trumps:
                continue
            forbid[p].update(x for x in unseen if x[1] == led)


def _forbid_by_the_ace(s: TekaState, viewer: int, own: list[str], unseen: list[str],
                       tricks: list[list[Obj]], forbid: dict[int, set[str]]) -> None:
    """The ace of trumps on the first trick (RULES.md Teka): its holder wins trick one, so a
    seat that played to it and lost to another card holds no ace; and a seat playing after
    the holder holds no trump above the holder's card (it would have had to play it)."""
    ace = "A" + s.trumps
    first = tricks[0] if tricks else []
    if not first:
        return
    if ace in unseen:
        best = -1
        w = -1
        for e in first:
            card = str(e["card"])
            if card[1] == s.trumps and card_rank(card) > best:
                best = card_rank(card)
                w = int(e["seat"])
        for e in first:
            p = int(e["seat"])
            if p != w and p in forbid:
                forbid[p].add(ace)
    holder = -1
    if ace in own:
        holder = viewer
    elif ace in unseen and s.tricks and not s.double13:
        holder = int(s.tricks[0]["winner"])
    order = [int(e["seat"]) for e in first]
    if holder < 0 or holder not in order:
        return
    x = str(first[order.index(holder)]["card"])
    later = order[order.index(holder) + 1 :]
    if len(first) < active_count(s):
        later += [p for p in range(SEATS) if p not in order and p != s.sitting_out]
    for p in later:
        if p in forbid:
            forbid[p].update(y for y in unseen if y[1] == s.trumps and card_rank(y) > card_rank(x))


def _forbid_by_our_ace(s: TekaState, view: Obj, own: list[str], unseen: list[str],
                       counts: list[int], others: list[int], forbid: dict[int, set[str]],
                       forced: dict[str, int], rng: Random) -> None:
    """The viewer holding the ace of trumps and about to play to the first trick: the cards
    it may play tell how high the trumps of the seats still to come reach (none above its
    lowest playable card; and when it may not play a lower trump it holds, some seat to
    come holds a trump between the two: one is ``forced`` on one of them)."""
    trumps = s.trumps
    playable = [str(x) for x in view["playable"]]
    if s.tricks or "A" + trumps not in own or not playable:
        return
    lo = min(card_rank(x) for x in playable)
    below = [card_rank(x) for x in own if x[1] == trumps and x not in playable]
    done = [int(e["seat"]) for e in s.trick]
    later = [p for p in others if p not in done and p != s.sitting_out]
    for p in later:
        forbid[p].update(y for y in unseen if y[1] == trumps and card_rank(y) > lo)
    if not below:
        return
    t0 = max(below)
    top_played = max(
        [card_rank(str(e["card"])) for e in s.trick if str(e["card"])[1] == trumps] or [-1]
    )
    if top_played < t0:
        cands = [y for y in unseen if y[1] == trumps and t0 < card_rank(y) < lo]
        holders = [p for p in later if counts[p] > 0]
        if cands and holders:
            forced[rng.choice(cands)] = rng.choice(holders)


class TekaGame(Game):
    name = "teka"
    min_seats = 4
    max_seats = 4

    # -- options and start ------------------------------------------------------------

    def options(self, raw: Any) -> Obj:
        raw = {} if raw is None else raw
        if not isinstance(raw, dict):
            raise OptionsError("options must be a JSON object")
        known = {"seats", "target", "draw_for_partners", "first_dealer"}
        for key in raw:
            if key not in known:
                raise OptionsError(f"unknown Teka option {key!r}")
        seats = raw.get("seats", SEATS)
        if not isinstance(seats, int) or isinstance(seats, bool) or seats != SEATS:
            raise OptionsError("Teka is played by exactly 4 seats")
        target = raw.get("target", DEFAULT_TARGET)
        if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= MAX_TARGET:
            raise OptionsError(f"target must be a whole number from 1 to {MAX_TARGET}")
        draw = raw.get("draw_for_partners", False)
        if not isinstance(draw, bool):
            raise OptionsError("draw_for_partners must be true or false")
        first = raw.get("first_dealer", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < SEATS:
            raise OptionsError("first_dealer must be a seat 0-3")
        return {"seats": SEATS, "target": target, "draw_for_partners": draw, "first_dealer": first}

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        opts = self.options(options)
        events: list[Obj] = [{"type": "start", "options": opts}]
        dealer = int(opts["first_dealer"])
        if opts["draw_for_partners"]:
            drawn = rng.sample(DECK, SEATS)
            order = sorted(range(SEATS), key=lambda p: -_draw_strength(drawn[p]))
            # Highest drawer: seat 0 and first dealer; second highest (partner): seat 2;
            # the two lowest: seats 1 (the higher) and 3.
            seating = [order[0], order[2], order[1], order[3]]
            dealer = 0
            events.append(
                {
                    "type": "draw",
                    "cards": [{"rank": c[0], "suit": c[1]} for c in drawn],
                    "seating": seating,
                    "first_dealer": dealer,
                }
            )
        deck = list(DECK)
        rng.shuffle(deck)
        events.append({"type": "shuffle", "deck": deck})
        events.append(self._deal_event(deck, dealer, 1))
        return events

    def _deal_event(self, deck: list[str], dealer: int, hand_no: int) -> Obj:
        return {
            "type": "deal",
            "dealer": dealer,
            "hand": hand_no,
            "hands": deal_hands(deck, dealer),
        }

    def initial(self) -> TekaState:
        return TekaState()

    def seats(self, state: Any) -> int:
        return SEATS

    # -- evolve -------------------------------------------------------------------------

    def end(self, state: Any, outcome: Outcome) -> TekaState:
        old: TekaState = state
        s = old.copy()
        s.winners = [int(x) for x in outcome.winners]
        s.reason = outcome.reason
        if len(outcome.scores) == SEATS:
            s.scores = [int(outcome.scores[0]), int(outcome.scores[1])]
        if s.phase not in ("cut", "over"):
            s.unplayed = [list(h) for h in s.hands]  # (shown once the match is over)
        s.phase = "over"
        return s

    def evolve_game(self, state: Any, event: Obj) -> TekaState:
        old: TekaState = state
        s = old.copy()
        t = event["type"]
        if t == "start":
            s.options = dict(event["options"])
            s.target = int(s.options["target"])
            s.dealer = int(s.options["first_dealer"])
            s.phase = "deal"
        elif t == "draw":
            s.draw = [dict(c) for c in event["cards"]]
            s.seating = [int(p) for p in event["seating"]]
            s.dealer = int(event["first_dealer"])
        elif t == "shuffle":
            s.deck = [str(c) for c in event["deck"]]
        elif t == "cut":
            s.deck = cut_deck(s.deck, int(event["at"]))
            s.cuts += 1
        elif t == "deal":
            self._evolve_deal(s, event)
        elif t == "keep":
            s.decided[int(event["seat"])] = True
            if all(s.decided[i] or not s.eligible[i] for i in range(SEATS)):
                s.phase = "bidding"
        elif t == "throw_in":
            s.unplayed = [list(h) for h in s.hands]
            s.deck = gather(s)
            s.hands = [[], [], [], []]
            s.cuts = 0
            s.phase = "cut"
        elif t == "bid":
            self._evolve_bid(s, event)
        elif t == "trumps":
            s.trumps = str(event["suit"])
            if s.double13:
                s.sitting_out = (s.bidder + 2) % SEATS
            s.leader = s.bidder
            s.first_bid = s.bid
            s.phase = "play"
        elif t == "play":
            seat = int(event["seat"])
            card = str(event["card"])
            sig = event.get("signal")
            s.hands[seat].remove(card)
            s.trick.append(
                {"seat": seat, "card": card, "signal": sig if isinstance(sig, str) else None}
            )
            if len(s.trick) == active_count(s):
                w = trick_winner(s.trick, s.trumps)
                s.tricks.append({"leader": s.leader, "cards": s.trick, "winner": w})
                s.won[side_of(w)] += 1
                s.leader = w
                s.trick = []
        elif t == "raise":
            s.raise_to = int(event["to"])
            s.raise_accepted = []
            s.raise_trick = len(s.tricks)
        elif t == "accept_raise":
            s.raise_accepted.append(int(event["seat"]))
            if len(s.raise_accepted) == 2:
                s.bid = s.raise_to
                s.raised = True
                s.raise_to = 0
                s.raise_accepted = []
        elif t == "refuse_raise":
            s.raise_to = 0
            s.raise_accepted = []
        elif t == "score":
            self._evolve_score(s, event)
        else:
            raise ValueError(f"unknown Teka event {t!r}")
        return s

    def _evolve_deal(self, s: TekaState, event: Obj) -> None:
        s.hands = [[str(c) for c in h] for h in event["hands"]]
        s.dealer = int(event["dealer"])
        s.hand_no = int(event["hand"])
        s.deck = []
        s.cuts = 0
        s.unplayed = [[], [], [], []]
        s.bids = []
        s.bidder = -1
        s.bid = 0
        s.first_bid = 0
        s.double13 = False
        s.forced = False
        s.raised = False
        s.trumps = ""
        s.sitting_out = -1
        s.leader = -1
        s.trick = []
        s.tricks = []
        s.won = [0, 0]
        s.raise_to = 0
        s.raise_accepted = []
        s.raise_trick = -1
        s.eligible = [may_throw_in(h) for h in s.hands]
        s.decided = [False, False, False, False]
        s.phase = "throw_in" if any(s.eligible) else "bidding"

    def _evolve_bid(self, s: TekaState, event: Obj) -> None:
        seat = int(event["seat"])
        call = event["call"]
        forced = must_bid(s)
        s.bids.append({"seat": seat, "call": call})
        if call == DOUBLE_13:
            s.bidder = seat
            s.bid = MAX_BID
            s.double13 = True
            s.forced = forced
        elif isinstance(call, int):
            s.bidder = seat
            s.bid = call
            s.forced = forced
        if len(s.bids) == SEATS:
            s.phase = "trumps"

    def _evolve_score(self, s: TekaState, event: Obj) -> None:
        pts = [int(p) for p in event["points"]]
        s.scores = [s.scores[0] + pts[0], s.scores[1] + pts[1]]
        s.sheet.append(
            {
                "hand": s.hand_no,
                "dealer": s.dealer,
                "bidder": s.bidder,
                "bid": s.bid,
                "double13": s.double13,
                "forced": s.forced,
                "raised": s.raised,
                "trumps": s.trumps,
                "made": bool(event["made"]),
                "tricks": list(s.won),
                "points": pts,
                "totals": list(s.scores),
            }
        )
        s.unplayed = [list(h) for h in s.hands]
        s.deck = gather(s)
        s.hands = [[], [], [], []]
        s.raise_to = 0
        s.raise_accepted = []
        s.cuts = 0
        reached = [i for i in range(2) if s.scores[i] >= s.target]
        if reached:
            side = reached[0]
            s.winners = [side, side + 2]
            s.phase = "over"
        else:
            s.dealer = (s.dealer + 1) % SEATS
            s.hand_no += 1
            s.phase = "cut"

    # -- decide -------------------------------------------------------------------------

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        st: TekaState = state
        seat = check_seat(self, st, seat)
        cmd = require_obj(command)
        if st.phase == "over":
            raise IllegalMoveError("game_over", "the match is over")
        t = cmd["type"]
        if t in ("keep", "throw_in"):
            return self._decide_throw_in(st, seat, t)
        if t == "bid":
            return self._decide_bid(st, seat, cmd)
        if t == "trumps":
            return self._decide_trumps(st, seat, cmd)
        if t == "play":
            return self._decide_play(st, seat, cmd)
        if t == "raise":
            return self._decide_raise(st, seat, cmd)
        if t in ("accept_raise", "refuse_raise"):
            return self._decide_answer(st, seat, t)
        if t == "cut":
            return self._decide_cut(st, seat, rng)
        raise IllegalMoveError(
            "malformed", f"unknown command type {t!r}; Teka commands: {COMMAND_TYPES}"
        )

    def _phase_error(self, st: TekaState, what: str) -> IllegalMoveError:
        return IllegalMoveError("illegal", f"no {what} now: the hand is in its {st.phase} phase")

    def _decide_throw_in(self, st: TekaState, seat: int, t: str) -> list[Obj]:
        if st.phase != "throw_in":
            raise self._phase_error(st, "throw-in decision")
        if not st.eligible[seat] or st.decided[seat]:
            # Said the same way whoever else may still be deciding.
            raise IllegalMoveError("not_your_turn", "you have no throw-in decision to make")
        if t == "keep":
            return [{"type": "keep", "seat": seat}]
        return [{"type": "throw_in", "seat": seat}]

    def _decide_bid(self, st: TekaState, seat: int, cmd: Obj) -> list[Obj]:
        if "call" not in cmd:
            raise IllegalMoveError("malformed", "a bid needs a 'call'")
        call = cmd["call"]
        ok_type = (isinstance(call, int) and not isinstance(call, bool)) or isinstance(call, str)
        if not ok_type:
            raise IllegalMoveError(
                "malformed", 'a call is "pass", "ter", "behi ter", 8..13 or "double 13"'
            )
        if isinstance(call, str) and call not in PASS_CALLS and call != DOUBLE_13:
            raise IllegalMoveError(
                "malformed",
                f'unknown call {call!r}: use "pass", "ter", "behi ter", 8..13 or "double 13"',
            )
        if st.phase != "bidding":
            raise self._phase_error(st, "bid")
        if seat != next_bidder(st):
            raise IllegalMoveError("not_your_turn", f"seat {next_bidder(st)} calls next")
        if isinstance(call, str):
            if call in PASS_CALLS and must_bid(st):
                raise IllegalMoveError(
                    "illegal",
                    "the first three players passed: the dealer must bid 8-13 or double 13",
                )
            return [{"type": "bid", "seat": seat, "call": call}]
        if not MIN_BID <= call <= MAX_BID:
            raise IllegalMoveError("illegal", f"a number bid is {MIN_BID} to {MAX_BID} tricks")
        high = high_number(st)
        if high == 14:
            raise IllegalMoveError(
                "illegal", "after a double 13 only double 13 or a pass may be called"
            )
        if call <= high:
            raise IllegalMoveError(
                "illegal", f"a number bid must be higher than the current high bid {high}"
            )
        return [{"type": "bid", "seat": seat, "call": call}]

    def _decide_trumps(self, st: TekaState, seat: int, cmd: Obj) -> list[Obj]:
        suit = cmd.get("suit")
        if not isinstance(suit, str) or len(suit) != 1 or suit not in SUITS:
            raise IllegalMoveError("malformed", "trumps need a 'suit': one of S, H, D, C")
        if st.phase != "trumps":
            raise self._phase_error(st, "choice of trumps")
        if seat != st.bidder:
            raise IllegalMoveError(
                "not_your_turn", f"the high bidder (seat {st.bidder}) names trumps"
            )
        return [{"type": "trumps", "seat": seat, "suit": suit}]

    def _decide_play(self, st: TekaState, seat: int, cmd: Obj) -> list[Obj]:
        card = cmd.get("card")
        if not is_card(card):
            raise IllegalMoveError(
                "malformed",
                "a play needs a 'card' like \"QH\" (ranks 2-9 T J Q K A, suits S H D C)",
            )
        sig = cmd.get("signal")
        if sig is not None and (not isinstance(sig, str) or sig not in SIGNALS):
            raise IllegalMoveError("malformed", 'a signal is "slam", "snap" or "drop"')
        if st.phase != "play":
            raise self._phase_error(st, "card play")
        if st.raise_to:
            raise IllegalMoveError(
                "not_your_turn", "play is paused until the opponents answer the raise"
            )
        turn = to_play(st)
        if seat != turn:
            raise IllegalMoveError("not_your_turn", f"seat {turn} plays next")
        c = str(card)
        if c not in st.hands[seat]:
            raise IllegalMoveError("illegal", f"you do not hold {c}")
        if c not in state_playable(st, seat):
            raise IllegalMoveError("illegal", self._play_reason(st, seat))
        ev: Obj = {"type": "play", "seat": seat, "card": c}
        if sig is not None:
            ev["signal"] = sig
        return self._with_hand_end(st, [ev])

    def _play_reason(self, st: TekaState, seat: int) -> str:
        # Reasons never name another player's cards.
        if not st.tricks and ("A" + st.trumps) in st.hands[seat]:
            return (
                "on the first trick the holder of the ace of trumps must play a trump "
                "that no card already played or still to come can beat"
            )
        if not st.trick:
            return "the first trick must be led with a trump"
        led = str(st.trick[0]["card"])[1]
        return f"you must follow suit ({led})"

    def _with_hand_end(self, st: TekaState, events: list[Obj]) -> list[Obj]:
        s = st
        for ev in events:
            s = self.evolve(s, ev)
        result = hand_result(s)
        if result:
            made = result == "made"
            pts = hand_points(s, made)
            events.append(
                {
                    "type": "score",
                    "hand": s.hand_no,
                    "bidder": s.bidder,
                    "bid": s.bid,
                    "made": made,
                    "tricks": list(s.won),
                    "points": pts,
                    "totals": [s.scores[0] + pts[0], s.scores[1] + pts[1]],
                }
            )
        return events

    def _decide_raise(self, st: TekaState, seat: int, cmd: Obj) -> list[Obj]:
        to = cmd.get("to")
        if not isinstance(to, int) or isinstance(to, bool):
            raise IllegalMoveError("malformed", "a raise needs 'to': the new number of tricks")
        if st.phase != "play":
            raise self._phase_error(st, "raise")
        if seat != st.bidder:
            raise IllegalMoveError("illegal", "only the declarer may raise the bid")
        if st.double13:
            raise IllegalMoveError("illegal", "a double 13 cannot be raised")
        if st.raise_to:
            raise IllegalMoveError("illegal", "a raise is already waiting for an answer")
        if st.raise_trick == len(st.tricks):
            raise IllegalMoveError("illegal", "only one raise may be proposed per trick")
        if not st.bid < to <= MAX_BID:
            raise IllegalMoveError(
                "illegal", f"a raise must be higher than {st.bid} and at most {MAX_BID}"
            )
        return [{"type": "raise", "seat": seat, "to": to}]

    def _decide_answer(self, st: TekaState, seat: int, t: str) -> list[Obj]:
        if st.phase != "play" or not st.raise_to:
            raise IllegalMoveError("illegal", "no raise is waiting for an answer")
        if seat not in opponents(st) or seat in st.raise_accepted:
            raise IllegalMoveError(
                "not_your_turn", "only an opponent of the declarer who has not answered may answer"
            )
        ev: Obj = {"type": t, "seat": seat}
        if t == "refuse_raise" or len(st.raise_accepted) == 0:
            return [ev]
        return self._with_hand_end(st, [ev])

    def _decide_cut(self, st: TekaState, seat: int, rng: Random) -> list[Obj]:
        if st.phase != "cut":
            raise self._phase_error(st, "cut")
        who = cutter(st)
        if seat != who:
            raise IllegalMoveError("not_your_turn", f"seat {who} cuts next")
        at = rng.randint(1, len(st.deck) - 1)
        events: list[Obj] = [{"type": "cut", "seat": seat, "at": at}]
        if st.cuts == 1:
            deck = cut_deck(st.deck, at)
            events.append(self._deal_event(deck, st.dealer, st.hand_no))
        return events

    # -- queries ------------------------------------------------------------------------

    def visible_to_act(self, state: Any, viewer: int) -> list[int]:
        """During the throw-in only the viewer's own pending question is shown: who was
        asked would tell the others which hands hold nothing above a 10."""
        st: TekaState = state
        if st.phase != "throw_in" or viewer == ALL:
            return self.to_act(st)
        if 0 <= viewer < 4 and st.eligible[viewer] and not st.decided[viewer]:
            return [viewer]
        return []

    def to_act(self, state: Any) -> list[int]:
        st: TekaState = state
        p = st.phase
        if p == "throw_in":
            return [i for i in range(SEATS) if st.eligible[i] and not st.decided[i]]
        if p == "bidding":
            return [next_bidder(st)]
        if p == "trumps":
            return [st.bidder]
        if p == "play":
            if st.raise_to:
                return [o for o in sorted(opponents(st)) if o not in st.raise_accepted]
            return [to_play(st)]
        if p == "cut":
            return [cutter(st)]
        return []

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        st: TekaState = state
        p = st.phase
        out: list[Obj] = []
        if p == "throw_in":
            if st.eligible[seat] and not st.decided[seat]:
                out = [{"type": "keep"}, {"type": "throw_in"}]
        elif p == "bidding":
            if seat == next_bidder(st):
                if not must_bid(st):
                    out = [{"type": "bid", "call": c} for c in PASS_CALLS]
                high = high_number(st)
                for n in range(max(MIN_BID, high + 1), MAX_BID + 1):
                    out.append({"type": "bid", "call": n})
                out.append({"type": "bid", "call": DOUBLE_13})
        elif p == "trumps":
            if seat == st.bidder:
                out = [{"type": "trumps", "suit": x} for x in SUITS]
        elif p == "play":
            if st.raise_to:
                if seat in opponents(st) and seat not in st.raise_accepted:
                    out = [{"type": "accept_raise"}, {"type": "refuse_raise"}]
            else:
                if seat == to_play(st):
                    for c in sorted_cards(state_playable(st, seat)):
                        out.append({"type": "play", "card": c})
                        for sig in SIGNALS:
                            out.append({"type": "play", "card": c, "signal": sig})
                if seat == st.bidder and raise_allowed(st):
                    for n in range(st.bid + 1, MAX_BID + 1):
                        out.append({"type": "raise", "to": n})
        elif p == "cut":
            if seat == cutter(st):
                out = [{"type": "cut"}]
        return out

    def result_problem(self, state: Any, event: Obj) -> str | None:
        """Teka is won by a partnership (seats 0 & 2 or 1 & 3); partners share a score; a
        match played to the end is won by the side that reached the target, ahead of the
        other (the loser under the target: one side scores in a hand); no score beyond
        target - 1 + :data:`MAX_HAND_POINTS`; an adjudicated winner is not behind."""
        st: TekaState = state
        winners = [int(w) for w in event["winners"]]
        if winners and winners not in ([0, 2], [1, 3]):
            return ("Teka is won by a partnership: seats 0 & 2 or seats 1 & 3, "
                    f"not {' & '.join(str(w) for w in winners)}")
        scores = [int(x) for x in event["scores"]]
        if not scores:
            return None
        if scores[0] != scores[2] or scores[1] != scores[3]:
            return "partners share a score: seats 0 & 2 have one score, seats 1 & 3 another"
        top = st.target - 1 + MAX_HAND_POINTS
        if max(scores) > top:
            return (f"a match to {st.target} ends at {top} points at most (the last hand "
                    f"gives at most {MAX_HAND_POINTS}): not {max(scores)}")
        if not winners or event["reason"] == "forfeit":
            return None
        side = winners[0]
        mine, theirs = scores[side], scores[1 - side]
        if event["reason"] == "off_board":
            if mine < st.target or mine <= theirs:
                return (f"a match played to the end is won by the side that reached "
                        f"{st.target} ahead of the other: not {mine}-{theirs}")
            if theirs >= st.target:
                return (f"the losing side stays under {st.target} (one side scores in a "
                        f"hand): not {theirs}")
        elif mine < theirs:
            return f"the winners are not behind: {mine}-{theirs}"
        return None

    def outcome(self, state: Any) -> Outcome | None:
        st: TekaState = state
        if st.phase != "over":
            return None
        return Outcome(st.winners, st.reason, [st.scores[i % 2] for i in range(SEATS)])

    # -- hidden information ---------------------------------------------------------------

    def view(self, state: Any, viewer: int) -> Obj:
        st: TekaState = state
        full = viewer == ALL
        seat_viewer = 0 <= viewer < SEATS
        contract: Obj | None = None
        if st.bidder >= 0 and st.phase in ("trumps", "play", "cut", "over"):
            contract = {
                "bidder": st.bidder,
                "bid": st.bid,
                "first_bid": st.first_bid if st.trumps else st.bid,
                "trumps": st.trumps or None,
                "forced": st.forced,
                "double13": st.double13,
                "raised": st.raised,
            }
        to_act = self.visible_to_act(st, viewer)
        throw_in: Obj | None = None
        if st.phase == "throw_in":
            mine: str | None = None
            if seat_viewer and st.eligible[viewer]:
                mine = "kept" if st.decided[viewer] else "undecided"
            throw_in = {"pending": True, "you": mine}
        playable: list[str] = []
        if seat_viewer and st.phase == "play" and not st.raise_to and to_play(st) == viewer:
            playable = sorted_cards(state_playable(st, viewer))
        out = self.outcome(st)
        v: Obj = {
            "game": "teka",
            "options": st.options,
            "phase": st.phase,
            "seating": list(st.seating),
            "draw": list(st.draw),
            "dealer": st.dealer,
            "hand_number": st.hand_no,
            "hand": sorted_cards(st.hands[viewer]) if seat_viewer else [],
            "counts": [len(h) for h in st.hands],
            "deck_count": len(st.deck),
            "cuts": st.cuts,
            "throw_in": throw_in,
            "bids": list(st.bids),
            "contract": contract,
            "sitting_out": st.sitting_out if st.sitting_out >= 0 else None,
            "leader": st.leader if st.leader >= 0 else None,
            "trick": list(st.trick),
            "tricks": list(st.tricks),
            "last_trick": st.tricks[-1] if st.tricks else None,
            "tricks_won": list(st.won),
            "raise": {
                "pending": st.raise_to or None,
                "accepted": list(st.raise_accepted),
                "used_this_trick": st.raise_trick == len(st.tricks),
            },
            "scores": list(st.scores),
            "sheet": list(st.sheet),
            "to_act": to_act,
            "playable": playable,
            "outcome": out.to_json() if out is not None else None,
        }
        if full:
            v["hands"] = [list(h) for h in st.hands]
            v["deck"] = list(st.deck)
            v["unplayed"] = [list(h) for h in st.unplayed]
            v["eligible"] = list(st.eligible)
            v["decided"] = list(st.decided)
            v["raise_trick"] = st.raise_trick
        return v

    def redact(self, event: Obj, viewer: int) -> Obj:
        if viewer == ALL:
            return dict(event)
        t = event["type"]
        if t == "shuffle":
            return {"type": "shuffle"}
        if t == "cut":
            return {"type": "cut", "seat": event["seat"]}
        if t == "deal":
            hands = event["hands"]
            return {
                "type": "deal",
                "dealer": event["dealer"],
                "hand": event["hand"],
                "hands": [list(hands[i]) if i == viewer else None for i in range(SEATS)],
                "counts": [len(h) for h in hands],
            }
        if t == "timeout" and event.get("hidden") and event.get("seat") != viewer:
            return {"type": "timeout"}  # (a throw-in question ran out: who was asked is private)
        if t == "keep" and event["seat"] != viewer:
            # Who was allowed to throw in stays private unless they do throw in.
            return {"type": "keep"}
        return dict(event)

    def secrets(self, state: Any, viewer: int) -> list[str]:
        st: TekaState = state
        if viewer == ALL:
            return []
        out: list[str] = []
        held = st.unplayed if st.phase in ("cut", "over") else st.hands
        for i in range(SEATS):
            if i != viewer:
                out.extend(held[i])
        if st.phase in ("init", "deal"):
            out.extend(st.deck)
        return out

    # -- resampling for bots ------------------------------------------------------------------

    def resample(self, view: Obj, viewer: int, rng: Random) -> TekaState:
        s = TekaState()
        s.options = dict(view["options"])
        s.target = int(s.options["target"])
        s.draw = [dict(c) for c in view["draw"]]
        s.seating = [int(x) for x in view["seating"]]
        s.phase = str(view["phase"])
        s.dealer = int(view["dealer"])
        s.hand_no = int(view["hand_number"])
        s.cuts = int(view["cuts"])
        s.bids = [dict(b) for b in view["bids"]]
        c = view["contract"]
        if c is not None:
            s.bidder = int(c["bidder"])
            s.bid = int(c["bid"])
            s.first_bid = int(c["first_bid"]) if c["trumps"] is not None else 0
            s.trumps = str(c["trumps"]) if c["trumps"] is not None else ""
            s.forced = bool(c["forced"])
            s.double13 = bool(c["double13"])
            s.raised = bool(c["raised"])
        elif s.bids:
            # Bidding still open: rebuild the high bid from the calls.
            for b in s.bids:
                call = b["call"]
                if call == DOUBLE_13:
                    s.bidder, s.bid, s.double13 = int(b["seat"]), MAX_BID, True
                elif isinstance(call, int):
                    s.bidder, s.bid = int(b["seat"]), call
        s.sitting_out = -1 if view["sitting_out"] is None else int(view["sitting_out"])
        s.leader = -1 if view["leader"] is None else int(view["leader"])
        s.trick = [dict(e) for e in view["trick"]]
        s.tricks = [dict(t) for t in view["tricks"]]
        s.won = [int(x) for x in view["tricks_won"]]
        r = view["raise"]
        s.raise_to = int(r["pending"]) if r["pending"] is not None else 0
        s.raise_accepted = [int(x) for x in r["accepted"]]
        s.raise_trick = len(s.tricks) if r["used_this_trick"] else -1
        s.scores = [int(x) for x in view["scores"]]
        s.sheet = [dict(e) for e in view["sheet"]]
        if view["outcome"] is not None:
            s.winners = [int(x) for x in view["outcome"]["winners"]]
        own = [str(x) for x in view["hand"]] if 0 <= viewer < SEATS else []
        counts = [int(x) for x in view["counts"]]
        played: list[str] = []
        for t in s.tricks:
            for e in t["cards"]:
                played.append(str(e["card"]))
        for e in s.trick:
            played.append(str(e["card"]))
        if s.phase in ("cut", "over"):
            rest = [x for x in DECK if x not in played]
            rng.shuffle(rest)
            s.deck = played + rest if s.phase == "cut" else []
            return s
        if s.phase == "throw_in":
            return self._resample_throw_in(s, view, viewer, own, rng)
        seen = set(own) | set(played)
        unseen = [x for x in DECK if x not in seen]
        s.hands = self._sample_hands(s, view, viewer, own, unseen, counts, rng)
        s.eligible = [False, False, False, False]
        s.decided = [False, False, False, False]
        return s

    def _resample_throw_in(
        self, s: TekaState, view: Obj, viewer: int, own: list[str], rng: Random
    ) -> TekaState:
        unseen = [x for x in DECK if x not in own]
        mine = view["throw_in"]["you"] if view["throw_in"] is not None else None
        others = [i for i in range(SEATS) if i != viewer]
        hands: list[list[str]] = [[], [], [], []]
        if 0 <= viewer < SEATS:
            hands[viewer] = list(own)
        pending_needed = mine != "undecided"
        rng.shuffle(unseen)
        if pending_needed:
            # Somebody else must still be deciding: give one of the others a hand of low cards.
            p = rng.choice(others)
            low = [x for x in unseen if card_rank(x) <= TEN]
            if len(low) >= HAND_SIZE:
                hands[p] = low[:HAND_SIZE]
                unseen = [x for x in unseen if x not in hands[p]]
        pos = 0
        for i in others:
            if not hands[i]:
                hands[i] = unseen[pos : pos + HAND_SIZE]
                pos += HAND_SIZE
        s.hands = hands
        s.eligible = [may_throw_in(h) for h in hands]
        s.decided = [False, False, False, False]
        if 0 <= viewer < SEATS and mine == "kept":
            s.decided[viewer] = True
        if not any(s.eligible[i] and not s.decided[i] for i in range(SEATS)):
            # Fallback (should not happen): keep the phase consistent for the viewer.
            s.phase = "throw_in"
        return s

    def _sample_hands(
        self,
        s: TekaState,
        view: Obj,
        viewer: int,
        own: list[str],
        unseen: list[str],
        counts: list[int],
        rng: Random,
    ) -> list[list[str]]:
        """The other seats' hands: ``unseen`` dealt in ``counts``, never a card the play so
        far shows a seat cannot hold, and (within 30 tries) consistent with the first trick's
        rules and with the viewer's playable cards."""
        others = [i for i in range(SEATS) if i != viewer]
        forbid: dict[int, set[str]] = {i: set() for i in others}
        forced: dict[str, int] = {}
        trumps = s.trumps
        tricks: list[list[Obj]] = [list(t["cards"]) for t in s.tricks]
        if s.trick:
            tricks.append(list(s.trick))
        _forbid_voids(tricks, trumps, unseen, forbid)
        if trumps:
            _forbid_by_the_ace(s, viewer, own, unseen, tricks, forbid)
            _forbid_by_our_ace(s, view, own, unseen, counts, others, forbid, forced, rng)
        best_hands: list[list[str]] = []
        for _attempt in range(30):
            hands = self._assign(viewer, own, unseen, counts, forbid, forced, rng)
            if not best_hands:
                best_hands = hands
            if self._first_trick_consistent(s, hands) and (
                not view["playable"]
                or sorted_cards(
                    playable_cards(
                        hands[viewer], s.trick, not s.tricks, trumps, hands, viewer, s.sitting_out
                    )
                )
                == view["playable"]
            ):
                return hands
        return best_hands

    def _assign(
        self,
        viewer: int,
        own: list[str],
        unseen: list[str],
        counts: list[int],
        forbid: dict[int, set[str]],
        forced: dict[str, int],
        rng: Random,
    ) -> list[list[str]]:
        """Deal ``unseen`` to the other seats: sizes ``counts``, no card a seat is known
        not to hold, ``forced`` cards placed first. A matching with augmenting paths, so it
        finds an assignment whenever one exists."""
        others = [i for i in range(SEATS) if i != viewer]
        hands: list[list[str]] = [[], [], [], []]
        if 0 <= viewer < SEATS:
            hands[viewer] = list(own)
        cap = {i: counts[i] for i in others}
        for card, p in forced.items():
            hands[p].append(card)
        cards = [x for x in unseen if x not in forced]
        rng.shuffle(cards)
        allowed: dict[str, list[int]] = {}
        for x in cards:
            opts = [p for p in others if x not in forbid[p]]
            rng.shuffle(opts)
            allowed[x] = opts
        # Most constrained cards first.
        cards.sort(key=lambda x: len(allowed[x]))
        for x in cards:
            if not self._place(x, hands, cap, allowed, set()):
                # Inconsistent constraints (should not happen): relax for this card.
                allowed[x] = list(others)
                if not self._place(x, hands, cap, allowed, set()):
                    for p in others:
                        if len(hands[p]) < cap[p]:
                            hands[p].append(x)
                            break
        for p in others:
            rng.shuffle(hands[p])
        return hands

    def _place(
        self,
        card: str,
        hands: list[list[str]],
        cap: dict[int, int],
        allowed: dict[str, list[int]],
        visited: set[int],
    ) -> bool:
        for p in allowed[card]:
            if p in visited:
                continue
            visited.add(p)
            if len(hands[p]) < cap[p]:
                hands[p].append(card)
                return True
            for i in range(len(hands[p])):
                other = hands[p][i]
                if other in allowed and self._place(other, hands, cap, allowed, visited):
                    hands[p][i] = card
                    return True
        return False

    def _first_trick_consistent(self, s: TekaState, hands: list[list[str]]) -> bool:
        """Replays the first trick with the hands these cards imply: was every play legal?"""
        if not s.trumps:
            return True
        first = list(s.tricks[0]["cards"]) if s.tricks else list(s.trick)
        if not first:
            return True
        start = [list(h) for h in hands]
        for cards in [t["cards"] for t in s.tricks] + [s.trick]:
            for e in cards:
                start[int(e["seat"])].append(str(e["card"]))
        cur = [list(h) for h in start]
        done: list[Obj] = []
        for e in first:
            p = int(e["seat"])
            card = str(e["card"])
            if card not in playable_cards(cur[p], done, True, s.trumps, cur, p, s.sitting_out):
                return False
            cur[p].remove(card)
            done.append(e)
        return True

    def title(self) -> str:
        return "Teka"

    def blurb(self) -> str:
        return ("Four players, two partnerships: bid, name trumps and take tricks. "
                "First side to 104 wins.")

    def sides(self, seats: int) -> list[list[int]]:
        return [[0, 2], [1, 3]]

    def seat_labels(self, seats: int) -> list[str]:
        return ["North", "East", "South", "West"][:seats]

    def option_fields(self) -> list[Obj]:
        return [
            choice_field("draw_for_partners", "Partners and first dealer",
                         [(False, "As seated"), (True, "Draw cards")]),
            choice_field("target", "Match to", [(104, "104 points"), (52, "52 points")]),
        ]

    def board(self) -> Obj:
        return {"drawing": "teka", "step": "hand", "sheet": True}

    def league(self) -> Obj:
        return {"pairing": "partnerships", "min_players": 2}

    def analysis_module(self) -> str:
        return "core.teka_analysis"

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        t = event.get("type")
        who = wording.seat_name(names, event.get("seat"))
        if t == "play":
            sig = f" ({event['signal']})" if event.get("signal") else ""
            return f"{who} played {wording.card_text(event.get('card'))}{sig}"
        if t == "bid":
            call = event.get("call")
            if isinstance(call, int) and not isinstance(call, bool):
                return f"{who} bid {call}"
            return f"{who} {CALL_WORDS.get(str(call), f'called {call}')}"
        if t == "trumps":
            suit = event.get("suit")
            return f"{who} named {wording.SUIT_NAMES.get(str(suit), suit)} trumps"
        if t == "deal":
            by = wording.seat_name(names, event.get("dealer"))
            return f"Hand {event.get('hand')} dealt" + (f" by {by}" if by else "")
        if t == "score":
            bid = "double 13" if event.get("double13") else event.get("bid")
            bidder = event.get("bidder")
            side = SIDE_NAMES[bidder % 2] if isinstance(bidder, int) else "The bidders"
            made = "made it" if event.get("made") else "went down"
            return f"Hand {event.get('hand')}: {side} bid {bid} and {made}"
        if t == "cut":
            return f"{who} cut the deck" if who else "The deck is cut"
        if t == "draw":
            return "Cards drawn for partners and seats"
        if t == "keep":
            return f"{who} kept the hand" if who else "A hand is kept"
        if t == "throw_in":
            return f"{who} threw the hand in" if who else "The hand is thrown in"
        if t == "raise":
            return f"{who} raised to {event.get('to')}"
        if t == "accept_raise":
            return f"{who} accepted the raise" if who else "The raise is accepted"
        if t == "refuse_raise":
            return f"{who} refused the raise" if who else "The raise is refused"
        return None

    def reason_words(self) -> dict[str, str]:
        return {"match": ""}

    def result_text(self, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
        """The winning side (its players, else its name) and the match score."""
        if not outcome:
            return ""
        o = wording.Ending(outcome, self.reason_words())
        if not o.winners:
            return wording.won([], "", o.paren)
        side = o.winners[0] % 2
        who = ([wording.seat_name(names, s) for s in range(side, SEATS, 2)] if names
               else [SIDE_NAMES[side]])
        score = ""
        if len(o.scores) == SEATS:
            score = wording.score_pair(o.scores[side], o.scores[1 - side])
        return f"{wording.joined(who)} win{score}{o.paren}"

    def doing(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        v = view or {}
        if not v.get("outcome") and not wording.seats(v.get("to_act")) and v.get(
                "phase") == "throw_in":  # (a secret question: nobody named)
            return "The players are deciding whether to throw the hand in"
        raised = v.get("raise")
        if isinstance(raised, dict) and raised.get("pending"):
            what = f"answering the raise to {raised['pending']}"
        else:
            what = DOING.get(str(v.get("phase")), "")
        return wording.doing_line(view, names, what)

    def trick_result(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        """Shown from the trick's end until the next one is won."""
        if not view or view.get("phase") not in ("play", "cut", "over"):
            return ""
        last = view.get("last_trick")
        if not isinstance(last, dict) or not isinstance(last.get("winner"), int):
            return ""
        number = len(view.get("tricks") or []) or 1
        won = wording.seats(view.get("tricks_won"))
        text = f"{wording.seat_name(names, last['winner'])} won trick {number}"
        if len(won) == 2:
            text += f"; {SIDE_NAMES[0]} {won[0]}, {SIDE_NAMES[1]} {won[1]}"
        return text

    def hand_result(self, view: Obj | None) -> str:
        """From the view's score sheet; "" before the first score."""
        sheet = (view or {}).get("sheet")
        if not isinstance(sheet, list) or not sheet or not isinstance(sheet[-1], dict):
            return ""
        return self.describe({**sheet[-1], "type": "score"})

    def example_options(self) -> list[Obj]:
        return [
            {"target": 20},
            {"draw_for_partners": True, "target": 25},
            {"first_dealer": 2, "target": 30},
            {},
        ]


GAME: Final[TekaGame] = TekaGame()
