"""Teeko: 5x5 board, four pieces each, placed then moved like kings; four in a row or the
four corners of a square wins. Rules and notation: ``docs/rules/teeko.md``.

Squares are indexed ``rank * 5 + file`` (``a1`` = 0, ``e1`` = 4, ``a2`` = 5, ``e5`` = 24) and
each side's pieces are one 25-bit int, so a side has a winning pattern exactly when its bits
equal one of the pattern masks.

Exported for the bots (``core.ai``): :func:`pattern_masks`, :data:`NEIGHBOURS`,
:func:`square_name`, :func:`parse_square`, :data:`PATTERN_SETS`, :data:`PIECES`.
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

SIZE: Final = 5
CELLS: Final = 25
PIECES: Final = 4
"""Pieces per side."""
FILES: Final = "abcde"
SEAT_NAMES: Final[list[str]] = ["White", "Black"]
SEAT_CHARS: Final[list[str]] = ["W", "B"]
EMPTY_CHAR: Final = "."
PATTERN_SETS: Final[list[str]] = ["axis", "tilted", "classic"]
"""Values of the ``squares`` option; the first is the default."""

NO_SEAT: Final = -1
NO_SQUARE: Final = -1
PLACE_PLIES: Final = 2 * PIECES
"""Plies of the placement phase: from ply 8 on, every turn is a move."""

COMMAND_TYPES: Final = "place, move, resign, offer_draw, accept_draw, decline_draw"


SQUARE_NAMES: Final[list[str]] = [FILES[i % SIZE] + str(i // SIZE + 1) for i in range(CELLS)]
"""``SQUARE_NAMES[i]`` is :func:`square_name` of ``i``."""
_SQUARE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square_name(i: int) -> str:
    """``0`` -> ``"a1"``, ``24`` -> ``"e5"``."""
    if not 0 <= i < CELLS:
        raise ValueError(f"no square with index {i}")
    return SQUARE_NAMES[i]


def parse_square(s: str) -> int:
    """``"a1"`` -> ``0``, ``"e5"`` -> ``24``: one spelling, the name :func:`square_name`
    gives (a lower-case file and a rank, nothing around them; a person's typing is read by
    ``core.cli``). Raises ``ValueError``."""
    if not isinstance(s, str):
        raise ValueError(f"a square is a string like 'c3', not {s!r}")
    i = _SQUARE_INDEX.get(s, -1)
    if i >= 0:
        return i
    raise ValueError(f"{s[:20]!r} is not a square: a lower-case file a-e and a rank 1-5, "
                     "nothing around them, e.g. 'c3'")


def _bit(file: int, rank: int, size: int = SIZE) -> int:
    return 1 << (rank * size + file)


def neighbour_masks(size: int = SIZE) -> list[int]:
    """Per square of a ``size`` x ``size`` board (index ``rank * size + file``), the mask of
    the squares a king step away. ``NEIGHBOURS`` is this for the 5x5 board."""
    out: list[int] = []
    for i in range(size * size):
        f, r = i % size, i // size
        m = 0
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if (df != 0 or dr != 0) and 0 <= f + df < size and 0 <= r + dr < size:
                    m |= _bit(f + df, r + dr, size)
        out.append(m)
    return out


NEIGHBOURS: Final[list[int]] = neighbour_masks()
"""``NEIGHBOURS[i]``: mask of the squares a king step away from square ``i``."""


def _lines(size: int = SIZE, length: int = PIECES) -> list[int]:
    """The lines of ``length`` on a ``size`` board: horizontal, vertical, then diagonal (28
    lines of four on 5x5: 10 horizontal, 10 vertical, 8 diagonal)."""
    out: list[int] = []
    for df, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for r in range(size):
            for f in range(size):
                ef, er = f + (length - 1) * df, r + (length - 1) * dr
                if 0 <= ef < size and 0 <= er < size:
                    m = 0
                    for k in range(length):
                        m |= _bit(f + k * df, r + k * dr, size)
                    out.append(m)
    return out


def _squares(a: int, b: int, size: int = SIZE) -> list[int]:
    """Every square with side vector ``(a, b)``: corners p, p+(a,b), p+(a-b,a+b), p+(-b,a).
    ``(s, 0)`` is the axis-aligned square of side ``s``."""
    out: list[int] = []
    for r in range(size):
        for f in range(size):
            corners = [(f, r), (f + a, r + b), (f + a - b, r + b + a), (f - b, r + a)]
            if all(0 <= cf < size and 0 <= cr < size for cf, cr in corners):
                m = 0
                for cf, cr in corners:
                    m |= _bit(cf, cr, size)
                out.append(m)
    return out


def build_patterns(squares: str, size: int = SIZE, pieces: int = PIECES) -> list[int]:
    """The winning patterns of pattern set ``squares`` on a ``size`` x ``size`` board with
    ``pieces`` pieces a side: the lines of ``pieces``, and with four pieces the squares of the
    set (``classic`` 2x2 only, ``axis`` upright squares of any side, ``tilted`` also tilted
    ones). Smaller boards and piece counts are for the solver's tests."""
    out = _lines(size, pieces)
    if pieces != 4:
        return out
    if squares == "classic":
        return out + _squares(1, 0, size)
    for s in range(1, size):
        out += _squares(s, 0, size)
    if squares == "tilted":
        for a in range(1, size):
            for b in range(1, size - a + 1):
                if a + b <= size - 1:
                    out += _squares(a, b, size)
    return out


