"""Integrity and access: league kinds, read-only results in the admin, no admin
form answers 500, and who may create games in a league or reserve seats."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from server_helpers import finish

from server.games import creating
from server.games.models import Game, Seat
from server.leagues.models import League

pytestmark = pytest.mark.django_db(transaction=True)


def users(django_user_model: Any, *names: str) -> list[Any]:
    return [django_user_model.objects.create_user(n, password="pw") for n in names]


def teeko_game(league: League | None, a: str = "ann", b: str = "bob") -> Game:
    return creating.create_game(
        "teeko", {"move_cap": 40},
        [{"kind": "user", "username": a}, {"kind": "user", "username": b}], league=league,
    )


# ------------------------------------------------------------------------ kinds

NO_GAMES = {"games-TOTAL_FORMS": "0", "games-INITIAL_FORMS": "0"}


def test_league_kind_is_a_game_of_the_registry(admin_client):
    r = admin_client.post("/admin/leagues/league/add/", {"name": "Chess club", "kind": "chess",
                                                        **NO_GAMES})
    assert r.status_code == 200 and b"errornote" in r.content
    assert not League.objects.exists()
    page = admin_client.get("/admin/leagues/league/add/").content.decode()
    assert '<select name="kind"' in page and '<option value="tedoku">' in page
    # the database keeps it a game's name (which games there are is the processes' registry,
    # core.GAMES with its plug-ins: docs/games.md)
    for bad in ("Chess club", "", "teeko; drop", "9lives"):
        with pytest.raises(IntegrityError), transaction.atomic():
            League.objects.create(name="Chess club", kind=bad)
    r = admin_client.post("/admin/leagues/league/add/", {"name": "Tiku club", "kind": "tiku",
                                                        **NO_GAMES})
    assert r.status_code == 302 and League.objects.get().kind == "tiku"


def test_the_migration_mends_old_kinds(server_runtime):
    import importlib

    from django.apps import apps
    from django.db import connection

    mig = importlib.import_module("server.games.migrations.0004_league_kind_choices")

    class Undo(Exception):
        pass

    class AsIn0004:
        """The models as migration 0004 names them (League was in the games app then)."""

        def get_model(self, app_label: str, name: str) -> Any:
            return League if name == "League" else apps.get_model(app_label, name)

    with pytest.raises(Undo), transaction.atomic():  # (the constraint is back on rollback)
        with connection.cursor() as cur:
            cur.execute("ALTER TABLE leagues_league DROP CONSTRAINT league_kind")
        a = League.objects.create(name="A", kind=" Tiku ")
        b = League.objects.create(name="B", kind="chess")
        c = League.objects.create(name="C", kind="")
        creating.create_game("tedoku", {"seats": 2}, league=None)
        Game.objects.update(league=b)
        mig.mend_kinds(AsIn0004(), None)
        kinds = {lg.name: lg.kind for lg in League.objects.filter(pk__in=[a.pk, b.pk, c.pk])}
        assert kinds == {"A": "tiku", "B": "tedoku", "C": "teeko"}
        raise Undo


def test_league_kind_cannot_change_under_its_games(admin_client, django_user_model,
                                                   server_runtime):
    users(django_user_model, "ann", "bob")
    league = League.objects.create(name="Tuesday", kind="teeko")
    teeko_game(league)
    r = admin_client.post(f"/admin/leagues/league/{league.pk}/change/",
                          {"name": "Tuesday", "kind": "tiku", "games-TOTAL_FORMS": "1",
                           "games-INITIAL_FORMS": "1"})
    assert r.status_code == 200 and b"errornote" in r.content
    assert League.objects.get().kind == "teeko"


# ------------------------------------------------------------------------ games in the admin


def change_form(admin_client: Any, game: Game, **changes: Any) -> dict[str, Any]:
    """The game's change form as the browser would post it, with ``changes``."""
    data: dict[str, Any] = {
        "league": game.league_id or "",
        "created_by": game.created_by_id or "",
        "seat_set-TOTAL_FORMS": str(game.num_seats),
        "seat_set-INITIAL_FORMS": str(game.num_seats),
        "seat_set-MIN_NUM_FORMS": "0",
        "seat_set-MAX_NUM_FORMS": "1000",
    }
    for s in Seat.objects.filter(game=game):
        p = f"seat_set-{s.number}-"
        data.update({p + "id": s.pk, p + "game": game.pk, p + "kind": s.kind,
                     p + "user": s.user_id or "", p + "name": s.name,
                     p + "bot_level": s.bot_level, p + "claimed": "on" if s.claimed else ""})
    data.update(changes)
    return data


