"""Generating a season's next round: fixtures, each a table of named players (a bot for a
missing one) or a bye. A fixture is *scheduled* until its round is opened (the admin's
"Open the next round", or its date comes: :func:`open_due`); then its game is made, linked
to the season, with the seats reserved for its players, and it is a table like any other."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import Counter
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

import core
from server.games import creating
from server.games.models import Game

from . import pairing, standings
from .models import ClubEvent, Fixture, Season

log = logging.getLogger("server.leagues")

def next_round(season: Season, created_by: Any = None,
               today: dt.date | None = None, override: str = "") -> list[Fixture]:
    """Make the season's next round (all or nothing) and return its fixtures. The first
    round starts a draft season (its entrants fixed: the league's members then); players
    are the season's entrants (:func:`.life.entrants`). A Swiss round is made only when
    the one before is complete, unless ``override`` says why (on the record). The round is
    dated a week after the previous one; dated today or earlier, it is opened at once (its
    games made), else it is scheduled. Raises ValueError saying why not (nobody to pair,
    the season closed, the last Swiss round not played)."""
    from . import life

    league = season.league
    if season.state == Season.CLOSED:
        raise ValueError(f"the season {season.name!r} is closed: no new round (reopen it "
                         "first, with a reason on the record)")
    if (today or timezone.localdate()) > season.end and not override.strip():
        raise ValueError(f"the season {season.name!r} ended on {season.end}: close it, or "
                         "move its end date to play on")
    kind = league.kind
    need = int(core.GAMES[kind].league()["min_players"])
    players = life.entrants(season) if season.state != Season.DRAFT else sorted(
        league.members.values_list("pk", flat=True))
    if len(players) < need:
        who = "members" if season.state == Season.DRAFT else "players in the season"
        raise ValueError(f"{league.name if season.state == Season.DRAFT else season.name} "
                         f"has {len(players)} {who}: a round needs {need}")
    with transaction.atomic():
        Season.objects.select_for_update().filter(pk=season.pk).first()
        last = season.fixtures.aggregate(m=Max("round"))["m"] or 0
        number = last + 1
        if last and season.pairing == Season.SWISS:
            unplayed = season.fixtures.filter(round=last, bye=False).exclude(
                game__status=Game.FINISHED).count()
            if unplayed and not override.strip():
                raise ValueError(
                    f"round {last} of {season.name} has {unplayed} game"
                    f"{'s' if unplayed > 1 else ''} not played yet: a Swiss round pairs by "
                    "the results so far (make it anyway only with a reason on the record)")
            if unplayed:
                life.record(league, ClubEvent.OVERRIDE, created_by, override, season,
                            {"round": number, "unplayed": unplayed})
        if life.start(season, created_by):
            players = life.entrants(season)
        rnd = plan(season, kind, players, number)
        date = min(season.start + dt.timedelta(days=7 * (number - 1)), season.end)
        made = [Fixture(season=season, round=number, table=i, date=date, players=list(seats))
                for i, seats in enumerate(rnd.tables, start=1)]
        for j, p in enumerate(rnd.byes, start=len(rnd.tables) + 1):
            made.append(Fixture(season=season, round=number, table=j, date=date,
                                players=[p], bye=True))
        Fixture.objects.bulk_create(made)
        if date <= (today or timezone.localdate()):
            open_round(season, number, created_by)
    return list(season.fixtures.filter(round=number).select_related("game"))


def open_round(season: Season, number: int | None = None,
               created_by: Any = None) -> list[Fixture]:
    """Open round ``number`` of the season (default: its first round with a scheduled
    fixture): each scheduled fixture's game is made, in the season, its seats reserved for
    the fixture's players. Returns the fixtures opened (none when nothing was scheduled)."""
    if season.state == Season.CLOSED:
        return []  # (a closed season's scheduled rounds stay as they are)
    with transaction.atomic():
        scheduled = (Fixture.objects.select_for_update()
                     .filter(season=season, bye=False, game__isnull=True))
        if number is None:
            first = scheduled.order_by("round").values_list("round", flat=True).first()
            if first is None:
                return []
            number = first
        todo = list(scheduled.filter(round=number).order_by("table"))
        ids = {p for f in todo for p in f.players if p is not None}
        users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids)}
        kind = season.league.kind
        for f in todo:
            specs = [
                {"kind": "user", "user": users[p]} if p is not None else {"kind": "bot"}
                for p in f.players
            ]
            options = table_options(kind, len(f.players))
            f.game = creating.create_game(kind, options, specs, league=season.league,
                                       created_by=created_by, season=season)
            f.save(update_fields=["game"])
    return todo


def open_due(today: dt.date | None = None) -> int:
    """Open every scheduled fixture whose date has come (on or before ``today``). Returns
    how many games were made."""
    today = today or timezone.localdate()
    due = (Fixture.objects.filter(bye=False, game__isnull=True, date__lte=today)
           .values_list("season_id", "round").distinct())
    opened = 0
    for season_id, number in sorted(set(due)):
        season = Season.objects.select_related("league").get(pk=season_id)
        opened += len(open_round(season, number))
    return opened


_checked = [0.0]
DUE_CHECK_EVERY = 30.0
"""Seconds between two looks for fixtures whose date has come (:func:`open_due_now`)."""


def open_due_now() -> None:
    """Open the fixtures whose date has come, looking at most every
    :data:`DUE_CHECK_EVERY` seconds in this process: called by the pages and the API that
    list the tables (the front page, the TV's and the app's list of games), so a round
    opens on its date without anyone opening it."""
    now = time.monotonic()
    if _checked[0] and now - _checked[0] < DUE_CHECK_EVERY:
        return
    _checked[0] = now
    try:
        open_due()
    except Exception:  # (a listing never fails for it: the next look tries again)
        log.exception("could not open the fixtures whose date has come")


def table_options(kind: str, seats: int) -> dict[str, Any]:
    """The options of a league table of ``seats`` players: the game's defaults, with the
    number of seats where the game seats several numbers of players."""
    game = core.GAMES[kind]
    return {"seats": seats} if game.min_seats != game.max_seats else {}


def plan(season: Season, kind: str, players: list[int], number: int) -> pairing.Round:
    """The pairing of round ``number`` (1-based) of the season."""
    r = number - 1
    how = core.GAMES[kind].league()["pairing"]
    if how == "partnerships":
        return pairing.teka(players, r)
    if how == "tables":
        return pairing.tedoku(players, r, season.table_size, seed=season.pk)
    if season.pairing == Season.SWISS:
        past = list(season.fixtures.values_list("players", "bye"))
        met = {frozenset(p) for p, bye in past if not bye and len(p) == 2 and None not in p}
        byes = Counter(p[0] for p, bye in past if bye)
        points = {row.user_id: float(row.points) for row in standings.season_table(season)}
        return pairing.swiss(players, points, met, dict(byes))
    return pairing.round_robin(players, r)
