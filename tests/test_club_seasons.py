"""A season's life and the club's record: a member taken out of the league keeps their games
counting; the first round starts a season and fixes its entrants; a closed season refuses new
games, rounds and corrections until reopened with a reason; only a season's fixtures count in
its table (no farming with friendly games); every action is on the record, append-only, with
who and why, and on the league's page."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from test_club_fixtures import generate, season_of

from core.api import OptionsError
from server.games import append, creating
from server.leagues import fixtures, life
from server.leagues.models import ClubEvent, Fixture, League, Season
from server.leagues.results import correct_result, record_off_board
from server.leagues.standings import all_time_table, season_table

pytestmark = pytest.mark.django_db(transaction=True)


def points(rows: Any) -> dict[str, int]:
    return {r.username: r.points for r in rows}


def test_taking_a_member_out_of_the_league_changes_no_result(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    ann, bob = (django_user_model.objects.create_user(n, password="pw") for n in ("ann", "bob"))
    league = League.objects.create(name="Tuesday", kind="teeko")
    league.members.set([ann, bob])
    record_off_board("teeko", [ann, bob], [0], None, league)
    assert points(all_time_table(league)) == {"ann": 3, "bob": 0}
    # the organiser takes ann out in the admin (her 3 points went to 0, bob's loss with them)
    r = admin_client.post(f"/admin/leagues/league/{league.pk}/change/", {
        "name": "Tuesday", "kind": "teeko", "members": [bob.pk],
        "games-TOTAL_FORMS": "0", "games-INITIAL_FORMS": "0"}, follow=True)
    assert r.status_code == 200
    assert list(league.members.all()) == [bob]
    rows = all_time_table(league)
    assert points(rows) == {"ann": 3, "bob": 0}
    assert next(x for x in rows if x.username == "bob").played == 1
    gone = ClubEvent.objects.get(league=league, action=ClubEvent.MEMBER_REMOVED)
    assert gone.by == "admin" and gone.data["names"] == ["ann"]
    page = admin_client.get(f"/leagues/{league.pk}/").content.decode()
    assert "member removed (ann) · by admin" in page


def test_the_first_round_starts_the_season_and_fixes_its_entrants(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    season = season_of(django_user_model, "teeko", 8)
    assert season.state == Season.DRAFT
    generate(admin_client, season)
    season.refresh_from_db()
    assert season.state == Season.RUNNING
    start = ClubEvent.objects.get(season=season, action=ClubEvent.START)
    assert start.by == "admin" and len(start.data["entrants"]) == 8
    # a member added after round 1 is no entrant: the round robin goes on without repeats
    late = django_user_model.objects.create_user("late", password="pw")
    season.league.members.add(late)
    for _ in range(6):
        generate(admin_client, season)
    pairs = [frozenset(f.players) for f in Fixture.objects.filter(season=season, bye=False)]
    assert len(pairs) == len(set(pairs)) == 28  # (8 players: every pair once in 7 rounds)
    assert not any(late.pk in p for p in pairs)
    # a late entry is an explicit action on the record
    life.enter(season, late, "admin", "joined the club in March")
    assert late.pk in life.entrants(season)
    life.withdraw(season, late, "admin", "moved away")
    assert late.pk not in life.entrants(season)
    assert [e.action for e in season.record.order_by("id")][-2:] == ["enter", "withdraw"]


def test_a_closed_season_refuses_changes_until_reopened_with_a_reason(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    season = season_of(django_user_model, "teeko", 2)
    generate(admin_client, season)
    (f,) = Fixture.objects.filter(season=season, bye=False)
    append.append_result(f.game_id, [1], "adjudicated")
    url = f"/admin/leagues/season/{season.pk}/life/"
    r = admin_client.post(url, {"action": "close", "why": "end of spring"}, follow=True)
    assert "done, on the record" in r.content.decode()
    season.refresh_from_db()
    assert season.state == Season.CLOSED
    closed = ClubEvent.objects.get(season=season, action=ClubEvent.CLOSE)
    assert closed.data["standings"][0]["username"] == "p1"
    assert life.final_table(season) == closed.data["standings"]
    # no new game naming it, no round, no correction
    tok = admin_client.post("/api/login", json.dumps({"username": "p0", "password": "pw"}),
                            content_type="application/json").json()["token"]
    r = admin_client.post("/api/games/", json.dumps({
        "kind": "teeko", "league": season.league_id, "season": season.pk, "join": {"seat": 0}}),
        content_type="application/json", headers={"Authorization": f"Token {tok}"})
    assert r.status_code == 400 and "closed" in r.json()["error"]["reason"]
    with pytest.raises(ValueError, match="closed"):
        fixtures.next_round(season)
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.get(username="admin")
    with pytest.raises(OptionsError, match="closed"):
        correct_result(f.game, admin, "wrong", [0], "adjudicated")
    before = points(season_table(season))
    # reopening needs a reason
    r = admin_client.post(url, {"action": "reopen"})
    assert "say why" in r.content.decode()
    r = admin_client.post(url, {"action": "reopen", "why": "a result was entered wrong"},
                          follow=True)
    season.refresh_from_db()
    assert season.state == Season.RUNNING
    correct_result(f.game, admin, "p0 won", [0], "adjudicated")
    assert points(season_table(season)) != before
    page = admin_client.get(f"/leagues/{season.league_id}/?season={season.pk}").content.decode()
    assert "season reopened: Spring · by admin · “a result was entered wrong”" in page
    assert "result of game #" in page and "“p0 won”" in page


def test_only_the_fixtures_count_in_a_season_with_fixtures(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    season = season_of(django_user_model, "teeko", 2)
    generate(admin_client, season)
    p0, p1 = season.league.members.order_by("username")
    # three quick friendly games between the two, naming the season (they farmed 9 points)
    for _ in range(3):
        record_off_board("teeko", [p0, p1], [0], None, season.league, season=season)
    assert points(season_table(season)) == {"p0": 0, "p1": 0}
    assert points(all_time_table(season.league))["p0"] == 9  # (casual: all time only)
    page = admin_client.get(f"/leagues/{season.league_id}/?season={season.pk}").content.decode()
    assert page.count("casual: not counted here") == 3  # (they were listed nowhere)
    Season.objects.filter(pk=season.pk).update(fixtures_only=False)
    season.refresh_from_db()
    assert points(season_table(season))["p0"] == 9


def test_the_record_is_append_only(django_user_model: Any, server_runtime: Any) -> None:
    season = season_of(django_user_model, "teeko", 2)
    e = life.record(season.league, ClubEvent.CLOSE, "org", "x", season)
    for sql in ("UPDATE leagues_clubevent SET why = 'y' WHERE id = %s",
                "DELETE FROM leagues_clubevent WHERE id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(sql, [e.pk])
    assert ClubEvent.objects.get(pk=e.pk).why == "x"
    assert season.start < season.end


def test_a_decided_result_is_on_the_record_and_reads_well(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    users = [django_user_model.objects.create_user(n, password="pw")
             for n in ("ann", "bob", "cid", "dee")]
    league = League.objects.create(name="Teka nights", kind="teka")
    league.members.set(users)
    g = creating.create_game("teka", {}, [{"kind": "user", "username": n}
                                       for n in ("ann", "bob", "cid", "dee")], league=league)
    r = admin_client.post(f"/admin/games/game/{g.pk}/decide/",
                          {"reason": "forfeit", "forfeit": "1", "why": "bob never came"},
                          follow=True)
    page = r.content.decode()
    assert "ann &amp; cid win (by forfeit)" in page and "0-0" not in page
    e = ClubEvent.objects.get(league=league, action=ClubEvent.DECIDED)
    assert (e.by, e.why, e.data["game"]) == ("admin", "bob never came", g.pk)
    league_page = admin_client.get(f"/leagues/{league.pk}/").content.decode()
    assert "result decided (game #" in league_page and "“bob never came”" in league_page
    assert "\u03bc" not in league_page and "\u03c3" not in league_page  # (mu, sigma)


def test_a_refused_delete_says_why(admin_client: Any, django_user_model: Any,
                                   server_runtime: Any) -> None:
    season = season_of(django_user_model, "teeko", 2)
    generate(admin_client, season)
    r = admin_client.get(f"/admin/leagues/season/{season.pk}/delete/")
    assert r.status_code == 403
    assert "a season that has fixtures" in r.content.decode()  # (it was a bare 403)
    assert Season.objects.filter(pk=season.pk).exists()


def test_an_ended_season_makes_no_round_and_an_unchanged_form_logs_nothing(
        admin_client: Any, django_user_model: Any, server_runtime: Any) -> None:
    from django.contrib.admin.models import LogEntry

    season = season_of(django_user_model, "teeko", 2)
    Season.objects.filter(pk=season.pk).update(start=dt.date(2025, 1, 1),
                                               end=dt.date(2025, 3, 31))
    r = generate(admin_client, season)
    assert "ended on 2025-03-31" in r.content.decode()
    assert not Fixture.objects.exists()
    league = season.league
    members = list(league.members.values_list("pk", flat=True))
    before = LogEntry.objects.count()
    admin_client.post(f"/admin/leagues/league/{league.pk}/change/", {
        "name": league.name, "kind": league.kind, "members": members,
        "games-TOTAL_FORMS": "0", "games-INITIAL_FORMS": "0"})
    assert LogEntry.objects.count() == before  # (it said "Changed" for a form that changed nothing)
