"""Public club pages (server-rendered, no login): leagues with their seasons, fixtures by
round, standings and ratings; players with their history, rating chart and head-to-head;
CSV exports of standings and fixtures. Nothing here shows a game that is not over beyond
what the front page shows (its players); hidden information never leaves the log."""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from server.games.inputs import text_ok
from server.games.models import Game, Seat
from server.games.wording import outcome_text

from . import fixtures, ratings, standings
from .models import Fixture, League, Rating, Season

CHART_W, CHART_H, PAD = 640, 200, 34
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2"]
ROUNDS_SHOWN = 6
RATINGS_SHOWN = 50


def chart(series: list[tuple[str, list[tuple[datetime, float]]]]) -> dict[str, Any] | None:
    """An SVG line chart (drawn by templates/leagues/chart.html): one polyline per
    (label, [(time, value)]) series, time across, value up. None without two points."""
    pts = [p for _, s in series for p in s]
    if len(pts) < 2:
        return None
    t0, t1 = min(p[0] for p in pts).timestamp(), max(p[0] for p in pts).timestamp()
    v0, v1 = min(p[1] for p in pts), max(p[1] for p in pts)
    if v1 - v0 < 1:
        v0, v1 = v0 - 0.5, v1 + 0.5
    span_t = (t1 - t0) or 1.0

    def xy(t: datetime, v: float) -> str:
        x = PAD + (t.timestamp() - t0) / span_t * (CHART_W - 2 * PAD)
        y = CHART_H - PAD / 2 - (v - v0) / (v1 - v0) * (CHART_H - PAD)
        return f"{x:.1f},{y:.1f}"

    lines = []
    for i, (label, s) in enumerate(series):
        if not s:
            continue
        points = " ".join(xy(t, v) for t, v in s)
        if len(s) == 1:
            points = points + " " + points
        end = xy(*s[-1]).split(",")
        lines.append({"label": label, "points": points, "colour": COLOURS[i % len(COLOURS)],
                      "last": f"{s[-1][1]:.1f}", "x": end[0], "y": end[1]})
    return {"w": CHART_W, "h": CHART_H, "pad": PAD, "lines": lines,
            "top": f"{v1:.1f}", "bottom": f"{v0:.1f}",
            "start": datetime.fromtimestamp(t0).date(), "end": datetime.fromtimestamp(t1).date(),
            "y_top": PAD / 2, "y_bottom": CHART_H - PAD / 2}


def _history(user_ids: list[int], kind: str) -> dict[int, list[tuple[datetime, float]]]:
    out: dict[int, list[tuple[datetime, float]]] = defaultdict(list)
    for uid, at, mu, sigma in Rating.objects.filter(user_id__in=user_ids, kind=kind).order_by(
        "finished_at", "game_id"
    ).values_list("user_id", "finished_at", "mu", "sigma"):
        out[uid].append((at, mu - 3 * sigma))
    return out


def _names(ids: set[int]) -> dict[int, str]:
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


_ratings_cache: dict[tuple[Any, ...], tuple[list[dict[str, Any]], Any]] = {}


def _league_ratings(league: League) -> tuple[list[dict[str, Any]], Any]:
    """Current ratings in the league's kind of its members, best first, and the chart of the
    top five's history (cached until any rating row is written: the newest row's id)."""
    members = standings.members_of(league.pk)
    top = Rating.objects.aggregate(m=Max("id"))["m"]  # (the primary key's index: instant)
    key = (league.pk, league.kind, top, tuple(members))
    hit = _ratings_cache.get(key)
    if hit is None:
        rated = [{**r, "rating": f"{r['rating']:.1f}", "mu": f"{r['mu']:.2f}",
                  "sigma": f"{r['sigma']:.2f}"}
                 for r in ratings.current(league.kind, members)[:RATINGS_SHOWN]]
        best = rated[:5]
        hist = _history([r["user_id"] for r in best], league.kind)
        hit = (rated, chart([(r["username"], hist.get(r["user_id"], [])) for r in best]))
        if len(_ratings_cache) > 64:
            _ratings_cache.clear()
        _ratings_cache[key] = hit
    return hit


@require_safe
def league_list(request: HttpRequest) -> HttpResponse:
    leagues = []
    for lg in League.objects.prefetch_related("seasons"):
        leagues.append({"league": lg, "seasons": list(lg.seasons.all()),
                        "members": lg.members.count()})
    return render(request, "leagues/list.html", {"leagues": leagues})


def _season(seasons: list[Season], request: HttpRequest) -> Season | None:
    """Of the league's ``seasons`` (latest first), the one asked for (``?season=<id>``;
    ``all``: none, all time), else the latest."""
    raw = request.GET.get("season", "")
    if raw == "all":
        return None
    if raw:
        if not (raw.isascii() and raw.isdigit() and len(raw) < 19):
            raise Http404("no such season")
        found = [s for s in seasons if s.pk == int(raw)]
        if not found:
            raise Http404("no such season")
        return found[0]
    return seasons[0] if seasons else None


