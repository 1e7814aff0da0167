"""The one interface every game in ``core.GAMES`` implements.

A game is data plus pure functions, in the *decider* shape:

* ``start(options, rng)`` -> the first events of a game (options, shuffles, deals...).
* ``decide(state, seat, command, rng)`` -> the events a command produces, or
  :class:`IllegalMoveError` saying why it is refused. The state is never modified.
* ``evolve(state, event)`` -> the next state. ``evolve`` never uses randomness: chance
  (shuffles, deals, die rolls, card flips, who starts) is always carried *inside* events,
  so folding a game's log from :meth:`Game.initial` rebuilds it exactly. The base class
  handles the server's events (table events, an organiser's result) for every game; a game
  writes ``evolve_game`` for its own events and ``end`` for a result.
* ``to_act(state)`` -> the seats the game is waiting for; ``legal_commands`` lists what a
  seat may send now; ``outcome`` is ``None`` until the game has ended.
* ``view(state, viewer)`` and ``redact(event, viewer)`` give a viewer only what it may see.
* Words for people (``event_words``, ``result_text``, ``doing``...): each game words its own
  events and results; the defaults are the shared wording of :mod:`core.wording`.

Commands, events, options and views are plain JSON values (``dict`` with ``str`` keys,
``list``, ``str``, ``int``, ``bool``, ``None``): never tuples, never float. Every command and
event is an object with a ``"type"`` key. The notation is documented in ``docs/notation.md``.

Viewers are seat numbers (``0..seats-1``), :data:`SPECTATOR` (public information only) or
:data:`ALL` (everything, for the replay of a finished game and for tests).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from random import Random
from typing import Any, Final

try:  # mypyc reads the decorator: games defined outside the compiled core subclass Game
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure core has no mypy_extensions: the decorator does nothing
    def mypyc_attr(*_names: str, **_attrs: Any) -> Callable[[Any], Any]:  # type: ignore[misc]
        return lambda cls: cls

from core import wording
from core.errors import IllegalMoveError as IllegalMoveError
from core.errors import OptionsError as OptionsError

JSON = Any
"""A JSON value as produced by ``json.loads``."""

Obj = dict[str, Any]
"""A JSON object: every command, event, options set and view is one."""

SPECTATOR: Final = -1
"""Viewer id for a spectator: sees public information only."""

ALL: Final = -2
"""Viewer id that sees everything (replay of finished games, tests, snapshots)."""

META_COMMANDS: Final = frozenset({"resign", "offer_draw", "accept_draw", "decline_draw"})
"""Command types that are not moves of the game itself (where a game offers them)."""

TABLE_EVENTS: Final = frozenset({"table", "timeout", "seat_to_bot"})
"""Events the server records about the table rather than the game: the table's time rules
(``table``), a seat that ran out of time (``timeout``), a seat handed to a bot
(``seat_to_bot``). ``evolve`` leaves the state as it is for them; what a timeout causes
follows in the log as ordinary events (:meth:`Game.forfeit`, or a bot's move)."""


RESULT: Final = "result"
"""Event type of a result decided by the table's organiser rather than by play:
``{"type": "result", "winners": [seats], "reason": <one of RESULT_REASONS>, "scores":
[one per seat] (or [])}``. It ends the game with exactly that outcome; every game's
``evolve`` accepts it at any point of a game not yet over. The server appends it (never a
seat's command): a game played on a physical board (``off_board``), a forfeit, an
adjudication of an abandoned game, a void game (no winners). See :func:`result_event`."""

RESULT_REASONS: Final = frozenset({"off_board", "forfeit", "adjudicated", "void"})


def result_event(seats: int, winners: Any, reason: Any, scores: Any = None) -> Obj:
    """A valid ``result`` event for a table of ``seats`` seats, or :class:`OptionsError`
    saying what is wrong (winners: distinct seat numbers, none for a void game; scores:
    none or one integer per seat)."""
    if reason not in RESULT_REASONS:
        raise OptionsError(f"a result's reason is one of {', '.join(sorted(RESULT_REASONS))}")
    if not isinstance(winners, list) or not all(
        isinstance(w, int) and not isinstance(w, bool) and 0 <= w < seats for w in winners
    ):
        raise OptionsError(f"winners are seat numbers 0..{seats - 1}")
    if len(set(winners)) != len(winners) or len(winners) == seats > 1:
        raise OptionsError("winners are distinct seats, not every seat (a draw has none)")
    if reason == "void" and winners:
        raise OptionsError("a void game has no winners")
    if scores is None:
        scores = []
    if not isinstance(scores, list) or (scores and len(scores) != seats) or not all(
        isinstance(x, int) and not isinstance(x, bool) and abs(x) < 10**9 for x in scores
    ):
        raise OptionsError(f"scores are none or {seats} whole numbers, one per seat")
    return {"type": RESULT, "winners": sorted(winners), "reason": reason, "scores": scores}


class Outcome:
    """How a finished game ended.

    ``winners`` are seats (several for a partnership or a shared win; empty for a draw),
    ``scores`` one number per seat when the game keeps score (else empty), ``reason`` a
    short machine word (``pattern``, ``resign``, ``draw_agreed``, ``repetition``,
    ``move_cap``, ``last_disc``, ``blocked``, ``points``, ``score``, ``match``...).
    """

    def __init__(self, winners: list[int], reason: str, scores: list[int] | None = None) -> None:
        self.winners = list(winners)
        self.reason = reason
        self.scores = list(scores) if scores is not None else []

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_json(self) -> Obj:
        return {"winners": list(self.winners), "reason": self.reason, "scores": list(self.scores)}

    @staticmethod
    def from_json(data: Obj) -> Outcome:
        return Outcome(list(data["winners"]), str(data["reason"]), list(data.get("scores", [])))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Outcome)
            and self.winners == other.winners
            and self.reason == other.reason
            and self.scores == other.scores
        )

    def __hash__(self) -> int:
        return hash((tuple(self.winners), self.reason, tuple(self.scores)))

    def __repr__(self) -> str:
        return f"Outcome(winners={self.winners!r}, reason={self.reason!r}, scores={self.scores!r})"


