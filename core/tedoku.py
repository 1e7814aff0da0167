"""Tedoku rules: every player fills a 9x9 sheet with the shape the die shows, near the card.

Rules, with the project's rulings: docs/rules/tedoku.md (also the notation of commands,
events and view).

Sheets are 81-bit ints: bit ``r * 9 + c`` is the cell in row ``r`` (A..I = 0..8, top to
bottom) and column ``c`` (1..9 = 0..8). The helpers below (:func:`placements`,
:func:`legal_placements`, :func:`score_sheet`, :data:`ORIENTATIONS`...) are exported for the
bots and kept fast: precomputed placement masks per shape and card.

Where a ruling is implemented, the comment cites it as ``RULES.md Tedoku: ...``.
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

# --------------------------------------------------------------------------- geometry

SIZE: Final = 9
CELLS: Final = 81
FULL: Final = (1 << 81) - 1
"""Mask of a completely filled sheet."""

ROW_LETTERS: Final = "ABCDEFGHI"
CELL_NAMES: Final[list[str]] = [ROW_LETTERS[i // 9] + str(i % 9 + 1) for i in range(81)]
"""``CELL_NAMES[r * 9 + c]``: "A1".."I9"."""
CELL_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(CELL_NAMES)}

TURNS: Final = 20
"""Cards flipped in a game (27 cards, 7 removed unseen)."""
REMOVED: Final = 7

TETROMINOES: Final[list[str]] = ["O", "I", "T", "L", "S"]
"""Shapes on the die (the sixth face, ``W``, is wild: any one of these)."""
WILD: Final = "W"
DIE_FACES: Final[list[str]] = ["O", "I", "T", "L", "S", "W"]
BONUS_SHAPES: Final[list[str]] = ["B1", "B2", "B4"]
"""Optional bonus shapes: 1x1, 2x1 and 2x2 (option ``bonus``)."""
ALL_SHAPES: Final[list[str]] = ["O", "I", "T", "L", "S", "B1", "B2", "B4"]

BASE_SHAPES: Final[dict[str, list[tuple[int, int]]]] = {
    "O": [(0, 0), (0, 1), (1, 0), (1, 1)],
    "I": [(0, 0), (0, 1), (0, 2), (0, 3)],
    "T": [(0, 0), (0, 1), (0, 2), (1, 1)],
    "L": [(0, 0), (1, 0), (2, 0), (2, 1)],
    "S": [(0, 1), (0, 2), (1, 0), (1, 1)],
    "B1": [(0, 0)],
    "B2": [(0, 0), (0, 1)],
    "B4": [(0, 0), (0, 1), (1, 0), (1, 1)],
}
"""(row, column) offsets of each shape in one orientation."""


def _orientations(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    seen: list[list[tuple[int, int]]] = []
    for k in range(8):
        pts: list[tuple[int, int]] = []
        for r, c in cells:
            for _ in range(k % 4):
                r, c = c, -r
            if k >= 4:
                c = -c
            pts.append((r, c))
        r0 = min(p[0] for p in pts)
        c0 = min(p[1] for p in pts)
        norm = sorted((r - r0, c - c0) for r, c in pts)
        if norm not in seen:
            seen.append(norm)
    return seen


ORIENTATIONS: Final[dict[str, list[list[tuple[int, int]]]]] = {
    name: _orientations(cells) for name, cells in BASE_SHAPES.items()
}
"""Every distinct rotation/reflection of each shape, as sorted (row, column) offsets
anchored at (0, 0): O 1, I 2, T 4, L 8, S 4, B1 1, B2 2, B4 1."""


def _all_placements(shape: str) -> list[int]:
    out: list[int] = []
    for orient in ORIENTATIONS[shape]:
        h = max(p[0] for p in orient) + 1
        w = max(p[1] for p in orient) + 1
        for r in range(SIZE - h + 1):
            for c in range(SIZE - w + 1):
                m = 0
                for dr, dc in orient:
                    m |= 1 << ((r + dr) * 9 + c + dc)
                out.append(m)
    return out


PLACEMENTS: Final[dict[str, list[int]]] = {s: _all_placements(s) for s in ALL_SHAPES}
"""Every placement of each shape inside the sheet, as a cell mask."""

SHAPE_OF_FORM: Final[dict[int, str]] = {}
"""Mask of a shape moved to the top-left corner -> shape name (a 2x2 maps to ``O``)."""
for _s in ["B4", "B2", "B1", "S", "L", "T", "I", "O"]:
    for _o in ORIENTATIONS[_s]:
        _m = 0
        for _dr, _dc in _o:
            _m |= 1 << (_dr * 9 + _dc)
        SHAPE_OF_FORM[_m] = _s


def _line_masks() -> tuple[list[int], list[int], list[int]]:
    rows = [((1 << 9) - 1) << (9 * r) for r in range(9)]
    cols = [sum(1 << (9 * r + c) for r in range(9)) for c in range(9)]
    sectors = []
    for k in range(9):
        r0, c0 = 3 * (k // 3), 3 * (k % 3)
        sectors.append(sum(1 << (9 * (r0 + i) + c0 + j) for i in range(3) for j in range(3)))
    return rows, cols, sectors


_LINES: Final = _line_masks()
ROW_MASKS: Final[list[int]] = _LINES[0]
COL_MASKS: Final[list[int]] = _LINES[1]
SECTOR_MASKS: Final[list[int]] = _LINES[2]

CARDS: Final[list[str]] = (
    ["row:" + ROW_LETTERS[r] for r in range(9)]
    + ["col:" + str(c + 1) for c in range(9)]
    + ["sector:" + str(k + 1) for k in range(9)]
)
"""The 27 cards: ``row:A``..``row:I``, ``col:1``..``col:9``, ``sector:1``..``sector:9``."""
CARD_MASK: Final[dict[str, int]] = dict(
    zip(CARDS, ROW_MASKS + COL_MASKS + SECTOR_MASKS, strict=True)
)

BY_CARD: Final[dict[str, dict[str, list[int]]]] = {
    s: {card: [m for m in PLACEMENTS[s] if m & cm] for card, cm in CARD_MASK.items()}
    for s in ALL_SHAPES
}
"""``BY_CARD[shape][card]``: the placements of ``shape`` touching ``card`` (empty sheet)."""

MASK_CELLS: Final[dict[int, list[str]]] = {}
for _s in ALL_SHAPES:
    for _m in PLACEMENTS[_s]:
        MASK_CELLS[_m] = [CELL_NAMES[i] for i in range(81) if _m >> i & 1]

TIERS: Final[list[tuple[int, str, str]]] = [
    (10, "capable_of_more", "You are capable of more!"),
    (15, "right_track", "You are on the right track!"),
    (24, "champion", "Tedoku Champion"),
    (40, "black_belt", "Tedoku Black Belt"),
    (1 << 30, "cheating", "You are cheating!"),
]
"""Solo tiers: (highest total of the tier, key, label): <=10, 11-15, 16-24, 25-40, 41+."""
TIER_RANGES: Final[list[str]] = ["0-10", "11-15", "16-24", "25-40", "41+"]


# --------------------------------------------------------------------------- helpers


def cells_of(mask: int) -> list[str]:
    """Cell names of ``mask`` in reading order (A1, A2, ... I9)."""
    known = MASK_CELLS.get(mask)
    if known is not None:
        return list(known)
    return [CELL_NAMES[i] for i in range(81) if mask >> i & 1]


def mask_of(cells: list[str]) -> int:
    """Mask of a list of cell names (KeyError on an unknown name)."""
    m = 0
    for name in cells:
        m |= 1 << CELL_INDEX[name]
    return m


def shape_of(mask: int) -> str:
    """The shape formed by the cells of ``mask`` (``O`` for any 2x2), or "" if none."""
    if mask == 0:
        return ""
    low = (mask & -mask).bit_length() - 1
    r0 = low // 9
    c0 = 8
    for i in range(81):
        if mask >> i & 1 and i % 9 < c0:
            c0 = i % 9
    shift = r0 * 9 + c0
    return SHAPE_OF_FORM.get(mask >> shift, "")


def placements(shape: str, sheet: int, card: str) -> list[int]:
    """Legal placements of ``shape`` on ``sheet`` for ``card``: masks inside the sheet, not
    overlapping it, with at least one cell in the card's row/column/sector."""
    return [m for m in BY_CARD[shape][card] if not m & sheet]


