"""Members sign themselves up with an invite link: a display name of any characters and a
password, a login name made from it, membership and a login at once, all on the league's
record; a revoked link signs nobody up; a password reset link an organiser hands out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from server_helpers import client_post

from server.games import creating
from server.leagues.models import ClubEvent, Invite, League

pytestmark = pytest.mark.django_db(transaction=True)

STRONG = "correct horse battery 42"


def test_a_player_signs_up_with_the_league_invite(admin_client: Any, client: Any,
                                                  server_runtime: Any) -> None:
    league = League.objects.create(name="Tuesday", kind="teeko")
    r = admin_client.post("/admin/leagues/invite/add/", {"league": league.pk}, follow=True)
    assert r.status_code == 200
    (invite,) = Invite.objects.all()
    assert invite.created_by == "admin" and len(invite.code) >= 16
    page = admin_client.get("/admin/leagues/invite/").content.decode()
    assert f"/invite/{invite.code}/" in page
    # the player opens the link on a phone
    page = client.get(invite.path).content.decode()
    assert "Join Tuesday" in page
    # refusals say why and make nobody
    r = client.post(invite.path, {"display_name": "Anne/Marie O'Brien", "password": STRONG,
                                  "password_again": STRONG + "x"})
    assert "the two passwords differ" in r.content.decode()
    r = client.post(invite.path, {"display_name": "Anne", "password": "123",
                                  "password_again": "123"})
    assert "too short" in r.content.decode()
    assert not get_user_model().objects.filter(first_name__startswith="Anne").exists()
    r = client.post(invite.path, {"display_name": "Anne/Marie O'Brien", "password": STRONG,
                                  "password_again": STRONG})
    page = r.content.decode()
    assert "Welcome to Tuesday, Anne/Marie O&#x27;Brien" in page
    user = get_user_model().objects.get(first_name="Anne/Marie O'Brien")
    assert user.username == "anne-marie-obrien" and user.check_password(STRONG)
    assert "anne-marie-obrien" in page
    assert list(league.members.all()) == [user]
    assert client.get("/api/me/").json()["username"] == "anne-marie-obrien"  # (logged in)
    # a second "Anne/Marie O'Brien" gets her own login name
    other = Client_()
    other.post(invite.path, {"display_name": "Anne/Marie O'Brien", "password": STRONG,
                             "password_again": STRONG})
    assert get_user_model().objects.filter(username="anne-marie-obrien-2").exists()
    Invite.objects.filter(pk=invite.pk).update()
    invite.refresh_from_db()
    assert invite.uses == 2
    # her display name is what the table shows
    g = creating.create_game("teeko", {}, [{"kind": "user", "username": "anne-marie-obrien"},
                                        {"kind": "open"}])
    assert g.seat_set.get(number=0).name == "Anne/Marie O'Brien"
    # on the record, and on the league's page
    signed = ClubEvent.objects.filter(league=league, action=ClubEvent.SIGNED_UP)
    assert [e.by for e in signed] == ["anne-marie-obrien", "anne-marie-obrien-2"]
    history = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "signed up with an invite (Anne/Marie O&#x27;Brien)" in history
    # revoked: the link signs nobody up and says so
    admin_client.post("/admin/leagues/invite/", {"action": "revoke",
                                                 "_selected_action": [invite.pk]})
    r = Client_().get(invite.path)
    assert r.status_code == 410 and "revoked" in r.content.decode()
    r = Client_().post(invite.path, {"display_name": "Late", "password": STRONG,
                                     "password_again": STRONG})
    assert r.status_code == 410 and not get_user_model().objects.filter(first_name="Late")
    assert ClubEvent.objects.filter(action=ClubEvent.INVITE_REVOKED, by="admin").count() == 1
    assert Client_().get("/invite/nonsense/").status_code == 404


def Client_() -> Any:
    from django.test import Client

    return Client()


def test_a_password_reset_link_the_organiser_hands_out(admin_client: Any,
                                                       server_runtime: Any) -> None:
    ann = get_user_model().objects.create_user("ann", password="old password 1")
    r = admin_client.post("/admin/auth/user/", {"action": "password_reset_link",
                                                "_selected_action": [ann.pk]}, follow=True)
    m = re.search(r"http://testserver(/reset/[^/]+/[^/\s<]+/)", r.content.decode())
    assert m, r.content.decode()[:2000]
    phone = Client_()
    form = phone.get(m.group(1), follow=True)
    assert form.status_code == 200 and b"new_password1" in form.content
    done = phone.post(form.redirect_chain[-1][0], {"new_password1": STRONG,
                                                   "new_password2": STRONG}, follow=True)
    assert done.status_code == 200
    ann.refresh_from_db()
    assert ann.check_password(STRONG)
    r = client_post(phone, "/api/login", {"username": "ann", "password": STRONG})
    assert r.status_code == 200
