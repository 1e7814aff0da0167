"""The admin as a club tool: players and readable results in the games list,
search by player, filters by season/status/date, closing stale open tables, players from a
CSV."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from server.games import append, chain, creating
from server.games.models import Event, Game
from server.leagues import fixtures
from server.leagues.models import League, Season

pytestmark = pytest.mark.django_db(transaction=True)


def test_games_list_names_players_and_results(admin_client, django_user_model,
                                              server_runtime):
    for n in ("ada", "bob", "chen", "dee"):
        django_user_model.objects.create_user(n, password="pw")
    g = creating.create_game("teka", {}, [{"kind": "user", "username": n}
                                       for n in ("ada", "bob", "chen", "dee")])
    append.append_result(g.pk, [0, 2], "off_board", [104, 52, 104, 52])
    other = creating.create_game("tiku", {}, [{"kind": "guest", "name": "Uma"},
                                           {"kind": "bot", "level": "easy"}])
    html = admin_client.get("/admin/games/game/").content.decode()
    assert "ada, bob, chen, dee" in html and "ada &amp; chen win 104-52" in html
    assert "{&quot;winners" not in html  # (no JSON)
    found = admin_client.get("/admin/games/game/?q=chen").content.decode()
    assert f"/admin/games/game/{g.pk}/change/" in found
    assert f"/admin/games/game/{other.pk}/change/" not in found
    assert f"/admin/games/game/{other.pk}/change/" in admin_client.get(
        "/admin/games/game/?q=Uma").content.decode()
    for q in ("status__exact=finished", "finished_at__isnull=False", "kind__exact=teka"):
        assert admin_client.get(f"/admin/games/game/?{q}").status_code == 200
    page = admin_client.get(f"/admin/games/game/{g.pk}/change/").content.decode()
    assert f'href="/games/{g.pk}/"' in page and "played off the board" in page


def test_season_filter(admin_client, django_user_model, server_runtime):
    users = [django_user_model.objects.create_user(n, password="pw") for n in ("a", "b")]
    league = League.objects.create(name="L", kind="teeko")
    league.members.set(users)
    season = Season.objects.create(league=league, name="S", start=dt.date(2026, 1, 1),
                                   end=dt.date(2099, 12, 31))
    made = fixtures.next_round(season)
    loose = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    html = admin_client.get(f"/admin/games/game/?season={season.pk}").content.decode()
    assert f"/admin/games/game/{made[0].game.pk}/change/" in html
    assert f"/admin/games/game/{loose.pk}/change/" not in html
    assert admin_client.get("/admin/games/game/?season=x").status_code == 200


def test_close_stale_open_tables(admin_client, server_runtime):
    stale = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    fresh = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    live = creating.create_game("tiku", {}, [{"kind": "guest", "name": "U"},
                                          {"kind": "bot", "level": "easy"}])
    Game.objects.filter(pk=stale.pk).update(created_at=timezone.now() - dt.timedelta(days=2))
    Game.objects.filter(pk=live.pk).update(created_at=timezone.now() - dt.timedelta(days=2))
    r = admin_client.post("/admin/games/game/", {
        "action": "close_stale_open_tables",
        "_selected_action": [stale.pk, fresh.pk, live.pk]}, follow=True)
    assert "1 stale open tables closed" in r.content.decode()
    assert Game.objects.get(pk=stale.pk).outcome["reason"] == "void"
    assert Event.objects.filter(game=stale).order_by("-seq").first().type == "result"
    assert chain.verify_chain(stale.pk).ok
    assert Game.objects.get(pk=fresh.pk).status == Game.OPEN
    assert Game.objects.get(pk=live.pk).status == Game.LIVE


def test_players_from_a_csv(admin_client, django_user_model, server_runtime):
    league = League.objects.create(name="Tuesday", kind="teeko")
    django_user_model.objects.create_user("ann", password="pw")
    url = "/admin/leagues/league/players-csv/"
    page = admin_client.get("/admin/leagues/league/").content.decode()
    assert "Create players from a CSV" in page
    before = django_user_model.objects.count()
    for bad in ("", "bad name!,x", "zed,not-an-email", "zed,,Nowhere", "zed\nzed",
                "a\x00b", "x" * 300):
        r = admin_client.post(url, {"csv_text": bad})
        assert r.status_code == 200 and b"errornote" in r.content, bad
    assert django_user_model.objects.count() == before
    text = "username,email,league\nann,,Tuesday\nbea,bea@example.org,Tuesday\ncal\n"
    r = admin_client.post(url, {"csv_text": text}, follow=True)
    assert "2 players created, 1 already there" in r.content.decode()
    assert sorted(league.members.values_list("username", flat=True)) == ["ann", "bea"]
    bea = django_user_model.objects.get(username="bea")
    assert bea.email == "bea@example.org" and not bea.has_usable_password()
    from django.core.files.uploadedfile import SimpleUploadedFile

    up = SimpleUploadedFile("p.csv", b"\xff\xfe junk")
    r = admin_client.post(url, {"csv_file": up})
    assert r.status_code == 200 and b"not UTF-8" in r.content
