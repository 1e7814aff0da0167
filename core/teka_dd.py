"""Teka double-dummy solver: every hand known, all seats play perfectly to the end of the hand.

The rules are those of :mod:`core.teka` (``docs/rules/teka.md`` and the rulings): follow suit,
the trump suit named by the declarer, on the first trick the leader leads a trump if he holds
one and the holder of the ace of trumps plays a trump nobody can beat; in a double 13 the
declarer's partner lays his hand aside and three hands play. The early stop of a hand (it
ends once made or failed) does not change what the declaring side can take, so the solver
plays on to the last card.

API (used by analysis and bots):

- :func:`position_from_state` builds a :class:`Position` from a :class:`core.teka.TekaState`
  in the play phase (every hand known, as the server holds it).
- :func:`solve` -> the tricks the **declaring side** (``Position.side``: the bidder's side)
  takes from here to the end of the hand, the trick in progress included and the tricks
  already completed excluded.
- :func:`solve_cards` -> ``{card: tricks}`` for every legal card of the seat to play, each
  figure the declaring side's tricks (same count as :func:`solve`) after that card.

Search, as Bo Haglund's DDS does it: fail-soft alpha-beta on the declaring side's trick
count, a transposition table of lower and upper bounds at trick boundaries keyed by the
cards left in each hand (ranks made relative to the cards still in play, so positions that
differ only in cards already gone share an entry) and the leader; cards adjacent in rank
among the cards still in play are one move; sure top tricks of the leader's side and the
losers of the other side bound the search early; move ordering tries winning cheaply, and
low cards under a partner's winner, first.

Cards inside the solver: ``suit * 13 + rank`` (suits in :data:`core.teka.SUITS` order,
rank 0 for a 2 .. 12 for an ace); a hand is a 52-bit mask, 13 bits a suit.
"""

from __future__ import annotations

from typing import Final

from core.teka import RANKS, SEATS, SUITS, TekaState, side_of

SUIT_BITS: Final = 13
SUIT_MASK: Final = (1 << SUIT_BITS) - 1
TT_LIMIT: Final = 2_000_000
"""Entries kept in one solver's transposition table before it is cleared."""


def card_index(card: str) -> int:
    return SUITS.index(card[1]) * SUIT_BITS + RANKS.index(card[0])


