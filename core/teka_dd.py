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

Search, as Bo Haglund's DDS does it (docs/ai.md): boolean searches "can the declaring side
take ``target`` tricks or more?", the count found by a binary search over them; a
transposition table at trick boundaries whose entries hold lower and upper bounds for every
position with the same suit lengths in each hand and the same holders of the top cards in
play that the answer rested on (partition search: each answer carries the cards it depends
on); cards adjacent in rank among the cards still in play are one move, and one small card
a suit is tried once the answers show the small ones do not matter; quick tricks of the side
on lead (with the partner's winners behind an entry), the run of top trumps, and a sure
winner of the trick in progress when one trick decides, as cut-offs; move ordering after
Haglund's weights, the move that cut in the table entry first.

Cards inside the solver: ``suit * 13 + rank`` (suits in :data:`core.teka.SUITS` order,
rank 0 for a 2 .. 12 for an ace); a hand is a 52-bit mask, 13 bits a suit.
"""

from __future__ import annotations

from typing import Final

from core.teka import RANKS, SEATS, SUITS, TRICKS, TekaState, side_of

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
    """The position of a :class:`TekaState` in the play phase, declaring side = the bidder's;
    in a double 13 the partner's laid-aside hand takes no part (an empty hand here)."""
    if state.phase != "play" or not state.trumps:
        raise ValueError("a double-dummy position needs a hand in play with trumps named")
    return Position(
        [[] if s == state.sitting_out else list(h) for s, h in enumerate(state.hands)],
        state.trumps,
        state.leader,
        [str(e["card"]) for e in state.trick],
        not state.tricks,
        state.sitting_out,
        side_of(state.bidder),
    )


_POP: Final = [bin(i).count("1") for i in range(1 << SUIT_BITS)]
"""Number of cards in a 13-bit suit mask."""
_TOP: Final = [i.bit_length() - 1 for i in range(1 << SUIT_BITS)]
"""Rank of the highest card in a 13-bit suit mask (-1 for none)."""
_LOW: Final = [(i & -i).bit_length() - 1 for i in range(1 << SUIT_BITS)]
"""Rank of the lowest card in a 13-bit suit mask (-1 for none)."""
TT_BUCKET: Final = 24
"""Entries kept per pattern of suit lengths (the oldest goes first)."""


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
        # Cards and seats of the tricks being searched, 4 slots a trick from self.tb.
        self.tc: list[int] = [0] * (4 * (TRICKS + 1))
        self.ts: list[int] = [0] * (4 * (TRICKS + 1))
        self.tb: int = 0
        self.tn: int = 0
        self.left: int = 0
        self.players: int = 4
        self.nodes: int = 0
        self.rel: int = 0
        self.qrel: int = 0
        self.covered: int = 0
        self.qsuits: int = 0
        self.tt: list[dict[int, list[int]]] = [{}, {}, {}, {}]
        self.tt_size: int = 0
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
            or self.tt_size > TT_LIMIT
        ):
            self.tt = [{}, {}, {}, {}]
            self.tt_size = 0
            self.tt_trumps = trumps
            self.tt_sitting_out = pos.sitting_out
            self.tt_side = pos.side
        self.trumps = trumps
        self.sitting_out = pos.sitting_out
        self.players = 3 if pos.sitting_out >= 0 else 4
        self.side = pos.side
        self.first = pos.first_trick
        self.leader = pos.leader
        if len(pos.trick) >= self.players:
            raise ValueError("the trick in progress is already complete")
        self.tb = 0
        self.tn = len(pos.trick)
        s = pos.leader
        seats: list[int] = []
        for i, c in enumerate(pos.trick):
            self.tc[i] = card_index(c)
            self.ts[i] = s
            seats.append(s)
            s = _next(s, pos.sitting_out)
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
        self.left = _popcount(self.hands[self.to_play()])

    def to_play(self) -> int:
        if not self.tn:
            return self.leader
        return _next(self.ts[self.tb + self.tn - 1], self.sitting_out)

    # -- rules -------------------------------------------------------------------------

    def legal(self, seat: int) -> int:
        """Mask of the cards ``seat`` may play now (core.teka.playable_cards on masks)."""
        hand = self.hands[seat]
        tsh = self.trumps * SUIT_BITS
        tb = self.tb
        tn = self.tn
        if self.first and (hand >> (tsh + 12)) & 1:
            best = -1
            played = 0
            for i in range(tn):
                c = self.tc[tb + i]
                played |= 1 << self.ts[tb + i]
                if c // SUIT_BITS == self.trumps and c % SUIT_BITS > best:
                    best = c % SUIT_BITS
            for s in range(SEATS):
                if s == seat or s == self.sitting_out or (played >> s) & 1:
                    continue
                r = _TOP[(self.hands[s] >> tsh) & SUIT_MASK]
                if r > best:
                    best = r
            own = (hand >> tsh) & SUIT_MASK
            return ((own >> (best + 1)) << (best + 1)) << tsh
        if not tn:
            if self.first and hand & (SUIT_MASK << tsh):
                return hand & (SUIT_MASK << tsh)
            return hand
        led = self.tc[tb] // SUIT_BITS
        follow = hand & (SUIT_MASK << (led * SUIT_BITS))
        return follow if follow else hand

    def _winner_index(self) -> int:
        """Index in the trick of the card winning it so far."""
        tb = self.tb
        best = self.tc[tb]
        bsuit = best // SUIT_BITS
        wi = 0
        for i in range(1, self.tn):
            c = self.tc[tb + i]
            su = c // SUIT_BITS
            if su == bsuit:
                if c > best:
                    best = c
                    wi = i
            elif su == self.trumps:
                best = c
                bsuit = su
                wi = i
        return wi

    # -- bounds ------------------------------------------------------------------------

    def _winners(self, seat: int, need: int) -> int:
        """Sure tricks of ``seat`` leading now and cashing its cards that are the highest in
        play of their suit while no opponent can ruff them, counted up to ``need``. Sets
        ``qrel`` to the cards counted and ``qsuits`` to the count in each suit."""
        hands = self.hands
        tsh = self.trumps * SUIT_BITS
        o1 = (seat + 1) & 3
        o2 = (seat + 3) & 3
        t1 = (hands[o1] >> tsh) & SUIT_MASK
        t2 = (hands[o2] >> tsh) & SUIT_MASK
        hand = hands[seat]
        others = 0
        for s in range(SEATS):
            if s != seat:
                others |= hands[s]
        n = 0
        rel = 0
        ks = 0
        for su in range(4):
            sh = su * SUIT_BITS
            mine = (hand >> sh) & SUIT_MASK
            if not mine:
                continue
            oth = (others >> sh) & SUIT_MASK
            w = mine >> (_TOP[oth] + 1) if oth else mine
            if not w:
                continue
            k = _POP[w]
            if su != self.trumps:
                if t1:
                    k1 = _POP[(hands[o1] >> sh) & SUIT_MASK]
                    if k1 < k:
                        k = k1
                if t2:
                    k2 = _POP[(hands[o2] >> sh) & SUIT_MASK]
                    if k2 < k:
                        k = k2
            if k:
                if n + k >= need:
                    k = need - n
                n += k
                ks |= k << (4 * su)
                w <<= _TOP[oth] + 1
                m = 0
                for _ in range(k):
                    r = _TOP[w]
                    w ^= 1 << r
                    m |= 1 << r
                rel |= m << sh
                if n >= need:
                    break
        self.qrel = rel
        self.qsuits = ks
        return n

    def _quick(self, leader: int, need: int) -> int:
        """Sure tricks of the leader's side from the top (a lower bound on its tricks from
        here, the trick in progress empty): the leader's own winners, or, when the leader can
        reach his partner's winners with a card of a suit the partner wins, the partner's."""
        q = self._winners(leader, need)
        partner = (leader + 2) & 3
        if partner == self.sitting_out or q >= need:
            return q
        hands = self.hands
        rel = self.qrel
        hand = hands[leader]
        tsh = self.trumps * SUIT_BITS
        o1 = (leader + 1) & 3
        o2 = (leader + 3) & 3
        ph = hands[partner]
        for su in range(4):
            sh = su * SUIT_BITS
            mine = (hand >> sh) & SUIT_MASK
            pm = (ph >> sh) & SUIT_MASK
            if not mine or not pm:
                continue
            a = (hands[o1] >> sh) & SUIT_MASK
            b = (hands[o2] >> sh) & SUIT_MASK
            top = _TOP[pm]
            if _TOP[mine] > top or _TOP[a] > top or _TOP[b] > top:
                continue
            if su != self.trumps and (
                (not a and (hands[o1] >> tsh) & SUIT_MASK)
                or (not b and (hands[o2] >> tsh) & SUIT_MASK)
            ):
                continue
            ks = self.qsuits
            p = self._winners(partner, need)
            # (The partner's top card of the suit crossed in, counted or not.)
            prel = self.qrel | (1 << (sh + top))
            # The leader cashes his winners first while the partner follows (or discards
            # cards he does not count), then crosses: both counts add up.
            discards = 0
            for s2 in range(4):
                k = (ks >> (4 * s2)) & 15
                pl = _POP[(ph >> (s2 * SUIT_BITS)) & SUIT_MASK]
                if k > pl:
                    discards += k - pl
            if discards <= self.left - p - 1:
                q += p
                rel |= prel
            elif p > q:
                q = p
                rel = prel
            break
        if q == 0 and (ph >> tsh) & SUIT_MASK:
            # A ruff by the partner: a suit he is void in that the leader holds and both
            # opponents follow (or hold no trump) takes a trick whatever the ranks.
            t1 = (hands[o1] >> tsh) & SUIT_MASK
            t2 = (hands[o2] >> tsh) & SUIT_MASK
            for su in range(4):
                sh = su * SUIT_BITS
                if (
                    su != self.trumps
                    and (hand >> sh) & SUIT_MASK
                    and not (ph >> sh) & SUIT_MASK
                    and (not t1 or (hands[o1] >> sh) & SUIT_MASK)
                    and (not t2 or (hands[o2] >> sh) & SUIT_MASK)
                ):
                    q = 1
                    rel = 0
                    break
        self.qrel = rel
        return q if q < self.left else self.left

    def _top_trumps(self) -> int:
        """Tricks the side holding the highest trump in play surely takes with its run of
        top trumps (each top trump of one hand wins a trick of its own); positive for the
        declaring side, negative for the other. Sets ``qrel`` to the run."""
        tsh = self.trumps * SUIT_BITS
        hands = self.hands
        t0 = (hands[0] >> tsh) & SUIT_MASK
        t1 = (hands[1] >> tsh) & SUIT_MASK
        t2 = (hands[2] >> tsh) & SUIT_MASK
        t3 = (hands[3] >> tsh) & SUIT_MASK
        u = t0 | t1 | t2 | t3
        if not u:
            self.qrel = 0
            return 0
        r = _TOP[u]
        s0 = 0 if (t0 | t2) >> r & 1 else 1
        mine = t0 | t2 if s0 == 0 else t1 | t3
        run = 0
        while r >= 0:
            if (u >> r) & 1:
                if not (mine >> r) & 1:
                    break
                run |= 1 << r
            r -= 1
        if s0 == 0:
            k = max(_POP[t0 & run], _POP[t2 & run])
        else:
            k = max(_POP[t1 & run], _POP[t3 & run])
        self.qrel = run << tsh
        return k if s0 == self.side else -k

    def _sure_winner(self, seat: int) -> int:
        """A card that wins the trick in progress for the side of ``seat`` (to play) whatever
        the opponents still to play do: the card winning it now if a partner's, or one of
        the cards of ``seat``; -1 if none."""
        tb = self.tb
        tn = self.tn
        hands = self.hands
        trumps = self.trumps
        tsh = trumps * SUIT_BITS
        led = self.tc[tb] // SUIT_BITS
        wi = self._winner_index()
        wc = self.tc[tb + wi]
        # Highest led-suit card and highest trump of the opponents still to play, and
        # whether one of them is void in the led suit.
        opp_led = -1
        opp_trump = -1
        s = seat
        for _ in range(self.players - tn - 1):
            s = _next(s, self.sitting_out)
            if (s & 1) != (seat & 1):
                ls = (hands[s] >> (led * SUIT_BITS)) & SUIT_MASK
                if ls:
                    if _TOP[ls] > opp_led:
                        opp_led = _TOP[ls]
                else:
                    t = _TOP[(hands[s] >> tsh) & SUIT_MASK]
                    if t > opp_trump:
                        opp_trump = t
        cands = [wc] if (self.ts[tb + wi] & 1) == (seat & 1) else []
        legal = self.legal(seat)
        lt = _TOP[(legal >> (led * SUIT_BITS)) & SUIT_MASK]
        if lt >= 0:
            cands.append(led * SUIT_BITS + lt)
        elif led != trumps:
            tt = _TOP[(legal >> tsh) & SUIT_MASK]
            if tt >= 0:
                cands.append(tsh + tt)
        for c in cands:
            if c != wc and not _beats(c, wc, led, trumps):
                continue
            su = c // SUIT_BITS
            r = c % SUIT_BITS
            if su == trumps:
                if (led == trumps and opp_led < r) or (led != trumps and opp_trump < r):
                    return c
            elif opp_led < r and opp_trump < 0:
                return c
        return -1

    # -- transposition table -----------------------------------------------------------

    def _rel_of(self, info: int) -> int:
        """The cards an entry's bound rests on, in the current position: the top ``k`` cards
        in play of each suit."""
        h = self.hands
        inplay = h[0] | h[1] | h[2] | h[3]
        rel = 0
        for su in range(4):
            k = (info >> (14 + 4 * su)) & 15
            if not k:
                continue
            u = (inplay >> (su * SUIT_BITS)) & SUIT_MASK
            m = 0
            while k:
                r = _TOP[u]
                u ^= 1 << r
                m |= 1 << r
                k -= 1
            rel |= m << (su * SUIT_BITS)
        return rel

    def search(self, target: int) -> bool:
        """Can the declaring side take ``target`` tricks or more from here (the trick in
        progress included)? Sets ``rel`` to the cards the answer rests on: any position with
        the same suit lengths in every hand and the same holders of the cards in play from
        the lowest of those up in each suit has the same answer."""
        self.nodes += 1
        if target <= 0:
            self.rel = 0
            return True
        if target > self.left:
            self.rel = 0
            return False
        tn = self.tn
        hint = -1
        store = False
        lens = 0
        ca = 0
        cb = 0
        if tn == 0 and not self.first:
            leader = self.leader
            left = self.left
            decl = (leader & 1) == self.side
            q = self._quick(leader, target if decl else left - target + 1)
            if decl:
                if q >= target:
                    self.rel = self.qrel
                    return True
            elif left - q < target:
                self.rel = self.qrel
                return False
            k = self._top_trumps()
            if k > 0:
                if k >= target:
                    self.rel = self.qrel
                    return True
            elif left + k < target:
                self.rel = self.qrel
                return False
            h = self.hands
            h0 = h[0]
            h1 = h[1]
            h2 = h[2]
            h3 = h[3]
            for su in range(4):
                sh = su * SUIT_BITS
                a = (h1 >> sh) & SUIT_MASK
                b = (h2 >> sh) & SUIT_MASK
                c = (h3 >> sh) & SUIT_MASK
                z = (h0 >> sh) & SUIT_MASK
                u = z | a | b | c
                code = 0
                n = 0
                while u:
                    r = _TOP[u]
                    u ^= 1 << r
                    code = (
                        (code << 2) | ((a >> r) & 1) | (((b >> r) & 1) << 1) | (((c >> r) & 1) * 3)
                    )
                    n += 1
                code <<= 2 * (SUIT_BITS - n)
                if su < 2:
                    ca = (ca << 26) | code
                else:
                    cb = (cb << 26) | code
                lens = (lens << 12) | (_POP[a] << 8) | (_POP[b] << 4) | _POP[c]
                if su < 3:
                    lens = (lens << 4) | _POP[z]
            ent = self.tt[leader].get(lens)
            if ent is not None:
                i = 0
                ne = len(ent)
                while i < ne:
                    if (ca & ent[i]) == ent[i + 1] and (cb & ent[i + 2]) == ent[i + 3]:
                        info = ent[i + 4]
                        if (info & 15) >= target:
                            self.rel = self._rel_of(info)
                            return True
                        if ((info >> 4) & 15) < target:
                            self.rel = self._rel_of(info)
                            return False
                        if hint < 0:
                            hint = ((info >> 8) & 63) - 1
                    i += 5
            store = True
        seat = self.leader if tn == 0 else _next(self.ts[self.tb + tn - 1], self.sitting_out)
        maximize = (seat & 1) == self.side
        if tn and not self.first and (target == 1 if maximize else target == self.left):
            # The side to play needs one trick (the declaring side its first, the other
            # side the one that stops the count): a sure winner of this trick answers.
            w = self._sure_winner(seat)
            if w >= 0:
                self.rel = 1 << w
                return maximize
        moves = self._moves(seat, hint)
        covered = self.covered
        union = 0
        result = not maximize
        best = -1
        skip = [0, 0, 0, 0]
        for c in moves:
            su = c // SUIT_BITS
            r = c % SUIT_BITS
            if r < skip[su]:
                continue
            r2 = self._play(seat, c, target)
            if r2 == maximize:
                result = maximize
                union = self.rel
                best = c
                break
            union |= self.rel
            if not skip[su]:
                # A card below every card the answers so far rest on failed: the other
                # cards of its suit below those are the same (one small card a suit).
                us = (union >> (su * SUIT_BITS)) & SUIT_MASK
                low = _LOW[us] if us else SUIT_BITS
                if r < low:
                    skip[su] = low
        if result != maximize and covered:
            union = self._runs(union, covered)
        if store:
            self._store(lens, ca, cb, union, target, result, best)
        self.rel = union
        return result

    def _runs(self, rel: int, covered: int) -> int:
        """``rel`` of a node where every card failed, extended for the cards that others
        stood for: a run of equivalent cards reaching from the relevant cards down into the
        others must stay whole (its lower cards were not searched)."""
        h = self.hands
        inplay = h[0] | h[1] | h[2] | h[3]
        for i in range(self.tn):
            inplay |= 1 << self.tc[self.tb + i]
        for su in range(4):
            sh = su * SUIT_BITS
            cv = (covered >> sh) & SUIT_MASK
            us = (rel >> sh) & SUIT_MASK
            if not cv or not us:
                continue
            theta = _LOW[us]
            u = (inplay >> sh) & SUIT_MASK
            while cv:
                r = _TOP[cv]
                cv ^= 1 << r
                if r >= theta:
                    continue
                if r + 1 + _LOW[u >> (r + 1)] >= theta:
                    theta = r
                else:
                    break
            rel |= 1 << (sh + theta)
        return rel

    def _store(self, lens: int, ca: int, cb: int, rel: int, target: int, result: bool,
               best: int) -> None:
        h = self.hands
        inplay = h[0] | h[1] | h[2] | h[3]
        ma = 0
        mb = 0
        ks = 0
        for su in range(4):
            rs = (rel >> (su * SUIT_BITS)) & SUIT_MASK
            k = 0
            if rs:
                k = _POP[((inplay >> (su * SUIT_BITS)) & SUIT_MASK) >> _LOW[rs]]
            m = ((1 << (2 * k)) - 1) << (26 - 2 * k)
            if su < 2:
                ma = (ma << 26) | m
            else:
                mb = (mb << 26) | m
            ks |= k << (14 + 4 * su)
        pa = ca & ma
        pb = cb & mb
        table = self.tt[self.leader]
        ent = table.get(lens)
        if ent is None:
            ent = []
            table[lens] = ent
        i = 0
        ne = len(ent)
        while i < ne:
            if ent[i] == ma and ent[i + 1] == pa and ent[i + 2] == mb and ent[i + 3] == pb:
                info = ent[i + 4]
                lo = info & 15
                hi = (info >> 4) & 15
                bm = (info >> 8) & 63
                if result:
                    if target > lo:
                        lo = target
                else:
                    if target - 1 < hi:
                        hi = target - 1
                if best >= 0:
                    bm = best + 1
                ent[i + 4] = lo | (hi << 4) | (bm << 8) | ks
                return
            i += 5
        lo = target if result else 0
        hi = self.left if result else target - 1
        ent.append(ma)
        ent.append(pa)
        ent.append(mb)
        ent.append(pb)
        ent.append(lo | (hi << 4) | ((best + 1) << 8) | ks)
        self.tt_size += 1
        if ne >= 5 * TT_BUCKET:
            del ent[0:5]

    # -- moves -------------------------------------------------------------------------

    def _play(self, seat: int, c: int, target: int) -> bool:
        """Play ``c`` from ``seat`` and search the rest for ``target`` tricks."""
        bit = 1 << c
        self.hands[seat] ^= bit
        tb = self.tb
        tn = self.tn
        self.tc[tb + tn] = c
        self.ts[tb + tn] = seat
        if tn + 1 < self.players:
            self.tn = tn + 1
            r = self.search(target)
            self.tn = tn
            self.hands[seat] ^= bit
            return r
        self.tn = tn + 1
        wi = self._winner_index()
        w = self.tc[tb + wi]
        wsuit = w // SUIT_BITS
        by_rank = False
        for i in range(self.players):
            if i != wi and self.tc[tb + i] // SUIT_BITS == wsuit:
                by_rank = True
        winner = self.ts[tb + wi]
        old_leader = self.leader
        old_first = self.first
        self.tb = tb + 4
        self.tn = 0
        self.leader = winner
        self.first = False
        self.left -= 1
        won = 1 if (winner & 1) == self.side else 0
        r = self.search(target - won)
        self.left += 1
        self.first = old_first
        self.leader = old_leader
        self.tn = tn
        self.tb = tb
        self.hands[seat] ^= bit
        if by_rank:
            self.rel |= 1 << w
        return r

    def _moves(self, seat: int, hint: int) -> list[int]:
        """One card per group of equivalent legal cards (cards adjacent in rank among the
        cards in play, held by one hand), in the order to try them. Sets ``covered`` to the
        legal cards that others stand for."""
        legal = self.legal(seat)
        hands = self.hands
        hand = hands[seat]
        tb = self.tb
        tn = self.tn
        inplay = hands[0] | hands[1] | hands[2] | hands[3]
        for i in range(tn):
            inplay |= 1 << self.tc[tb + i]
        tsh = self.trumps * SUIT_BITS
        trumps = self.trumps
        partner = (seat + 2) & 3
        if partner == self.sitting_out:
            partner = -1
        o1 = (seat + 1) & 3
        o2 = (seat + 3) & 3
        if o1 == self.sitting_out:
            o1 = o2
        if o2 == self.sitting_out:
            o2 = o1
        keys: list[int] = []
        covered = 0
        if tn:
            wi = self._winner_index()
            wc = self.tc[tb + wi]
            wside = self.ts[tb + wi] & 1
            led = self.tc[tb] // SUIT_BITS
            # Opponents still to play in this trick.
            after: list[int] = []
            s = seat
            for _ in range(self.players - tn - 1):
                s = _next(s, self.sitting_out)
                if (s & 1) != (seat & 1):
                    after.append(s)
        else:
            wc = -1
            wside = -1
            led = -1
            after = []
        for su in range(4):
            sh = su * SUIT_BITS
            lg = (legal >> sh) & SUIT_MASK
            if not lg:
                continue
            u = (inplay >> sh) & SUIT_MASK
            hs = (hand >> sh) & SUIT_MASK
            top = _TOP[u]
            while lg:
                r = _LOW[lg]
                lg ^= 1 << r
                above = u >> (r + 1)
                if above and (hs >> (r + 1 + _LOW[above])) & 1:
                    covered |= 1 << (sh + r)
                    continue
                c = sh + r
                if c == hint:
                    w = 1000
                elif not tn:
                    w = self._lead_weight(seat, partner, o1, o2, su, r, u, hs)
                else:
                    cost = r + (20 if su == trumps and led != trumps else 0)
                    if su != led and su != trumps and r == top:
                        cost += 10
                    if _beats(c, wc, led, trumps):
                        nb = c
                        nside = seat & 1
                    else:
                        nb = wc
                        nside = wside
                    if nside == (seat & 1):
                        sure = True
                        nsu = nb // SUIT_BITS
                        nr = nb % SUIT_BITS
                        for y in after:
                            yl = (hands[y] >> (led * SUIT_BITS)) & SUIT_MASK
                            if yl:
                                if nsu == led and _TOP[yl] > nr:
                                    sure = False
                            else:
                                yt = (hands[y] >> tsh) & SUIT_MASK
                                if yt and (nsu != trumps or _TOP[yt] > nr):
                                    sure = False
                        w = 200 - cost if sure else 100 - cost
                    else:
                        w = 100 - cost
                keys.append(((w + 512) << 6) | c)
        self.covered = covered
        if len(keys) > 1:
            keys.sort(reverse=True)
        return [k & 63 for k in keys]

    def _lead_weight(self, seat: int, partner: int, o1: int, o2: int, su: int, r: int,
                     u: int, hs: int) -> int:
        hands = self.hands
        sh = su * SUIT_BITS
        trumps = self.trumps
        tsh = trumps * SUIT_BITS
        top = _TOP[u]
        a = (hands[o1] >> sh) & SUIT_MASK
        b = (hands[o2] >> sh) & SUIT_MASK
        ruff = su != trumps and (
            (not a and (hands[o1] >> tsh) & SUIT_MASK) or (not b and (hands[o2] >> tsh) & SUIT_MASK)
        )
        pm = (hands[partner] >> sh) & SUIT_MASK if partner >= 0 else 0
        if r == top:
            w = 10 if ruff else 60
        elif pm and _TOP[pm] == top:
            w = 5 if ruff else 50 - r
        elif (
            partner >= 0 and not pm and su != trumps and (hands[partner] >> tsh) & SUIT_MASK
            and a and b
        ):
            w = 45 - r
        else:
            w = 20 - r
            below = u & ((1 << r) - 1)
            if below and (hs >> _TOP[below]) & 1:
                w += 15
        if su == trumps:
            w -= 5
        return w

    # -- values ------------------------------------------------------------------------

    def value(self) -> int:
        """Exact value of the loaded position, by null-window searches on the count."""
        lo = 0
        hi = self.left
        while lo < hi:
            t = (lo + hi + 1) // 2
            if self.search(t):
                lo = t
            else:
                hi = t - 1
        return lo

    def _value_after(self, seat: int, c: int, guess: int) -> int:
        """Exact value after ``seat`` plays ``c``, starting from ``guess`` (the position's
        value, which the best cards keep)."""
        lo = 0
        hi = self.left
        maximize = (seat & 1) == self.side
        if maximize:
            hi = guess
            if self._play(seat, c, guess):
                return guess
            hi = guess - 1
        else:
            lo = guess
            if not self._play(seat, c, guess + 1):
                return guess
            lo = guess + 1
        while lo < hi:
            t = (lo + hi + 1) // 2
            if self._play(seat, c, t):
                lo = t
            else:
                hi = t - 1
        return lo

    def card_values(self) -> dict[str, int]:
        """For every legal card of the seat to play, the declaring side's tricks after it."""
        seat = self.to_play()
        v = self.value()
        reps = self._moves(seat, -1)
        vals: dict[int, int] = {}
        for c in reps:
            vals[c] = self._value_after(seat, c, v)
        return self._spread(seat, vals)

    def card_makes(self, target: int) -> dict[str, int]:
        """For every legal card of the seat to play: 1 if the declaring side still takes
        ``target`` tricks or more (the trick in progress included) after it, else 0. One
        null-window search a group of equivalent cards, where :meth:`card_values` needs a
        search on the count for each: what a bot needs when only a contract's fate matters."""
        seat = self.to_play()
        reps = self._moves(seat, -1)
        vals: dict[int, int] = {}
        for c in reps:
            vals[c] = 1 if self._play(seat, c, target) else 0
        return self._spread(seat, vals)

    def _spread(self, seat: int, vals: dict[int, int]) -> dict[str, int]:
        """``vals`` (one figure per searched card) for every legal card: a card shares the
        figure of the top of its run of equivalent cards, which was searched."""
        legal = self.legal(seat)
        out: dict[str, int] = {}
        hand = self.hands[seat]
        inplay = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        for i in range(self.tn):
            inplay |= 1 << self.tc[self.tb + i]
        x = legal
        while x:
            b = x & -x
            x ^= b
            c = b.bit_length() - 1
            # Walk up the run of equivalent cards to its top, which was searched.
            top = b
            while True:
                above = inplay & ~((top << 1) - 1)
                nxt = above & -above
                if nxt and (nxt & legal) and _same_suit(top, nxt) and (nxt & hand):
                    top = nxt
                else:
                    break
            out[card_name(c)] = vals[top.bit_length() - 1]
        return out


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