@mypyc_attr(allow_interpreted_subclasses=True)
class Game:
    """Base class of every game. Subclasses override every method without a default.

    A game defined outside ``core`` (a plug-in, docs/games.md) subclasses it too, and joins
    ``core.GAMES`` through :func:`core.register`. Such a subclass sets its attributes
    (``name``, ``min_seats``, ``max_seats``) in ``__init__``: a compiled base class keeps them
    per instance.

    ``State`` objects are game-specific classes; callers treat them as opaque values and
    compare them through ``view(state, ALL)``, which must describe the whole state.
    """

    name: str = ""
    min_seats: int = 2
    max_seats: int = 2

    def options(self, raw: Any) -> Obj:
        """Validated table options with defaults filled in (raises :class:`OptionsError`).
        The key ``"seats"`` (number of players) is always present in the result."""
        raise NotImplementedError

    def start(self, options: Obj, rng: Random) -> list[Obj]:
        """The first events of a new game; the first is ``{"type": "start", "options": ...}``
        with the validated options."""
        raise NotImplementedError

    def initial(self) -> Any:
        """The state before any event; ``evolve(initial(), start_event)`` sets it up."""
        raise NotImplementedError

    def evolve(self, state: Any, event: Obj) -> Any:
        """The state after ``event``. Pure: never modifies ``state``, never uses randomness.

        The server's events are the same for every game and handled here, once: a table event
        (:data:`TABLE_EVENTS`) leaves the state as it is (returned as it is: nobody modifies a
        state), a ``result`` (:data:`RESULT`) ends the game with its outcome (:meth:`end`).
        Every other event is the game's own (:meth:`evolve_game`)."""
        kind = event["type"]
        if kind in TABLE_EVENTS:
            return state
        if kind == RESULT:
            return self.end(state, Outcome(list(event["winners"]), str(event["reason"]),
                                           list(event.get("scores") or [])))
        return self.evolve_game(state, event)

    def evolve_game(self, state: Any, event: Obj) -> Any:
        """The state after one of the game's own events (every event but the server's, which
        :meth:`evolve` handles): a new state; ``state`` is never modified."""
        raise NotImplementedError

    def end(self, state: Any, outcome: Outcome) -> Any:
        """A new state: ``state`` ended with ``outcome``, the table organiser's result (a
        ``result`` event, checked by :meth:`decide_result` before it was appended), so that
        :meth:`outcome` gives it."""
        raise NotImplementedError

    def decide(self, state: Any, seat: Any, command: Any, rng: Random) -> list[Obj]:
        """Events produced by ``seat`` sending ``command`` (any JSON value, checked here).
        Chance that follows the command (next deal, next card flip...) is drawn from
        ``rng`` and returned as events too. Raises :class:`IllegalMoveError`."""
        raise NotImplementedError

    def to_act(self, state: Any) -> list[int]:
        """Seats whose command the game is waiting for (several at once in Tedoku)."""
        raise NotImplementedError

    def visible_to_act(self, state: Any, viewer: int) -> list[int]:
        """``to_act`` as ``viewer`` may know it: who is being waited for can itself be a
        secret (Teka's throw-in question goes only to weak hands). Send this, never
        ``to_act``, to clients."""
        return self.to_act(state)

    def legal_commands(self, state: Any, seat: int) -> list[Obj]:
        """Every command ``seat`` may send now, meta commands (resign...) included."""
        raise NotImplementedError

    def forfeit(self, state: Any, seat: Any) -> list[Obj]:
        """Events that end a running game with ``seat`` losing on time (a chess-clock loss,
        reason ``timeout``), or ``[]`` where running out of time does not lose the game (the
        server then has a bot make the seat's move). Raises :class:`IllegalMoveError` when
        the game is over or ``seat`` is not a seat."""
        return []

    def outcome(self, state: Any) -> Outcome | None:
        """``None`` while the game goes on (for a match: until the whole match ends)."""
        raise NotImplementedError

    def view(self, state: Any, viewer: int) -> Obj:
        """What ``viewer`` may see of the state, as JSON. ``view(state, ALL)`` is complete."""
        raise NotImplementedError

    def redact(self, event: Obj, viewer: int) -> Obj:
        """The form of ``event`` that ``viewer`` may receive (hidden parts removed)."""
        raise NotImplementedError

    def secrets(self, state: Any, viewer: int) -> list[str]:
        """Strings that must not occur as a JSON string value in anything sent to ``viewer``
        now (other seats' cards, pending placements, the deck...). Used by the tests."""
        raise NotImplementedError

    def resample(self, view: Obj, viewer: int, rng: Random) -> Any:
        """A complete state consistent with ``view`` (what ``viewer`` sees), hidden parts drawn
        from ``rng`` among the possibilities the viewer cannot rule out. Perfect-information
        games rebuild the exact state. Bots search on these, so they never read real secrets:
        ``view(resample(view(s, v), v, rng), v) == view(s, v)`` for every seat ``v``."""
        raise NotImplementedError

    def decide_result(self, state: Any, command: Any) -> list[Obj]:
        """The events of a ``result`` command, the table organiser's result (``{"type":
        "result", "winners": [...], "reason": ..., "scores": [...]}``), decided like any
        other command: well formed (:func:`result_event`), the game not over, and a result
        this game with its options can have (:meth:`result_problem`). Returns the one
        ``result`` event; raises :class:`IllegalMoveError` saying why not."""
        cmd = require_obj(command)
        if cmd["type"] != RESULT:
            raise IllegalMoveError("malformed", "a result command has the type 'result'")
        if self.outcome(state) is not None:
            raise IllegalMoveError("game_over", "the game is over: its result stands")
        try:
            event = result_event(self.seats(state), cmd.get("winners"), cmd.get("reason"),
                                 cmd.get("scores"))
        except OptionsError as exc:
            raise IllegalMoveError("malformed", str(exc)) from None
        problem = self.result_problem(state, event)
        if problem is not None:
            raise IllegalMoveError("illegal", problem)
        return [event]

    def result_problem(self, state: Any, event: Obj) -> str | None:
        """Why the well-formed ``result`` event cannot be this game's result (its winners or
        scores are impossible for the game and its options), or None. Games override it."""
        return None

    def example_options(self) -> list[Obj]:
        """Representative raw option sets, every variant at least once (tests, benchmarks)."""
        return [{}]

    def seats(self, state: Any) -> int:
        """Number of seats of this game."""
        raise NotImplementedError

    # -- what the server, the leagues, the pages and the app know of a game -------------------
    # Every method below has a default that fits a game of single seats, each playing for
    # itself, drawn by the generic drawing; a game overrides what differs (docs/games.md).

    def title(self) -> str:
        """The game's name for people ("Teeko")."""
        return self.name.replace("_", " ").capitalize()

    def blurb(self) -> str:
        """One or two sentences saying what the game is, for a list of games."""
        return ""

    def sides(self, seats: int) -> list[list[int]]:
        """The sides of a table of ``seats`` seats, each a list of the seats that win or lose
        together (Teka's partnerships: ``[[0, 2], [1, 3]]``); by default each seat alone."""
        return [[s] for s in range(seats)]

    def seat_labels(self, seats: int) -> list[str]:
        """Each seat's place at the table in a word ("White", "North", "Seat 3")."""
        return [f"Seat {s + 1}" for s in range(seats)]

    def side_labels(self, seats: int) -> list[str]:
        """Each side of :meth:`sides` in words ("North-South"); by default its seats' labels."""
        labels = self.seat_labels(seats)
        return ["-".join(labels[s] for s in side) for side in self.sides(seats)]

    def ranking(self, outcome: Outcome, seats: int) -> list[int]:
        """The 0-based place of each seat in a finished game, ties sharing a place, for
        standings and ratings: the winners first, the others by score (highest first) when
        the game keeps one per seat; a draw (no winners) is shared by every seat."""
        winners = set(outcome.winners)
        if not winners:
            return [0] * seats
        scores = outcome.scores if len(outcome.scores) == seats else [0] * seats
        keys = [(0, 0) if s in winners else (1, -scores[s]) for s in range(seats)]
        return [sum(1 for k in keys if k < keys[s]) for s in range(seats)]

    def option_fields(self) -> list[Obj]:
        """The table options a person chooses, in the order to show them: each ``{"name":
        option key, "label": words, "kind": "choice", "choices": [{"value": v, "label":
        words}, ...], "default": v}``. A choice may carry ``"options"``, the options it
        stands for when it is more than one key (``{"points": true, "target": 10}``).
        Options not listed keep their defaults; ``seats`` is never listed."""
        return []

    # -- words (core.wording): each game words its own; the defaults are the shared words -----

    def event_words(self, event: Obj, names: Sequence[str] | None, plain: bool) -> str | None:
        """One of this game's own events, as the viewer received it, in a short sentence ("Ann
        placed c3"), or None for an event it leaves to the shared wording (the start, a draw
        offer, a resignation, the server's and the table's events: :func:`core.wording.
        shared_event`). ``names``: the players' by seat; ``plain``: the pages' wording (a
        move in words; a card reads "10\u2665" either way: :func:`core.wording.card_text`).
        Games override this, not :meth:`describe`."""
        return None

    def describe(self, event: Obj, names: Sequence[str] | None = None,
                 plain: bool = False) -> str:
        """One event, as the viewer received it, in a short sentence: the game's own words
        (:meth:`event_words`), else the shared ones."""
        text = self.event_words(event, names, plain)
        if text is not None:
            return text
        return wording.shared_event(event, names, self.reason_words())

    def reason_words(self) -> dict[str, str]:
        """This game's own outcome reasons in words (``{"pattern": "four in a pattern"}``; ""
        for a reason its scores already say), besides the shared ones (``core.wording.
        REASONS``)."""
        return {}

    def result_text(self, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
        """How a game ended in a line ("Ann wins (four in a pattern)"); "" for no outcome. By
        default the winners and the reason in words."""
        return wording.outcome_text(outcome, names, self.reason_words())

    def doing(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        """What the seats to act are doing, from the view a viewer has ("Ann is bidding",
        "Ann and Bob are drawing the shape"); by default "Ann to play". "" when the game is
        over or nobody is to act, as this viewer sees it."""
        return wording.doing_line(view, names, "")

    def trick_result(self, view: Obj | None, names: Sequence[str] | None = None) -> str:
        """The last trick won, from a view, in a game with tricks ("Bob won trick 3;
        North-South 1, East-West 2"); "" by default."""
        return ""

    def hand_result(self, view: Obj | None) -> str:
        """The last hand scored, from a view, in a game of hands ("Hand 5: North-South bid 9
        and made it"); "" by default."""
        return ""

    def board(self) -> Obj:
        """What a drawing of the game needs, as JSON: ``"drawing"`` names the drawing of
        the pages and the app (``"generic"``, the default, draws any game from its view:
        the seats, whose turn, the view's fields; ``"grid"`` draws ``view[cells]``, a list
        of ``rows`` x ``cols`` entries, each a seat number or null, with ``marks`` by seat);
        ``"step"`` names what the replay steps by ("round", "hand", "turn", or "" for none);
        ``"sheet"`` is true when the game keeps a score sheet the page shows."""
        return {"drawing": "generic", "step": "round", "sheet": False}

    def league(self) -> Obj:
        """How a league pairs players for this game: ``{"pairing": "pairs"}`` (two seats:
        round robin or Swiss), ``"partnerships"`` (four seats, two sides of two, partners
        rotating) or ``"tables"`` (tables of 3 to 8 seats); ``"min_players"`` a round needs."""
        return {"pairing": "pairs", "min_players": 2}

    def analysis_module(self) -> str:
        """The module analysing finished games of this game (``analyse(events)``,
        ``hint(state)``, ``NoTable``: :mod:`core.teeko_analysis`), or "" for none."""
        return ""

    def info(self, seats: int) -> Obj:
        """Everything above as one JSON object, for a table of ``seats`` seats (the
        ``/api/kinds/`` answer, the pages' configuration)."""
        return {
            "kind": self.name,
            "title": self.title(),
            "blurb": self.blurb(),
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "sides": self.sides(seats),
            "seat_labels": self.seat_labels(seats),
            "side_labels": self.side_labels(seats),
            "option_fields": self.option_fields(),
            "board": self.board(),
            "league": self.league(),
            "analysis": bool(self.analysis_module()),
        }


def choice_field(name: str, label: str, choices: list[tuple[Any, str]]) -> Obj:
    """An entry of :meth:`Game.option_fields`: option ``name`` chosen among ``choices``
    (``(value, label)`` pairs), the first one the default."""
    return {"name": name, "label": label, "kind": "choice",
            "choices": [{"value": v, "label": lab} for v, lab in choices],
            "default": choices[0][0]}


def fold(game: Game, events: list[Obj]) -> Any:
    """The state reached by applying ``events`` in order from ``game.initial()``."""
    state = game.initial()
    for event in events:
        state = game.evolve(state, event)
    return state


def apply(game: Game, state: Any, seat: int, command: Any, rng: Random) -> tuple[Any, list[Obj]]:
    """``decide`` then ``evolve``: the new state and the events appended."""
    events = game.decide(state, seat, command, rng)
    for event in events:
        state = game.evolve(state, event)
    return state, events


def dumps(value: JSON) -> str:
    """Canonical compact JSON (sorted keys) used for logs, hashes and comparisons."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def require_obj(command: Any) -> Obj:
    """``command`` as a JSON object with a string ``type``, or a ``malformed`` error."""
    if not isinstance(command, dict) or not isinstance(command.get("type"), str):
        raise IllegalMoveError("malformed", "a command is a JSON object with a string 'type'")
    return command


def check_seat(game: Game, state: Any, seat: Any) -> int:
    """``seat`` as a valid seat number of this game, or a ``wrong_seat`` error."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.seats(state):
        raise IllegalMoveError("wrong_seat", f"no seat {seat!r} at this table")
    return seat


def square_field(command: Obj, key: str, parse: Callable[[str], int]) -> int:
    """The square named by ``command[key]`` (parsed by the game's ``parse``, which raises
    ValueError), or a ``malformed`` error saying what was expected."""
    value = command.get(key)
    if not isinstance(value, str):
        raise IllegalMoveError(
            "malformed", f'\'{command["type"]}\' needs "{key}": a square like "c3"'
        )
    try:
        return parse(value)
    except ValueError as e:
        raise IllegalMoveError("malformed", str(e)) from None