def has_placement(shape: str, sheet: int, card: str) -> bool:
    """Whether :func:`placements` is non-empty (stops at the first one)."""
    for m in BY_CARD[shape][card]:
        if not m & sheet:
            return True
    return False


def rolled_shapes(die: str) -> list[str]:
    """Shapes the die allows (all five on the wild face)."""
    return list(TETROMINOES) if die == WILD else [die]


def allowed_shapes(die: str, bonus_left: list[str]) -> list[str]:
    """Shapes a player may draw: the rolled ones, then the unused bonus shapes.
    RULES.md Tedoku: a 2x2 placed when the O may be drawn counts as the O, so the bonus
    square ``B4`` is not offered while ``O`` is allowed."""
    rolled = rolled_shapes(die)
    out = list(rolled)
    for b in BONUS_SHAPES:
        if b in bonus_left and not (b == "B4" and "O" in rolled):
            out.append(b)
    return out


def may_skip(die: str, sheet: int, card: str) -> bool:
    """RULES.md Tedoku: skipping is allowed only when the rolled shape (on wild: every shape)
    has no legal placement -- even if an unused bonus shape would still fit."""
    for s in rolled_shapes(die):
        if has_placement(s, sheet, card):
            return False
    return True


def legal_placements(
    die: str, sheet: int, card: str, bonus_left: list[str]
) -> list[tuple[str, int]]:
    """Every distinct legal (shape, mask) for a player this turn, rolled shapes first."""
    out: list[tuple[str, int]] = []
    for s in allowed_shapes(die, bonus_left):
        for m in BY_CARD[s][card]:
            if not m & sheet:
                out.append((s, m))
    return out


