"""Tiku: 6x6 board, six sliding pieces and fourteen discs a side. A piece slides like a rook
and lays its owner's discs on the square it left and on every square it crossed; the first
player to lay their last disc wins. Rules, options and notation,
the project's rulings included: ``docs/rules/tiku.md``.

Squares are indexed ``rank * 6 + file`` (``a1`` = 0, ``f1`` = 5, ``a2`` = 6, ``f6`` = 35).
The board is one flat list of 36 small ints, one per square (a square holding a piece never
holds a disc, so one code per square is enough):

* ``EMPTY`` (0);
* ``DISC + seat`` (1, 2): a disc of that seat;
* ``PIECE + seat`` (3, 4): a piece that may still make its diagonal move (diagonal variant;
  in the plain game the flag is simply never used);
* ``FLIPPED + seat`` (5, 6): a piece that has made its diagonal move and is turned over.

Exported for the bots (``core.ai``): :func:`move_list` and :func:`play_move` work on
encoded moves (``from * 36 + to``) without building JSON, with the same rules as
``decide`` + ``evolve``; :data:`RAYS`, :func:`square_name`, :func:`parse_square`.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any, Final

from core import wording
from core.api import (
    Game,
    IllegalMoveError,
    Obj,
    OptionsError,
    Outcome,
    check_seat,
    choice_field,
    require_obj,
    square_field,
)

SIZE: Final = 6
CELLS: Final = 36
PIECES: Final = 6
"""Pieces per side."""
DISCS: Final = 14
"""Discs per side (each round starts with all of them in hand)."""
FILES: Final = "abcdef"
SEAT_NAMES: Final[list[str]] = ["White", "Black"]
DEFAULT_TARGET: Final = 20

EMPTY: Final = 0
DISC: Final = 1
PIECE: Final = 3
FLIPPED: Final = 5

NO_SEAT: Final = -1
NO_SQUARE: Final = -1

# Kinds of the entries of a move's detail list (``square * 8 + kind``).
K_PLACED: Final = 0
"""The mover's disc was laid on an empty square."""
K_REPLACED: Final = 1
"""An opponent disc on a crossed square went back to its owner; the mover's disc replaced it."""
K_KEPT: Final = 2
"""The mover's own disc was already there and stayed."""
K_DEST: Final = 3
"""``K_DEST + seat``: the disc of ``seat`` on the destination square went back to its owner."""

COMMAND_TYPES: Final = "move, pass, resign"
REASONS: Final[list[str]] = ["last_disc", "blocked", "resign", "points", "move_cap", "timeout"]

# Directions: the first four are orthogonal, the last four diagonal.
_DIRS: Final[list[tuple[int, int]]] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
]


def square_name(i: int) -> str:
    """``0`` -> ``"a1"``, ``35`` -> ``"f6"``."""
    if not 0 <= i < CELLS:
        raise ValueError(f"no square with index {i}")
    return FILES[i % SIZE] + str(i // SIZE + 1)


def parse_square(s: Any) -> int:
    """``"a1"`` -> ``0``, ``"f6"`` -> ``35``: one spelling, the name :func:`square_name`
    gives (a lower-case file and a rank, nothing around them). Raises ``ValueError``."""
    if isinstance(s, str) and s in _INDEX:
        return _INDEX[s]
    if not isinstance(s, str):
        raise ValueError(f"a square is a string like 'c3', not {s!r}")
    raise ValueError(f"{s[:20]!r} is not a square: a lower-case file a-f and a rank 1-6, "
                     "nothing around them, e.g. 'c3'")


NAMES: Final[list[str]] = [square_name(i) for i in range(CELLS)]
_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(NAMES)}


def _rays() -> list[list[int]]:
    out: list[list[int]] = []
    for i in range(CELLS):
        f, r = i % SIZE, i // SIZE
        for df, dr in _DIRS:
            ray: list[int] = []
            nf, nr = f + df, r + dr
            while 0 <= nf < SIZE and 0 <= nr < SIZE:
                ray.append(nr * SIZE + nf)
                nf += df
                nr += dr
            out.append(ray)
    return out