def test_a_finished_games_seats_outcome_and_league_are_read_only(
    admin_client, django_user_model, server_runtime
):
    ann, bob, _cid = users(django_user_model, "ann", "bob", "cid")
    league = League.objects.create(name="Tuesday", kind="teeko")
    other = League.objects.create(name="Wednesday", kind="teeko")
    g = teeko_game(league)
    finish(g.pk)
    g.refresh_from_db()
    before = (list(Seat.objects.filter(game=g).values()), g.outcome, g.league_id, g.kind)
    url = f"/admin/games/game/{g.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="league"' not in page and 'name="seat_set-1-user"' not in page
    assert 'name="seat_set-MAX_NUM_FORMS" value="0"' in page  # (no "Add another Seat")
    cid = django_user_model.objects.get(username="cid")
    posted = change_form(admin_client, g, league=other.pk, **{
        "seat_set-1-user": cid.pk, "seat_set-1-name": "cid", "outcome": '{"winners": []}',
        "kind": "tiku"})
    r = admin_client.post(url, posted)
    assert r.status_code in (200, 302)
    g.refresh_from_db()
    assert (list(Seat.objects.filter(game=g).values()), g.outcome, g.league_id, g.kind) == before
    assert {ann.pk, bob.pk} == set(Seat.objects.filter(game=g).values_list("user_id", flat=True))


def test_a_live_games_bot_seat_cannot_be_made_open(admin_client, server_runtime):
    g = creating.create_game("tiku", {}, [{"kind": "guest", "name": "Uma"},
                                       {"kind": "bot", "level": "easy"}])
    assert Game.objects.get(pk=g.pk).status == Game.LIVE
    url = f"/admin/games/game/{g.pk}/change/"
    r = admin_client.post(url, change_form(admin_client, g, **{
        "seat_set-1-kind": "open", "seat_set-1-claimed": ""}))
    assert r.status_code in (200, 302)
    seat = Seat.objects.get(game=g, number=1)
    assert seat.kind == Seat.BOT and seat.claimed


def test_add_another_seat_is_not_offered_and_a_posted_one_is_refused(admin_client,
                                                                     server_runtime):
    g = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    url = f"/admin/games/game/{g.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert 'name="seat_set-MAX_NUM_FORMS" value="0"' in page  # (no "Add another Seat")
    data = change_form(admin_client, g, **{"seat_set-TOTAL_FORMS": "3",
                                           "seat_set-2-kind": "open", "seat_set-2-game": g.pk})
    r = admin_client.post(url, data)  # (the 500 of the issue: a seat without a number)
    assert r.status_code in (200, 302)
    assert Seat.objects.filter(game=g).count() == 2


def test_a_game_joins_only_a_league_of_its_kind(admin_client, server_runtime):
    tiku = League.objects.create(name="Tiku club", kind="tiku")
    teeko = League.objects.create(name="Teeko club", kind="teeko")
    g = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    url = f"/admin/games/game/{g.pk}/change/"
    r = admin_client.post(url, change_form(admin_client, g, league=tiku.pk))
    assert r.status_code == 200 and b"errornote" in r.content and b"plays tiku" in r.content
    assert Game.objects.get(pk=g.pk).league_id is None
    r = admin_client.post(url, change_form(admin_client, g, league=teeko.pk))
    assert r.status_code == 302 and Game.objects.get(pk=g.pk).league_id == teeko.pk
    g.league = tiku
    with pytest.raises(ValidationError):
        g.full_clean()


# ------------------------------------------------------------------------ every admin form

BAD_VALUES = ["", "x" * 5000, "a\x00b", "-1", "99999999999999999999", "2026-13-45", "[{",
              "\x07\u202e"]


def form_fields(response: Any) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The field names of an admin add/change page's form and of its inline formsets."""
    ctx = response.context
    fields = [name for name in ctx["adminform"].form.fields]
    inlines = []
    for inline in ctx["inline_admin_formsets"]:
        fs = inline.formset
        names = list(fs.empty_form.fields)
        inlines.append((fs.prefix, names))
    return fields, inlines


def post_data(fields: list[str], inlines: list[tuple[str, list[str]]], value: str,
              initial: int = 0) -> dict[str, Any]:
    data: dict[str, Any] = {f: value for f in fields}
    for prefix, names in inlines:
        data.update({f"{prefix}-TOTAL_FORMS": str(initial + 1),
                     f"{prefix}-INITIAL_FORMS": str(initial)})
        for i in range(initial + 1):
            data.update({f"{prefix}-{i}-{n}": value for n in names})
    return data


