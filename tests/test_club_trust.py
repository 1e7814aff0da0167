"""League results a club can trust: a league game is between its members as themselves (no
farming wins with a guest seat, an outsider or a bot one seats oneself); a game counts in
its own season (an explicit link, not its date), so overlapping seasons keep their results
apart; the rules core decides a ``result`` like any command (no impossible result); a
fixture is scheduled, not a live table, until its round opens."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import json
from random import Random
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db import transaction
from django.utils import timezone
from test_e2e_server import ahttp, http, ws_client

import core
from core.api import IllegalMoveError, fold
from server.games import append, cache, creating
from server.games.models import Event, Game
from server.leagues import fixtures, pairing, standings
from server.leagues.models import Fixture, League, Rating, Season

pytestmark = pytest.mark.django_db(transaction=True)


def members(django_user_model: Any, league: League, *names: str) -> list[Any]:
    made = [django_user_model.objects.create_user(n, password="pw") for n in names]
    league.members.add(*made)
    return made


def organiser(django_user_model: Any, name: str = "org") -> Any:
    org = django_user_model.objects.create_user(name, password="pw")
    org.user_permissions.add(Permission.objects.get(codename="organise_league"))
    return org


def row(rows: list[standings.Row], name: str) -> tuple[int, int, int]:
    r = next(r for r in rows if r.username == name)
    return r.played, r.won, r.points


# ------------------------------------------------------------------ 1. who sits at a league game


@pytest.mark.e2e
@pytest.mark.timeout(300)
def test_a_member_cannot_farm_wins(daphne_server, django_user_model):
    server = daphne_server
    league = League.objects.create(name="Tuesday", kind="teeko")
    members(django_user_model, league, "ann", "eve")
    django_user_model.objects.create_user("bob", password="pw")  # not a member
    organiser(django_user_model)
    tok = {n: http(server, "POST", "/api/login", {"username": n, "password": "pw"})[1]["token"]
           for n in ("ann", "eve", "bob", "org")}

    def create(who: str | None, seats: list[Any], join: Any = None) -> tuple[int, Any]:
        body: dict[str, Any] = {"kind": "teeko", "league": league.pk, "seats": seats}
        if join is not None:
            body["join"] = join
        auth = {"Authorization": f"Token {tok[who]}"} if who else {}
        return http(server, "POST", "/api/games/", body, **auth)

    before = Game.objects.count()
    # a guest seat (whatever its name) beside herself: refused with the reason
    for name in ("ann", "Guest"):
        status, body = create("eve", [{"kind": "open"}, {"kind": "guest", "name": name}],
                              {"seat": 0})
        assert status == 403 and "guest" in body["error"]["reason"], body
    # a bot she seats herself
    status, body = create("eve", [{"kind": "open"}, {"kind": "bot"}], {"seat": 0})
    assert status == 403 and "organiser seats a bot" in body["error"]["reason"]
    # an organiser seating a non-member, or joining as a guest
    status, body = create("org", [{"kind": "user", "username": "ann"},
                                  {"kind": "user", "username": "bob"}])
    assert status == 403 and "bob is not a member" in body["error"]["reason"]
    status, body = create(None, [{"kind": "open"}, {"kind": "open"}], {"name": "ann"})
    assert status == 403
    assert Game.objects.count() == before
    # a real league game: eve sits down, the open seat is for members only
    status, g = create("eve", [{"kind": "open"}, {"kind": "open"}], {"seat": 0})
    assert status == 201, g
    gid = g["id"]
    status, body = http(server, "POST", f"/api/games/{gid}/join/", {"seat": 1},
                        Authorization=f"Token {tok['bob']}")
    assert status == 403 and "only members" in body["error"]["reason"]
    status, body = http(server, "POST", f"/api/games/{gid}/join/", {"name": "ann"})
    assert status == 403 and "log in" in body["error"]["reason"]
    assert Game.objects.get(pk=gid).status == Game.OPEN  # (nobody took the seat)
    # eve cannot take the other seat of her own league game too (it answered 200)
    status, body = http(server, "POST", f"/api/games/{gid}/join/", {"seat": 1},
                        Authorization=f"Token {tok['eve']}")
    assert status == 400 and "one seat" in body["error"]["reason"], body
    assert Game.objects.get(pk=gid).status == Game.OPEN
    status, body = http(server, "POST", f"/api/games/{gid}/join/", {"seat": 1},
                        Authorization=f"Token {tok['ann']}")
    assert status == 200 and body["seat"] == 1

    async def resign() -> None:
        ann = await ws_client(server, gid, "ann")
        try:
            await ann.hello(1, token=tok["ann"])
            assert (await ann.command({"type": "resign"}))["type"] == "ok"
            assert (ann.finished or await ann.until(lambda f: f["type"] == "finished"))
        finally:
            await ann.ws.close()

    asyncio.run(resign())
    assert Game.objects.get(pk=gid).status == Game.FINISHED
    table = {r["username"]: r for r in
             (asyncio.run(ahttp(server, "GET", f"/api/leagues/{league.pk}/")))["standings"]}
    assert (table["eve"]["played"], table["eve"]["won"], table["eve"]["points"]) == (1, 1, 3)
    assert (table["ann"]["played"], table["ann"]["lost"]) == (1, 1)
    assert "bob" not in table
    # an organiser may seat a bot for a missing player (as a fixture does)
    status, body = create("org", [{"kind": "user", "username": "eve"}, {"kind": "bot"}])
    assert status == 201, body


def test_games_that_are_no_league_games_do_not_count(django_user_model, server_runtime):
    """Games stored before the seats were checked (a guest seat, an outsider, a bot a
    member seated herself) stay in the log but count in no table and no rating."""
    league = League.objects.create(name="Tuesday", kind="teeko")
    ann, eve = members(django_user_model, league, "ann", "eve")
    django_user_model.objects.create_user("bob", password="pw")
    org = organiser(django_user_model)
    season = Season.objects.create(league=league, name="Spring", start=dt.date(2026, 1, 1),
                                   end=dt.date(2099, 12, 31))

    def game(seats: list[Any], by: Any, loser: int = 1) -> int:
        g = creating.create_game("teeko", {}, seats, league=league, created_by=by)
        e = cache.entry(g.pk)
        append.submit(g.pk, loser, {"type": "resign"}, e.seq)
        return g.pk

    eve_seat = {"kind": "user", "username": "eve"}
    farmed = [
        game([eve_seat, {"kind": "guest", "name": "ann"}], eve),
        game([eve_seat, {"kind": "user", "username": "bob"}], eve),
        game([eve_seat, {"kind": "bot"}], eve),
    ]
    real = [game([eve_seat, {"kind": "user", "username": "ann"}], eve),
            game([eve_seat, {"kind": "bot"}], org)]  # (an organiser's bot: counts)
    rows = standings.all_time_table(league)
    assert row(rows, "eve") == (2, 2, 6)
    assert row(rows, "ann") == (1, 0, 0)
    Game.objects.filter(league=league).update(season=season)
    for rows in (standings.all_time_table(league), standings.season_table(season)):
        assert row(rows, "eve") == (2, 2, 6)
        assert row(rows, "ann") == (1, 0, 0)
        assert "bob" not in {r.username for r in rows}
    from server.leagues import ratings

    ratings.catch_up()
    assert not Rating.objects.filter(game_id__in=farmed).exists()
    assert Rating.objects.filter(game_id=real[0]).count() == 2
    assert ann.pk and Event.objects.filter(game_id=farmed[0]).exists()  # (the log keeps them)


# ------------------------------------------------------------------ 2. seasons by explicit link


SEASON_FORM = {"scoring": "points", "points_win": 3, "points_draw": 1, "points_loss": 0,
               "placings": "", "tiebreaks": "h2h, sb, wins", "pairing": "swiss",
               "table_size": 4, "fixtures-TOTAL_FORMS": "0", "fixtures-INITIAL_FORMS": "0"}


def test_overlapping_seasons_keep_their_own_games(admin_client, django_user_model,
                                                  server_runtime):
    league = League.objects.create(name="Tuesday", kind="teeko")
    members(django_user_model, league, "p1", "p2", "p3", "p4")
    today = timezone.localdate()
    r = admin_client.post("/admin/leagues/season/add/", {
        **SEASON_FORM, "league": league.pk, "name": "Autumn", "pairing": "round_robin",
        "start": today - dt.timedelta(days=10), "end": today + dt.timedelta(days=50)},
        follow=True)
    assert r.status_code == 200 and "Autumn overlaps" not in r.content.decode()
    r = admin_client.post("/admin/leagues/season/add/", {
        **SEASON_FORM, "league": league.pk, "name": "Winter",
        "start": today - dt.timedelta(days=5), "end": today + dt.timedelta(days=60)},
        follow=True)
    page = r.content.decode()
    assert "Winter overlaps Autumn" in page and "counts in one season only" in page
    autumn, winter = Season.objects.get(name="Autumn"), Season.objects.get(name="Winter")
    listing = admin_client.get("/admin/leagues/season/").content.decode()
    assert '<td class="field-overlaps">Autumn</td>' in listing
    assert '<td class="field-overlaps">Winter</td>' in listing
    for s in (autumn, winter):
        admin_client.post("/admin/leagues/season/", {"action": "generate_next_round",
                                                     "_selected_action": [s.pk]})
    # Autumn's round 1 is played (the later-placed players win), Winter's is not yet
    for f in Fixture.objects.filter(season=autumn, bye=False):
        assert f.game.season_id == autumn.pk
        append.append_result(f.game_id, [1], "adjudicated")
    for f in Fixture.objects.filter(season=winter, bye=False):
        assert f.game.season_id == winter.pk and f.game.status == Game.LIVE
    # and a game created through the API names its season
    tok = admin_client.post("/api/login", json.dumps({"username": "p1", "password": "pw"}),
                            content_type="application/json").json()["token"]
    r = admin_client.post("/api/games/", json.dumps({
        "kind": "teeko", "league": league.pk, "season": winter.pk, "join": {"seat": 0}}),
        content_type="application/json", headers={"Authorization": f"Token {tok}"})
    assert r.status_code == 201 and r.json()["season"] == winter.pk
    r = admin_client.post("/api/games/", json.dumps({  # (two seasons run today: none chosen)
        "kind": "teeko", "league": league.pk, "join": {"seat": 0}}),
        content_type="application/json", headers={"Authorization": f"Token {tok}"})
    assert r.status_code == 201 and r.json()["season"] is None
    other = Season.objects.create(league=League.objects.create(name="Other", kind="teeko"),
                                  name="X", start=today, end=today)
    r = admin_client.post("/api/games/", json.dumps({
        "kind": "teeko", "league": league.pk, "season": other.pk, "join": {"seat": 0}}),
        content_type="application/json", headers={"Authorization": f"Token {tok}"})
    assert r.status_code == 400 and "not one of" in r.json()["error"]["reason"]
    # the tables: Autumn has its two games, Winter none of them
    a_rows, w_rows = standings.season_table(autumn), standings.season_table(winter)
    assert sum(x.played for x in a_rows) == 4 and sum(x.points for x in a_rows) == 6
    assert sum(x.played for x in w_rows) == 0
    csv_a = admin_client.get(f"/leagues/{league.pk}/standings.csv?season={autumn.pk}")
    csv_w = admin_client.get(f"/leagues/{league.pk}/standings.csv?season={winter.pk}")
    assert csv_a.status_code == csv_w.status_code == 200 and csv_a.content != csv_w.content
    # Winter's Swiss round 2 is paired from Winter's own table (all level), not Autumn's
    players = sorted(league.members.values_list("pk", flat=True))
    met = {frozenset(f.players) for f in Fixture.objects.filter(season=winter, bye=False)}
    own = pairing.swiss(players, {}, met, {})
    mixed = pairing.swiss(players, {x.user_id: float(x.points) for x in a_rows}, met, {})
    assert own.tables != mixed.tables  # (the test means something)
    made = fixtures.next_round(winter, today=winter.start,
                               override="pairing check: round 1 not played yet")
    assert [tuple(f.players) for f in made if not f.bye] == [tuple(t) for t in own.tables]


def test_the_migration_links_games_to_their_season(django_user_model, server_runtime):
    from django.apps import apps

    mig = importlib.import_module("server.games.migrations.0005_game_season")
    league = League.objects.create(name="Tuesday", kind="teeko")
    members(django_user_model, league, "ann", "bob")
    spring = Season.objects.create(league=league, name="Spring", start=dt.date(2026, 3, 1),
                                   end=dt.date(2026, 5, 31))
    summer = Season.objects.create(league=league, name="Summer", start=dt.date(2026, 5, 1),
                                   end=dt.date(2026, 8, 31))
    seats = [{"kind": "user", "username": "ann"}, {"kind": "user", "username": "bob"}]

    def game(day: dt.date | None, fixture_of: Season | None = None) -> Game:
        g = creating.create_game("teeko", {}, seats, league=league)
        append.append_result(g.pk, [0], "adjudicated")
        if day is not None:
            at = dt.datetime.combine(day, dt.time(20), tzinfo=dt.UTC)
            Game.objects.filter(pk=g.pk).update(finished_at=at)
        if fixture_of is not None:
            Fixture.objects.create(season=fixture_of, round=1, table=Fixture.objects.count() + 1,
                                   date=fixture_of.start, players=[], game=g)
        return g

    only_spring = game(dt.date(2026, 4, 1))
    both = game(dt.date(2026, 5, 15))  # the overlap: ambiguous
    fixture_game = game(dt.date(2026, 5, 15), fixture_of=summer)
    outside = game(dt.date(2026, 10, 1))
    casual = creating.create_game("teeko", {}, seats)
    assert not Game.objects.filter(season__isnull=False).exists()
    with transaction.atomic():
        mig.link_seasons(apps, None)
    got = dict(Game.objects.values_list("pk", "season_id"))
    assert got[only_spring.pk] == spring.pk and got[fixture_game.pk] == summer.pk
    assert got[both.pk] is None and got[outside.pk] is None and got[casual.pk] is None


# ------------------------------------------------------------------ 3. results the rules allow


def teka_game(league: League) -> Game:
    return creating.create_game("teka", {}, [{"kind": "user", "username": n}
                                          for n in ("ann", "bob", "cat", "dan")], league=league)


def test_impossible_results_are_refused_in_the_admin(admin_client, django_user_model,
                                                     server_runtime):
    league = League.objects.create(name="Teka nights", kind="teka")
    members(django_user_model, league, "ann", "bob", "cat", "dan")
    url = "/admin/games/game/record/"
    for winners, scores, why in (
        ("ann, bob, cat", "", "won by a partnership"),
        ("ann, bob", "", "won by a partnership"),
        ("ann, cat", "0, 0, 0, 0", "reached 104"),
        ("ann, cat", "104, 50, 90, 50", "partners share a score"),
    ):
        r = admin_client.post(url, {"kind": "teka", "players": "ann, bob, cat, dan",
                                    "winners": winners, "scores": scores,
                                    "league": league.pk})
        page = r.content.decode()
        assert r.status_code == 200 and "errornote" in page and why in page, (winners, page)
    assert not Game.objects.exists()
    r = admin_client.post(url, {"kind": "teka", "players": "ann, bob, cat, dan",
                                "winners": "ann, cat", "scores": "104, 52, 104, 52",
                                "league": league.pk}, follow=True)
    assert "recorded: ann &amp; cat win 104-52" in r.content.decode()
    # deciding a live game: seats 0 and 1 are opponents
    g = teka_game(league)
    before = Event.objects.filter(game=g).count()
    r = admin_client.post(f"/admin/games/game/{g.pk}/decide/",
                          {"reason": "adjudicated", "winners": ["0", "1"]})
    page = r.content.decode()
    assert "errornote" in page and "won by a partnership" in page
    assert Event.objects.filter(game=g).count() == before
    assert Game.objects.get(pk=g.pk).status == Game.LIVE
    r = admin_client.post(f"/admin/games/game/{g.pk}/decide/",
                          {"reason": "adjudicated", "winners": ["1", "3"]}, follow=True)
    assert Game.objects.get(pk=g.pk).outcome["winners"] == [1, 3]


def test_the_rules_core_decides_a_result():
    def state(kind: str, options: dict[str, Any] | None = None) -> Any:
        g = core.GAMES[kind]
        return g, fold(g, g.start(g.options(options or {}), Random(3)))

    def refused(kind: str, cmd: dict[str, Any], options: dict[str, Any] | None = None) -> str:
        g, st = state(kind, options)
        with pytest.raises(IllegalMoveError) as err:
            g.decide_result(st, {"type": "result", "scores": [], **cmd})
        return err.value.reason

    assert "partnership" in refused("teka", {"winners": [0, 1], "reason": "adjudicated"})
    assert "partnership" in refused("teka", {"winners": [0], "reason": "off_board"})
    assert "reached 30" in refused("teka", {"winners": [1, 3], "reason": "off_board",
                                            "scores": [20, 25, 20, 25]}, {"target": 30})
    assert "not behind" in refused("teka", {"winners": [1, 3], "reason": "adjudicated",
                                            "scores": [60, 20, 60, 20]})
    assert "no score" in refused("teeko", {"winners": [0], "reason": "off_board",
                                           "scores": [1, 0]})
    assert "0 to 14" in refused("tiku", {"winners": [0], "reason": "off_board",
                                         "scores": [0, 15]})
    assert "highest" in refused("tedoku", {"winners": [0], "reason": "off_board",
                                           "scores": [10, 30, 5]}, {"seats": 3})
    assert "not negative" in refused("tedoku", {"winners": [], "reason": "adjudicated",
                                                "scores": [-1, 3]}, {"seats": 2})
    assert refused("teeko", {"winners": [0, 1], "reason": "adjudicated"})
    g, st = state("teka")
    ok = g.decide_result(st, {"type": "result", "winners": [0, 2], "reason": "off_board",
                              "scores": [104, 52, 104, 52]})
    assert g.outcome(g.evolve(st, ok[0])).winners == [0, 2]
    over = g.evolve(st, ok[0])
    with pytest.raises(IllegalMoveError) as err:
        g.decide_result(over, {"type": "result", "winners": [], "reason": "void"})
    assert err.value.code == "game_over"
    # the server appends only what the core decides
    from core.api import OptionsError

    assert issubclass(OptionsError, ValueError)


# ------------------------------------------------------------------ 4. scheduled fixtures


def test_fixtures_are_scheduled_until_their_round_opens(admin_client, django_user_model,
                                                        server_runtime):
    league = League.objects.create(name="Tuesday", kind="teeko")
    members(django_user_model, league, *[f"p{i}" for i in range(8)])
    today = timezone.localdate()
    season = Season.objects.create(league=league, name="Next month",
                                   start=today + dt.timedelta(days=30),
                                   end=today + dt.timedelta(days=90))
    for _ in range(3):
        r = admin_client.post("/admin/leagues/season/", {"action": "generate_next_round",
                                                        "_selected_action": [season.pk]},
                              follow=True)
        assert "scheduled: the tables open on that date" in r.content.decode()
    assert Fixture.objects.filter(season=season).count() == 12
    assert not Game.objects.exists()  # no table yet: nothing live, nothing on the TV
    assert admin_client.get("/api/games/?status=live").json()["games"] == []
    assert 'href="/games/' not in admin_client.get("/").content.decode()
    page = admin_client.get(f"/leagues/{league.pk}/").content.decode()
    assert page.count("scheduled") >= 12
    # the organiser opens the next round: its four fixtures become tables
    r = admin_client.post("/admin/leagues/season/", {"action": "open_next_round",
                                                    "_selected_action": [season.pk]},
                          follow=True)
    assert "round 1 opened: 4 tables" in r.content.decode()
    live = admin_client.get("/api/games/?status=live").json()["games"]
    assert len(live) == 4 and {g["season"] for g in live} == {season.pk}
    assert admin_client.get("/").content.decode().count('href="/games/') >= 4
    assert {f.round for f in Fixture.objects.filter(game__isnull=False)} == {1}
    # a round opens by itself on its date
    assert fixtures.open_due(today) == 0
    assert fixtures.open_due(season.start + dt.timedelta(days=7)) == 4
    assert Game.objects.filter(status=Game.LIVE).count() == 8
    assert not Fixture.objects.filter(round__lte=2, game__isnull=True).exists()
    assert Fixture.objects.filter(round=3, game__isnull=True).count() == 4
