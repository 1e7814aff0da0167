"""Checks and speed of the Teka double-dummy solver (``core.teka_dd``).

``python -m bench.core_bench dd check --positions 10000``: random positions (full deals after the
first trick and mid-trick ones) solved by ``core.teka_dd`` and by DDS (Bo Haglund's solver,
through the ``endplay`` package, a dev dependency only), the side's tricks and every legal
card's figure compared; prints the differences (must be 0).

``python -m bench.core_bench dd speed --positions 1000``: the same positions with 12 tricks left
timed for both solvers: median, p95, max, nodes per second, and the median ratio.

``python -m bench.core_bench dd brute --positions 500``: small endings (<= 4 cards a hand, first
tricks and double-13 three-hand positions included) against :func:`brute_force`.

The position generator and the brute force live here so the tests use the same ones.
"""

from __future__ import annotations

import argparse
import statistics
import time
from random import Random
from typing import Any

from core.teka import DECK, SEATS, SUITS, TRICKS, playable_cards, side_of, trick_winner
from core.teka_dd import Position, Solver, solve, solve_cards


def _next(seat: int, sitting_out: int) -> int:
    s = (seat + 1) % SEATS
    return (s + 1) % SEATS if s == sitting_out else s


def random_position(
    rng: Random,
    cards_per_hand: int = 13,
    tricks_done: int = 1,
    in_trick: int = -1,
    double13: bool = False,
) -> Position:
    """Deal ``cards_per_hand`` cards to each playing seat, play ``tricks_done`` tricks and
    then ``in_trick`` cards (random if -1) of the next one with random legal cards (Teka's
    first-trick rules on trick one, from core.teka.playable_cards)."""
    trumps = rng.choice(SUITS)
    sitting_out = rng.randrange(SEATS) if double13 else -1
    players = 3 if double13 else 4
    deck = list(DECK)
    rng.shuffle(deck)
    hands: list[list[str]] = [[], [], [], []]
    pos = 0
    for s in range(SEATS):
        if s != sitting_out:
            hands[s] = deck[pos : pos + cards_per_hand]
            pos += cards_per_hand
    leader = rng.randrange(SEATS)
    if leader == sitting_out:
        leader = _next(leader, sitting_out)
    if double13:
        declarer = (sitting_out + 2) % SEATS
        leader = declarer
    side = rng.randrange(2) if not double13 else side_of((sitting_out + 2) % SEATS)
    done = 0
    if in_trick < 0:
        in_trick = rng.randrange(players)
    while True:
        first = done == 0
        trick: list[dict[str, Any]] = []
        seat = leader
        target = players if done < tricks_done else in_trick
        for _ in range(target):
            legal = playable_cards(hands[seat], trick, first, trumps, hands, seat, sitting_out)
            c = rng.choice(legal)
            hands[seat].remove(c)
            trick.append({"seat": seat, "card": c})
            seat = _next(seat, sitting_out)
        if done < tricks_done:
            leader = trick_winner(trick, trumps)
            done += 1
            continue
        return Position(
            hands,
            trumps,
            leader,
            [str(e["card"]) for e in trick],
            done == 0,
            sitting_out,
            side,
        )


def brute_force(pos: Position) -> dict[str, int]:
    """Plain minimax over every legal card (core.teka's rule functions, no pruning, no
    table): the declaring side's tricks after each legal card of the seat to play."""
    hands = [list(h) for h in pos.hands]
    trick: list[dict[str, Any]] = []
    seat = pos.leader
    for c in pos.trick:
        trick.append({"seat": seat, "card": c})
        seat = _next(seat, pos.sitting_out)
    players = 3 if pos.sitting_out >= 0 else 4

    def value(trick: list[dict[str, Any]], seat: int, first: bool) -> int:
        if len(trick) == players:
            w = trick_winner(trick, pos.trumps)
            won = 1 if side_of(w) == pos.side else 0
            if not hands[w]:
                return won
            return won + value([], w, False)
        vals = after(trick, seat, first)
        if side_of(seat) == pos.side:
            return max(vals.values())
        return min(vals.values())

    def after(trick: list[dict[str, Any]], seat: int, first: bool) -> dict[str, int]:
        out: dict[str, int] = {}
        legal = playable_cards(hands[seat], trick, first, pos.trumps, hands, seat, pos.sitting_out)
        for c in legal:
            hands[seat].remove(c)
            out[c] = value([*trick, {"seat": seat, "card": c}], _next(seat, pos.sitting_out), first)
            hands[seat].append(c)
        return out

    return after(trick, seat, pos.first_trick)


# -- DDS through endplay ----------------------------------------------------------------------


def to_endplay(pos: Position) -> Any:
    """An endplay Deal for a four-hand position after the first trick: seats 0-3 are
    N, E, S, W (Teka and bridge both turn clockwise), the Teka suits map to the same suits,
    and the cards of the trick in progress are played into the deal."""
    from endplay.types import Card, Deal, Denom, Player

    if pos.sitting_out >= 0 or pos.first_trick:
        raise ValueError("DDS cannot express a double 13 or Teka's first trick")
    hands = [list(h) for h in pos.hands]
    seat = pos.leader
    for c in pos.trick:
        hands[seat].append(c)
        seat = _next(seat, -1)
    pbn = "N:" + " ".join(
        ".".join("".join(c[0] for c in _by_rank(h) if c[1] == su) for su in SUITS) for h in hands
    )
    deal = Deal(pbn, first=Player(pos.leader), trump=Denom(SUITS.index(pos.trumps)))
    for c in pos.trick:
        deal.play(Card(c[1] + c[0]))
    return deal


