"""League lives in the leagues app (migrations games 0009 and leagues 0002): a database with
leagues in the old place, the games app, migrates forward keeping every row, every link of
games and seasons to them, their members, and the permissions given on them."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from server.games import creating
from server.games.models import Game
from server.leagues.models import League, Season

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0008_event_outcome"), ("leagues", "0001_initial")]
"""The last migrations of both apps with League in the games app."""


def tables() -> set[str]:
    with connection.cursor() as cur:
        return set(connection.introspection.table_names(cur))


def test_the_models_and_the_migrations_agree() -> None:
    out = StringIO()
    call_command("makemigrations", "games", "leagues", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue(), out.getvalue()


def test_a_database_with_leagues_in_the_games_app_migrates_forward_keeping_every_row(
        django_user_model: Any, admin_client: Any, server_runtime: Any) -> None:
    import datetime as dt

    ann = django_user_model.objects.create_user("ann")
    bob = django_user_model.objects.create_user("bob")
    club = League.objects.create(name="Tuesday", kind="teeko")
    club.members.set([ann, bob])
    spring = Season.objects.create(league=club, name="Spring", start=dt.date(2026, 3, 1),
                                   end=dt.date(2026, 5, 31))
    played = creating.create_game("teeko", {}, [{"kind": "guest", "name": "a"},
                                            {"kind": "guest", "name": "b"}], league=club.pk)
    later = creating.create_game("tiku", {}, [{"kind": "guest", "name": "c"},
                                          {"kind": "guest", "name": "d"}])
    organisers = Group.objects.create(name="League keepers")
    organisers.permissions.add(Permission.objects.get(content_type__app_label="leagues",
                                                      codename="change_league"))

    call_command("migrate", "leagues", "0001", verbosity=0)  # (games 0009 goes with it)
    assert "games_league" in tables() and "leagues_league" not in tables()
    assert "games_league_members" in tables()
    old_type = ContentType.objects.get(app_label="games", model="league")
    assert organisers.permissions.filter(content_type=old_type, codename="change_league")

    # A league made in the old state, as the code of that time wrote it.
    old = MigrationExecutor(connection).loader.project_state(BEFORE, at_end=True).apps
    OldLeague = old.get_model("games", "League")
    assert OldLeague._meta.db_table == "games_league"
    thursday = OldLeague.objects.create(name="Thursday", kind="tiku")
    thursday.members.set([bob.pk])
    old.get_model("games", "Game").objects.filter(pk=later.pk).update(league_id=thursday.pk)
    old.get_model("leagues", "Season").objects.create(
        league_id=thursday.pk, name="Autumn", start=dt.date(2026, 9, 1), end=dt.date(2026, 11, 30))

    call_command("migrate", verbosity=0)
    # (the admin's login went with the round trip through the old token table, which
    # kept no browser logins: log in again)
    admin_client.force_login(django_user_model.objects.get(username="admin"))

    assert "leagues_league" in tables() and "games_league" not in tables()
    assert "leagues_league_members" in tables() and "games_league_members" not in tables()
    assert {(lg.pk, lg.name, lg.kind) for lg in League.objects.all()} == {
        (club.pk, "Tuesday", "teeko"), (thursday.pk, "Thursday", "tiku")}
    assert sorted(u.username for u in League.objects.get(pk=club.pk).members.all()) == [
        "ann", "bob"]
    assert [u.username for u in League.objects.get(pk=thursday.pk).members.all()] == ["bob"]
    assert Game.objects.get(pk=played.pk).league == League.objects.get(pk=club.pk)
    assert Game.objects.get(pk=later.pk).league_id == thursday.pk
    assert Season.objects.get(pk=spring.pk).league_id == club.pk
    assert [s.name for s in League.objects.get(pk=thursday.pk).seasons.all()] == ["Autumn"]
    # the permission given on leagues stays given, now the leagues app's
    assert not ContentType.objects.filter(app_label="games", model="league").exists()
    assert organisers.permissions.filter(content_type__app_label="leagues",
                                         codename="change_league").exists()
    # the database still refuses a game of a league that does not exist
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("UPDATE games_game SET league_id = %s WHERE id = %s",
                    [thursday.pk + 1000, later.pk])
    # a new league gets a fresh id after the old ones
    assert League.objects.create(name="Friday", kind="teka").pk > thursday.pk
    # the API and the admin of the leagues app serve them
    listed = admin_client.get("/api/leagues/").json()["leagues"]
    assert {lg["name"]: lg["games"] for lg in listed} == {"Tuesday": 1, "Thursday": 1,
                                                          "Friday": 0}
    detail = admin_client.get(f"/api/leagues/{thursday.pk}/").json()
    assert detail["game_ids"] == [later.pk] and detail["members"] == ["bob"]
    assert [s["name"] for s in detail["seasons"]] == ["Autumn"]
    page = admin_client.get(f"/admin/leagues/league/{thursday.pk}/change/")
    assert page.status_code == 200 and b"Thursday" in page.content


def test_the_old_admin_addresses_of_leagues_lead_to_the_new_ones(admin_client: Any) -> None:
    lg = League.objects.create(name="Tuesday", kind="teeko")
    r = admin_client.get(f"/admin/games/league/{lg.pk}/change/?_changelist_filters=q%3Dx")
    assert r.status_code == 301
    assert r["Location"] == f"/admin/leagues/league/{lg.pk}/change/?_changelist_filters=q%3Dx"
    assert admin_client.get("/admin/games/league/", follow=True).status_code == 200
    assert admin_client.get("/admin/games/game/").status_code == 200  # (the games' own stay)
