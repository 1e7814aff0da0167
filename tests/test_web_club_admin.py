"""The club organiser's tasks driven in a real browser (Chromium): record a game played on a
board (with the wrong winner), correct it with a reason, close the season, make an invite
link; a new player signs up with it on a phone; the league's page tells the story. With
GAMENIGHT_SHOTS set, the pictures of docs/club.md are taken on the way."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from test_web_seats import shot
from web_browser import PHONE, browser, in_thread, open_page  # noqa: F401  (the fixture)

from server.leagues.models import ClubEvent, Invite, League, Season

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(600)]


def club(django_user_model: Any) -> tuple[League, Season]:
    org = django_user_model.objects.create_user("org", password="org-pw-123", is_staff=True)
    org.user_permissions.add(*Permission.objects.filter(
        codename__in=["organise_league", "view_game", "view_season", "view_league",
                      "add_invite", "view_invite", "change_invite"]))
    league = League.objects.create(name="Tuesday Teeko", kind="teeko")
    players = [django_user_model.objects.create_user(n, password="pw", first_name=f)
               for n, f in (("ann", "Ann"), ("bob", "Bob"))]
    league.members.set(players)
    today = dt.date.today()
    season = Season.objects.create(league=league, name="Winter", start=today,
                                   end=today + dt.timedelta(days=60))
    return league, season


def test_an_organiser_records_corrects_closes_and_invites(
        daphne_server: Any, browser: Any, django_user_model: Any) -> None:  # noqa: F811
    server = daphne_server
    league, season = in_thread(club, django_user_model)
    w = open_page(browser, f"{server.http}/admin/login/", 1280, 900)
    page = w.page
    page.fill("#id_username", "org")
    page.fill("#id_password", "org-pw-123")
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r".*/admin/$"))
    # record a board game, with the wrong winner (ann; bob won)
    page.goto(f"{server.http}/admin/games/game/record/")
    page.select_option("#id_league", str(league.pk))
    page.select_option("#id_season", str(season.pk))
    page.fill("#id_players", "ann, bob")
    page.fill("#id_winners", "ann")
    page.click("input[type=submit]")
    page.wait_for_selector("text=recorded: Ann wins")
    message = page.text_content("ul.messagelist") or ""
    found = re.search(r"game #(\d+) recorded", message, re.IGNORECASE)
    assert found, message
    game_id = int(found.group(1))
    # correct it, with the reason
    page.goto(f"{server.http}/admin/games/game/{game_id}/decide/")
    page.wait_for_selector("text=Correct the result")
    page.select_option("#id_reason", "adjudicated")
    page.check("input[name=winners][value='1']")
    page.fill("#id_why", "entered the wrong winner: Bob won")
    shot(page, "club-admin-correct.png")
    page.click("input[type=submit]")
    page.wait_for_selector("text=corrected: Bob wins")
    assert "entered the wrong winner: Bob won" in page.content()
    # close the season
    page.goto(f"{server.http}/admin/leagues/season/{season.pk}/life/")
    page.select_option("#id_action", "close")
    page.fill("#id_why", "end of winter")
    page.click("input[type=submit]")
    page.wait_for_selector("text=done, on the record")
    shot(page, "club-admin-season-life.png")
    assert "closed: its table is final" in page.content()
    # an invite link
    page.goto(f"{server.http}/admin/leagues/invite/add/")
    page.select_option("#id_league", str(league.pk))
    page.click("input[name=_save]")
    page.wait_for_selector("text=/invite/")
    code = in_thread(lambda: Invite.objects.get(league=league).code)
    link = page.get_attribute(f"a[href='/invite/{code}/']", "href")
    assert link == f"/invite/{code}/"
    # a new player signs up on a phone
    phone = open_page(browser, f"{server.http}{link}", *PHONE)
    phone.page.fill("#id_display_name", "Cy O'Hara")
    phone.page.fill("#id_password", "a long pass phrase")
    phone.page.fill("#id_password_again", "a long pass phrase")
    shot(phone.page, "club-invite-phone.png")
    phone.page.click("button[type=submit]")
    phone.page.wait_for_selector("text=Welcome to Tuesday Teeko, Cy O'Hara")
    assert "cy-ohara" in phone.page.content()
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE[0]
    # the league's page tells it all
    page.goto(f"{server.http}/leagues/{league.pk}/?season={season.pk}")
    text = page.content()
    assert "closed: the table is final" in text
    assert "result of game #" in text and "entered the wrong winner: Bob won" in text
    assert "signed up with an invite (Cy O'Hara)" in text.replace("&#x27;", "'")
    shot(page, "club-league-history.png")
    actions = in_thread(lambda: list(ClubEvent.objects.filter(league=league)
                                     .values_list("action", flat=True)))
    assert {"close", "signed_up", "member_added"} <= set(actions)
    assert w.js_errors() == [] and phone.js_errors() == []