_PATTERNS: Final[dict[str, list[int]]] = {name: build_patterns(name) for name in PATTERN_SETS}
_PATTERN_LOOKUP: Final[dict[str, set[int]]] = {
    name: set(masks) for name, masks in _PATTERNS.items()
}


def pattern_masks(squares: str) -> list[int]:
    """The winning patterns of a ``squares`` option value as 25-bit masks (a fresh list):
    ``axis`` 58, ``tilted`` 78, ``classic`` 44. Raises ``ValueError`` for another name."""
    if squares not in _PATTERNS:
        raise ValueError(f"unknown pattern set {squares!r}; one of {', '.join(PATTERN_SETS)}")
    return list(_PATTERNS[squares])


def mask_squares(mask: int) -> list[str]:
    """Names of the squares set in ``mask``, in index order."""
    names = SQUARE_NAMES
    return [names[i] for i in range(CELLS) if mask >> i & 1]


def _rank_tables() -> tuple[list[str], dict[str, int]]:
    """Rank strings by ``white5 << 5 | black5`` and back (five squares of one rank)."""
    names: list[str] = []
    parse: dict[str, int] = {}
    for code in range(1 << (2 * SIZE)):
        w, b = code >> SIZE, code & ((1 << SIZE) - 1)
        row = ""
        for f in range(SIZE):
            row += "W" if w >> f & 1 else "B" if b >> f & 1 else EMPTY_CHAR
        names.append(row)
        if not w & b:
            parse[row] = code
    return names, parse


_RANK_NAMES, _RANK_CODES = _rank_tables()
_RANK_MASK: Final = (1 << SIZE) - 1


def board_ranks(white: int, black: int) -> list[str]:
    """Five strings, rank 5 first (the top row as printed), files a-e: ``W``, ``B``, ``.``."""
    rows: list[str] = []
    for r in range(SIZE - 1, -1, -1):
        shift = r * SIZE
        rows.append(
            _RANK_NAMES[(white >> shift & _RANK_MASK) << SIZE | black >> shift & _RANK_MASK]
        )
    return rows


def _parse_ranks(rows: Any) -> tuple[int, int]:
    if not isinstance(rows, list) or len(rows) != SIZE:
        raise ValueError("board: five rank strings expected")
    white = black = 0
    for k, row in enumerate(rows):
        code = _RANK_CODES.get(row, -1) if isinstance(row, str) else -1
        if code < 0:
            raise ValueError(f"board: {row!r} is not a rank (five of W, B, .)")
        shift = (SIZE - 1 - k) * SIZE
        white |= (code >> SIZE) << shift
        black |= (code & _RANK_MASK) << shift
    return white, black


