"""Seasons and standings: scoring schemes, placings, tie-breaks, per season and
all-time, computed from the finished games."""

from __future__ import annotations

import datetime as dt
from random import Random

import pytest
from django.utils import timezone
from server_helpers import pick_move

from server.games import append, cache, creating
from server.games.models import Game
from server.leagues.models import League, Season
from server.leagues.standings import Result, Scheme, all_time_table, season_table, table

T0 = dt.datetime(2026, 3, 1, 19, 30, tzinfo=dt.UTC)


def res(gid: int, players: list[int | None], winners: list[int], scores: list[int] | None = None,
        kind: str = "teeko", reason: str = "pattern", left: list[bool] | None = None) -> Result:
    return Result(gid, kind, T0 + dt.timedelta(days=gid), players,
                  left or [False] * len(players), winners, scores or [], reason)


NAMES = {1: "ann", 2: "bob", 3: "cid", 4: "dee", 5: "eve"}


def test_points_win_draw_loss_and_abandoned():
    rows = table([res(1, [1, 2], [0]), res(2, [2, 3], []), res(3, [3, 1], [0], left=[False, True])],
                 Scheme(3, 1, 0), NAMES)
    got = {r.username: (r.played, r.won, r.drawn, r.lost, r.abandoned, r.points) for r in rows}
    assert got == {"ann": (2, 1, 0, 1, 1, 3), "bob": (2, 0, 1, 1, 0, 1),
                   "cid": (2, 1, 1, 0, 0, 4)}
    assert [r.username for r in rows] == ["cid", "ann", "bob"]
    assert [r.rank for r in rows] == [1, 2, 3]


def test_tiebreaks_in_the_seasons_order():
    # ann and bob both 3 points; bob beat ann (head-to-head), ann beat cid who has more points
    games = [res(1, [2, 1], [0]), res(2, [1, 3], [0]), res(3, [3, 4], [0]), res(4, [3, 4], [0])]
    rows = table(games, Scheme(tiebreaks=["h2h"]), NAMES)
    tied = [r.username for r in rows if r.points == 3]
    assert tied == ["bob", "ann"]
    sb = {r.username: r.sb for r in rows}
    assert sb["ann"] == 6  # beat cid (6 points)
    assert sb["bob"] == 3  # beat ann (3)
    rows = table(games, Scheme(tiebreaks=["sb"]), NAMES)
    assert [r.username for r in rows if r.points == 3] == ["ann", "bob"]
    # no tie-break: equal rows share a rank, then by name
    rows = table(games, Scheme(tiebreaks=[]), NAMES)
    shared = [r for r in rows if r.points == 3]
    assert [r.username for r in shared] == ["ann", "bob"] and shared[0].rank == shared[1].rank


def test_most_wins_breaks_a_tie_of_points():
    games = [res(1, [1, 2], [0]), res(2, [3, 4], []), res(3, [3, 5], []), res(4, [3, 2], [])]
    rows = table(games, Scheme(3, 1, 0, tiebreaks=["wins"]), NAMES)
    assert [(r.username, r.points, r.won) for r in rows[:2]] == [("ann", 3, 1), ("cid", 3, 0)]


def test_placings_for_a_tedoku_table_and_teka_partners():
    tedoku = res(1, [1, 2, 3, 4], [2], [30, 40, 50, 40], kind="tedoku", reason="score")
    assert tedoku.places() == [3, 1, 0, 1]
    rows = table([tedoku], Scheme(placings=[10, 6, 4, 3]), NAMES)
    assert {r.username: r.points for r in rows} == {"cid": 10, "bob": 6, "dee": 6, "ann": 3}
    teka = res(2, [1, 2, 3, 4], [0, 2], [104, 52, 104, 52], kind="teka", reason="score")
    rows = {r.username: r for r in table([teka], Scheme(), NAMES)}
    assert rows["ann"].won == rows["cid"].won == 1 and rows["bob"].lost == 1
    assert rows["ann"].sb == 0  # (bob and dee have no points) partners are not opponents
    assert teka.opponents(0, 1) and not teka.opponents(0, 2)


def test_void_results_do_not_count_and_adjudicated_ones_are_marked():
    rows = table([res(1, [1, 2], [], reason="void"), res(2, [1, 2], [0], reason="adjudicated")],
                 Scheme(), NAMES)
    ann = next(r for r in rows if r.username == "ann")
    assert (ann.played, ann.won, ann.adjudicated) == (1, 1, 1)


def finish(game_id: int, seed: int) -> None:
    rng = Random(seed)
    while True:
        e = cache.entry(game_id)
        if e.game.outcome(e.state) is not None:
            return
        seat = rng.choice(e.game.to_act(e.state))
        append.submit(game_id, seat, pick_move(e.game.legal_commands(e.state, seat), rng), e.seq)


@pytest.mark.django_db(transaction=True)
def test_season_and_all_time_standings_from_the_games(django_user_model, server_runtime):
    names = ["ann", "bob", "cid"]
    users = [django_user_model.objects.create_user(n, password="pw") for n in names]
    league = League.objects.create(name="Tuesday", kind="teeko")
    league.members.set(users)
    today = timezone.now().date()
    spring = Season.objects.create(league=league, name="Spring", start=today - dt.timedelta(10),
                                   end=today, points_win=2, points_draw=1)
    old = Season.objects.create(league=league, name="Winter", start=today - dt.timedelta(100),
                                end=today - dt.timedelta(11))
    ids = []
    for a, b, seed, season in (("ann", "bob", 1, old), ("bob", "cid", 2, spring),
                               ("ann", "cid", 3, spring)):
        g = creating.create_game("teeko", {"move_cap": 40}, [{"kind": "user", "username": a},
                                                          {"kind": "user", "username": b}],
                              league=league, season=season)
        finish(g.pk, seed)
        ids.append(g.pk)
    # a game counts in its own season, whatever day it finished (not by its date)
    Game.objects.filter(pk=ids[1]).update(finished_at=timezone.now() - dt.timedelta(days=20))
    rows = season_table(spring)
    assert sum(r.played for r in rows) == 4 and {r.username for r in rows} == set(names)
    for r in rows:
        assert r.points == 2 * r.won + r.drawn
    assert sum(r.played for r in season_table(old)) == 2
    assert sum(r.played for r in all_time_table(league)) == 6
    # a new game's end is seen at once (no stale cache)
    g = creating.create_game("teeko", {"move_cap": 40}, [{"kind": "user", "username": "ann"},
                                                      {"kind": "user", "username": "bob"}],
                          league=league, season=spring)
    finish(g.pk, 9)
    assert sum(r.played for r in season_table(spring)) == 6
