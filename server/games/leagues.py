"""League standings, computed from the league's finished games (never stored)."""

from __future__ import annotations

from typing import Any

from .models import Game, League, Seat

POINTS_WIN = 3
POINTS_DRAW = 1


def standings(league: League) -> list[dict[str, Any]]:
    """One row per member: played, won, drawn, lost, abandoned, points (3 per win, 1 per
    draw), best first. A member counts in a finished game of the league when they held a
    seat in it. A seat its player left and the others handed to a bot (``seat_to_bot``)
    counts as a loss for that player, whatever the bot made of it, and as abandoned."""
    members = {u.pk: u.get_username() for u in league.members.all()}
    table = {
        pk: {
            "user_id": pk,
            "username": name,
            "played": 0,
            "won": 0,
            "drawn": 0,
            "lost": 0,
            "abandoned": 0,
            "points": 0,
        }
        for pk, name in members.items()
    }
    games = Game.objects.filter(league=league, status=Game.FINISHED)
    seats = Seat.objects.filter(
        game__in=games, kind__in=(Seat.USER, Seat.BOT), user_id__in=list(members)
    )
    outcomes = dict(games.values_list("id", "outcome"))
    for s in seats:
        outcome = outcomes.get(s.game_id) or {}
        winners = outcome.get("winners", [])
        row = table[s.user_id]
        row["played"] += 1
        if s.kind == Seat.BOT:  # (a user on a bot seat: they left it, see above)
            row["abandoned"] += 1
            row["lost"] += 1
        elif not winners:
            row["drawn"] += 1
        elif s.number in winners:
            row["won"] += 1
        else:
            row["lost"] += 1
    for row in table.values():
        row["points"] = POINTS_WIN * row["won"] + POINTS_DRAW * row["drawn"]
    return sorted(
        table.values(), key=lambda r: (-r["points"], -r["won"], r["played"], r["username"])
    )


def league_json(league: League, *, detail: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": league.pk,
        "name": league.name,
        "kind": league.kind,
        "members": sorted(u.get_username() for u in league.members.all()),
        "games": league.games.count(),
    }
    if detail:
        out["standings"] = standings(league)
        out["game_ids"] = list(league.games.order_by("id").values_list("id", flat=True))
    return out
