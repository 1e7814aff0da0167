"""The wording every game shares, for people: the pieces each game's words are made of (a
seat, a list of names, a score, a playing card, a move), an outcome in words, the events of the
server and of the table, and what the seats to act are doing. It names no game: each game words
its own events and results in its own module, through the game API (:class:`core.api.Game`,
docs/games.md "Words"), and the base class's defaults are made of what is here.
:mod:`core.words` finds the game for a caller that has only an event or a game's name.

Every sentence words only what it is given: the event as the viewer received it (``redact``ed
for a seat or a spectator), so it never tells more than the event it words (a cut of the deck
says who cut, never where; a drawing before its reveal says who drew, never what). Pure
functions of JSON values; the names are the players' by seat (missing ones read "Seat N").

A card reads as the boards draw it, with its suit's symbol ("Ann played 10♥", never the log's
"TH"). ``plain=True`` is the shared screen's wording: a move as words ("Bob moved b2 to c3");
the app keeps the notation ("b2-c3").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

Obj = dict[str, Any]

REASONS: Final = {
    "resign": "resignation",
    "draw_agreed": "by agreement",
    "repetition": "repetition",
    "move_cap": "move limit",
    "timeout": "out of time",
    "off_board": "played on a board",
    "forfeit": "forfeit",
    "adjudicated": "adjudicated",
    "void": "void",
    "score": "",
}
"""The outcome reasons of the game API and of the table in words, "" for a reason the scores
already say; a game adds its own (``Game.reason_words``)."""

SUIT_NAMES: Final = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}
SUIT_SYMBOLS: Final = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
"""A suit of the standard deck by its letter: its name, and its symbol as the boards draw it."""


# ------------------------------------------------------------------------ the shared pieces


def seat_name(names: Sequence[str] | None, seat: Any) -> str:
    """The player at ``seat``: their name, else "Seat N"; "" when ``seat`` is no seat."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return ""
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"Seat {seat + 1}"


def told_apart(names: Sequence[str], bots: Sequence[bool], labels: Sequence[str]) -> list[str]:
    """Players' names as the live game says them: a bot whose name another seat shares is
    told apart by its seat's word ("Bot North", "Bot 2": ``labels`` are the game's
    ``seat_labels``, a label that is only "Seat N" gives the number); the others as named.
    The one rule of the app (``client_kivy.vm.session.player_names``) and the server's pages
    (``server.web.views.seat_names``, static/web/common.js ``playerNames``)."""
    out = []
    for seat, name in enumerate(names):
        if seat < len(bots) and bots[seat] and list(names).count(name) > 1:
            label = labels[seat] if seat < len(labels) else f"Seat {seat + 1}"
            word = str(seat + 1) if label == f"Seat {seat + 1}" else label
            out.append(f"{name} {word}")
        else:
            out.append(str(name))
    return out