def some_objects(django_user_model: Any) -> dict[str, Any]:
    """One object of each registered model (for its change form)."""
    from django.contrib.auth.models import Group

    from server.games import accounts
    from server.games.models import Event, Token
    from server.leagues.models import Season

    ann, bob = users(django_user_model, "ann", "bob")
    league = League.objects.create(name="Tuesday", kind="teeko")
    league.members.set([ann, bob])
    g = teeko_game(league)
    open_game = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    import datetime as dt

    season = Season.objects.create(league=league, name="Spring", start=dt.date(2026, 3, 1),
                                   end=dt.date(2026, 5, 31))
    objs = {
        "leagues.league": league, "games.game": g, "games.event": Event.objects.first(),
        "games.token": accounts.issue(ann, Token.API, None)[0],
        "auth.user": ann, "auth.group": Group.objects.create(name="Organisers"),
        "leagues.season": season,
    }
    objs["games.game#open"] = open_game
    return objs


def test_no_admin_form_answers_500(admin_client, django_user_model, server_runtime):
    objs = some_objects(django_user_model)
    checked = []
    for model in [m for m in apps.get_models() if admin.site.is_registered(m)]:
        label = f"{model._meta.app_label}.{model._meta.model_name}"
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        targets: list[tuple[str, int]] = [(base + "add/", 0)]
        for key, obj in objs.items():
            if key.split("#")[0] == label and obj is not None:
                inline_rows = 0
                targets.append((f"{base}{obj.pk}/change/", inline_rows))
        for url, _ in targets:
            got = admin_client.get(url)
            if got.status_code == 403:  # (no add/change here: a POST is refused alike)
                assert admin_client.post(url, {"x": "1"}).status_code == 403, url
                continue
            assert got.status_code == 200, (url, got.status_code)
            fields, inlines = form_fields(got)
            if not fields and not inlines:
                continue
            for value in BAD_VALUES:
                for initial in (0, 1):
                    r = admin_client.post(url, post_data(fields, inlines, value, initial))
                    assert r.status_code in (200, 302), (url, repr(value[:10]), r.status_code)
                    if r.status_code == 200:
                        assert b"errornote" in r.content or b"errorlist" in r.content, (
                            url, repr(value[:10]))
            checked.append(url)
    assert any("leagues/season/add" in u for u in checked)
    assert any("games/game/" in u and "change" in u for u in checked)
    assert League.objects.filter(name__startswith="x").count() == 0


# ------------------------------------------------------------------------ access


def post(client: Any, url: str, data: Any, token: str | None = None) -> Any:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return client.post(url, data=json.dumps(data), content_type="application/json",
                       headers=headers)


def token(client: Any, name: str) -> str:
    r = post(client, "/api/login", {"username": name, "password": "pw"})
    return str(r.json()["token"])


def test_creating_a_game_in_a_league_needs_a_member_or_an_organiser(
    client, django_user_model, server_runtime
):
    ann, bob, eve, org = users(django_user_model, "ann", "bob", "eve", "org")
    org.user_permissions.add(Permission.objects.get(codename="organise_league"))
    league = League.objects.create(name="Tuesday", kind="teeko")
    league.members.set([ann, bob])
    seats = [{"kind": "user", "username": "ann"}, {"kind": "user", "username": "bob"}]
    tok = {n: token(client, n) for n in ("ann", "eve", "org")}
    before = Game.objects.count()
    # anonymous: 403 with a reason, nothing created
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk})
    assert r.status_code == 403
    err = r.json()["error"]
    assert err["code"] == "forbidden" and "log in" in err["reason"]
    # a non-member
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk}, tok["eve"])
    assert r.status_code == 403 and "members and organisers" in r.json()["error"]["reason"]
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk,
                                     "join": {"seat": 0}}, tok["eve"])
    assert r.status_code == 403
    # a member reserving a seat for someone else
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk, "seats": seats},
             tok["ann"])
    assert r.status_code == 403 and "organiser" in r.json()["error"]["reason"]
    # ... or outside any league
    r = post(client, "/api/games/", {"kind": "teeko", "seats": seats[1:]})
    assert r.status_code == 403
    assert Game.objects.count() == before and not Seat.objects.exists()
    # allowed: a member for themselves, an organiser for anyone
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk, "seats": seats[:1]},
             tok["ann"])
    assert r.status_code == 201, r.content
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk, "seats": seats},
             tok["org"])
    assert r.status_code == 201 and r.json()["league"] == league.pk
    # a group's permission works too; bad input is still 400 before any 403
    from django.contrib.auth.models import Group

    group = Group.objects.create(name="Organisers")
    group.permissions.add(Permission.objects.get(codename="organise_league"))
    eve.groups.add(group)
    r = post(client, "/api/games/", {"kind": "teeko", "league": league.pk, "seats": seats},
             tok["eve"])
    assert r.status_code == 201
    r = post(client, "/api/games/", {"kind": "tiku", "league": league.pk})
    assert r.status_code == 400
    assert Game.objects.count() == before + 3
