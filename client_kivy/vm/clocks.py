"""Time rules in the app (no Kivy): the new-table form's choices, each seat's clock text,
and when another player's abandoned seat may be handed to a bot (docs/protocol.md, "Time
rules and abandoned seats"). The game screen asks these once a second."""

from __future__ import annotations

import math
import time
from typing import Any

Obj = dict[str, Any]

URGENT = 10.0
"""Seconds left from which a clock reads as urgent."""

CHESS_CLOCK_GAMES = ("teeko", "tiku")

ABANDON_CHOICES: list[tuple[str, str]] = [("", "Never"), ("60", "1 min"), ("180", "3 min")]


def time_choices(game: str) -> list[tuple[str, str]]:
    """The form's time rules for ``game``: (value, label); the first is the default."""
    out = [("", "None"), ("move:30", "30 s a move"), ("move:60", "1 min a move"),
           ("move:120", "2 min a move")]
    if game in CHESS_CLOCK_GAMES:
        out.append(("clock:300:5", "5 min + 5 s"))
    return out


def table_rules(time_rule: str, abandon: str) -> Obj | None:
    """``Api.create(table=...)`` for the form's choices, or None (no time rules)."""
    table: Obj = {}
    parts = time_rule.split(":") if time_rule else []
    if parts and parts[0] == "move":
        table["move_limit"] = int(parts[1])
    elif parts and parts[0] == "clock":
        table["clock"] = int(parts[1])
        table["increment"] = int(parts[2]) if len(parts) > 2 else 0
    if abandon:
        table["abandon"] = int(abandon)
    return table or None


def fmt_seconds(seconds: float) -> str:
    """``23.2`` -> ``0:24``, ``3725`` -> ``1:02:05`` (whole seconds, rounded up: 0:00 only
    when the time is up)."""
    s = max(0, math.ceil(seconds - 1e-6))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def seat_time(session: Any, seat: int, now: float | None = None) -> float | None:
    """Seconds ``seat`` has, as far as this viewer may know: its move's deadline while it is
    waited for; with a chess clock, its time on the clock (running while it is waited for).
    None when the table has no time rule for it."""
    clock = getattr(session, "clock", None)
    if not clock or getattr(session, "outcome", None) is not None:
        return None
    elapsed = (time.monotonic() if now is None else now) - float(getattr(session, "clock_at", 0))
    waited = {d.get("seat"): float(d.get("ms", 0)) / 1000 for d in clock.get("deadlines") or []}
    remaining = clock.get("remaining")
    if isinstance(remaining, list) and 0 <= seat < len(remaining):
        left = float(remaining[seat]) / 1000
        if seat in waited and clock.get("running", True):
            left -= elapsed
        return max(0.0, left)
    if seat in waited:
        return max(0.0, waited[seat] - elapsed)
    return None


def seat_clock(session: Any, seat: int, now: float | None = None) -> tuple[str, bool]:
    """The chip's clock text and whether it is urgent (the last :data:`URGENT` seconds of a
    running clock). Urgent reads differently, not only in colour: ``!0:07``."""
    left = seat_time(session, seat, now)
    if left is None:
        return "", False
    clock = session.clock or {}
    running = any(d.get("seat") == seat for d in clock.get("deadlines") or [])
    urgent = running and left <= URGENT
    text = fmt_seconds(left)
    return ("!" + text if urgent else text), urgent


def seat_away(session: Any, seat: int, now: float | None = None) -> float | None:
    """Seconds ``seat`` has been away (no socket), counted on from the last presence frame."""
    players = getattr(session, "players", [])
    if not 0 <= seat < len(players):
        return None
    away = players[seat].get("away")
    if away is None:
        return None
    at = float(getattr(session, "presence_at", 0.0))
    return float(away) + ((time.monotonic() if now is None else now) - at if at else 0.0)


def abandon_after(session: Any) -> int | None:
    clock = getattr(session, "clock", None) or {}
    value = clock.get("abandon")
    return int(value) if value else None


def can_hand_to_bot(session: Any, seat: int, now: float | None = None) -> bool:
    """True when this player may hand ``seat`` to a bot: an online seat holder, the game
    going on with an ``abandon`` rule, another player's taken seat (not a bot, not replaced)
    away at least that long."""
    if getattr(session, "kind", "") != "remote" or session.outcome is not None:
        return False
    viewer = getattr(session, "seat", None)
    limit = abandon_after(session)
    if viewer is None or viewer < 0 or seat == viewer or limit is None:
        return False
    if not 0 <= seat < len(session.players):
        return False
    p = session.players[seat]
    if p.get("kind") == "bot" or p.get("replaced") or not p.get("taken", True):
        return False
    if p.get("connected") is not False:
        return False
    away = seat_away(session, seat, now)
    return away is not None and away >= limit


def chip_name(session: Any, seat: int) -> str:
    """A seat's name on its chip: a seat its player left and a bot now plays reads
    ``Ann (left; bot)``."""
    players = getattr(session, "players", [])
    if 0 <= seat < len(players) and players[seat].get("replaced"):
        return f"{players[seat].get('name') or 'Player'} (left; bot)"
    return str(session.player_name(seat))
