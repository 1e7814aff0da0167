"""Teka bot: a partnership player (see docs/ai.md, section Teka).

Everything it decides comes from its seat's view; for card play and raise answers it samples
the unseen cards with ``GAME.resample(view, seat, rng)`` (consistent with every void, the
first-trick ace rule and its own playable cards) and never looks at the real hands.

* Throw-in: a hand with nothing above a ten is thrown in unless it holds a suit of seven,
  and kept one time in five anyway (else some decks would be re-dealt forever).
* Bidding: the hand's tricks with its best trump suit (top cards, length, shortness) plus
  what partner's call says (a number, ``pass``, ``ter``, ``behi ter``, or nothing yet). A
  number is bid when the side's estimate reaches it; a pass is ``behi ter`` for a very weak
  hand, ``ter`` for a weak one, ``pass`` otherwise, so the public hints mean what they say.
  The forced dealer bids 8; ``double 13`` only with a hand that wins every trick by itself
  (it can draw all trumps from the top and every side card is a master).
* Trumps: the suit with the best estimate (length, then top cards).
* Card play: perfect-information Monte Carlo. ``worlds`` deals of the unseen cards are drawn;
  every playable card is tried in each, the rest of the hand is played by a fast heuristic
  policy for all four seats, and the card with the best mean score for its side wins.
  Partner's signals nudge the lead (``slam``: lead that suit; ``snap``: the suit of the same
  colour; ``drop``: partner is void there, a ruff when partner still has trumps).
* Signals sent (all true): ``drop`` with the last card of a side suit, ``slam`` when
  discarding from a suit where it holds the top card, ``snap`` when the top card is in the
  suit of the same colour instead.
* Raises: the declarer proposes one when in nearly all sampled worlds its side makes more
  than the bid; an opponent accepts a raise only when that scores better for its side on the
  sampled worlds than refusing.

* Double-dummy play (``expert``, GIB's method): once the seat holds nine cards or fewer, each
  of 24 sampled deals is solved with :mod:`core.teka_dd` for every playable card (does the
  declaring side still make the contract after it?), and the card that scores best over the
  deals is played; raises are proposed and answered from the same solves. Before that, and
  for its calls and trumps, it plays as ``hard``. Its own limit is 4 s a decision.

Levels: ``easy`` plays a single heuristic world with noise in bidding; ``medium`` 12 worlds;
``hard`` 32 worlds; ``expert`` as ``hard``, double-dummy from the fifth trick on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.base import Bot
from core.api import Obj
from core.teka import GAME, TekaState, side_of
from core.teka_dd import Solver, position_from_state

SUITS: Final = "SHDC"
RANKS: Final = "23456789TJQKA"
ACE: Final = 12
PARTNER_EST: Final[dict[str, float]] = {"pass": 2.5, "ter": 1.5, "behi ter": 0.7}
PARTNER_UNKNOWN: Final = 2.6
MARGIN: Final = 1.0
TIE_BREAK: Final = 0.05
"""Bonus per world for the card the playout heuristic itself would play."""
"""Tricks of safety when bidding: a failed bid costs twice what a made one earns."""
KEEP_LOW_HAND: Final = 0.2
"""Share of hands without honours kept anyway. A throw-in deals the same deck again after a
cut, so a deck in which every cut gives some seat such a hand would have four bots re-deal
forever; keeping one time in five ends that (RULES.md sets no limit on throw-ins)."""
DD_CARDS: Final = 9
"""``expert`` solves double-dummy from the fifth trick on (nine cards a hand or fewer), where
a solve takes milliseconds; before that it plays like ``hard`` (docs/ai.md)."""
SAME_COLOUR_IDX: Final = [3, 2, 1, 0]
"""Index of the other suit of the same colour: S<->C, H<->D (SHDC order)."""


def card_int(card: str) -> int:
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def card_str(c: int) -> str:
    return RANKS[c % 13] + SUITS[c // 13]


# ------------------------------------------------------------------------- hand values


def suit_cards(hand: list[int], suit: int) -> list[int]:
    """Ranks held in ``suit``, high first."""
    return sorted([c % 13 for c in hand if c // 13 == suit], reverse=True)


def top_run(ranks: list[int]) -> int:
    """How many cards from the ace down are held without a gap."""
    n = 0
    want = ACE
    for r in ranks:
        if r != want:
            break
        n += 1
        want -= 1
    return n


def side_tricks(ranks: list[int]) -> float:
    """Tricks from a side suit: aces, guarded kings and queens."""
    n = len(ranks)
    if n == 0:
        return 0.0
    held = set(ranks)
    t = 0.0
    if ACE in held:
        t += 1.0
    if 11 in held:
        t += 0.9 if ACE in held else (0.5 if n >= 2 else 0.15)
    if 10 in held and n >= 3:
        t += 0.6 if (ACE in held and 11 in held) else (0.25 if (ACE in held or 11 in held) else 0.1)
    return min(t, float(n))


def trump_tricks(ranks: list[int]) -> float:
    """Tricks from the trump suit: top cards and length."""
    n = len(ranks)
    held = set(ranks)
    t = 0.0
    if ACE in held:
        t += 1.0
    if 11 in held:
        t += 0.9 if n >= 2 else 0.3
    if 10 in held:
        t += 0.7 if n >= 3 else 0.2
    if 9 in held and n >= 4:
        t += 0.4
    t += max(0, n - 3) * 0.9
    return min(t, float(n))


def hand_tricks(hand: list[int], trump: int) -> float:
    """Estimated tricks the hand wins with ``trump`` as trumps."""
    tr = suit_cards(hand, trump)
    t = trump_tricks(tr)
    spare = max(0, len(tr) - 2)
    ruffs = 0.0
    for s in range(4):
        if s == trump:
            continue
        rk = suit_cards(hand, s)
        t += side_tricks(rk)
        if spare > 0:
            if not rk:
                ruffs += 1.0
            elif len(rk) == 1:
                ruffs += 0.5
    return t + min(ruffs, spare * 0.6)


def best_trump(hand: list[int]) -> tuple[int, float]:
    """(suit, estimate): the suit that gives the most tricks (longest/strongest)."""
    best = 0
    best_v = -1.0
    for s in range(4):
        v = hand_tricks(hand, s) + 0.01 * len(suit_cards(hand, s))
        if v > best_v:
            best_v = v
            best = s
    return best, best_v


def high_card_points(hand: list[int]) -> int:
    """Ace 4, king 3, queen 2, jack 1."""
    return sum(max(0, c % 13 - 8) for c in hand)


def certain_thirteen(hand: list[int]) -> bool:
    """Every trick is surely ours alone with some trump: enough top trumps to draw every
    outstanding trump, and each side suit held from the ace down without a gap."""
    for t in range(4):
        tr = suit_cards(hand, t)
        outstanding = 13 - len(tr)
        if top_run(tr) < min(outstanding, len(tr)):
            continue
        ok = True
        for s in range(4):
            if s == t:
                continue
            rk = suit_cards(hand, s)
            if rk and top_run(rk) != len(rk):
                ok = False
                break
        if ok and len(tr) >= 1:
            return True
    return False


def partner_estimate(bids: list[Obj], partner: int) -> float:
    for b in bids:
        if int(b["seat"]) == partner:
            call = b["call"]
            if isinstance(call, int):
                return max(3.0, call - 4.0)
            if call == "double 13":
                return 6.0
            return PARTNER_EST.get(str(call), 2.5)
    return PARTNER_UNKNOWN


def high_and_forced(bids: list[Obj]) -> tuple[int, bool]:
    """The high bid of ``bids`` (14 for a ``double 13``, 0 for none) and whether the next
    caller is the forced dealer (three calls, all passes)."""
    high = 0
    for b in bids:
        call = b["call"]
        if call == "double 13":
            high = 14
        elif isinstance(call, int) and call > high:
            high = call
    return high, len(bids) == 3 and high == 0


def choose_call(
    hand: list[int], bids: list[Obj], seat: int, must: bool, high: int, bias: float
) -> int | str:
    """The call for this hand: a number, ``double 13`` or one of the three passes."""
    _trump, mine = best_trump(hand)
    if certain_thirteen(hand) and high < 14:
        return "double 13"
    side_est = mine + partner_estimate(bids, (seat + 2) % 4) + bias - MARGIN
    if must:
        n = max(8, min(13, int(side_est)))
        return n if n > high else "double 13"
    if high < 14:
        n = min(13, int(side_est))
        if n >= 8 and n > high:
            return n
    return pass_hint(hand)


def pass_hint(hand: list[int]) -> str:
    """The true hint a pass gives: ``behi ter`` for at most 3 high-card points, ``ter`` for
    under 2.5 tricks, else ``pass``."""
    if high_card_points(hand) <= 3:
        return "behi ter"
    if best_trump(hand)[1] < 2.5:
        return "ter"
    return "pass"


# ------------------------------------------------------------------------- simulation


class Sim:
    """One deal of the rest of a hand, all hands known (a sampled world). Cards are ints
    ``suit * 13 + rank``."""

    def __init__(
        self,
        hands: list[list[int]],
        trump: int,
        trick: list[int],
        trick_seats: list[int],
        leader: int,
        sitting_out: int,
        won: list[int],
        first_trick: bool,
        bidder: int,
        bid: int,
    ) -> None:
        self.hands = hands
        self.trump = trump
        self.trick = trick
        self.trick_seats = trick_seats
        self.leader = leader
        self.sitting_out = sitting_out
        self.won = won
        self.first_trick = first_trick
        self.bidder = bidder
        self.bid = bid

    def copy(self) -> Sim:
        return Sim(
            [list(h) for h in self.hands],
            self.trump,
            list(self.trick),
            list(self.trick_seats),
            self.leader,
            self.sitting_out,
            list(self.won),
            self.first_trick,
            self.bidder,
            self.bid,
        )

    def active(self) -> int:
        return 3 if self.sitting_out >= 0 else 4

    def next_seat(self, seat: int) -> int:
        s = (seat + 1) % 4
        if s == self.sitting_out:
            s = (s + 1) % 4
        return s

    def to_play(self) -> int:
        if not self.trick_seats:
            return self.leader
        return self.next_seat(self.trick_seats[-1])

    def done(self) -> bool:
        mine = self.won[self.bidder % 2]
        other = self.won[1 - self.bidder % 2]
        if mine >= self.bid or other > 13 - self.bid:
            return True
        return not self.hands[self.to_play()]

    def still_to_play(self, seat: int) -> list[int]:
        out: list[int] = []
        s = seat
        for _ in range(self.active() - len(self.trick_seats) - 1):
            s = self.next_seat(s)
            out.append(s)
        return out

    def legal(self, seat: int) -> list[int]:
        hand = self.hands[seat]
        trump = self.trump
        if self.first_trick and trump * 13 + ACE in hand:
            best = -1
            for c in self.trick:
                if c // 13 == trump and c % 13 > best:
                    best = c % 13
            for p in self.still_to_play(seat):
                for c in self.hands[p]:
                    if c // 13 == trump and c % 13 > best:
                        best = c % 13
            return [c for c in hand if c // 13 == trump and c % 13 > best]
        if not self.trick:
            if self.first_trick:
                tr = [c for c in hand if c // 13 == trump]
                if tr:
                    return tr
            return list(hand)
        led = self.trick[0] // 13
        follow = [c for c in hand if c // 13 == led]
        return follow if follow else list(hand)

    def power(self, c: int, led: int) -> int:
        if c // 13 == self.trump:
            return 100 + c % 13
        if c // 13 == led:
            return c % 13
        return -1

    def winner_index(self) -> int:
        led = self.trick[0] // 13
        best = -1
        bi = 0
        for i, c in enumerate(self.trick):
            v = self.power(c, led)
            if v > best:
                best = v
                bi = i
        return bi

    def play(self, seat: int, c: int) -> None:
        self.hands[seat].remove(c)
        self.trick.append(c)
        self.trick_seats.append(seat)
        if len(self.trick) == self.active():
            w = self.trick_seats[self.winner_index()]
            self.won[w % 2] += 1
            self.leader = w
            self.trick = []
            self.trick_seats = []
            self.first_trick = False

    def top_elsewhere(self, seat: int, suit: int) -> int:
        """Highest rank of ``suit`` in the other hands (-1 if none)."""
        best = -1
        for p in range(4):
            if p == seat:
                continue
            for c in self.hands[p]:
                if c // 13 == suit and c % 13 > best:
                    best = c % 13
        return best

    def policy(self, seat: int) -> int:
        """A fast heuristic card for ``seat`` (used by every seat in the playouts)."""
        legal = self.legal(seat)
        if len(legal) == 1:
            return legal[0]
        trump = self.trump
        if not self.trick:
            # Lead a master (trumps first while others still hold trumps), else low from
            # the longest side suit.
            masters = [c for c in legal if c % 13 > self.top_elsewhere(seat, c // 13)]
            if masters:
                tm = [c for c in masters if c // 13 == trump]
                if tm and self.top_elsewhere(seat, trump) >= 0:
                    return tm[0]
                side = [c for c in masters if c // 13 != trump]
                if side:
                    return max(side, key=lambda c: c % 13)
                return masters[0]
            counts = [0, 0, 0, 0]
            for c in legal:
                counts[c // 13] += 1
            side_cards = [c for c in legal if c // 13 != trump]
            pool = side_cards if side_cards else legal
            return min(pool, key=lambda c: (-counts[c // 13], c % 13))
        led = self.trick[0] // 13
        wi = self.winner_index()
        wseat = self.trick_seats[wi]
        wpow = self.power(self.trick[wi], led)
        later = self.still_to_play(seat)
        partner_wins = wseat % 2 == seat % 2
        if partner_wins:
            safe = not later
            if not safe:
                top_later = -1
                for p in later:
                    for c in self.hands[p]:
                        v = self.power(c, led)
                        if v > top_later:
                            top_later = v
                safe = top_later < wpow
            if safe:
                return self.lowest(legal)
        beat = [c for c in legal if self.power(c, led) > wpow]
        if beat:
            if later:
                top_later = -1
                for p in later:
                    if p % 2 == seat % 2:
                        continue
                    for c in self.hands[p]:
                        v = self.power(c, led)
                        if v > top_later:
                            top_later = v
                sure = [c for c in beat if self.power(c, led) > top_later]
                if sure:
                    return min(sure, key=lambda c: self.power(c, led))
            return min(beat, key=lambda c: self.power(c, led))
        return self.lowest(legal)

    def lowest(self, legal: list[int]) -> int:
        side = [c for c in legal if c // 13 != self.trump]
        pool = side if side else legal
        return min(pool, key=lambda c: c % 13)

    def run(self) -> None:
        while not self.done():
            seat = self.to_play()
            self.play(seat, self.policy(seat))


def hand_score(sim: Sim, side: int, forced8: bool, double13: bool) -> float:
    """Points for ``side`` minus points for the other side at the end of the sim, plus a
    small share of the tricks (so that margins still count)."""
    dside = sim.bidder % 2
    made = sim.won[dside] >= sim.bid
    if double13:
        pts = 26.0 if made else -52.0
    elif forced8:
        pts = 8.0 if made else -8.0
    else:
        pts = float(sim.bid) if made else -2.0 * sim.bid
    v = pts if side == dside else -pts
    return v + 0.2 * sim.won[side]


def first_best(totals: list[float]) -> int:
    """Index of the highest total, the first one of a tie (the candidates' order decides)."""
    best = 0
    for i in range(1, len(totals)):
        if totals[i] > totals[best] + 1e-9:
            best = i
    return best


def contract_points(contract: Obj) -> float:
    """What making the contract of a view's ``contract`` scores (failing costs twice that):
    the bid, 8 for a forced 8, 26 for a double 13 (whose failure costs 52)."""
    if bool(contract["double13"]):
        return 26.0
    return float(int(contract["bid"]))


def sim_from_state(st: TekaState) -> Sim:
    trump = SUITS.index(st.trumps)
    hands = [[card_int(c) for c in h] for h in st.hands]
    if st.sitting_out >= 0:
        hands[st.sitting_out] = []
    trick = [card_int(str(e["card"])) for e in st.trick]
    seats = [int(e["seat"]) for e in st.trick]
    return Sim(
        hands,
        trump,
        trick,
        seats,
        st.leader,
        st.sitting_out,
        list(st.won),
        not st.tricks,
        st.bidder,
        st.bid,
    )


class TekaLevel:
    def __init__(
        self,
        worlds: int,
        bias: float = 0.0,
        noise: float = 0.0,
        dd_cards: int = 0,
        dd_worlds: int = 0,
        seconds: float = 0.0,
    ) -> None:
        self.worlds = worlds
        self.bias = bias
        """Added to the side's trick estimate when bidding."""
        self.noise = noise
        """Random spread of the bidding estimate (``easy``)."""
        self.dd_cards = dd_cards
        """Card play and raises are solved double-dummy in each sampled deal once the seat
        holds this many cards or fewer (0: never; the heuristic playouts before that)."""
        self.dd_worlds = dd_worlds
        """Sampled deals solved double-dummy per decision."""
        self.seconds = seconds
        """The bot's own time limit per decision (0: none; the caller's ``should_stop``
        always applies): sampling stops after the deal in hand once it has passed."""


TEKA_LEVELS: Final[dict[str, TekaLevel]] = {
    "easy": TekaLevel(1, noise=1.5),
    "medium": TekaLevel(12),
    "hard": TekaLevel(32),
    "expert": TekaLevel(32, dd_cards=DD_CARDS, dd_worlds=24, seconds=4.0),
}


class TekaBot(Bot):
    def __init__(self, level: str, cfg: TekaLevel | None = None) -> None:
        super().__init__(GAME, level)
        self.cfg = cfg if cfg is not None else TEKA_LEVELS[level]

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        phase = str(view["phase"])
        hand = [card_int(str(c)) for c in view["hand"]]
        out: Obj
        if phase == "cut":
            out = {"type": "cut"}
        elif phase == "throw_in":
            longest = max(len(suit_cards(hand, s)) for s in range(4))
            keep = longest >= 7 or rng.random() < KEEP_LOW_HAND
            out = {"type": "keep"} if keep else {"type": "throw_in"}
        elif phase == "bidding":
            out = self.bid(view, seat, hand, rng)
        elif phase == "trumps":
            out = {"type": "trumps", "suit": SUITS[best_trump(hand)[0]]}
        elif phase == "play":
            out = self.play(view, seat, rng, should_stop, progress)
        else:
            raise ValueError(f"seat {seat} has nothing to do in phase {phase}")
        if progress is not None:
            progress(1.0)
        return out

    # -- bidding --------------------------------------------------------------------------

    def bid(self, view: Obj, seat: int, hand: list[int], rng: Random) -> Obj:
        bids = [dict(b) for b in view["bids"]]
        high, must = high_and_forced(bids)
        bias = self.cfg.bias
        if self.cfg.noise > 0.0:
            bias += (rng.random() * 2.0 - 1.0) * self.cfg.noise
        call = choose_call(hand, bids, seat, must, high, bias)
        return {"type": "bid", "call": call}

    # -- play -----------------------------------------------------------------------------

    def worlds(self, view: Obj, seat: int, rng: Random, n: int) -> list[TekaState]:
        return [GAME.resample(view, seat, rng) for _ in range(n)]

    def play(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None,
        progress: Callable[[float], None] | None,
    ) -> Obj:
        contract = view["contract"]
        raise_info = view["raise"]
        dd = 0 < len(view["hand"]) <= self.cfg.dd_cards and self.cfg.dd_worlds > 0
        stop = self.stopper(should_stop)
        if raise_info["pending"] is not None:
            if dd:
                return self.dd_answer_raise(view, seat, rng, int(raise_info["pending"]), stop)
            return self.answer_raise(view, seat, rng, int(raise_info["pending"]))
        playable = [str(c) for c in view["playable"]]
        n = max(1, self.cfg.worlds)
        side = side_of(seat)
        forced8 = bool(contract["forced"]) and int(contract["first_bid"]) == 8 and not bool(
            contract["raised"]
        )
        double13 = bool(contract["double13"])
        if dd:
            return self.dd_play(view, seat, rng, stop, progress)
        # A raise first, when we declare and are clearly ahead of the bid.
        if (
            seat == int(contract["bidder"])
            and not double13
            and not raise_info["used_this_trick"]
            and int(contract["bid"]) < 13
            and n >= 8
        ):
            sims = [sim_from_state(st) for st in self.worlds(view, seat, rng, n)]
            to = self.raise_target(sims, seat, int(contract["bid"]))
            if to > 0:
                return {"type": "raise", "to": to}
        if not playable:
            raise ValueError(f"seat {seat} has no card to play")
        if len(playable) == 1:
            return self.with_signal(view, seat, playable[0])
        cands = [card_int(c) for c in playable]
        totals = [0.0] * len(cands)
        done = 0
        for wi in range(n):
            if wi > 0 and should_stop is not None and should_stop():
                break
            sim = sim_from_state(GAME.resample(view, seat, rng))
            # Ties (e.g. the contract is decided either way) go to the heuristic's card.
            pol = sim.policy(seat)
            for ci, c in enumerate(cands):
                if c == pol:
                    totals[ci] += TIE_BREAK
                s2 = sim.copy()
                s2.play(seat, c)
                s2.run()
                totals[ci] += hand_score(s2, side, forced8, double13)
            done += 1
            if progress is not None:
                progress((wi + 1) / n)
        n = done
        # Partner's signals: a small preference when leading.
        if not view["trick"]:
            prefs = self.signal_prefs(view, seat)
            for ci, c in enumerate(cands):
                totals[ci] += prefs[c // 13] * n
        return self.with_signal(view, seat, playable[first_best(totals)])

    # -- double-dummy play (expert) -------------------------------------------------------

    def stopper(self, should_stop: Callable[[], bool] | None) -> Callable[[], bool]:
        """The caller's ``should_stop`` joined with the level's own time limit."""
        limit = self.cfg.seconds
        start = time.monotonic()

        def stop() -> bool:
            if should_stop is not None and should_stop():
                return True
            return limit > 0.0 and time.monotonic() - start >= limit

        return stop

    def dd_play(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        stop: Callable[[], bool],
        progress: Callable[[float], None] | None,
    ) -> Obj:
        """GIB's method: in each sampled deal, solve every playable card double-dummy (does
        the declaring side still make its contract after it?) and play the card that scores
        best for our side over the deals; a raise first when our contract is safe above."""
        contract = view["contract"]
        raise_info = view["raise"]
        bid = int(contract["bid"])
        bidder = int(contract["bidder"])
        dside = side_of(bidder)
        side = side_of(seat)
        points = contract_points(contract)
        playable = [str(c) for c in view["playable"]]
        n = self.cfg.dd_worlds
        solver = Solver()
        # A raise proposal needs the exact tricks; card choice only the contract's fate.
        may_raise = (
            seat == bidder
            and not bool(contract["double13"])
            and not raise_info["used_this_trick"]
            and bid < 13
        )
        if len(playable) == 1 and not may_raise:
            return self.with_signal(view, seat, playable[0])
        totals = [0.0] * len(playable)
        tricks: list[int] = []
        done = 0
        for wi in range(n):
            if wi > 0 and stop():
                break
            st = GAME.resample(view, seat, rng)
            solver.load(position_from_state(st))  # (a search leaves the position as loaded)
            if may_raise:
                tricks.append(st.won[dside] + solver.value())
            if len(playable) > 1:
                makes = solver.card_makes(bid - st.won[dside])
                pol = card_str(sim_from_state(st).policy(seat))
                for ci, c in enumerate(playable):
                    made = makes[c] == 1
                    pts = points if made else -2.0 * points
                    totals[ci] += pts if side == dside else -pts
                    if c == pol:
                        totals[ci] += TIE_BREAK
            done += 1
            if progress is not None:
                progress((wi + 1) / n)
        if may_raise and len(tricks) >= 8:
            # A failed raise costs twice the new bid: even one deal in ten failing makes a
            # raise by one trick lose on average, so raise only to what every deal makes.
            k = min(tricks)
            if k > bid:
                return {"type": "raise", "to": min(13, k)}
        if len(playable) == 1:
            return self.with_signal(view, seat, playable[0])
        if not view["trick"] and done:
            prefs = self.signal_prefs(view, seat)
            for ci, c in enumerate(playable):
                totals[ci] += prefs[SUITS.index(c[1])] * TIE_BREAK * done
        return self.with_signal(view, seat, playable[first_best(totals)])

    def dd_answer_raise(
        self, view: Obj, seat: int, rng: Random, to: int, stop: Callable[[], bool]
    ) -> Obj:
        """Accept a raise only when, solved double-dummy over the sampled deals, the raised
        contract scores better for our side than the one standing."""
        contract = view["contract"]
        bid = int(contract["bid"])
        dside = side_of(int(contract["bidder"]))
        solver = Solver()
        gain = 0.0
        for wi in range(self.cfg.dd_worlds):
            if wi > 0 and stop():
                break
            st = GAME.resample(view, seat, rng)
            solver.load(position_from_state(st))
            got = st.won[dside] + solver.value()
            old = float(bid) if got >= bid else -2.0 * bid
            new = float(to) if got >= to else -2.0 * to
            gain += old - new  # the declaring side's points lost by raising; ours gained
        return {"type": "accept_raise"} if gain > 0.0 else {"type": "refuse_raise"}

    def raise_target(self, sims: list[Sim], seat: int, bid: int) -> int:
        """The highest raise our side makes in nearly every sampled world (0 for none)."""
        side = side_of(seat)
        tricks: list[int] = []
        for sim in sims:
            s2 = sim.copy()
            s2.bid = 13  # play on to the end: count every trick
            s2.run()
            tricks.append(s2.won[side])
        tricks.sort()
        # 90% of the worlds reach this many tricks.
        k = tricks[len(tricks) // 10]
        if k >= bid + 2:
            return min(13, k - 1)
        return 0

    def answer_raise(self, view: Obj, seat: int, rng: Random, to: int) -> Obj:
        n = max(4, self.cfg.worlds)
        states = self.worlds(view, seat, rng, n)
        side = side_of(seat)
        bid = int(view["contract"]["bid"])
        gain = 0.0
        for st in states:
            sim = sim_from_state(st)
            sim.bid = 13
            sim.run()
            dtricks = sim.won[1 - side]
            old = float(bid) if dtricks >= bid else -2.0 * bid
            new = float(to) if dtricks >= to else -2.0 * to
            # Points for the declaring side; we want them low.
            gain += old - new
        return {"type": "accept_raise"} if gain > 0.0 else {"type": "refuse_raise"}

    def signal_prefs(self, view: Obj, seat: int) -> list[float]:
        """Lead preference per suit (SHDC) from partner's signals this hand."""
        prefs = [0.0, 0.0, 0.0, 0.0]
        partner = (seat + 2) % 4
        entries: list[Obj] = []
        for t in view["tricks"]:
            entries.extend(t["cards"])
        entries.extend(view["trick"])
        trumps = view["contract"]["trumps"]
        for e in entries:
            if int(e["seat"]) != partner or not e.get("signal"):
                continue
            suit = SUITS.index(str(e["card"])[1])
            sig = e["signal"]
            if sig == "slam":
                prefs[suit] += 1.0
            elif sig == "snap":
                prefs[SAME_COLOUR_IDX[suit]] += 1.0
            elif sig == "drop" and SUITS[suit] != trumps:
                prefs[suit] += 0.5  # partner may ruff it
        return prefs

    def with_signal(self, view: Obj, seat: int, card: str) -> Obj:
        """The play command, with a true and useful signal when there is one."""
        cmd: Obj = {"type": "play", "card": card}
        hand = [str(c) for c in view["hand"]]
        trumps = view["contract"]["trumps"]
        suit = card[1]
        rest = [c for c in hand if c != card]
        seen: set[str] = set(hand)
        for t in view["tricks"]:
            for e in t["cards"]:
                seen.add(str(e["card"]))
        for e in view["trick"]:
            seen.add(str(e["card"]))
        has_trumps = any(c[1] == trumps for c in rest)
        trick = view["trick"]
        following = bool(trick) and str(trick[0]["card"])[1] == suit
        if suit != trumps and not any(c[1] == suit for c in rest) and has_trumps and following:
            cmd["signal"] = "drop"
            return cmd
        if trick and not following and suit != trumps:
            # Discarding: ask for a suit where we hold the top card.
            if self.holds_top(rest, seen, suit):
                cmd["signal"] = "slam"
            elif self.holds_top(rest, seen, SUITS[SAME_COLOUR_IDX[SUITS.index(suit)]]):
                cmd["signal"] = "snap"
        return cmd

    def holds_top(self, hand: list[str], seen: set[str], suit: str) -> bool:
        """Whether ``hand`` holds the highest card of ``suit`` not yet played."""
        for r in reversed(RANKS):
            c = r + suit
            if c in hand:
                return True
            if c not in seen:
                return False
        return False


__all__ = ["TEKA_LEVELS", "Sim", "TekaBot", "TekaLevel", "best_trump", "choose_call"]