def _league(league_id: int) -> League:
    lg = League.objects.filter(pk=league_id).first()
    if lg is None:
        raise Http404("no such league")
    return lg


def _fixture_rows(season: Season, all_rounds: bool) -> tuple[list[dict[str, Any]], int]:
    qs = Fixture.objects.filter(season=season).select_related("game")
    last = qs.aggregate(m=Max("round"))["m"] or 0
    if not all_rounds:
        qs = qs.filter(round__gt=last - ROUNDS_SHOWN)
    fixtures = list(qs.order_by("-round", "table"))
    ids = {p for f in fixtures for p in f.players if p is not None}
    names = _names(ids)
    games = [f.game for f in fixtures if f.game is not None]
    seats: dict[int, list[Seat]] = defaultdict(list)
    for s in Seat.objects.filter(game__in=games).order_by("number"):
        seats[s.game_id].append(s)
    rounds: dict[int, dict[str, Any]] = {}
    for f in fixtures:
        r = rounds.setdefault(f.round, {"round": f.round, "date": f.date, "tables": []})
        g = f.game
        players = [{"name": names.get(p, "?") if p is not None else "bot",
                    "user": p is not None} for p in f.players]
        sides = [[players[s] for s in side if s < len(players)]
                 for side in standings.game_of(season.league.kind).sides(len(players))]
        r["tables"].append({
            "sides": sides,
            "table": f.table,
            "players": [{"name": names.get(p, "?") if p is not None else "bot",
                         "user": p is not None} for p in f.players],
            "bye": f.bye,
            "game": g.pk if g else None,
            "status": g.status if g else "" if f.bye else "scheduled",
            "result": outcome_text(g, seats.get(g.pk, [])) if g and g.outcome else "",
        })
    return list(rounds.values()), last


HISTORY_SHOWN = 30
OTHERS_SHOWN = 20


def other_games(lg: League, season: Season | None) -> list[dict[str, Any]]:
    """The league's latest finished games that are no fixture (of the season shown, or
    all), in words, each saying whether it counts in the table shown."""
    games = Game.objects.filter(league=lg, status=Game.FINISHED, fixture__isnull=True)
    if season is not None:
        games = games.filter(season=season)
    counted = {r.game_id for r in standings.results(lg, season) if r.counts}
    out = []
    for g in games.order_by("-finished_at", "-id").prefetch_related("seat_set")[:OTHERS_SHOWN]:
        out.append({"id": g.pk, "at": g.finished_at, "result": outcome_text(g),
                    "counts": g.pk in counted})
    return out



def history(lg: League) -> list[dict[str, Any]]:
    """The league's record for people, newest first: the organisers' actions (seasons,
    entries, members) and the corrections of its games' results, who, when and why."""
    from server.games.models import Correction

    out: list[dict[str, Any]] = []
    for e in lg.record.select_related("season").order_by("-id")[:HISTORY_SHOWN]:
        what = e.get_action_display()
        if e.season is not None:
            what += f": {e.season.name}"
        names = e.data.get("names") or ([e.data["name"]] if e.data.get("name") else [])
        if names:
            what += f" ({', '.join(str(n) for n in names)})"
        out.append({"at": e.at, "by": e.by, "what": what, "why": e.why})
    for c in Correction.objects.filter(game__league=lg).select_related("game") \
            .order_by("-id")[:HISTORY_SHOWN]:
        out.append({"at": c.at, "by": c.by, "why": c.why, "game": c.game_id,
                    "what": f"result of game #{c.game_id} corrected: "
                            f"{outcome_text(c.game, None, c.old_result)} → "
                            f"{outcome_text(c.game, None, c.new_result)}"})
    out.sort(key=lambda x: x["at"], reverse=True)
    return out[:HISTORY_SHOWN]


@require_safe
def league_page(request: HttpRequest, league_id: int) -> HttpResponse:
    lg = _league(league_id)
    fixtures.open_due_now()
    seasons = list(lg.seasons.all())
    season = _season(seasons, request)
    rows = standings.season_table(season) if season else standings.all_time_table(lg)
    all_rounds = request.GET.get("rounds") == "all"
    rounds, last_round = _fixture_rows(season, all_rounds) if season else ([], 0)
    rated, rating_chart = _league_ratings(lg)
    shown_rows = [{**r.to_json(), "h2h": f"{r.h2h:g}", "sb": f"{r.sb:g}"} for r in rows]
    context = {
        "others": other_games(lg, season),
        "history": history(lg),
        "league": lg, "season": season, "seasons": seasons, "rows": shown_rows,
        "rounds": rounds, "more_rounds": not all_rounds and last_round > ROUNDS_SHOWN,
        "ratings": rated,
        "chart": rating_chart,
        "season_q": f"season={season.pk}" if season else "season=all",
    }
    return render(request, "leagues/league.html", context)