def score_parts(sheet: int) -> tuple[int, int, int]:
    """(filled sectors, full rows, full columns) of ``sheet``."""
    sectors = 0
    for m in SECTOR_MASKS:
        if sheet & m == m:
            sectors += 1
    rows = 0
    for m in ROW_MASKS:
        if sheet & m == m:
            rows += 1
    cols = 0
    for m in COL_MASKS:
        if sheet & m == m:
            cols += 1
    return sectors, rows, cols


def score_sheet(sheet: int) -> int:
    """3 per filled sector, 1 per full row, 1 per full column (bonus points not included)."""
    sectors, rows, cols = score_parts(sheet)
    return 3 * sectors + rows + cols


def empty_squares(sheet: int) -> int:
    return CELLS - bin(sheet & FULL).count("1")


def tier(total: int) -> tuple[str, str, str]:
    """Solo tier of a total (bonus points included): (key, range, label)."""
    for i, (top, key, label) in enumerate(TIERS):
        if total <= top:
            return key, TIER_RANGES[i], label
    return TIERS[-1][1], TIER_RANGES[-1], TIERS[-1][2]


def sheet_rows(sheet: int, pending: int = 0) -> list[str]:
    """The sheet as nine strings of nine characters: ``#`` filled, ``*`` pending, ``.`` empty."""
    out: list[str] = []
    for r in range(9):
        chars: list[str] = []
        for c in range(9):
            bit = 1 << (r * 9 + c)
            chars.append("#" if sheet & bit else "*" if pending & bit else ".")
        out.append("".join(chars))
    return out


def token(turn: int, seat: int, shape: str, mask: int) -> str:
    """Unique string naming a pending placement (``p<turn>s<seat>:<shape>:<cells>``, or
    ``p<turn>s<seat>:skip``); listed in ``secrets()`` until the reveal."""
    if not shape:
        return f"p{turn}s{seat}:skip"
    return f"p{turn}s{seat}:{shape}:" + ".".join(cells_of(mask))


# --------------------------------------------------------------------------- state


