"""Leagues in the JSON API (``/api/leagues/``, docs/protocol.md): the list, one league with
its standings (computed from the league's finished games, never stored), seasons and games."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from server.games import cache, corrections
from server.games.models import Game
from server.games.views import ApiError, api, body, game_json

from .models import League


def standings(league: League) -> list[dict[str, Any]]:
    """The league's all-time standings (:func:`server.leagues.standings.all_time_table`):
    one row per member and per other player of its finished games: played, won, drawn, lost,
    abandoned, adjudicated, points (3 per win, 1 per draw), rank, best first. A seat its
    player left and the others handed to a bot (``seat_to_bot``) counts as a loss for that
    player, whatever the bot made of it, and as abandoned."""
    from server.leagues.standings import all_time_table

    keys = ("user_id", "username", "played", "won", "drawn", "lost", "abandoned",
            "adjudicated", "points", "rank")
    return [{k: getattr(r, k) for k in keys} for r in all_time_table(league)]


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
        out["seasons"] = [
            {"id": s.pk, "name": s.name, "start": s.start.isoformat(), "end": s.end.isoformat()}
            for s in league.seasons.all()
        ]
        out["page"] = f"/leagues/{league.pk}/"
    return out


@api(("GET",))
def league_list(request: HttpRequest) -> Any:
    return {
        "leagues": [league_json(lg) for lg in League.objects.prefetch_related("members")]
    }


@api(("GET",))
def league_detail(request: HttpRequest, league_id: int) -> Any:
    lg = League.objects.filter(pk=league_id).first()
    if lg is None:
        raise cache.NotFound(f"no league {league_id}")
    return league_json(lg, detail=True)


@api(("POST",))
def correct(request: HttpRequest, game_id: int) -> Any:
    """``POST /api/games/<id>/correct/ {"why", "reason", "winners", "scores"}``: an
    organiser corrects a finished game's result (:func:`.results.correct_result`); the
    answer is the game with its corrections."""
    from .access import is_organiser
    from .results import correct_result

    user = request.api_user  # type: ignore[attr-defined]
    if user is None:
        raise ApiError(401, "unauthorized", "log in as a league organiser to correct a result")
    if not is_organiser(user):
        raise ApiError(403, "forbidden", "only league organisers correct results")
    g = Game.objects.filter(pk=game_id).first()
    if g is None:
        raise cache.NotFound(f"no game {game_id}")
    data = body(request)
    try:
        correct_result(g, user, data.get("why", ""), data.get("winners", []),
                       data.get("reason", "adjudicated"), data.get("scores"))
    except corrections.CorrectionStale as exc:
        raise ApiError(409, "stale", str(exc)) from None
    g.refresh_from_db()
    return game_json(g)
