"""Events and results in words, for people: the app's replay captions and move list, and the
sentence the server sends the web pages with each event (docs/web.md).

``describe(event, names)`` is one short sentence for one event of any of the four games:
"Ann placed c3", "Bob moved b2-c3", "Dan cut the deck", "Hand 5: North-South bid 13 and
went down". ``result(kind, outcome, names)`` says how a game ended: "ada & chen win 104-52",
"Ann wins (four in a pattern)", "Draw (by agreement)".

Both word only what they are given: the event as the viewer received it (``redact``ed for
a seat or a spectator), so a sentence never tells more than the event it words (a Teka cut
says who cut, never where; a Tedoku drawing before the reveal says who drew, never what).
Pure functions of JSON values; the names are the players' by seat (missing ones read
"Seat N")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

Obj = dict[str, Any]

SIDES: Final = ("North-South", "East-West")
"""Teka's partnerships: seats 0 and 2, seats 1 and 3."""

SUIT_NAMES: Final = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}

CALLS: Final = {"pass": "passed", "ter": "said ter", "behi ter": "said behi ter",
                "double 13": "bid double 13"}
"""A Teka call that is not a number, as a verb."""

REASONS: Final = {
    "pattern": "four in a pattern",
    "resign": "resignation",
    "draw_agreed": "by agreement",
    "repetition": "repetition",
    "move_cap": "move limit",
    "last_disc": "every disc laid",
    "blocked": "no move left",
    "timeout": "out of time",
    "fewest_empty": "fewest empty squares",
    "shared": "shared",
    "off_board": "played on a board",
    "forfeit": "forfeit",
    "adjudicated": "adjudicated",
    "void": "void",
}
"""An outcome's reason in words (reasons that only repeat the scores are left out)."""

QUIET: Final = frozenset({"score", "points", "match"})
"""Reasons the scores already say."""


