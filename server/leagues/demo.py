"""Club demo data (part of ``load_demo``): a Teeko club league with two seasons, fixtures
made by the real pairing (round robin, then Swiss), games played by seeded random moves and
stored with their dates, an adjudicated and an off-board result, the next round waiting to
be played, and the ratings they give. Idempotent: nothing is made when the league exists."""

from __future__ import annotations

import datetime as dt
from random import Random
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

import core
from core import upcast
from core.api import META_COMMANDS
from server.games import append, cache, creating

from . import fixtures, life, ratings, results
from .models import Fixture, League, Season

LEAGUE = "Tuesday Teeko club"
PLAYERS = [("ada", "Ada"), ("bruno", "Bruno"), ("chen", "Chen"), ("dita", "Dita"),
           ("emil", "Emil"), ("fern", "Fern")]
OPTIONS = {"move_cap": 200}


def play(kind: str, options: dict[str, Any], seed: int, stop: int | None = None
         ) -> list[dict[str, Any]]:
    """A game's log of seeded random moves (records ``{"seat", "event"}``), to the end or
    ``stop`` commands."""
    game = core.GAMES[kind]
    rng = Random(seed)
    events = game.start(game.options(options), rng)
    v = upcast.current(kind)
    recs: list[dict[str, Any]] = [{"seat": None, "event": e, "v": v} for e in events]
    state = core.api.fold(game, events)
    n = 0
    while game.outcome(state) is None and (stop is None or n < stop):
        seat = rng.choice(game.to_act(state))
        legal = game.legal_commands(state, seat)
        moves = [c for c in legal if c["type"] not in META_COMMANDS] or legal
        state, evs = core.api.apply(game, state, seat, rng.choice(moves), rng)
        recs.extend({"seat": seat, "event": e, "v": v} for e in evs)
        n += 1
    return recs


def _times(day: dt.date, table: int, count: int) -> list[dt.datetime]:
    start = dt.datetime.combine(day, dt.time(19, 30), tzinfo=dt.UTC) + dt.timedelta(
        minutes=3 * table)
    return [start + dt.timedelta(seconds=5 * i) for i in range(count)]


def _play_round(season: Season, number: int, players: list[int], users: dict[int, Any],
                seed: int) -> None:
    league = season.league
    rnd = fixtures.plan(season, league.kind, players, number)
    day = season.start + dt.timedelta(days=7 * (number - 1))
    made = []
    for i, seats in enumerate(rnd.tables, start=1):
        players_here = [p for p in seats if p is not None]
        if len(players_here) != len(seats):
            raise ValueError("the demo's rounds seat only its players, no bots")
        recs = play(league.kind, OPTIONS, seed * 100 + i)
        times = _times(day, i, len(recs))
        game = creating.import_game(
            league.kind, None, [{"kind": "user", "user": users[p]} for p in players_here], recs,
            league=league, times=times, created_at=times[0] - dt.timedelta(minutes=2),
            season=season, public=True)  # (the demo's matches are there to be watched)
        made.append(Fixture(season=season, round=number, table=i, date=day,
                            players=list(seats), game=game))
    for j, p in enumerate(rnd.byes, start=len(rnd.tables) + 1):
        made.append(Fixture(season=season, round=number, table=j, date=day, players=[p],
                            bye=True))
    Fixture.objects.bulk_create(made)


def load_club_demo(log: Any = print) -> bool:
    """Make the club demo; False when it is there already."""
    if League.objects.filter(name=LEAGUE).exists():
        return False
    User = get_user_model()
    users = {}
    for name, first_name in PLAYERS:
        user, new = User.objects.get_or_create(username=name,
                                               defaults={"first_name": first_name})
        if new:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        users[user.pk] = user
    today = timezone.now().date()
    with transaction.atomic():
        league = League.objects.create(name=LEAGUE, kind="teeko")
        league.members.set(users.values())
        autumn = Season.objects.create(
            league=league, name="Autumn", start=today - dt.timedelta(days=70),
            end=today - dt.timedelta(days=31), pairing=Season.ROUND_ROBIN)
        winter = Season.objects.create(
            league=league, name="Winter", start=today - dt.timedelta(days=21),
            end=today + dt.timedelta(days=42), pairing=Season.SWISS, points_win=2,
            tiebreaks="sb, h2h, wins")
        ids = sorted(users)
        for number in range(1, 6):  # a full round robin of six
            _play_round(autumn, number, ids, users, 1000 + number)
        life.close(autumn, "demo", "the autumn season is over")  # (its table is final)
        for number in range(1, 3):  # two Swiss rounds
            _play_round(winter, number, ids, users, 2000 + number)
        # round 3 (dated a week ago, so its tables are open): one game adjudicated
        # (abandoned mid-game), one played on a board, one still live
        made = fixtures.next_round(winter)
    first, second = made[0], made[1]
    assert first.game is not None and second.game is not None
    rng = Random(31)
    for _ in range(8):  # a few moves, then the players left
        e = cache.entry(first.game.pk, fresh=True)
        seat = rng.choice(e.game.to_act(e.state))
        legal = e.game.legal_commands(e.state, seat)
        moves = [c for c in legal if c["type"] not in META_COMMANDS] or legal
        append.submit(first.game.pk, seat, rng.choice(moves), e.seq)
    append.append_result(first.game.pk, [0], "adjudicated")
    append.append_result(second.game.pk, [1], "off_board")
    # and a friendly played on a board, outside the fixtures
    results.record_off_board("teeko", [users[ids[0]], users[ids[5]]], [], None, league)
    ratings.catch_up()
    log(f"club demo: league {LEAGUE!r}, seasons Autumn and Winter, "
        f"{Fixture.objects.filter(season__league=league).count()} fixtures")
    return True
