"""The server's front page (``/``): a table started (front.js: the game, its options, which
seats are phones and which bots) and a seat's code taken; open tables, games in progress,
the latest finished games and the league standings. The tables are the public ones, and for a
logged-in user also their own and their leagues' (``tables.listed``); no seat code is ever
shown here."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

import core
from core import words
from server.games import tables
from server.games.models import Game
from server.games.views import error, last_seqs, open_due_fixtures, viewing_user
from server.games.wording import player_names
from server.leagues import api as league_api
from server.leagues.models import League

HOME_LIMIT = 20
"""Tables shown in each list of the front page."""


def _result(g: Game, names: list[str]) -> str:
    outcome = g.result or {}
    winners = [names[w] for w in outcome.get("winners", []) if 0 <= w < len(names)]
    text = (" & ".join(winners) + (" win" if len(winners) > 1 else " wins")) if winners else "draw"
    scores = outcome.get("scores") or []
    if len(scores) == len(names):
        text += " · " + ", ".join(f"{n} {x}" for n, x in zip(names, scores, strict=True))
    return text


def home(request: HttpRequest) -> HttpResponse:
    """The server's front page: start a table, join one by its code; open tables, games in
    progress, the latest finished games and the league standings (front.js reloads it every
    30 s while nobody is filling in its forms)."""
    if request.method not in ("GET", "HEAD"):
        return error(405, "method_not_allowed", "use GET")
    open_due_fixtures()
    user = viewing_user(request)

    def rows(status: str) -> list[dict[str, Any]]:
        games_ = list(
            tables.listed(Game.objects.filter(status=status), user)
            .select_related("league")
            .prefetch_related("seat_set")
            .order_by("-id")[:HOME_LIMIT]
        )
        seqs = last_seqs(games_) if status == Game.LIVE else {}  # shown for live games only
        out = []
        for g in games_:
            seats = sorted(g.seat_set.all(), key=lambda s: s.number)
            names = [n if s.filled or s.kind == s.BOT else "open"  # bots by seat, as in play
                     for s, n in zip(seats, player_names(g.kind, seats), strict=True)]
            taken = sum(1 for s in seats if s.filled)
            out.append(
                {
                    "id": g.pk,
                    "kind": g.kind,
                    "public": g.public,
                    "league": g.league.name if g.league else "",
                    "seats": (f"{taken} of {len(seats)} taken: " if status == Game.OPEN else "")
                    + ", ".join(names),
                    "seq": seqs.get(g.pk, 0),
                    "result": _result(g, names) if status == Game.FINISHED else "",
                }
            )
        return out

    name = user.get_username() if user is not None else None
    context = {
        "user": name,
        # (front.js: the games from /api/kinds/, the table made with the browser's login or a
        # throw-away organiser's, POST /api/guest/)
        "config": {"user": name},
        "address": request.build_absolute_uri("/").rstrip("/"),
        "open_games": rows(Game.OPEN),
        "live_games": rows(Game.LIVE),
        "finished_games": rows(Game.FINISHED),
        "leagues": [
            {"id": lg.pk, "name": lg.name, "kind": lg.kind, "standings": league_api.standings(lg)}
            for lg in League.objects.all()
        ],
        "core": "compiled" if core.COMPILED else "pure Python",
        "titles": words.joined_and([g.title() for _, g in sorted(core.GAMES.items())]),
    }
    return render(request, "web/home.html", context)