def position_key(white: int, black: int, turn: int) -> int:
    """One int per position and side to move (the repetition rule compares these)."""
    return white | black << CELLS | turn << (2 * CELLS)


def position_name(key: int) -> str:
    """``"...../...../..W../.B.../..... 1"``: ranks 5..1, then the seat to move."""
    full = (1 << CELLS) - 1
    ranks = board_ranks(key & full, key >> CELLS & full)
    return "/".join(ranks) + " " + str(key >> (2 * CELLS))


def parse_position(name: str) -> int:
    """Inverse of :func:`position_name`. Raises ``ValueError``."""
    if not isinstance(name, str) or " " not in name:
        raise ValueError(f"not a position: {name!r}")
    board, turn = name.split(" ", 1)
    if turn not in ("0", "1"):
        raise ValueError(f"not a position: {name!r}")
    white, black = _parse_ranks(board.split("/"))
    return position_key(white, black, int(turn))


class TeekoState:
    """The whole state of a Teeko game. Treated as immutable: ``evolve`` makes a new one.

    ``history`` (position keys) and ``history_names`` (the same, as :func:`position_name`)
    may be shared between states (they are only ever appended to); a state owns their first
    ``hist_len`` entries: the positions since the last placement, kept only with the
    repetition rule.
    """

    def __init__(self) -> None:
        self.started: bool = False
        self.options: Obj = {}
        self.squares: str = PATTERN_SETS[0]
        self.patterns: set[int] = _PATTERN_LOOKUP[PATTERN_SETS[0]]
        self.repetition: bool = False
        self.move_cap: int = 0
        self.white: int = 0
        self.black: int = 0
        self.turn: int = 0
        self.ply: int = 0
        self.last_seat: int = NO_SEAT
        self.last_from: int = NO_SQUARE
        self.last_to: int = NO_SQUARE
        self.draw_offer: int = NO_SEAT
        self.over: bool = False
        self.winner: int = NO_SEAT
        self.reason: str = ""
        self.win_mask: int = 0
        self.history: list[int] = []
        self.history_names: list[str] = []
        self.hist_len: int = 0

    def copy(self) -> TeekoState:
        s = TeekoState()
        s.started = self.started
        s.options = self.options
        s.squares = self.squares
        s.patterns = self.patterns
        s.repetition = self.repetition
        s.move_cap = self.move_cap
        s.white = self.white
        s.black = self.black
        s.turn = self.turn
        s.ply = self.ply
        s.last_seat = self.last_seat
        s.last_from = self.last_from
        s.last_to = self.last_to
        s.draw_offer = self.draw_offer
        s.over = self.over
        s.winner = self.winner
        s.reason = self.reason
        s.win_mask = self.win_mask
        s.history = self.history
        s.history_names = self.history_names
        s.hist_len = self.hist_len
        return s

    def pieces(self, seat: int) -> int:
        return self.white if seat == 0 else self.black

    def placing(self) -> bool:
        return self.ply < PLACE_PLIES

    def in_hand(self, seat: int) -> int:
        """Pieces ``seat`` still has to place (White places on even plies)."""
        if self.ply >= PLACE_PLIES:
            return 0
        placed = (self.ply + 1) // 2 if seat == 0 else self.ply // 2
        return PIECES - placed

    def repeats(self, key: int) -> int:
        """How often ``key`` occurs among this state's recorded positions."""
        n = 0
        h = self.history
        for k in range(self.hist_len):
            if h[k] == key:
                n += 1
        return n

    def push_history(self, key: int, reset: bool) -> None:
        name = position_name(key)
        if reset:
            self.history = [key]
            self.history_names = [name]
            self.hist_len = 1
            return
        if len(self.history) != self.hist_len:  # shared with a later branch: copy our part
            self.history = self.history[: self.hist_len]
            self.history_names = self.history_names[: self.hist_len]
        self.history.append(key)
        self.history_names.append(name)
        self.hist_len += 1