def seat_name(names: Sequence[str] | None, seat: Any) -> str:
    """The player at ``seat``: their name, else "Seat N"; "" when ``seat`` is no seat."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return ""
    if names and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"Seat {seat + 1}"


def side_name(seat: int) -> str:
    """Teka: the partnership of ``seat``."""
    return SIDES[seat % 2]


def _call(call: Any) -> str:
    if isinstance(call, int) and not isinstance(call, bool):
        return f"bid {call}"
    return CALLS.get(str(call), f"called {call}")


def _target(card: Any) -> str:
    """A Tedoku card ("row:F", "col:3", "sector:7") in words: "row F", "column 3"..."""
    kind, _, value = str(card or "").partition(":")
    return {"row": "row", "col": "column", "sector": "sector"}.get(kind, kind) + (
        f" {value}" if value else "")


def describe(ev: Obj, names: Sequence[str] | None = None) -> str:
    """One event in a short sentence, from the fields the event has (a redacted event
    has fewer, and its sentence says less)."""
    t = ev.get("type")
    who = seat_name(names, ev.get("seat"))
    if t == "placed" and "to" in ev:  # Teeko
        return f"{who} placed {ev['to']}"
    if t == "placed":  # Tedoku: the drawing, or (before the reveal) only that there is one
        if ev.get("skip"):
            return f"{who} skipped the turn"
        if "cells" not in ev:
            return f"{who} has drawn"
        return f"{who} drew {ev.get('shape') or ''} {' '.join(ev.get('cells') or [])}".strip()
    if t == "moved":
        return f"{who} moved {ev.get('from')}-{ev.get('to')}"
    if t == "play":
        sig = f" ({ev['signal']})" if ev.get("signal") else ""
        return f"{who} played {ev.get('card')}{sig}"
    if t == "bid":
        return f"{who} {_call(ev.get('call'))}"
    if t == "trumps":
        suit = ev.get("suit")
        return f"{who} named {SUIT_NAMES.get(str(suit), suit)} trumps"
    if t == "flip":
        return f"Turn {ev.get('turn')}: {_target(ev.get('card'))}, die {ev.get('die')}"
    if t == "deal":
        by = seat_name(names, ev.get("dealer"))
        return f"Hand {ev.get('hand')} dealt" + (f" by {by}" if by else "")
    if t == "reveal":
        return f"Turn {ev.get('turn')}: drawings revealed"
    if t == "cut":
        return f"{who} cut the deck" if who else "The deck is cut"
    if t == "shuffle":
        return "The deck is shuffled"
    if t == "draw":
        return "Cards drawn for partners and seats"
    if t == "score":
        bid = "double 13" if ev.get("double13") else ev.get("bid")
        side = side_name(int(ev["bidder"])) if isinstance(ev.get("bidder"), int) else "The bidders"
        made = "made it" if ev.get("made") else "went down"
        return f"Hand {ev.get('hand')}: {side} bid {bid} and {made}"
    if t == "keep":
        return f"{who} kept the hand" if who else "A hand is kept"
    if t == "throw_in":
        return f"{who} threw the hand in" if who else "The hand is thrown in"
    if t == "raise":
        return f"{who} raised to {ev.get('to')}"
    if t == "accept_raise":
        return f"{who} accepted the raise" if who else "The raise is accepted"
    if t == "refuse_raise":
        return f"{who} refused the raise" if who else "The raise is refused"
    if t == "start":
        opts = ev.get("options") or {}
        target = opts.get("target") if opts.get("points", True) else None
        return "The game starts" + (f": first to {target}" if target else "")
    if t == "first_player":
        return f"{who} starts"
    if t == "passed":
        return f"{who} passed"
    if t == "resigned":
        return f"{who} resigned"
    if t == "draw_offered":
        return f"{who} offered a draw"
    if t == "draw_accepted":
        return f"{who} accepted the draw" if who else "Draw agreed"
    if t == "draw_declined":
        return f"{who} declined the draw" if who else "Draw declined"
    if t == "round_end":
        won = [seat_name(names, w) for w in ev.get("winners") or []]
        r = f"Round {ev.get('round')}" if ev.get("round") is not None else "The round"
        return f"{r} to {' & '.join(won)}" if won else f"{r} is drawn"
    if t == "next_round":
        return f"Round {ev['round']} starts" if ev.get("round") is not None else "Next round"
    if t == "timeout":
        return f"{who} ran out of time" if who else "Time ran out"
    if t == "seat_to_bot":
        return f"A bot plays for {who}" if who else "A bot takes a seat"
    if t == "table":
        return "Time rules set"
    if t in ("game_over", "result"):
        how = result("", ev, names)
        return f"Game over: {how}" if how else "Game over"
    return str(t or "?").replace("_", " ").capitalize()


def joined_and(items: Sequence[str]) -> str:
    """A list in words: "a", "a and b", "a, b and c"."""
    if len(items) <= 2:
        return " and ".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _joined(names: list[str]) -> str:
    return " & ".join(names)


def result(kind: str, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
    """How a game ended, in a line: who won and the score ("ada & chen win 104-52", "Ann
    wins 54-40-31"), the reason where the score does not say it ("Ann wins (four in a
    pattern)"), "Draw (repetition)"; "" for no outcome."""
    if not outcome:
        return ""
    winners = [w for w in outcome.get("winners") or [] if isinstance(w, int)]
    reason = str(outcome.get("reason") or "")
    scores = [s for s in outcome.get("scores") or [] if isinstance(s, int)]
    why = "" if reason in QUIET else REASONS.get(reason, reason.replace("_", " "))
    paren = f" ({why})" if why else ""
    if kind == "tedoku" and len(scores) == 1:  # solo: the rulebook's tier is the reason
        return f"{reason or 'Game over'}: {scores[0]} points"
    if not winners:
        return f"Draw{paren}"
    if kind == "teka":
        side = winners[0] % 2
        who = [seat_name(names, s) for s in range(side, 4, 2)] if names else [side_name(side)]
        score = ""
        if len(scores) == 4:
            score = f" {scores[side]}-{scores[1 - side]}"
        return f"{_joined(who)} win{score}{paren}"
    who = [seat_name(names, w) for w in winners]
    verb = "win" if len(who) > 1 else "wins"
    score = ""
    if kind == "tedoku" and scores:
        order = sorted(range(len(scores)), key=lambda s: (s not in winners, -scores[s], s))
        score = " " + "-".join(str(scores[s]) for s in order)
    elif kind == "tiku" and reason == "points" and len(scores) == 2:
        score = f" {scores[winners[0]]}-{scores[1 - winners[0]]}"
    elif kind == "tiku" and len(scores) == 2 and len(winners) == 1:
        other = 1 - winners[0]
        left = scores[other]
        discs = f"{left} disc{'s' if left != 1 else ''}"
        paren = f" ({why}; {seat_name(names, other)} had {discs} left)"
    return f"{_joined(who)} {verb}{score}{paren}"
