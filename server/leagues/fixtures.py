"""Generating a season's next round: fixtures, each with its game made and the seats
reserved for the named players (a bot for a missing one), or a bye."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max

from server.games import store

from . import pairing, standings
from .models import Fixture, Season

TWO_PLAYER = ("teeko", "tiku")


def next_round(season: Season, created_by: Any = None) -> list[Fixture]:
    """Make the season's next round (all or nothing) and return its fixtures. Players are
    the league's members (by id). Raises ValueError when there is nobody to pair."""
    league = season.league
    players = sorted(league.members.values_list("pk", flat=True))
    kind = league.kind
    need = 3 if kind == "tedoku" else 2
    if len(players) < need:
        raise ValueError(f"{league.name} has {len(players)} members: a round needs {need}")
    with transaction.atomic():
        Season.objects.select_for_update().filter(pk=season.pk).first()
        last = season.fixtures.aggregate(m=Max("round"))["m"] or 0
        number = last + 1
        rnd = plan(season, kind, players, number)
        date = min(season.start + dt.timedelta(days=7 * (number - 1)), season.end)
        users = {u.pk: u for u in get_user_model().objects.filter(pk__in=players)}
        made = []
        for i, seats in enumerate(rnd.tables, start=1):
            specs = [
                {"kind": "user", "user": users[p]} if p is not None else {"kind": "bot"}
                for p in seats
            ]
            options = {"seats": len(seats)} if kind == "tedoku" else {}
            game = store.create_game(kind, options, specs, league=league, created_by=created_by)
            made.append(Fixture(season=season, round=number, table=i, date=date,
                                players=list(seats), game=game))
        for j, p in enumerate(rnd.byes, start=len(rnd.tables) + 1):
            made.append(Fixture(season=season, round=number, table=j, date=date,
                                players=[p], bye=True))
        Fixture.objects.bulk_create(made)
    return made


def plan(season: Season, kind: str, players: list[int], number: int) -> pairing.Round:
    """The pairing of round ``number`` (1-based) of the season."""
    r = number - 1
    if kind == "teka":
        return pairing.teka(players, r)
    if kind == "tedoku":
        return pairing.tedoku(players, r, season.table_size, seed=season.pk)
    if season.pairing == Season.SWISS:
        past = list(season.fixtures.values_list("players", "bye"))
        met = {frozenset(p) for p, bye in past if not bye and len(p) == 2 and None not in p}
        byes = Counter(p[0] for p, bye in past if bye)
        points = {row.user_id: float(row.points) for row in standings.season_table(season)}
        return pairing.swiss(players, points, met, dict(byes))
    return pairing.round_robin(players, r)
