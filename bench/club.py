"""Club benchmark: a league of N players and M finished games; standings and ratings
recomputed from scratch, then the league page and the front page timed. Prints figures (it
is not a test). The games are stored for good (the log is append-only): run it on a
database of its own, e.g.

    GAMENIGHT_DB_NAME=gamenight_clubbench python -m django migrate --settings=server.settings
    GAMENIGHT_DB_NAME=gamenight_clubbench ./gamenight bench club   # python -m bench.manage club

Each game is a Teeko game with a real log: its ``start`` event and a ``result`` event
(``off_board``, results drawn at random by seeded player strength), hash-chained as the
server appends them (through :func:`server.games.append.append`, as every writer)."""

from __future__ import annotations

import datetime as dt
import os
import statistics
import time
from random import Random
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.test import Client

import core
from core import upcast
from core.api import result_event
from server.games import append, cache, chain
from server.games.models import Game, Seat
from server.leagues import ratings, standings
from server.leagues.models import League, Season


class Command(BaseCommand):
    help = "Benchmark standings, ratings and the club pages on a league of bench data."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--players", type=int, default=200)
        parser.add_argument("--games", type=int, default=20_000)
        parser.add_argument("--requests", type=int, default=60)
        parser.add_argument("--force", action="store_true",
                            help="run on a database whose name does not contain 'bench'")

    def handle(self, *args: Any, **opts: Any) -> None:
        name = str(connection.settings_dict["NAME"])
        if "bench" not in name and not opts["force"]:
            raise CommandError(f"the bench games stay in the database for good: run it on a "
                               f"database of its own (GAMENIGHT_DB_NAME=gamenight_clubbench), "
                               f"not {name!r} (or --force)")
        league = League.objects.filter(name__startswith="Bench league").first()
        if league is None or league.games.count() < opts["games"]:
            t0 = time.perf_counter()
            league = make_league(opts["players"], opts["games"])
            self.stdout.write(f"made {opts['games']} games for {opts['players']} players in "
                              f"{time.perf_counter() - t0:.1f} s")
        season = league.seasons.first()
        assert season is not None
        finished = Game.objects.filter(league=league, status=Game.FINISHED).count()
        self.stdout.write(f"league {league.name!r}: {league.members.count()} players, "
                          f"{finished} finished games")
        # from scratch
        self.stdout.write(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        standings.forget()
        c0, t0 = time.process_time(), time.perf_counter()
        rows = standings.all_time_table(league)
        t1 = time.perf_counter()
        standings.season_table(season)
        t2 = time.perf_counter()
        taken = ratings.rebuild()
        c3, t3 = time.process_time(), time.perf_counter()
        self.stdout.write(
            f"standings all-time {1000 * (t1 - t0):.0f} ms ({len(rows)} rows), season "
            f"{1000 * (t2 - t1):.0f} ms; ratings rebuilt {t3 - t2:.2f} s ({taken} games); "
            f"total from scratch {t3 - t0:.2f} s ({c3 - c0:.2f} s of this process's CPU)")
        client = Client()
        for label, url in (("league page", f"/leagues/{league.pk}/"),
                           ("league page, all time", f"/leagues/{league.pk}/?season=all"),
                           ("front page", "/")):
            times, cpu = [], []
            for _ in range(opts["requests"]):
                a, c = time.perf_counter(), time.process_time()
                r = client.get(url)
                times.append(1000 * (time.perf_counter() - a))
                cpu.append(1000 * (time.process_time() - c))
                assert r.status_code == 200, (url, r.status_code)
            first, rest = times[0], sorted(times[1:])
            p95 = rest[int(0.95 * (len(rest) - 1))]
            cpu_rest = sorted(cpu[1:])
            self.stdout.write(
                f"{label}: first {first:.0f} ms, then p50 {statistics.median(rest):.0f} ms, "
                f"p95 {p95:.0f} ms ({len(rest)} requests; this process's CPU: p50 "
                f"{statistics.median(cpu_rest):.0f} ms, p95 "
                f"{cpu_rest[int(0.95 * (len(cpu_rest) - 1))]:.0f} ms)")


def make_league(players: int, games: int, seed: int = 13) -> League:
    """The bench league: players, one season over the last year, games (see the module)."""
    rng = Random(seed)
    User = get_user_model()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    with transaction.atomic():
        league = League.objects.create(name=f"Bench league {now:%Y%m%d%H%M%S}", kind="teeko")
        users = [User(username=f"bench{now:%H%M%S}-{i:04d}") for i in range(players)]
        for u in users:
            u.set_unusable_password()
        User.objects.bulk_create(users)
        users = list(User.objects.filter(username__in=[u.username for u in users]).order_by("pk"))
        league.members.set(users)
        season = Season.objects.create(league=league, name="Bench season",
                                       start=(now - dt.timedelta(days=365)).date(), end=now.date())
        strength = [rng.gauss(0, 1) for _ in users]
        teeko = core.GAMES["teeko"]
        options = teeko.options({})
        start = teeko.start(options, rng)
        chunk = 1000
        for base in range(0, games, chunk):
            n = min(chunk, games - base)
            rows, specs = [], []
            for i in range(n):
                a, b = rng.sample(range(players), 2)
                p = 1 / (1 + 10 ** ((strength[b] - strength[a]) * 0.5))
                x = rng.random()
                winners = [0] if x < p * 0.9 else [1] if x > 1 - (1 - p) * 0.9 else []
                at = now - dt.timedelta(minutes=(games - base - i) * 20)
                ev = result_event(2, winners, "off_board")
                outcome = teeko.outcome(core.api.fold(teeko, [*start, ev]))
                assert outcome is not None
                # Live until its log is written (no event follows a game's end):
                rows.append(Game(kind="teeko", options=options, num_seats=2,
                                 status=Game.LIVE, league=league, season=season,
                                 code=f"B{base + i:07d}"))
                specs.append((a, b, at, ev, outcome))
            made = Game.objects.bulk_create(rows)
            Game.objects.filter(pk__in=[g.pk for g in made]).update(
                created_at=now - dt.timedelta(days=400))
            Seat.objects.bulk_create([
                Seat(game=g, number=k, kind=Seat.USER, user=users[who], name=users[who].username,
                     claimed=True)
                for g, (a, b, _at, _ev, _o) in zip(made, specs, strict=True)
                for k, who in ((0, a), (1, b))
            ])
            for g, (_a, _b, at, ev, outcome) in zip(made, specs, strict=True):
                records: list[cache.Record] = [
                    (seq, None, event) for seq, event in enumerate([*start, ev], start=1)
                ]
                append.append(append.Append(g.pk, records, chain.GENESIS, None, outcome,
                                          times=[at] * len(records),
                                          versions=[upcast.current(g.kind)] * len(records)))
    return league
