"""Tiku bot: UCT Monte Carlo tree search on the fast Tiku form (``core.tiku.move_list`` /
``play_move`` on states rebuilt from the seat's view by ``GAME.resample``). See docs/ai.md,
section Tiku.

* At the root, a move that lays the last disc wins at once and is always taken.
* The tree is kept in flat lists; each node stores its state, the seat that moved into it,
  its visits and the sum of results from that seat's point of view.
* Playouts: a move that wins at once is taken; otherwise two random moves are drawn and the
  one with the better disc balance is played (discs laid plus opponent discs sent home).
  After ``depth`` plies the position is scored from the hands (fewer discs in hand is
  better). In points play a won round is worth more the more discs the loser still holds.
* Budget: iterations (per level) or the caller's ``should_stop``; ``progress`` gets the share
  of the iteration budget used. With a fixed iteration budget and a seeded ``rng`` the choice
  is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random
from typing import Final

from core.ai.base import Bot
from core.api import Obj
from core.tiku import CELLS, DISCS, GAME, NAMES, TikuState, move_list, play_move

DISC0: Final = 1
"""Board code of a disc of seat 0 (``core.tiku.DISC``)."""
MAX_LAID: Final = 5
"""A slide crosses at most five squares before its landing square: no move lays more."""


def path_step(frm: int, to: int) -> int:
    """Square index step from ``frm`` towards ``to`` (same rank, file or diagonal)."""
    dr = to // 6 - frm // 6
    df = to % 6 - frm % 6
    sr = (dr > 0) - (dr < 0)
    sf = (df > 0) - (df < 0)
    return sr * 6 + sf


def move_gain(cells: list[int], seat: int, move: int, hand: int) -> int:
    """Disc balance of ``move`` for ``seat``: discs laid + opponent discs sent home on the
    path, +1 for an opponent disc on the landing square, -1 for an own disc there. A move
    that lays the last disc returns 1000."""
    frm = move // CELLS
    to = move % CELLS
    step = path_step(frm, to)
    own = DISC0 + seat
    opp = DISC0 + 1 - seat
    dest = cells[to]
    need = hand + (1 if dest == own else 0)
    laid = 0
    sent = 0
    sq = frm
    while sq != to:
        c = cells[sq]
        if c != own:
            laid += 1
            if c == opp:
                sent += 1
        sq += step
    if laid >= need:
        return 1000
    gain = laid + sent
    if dest == opp:
        gain += 1
    elif dest == own:
        gain -= 1
    return gain


def winning_move(s: TikuState, moves: list[int]) -> int:
    """A move of the seat to act that lays its last disc, or -1."""
    seat = s.turn
    hand = s.hands[seat]
    if hand > MAX_LAID:
        return -1
    for m in moves:
        if move_gain(s.cells, seat, m, hand) >= 1000:
            return m
    return -1


class TikuLevel:
    def __init__(self, iterations: int, depth: int = 24, c: float = 0.9) -> None:
        self.iterations = iterations
        self.depth = depth
        """Playouts stop after this many plies and are scored from the hands."""
        self.c = c
        """UCT exploration constant."""


TIKU_LEVELS: Final[dict[str, TikuLevel]] = {
    "easy": TikuLevel(60, depth=8),
    "medium": TikuLevel(600),
    "hard": TikuLevel(3000),
}


def round_value(s: TikuState, seat: int, round_no: int) -> float:
    """Result for ``seat`` once the round ``round_no`` has ended (or the game is over)."""
    if s.over and s.round == round_no and (not s.rounds or s.rounds[-1]["round"] != round_no):
        # Ended without a round summary (move cap, resign): a draw for the search.
        return 0.5
    summary = s.rounds[-1] if s.rounds else None
    if summary is None:
        return 0.5
    winners = summary["winners"]
    if not winners:
        return 0.5
    hands = summary["hands"]
    if not s.points:
        return 1.0 if winners[0] == seat else 0.0
    if winners[0] == seat:
        return 0.75 + 0.25 * int(hands[1 - seat]) / DISCS
    return 0.25 - 0.25 * int(hands[seat]) / DISCS


def hands_value(s: TikuState, seat: int) -> float:
    """Heuristic result for ``seat`` from the discs in hand (fewer is better)."""
    d = s.hands[1 - seat] - s.hands[seat]
    return 1.0 / (1.0 + math.exp(-0.35 * d))


class TikuSearch:
    def __init__(self, root: TikuState, level: TikuLevel, rng: Random) -> None:
        self.level = level
        self.rng = rng
        self.round_no = root.round
        self.states: list[TikuState] = [root]
        self.mover: list[int] = [1 - root.turn]
        self.visits: list[int] = [0]
        self.total: list[float] = [0.0]
        self.children: list[list[int]] = [[]]
        self.untried: list[list[int]] = [self.moves_of(root)]
        self.move: list[int] = [-1]
        self.parent: list[int] = [-1]
        self.terminal: list[bool] = [False]

    def moves_of(self, s: TikuState) -> list[int]:
        if s.over or s.round != self.round_no:
            return []
        return move_list(s)

    def ended(self, s: TikuState) -> bool:
        return s.over or s.round != self.round_no

    def add(self, parent: int, move: int) -> int:
        s = self.states[parent].copy()
        mover = s.turn
        play_move(s, move)
        node = len(self.states)
        self.states.append(s)
        self.mover.append(mover)
        self.visits.append(0)
        self.total.append(0.0)
        self.children.append([])
        done = self.ended(s)
        self.untried.append([] if done else self.moves_of(s))
        self.move.append(move)
        self.parent.append(parent)
        self.terminal.append(done)
        self.children[parent].append(node)
        return node

    def select(self, node: int) -> int:
        logn = math.log(self.visits[node] + 1)
        best = -1
        best_v = -1e18
        c = self.level.c
        for ch in self.children[node]:
            n = self.visits[ch]
            v = self.total[ch] / n + c * math.sqrt(logn / n)
            if v > best_v:
                best_v = v
                best = ch
        return best

    def playout(self, s: TikuState) -> TikuState:
        rng = self.rng
        for _ in range(self.level.depth):
            if self.ended(s):
                break
            moves = move_list(s)
            if not moves:
                break
            seat = s.turn
            hand = s.hands[seat]
            win = winning_move(s, moves)
            if win >= 0:
                play_move(s, win)
                break
            a = moves[rng.randrange(len(moves))]
            b = moves[rng.randrange(len(moves))]
            if move_gain(s.cells, seat, b, hand) > move_gain(s.cells, seat, a, hand):
                a = b
            play_move(s, a)
        return s

    def value_for(self, s: TikuState, seat: int) -> float:
        if self.ended(s):
            return round_value(s, seat, self.round_no)
        return hands_value(s, seat)

    def iterate(self) -> None:
        node = 0
        while not self.untried[node] and self.children[node] and not self.terminal[node]:
            node = self.select(node)
        if self.untried[node] and not self.terminal[node]:
            moves = self.untried[node]
            i = self.rng.randrange(len(moves))
            m = moves[i]
            moves[i] = moves[-1]
            moves.pop()
            node = self.add(node, m)
        if self.terminal[node]:
            end = self.states[node]
        else:
            end = self.playout(self.states[node].copy())
        v0 = self.value_for(end, 0)
        while node >= 0:
            self.visits[node] += 1
            self.total[node] += v0 if self.mover[node] == 0 else 1.0 - v0
            node = self.parent[node]

    def best_move(self) -> int:
        best = -1
        best_key = (-1, -1.0)
        for ch in self.children[0]:
            n = self.visits[ch]
            key = (n, self.total[ch] / n if n else 0.0)
            if key > best_key:
                best_key = key
                best = ch
        return self.move[best]


def choose_move(
    state: TikuState,
    level: TikuLevel,
    rng: Random,
    should_stop: Callable[[], bool] | None = None,
    progress: Callable[[float], None] | None = None,
) -> int:
    """The encoded move (``from * 36 + to``) the bot plays for the seat to act."""
    moves = move_list(state)
    if not moves:
        return -1
    win = winning_move(state, moves)
    if win >= 0 or len(moves) == 1:
        if progress is not None:
            progress(1.0)
        return win if win >= 0 else moves[0]
    search = TikuSearch(state.copy(), level, rng)
    budget = level.iterations
    for i in range(budget):
        if i > 0 and i % 32 == 0:
            if should_stop is not None and should_stop():
                break
            if progress is not None:
                progress(i / budget)
        search.iterate()
    if progress is not None:
        progress(1.0)
    return search.best_move()


class TikuBot(Bot):
    """MCTS bot for Tiku (plain, points and diagonal variants)."""

    def __init__(self, level: str, cfg: TikuLevel | None = None) -> None:
        super().__init__(GAME, level)
        self.cfg = cfg if cfg is not None else TIKU_LEVELS[level]

    def choose(
        self,
        view: Obj,
        seat: int,
        rng: Random,
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> Obj:
        state = GAME.resample(view, seat, rng)
        if state.over or state.turn != seat:
            raise ValueError(f"seat {seat} is not to move")
        m = choose_move(state, self.cfg, rng, should_stop, progress)
        if m < 0:
            return {"type": "pass"}
        return {"type": "move", "from": NAMES[m // CELLS], "to": NAMES[m % CELLS]}


__all__ = ["TIKU_LEVELS", "TikuBot", "TikuLevel", "choose_move", "move_gain"]
