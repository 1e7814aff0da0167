"""Corrections of a finished game's result: appended after its end with who and why, never an
edit of the log; refused by the database otherwise; the standings, ratings, pages and
``/verify/`` follow the result that counts; a correction of a correction, a void."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db import DatabaseError, connection, transaction
from server_helpers import client_post

from core.api import OptionsError
from server.games import corrections, creating
from server.games.models import Correction, Event, Game
from server.leagues import ratings
from server.leagues.models import League, Rating
from server.leagues.results import record_off_board
from server.leagues.standings import all_time_table

pytestmark = pytest.mark.django_db(transaction=True)


def club(django_user_model: Any, kind: str = "teeko", names: tuple[str, ...] = ("ann", "bob")
         ) -> tuple[League, list[Any], Any]:
    users = [django_user_model.objects.create_user(n, password="pw") for n in names]
    league = League.objects.create(name="Tuesday", kind=kind)
    league.members.set(users)
    org = django_user_model.objects.create_user("org", password="pw", is_staff=True)
    org.user_permissions.add(Permission.objects.get(codename="organise_league"))
    return league, users, org


def points(league: League) -> dict[str, tuple[int, int]]:
    return {r.username: (r.won, r.points) for r in all_time_table(league)}


def test_a_wrong_winner_is_corrected_with_the_reason_on_record(
        django_user_model: Any, client: Any, server_runtime: Any) -> None:
    league, (ann, bob), org = club(django_user_model)
    # recorded with the wrong winner: ann (it was bob)
    g = record_off_board("teeko", [ann, bob], [0], None, league, org)
    assert points(league)["ann"] == (1, 3) and points(league)["bob"] == (0, 0)
    events = Event.objects.filter(game=g).count()
    ratings.catch_up()
    before = {r.user_id: r.mu for r in Rating.objects.filter(game_id=g.pk)}
    assert before[ann.pk] > before[bob.pk]
    # the admin page of a finished game corrects it (it used to refuse)
    client.force_login(org)
    url = f"/admin/games/game/{g.pk}/decide/"
    page = client.get(url).content.decode()
    assert "Correct the result" in page and "ann wins" in page
    # no reason: refused, nothing appended
    r = client.post(url, {"reason": "adjudicated", "winners": ["1"]})
    assert b"errorlist" in r.content and not Correction.objects.exists()
    r = client.post(url, {"reason": "adjudicated", "winners": ["1"],
                          "why": "entered the wrong winner: bob won"}, follow=True)
    assert "bob wins (adjudicated) (corrected)" in r.content.decode()
    g.refresh_from_db()
    assert g.outcome["winners"] == [0]  # (the log's own end is untouched)
    assert g.result is not None and g.result["winners"] == [1]
    assert Event.objects.filter(game=g).count() == events  # (the log: nothing appended)
    (c,) = Correction.objects.filter(game=g)
    assert (c.n, c.by, c.why) == (1, "org", "entered the wrong winner: bob won")
    assert c.old_result["winners"] == [0] and c.new_result["winners"] == [1]
    # standings and ratings follow at once
    assert points(league)["ann"] == (0, 0) and points(league)["bob"] == (1, 3)
    after = {r.user_id: r.mu for r in Rating.objects.filter(game_id=g.pk)}
    assert after[bob.pk] > after[ann.pk]
    # the API, the words and /verify/ tell it
    game = client.get(f"/api/games/{g.pk}/").json()
    assert game["outcome"]["winners"] == [1]
    assert [x["why"] for x in game["corrections"]] == ["entered the wrong winner: bob won"]
    words = client.get(f"/api/games/{g.pk}/words/?from=1&to=1").json()
    assert "corrected by org: entered the wrong winner: bob won" in words["result"]
    check = client.get(f"/api/games/{g.pk}/verify/").json()
    assert check["ok"] and check["corrections"] == 1


def test_a_correction_of_a_correction_and_a_void(
        django_user_model: Any, client: Any, server_runtime: Any) -> None:
    league, (ann, bob), org = club(django_user_model)
    g = record_off_board("teeko", [ann, bob], [0], None, league, org)
    corrections.correct(g.pk, "org", "bob won", [1], "adjudicated")
    ratings.retake(g.pk)
    corrections.correct(g.pk, "org", "the game was never finished: void", [], "void")
    ratings.retake(g.pk)
    g.refresh_from_db()
    assert g.result is not None and g.result["reason"] == "void"
    assert points(league) == {"ann": (0, 0), "bob": (0, 0)}  # (counts for nobody)
    assert not Rating.objects.filter(game_id=g.pk).exists()
    assert [c.n for c in Correction.objects.filter(game=g)] == [1, 2]
    assert client.get(f"/api/games/{g.pk}/verify/").json()["ok"]
    # the same result again: nothing to correct
    with pytest.raises(OptionsError, match="already the result"):
        corrections.correct(g.pk, "org", "again", [], "void")


def test_the_database_keeps_corrections_append_only_and_in_order(
        django_user_model: Any, server_runtime: Any) -> None:
    league, (ann, bob), org = club(django_user_model)
    g = record_off_board("teeko", [ann, bob], [0], None, league, org)
    c = corrections.correct(g.pk, "org", "bob won", [1], "adjudicated")
    for sql in ("UPDATE games_correction SET why = 'nothing' WHERE id = %s",
                "DELETE FROM games_correction WHERE id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(sql, [c.pk])
    # a correction that does not replace the result that counts (made on a stale view)
    with pytest.raises(DatabaseError), transaction.atomic():
        Correction.objects.create(game=g, n=2, by="org", why="x", old_result=g.outcome,
                                  new_result=g.outcome, command={})
    # a number out of order
    with pytest.raises(DatabaseError), transaction.atomic():
        Correction.objects.create(game=g, n=3, by="org", why="x", old_result=c.new_result,
                                  new_result=g.outcome,
                                  command={})
    # the game row's corrected result is only ever the last correction's
    with pytest.raises(DatabaseError, match="last correction"), transaction.atomic():
        Game.objects.filter(pk=g.pk).update(corrected=g.outcome)
    # a game not over has no correction
    live = creating.create_game("teeko", {}, [{"kind": "user", "username": "ann"},
                                           {"kind": "user", "username": "bob"}], league=league)
    with pytest.raises(DatabaseError, match="not finished"), transaction.atomic():
        Correction.objects.create(game=live, n=1, by="org", why="x", old_result={}, new_result={},
                                  command={})
    with pytest.raises(OptionsError, match="not over"):
        corrections.correct(live.pk, "org", "why", [1], "adjudicated")
    assert Correction.objects.count() == 1


def test_impossible_or_unexplained_corrections_are_refused(
        django_user_model: Any, client: Any, server_runtime: Any) -> None:
    league, users, org = club(django_user_model, "teka", ("ann", "bob", "cid", "dee"))
    g = record_off_board("teka", users, [0, 2], [104, 52, 104, 52], league, org)
    for why, winners, reason, match in (
            ("", [1, 3], "adjudicated", "say why"),
            ("   ", [1, 3], "adjudicated", "say why"),
            ("x" * 501, [1, 3], "adjudicated", "at most 500"),
            ("partners", [0, 1], "adjudicated", "partnership"),
            ("nonsense", [1], "chess", "reason")):
        with pytest.raises(OptionsError, match=match):
            corrections.correct(g.pk, "org", why, winners, reason)
    assert not Correction.objects.exists()
    # over the API: an organiser only, with the reason in every refusal
    auth = {"username": "ann", "password": "pw"}
    token = client_post(client, "/api/login", auth).json()["token"]
    r = client_post(client, f"/api/games/{g.pk}/correct/",
                    {"why": "x", "winners": [1, 3]}, Authorization=f"Token {token}")
    assert r.status_code == 403 and "organisers" in r.json()["error"]["reason"]
    r = client_post(client, f"/api/games/{g.pk}/correct/", {"why": "x", "winners": [1, 3]})
    assert r.status_code == 401
    token = client_post(client, "/api/login", {"username": "org", "password": "pw"}).json()
    auth_org = {"Authorization": f"Token {token['token']}"}
    r = client_post(client, f"/api/games/{g.pk}/correct/", {"why": "", "winners": [1, 3]},
                    **auth_org)
    assert r.status_code == 400 and "say why" in r.json()["error"]["reason"]
    r = client_post(client, f"/api/games/{g.pk}/correct/",
                    {"why": "scores swapped", "winners": [1, 3], "scores": [52, 104, 52, 104]},
                    **auth_org)
    assert r.status_code == 200, r.content
    assert r.json()["outcome"]["winners"] == [1, 3]
    assert r.json()["corrections"][0]["new_text"].startswith("bob & dee win 104-52")
    assert Correction.objects.count() == 1