class TedokuState:
    """Whole game state. ``deck`` is the flip order (20 cards), ``removed`` the 7 cards never
    seen. ``turn`` = cards flipped so far; the current card is ``deck[turn - 1]``."""

    def __init__(self) -> None:
        self.started: bool = False
        self.seats: int = 0
        self.bonus: bool = False
        self.deck: list[str] = []
        self.removed: list[str] = []
        self.turn: int = 0
        self.rolls: list[str] = []
        self.sheets: list[int] = []
        self.bonus_left: list[list[str]] = []
        self.history: list[list[tuple[str, int]]] = []
        self.acted: list[bool] = []
        self.pend_shape: list[str] = []
        self.pend_mask: list[int] = []
        self.over: bool = False
        self.result: Outcome | None = None  # the organiser's result that ended the game

    def copy(self) -> TedokuState:
        s = TedokuState()
        s.started = self.started
        s.seats = self.seats
        s.bonus = self.bonus
        s.deck = self.deck
        s.removed = self.removed
        s.turn = self.turn
        s.rolls = list(self.rolls)
        s.sheets = list(self.sheets)
        s.bonus_left = list(self.bonus_left)
        s.history = list(self.history)
        s.acted = list(self.acted)
        s.pend_shape = list(self.pend_shape)
        s.pend_mask = list(self.pend_mask)
        s.over = self.over
        s.result = self.result
        return s

    @property
    def card(self) -> str:
        return self.deck[self.turn - 1] if self.turn > 0 else ""

    @property
    def die(self) -> str:
        return self.rolls[-1] if self.rolls else ""

    def totals(self, seat: int) -> tuple[int, int, int, int, int]:
        """(sectors, rows, columns, bonus points, total) of ``seat``'s revealed sheet."""
        sectors, rows, cols = score_parts(self.sheets[seat])
        bonus = 2 * len(self.bonus_left[seat]) if self.bonus else 0
        return sectors, rows, cols, bonus, 3 * sectors + rows + cols + bonus


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be an integer")
    return value


def _str_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return [str(v) for v in value]


# --------------------------------------------------------------------------- game