def _csv_response(name: str) -> tuple[HttpResponse, Any]:
    resp = HttpResponse(content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{name}"'
    resp.write("\ufeff")  # a byte-order mark: spreadsheet programs then read it as UTF-8
    return resp, csv.writer(resp)


FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
"""What a spreadsheet may read a cell starting with as a formula (OWASP, "CSV Injection":
=, +, -, @, tab, carriage return; also a line feed, and the full-width forms of the four
signs, which some spreadsheet programs take for them)."""


def cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet will not run as a formula: a text that starts (after
    any spaces, which a spreadsheet may drop) with a formula's first character is prefixed
    with a single quote, as OWASP advises; the quote shows it was done."""
    if isinstance(value, str) and value.lstrip(" ")[:1] in FORMULA_STARTS:
        return "'" + value
    return value


@require_safe
def standings_csv(request: HttpRequest, league_id: int) -> HttpResponse:
    lg = _league(league_id)
    season = _season(list(lg.seasons.all()), request)
    rows = standings.season_table(season) if season else standings.all_time_table(lg)
    resp, out = _csv_response(f"standings-{lg.pk}-{season.pk if season else 'all'}.csv")
    out.writerow(["rank", "player", "played", "won", "drawn", "lost", "abandoned",
                  "adjudicated", "points", "head_to_head", "sonneborn_berger"])
    for r in rows:
        out.writerow([r.rank, cell(r.username), r.played, r.won, r.drawn, r.lost, r.abandoned,
                      r.adjudicated, r.points, f"{r.h2h:g}", f"{r.sb:g}"])
    return resp


@require_safe
def fixtures_csv(request: HttpRequest, league_id: int) -> HttpResponse:
    lg = _league(league_id)
    season = _season(list(lg.seasons.all()), request)
    if season is None:
        raise Http404("fixtures belong to a season")
    rounds, _ = _fixture_rows(season, True)
    resp, out = _csv_response(f"fixtures-{lg.pk}-{season.pk}.csv")
    out.writerow(["round", "date", "table", "players", "bye", "game", "status", "result",
                  "url"])
    base = request.build_absolute_uri("/").rstrip("/")
    for r in sorted(rounds, key=lambda r: r["round"]):
        for t in r["tables"]:
            out.writerow([r["round"], r["date"].isoformat(), t["table"],
                          cell(" / ".join(p["name"] for p in t["players"])),
                          "yes" if t["bye"] else "", t["game"] or "", t["status"],
                          cell(t["result"]), f"{base}/games/{t['game']}/" if t["game"] else ""])
    return resp


@require_safe
def player_page(request: HttpRequest, username: str) -> HttpResponse:
    if not text_ok(username):  # NUL and control characters are no one's name (and no SQL)
        raise Http404("no such player")
    user = get_user_model().objects.filter(username=username[:150]).first()
    if user is None:
        raise Http404("no such player")
    games = Game.objects.filter(status=Game.FINISHED, seat_set__user=user).distinct()
    res = standings.results_of(games)
    opponents: dict[int, dict[str, Any]] = {}
    history = []
    for r in reversed(res):
        mine = [s for s, p in enumerate(r.players) if p == user.pk]
        if not mine:
            continue
        me = mine[0]
        places = r.places()
        if not r.void:
            for s, p in enumerate(r.players):
                if p is None or p == user.pk or not r.opponents(me, s):
                    continue
                h = opponents.setdefault(p, {"played": 0, "won": 0, "drawn": 0, "lost": 0})
                h["played"] += 1
                key = "won" if places[me] < places[s] else "lost" if places[me] > places[s] \
                    else "drawn"
                h[key] += 1
        history.append(r)
    names = _names({p for p in opponents} | {p for r in history[:100] for p in r.players
                                              if p is not None})
    rating_rows = {(g, k): (mu - 3 * sg, mu - 3 * sg - (mb - 3 * sb)) for g, k, mu, sg, mb, sb in
                   Rating.objects.filter(user=user).values_list(
                       "game_id", "kind", "mu", "sigma", "mu_before", "sigma_before")}
    game_rows = {g.pk: g for g in Game.objects.filter(pk__in=[r.game_id for r in history[:100]])
                 .select_related("league").prefetch_related("seat_set")}
    shown = []
    for r in history[:100]:
        g = game_rows[r.game_id]
        rating = rating_rows.get((r.game_id, r.kind))
        shown.append({"game": g, "result": outcome_text(g, list(g.seat_set.all())),
                      "players": [names.get(p, "?") if p is not None else "-"
                                  for p in r.players],
                      "adjudicated": r.adjudicated,
                      "rating": f"{rating[0]:.1f}" if rating else "",
                      "change": f"{rating[1]:+.1f}" if rating else ""})
    kinds = sorted({k for _, k in rating_rows})
    series = []
    for kind in kinds:
        pts = [(at, mu - 3 * sg) for at, mu, sg in Rating.objects.filter(user=user, kind=kind)
               .order_by("finished_at", "game_id").values_list("finished_at", "mu", "sigma")]
        series.append((kind, pts))
    h2h = sorted(({"name": names.get(p, "?"), **v} for p, v in opponents.items()),
                 key=lambda x: (-x["played"], x["name"]))
    context = {"player": user, "ratings": ratings.current(users=[user.pk]),
               "chart": chart(series), "history": shown, "total": len(history), "h2h": h2h}
    return render(request, "leagues/player.html", context)