def card_name(index: int) -> str:
    return RANKS[index % SUIT_BITS] + SUITS[index // SUIT_BITS]


def mask_of(cards: list[str]) -> int:
    m = 0
    for c in cards:
        m |= 1 << card_index(c)
    return m


def cards_of(mask: int) -> list[str]:
    out: list[str] = []
    i = 0
    while mask:
        if mask & 1:
            out.append(card_name(i))
        mask >>= 1
        i += 1
    return out


def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


def _low_bit_index(x: int) -> int:
    """Index of the lowest set bit of ``x`` (``x`` > 0)."""
    return (x & -x).bit_length() - 1


class Position:
    """A Teka play position with every hand known.

    ``hands[seat]`` are the cards still held (an empty list for a double-13 partner);
    ``trick`` the cards of the trick in progress in play order, led by ``leader``;
    ``first_trick`` whether this is the hand's first trick (its special rules apply);
    ``sitting_out`` the seat whose hand is laid aside in a double 13 (-1 if none);
    ``side`` the declaring side (0 or 1) whose tricks the solver counts.
    """

    def __init__(
        self,
        hands: list[list[str]],
        trumps: str,
        leader: int,
        trick: list[str] | None = None,
        first_trick: bool = False,
        sitting_out: int = -1,
        side: int = 0,
    ) -> None:
        if len(hands) != SEATS:
            raise ValueError("a position needs four hands (an empty one for a laid-aside hand)")
        if len(trumps) != 1 or trumps not in SUITS:
            raise ValueError("trumps must be one of S, H, D, C")
        self.hands: list[list[str]] = [list(h) for h in hands]
        self.trumps: str = trumps
        self.leader: int = leader
        self.trick: list[str] = list(trick) if trick is not None else []
        self.first_trick: bool = first_trick
        self.sitting_out: int = sitting_out
        self.side: int = side
        seen: set[str] = set()
        for h in self.hands:
            for c in h:
                if c in seen:
                    raise ValueError(f"card {c} appears twice")
                seen.add(c)
        for c in self.trick:
            if c in seen:
                raise ValueError(f"card {c} appears twice")
            seen.add(c)

    def to_play(self) -> int:
        s = self.leader
        for _ in self.trick:
            s = _next(s, self.sitting_out)
        return s


def _next(seat: int, sitting_out: int) -> int:
    s = (seat + 1) % SEATS
    if s == sitting_out:
        s = (s + 1) % SEATS
    return s


def position_from_state(state: TekaState) -> Position:
    """The position of a :class:`TekaState` in the play phase, declaring side = the bidder's."""
    if state.phase != "play" or not state.trumps:
        raise ValueError("a double-dummy position needs a hand in play with trumps named")
    return Position(
        state.hands,
        state.trumps,
        state.leader,
        [str(e["card"]) for e in state.trick],
        not state.tricks,
        state.sitting_out,
        side_of(state.bidder),
    )


class Solver:
    """One search engine; its transposition table may be reused across positions of the
    same deal and trumps (it is keyed by the cards left, so any position is safe)."""

    def __init__(self) -> None:
        self.hands: list[int] = [0, 0, 0, 0]
        self.trumps: int = 0
        self.sitting_out: int = -1
        self.side: int = 0
        self.first: bool = False
        self.leader: int = 0
        self.trick_cards: list[int] = []
        self.trick_seats: list[int] = []
        self.players: int = 4
        self.nodes: int = 0
        self.tt: dict[int, int] = {}
        self.tt_trumps: int = -1
        self.tt_sitting_out: int = -2
        self.tt_side: int = -1

    # -- set-up ------------------------------------------------------------------------

    def load(self, pos: Position) -> None:
        self.hands = [mask_of(h) for h in pos.hands]
        trumps = SUITS.index(pos.trumps)
        if (
            trumps != self.tt_trumps
            or pos.sitting_out != self.tt_sitting_out
            or pos.side != self.tt_side
            or len(self.tt) > TT_LIMIT
        ):
            self.tt = {}
            self.tt_trumps = trumps
            self.tt_sitting_out = pos.sitting_out
            self.tt_side = pos.side
        self.trumps = trumps
        self.sitting_out = pos.sitting_out
        self.players = 3 if pos.sitting_out >= 0 else 4
        self.side = pos.side
        self.first = pos.first_trick
        self.leader = pos.leader
        self.trick_cards = [card_index(c) for c in pos.trick]
        seats: list[int] = []
        s = pos.leader
        for _ in pos.trick:
            seats.append(s)
            s = _next(s, pos.sitting_out)
        self.trick_seats = seats
        if len(self.trick_cards) >= self.players:
            raise ValueError("the trick in progress is already complete")
        n = -1
        for seat in range(SEATS):
            if seat == pos.sitting_out:
                if self.hands[seat]:
                    raise ValueError("a laid-aside hand takes no part in play")
                continue
            k = _popcount(self.hands[seat])
            played = 1 if seat in seats else 0
            if n < 0:
                n = k + played
            elif k + played != n:
                raise ValueError("the hands do not hold the same number of cards")

    def to_play(self) -> int:
        if not self.trick_seats:
            return self.leader
        return _next(self.trick_seats[-1], self.sitting_out)

    # -- rules -------------------------------------------------------------------------

    def legal(self, seat: int) -> int:
        """Mask of the cards ``seat`` may play now (core.teka.playable_cards on masks)."""
        hand = self.hands[seat]
        tsh = self.trumps * SUIT_BITS
        tmask = SUIT_MASK << tsh
        if self.first and (hand >> (tsh + 12)) & 1:
            best = -1
            for c in self.trick_cards:
                if c // SUIT_BITS == self.trumps and c % SUIT_BITS > best:
                    best = c % SUIT_BITS
            for s in range(SEATS):
                if s == seat or s == self.sitting_out or s in self.trick_seats:
                    continue
                t = (self.hands[s] >> tsh) & SUIT_MASK
                if t:
                    r = t.bit_length() - 1
                    if r > best:
                        best = r
            own = (hand >> tsh) & SUIT_MASK
            return ((own >> (best + 1)) << (best + 1)) << tsh
        if not self.trick_cards:
            if self.first and hand & tmask:
                return hand & tmask
            return hand
        led = self.trick_cards[0] // SUIT_BITS
        follow = hand & (SUIT_MASK << (led * SUIT_BITS))
        return follow if follow else hand

    def _winner_index(self) -> int:
        """Index in the trick of the card winning it so far."""
        cards = self.trick_cards
        led = cards[0] // SUIT_BITS
        best_i = 0
        best = cards[0] % SUIT_BITS
        best_trump = led == self.trumps
        for i in range(1, len(cards)):
            c = cards[i]
            su = c // SUIT_BITS
            r = c % SUIT_BITS
            if su == self.trumps:
                if not best_trump or r > best:
                    best_trump = True
                    best = r
                    best_i = i
            elif su == led and not best_trump and r > best:
                best = r
                best_i = i
        return best_i

    # -- search ------------------------------------------------------------------------

    def _in_play(self) -> int:
        m = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        for c in self.trick_cards:
            m |= 1 << c
        return m

    def _moves(self, seat: int) -> list[int]:
        """One card per group of equivalent legal cards, in the order to try them."""
        legal = self.legal(seat)
        hand = self.hands[seat]
        in_play = self._in_play()
        reps: list[int] = []
        x = legal
        while x:
            b = x & -x
            x ^= b
            above = in_play & ~((b << 1) - 1)
            nxt = above & -above
            # Skip a card when the next higher card in play (same suit) is also ours and legal:
            # the top of the run stands for it.
            if nxt and (nxt & legal) and _same_suit(b, nxt) and (nxt & hand):
                continue
            reps.append(b.bit_length() - 1)
        if len(reps) <= 1:
            return reps
        return self._order(seat, reps)

    def _order(self, seat: int, reps: list[int]) -> list[int]:
        if not self.trick_cards:
            # Leads: high cards first (tops of suits take tricks or set them up), trumps last
            # unless the hand is all trumps.
            scored: list[tuple[int, int]] = []
            for c in reps:
                su = c // SUIT_BITS
                r = c % SUIT_BITS
                v = r
                in_suit = self._in_play() & (SUIT_MASK << (su * SUIT_BITS))
                if (in_suit >> (c + 1)) == 0:
                    v += 20  # the top card in play of its suit
                if su == self.trumps:
                    v -= 5
                scored.append((-v, c))
            scored.sort()
            return [c for _, c in scored]
        wi = self._winner_index()
        wc = self.trick_cards[wi]
        partner_wins = side_of(self.trick_seats[wi]) == side_of(seat)
        led = self.trick_cards[0] // SUIT_BITS
        winners: list[int] = []
        losers: list[int] = []
        for c in reps:
            if _beats(c, wc, led, self.trumps):
                winners.append(c)
            else:
                losers.append(c)
        # Losers cheapest first (a low card of a side suit, trumps kept).
        losers.sort(key=lambda c: (c // SUIT_BITS == self.trumps) * 100 + c % SUIT_BITS)
        winners.sort(key=lambda c: (c // SUIT_BITS == self.trumps) * 100 + c % SUIT_BITS)
        if partner_wins:
            return losers + winners
        return winners + losers

    def _key(self) -> int:
        """Cards left in each hand with ranks relative to the cards in play, and the leader."""
        in_play = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        key = self.leader
        for su in range(4):
            sh = su * SUIT_BITS
            u = (in_play >> sh) & SUIT_MASK
            # Owner of each card in play, highest first, 2 bits a card, with a leading 1.
            code = 1
            while u:
                r = u.bit_length() - 1
                u ^= 1 << r
                bit = 1 << (sh + r)
                owner = 0
                if self.hands[1] & bit:
                    owner = 1
                elif self.hands[2] & bit:
                    owner = 2
                elif self.hands[3] & bit:
                    owner = 3
                code = (code << 2) | owner
            key = (key << 27) | code
        return (key << 1) | (1 if self.first else 0)

    def _quick(self) -> int:
        """Sure tricks of the leader's side from the top: leading the highest card in play
        of a suit, while nobody can ruff it, wins. A lower bound on the leader side's tricks
        from here (the trick in progress is empty)."""
        leader = self.leader
        lside = side_of(leader)
        tsh = self.trumps * SUIT_BITS
        # Opponents' trumps: if any opponent holds a trump, only top trumps count.
        opp_trumps = 0
        for s in range(SEATS):
            if s != self.sitting_out and side_of(s) != lside:
                opp_trumps |= (self.hands[s] >> tsh) & SUIT_MASK
        hand = self.hands[leader]
        n = 0
        if self.first:
            return 0
        for su in range(4):
            sh = su * SUIT_BITS
            mine = (hand >> sh) & SUIT_MASK
            if not mine:
                continue
            others = 0
            opp_len = 0
            for s in range(SEATS):
                if s == leader or s == self.sitting_out:
                    continue
                o = (self.hands[s] >> sh) & SUIT_MASK
                others |= o
                if side_of(s) != lside:
                    k = _popcount(o)
                    if k > opp_len:
                        opp_len = k
            if su != self.trumps and opp_trumps:
                # An opponent void in this suit might ruff: count only while every
                # opponent still follows.
                void_opp = False
                for s in range(SEATS):
                    if s != self.sitting_out and side_of(s) != lside:
                        if not (self.hands[s] >> sh) & SUIT_MASK:
                            void_opp = True
                if void_opp:
                    continue
                limit = opp_len
                for s in range(SEATS):
                    if s != self.sitting_out and side_of(s) != lside:
                        k = _popcount((self.hands[s] >> sh) & SUIT_MASK)
                        if k < limit:
                            limit = k
            else:
                limit = 13
            # Count my cards above every card the others hold in this suit.
            top = others.bit_length()
            k = _popcount(mine >> top) if top else _popcount(mine)
            if k > limit:
                k = limit
            n += k
        cards_left = _popcount(hand)
        return n if n < cards_left else cards_left

    def search(self, alpha: int, beta: int) -> int:
        """Tricks the declaring side takes from here (fail-soft within ``alpha``..``beta``)."""
        self.nodes += 1
        if not self.trick_cards:
            leader = self.leader
            left = _popcount(self.hands[leader])
            if left == 0:
                return 0
            decl_leads = side_of(leader) == self.side
            q = self._quick()
            if decl_leads:
                if q >= beta:
                    return q
            else:
                if left - q <= alpha:
                    return left - q
            key = self._key()
            entry = self.tt.get(key, -1)
            lo = 0
            hi = left
            if entry >= 0:
                lo = entry >> 4
                hi = entry & 15
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
            if decl_leads and q > lo:
                lo = q
            if not decl_leads and left - q < hi:
                hi = left - q
            a = alpha if alpha > lo else lo
            b = beta if beta < hi else hi
            if a >= b:
                return a
            v = self._expand(a, b)
            if v <= a:
                hi = v if v < hi else hi
            elif v >= b:
                lo = v if v > lo else lo
            else:
                lo = v
                hi = v
            self.tt[key] = (lo << 4) | hi
            return v
        return self._expand(alpha, beta)

    def _expand(self, alpha: int, beta: int) -> int:
        seat = self.to_play()
        maximize = side_of(seat) == self.side
        best = -1 if maximize else 99
        for c in self._moves(seat):
            v = self._play_and_search(seat, c, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                    if alpha >= beta:
                        break
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
                    if alpha >= beta:
                        break
        return best

    def _play_and_search(self, seat: int, c: int, alpha: int, beta: int) -> int:
        bit = 1 << c
        self.hands[seat] ^= bit
        self.trick_cards.append(c)
        self.trick_seats.append(seat)
        if len(self.trick_cards) < self.players:
            v = self.search(alpha, beta)
            self.trick_cards.pop()
            self.trick_seats.pop()
            self.hands[seat] ^= bit
            return v
        wi = self._winner_index()
        winner = self.trick_seats[wi]
        cards = self.trick_cards
        seats = self.trick_seats
        old_leader = self.leader
        old_first = self.first
        self.trick_cards = []
        self.trick_seats = []
        self.leader = winner
        self.first = False
        won = 1 if side_of(winner) == self.side else 0
        v = won + self.search(alpha - won, beta - won)
        self.first = old_first
        self.leader = old_leader
        self.trick_cards = cards
        self.trick_seats = seats
        self.trick_cards.pop()
        self.trick_seats.pop()
        self.hands[seat] ^= bit
        return v

    def value(self) -> int:
        """Exact value of the loaded position, by null-window searches (MTD on tricks)."""
        seat = self.to_play()
        left = _popcount(self.hands[seat])
        lo = 0
        hi = left
        while lo < hi:
            mid = (lo + hi + 1) // 2
            v = self.search(mid - 1, mid)
            if v >= mid:
                lo = v if v > mid else mid
            else:
                hi = v if v < mid - 1 else mid - 1
        return lo

    def card_values(self) -> dict[str, int]:
        seat = self.to_play()
        legal = self.legal(seat)
        reps = self._moves(seat)
        vals: dict[int, int] = {}
        for c in reps:
            vals[c] = self._value_after(seat, c)
        out: dict[str, int] = {}
        x = legal
        in_play = self._in_play()
        hand = self.hands[seat]
        while x:
            b = x & -x
            x ^= b
            c = b.bit_length() - 1
            # Walk up the run of equivalent cards to its top, which was searched.
            top = b
            while True:
                above = in_play & ~((top << 1) - 1)
                nxt = above & -above
                if nxt and (nxt & legal) and _same_suit(top, nxt) and (nxt & hand):
                    top = nxt
                else:
                    break
            out[card_name(c)] = vals[top.bit_length() - 1]
        return out

    def _value_after(self, seat: int, c: int) -> int:
        """Exact value after ``seat`` plays ``c``."""
        n = _popcount(self.hands[seat])
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi + 1) // 2
            v = self._play_and_search(seat, c, mid - 1, mid)
            if v >= mid:
                lo = v if v > mid else mid
            else:
                hi = v if v < mid - 1 else mid - 1
        return lo


def _same_suit(a: int, b: int) -> bool:
    """Are the single-bit masks ``a`` and ``b`` cards of the same suit?"""
    return (a.bit_length() - 1) // SUIT_BITS == (b.bit_length() - 1) // SUIT_BITS


def _beats(c: int, w: int, led: int, trumps: int) -> bool:
    """Does card ``c`` beat the card ``w`` winning a trick led in suit ``led``?"""
    cs = c // SUIT_BITS
    ws = w // SUIT_BITS
    if cs == ws:
        return c > w
    return cs == trumps


def solve(position: Position, solver: Solver | None = None) -> int:
    """Tricks the declaring side (``position.side``) takes from here to the end of the hand,
    the trick in progress included, when every seat plays perfectly."""
    s = solver if solver is not None else Solver()
    s.load(position)
    return s.value()


def solve_cards(position: Position, solver: Solver | None = None) -> dict[str, int]:
    """For every legal card of the seat to play: the declaring side's tricks (as
    :func:`solve` counts them) after that card, with perfect play from then on."""
    s = solver if solver is not None else Solver()
    s.load(position)
    return s.card_values()


def legal_cards(position: Position) -> list[str]:
    """The cards the seat to play may play (the solver's reading of the rules)."""
    s = Solver()
    s.load(position)
    return cards_of(s.legal(s.to_play()))