class TedokuGame(Game):
    name = "tedoku"
    min_seats = 1
    max_seats = 8

    def options(self, raw: Any) -> Obj:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise OptionsError("options must be a JSON object")
        for key in raw:
            if key not in ("seats", "bonus"):
                raise OptionsError(f"unknown option {key!r}")
        seats = raw.get("seats", 1)
        if not isinstance(seats, int) or isinstance(seats, bool):
            raise OptionsError("seats must be an integer")
        if not self.min_seats <= seats <= self.max_seats:
            raise OptionsError(f"seats must be {self.min_seats}..{self.max_seats}")
        bonus = raw.get("bonus", False)
        if not isinstance(bonus, bool):
            raise OptionsError("bonus must be true or false")
        return {"seats": seats, "bonus": bonus}

    def title(self) -> str:
        return "Tedoku"

    def blurb(self) -> str:
        return ("Everyone draws the same tetromino into a 9x9 sheet, near the card's row, "
                "column or sector. Fill sectors, rows and columns.")

    def option_fields(self) -> list[Obj]:
        return [choice_field("bonus", "Bonus shapes (1x1, 2x1, 2x2)",
                             [(False, "Off"), (True, "On")])]

    def board(self) -> Obj:
        return {"drawing": "tedoku", "step": "turn", "sheet": False}

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        t = event.get("type")
        who = wording.seat_name(names, event.get("seat"))
        if t == "placed":  # the drawing, or (before the reveal) only that there is one
            if event.get("skip"):
                return f"{who} skipped the turn"
            if "cells" not in event:
                return f"{who} has drawn"
            cells = " ".join(event.get("cells") or [])
            return f"{who} drew {event.get('shape') or ''} {cells}".strip()
        if t == "flip":
            card = str(event.get("card") or "")  # "row:F", "col:3", "sector:7"
            kind, _, value = card.partition(":")
            target = {"row": "row", "col": "column", "sector": "sector"}.get(kind, kind) + (
                f" {value}" if value else "")
            return f"Turn {event.get('turn')}: {target}, die {event.get('die')}"
        if t == "reveal":
            return f"Turn {event.get('turn')}: drawings revealed"
        return None

    def reason_words(self) -> dict[str, str]:
        """The tie-breaks, and the solo tiers by their labels ("Tedoku Champion")."""
        return {"fewest_empty": "fewest empty squares", "shared": "shared",
                **{key: label for _top, key, label in TIERS}}

    def result_text(self, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
        """Every score, the winners' first; solo: the rulebook's tier and the points."""
        if not outcome:
            return ""
        o = wording.Ending(outcome, self.reason_words())
        if len(o.scores) == 1:  # solo: the tier is the reason
            return f"{o.why or 'Game over'}: {o.scores[0]} points"
        if not o.winners:
            return wording.won([], "", o.paren)
        score = ""
        if o.scores:
            order = sorted(range(len(o.scores)),
                           key=lambda s: (s not in o.winners, -o.scores[s], s))
            score = " " + "-".join(str(o.scores[s]) for s in order)
        return wording.won([wording.seat_name(names, w) for w in o.winners], score, o.paren)

    def doing(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        return wording.doing_line(view, names, "drawing the shape")

    def league(self) -> Obj:
        return {"pairing": "tables", "min_players": 3}

    def example_options(self) -> list[Obj]:
        return [{}, {"seats": 3}, {"bonus": True}, {"seats": 2, "bonus": True},
                {"seats": 8, "bonus": True}]

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        opts = self.options(options)
        order = list(CARDS)
        rng.shuffle(order)
        return [
            {"type": "start", "options": opts},
            {"type": "shuffle", "deck_size": TURNS, "removed_size": REMOVED,
             "deck": order[:TURNS], "removed": order[TURNS:]},
            self._flip(1, order[0], rng),
        ]

    @staticmethod
    def _flip(turn: int, card: str, rng: Random) -> Obj:
        return {"type": "flip", "turn": turn, "card": card, "die": rng.choice(DIE_FACES)}

    def initial(self) -> TedokuState:
        return TedokuState()

    def seats(self, state: Any) -> int:
        st: TedokuState = state
        return st.seats

    # ---- evolve

    def end(self, state: Any, outcome: Outcome) -> TedokuState:
        st: TedokuState = state
        s = st.copy()
        s.over = True
        s.result = outcome
        return s

    def evolve_game(self, state: Any, event: Obj) -> TedokuState:
        st: TedokuState = state
        kind = event.get("type")
        s = st.copy()
        if kind == "start":
            # (the options as validated by ``start``: never re-validated, see teeko.py)
            opts: Obj = dict(event["options"])
            n = int(opts["seats"])
            s.started = True
            s.seats = n
            s.bonus = bool(opts["bonus"])
            s.sheets = [0] * n
            s.bonus_left = [list(BONUS_SHAPES) if s.bonus else [] for _ in range(n)]
            s.history = [[] for _ in range(n)]
            s.acted = [False] * n
            s.pend_shape = [""] * n
            s.pend_mask = [0] * n
        elif kind == "shuffle":
            s.deck = _str_list(event["deck"], "deck")
            s.removed = _str_list(event["removed"], "removed")
        elif kind == "flip":
            s.turn = _int(event["turn"], "turn")
            s.rolls.append(str(event["die"]))
            s.acted = [False] * s.seats
            s.pend_shape = [""] * s.seats
            s.pend_mask = [0] * s.seats
        elif kind == "placed":
            seat = _int(event["seat"], "seat")
            s.acted[seat] = True
            if event.get("skip"):
                s.pend_shape[seat] = ""
                s.pend_mask[seat] = 0
            else:
                s.pend_shape[seat] = str(event["shape"])
                s.pend_mask[seat] = mask_of(_str_list(event["cells"], "cells"))
        elif kind == "reveal":
            for seat in range(s.seats):
                shape = s.pend_shape[seat]
                mask = s.pend_mask[seat]
                s.sheets[seat] |= mask
                if shape in BONUS_SHAPES:
                    s.bonus_left[seat] = [b for b in s.bonus_left[seat] if b != shape]
                s.history[seat] = [*s.history[seat], (shape, mask)]
            s.acted = [False] * s.seats
            s.pend_shape = [""] * s.seats
            s.pend_mask = [0] * s.seats
            if s.turn >= TURNS:
                s.over = True
        else:
            raise ValueError(f"unknown tedoku event {kind!r}")
        return s

    # ---- decide

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        st: TedokuState = state
        if st.over:
            raise IllegalMoveError("game_over", "the game is over")
        seat = check_seat(self, st, seat)
        cmd = require_obj(command)
        kind = cmd["type"]
        if kind not in ("place", "skip"):
            raise IllegalMoveError("malformed", f"unknown command {kind!r} (place or skip)")
        if not st.started or st.turn == 0:
            raise IllegalMoveError("not_your_turn", "the game has not started")
        if st.acted[seat]:
            raise IllegalMoveError("not_your_turn", "you have already drawn this turn")
        sheet = st.sheets[seat]
        card = st.card
        die = st.die
        if kind == "skip":
            if set(cmd) != {"type"}:
                raise IllegalMoveError("malformed", "skip takes no other field")
            if not may_skip(die, sheet, card):
                raise IllegalMoveError(
                    "illegal", "the rolled shape can still be placed: skipping is not allowed")
            placed: Obj = {"type": "placed", "seat": seat, "turn": st.turn, "skip": True,
                           "token": token(st.turn, seat, "", 0)}
        else:
            placed = self._check_place(st, seat, cmd)
        events = [placed]
        # RULES.md Tedoku: all placements are revealed together once everyone has acted;
        # the next card is then flipped and the die rolled (chance drawn here, from rng).
        waiting = [s for s in range(st.seats) if not st.acted[s] and s != seat]
        if not waiting:
            events.append(self._reveal(st, seat, placed))
            if st.turn < TURNS:
                events.append(self._flip(st.turn + 1, st.deck[st.turn], rng))
        return events

    def _check_place(self, st: TedokuState, seat: int, cmd: Obj) -> Obj:
        for key in cmd:
            if key not in ("type", "cells", "shape"):
                raise IllegalMoveError("malformed", f"unknown field {key!r} in place")
        cells = cmd.get("cells")
        if not isinstance(cells, list) or not 1 <= len(cells) <= 4:
            raise IllegalMoveError("malformed", "cells must be a list of 1 to 4 cell names")
        mask = 0
        for c in cells:
            if not isinstance(c, str) or c not in CELL_INDEX:
                raise IllegalMoveError("illegal", f"{c!r} is not a cell of the sheet (A1..I9)")
            bit = 1 << CELL_INDEX[c]
            if mask & bit:
                raise IllegalMoveError("malformed", f"cell {c} listed twice")
            mask |= bit
        label = cmd.get("shape")
        if label is not None and label not in ALL_SHAPES:
            raise IllegalMoveError("malformed", f"unknown shape {label!r}")
        shape = shape_of(mask)
        if not shape:
            raise IllegalMoveError("illegal", "those cells do not form a Tedoku shape")
        die = st.die
        rolled = rolled_shapes(die)
        if shape == "O" and "O" not in rolled:
            shape = "B4"  # a 2x2 is the bonus square only when the O may not be drawn
        # RULES.md Tedoku: a 2x2 placed when the O may be drawn counts as the O, whatever
        # the command calls it (a "B4" label is read as the O; the bonus square is kept).
        if label == "O" and shape == "B4":
            raise IllegalMoveError(
                "illegal", f"the die shows {die}: a 2x2 now can only be the bonus square B4")
        if label is not None and label != shape and not (label == "B4" and shape == "O"):
            raise IllegalMoveError("illegal", f"those cells form {shape}, not {label}")
        if shape in BONUS_SHAPES:
            if not st.bonus:
                raise IllegalMoveError(
                    "illegal", f"the die shows {die}, and bonus shapes are not used at this table")
            if shape not in st.bonus_left[seat]:
                raise IllegalMoveError("illegal", f"bonus shape {shape} was already used")
        elif shape not in rolled:
            raise IllegalMoveError("illegal", f"the die shows {die}, not {shape}")
        if mask & st.sheets[seat]:
            raise IllegalMoveError("illegal", "the shape overlaps squares already drawn")
        if not mask & CARD_MASK[st.card]:
            raise IllegalMoveError("illegal", f"the shape must touch {st.card}")
        return {"type": "placed", "seat": seat, "turn": st.turn, "shape": shape,
                "cells": cells_of(mask), "token": token(st.turn, seat, shape, mask)}

    def _reveal(self, st: TedokuState, last: int, last_event: Obj) -> Obj:
        shown: list[Obj] = []
        for s in range(st.seats):
            if s == last:
                shape = "" if last_event.get("skip") else str(last_event["shape"])
                mask = 0 if not shape else mask_of(list(last_event["cells"]))
            else:
                shape = st.pend_shape[s]
                mask = st.pend_mask[s]
            shown.append(self._entry(shape, mask, s))
        return {"type": "reveal", "turn": st.turn, "placements": shown}

    @staticmethod
    def _entry(shape: str, mask: int, seat: int) -> Obj:
        if not shape:
            return {"seat": seat, "shape": None, "cells": []}
        return {"seat": seat, "shape": shape, "cells": cells_of(mask)}

    # ---- queries

    def to_act(self, state: Any) -> list[int]:
        st: TedokuState = state
        if not st.started or st.over or st.turn == 0:
            return []
        return [s for s in range(st.seats) if not st.acted[s]]

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        st: TedokuState = state
        if (not st.started or st.over or st.turn == 0 or not 0 <= seat < st.seats
                or st.acted[seat]):
            return []
        sheet = st.sheets[seat]
        out: list[Obj] = [
            {"type": "place", "shape": s, "cells": cells_of(m)}
            for s, m in legal_placements(st.die, sheet, st.card, st.bonus_left[seat])
        ]
        if may_skip(st.die, sheet, st.card):
            out.append({"type": "skip"})
        return out

    def result_problem(self, state: Any, event: Obj) -> str | None:
        scores = [int(x) for x in event["scores"]]
        if not scores:
            return None
        if any(x < 0 for x in scores):
            return "Tedoku scores are not negative"
        st: TedokuState = state
        top = 3 * len(SECTOR_MASKS) + len(ROW_MASKS) + len(COL_MASKS)
        top += 2 * len(BONUS_SHAPES) if st.bonus else 0
        if max(scores) > top:
            return (f"a Tedoku sheet scores at most {top} (every sector, row and column"
                    f"{' and every bonus shape' if st.bonus else ''}): not {max(scores)}")
        winners = event["winners"]
        if event["reason"] != "forfeit" and any(scores[w] < max(scores) for w in winners):
            return "the winners have the highest score"
        return None

    def outcome(self, state: Any) -> Outcome | None:
        st: TedokuState = state
        if not st.over:
            return None
        if st.result is not None:
            r = st.result
            return Outcome(r.winners, r.reason, r.scores)
        totals = [st.totals(s)[4] for s in range(st.seats)]
        # RULES.md Tedoku: solo shows the rulebook tier, judged on the total with bonus
        # points; otherwise highest total, tie-break fewest empty squares, else shared win.
        if st.seats == 1:
            return Outcome([0], tier(totals[0])[0], totals)
        best = max(totals)
        top = [s for s in range(st.seats) if totals[s] == best]
        if len(top) == 1:
            return Outcome(top, "score", totals)
        fewest = min(empty_squares(st.sheets[s]) for s in top)
        winners = [s for s in top if empty_squares(st.sheets[s]) == fewest]
        return Outcome(winners, "fewest_empty" if len(winners) == 1 else "shared", totals)

    # ---- views

    def view(self, state: Any, viewer: int) -> Obj:
        st: TedokuState = state
        players: list[Obj] = []
        for s in range(st.seats):
            sees_pending = viewer == ALL or viewer == s
            pending = st.pend_mask[s] if sees_pending else 0
            sectors, rows, cols, bonus, total = st.totals(s)
            p: Obj = {
                "seat": s,
                "sheet": sheet_rows(st.sheets[s], pending),
                "placed": st.acted[s],
                "bonus_left": list(st.bonus_left[s]),
                "history": [self._entry(sh, m, s) for sh, m in st.history[s]],
                "score": {"sectors": sectors, "rows": rows, "cols": cols, "bonus": bonus,
                          "total": total, "empty": empty_squares(st.sheets[s])},
            }
            if sees_pending:
                p["pending"] = None
                if st.acted[s]:
                    p["pending"] = self._entry(st.pend_shape[s], st.pend_mask[s], s)
                    p["pending"]["token"] = token(st.turn, s, st.pend_shape[s], st.pend_mask[s])
            players.append(p)
        out: Obj = {
            "game": self.name,
            "viewer": viewer,
            "options": {"seats": st.seats, "bonus": st.bonus},
            "turn": st.turn,
            "turns": TURNS,
            "card": st.card or None,
            "die": st.die or None,
            "flipped": st.deck[: st.turn],
            "rolls": list(st.rolls),
            "remaining": (TURNS - st.turn) if st.started and st.deck else 0,
            "to_act": self.to_act(st),
            "players": players,
            "outcome": None,
            "tier": None,
        }
        if viewer == ALL:
            out["deck"] = list(st.deck)
            out["removed"] = list(st.removed)
        oc = self.outcome(st)
        if oc is not None:
            out["outcome"] = oc.to_json()
        if st.seats == 1 and st.started:
            key, rng_, label = tier(st.totals(0)[4])
            out["tier"] = {"key": key, "range": rng_, "label": label, "final": st.over}
        return out

    def redact(self, event: Obj, viewer: int) -> Obj:
        # RULES.md Tedoku: placements are secret until every player has placed or skipped;
        # the deck order and the 7 removed cards are never shown to seats or spectators.
        if viewer == ALL:
            return event
        kind = event.get("type")
        if kind == "shuffle":
            return {"type": "shuffle", "deck_size": event["deck_size"],
                    "removed_size": event["removed_size"]}
        if kind == "placed" and event.get("seat") != viewer:
            return {"type": "placed", "seat": event["seat"], "turn": event["turn"]}
        return event

    def secrets(self, state: Any, viewer: int) -> list[str]:
        st: TedokuState = state
        if viewer == ALL or not st.started:
            return []
        out = list(st.deck[st.turn:]) + list(st.removed)
        for s in range(st.seats):
            if s != viewer and st.acted[s]:
                out.append(token(st.turn, s, st.pend_shape[s], st.pend_mask[s]))
        return out

    def resample(self, view: Obj, viewer: int, rng: Random) -> TedokuState:
        """A state agreeing with ``view``: the unseen cards (deck order and the 7 removed) are
        shuffled among the cards not yet flipped; other seats that have placed this turn get
        a random legal placement (or a skip when that is allowed)."""
        s = TedokuState()
        opts = view["options"]
        if view.get("card") is None and not view.get("players"):
            return s
        s = self.evolve_game(s, {"type": "start", "options": opts})
        flipped = _str_list(view["flipped"], "flipped")
        if viewer == ALL and "deck" in view:
            deck = _str_list(view["deck"], "deck")
            removed = _str_list(view["removed"], "removed")
        else:
            unseen = [c for c in CARDS if c not in flipped]
            rng.shuffle(unseen)
            need = TURNS - len(flipped)
            deck = flipped + unseen[:need]
            removed = unseen[need:]
        s.deck = deck
        s.removed = removed
        s.turn = _int(view["turn"], "turn")
        s.rolls = _str_list(view["rolls"], "rolls")
        for p in view["players"]:
            seat = _int(p["seat"], "seat")
            hist: list[tuple[str, int]] = []
            sheet = 0
            for e in p["history"]:
                shape = e["shape"] or ""
                m = mask_of(_str_list(e["cells"], "cells"))
                hist.append((shape, m))
                sheet |= m
            s.history[seat] = hist
            s.sheets[seat] = sheet
            s.bonus_left[seat] = _str_list(p["bonus_left"], "bonus_left")
            acted = bool(p["placed"])
            s.acted[seat] = acted
            if not acted:
                continue
            pend = p.get("pending")
            if isinstance(pend, dict):
                s.pend_shape[seat] = pend["shape"] or ""
                s.pend_mask[seat] = mask_of(_str_list(pend["cells"], "cells"))
            else:
                options = legal_placements(s.die, sheet, s.card, s.bonus_left[seat])
                if may_skip(s.die, sheet, s.card):
                    options.append(("", 0))
                shape, m = options[rng.randrange(len(options))]
                s.pend_shape[seat] = shape
                s.pend_mask[seat] = m
        s.over = view.get("outcome") is not None
        return s


GAME: Final[TedokuGame] = TedokuGame()
