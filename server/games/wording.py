"""The words for people both apps show of a table (the API, the admin, the club's pages):
a seat's label ("ann", "bot (max)", "open", "ann (left; bot)") and a result in words
("ada & chen win 104-52", "bob wins (adjudicated)", "draw", "void")."""

from __future__ import annotations

from typing import Any

import core
from core.wording import told_apart

from .models import Game
from .seating import seat_replaced


def seat_label(s: Any) -> str:
    """A seat as a list of players names it."""
    if seat_replaced(s):
        return f"{s.name or 'guest'} (left; bot)"
    if s.kind == s.BOT:
        return f"bot ({s.bot_level})" if s.bot_level else "bot"
    if not s.filled:
        return "open"
    return str(s.name or "guest")


def player_names(kind: str, seats: list[Any]) -> list[str]:
    """The players' names by seat as the pages say them, the app's and the live game's way:
    a bot by its name without its level ("Bot (easy)" is "Bot"), bots sharing a name told
    apart by their seat ("Bot North", core.wording.told_apart); a bot that took over a
    player's seat "Ann (bot)"; anyone else by name, else "Seat N"."""
    seats = sorted(seats, key=lambda s: s.number)
    names, bots = [], []
    for s in seats:
        bot = s.kind == s.BOT and not seat_replaced(s)
        if seat_replaced(s):
            names.append(f"{s.name or 'Guest'} (bot)")
        elif bot:
            names.append(str(s.name or "Bot").split(" (")[0] or "Bot")
        else:
            names.append(str(s.name or f"Seat {s.number + 1}"))
        bots.append(bot)
    g = core.GAMES.get(kind)
    labels = g.seat_labels(len(seats)) if g is not None else []
    return told_apart(names, bots, labels)


DECIDED_LABELS = {
    "adjudicated": "adjudicated",
    "forfeit": "by forfeit",
    "off_board": "played off the board",
    "void": "void",
}


def outcome_text(g: Game, seats: list[Any] | None = None,
                 outcome: dict[str, Any] | None = None) -> str:
    """A finished game's result for people: "ada & chen win 104-52", "bob wins",
    "draw", "void"; a result an organiser decided says so ("ann wins (adjudicated)"), a
    corrected one too ("bob wins (corrected)"). "" while the game goes on. ``outcome``:
    words for that result instead of the one that counts."""
    corrected = outcome is None and g.corrected is not None
    outcome = g.result if outcome is None else outcome
    if not outcome:
        return ""
    text = _result_words(g, outcome, seats)
    return f"{text} (corrected)" if corrected else text


def _result_words(g: Game, outcome: dict[str, Any], seats: list[Any] | None) -> str:
    seats = list(g.seat_set.all()) if seats is None else seats
    names = [seat_label(s) for s in seats]
    reason = str(outcome.get("reason", ""))
    if reason == "void":
        return "void"
    winners = [w for w in outcome.get("winners", []) if 0 <= w < len(names)]
    text = (" & ".join(names[w] for w in winners) + (" win" if len(winners) > 1 else " wins")
            if winners else "draw")
    scores = outcome.get("scores") or []
    if reason == "forfeit" and not any(scores):
        scores = []  # (a forfeit before any point: "ann & cy win (by forfeit)", not "0-0")
    sides = core.GAMES[g.kind].sides(len(names)) if g.kind in core.GAMES else []
    if len(scores) == len(names) and len(sides) == 2 < len(names):  # two partnerships
        first = next((i for i, side in enumerate(sides) if winners and winners[0] in side), 0)
        text += f" {scores[sides[first][0]]}-{scores[sides[1 - first][0]]}"
    elif len(scores) == len(names) == 2:
        first = winners[0] if winners else 0
        text += f" {scores[first]}-{scores[1 - first]}"
    elif len(scores) == len(names):
        text += " · " + ", ".join(f"{n} {x}" for n, x in zip(names, scores, strict=True))
    if reason in DECIDED_LABELS:
        text += f" ({DECIDED_LABELS[reason]})"
    return text