def _by_rank(cards: list[str]) -> list[str]:
    order = "AKQJT98765432"
    return sorted(cards, key=lambda c: order.index(c[0]))


def dds_cards(pos: Position) -> dict[str, int]:
    """DDS's figure for every legal card, as the declaring side's tricks."""
    from endplay.dds import solve_board

    deal = to_endplay(pos)
    seat = pos.to_play()
    left = len(pos.hands[seat])
    out: dict[str, int] = {}
    for card, tricks in solve_board(deal):
        name = "23456789TJQKA"[int(card.rank).bit_length() - 3] + SUITS[int(card.suit)]
        out[name] = tricks if side_of(seat) == pos.side else left - tricks
    return out


def dds_value(pos: Position) -> int:
    """DDS's figure for the position (one optimal card), as the declaring side's tricks."""
    from endplay.dds.solve import SolveMode, solve_board

    deal = to_endplay(pos)
    seat = pos.to_play()
    left = len(pos.hands[seat])
    best = -1
    for _card, tricks in solve_board(deal, SolveMode.OptimalOne):
        best = tricks
    return best if side_of(seat) == pos.side else left - best


# -- commands ---------------------------------------------------------------------------------


def check(args: argparse.Namespace) -> int:
    rng = Random(args.seed)
    solver = Solver()
    diffs = 0
    t0 = time.perf_counter()
    for i in range(args.positions):
        first_done = TRICKS - args.max_left
        tricks_done = rng.randrange(first_done, TRICKS - 1) if i % 2 else first_done
        pos = random_position(rng, tricks_done=tricks_done)
        mine = solve_cards(pos, solver)
        value = solve(pos, solver)
        ref = dds_cards(pos)
        best = max(ref.values()) if side_of(pos.to_play()) == pos.side else min(ref.values())
        if mine != ref or value != best:
            diffs += 1
            print(f"difference at position {i}: hands {pos.hands} trumps {pos.trumps} leader "
                  f"{pos.leader} trick {pos.trick} side {pos.side}: solver {value} {mine}, "
                  f"DDS {ref}")
    dt = time.perf_counter() - t0
    print(f"{args.positions} positions against DDS (seed {args.seed}, at most "
          f"{args.max_left} tricks left), {dt:.1f} s: "
          f"{diffs} differences")
    return 1 if diffs else 0


def brute(args: argparse.Namespace) -> int:
    rng = Random(args.seed)
    diffs = 0
    for i in range(args.positions):
        kind = i % 3
        n = rng.randrange(1, 5)
        if kind == 0:
            pos = random_position(rng, cards_per_hand=n, tricks_done=0, in_trick=rng.randrange(4))
        elif kind == 1:
            pos = random_position(rng, cards_per_hand=n, tricks_done=0, double13=True)
        else:
            pos = random_position(rng, cards_per_hand=n + 1, tricks_done=1)
        if solve_cards(pos) != brute_force(pos):
            diffs += 1
            print(f"difference at position {i}: {pos.hands} {pos.trumps} {pos.trick}")
    print(f"{args.positions} small endings against brute force (seed {args.seed}): "
          f"{diffs} differences")
    return 1 if diffs else 0


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def speed(args: argparse.Namespace) -> int:
    from endplay.dds.solve import SolveMode, solve_board

    rng = Random(args.seed)
    positions = [random_position(rng, tricks_done=1, in_trick=0) for _ in range(args.positions)]
    mine: list[float] = []
    nodes = 0
    for pos in positions:
        s = Solver()
        t = time.perf_counter()
        solve(pos, s)
        mine.append(time.perf_counter() - t)
        nodes += s.nodes
    dds: list[float] = []
    for pos in positions:
        deal = to_endplay(pos)
        t = time.perf_counter()
        solve_board(deal, SolveMode.OptimalOne)
        dds.append(time.perf_counter() - t)
    import core.teka_dd as mod

    compiled = not str(mod.__file__).endswith(".py")
    print(f"{len(positions)} positions, 12 tricks left, seed {args.seed}; "
          f"solver {'compiled' if compiled else 'pure Python'}")
    for name, xs in (("teka_dd", mine), ("DDS", dds)):
        print(f"  {name:8s} median {statistics.median(xs) * 1000:9.2f} ms  p95 "
              f"{_pct(xs, 0.95) * 1000:9.2f} ms  max {max(xs) * 1000:9.2f} ms  "
              f"total {sum(xs):8.2f} s")
    print(f"  teka_dd nodes {nodes}, {nodes / sum(mine):,.0f} nodes/s")
    ratio = statistics.median(mine) / statistics.median(dds)
    print(f"  median ratio teka_dd / DDS: {ratio:.1f}x (target <= 10x)")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench dd", description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["check", "speed", "brute"])
    ap.add_argument("--positions", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--max-left", type=int, default=12, choices=range(1, 13), metavar="1..12",
        help="check: at most this many tricks left (12: whole deals after trick one)",
    )
    args = ap.parse_args(argv)
    if not args.positions:
        args.positions = {"check": 10000, "speed": 1000, "brute": 500}[args.what]
    return {"check": check, "speed": speed, "brute": brute}[args.what](args)