def _seat_name(seat: int) -> str:
    return SEAT_NAMES[seat] if 0 <= seat < 2 else f"seat {seat}"


def _finish(n: TeekoState, winners: list[int], reason: str) -> None:
    n.over = True
    n.winner = winners[0] if winners else NO_SEAT
    n.reason = reason
    n.draw_offer = NO_SEAT


def _game_over(winners: list[int], reason: str) -> Obj:
    return {"type": "game_over", "winners": winners, "reason": reason}


class TeekoGame(Game):
    name = "teeko"
    min_seats = 2
    max_seats = 2

    # -- options and set-up ---------------------------------------------------------------

    def options(self, raw: Any) -> Obj:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise OptionsError("Teeko options are a JSON object")
        known = ("seats", "squares", "repetition", "move_cap")
        for key in raw:
            if key not in known:
                raise OptionsError(f"unknown Teeko option {key!r}; known: {', '.join(known)}")
        seats = raw.get("seats", 2)
        if not isinstance(seats, int) or isinstance(seats, bool) or seats != 2:
            raise OptionsError("Teeko is played by exactly 2 seats")
        squares = raw.get("squares", PATTERN_SETS[0])
        if not isinstance(squares, str) or squares not in PATTERN_SETS:
            raise OptionsError(f"option 'squares' is one of {', '.join(PATTERN_SETS)}")
        repetition = raw.get("repetition", False)
        if not isinstance(repetition, bool):
            raise OptionsError("option 'repetition' is true or false")
        move_cap = raw.get("move_cap", 0)
        if not isinstance(move_cap, int) or isinstance(move_cap, bool) or move_cap < 0:
            raise OptionsError("option 'move_cap' is a whole number of plies, 0 for none")
        return {"seats": 2, "squares": squares, "repetition": repetition, "move_cap": move_cap}

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        return [{"type": "start", "options": self.options(options)}]

    def initial(self) -> TeekoState:
        return TeekoState()

    def title(self) -> str:
        return "Teeko"

    def blurb(self) -> str:
        return ("Four pieces each on a 5x5 board: place them, then slide. "
                "Four in a row or on the corners of a square wins.")

    def seat_labels(self, seats: int) -> list[str]:
        return ["White", "Black"][:seats]

    def option_fields(self) -> list[Obj]:
        return [
            choice_field("squares", "Squares that win", [("axis", "Any size"),
                         ("tilted", "+ tilted"), ("classic", "2x2 only")]),
            choice_field("repetition", "Draw on threefold repetition",
                         [(False, "Off"), (True, "On")]),
            choice_field("move_cap", "Move limit", [(0, "None"), (200, "200 plies")]),
        ]

    def board(self) -> Obj:
        return {"drawing": "teeko", "step": "", "sheet": False}

    def analysis_module(self) -> str:
        return "core.teeko_analysis"

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        t = event.get("type")
        who = wording.seat_name(names, event.get("seat"))
        if t == "placed" and "to" in event:  # (Tedoku's placements name no square)
            return f"{who} placed {event['to']}"
        if t == "moved":
            return wording.moved(who, event, plain)
        return None

    def reason_words(self) -> dict[str, str]:
        return {"pattern": "four in a pattern"}

    def doing(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        phase = (view or {}).get("phase")
        what = {"place": "placing a piece", "move": "moving a piece"}.get(str(phase), "")
        return wording.doing_line(view, names, what)

    def example_options(self) -> list[Obj]:
        return [
            {"move_cap": 200},
            {"squares": "tilted", "move_cap": 200},
            {"squares": "classic", "move_cap": 200},
            {"repetition": True, "move_cap": 200},
            {"squares": "classic", "repetition": True, "move_cap": 120},
            {"squares": "tilted", "repetition": True, "move_cap": 60},
        ]

    def seats(self, state: Any) -> int:
        return 2

    # -- evolve -----------------------------------------------------------------------------

    def evolve_game(self, state: Any, event: Obj) -> TeekoState:
        s: TeekoState = state
        kind = event["type"]
        n = s.copy()
        if kind == "placed" or kind == "moved":
            seat: int = event["seat"]
            to = parse_square(event["to"])
            frm = parse_square(event["from"]) if kind == "moved" else NO_SQUARE
            bits = s.pieces(seat)
            if frm != NO_SQUARE:
                bits &= ~(1 << frm)
            bits |= 1 << to
            if seat == 0:
                n.white = bits
            else:
                n.black = bits
            n.last_seat = seat
            n.last_from = frm
            n.last_to = to
            n.ply = s.ply + 1
            n.turn = 1 - seat
            if s.draw_offer != seat:
                n.draw_offer = NO_SEAT  # answering an offer with a move declines it
            if s.repetition:
                n.push_history(position_key(n.white, n.black, n.turn), frm == NO_SQUARE)
        elif kind == "game_over":
            _finish(n, list(event["winners"]), str(event["reason"]))
            if "squares" in event:
                m = 0
                for name in event["squares"]:
                    m |= 1 << parse_square(name)
                n.win_mask = m
        elif kind == "draw_offered":
            n.draw_offer = event["seat"]
        elif kind == "draw_declined" or kind == "draw_accepted" or kind == "resigned":
            n.draw_offer = NO_SEAT
        elif kind == "start":
            # The options as validated when the game was created (``start``): never
            # re-validated, so a stored log folds whatever today's validator says.
            opts: Obj = dict(event["options"])
            n = TeekoState()
            n.started = True
            n.options = opts
            n.squares = opts["squares"]
            n.patterns = _PATTERN_LOOKUP[n.squares]
            n.repetition = opts["repetition"]
            n.move_cap = opts["move_cap"]
        else:
            raise ValueError(f"unknown Teeko event type {kind!r}")
        return n

    def end(self, state: Any, outcome: Outcome) -> TeekoState:
        s: TeekoState = state
        n = s.copy()
        _finish(n, outcome.winners, outcome.reason)
        return n

    # -- decide -----------------------------------------------------------------------------

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        # ``seat`` is checked here (typed Any so that the compiled module also answers a
        # non-int seat with ``wrong_seat`` rather than a TypeError).
        s: TeekoState = state
        seat = check_seat(self, s, seat)
        command = require_obj(command)
        kind: str = command["type"]
        if kind == "place":
            to = square_field(command, "to", parse_square)
            self._check_turn(s, seat)
            return self._decide_place(s, seat, to)
        if kind == "move":
            frm = square_field(command, "from", parse_square)
            to = square_field(command, "to", parse_square)
            self._check_turn(s, seat)
            return self._decide_move(s, seat, frm, to)
        if kind == "resign":
            self._check_running(s)
            return [{"type": "resigned", "seat": seat}, _game_over([1 - seat], "resign")]
        if kind == "offer_draw":
            self._check_running(s)
            if s.draw_offer == seat:
                raise IllegalMoveError("illegal", "you have already offered a draw")
            if s.draw_offer != NO_SEAT:
                raise IllegalMoveError(
                    "illegal", "your opponent has offered a draw: accept or decline it"
                )
            return [{"type": "draw_offered", "seat": seat}]
        if kind == "accept_draw" or kind == "decline_draw":
            self._check_running(s)
            if s.draw_offer == NO_SEAT:
                raise IllegalMoveError("illegal", "there is no draw offer to answer")
            if s.draw_offer == seat:
                raise IllegalMoveError("illegal", "you cannot answer your own draw offer")
            if kind == "decline_draw":
                return [{"type": "draw_declined", "seat": seat}]
            return [{"type": "draw_accepted", "seat": seat}, _game_over([], "draw_agreed")]
        raise IllegalMoveError(
            "malformed", f"unknown command type {kind!r}; Teeko commands: {COMMAND_TYPES}"
        )

    def forfeit(self, state: Any, seat: Any) -> list[Obj]:
        s: TeekoState = state
        seat = check_seat(self, s, seat)
        self._check_running(s)
        return [_game_over([1 - seat], "timeout")]

    def _check_running(self, s: TeekoState) -> None:
        if s.over:
            raise IllegalMoveError("game_over", "the game is over")
        if not s.started:
            raise IllegalMoveError("illegal", "the game has not started")

    def _check_turn(self, s: TeekoState, seat: int) -> None:
        self._check_running(s)
        if seat != s.turn:
            raise IllegalMoveError("not_your_turn", f"it is {_seat_name(s.turn)}'s turn")

    def _decide_place(self, s: TeekoState, seat: int, to: int) -> list[Obj]:
        if not s.placing():
            raise IllegalMoveError(
                "illegal",
                "all your pieces are on the board: move one to a neighbouring empty square",
            )
        if (s.white | s.black) >> to & 1:
            raise IllegalMoveError("illegal", f"{square_name(to)} is already occupied")
        bits = s.pieces(seat) | 1 << to
        events: list[Obj] = [{"type": "placed", "seat": seat, "to": square_name(to)}]
        return self._after(s, seat, bits, events, True)

    def _decide_move(self, s: TeekoState, seat: int, frm: int, to: int) -> list[Obj]:
        if s.placing():
            left = s.in_hand(seat)
            raise IllegalMoveError(
                "illegal",
                f"you still have {left} piece{'s' if left != 1 else ''} to place: "
                "pieces move only once all eight are on the board",
            )
        mine = s.pieces(seat)
        theirs = s.pieces(1 - seat)
        if not mine >> frm & 1:
            if theirs >> frm & 1:
                raise IllegalMoveError(
                    "illegal", f"the piece on {square_name(frm)} is {_seat_name(1 - seat)}'s"
                )
            raise IllegalMoveError("illegal", f"there is no piece on {square_name(frm)}")
        if frm == to:
            raise IllegalMoveError("illegal", "a move has to go to another square")
        if not NEIGHBOURS[frm] >> to & 1:
            raise IllegalMoveError(
                "illegal",
                f"{square_name(to)} is not next to {square_name(frm)}: "
                "a piece moves one square in any direction",
            )
        if (mine | theirs) >> to & 1:
            raise IllegalMoveError("illegal", f"{square_name(to)} is already occupied")
        bits = (mine & ~(1 << frm)) | 1 << to
        events: list[Obj] = [
            {"type": "moved", "seat": seat, "from": square_name(frm), "to": square_name(to)}
        ]
        return self._after(s, seat, bits, events, False)

    def _after(
        self, s: TeekoState, seat: int, bits: int, events: list[Obj], placed: bool
    ) -> list[Obj]:
        """Append the game end, if the ply just decided ends the game."""
        if bits in s.patterns:
            end = _game_over([seat], "pattern")
            end["squares"] = mask_squares(bits)
            events.append(end)
            return events
        if s.repetition and not placed:
            white = bits if seat == 0 else s.white
            black = bits if seat == 1 else s.black
            if s.repeats(position_key(white, black, 1 - seat)) >= 2:
                events.append(_game_over([], "repetition"))
                return events
        if s.move_cap > 0 and s.ply + 1 >= s.move_cap:
            events.append(_game_over([], "move_cap"))
        return events

    # -- queries ----------------------------------------------------------------------------

    def to_act(self, state: Any) -> list[int]:
        s: TeekoState = state
        if s.over or not s.started:
            return []
        return [s.turn]

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        s: TeekoState = state
        if s.over or not s.started or not 0 <= seat < 2:
            return []
        out: list[Obj] = []
        if seat == s.turn:
            out = self.moves(s)
        out.append({"type": "resign"})
        if s.draw_offer == NO_SEAT:
            out.append({"type": "offer_draw"})
        elif s.draw_offer != seat:
            out.append({"type": "accept_draw"})
            out.append({"type": "decline_draw"})
        return out

    def moves(self, state: Any) -> list[Obj]:
        """The placements or moves of the seat to move (no meta commands)."""
        s: TeekoState = state
        occupied = s.white | s.black
        out: list[Obj] = []
        names = SQUARE_NAMES
        if s.placing():
            for i in range(CELLS):
                if not occupied >> i & 1:
                    out.append({"type": "place", "to": names[i]})
            return out
        mine = s.pieces(s.turn)
        for i in range(CELLS):
            if mine >> i & 1:
                targets = NEIGHBOURS[i] & ~occupied
                while targets:
                    low = targets & -targets
                    targets ^= low
                    out.append(
                        {"type": "move", "from": names[i], "to": names[low.bit_length() - 1]}
                    )
        return out

    def result_problem(self, state: Any, event: Obj) -> str | None:
        if event["scores"]:
            return "Teeko keeps no score: a result gives no scores"
        return None

    def outcome(self, state: Any) -> Outcome | None:
        s: TeekoState = state
        if not s.over:
            return None
        return Outcome([s.winner] if s.winner != NO_SEAT else [], s.reason)

    def view(self, state: Any, viewer: int) -> Obj:
        s: TeekoState = state
        last: Obj | None = None
        if s.last_seat != NO_SEAT:
            if s.last_from == NO_SQUARE:
                last = {"type": "placed", "seat": s.last_seat, "to": square_name(s.last_to)}
            else:
                last = {
                    "type": "moved",
                    "seat": s.last_seat,
                    "from": square_name(s.last_from),
                    "to": square_name(s.last_to),
                }
        outcome = self.outcome(s)
        return {
            "game": "teeko",
            "started": s.started,
            "options": dict(s.options),
            "board": board_ranks(s.white, s.black),
            "pieces": [mask_squares(s.white), mask_squares(s.black)],
            "phase": "over" if s.over else "place" if s.placing() else "move",
            "turn": s.turn,
            "to_act": self.to_act(s),
            "in_hand": [s.in_hand(0), s.in_hand(1)],
            "ply": s.ply,
            "last": last,
            "draw_offer": s.draw_offer if s.draw_offer != NO_SEAT else None,
            "outcome": outcome.to_json() if outcome is not None else None,
            "winning_squares": mask_squares(s.win_mask) if s.win_mask else None,
            "history": s.history_names[: s.hist_len],
        }

    def redact(self, event: Obj, viewer: int) -> Obj:
        return event

    def secrets(self, state: Any, viewer: int) -> list[str]:
        return []

    def resample(self, view: Obj, viewer: int, rng: Random) -> TeekoState:
        """The exact state: Teeko hides nothing, and the view carries the ply count, the
        position history and the pending draw offer."""
        s = TeekoState()
        if not view.get("started"):
            return s
        opts = self.options(view["options"])
        s.started = True
        s.options = opts
        s.squares = opts["squares"]
        s.patterns = _PATTERN_LOOKUP[s.squares]
        s.repetition = opts["repetition"]
        s.move_cap = opts["move_cap"]
        s.white, s.black = _parse_ranks(view["board"])
        s.turn = int(view["turn"])
        s.ply = int(view["ply"])
        last = view.get("last")
        if isinstance(last, dict):
            s.last_seat = int(last["seat"])
            s.last_to = parse_square(last["to"])
            if "from" in last:
                s.last_from = parse_square(last["from"])
        offer = view.get("draw_offer")
        s.draw_offer = int(offer) if offer is not None else NO_SEAT
        out = view.get("outcome")
        if isinstance(out, dict):
            s.over = True
            winners = list(out["winners"])
            s.winner = int(winners[0]) if winners else NO_SEAT
            s.reason = str(out["reason"])
        squares = view.get("winning_squares")
        if isinstance(squares, list):
            for name in squares:
                s.win_mask |= 1 << parse_square(name)
        s.history = [parse_position(p) for p in view.get("history", [])]
        s.history_names = [position_name(k) for k in s.history]
        s.hist_len = len(s.history)
        return s


GAME: Final[TeekoGame] = TeekoGame()

__all__ = [
    "GAME",
    "NEIGHBOURS",
    "PATTERN_SETS",
    "PIECES",
    "TeekoGame",
    "TeekoState",
    "board_ranks",
    "build_patterns",
    "mask_squares",
    "neighbour_masks",
    "parse_square",
    "pattern_masks",
    "position_key",
    "square_name",
]