RAYS: Final[list[list[int]]] = _rays()
"""``RAYS[square * 8 + d]``: the squares from ``square`` outwards in direction ``d``
(``d`` 0-3 orthogonal, 4-7 diagonal), nearest first."""


def _direction(frm: int, to: int) -> int:
    """Direction index from ``frm`` to ``to`` (orthogonal 0-3, diagonal 4-7), or -1."""
    return _DIRECTION[frm * CELLS + to]


def _compute_direction(frm: int, to: int) -> int:
    """Direction index from ``frm`` to ``to`` (orthogonal 0-3, diagonal 4-7), or -1."""
    df = to % SIZE - frm % SIZE
    dr = to // SIZE - frm // SIZE
    if df == 0 and dr == 0:
        return -1
    if df != 0 and dr != 0 and df != dr and df != -dr:
        return -1
    sf = (df > 0) - (df < 0)
    sr = (dr > 0) - (dr < 0)
    for d in range(8):
        if _DIRS[d][0] == sf and _DIRS[d][1] == sr:
            return d
    return -1


_DIRECTION: Final[list[int]] = [
    _compute_direction(i // CELLS, i % CELLS) for i in range(CELLS * CELLS)
]
"""``_DIRECTION[from * 36 + to]``: see :func:`_direction`."""


class TikuState:
    """The whole state of a Tiku game or match. Treated as immutable by the API: ``evolve``
    makes a new one (:func:`play_move` is the in-place fast path for bots).

    ``rounds`` (finished rounds, JSON summaries) may be shared between states: it is replaced,
    never changed in place. ``last`` is the detail list of the last move (see ``K_*``)."""

    def __init__(self) -> None:
        self.started: bool = False
        self.options: Obj = {}
        self.points: bool = False
        self.target: int = DEFAULT_TARGET
        self.diagonal: bool = False
        self.move_cap: int = 0
        self.cells: list[int] = [EMPTY] * CELLS
        self.hands: list[int] = [DISCS, DISCS]
        self.turn: int = NO_SEAT
        self.first: int = NO_SEAT
        self.round: int = 1
        self.match: list[int] = [0, 0]
        self.rounds: list[Obj] = []
        self.moves: int = 0
        self.last_seat: int = NO_SEAT
        self.last_from: int = NO_SQUARE
        self.last_to: int = NO_SQUARE
        self.last: list[int] = []
        self.over: bool = False
        self.winners: list[int] = []
        self.reason: str = ""

    def copy(self) -> TikuState:
        s = TikuState()
        s.started = self.started
        s.options = self.options
        s.points = self.points
        s.target = self.target
        s.diagonal = self.diagonal
        s.move_cap = self.move_cap
        s.cells = self.cells[:]
        s.hands = self.hands[:]
        s.turn = self.turn
        s.first = self.first
        s.round = self.round
        s.match = self.match[:]
        s.rounds = self.rounds
        s.moves = self.moves
        s.last_seat = self.last_seat
        s.last_from = self.last_from
        s.last_to = self.last_to
        s.last = self.last
        s.over = self.over
        s.winners = self.winners
        s.reason = self.reason
        return s


def _seat_name(seat: int) -> str:
    return SEAT_NAMES[seat] if 0 <= seat < 2 else f"seat {seat}"


def _fresh_board(s: TikuState) -> None:
    """Pieces on ranks 2 and 5, no discs, full hands, nothing flipped, no last move."""
    cells = [EMPTY] * CELLS
    for f in range(SIZE):
        cells[SIZE + f] = PIECE
        cells[4 * SIZE + f] = PIECE + 1
    s.cells = cells
    s.hands = [DISCS, DISCS]
    s.last_seat = NO_SEAT
    s.last_from = NO_SQUARE
    s.last_to = NO_SQUARE
    s.last = []


# -- move generation and the move itself (hot paths) -------------------------------------------


def _can_move(s: TikuState, seat: int) -> bool:
    """Whether ``seat`` has at least one legal move (a neighbouring square free of pieces)."""
    cells = s.cells
    own = PIECE + seat
    spare = FLIPPED + seat
    for sq in range(CELLS):
        c = cells[sq]
        if c == own or c == spare:
            ndirs = 8 if s.diagonal and c == own else 4
            base = sq * 8
            for d in range(ndirs):
                ray = RAYS[base + d]
                if ray and cells[ray[0]] < PIECE:
                    return True
    return False


def move_list(s: TikuState) -> list[int]:
    """Legal moves of the seat to move, encoded ``from * 36 + to``, in a fixed order (by
    start square, then direction, nearest first). Empty when nobody is to move."""
    out: list[int] = []
    seat = s.turn
    if seat < 0 or s.over:
        return out
    cells = s.cells
    own = PIECE + seat
    spare = FLIPPED + seat
    for sq in range(CELLS):
        c = cells[sq]
        if c == own or c == spare:
            ndirs = 8 if s.diagonal and c == own else 4
            base = sq * 8
            code = sq * CELLS
            for d in range(ndirs):
                for t in RAYS[base + d]:
                    if cells[t] >= PIECE:
                        break
                    out.append(code + t)
    return out


def _apply_move(s: TikuState, seat: int, frm: int, to: int) -> list[int]:
    """Slide the piece on ``frm`` to ``to`` (in place) and lay the discs; returns the detail
    list. The move is assumed legal. RULES.md, Tiku: a disc on the destination goes back to its
    owner first; then the start square and the crossed squares get the mover's disc in the order
    travelled (own discs stay, opponent discs go back to their owner); laying the last disc ends
    the round at once, so later squares get nothing."""
    cells = s.cells
    hands = s.hands
    detail: list[int] = []
    d = _direction(frm, to)
    piece = cells[frm]
    dest = cells[to]
    if dest == DISC or dest == DISC + 1:
        hands[dest - DISC] += 1
        detail.append(to * 8 + K_DEST + dest - DISC)
    if d >= 4:
        piece = FLIPPED + seat
    cells[to] = piece
    cells[frm] = EMPTY
    own = DISC + seat
    other = 1 - seat
    opp = DISC + other
    sq = frm
    ray = RAYS[frm * 8 + d]
    k = 0
    while sq != to:
        if hands[seat] == 0:
            break
        c = cells[sq]
        if c == own:
            detail.append(sq * 8 + K_KEPT)
        else:
            if c == opp:
                hands[other] += 1
                detail.append(sq * 8 + K_REPLACED)
            else:
                detail.append(sq * 8 + K_PLACED)
            cells[sq] = own
            hands[seat] -= 1
        sq = ray[k]
        k += 1
    s.moves += 1
    s.last_seat = seat
    s.last_from = frm
    s.last_to = to
    s.last = detail
    s.turn = other if hands[seat] > 0 else NO_SEAT
    return detail


# -- round and game ends -------------------------------------------------------------------------


def _end_round(s: TikuState, winners: list[int], reason: str) -> Obj:
    """Score a finished round (in place) and return its summary (the ``round_end`` event)."""
    points = [0, 0]
    if s.points and len(winners) == 1:
        w = winners[0]
        points[w] = s.hands[1 - w]
        s.match = [s.match[0] + points[0], s.match[1] + points[1]]
    summary: Obj = {
        "type": "round_end",
        "round": s.round,
        "winners": list(winners),
        "reason": reason,
        "hands": list(s.hands),
    }
    if s.points:
        summary["points"] = points
        summary["match"] = list(s.match)
    s.rounds = [*s.rounds, summary]
    s.turn = NO_SEAT
    return summary


def _next_first(s: TikuState, winners: list[int]) -> int:
    """Who moves first in the next round: the loser; after a drawn round, the player who did
    not move first in it (project ruling, docs/rules/tiku.md)."""
    if len(winners) == 1:
        return 1 - winners[0]
    return 1 - s.first


def _new_round(s: TikuState, number: int, first: int) -> None:
    _fresh_board(s)
    s.round = number
    s.first = first
    s.turn = first


def _finish(s: TikuState, winners: list[int], reason: str) -> None:
    s.over = True
    s.winners = list(winners)
    s.reason = reason
    s.turn = NO_SEAT


def _scores(s: TikuState) -> list[int]:
    return list(s.match) if s.points else list(s.hands)


def _game_over_event(s: TikuState) -> Obj:
    return {
        "type": "game_over",
        "winners": list(s.winners),
        "reason": s.reason,
        "scores": _scores(s),
    }


def _round_over(s: TikuState, winners: list[int], reason: str, events: list[Obj] | None) -> None:
    summary = _end_round(s, winners, reason)
    if events is not None:
        events.append(summary)
    if not s.points:
        _finish(s, winners, reason)
    elif s.match[0] >= s.target or s.match[1] >= s.target:
        _finish(s, [0 if s.match[0] >= s.target else 1], "points")
    else:
        first = _next_first(s, winners)
        _new_round(s, s.round + 1, first)
        if events is not None:
            events.append({"type": "next_round", "round": s.round, "first": first})
        return
    if events is not None:
        events.append(_game_over_event(s))


def _blocked_winners(s: TikuState) -> list[int]:
    """Neither side can move: fewer discs in hand wins, equal is a draw (RULES.md, Tiku)."""
    h0, h1 = s.hands[0], s.hands[1]
    if h0 == h1:
        return []
    return [0] if h0 < h1 else [1]


def _after_move(s: TikuState, seat: int, events: list[Obj] | None) -> None:
    """What follows a move: the round ends on the last disc; the move cap; else the opponent
    moves, or passes automatically if they cannot; if neither can move, the round is blocked."""
    if s.hands[seat] == 0:
        _round_over(s, [seat], "last_disc", events)
        return
    if s.move_cap > 0 and s.moves >= s.move_cap:
        _finish(s, [], "move_cap")
        if events is not None:
            events.append(_game_over_event(s))
        return
    other = 1 - seat
    if _can_move(s, other):
        return
    if _can_move(s, seat):
        s.turn = seat
        if events is not None:
            events.append({"type": "passed", "seat": other})
        return
    _round_over(s, _blocked_winners(s), "blocked", events)


def play_move(s: TikuState, move: int) -> None:
    """Play the encoded move (from :func:`move_list`) for the seat to move, in place, with
    everything that follows it (automatic pass, round end, next round, game end)."""
    seat = s.turn
    _apply_move(s, seat, move // CELLS, move % CELLS)
    _after_move(s, seat, None)


# -- JSON forms ----------------------------------------------------------------------------------


def _detail_json(seat: int, frm: int, to: int, detail: list[int]) -> Obj:
    returned: list[Obj] = []
    placed: list[str] = []
    kept: list[str] = []
    for entry in detail:
        sq = entry // 8
        kind = entry % 8
        if kind >= K_DEST:
            returned.append({"square": NAMES[sq], "seat": kind - K_DEST})
        elif kind == K_KEPT:
            kept.append(NAMES[sq])
        else:
            if kind == K_REPLACED:
                returned.append({"square": NAMES[sq], "seat": 1 - seat})
            placed.append(NAMES[sq])
    return {
        "seat": seat,
        "from": NAMES[frm],
        "to": NAMES[to],
        "diagonal": _direction(frm, to) >= 4,
        "placed": placed,
        "returned": returned,
        "kept": kept,
    }


def _detail_from_json(last: Obj) -> tuple[int, int, int, list[int]]:
    """Inverse of :func:`_detail_json` (for ``resample``)."""
    seat = int(last["seat"])
    frm = parse_square(last["from"])
    to = parse_square(last["to"])
    placed = [parse_square(x) for x in last["placed"]]
    kept = {parse_square(x) for x in last["kept"]}
    ret: dict[int, int] = {}
    for r in last["returned"]:
        ret[parse_square(r["square"])] = int(r["seat"])
    detail: list[int] = []
    if to in ret:
        detail.append(to * 8 + K_DEST + ret[to])
    d = _direction(frm, to)
    if d < 0:
        raise ValueError("last_move: from and to are not on one line")
    placed_set = set(placed)
    path = [frm, *RAYS[frm * 8 + d]]
    for sq in path:
        if sq == to:
            break
        if sq in kept:
            detail.append(sq * 8 + K_KEPT)
        elif sq in placed_set:
            detail.append(sq * 8 + (K_REPLACED if sq in ret else K_PLACED))
        else:
            break
    return seat, frm, to, detail


def _copy_summary(r: Obj) -> Obj:
    return {k: list(v) if isinstance(v, list) else v for k, v in r.items()}


def _check_options(raw: Any) -> Obj:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise OptionsError("Tiku options are a JSON object")
    known = ("seats", "points", "target", "diagonal", "move_cap")
    for key in raw:
        if key not in known:
            raise OptionsError(f"unknown Tiku option {key!r}; known: {', '.join(known)}")
    seats = raw.get("seats", 2)
    if not isinstance(seats, int) or isinstance(seats, bool) or seats != 2:
        raise OptionsError("Tiku is played by exactly 2 seats")
    points = raw.get("points", False)
    if not isinstance(points, bool):
        raise OptionsError("option 'points' is true or false")
    target = raw.get("target", DEFAULT_TARGET)
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 1000:
        raise OptionsError("option 'target' is a whole number of points from 1 to 1000")
    diagonal = raw.get("diagonal", False)
    if not isinstance(diagonal, bool):
        raise OptionsError("option 'diagonal' is true or false")
    move_cap = raw.get("move_cap", 0)
    if not isinstance(move_cap, int) or isinstance(move_cap, bool) or move_cap < 0:
        raise OptionsError("option 'move_cap' is a whole number of moves, 0 for none")
    return {
        "seats": 2,
        "points": points,
        "target": target,
        "diagonal": diagonal,
        "move_cap": move_cap,
    }


def _set_options(s: TikuState, opts: Obj) -> None:
    s.started = True
    s.options = opts
    s.points = bool(opts["points"])
    s.target = int(opts["target"])
    s.diagonal = bool(opts["diagonal"])
    s.move_cap = int(opts["move_cap"])


class TikuGame(Game):
    name = "tiku"
    min_seats = 2
    max_seats = 2

    # -- options and set-up ---------------------------------------------------------------

    def options(self, raw: Any) -> Obj:  # Any: wrong types are an OptionsError, compiled too
        return _check_options(raw)

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        opts = _check_options(options)
        return [
            {"type": "start", "options": opts},
            {"type": "first_player", "seat": rng.randrange(2)},
        ]

    def initial(self) -> TikuState:
        return TikuState()

    def title(self) -> str:
        return "Tiku"

    def blurb(self) -> str:
        return ("Slide your pieces across a 6x6 board, laying discs behind them. "
                "First to lay every disc wins.")

    def seat_labels(self, seats: int) -> list[str]:
        return ["Light", "Dark"][:seats]

    def option_fields(self) -> list[Obj]:
        points = choice_field("points", "Match of rounds for points",
                              [(False, "One game"), (True, "To 20"), ("to10", "To 10")])
        points["choices"][2]["options"] = {"points": True, "target": 10}
        return [
            choice_field("diagonal", "One diagonal slide per piece",
                         [(False, "Off"), (True, "On")]),
            points,
        ]

    def board(self) -> Obj:
        return {"drawing": "tiku", "step": "round", "sheet": False}

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        t = event.get("type")
        who = wording.seat_name(names, event.get("seat"))
        if t == "moved":
            return wording.moved(who, event, plain)
        if t == "passed":
            return f"{who} passed"
        if t == "first_player":
            return f"{who} starts"
        numbered = event.get("round") is not None
        if t == "round_end":
            won = [wording.seat_name(names, w) for w in event.get("winners") or []]
            r = f"Round {event.get('round')}" if numbered else "The round"
            return f"{r} to {wording.joined(won)}" if won else f"{r} is drawn"
        if t == "next_round":
            return f"Round {event['round']} starts" if numbered else "Next round"
        return None

    def reason_words(self) -> dict[str, str]:
        return {"last_disc": "every disc laid", "blocked": "no move left", "points": ""}

    def result_text(self, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
        """The score of a match for points; how many discs the loser had left in one game."""
        if not outcome:
            return ""
        o = wording.Ending(outcome, self.reason_words())
        if not o.winners:
            return wording.won([], "", o.paren)
        won, other = o.winners[0], 1 - o.winners[0]
        who = [wording.seat_name(names, w) for w in o.winners]
        if o.reason == "points" and len(o.scores) == 2:
            return wording.won(who, wording.score_pair(o.scores[won], o.scores[other]), o.paren)
        if len(o.scores) == 2 and len(o.winners) == 1:
            left = o.scores[other]
            discs = f"{left} disc{'s' if left != 1 else ''}"
            loser = wording.seat_name(names, other)
            return wording.won(who, "", f" ({o.why}; {loser} had {discs} left)")
        return wording.won(who, "", o.paren)

    def doing(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        return wording.doing_line(view, names, "moving a piece")

    def example_options(self) -> list[Obj]:
        return [
            {},
            {"points": True},
            {"diagonal": True},
            {"points": True, "diagonal": True, "target": 30},
        ]

    def seats(self, state: Any) -> int:
        return 2

    # -- evolve -----------------------------------------------------------------------------

    def evolve_game(self, state: Any, event: Obj) -> TikuState:
        s: TikuState = state
        kind = event["type"]
        n = s.copy()
        if kind == "moved":
            _apply_move(
                n, int(event["seat"]), parse_square(event["from"]), parse_square(event["to"])
            )
        elif kind == "passed":
            n.turn = 1 - int(event["seat"])
        elif kind == "round_end":
            _end_round(n, list(event["winners"]), str(event["reason"]))
        elif kind == "next_round":
            _new_round(n, int(event["round"]), int(event["first"]))
        elif kind == "game_over":
            _finish(n, list(event["winners"]), str(event["reason"]))
        elif kind == "resigned":
            pass
        elif kind == "first_player":
            seat = int(event["seat"])
            n.first = seat
            n.turn = seat
        elif kind == "start":
            n = TikuState()
            # (the options as validated by ``start``: never re-validated, see teeko.py)
            _set_options(n, dict(event["options"]))
            _fresh_board(n)
        else:
            raise ValueError(f"unknown Tiku event type {kind!r}")
        return n

    def end(self, state: Any, outcome: Outcome) -> TikuState:
        s: TikuState = state
        n = s.copy()
        _finish(n, outcome.winners, outcome.reason)
        return n

    # -- decide -----------------------------------------------------------------------------

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        # ``seat: Any`` so that a bad seat is a ``wrong_seat`` error also when compiled.
        s: TikuState = state
        seat = check_seat(self, s, seat)
        command = require_obj(command)
        kind: str = command["type"]
        if kind == "move":
            frm = square_field(command, "from", parse_square)
            to = square_field(command, "to", parse_square)
            self._check_turn(s, seat)
            return self._decide_move(s, seat, frm, to)
        if kind == "pass":
            self._check_turn(s, seat)
            if _can_move(s, seat):
                raise IllegalMoveError(
                    "illegal",
                    "you can move, so you may not pass (a pass is only for a player "
                    "with no legal move)",
                )
            n = s.copy()
            events: list[Obj] = [{"type": "passed", "seat": seat}]
            n.turn = 1 - seat
            if not _can_move(n, 1 - seat):
                _round_over(n, _blocked_winners(n), "blocked", events)
            return events
        if kind == "resign":
            self._check_running(s)
            n = s.copy()
            _finish(n, [1 - seat], "resign")
            return [{"type": "resigned", "seat": seat}, _game_over_event(n)]
        raise IllegalMoveError(
            "malformed", f"unknown command type {kind!r}; Tiku commands: {COMMAND_TYPES}"
        )

    def forfeit(self, state: Any, seat: Any) -> list[Obj]:
        s: TikuState = state
        seat = check_seat(self, s, seat)
        self._check_running(s)
        n = s.copy()
        _finish(n, [1 - seat], "timeout")
        return [_game_over_event(n)]

    def _check_running(self, s: TikuState) -> None:
        if s.over:
            raise IllegalMoveError("game_over", "the game is over")
        if not s.started or s.turn == NO_SEAT:
            raise IllegalMoveError("illegal", "the game has not started")

    def _check_turn(self, s: TikuState, seat: int) -> None:
        self._check_running(s)
        if seat != s.turn:
            raise IllegalMoveError("not_your_turn", f"it is {_seat_name(s.turn)}'s turn")

    def _decide_move(self, s: TikuState, seat: int, frm: int, to: int) -> list[Obj]:
        cells = s.cells
        c = cells[frm]
        if c < PIECE:
            raise IllegalMoveError("illegal", f"there is no piece on {NAMES[frm]}")
        if (c - PIECE) % 2 != seat:
            raise IllegalMoveError(
                "illegal", f"the piece on {NAMES[frm]} is {_seat_name(1 - seat)}'s"
            )
        if frm == to:
            raise IllegalMoveError("illegal", "a piece has to move at least one square")
        d = _direction(frm, to)
        if d < 0:
            raise IllegalMoveError(
                "illegal",
                f"{NAMES[frm]} to {NAMES[to]} is not a straight line: a piece slides along a "
                "rank or a file" + (" (or once along a diagonal)" if s.diagonal else ""),
            )
        if d >= 4:
            if not s.diagonal:
                raise IllegalMoveError(
                    "illegal",
                    "pieces move only along ranks and files (diagonal moves need the "
                    "'diagonal' option)",
                )
            if c >= FLIPPED:
                raise IllegalMoveError(
                    "illegal",
                    f"the piece on {NAMES[frm]} has already made its diagonal move (it is "
                    "turned over): it moves along ranks and files only",
                )
        for t in RAYS[frm * 8 + d]:
            if cells[t] >= PIECE:
                if t == to:
                    raise IllegalMoveError("illegal", f"{NAMES[to]} is occupied by a piece")
                raise IllegalMoveError(
                    "illegal", f"the piece on {NAMES[t]} blocks the way to {NAMES[to]}"
                )
            if t == to:
                break
        n = s.copy()
        detail = _apply_move(n, seat, frm, to)
        ev = _detail_json(seat, frm, to, detail)
        event: Obj = {"type": "moved"}
        event.update(ev)
        event["hands"] = list(n.hands)
        events: list[Obj] = [event]
        _after_move(n, seat, events)
        return events

    # -- queries ----------------------------------------------------------------------------

    def to_act(self, state: Any) -> list[int]:
        s: TikuState = state
        if s.over or not s.started or s.turn == NO_SEAT:
            return []
        return [s.turn]

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        s: TikuState = state
        if s.over or not s.started or s.turn == NO_SEAT or not 0 <= seat < 2:
            return []
        out: list[Obj] = []
        if seat == s.turn:
            for m in move_list(s):
                out.append({"type": "move", "from": NAMES[m // CELLS], "to": NAMES[m % CELLS]})
            if not out:
                out.append({"type": "pass"})
        out.append({"type": "resign"})
        return out

    def result_problem(self, state: Any, event: Obj) -> str | None:
        s: TikuState = state
        scores = [int(x) for x in event["scores"]]
        if not scores:
            return None
        if any(x < 0 for x in scores):
            return "Tiku scores are not negative"
        if not s.points:
            if any(x > DISCS for x in scores):
                return f"a Tiku score is the discs still in hand: 0 to {DISCS}"
            return None
        winners = event["winners"]
        if event["reason"] == "off_board" and winners and scores[winners[0]] < s.target:
            return (f"a match played to the end is won at {s.target} points: the winner "
                    f"has {scores[winners[0]]}")
        return None

    def outcome(self, state: Any) -> Outcome | None:
        s: TikuState = state
        if not s.over:
            return None
        return Outcome(s.winners, s.reason, _scores(s))

    def view(self, state: Any, viewer: int) -> Obj:
        s: TikuState = state
        pieces: list[Obj] = []
        discs: Obj = {}
        for sq in range(CELLS):
            c = s.cells[sq]
            if c >= PIECE:
                pieces.append(
                    {"square": NAMES[sq], "seat": (c - PIECE) % 2, "flipped": c >= FLIPPED}
                )
            elif c != EMPTY:
                discs[NAMES[sq]] = c - DISC
        last: Obj | None = None
        if s.last_seat != NO_SEAT:
            last = _detail_json(s.last_seat, s.last_from, s.last_to, s.last)
        outcome = self.outcome(s)
        return {
            "game": "tiku",
            "started": s.started,
            "options": dict(s.options),
            "pieces": pieces,
            "discs": discs,
            "hands": list(s.hands),
            "turn": s.turn if s.turn != NO_SEAT else None,
            "to_act": self.to_act(s),
            "first": s.first if s.first != NO_SEAT else None,
            "round": s.round,
            "match": list(s.match) if s.points else None,
            "rounds": [_copy_summary(r) for r in s.rounds],
            "moves": s.moves,
            "last_move": last,
            "outcome": outcome.to_json() if outcome is not None else None,
        }

    def redact(self, event: Obj, viewer: int) -> Obj:
        return event

    def secrets(self, state: Any, viewer: int) -> list[str]:
        return []

    def resample(self, view: Obj, viewer: int, rng: Random) -> TikuState:
        """The exact state: Tiku hides nothing. Only the structure of ``view`` is checked, so
        tests may also set up positions that cannot arise in play (e.g. a full board)."""
        s = TikuState()
        if not view.get("started"):
            return s
        _set_options(s, _check_options(view["options"]))
        cells = [EMPTY] * CELLS
        for p in view["pieces"]:
            seat = int(p["seat"])
            if seat not in (0, 1):
                raise ValueError(f"pieces: no seat {seat}")
            sq = parse_square(p["square"])
            if cells[sq] != EMPTY:
                raise ValueError(f"pieces: two pieces on {NAMES[sq]}")
            cells[sq] = (FLIPPED if p.get("flipped") else PIECE) + seat
        for name, seat in view["discs"].items():
            sq = parse_square(name)
            if cells[sq] != EMPTY:
                raise ValueError(f"discs: {NAMES[sq]} holds a piece")
            if seat not in (0, 1):
                raise ValueError(f"discs: no seat {seat}")
            cells[sq] = DISC + int(seat)
        s.cells = cells
        s.hands = [int(h) for h in view["hands"]]
        turn = view.get("turn")
        s.turn = int(turn) if turn is not None else NO_SEAT
        first = view.get("first")
        s.first = int(first) if first is not None else NO_SEAT
        s.round = int(view.get("round", 1))
        match = view.get("match")
        s.match = [int(m) for m in match] if isinstance(match, list) else [0, 0]
        s.rounds = [_copy_summary(r) for r in view.get("rounds", [])]
        s.moves = int(view.get("moves", 0))
        last = view.get("last_move")
        if isinstance(last, dict):
            s.last_seat, s.last_from, s.last_to, s.last = _detail_from_json(last)
        out = view.get("outcome")
        if isinstance(out, dict):
            s.over = True
            s.winners = [int(w) for w in out["winners"]]
            s.reason = str(out["reason"])
            s.turn = NO_SEAT
        return s


GAME: Final[TikuGame] = TikuGame()

__all__ = [
    "CELLS",
    "DISCS",
    "GAME",
    "NAMES",
    "RAYS",
    "TikuGame",
    "TikuState",
    "move_list",
    "parse_square",
    "play_move",
    "square_name",
]