def joined_and(items: Sequence[str]) -> str:
    """A list in words: "a", "a and b", "a, b and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def joined(names: Sequence[str]) -> str:
    """Names that won together: "ada & chen"."""
    return " & ".join(names)


def score_pair(a: int, b: int) -> str:
    """Two scores, " 104-52"; " 63 to -32" when one is below zero."""
    return f" {a} to {b}" if min(a, b) < 0 else f" {a}-{b}"


def seats(value: Any) -> list[int]:
    """The seat numbers in a JSON list (anything else left out)."""
    return [s for s in value or [] if isinstance(s, int) and not isinstance(s, bool)]


def card_text(card: Any) -> str:
    """A card of the standard deck as the boards show it: "9\u2660", "10\u2665" ("9S", "TH"
    in the log); "?" for no card."""
    c = str(card or "")
    if len(c) < 2:
        return "?"
    return ("10" if c[0] == "T" else c[0]) + SUIT_SYMBOLS.get(c[1], c[1:])


def moved(who: str, ev: Obj, plain: bool) -> str:
    """A piece moved from one square to another: "Bob moved b2-c3" ("b2 to c3" ``plain``)."""
    sep = " to " if plain else "-"
    return f"{who} moved {ev.get('from')}{sep}{ev.get('to')}"


# ------------------------------------------------------------------------------ outcomes


class Ending:
    """An outcome as JSON gives it (``Outcome.to_json``), read for wording: ``winners`` (seat
    numbers), ``reason``, ``scores`` (whole numbers), ``why`` (the reason in words, "" when
    the scores say it) and ``paren`` (``why`` in brackets with a space before, or "")."""

    def __init__(self, outcome: Obj, reasons: dict[str, str]) -> None:
        self.winners = seats(outcome.get("winners"))
        self.reason = str(outcome.get("reason") or "")
        self.scores = seats(outcome.get("scores"))
        self.why = reasons.get(self.reason, REASONS.get(self.reason,
                                                        self.reason.replace("_", " ")))
        self.paren = f" ({self.why})" if self.why else ""


def won(who: Sequence[str], score: str = "", paren: str = "") -> str:
    """"Ann wins 20-14 (why)", "ada & chen win ..."; "Draw (why)" when ``who`` is empty."""
    if not who:
        return f"Draw{paren}"
    one = len(who) == 1 and who[0] != "You"  # ("You win", as the app names its player)
    return f"{joined(who)} {'wins' if one else 'win'}{score}{paren}"


def outcome_text(outcome: Obj | None, names: Sequence[str] | None,
                 reasons: dict[str, str]) -> str:
    """How a game ended, in a line (the default of ``Game.result_text``): the winners and the
    reason, "Ann wins (four in a pattern)", "Draw (by agreement)"; "" for no outcome.
    ``reasons``: the game's own reasons in words (``Game.reason_words``)."""
    if not outcome:
        return ""
    o = Ending(outcome, reasons)
    return won([seat_name(names, w) for w in o.winners], "", o.paren)


# ---------------------------------------------------------------------------- events


def shared_event(ev: Obj, names: Sequence[str] | None, reasons: dict[str, str]) -> str:
    """One event every game may have, in a short sentence: the start, a shuffle, a draw
    offer and its answers, a resignation, the server's and the table's events
    (``core.api.TABLE_EVENTS``, a result), else the event's type in words (the default of
    ``Game.describe``). ``reasons``: the game's own reasons in words."""
    t = ev.get("type")
    who = seat_name(names, ev.get("seat"))
    if t == "start":  # a match to a number of points says how many
        opts = ev.get("options") or {}
        target = opts.get("target") if opts.get("points", True) else None
        return "The game starts" + (f": first to {target}" if target else "")
    if t == "shuffle":
        return "The deck is shuffled"
    if t == "resigned":
        return f"{who} resigned"
    if t == "draw_offered":
        return f"{who} offered a draw"
    if t == "draw_accepted":
        return f"{who} accepted the draw" if who else "Draw agreed"
    if t == "draw_declined":
        return f"{who} declined the draw" if who else "Draw declined"
    if t == "timeout":
        return f"{who} ran out of time" if who else "Time ran out"
    if t == "seat_to_bot":
        return f"A bot plays for {who}" if who else "A bot takes a seat"
    if t == "table":
        return "Time rules set"
    if t in ("game_over", "result"):
        how = outcome_text(ev, names, reasons)
        return f"Game over: {how}" if how else "Game over"
    return str(t or "?").replace("_", " ").capitalize()


def doing_line(view: Obj | None, names: Sequence[str] | None, what: str) -> str:
    """What the seats to act in ``view`` are doing (the default of ``Game.doing``): "Ann is
    bidding", "Cy and Di are answering the raise" with ``what`` ("bidding"), "Ann to play"
    without; "" when the game is over or nobody is to act (as this viewer sees it)."""
    if not view or view.get("outcome"):
        return ""
    acting = seats(view.get("to_act"))
    if not acting:
        return ""
    who = joined_and([seat_name(names, s) for s in acting])
    if not what:
        return f"{who} to play"
    return f"{who} {'is' if len(acting) == 1 else 'are'} {what}"
