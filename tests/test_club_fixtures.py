"""Fixtures: the admin action makes the next round of a season, its games made
with the seats reserved (bots for missing players), byes, dates and links."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from server.games import append
from server.games.models import Game, Seat
from server.leagues.models import Fixture, League, Season

pytestmark = pytest.mark.django_db(transaction=True)


def season_of(django_user_model, kind: str, n: int, **kw) -> Season:
    users = [django_user_model.objects.create_user(f"p{i}", password="pw") for i in range(n)]
    league = League.objects.create(name=f"{kind} club", kind=kind)
    league.members.set(users)
    # (a season running today: two weeks in, four months to go; a fixed date turns into a
    # season that has ended, where no round is made)
    today = timezone.localdate()
    return Season.objects.create(league=league, name="Spring",
                                 start=today - dt.timedelta(days=14),
                                 end=today + dt.timedelta(days=120), **kw)


def generate(admin_client, season: Season):
    return admin_client.post("/admin/leagues/season/", {
        "action": "generate_next_round", "_selected_action": [season.pk]}, follow=True)


def test_round_robin_rounds_from_the_admin(admin_client, django_user_model, server_runtime):
    season = season_of(django_user_model, "teeko", 5)
    r = generate(admin_client, season)
    assert r.status_code == 200
    assert f"round 1 on {season.start}: 2 games, 1 bye" in r.content.decode()
    fx = list(Fixture.objects.filter(season=season, round=1))
    assert len(fx) == 3 and sum(f.bye for f in fx) == 1
    for f in fx:
        if f.bye:
            assert f.game is None and len(f.players) == 1
            continue
        seats = list(Seat.objects.filter(game=f.game).order_by("number"))
        assert [s.user_id for s in seats] == f.players and all(s.claimed for s in seats)
        assert f.game.league_id == season.league_id and f.game.status == Game.LIVE
    generate(admin_client, season)
    assert Fixture.objects.filter(season=season, round=2).first().date == \
        season.start + dt.timedelta(days=7)
    # five rounds: every pair once, every player one bye
    for _ in range(3):
        generate(admin_client, season)
    pairs = [frozenset(f.players) for f in Fixture.objects.filter(season=season, bye=False)]
    assert len(pairs) == 10 == len(set(pairs))
    page = admin_client.get(f"/admin/leagues/season/{season.pk}/change/").content.decode()
    game = Fixture.objects.filter(season=season, bye=False).first().game
    assert f'href="/games/{game.pk}/"' in page and "(bye)" in page and "p0" in page


def test_teka_tables_with_bots_and_tedoku_tables(admin_client, django_user_model,
                                                  server_runtime):
    teka = season_of(django_user_model, "teka", 6)
    generate(admin_client, teka)
    tables = [f for f in Fixture.objects.filter(season=teka)]
    assert [len(f.players) for f in tables] == [4, 4]
    assert tables[1].players[1] is None and tables[1].players[3] is None
    bots = Seat.objects.filter(game=tables[1].game, kind=Seat.BOT).values_list("number",
                                                                              flat=True)
    assert sorted(bots) == [1, 3]
    league = League.objects.create(name="Sheets", kind="tedoku")
    league.members.set(django_user_model.objects.filter(is_superuser=False))
    today = timezone.localdate()
    tedoku = Season.objects.create(league=league, name="S", start=today,
                                   end=today + dt.timedelta(days=31), table_size=4)
    generate(admin_client, tedoku)
    sizes = sorted(len(f.players) for f in Fixture.objects.filter(season=tedoku))
    assert sizes == [3, 3]
    g = Fixture.objects.filter(season=tedoku).first().game
    assert g.num_seats == 3 and g.options["seats"] == 3


def test_swiss_round_two_has_no_repeat(admin_client, django_user_model, server_runtime):
    season = season_of(django_user_model, "tiku", 4, pairing=Season.SWISS)
    generate(admin_client, season)
    # round 2 pairs by round 1's results: refused while round 1 is not played
    r = generate(admin_client, season)
    assert "not played yet" in r.content.decode()
    assert not Fixture.objects.filter(season=season, round=2).exists()
    for f in Fixture.objects.filter(season=season, round=1, bye=False):
        append.append_result(f.game_id, [0], "adjudicated")
    generate(admin_client, season)
    r1 = {frozenset(f.players) for f in Fixture.objects.filter(season=season, round=1)}
    r2 = {frozenset(f.players) for f in Fixture.objects.filter(season=season, round=2)}
    assert len(r1) == len(r2) == 2 and not r1 & r2


def test_nobody_to_pair_is_an_error_and_makes_nothing(admin_client, django_user_model,
                                                      server_runtime):
    season = season_of(django_user_model, "teeko", 1)
    r = generate(admin_client, season)
    assert "has 1 members: a round needs 2" in r.content.decode()
    assert not Fixture.objects.exists() and not Game.objects.exists()


def test_a_season_with_fixtures_keeps_its_league_and_stays(admin_client, django_user_model,
                                                            server_runtime):
    season = season_of(django_user_model, "teeko", 2)
    other = League.objects.create(name="Other", kind="teeko")
    generate(admin_client, season)
    url = f"/admin/leagues/season/{season.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="league"' not in page
    data = {"league": other.pk, "name": "Spring", "start": "2026-03-03", "end": "2026-06-30",
            "scoring": "points", "points_win": 3, "points_draw": 1, "points_loss": 0,
            "placings": "", "tiebreaks": "", "pairing": "swiss", "table_size": 4,
            "fixtures-TOTAL_FORMS": "1", "fixtures-INITIAL_FORMS": "1"}
    admin_client.post(url, data)
    season.refresh_from_db()
    assert season.league_id != other.pk
    assert admin_client.post(f"/admin/leagues/season/{season.pk}/delete/",
                             {"post": "yes"}).status_code == 403
    assert Season.objects.filter(pk=season.pk).exists()
