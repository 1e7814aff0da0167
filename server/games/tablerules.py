"""A table's time rules as the log carries them (``{"type": "table", ...}`` events, see
:mod:`server.games.clocks`): checking the rules asked for at creation, the event that carries
them, and reading them back from a log or the database."""

from __future__ import annotations

import json
from random import Random
from typing import Any

from django.db import connection

import core
from core import upcast
from core.api import OptionsError, fold

from .inputs import shown

RULE_KEYS = ("move_limit", "clock", "increment", "abandon")
LIMITS = {
    "move_limit": (1, 86400),
    "clock": (1, 86400),
    "increment": (0, 3600),
    "abandon": (1, 86400),
}

_loses_on_time: dict[str, bool] = {}


def loses_on_time(kind: str) -> bool:
    """Whether running out of time loses ``kind`` (the core's ``forfeit`` gives events)."""
    if kind not in _loses_on_time:
        g = core.GAMES[kind]
        st = fold(g, g.start(g.options({}), Random(0)))
        acting = g.to_act(st)
        _loses_on_time[kind] = bool(acting and g.forfeit(st, acting[0]))
    return _loses_on_time[kind]


def parse_rules(kind: str, raw: Any) -> dict[str, Any] | None:
    """Validated table rules, or None (no rules: a kiosk table). ``raw``: an object with
    ``move_limit`` (seconds per decision), or ``clock`` (seconds per player for the whole
    game, Teeko and Tiku only) with an optional ``increment`` (seconds added after each of
    the player's moves), and ``abandon`` (seconds a seat must be away before the others may
    hand it to a bot); whole numbers. Raises OptionsError."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise OptionsError("table is an object like {'move_limit': 30, 'abandon': 120}")
    for key in raw:
        if key not in RULE_KEYS:
            raise OptionsError(f"unknown table rule {shown(key)}; known: {', '.join(RULE_KEYS)}")
    out: dict[str, Any] = {}
    for key in RULE_KEYS:
        value = raw.get(key)
        lo, hi = LIMITS[key]
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi
        ):
            raise OptionsError(f"table rule {key!r} is a whole number of seconds, {lo} to {hi}")
        out[key] = value
    if out["move_limit"] is not None and out["clock"] is not None:
        raise OptionsError("a table has a move_limit or a clock, not both")
    if out["increment"] is not None and out["clock"] is None:
        raise OptionsError("an increment goes with a clock")
    if out["clock"] is not None and not loses_on_time(kind):
        raise OptionsError(
            f"{kind} has no per-player clock (a timed-out seat's move is made by a bot): "
            "use move_limit"
        )
    if all(v is None for v in out.values()):
        return None
    out["increment"] = out["increment"] or 0
    return out


def table_rules(game_ids: list[int]) -> dict[int, dict[str, Any]]:
    """(database thread) each timed game's rules, from its last ``table`` event (one query);
    games without rules are absent."""
    if not game_ids:
        return {}
    with connection.cursor() as cur:
        cur.execute(
            "SELECT DISTINCT ON (e.game_id) e.game_id, e.payload::text, e.version, g.kind "
            "FROM games_event e JOIN games_game g ON g.id = e.game_id "
            "WHERE e.game_id = ANY(%s) AND e.type = 'table' ORDER BY e.game_id, e.seq DESC",
            [list(game_ids)],
        )
        rows = cur.fetchall()
    out: dict[int, dict[str, Any]] = {}
    for gid, payload, version, kind in rows:
        ev = upcast.upcast(kind, version, json.loads(payload))
        out[int(gid)] = {k: ev.get(k) for k in (*RULE_KEYS, "running")}
    return out


def table_event(rules: dict[str, Any], running: bool) -> dict[str, Any]:
    return {"type": "table", **{k: rules.get(k) for k in RULE_KEYS}, "running": running}


def rules_in(log_: list[tuple[int, int | None, dict[str, Any]]]) -> dict[str, Any] | None:
    """The last ``table`` event of a log's records (seq, seat, event), or None."""
    found = None
    for _seq, _seat, ev in log_:
        if ev["type"] == "table":
            found = ev
    return found
