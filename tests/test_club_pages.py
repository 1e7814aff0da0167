"""Public pages: league (seasons, fixtures by round, standings, ratings, chart),
player (history, chart, head-to-head), CSV exports, the front page's links; no login, no
hidden information."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from server_helpers import finish

from server.games.models import Event
from server.leagues import fixtures
from server.leagues.models import Fixture, League, Season

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def club(django_user_model, server_runtime):
    names = ["ann", "bob", "cid", "=dee"]
    users = [django_user_model.objects.create_user(n, password="pw") for n in names]
    league = League.objects.create(name="Tuesday <Club>", kind="teeko")
    league.members.set(users)
    today = dt.date.today()
    season = Season.objects.create(league=league, name="Spring", start=today,
                                   end=today + dt.timedelta(days=60))
    for _ in range(3):  # (the rounds after the first are dated later: opened early)
        fixtures.next_round(season)
        for i, f in enumerate(fixtures.open_round(season)
                              or Fixture.objects.filter(season=season, round=1)):
            if f.game is not None:
                finish(f.game.pk, i + f.round)
    fixtures.next_round(season)  # round 4: opened, not played yet
    fixtures.open_round(season)
    return league, season


def test_league_page(client, club):
    league, season = club
    html = client.get(f"/leagues/{league.pk}/").content.decode()
    assert "Tuesday &lt;Club&gt;" in html and "<Club>" not in html
    assert "Spring" in html and "Round 4" in html and "Round 1" in html
    live = Fixture.objects.filter(season=season, round=4).first().game
    assert f'href="/games/{live.pk}/"' in html
    assert "<svg" in html and "<polyline" in html  # the rating chart
    assert 'href="/players/ann/"' in html and "Ratings" in html
    # a live game's hidden parts never show (here: its events are not on the page at all)
    assert all(str(e.hash) not in html for e in Event.objects.filter(game=live))
    assert client.get(f"/leagues/{league.pk}/?season=all").status_code == 200
    assert client.get(f"/leagues/{league.pk}/?season=999").status_code == 404
    assert client.get(f"/leagues/{league.pk}/?season=x%00").status_code == 404
    assert client.get("/leagues/999/").status_code == 404
    listing = client.get("/leagues/").content.decode()
    assert f'href="/leagues/{league.pk}/"' in listing and "Spring" in listing
    front = client.get("/").content.decode()
    assert f'href="/leagues/{league.pk}/"' in front and 'href="/leagues/"' in front


def test_csv_exports(client, club):
    league, season = club
    r = client.get(f"/leagues/{league.pk}/standings.csv?season={season.pk}")
    assert r["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["rank", "player", "played"] and len(rows) == 5
    assert "'=dee" in [row[1] for row in rows]  # (not a formula in a spreadsheet)
    played = sum(int(row[2]) for row in rows[1:])
    assert played == 12  # 3 rounds of 2 games, 2 players each
    r = client.get(f"/leagues/{league.pk}/fixtures.csv?season={season.pk}")
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][0] == "round" and len(rows) == 1 + 8
    assert {row[6] for row in rows[1:]} == {"finished", "live"}
    assert client.get(f"/leagues/{league.pk}/fixtures.csv?season=all").status_code == 404


def test_a_name_with_a_slash_links_and_exports_read_as_utf8(client, club, django_user_model):
    """A player named ``Zoë/b`` has a working link on the league page, and the CSV
    exports begin with a UTF-8 byte-order mark (spreadsheets otherwise read Latin-1)."""
    import re

    league, season = club
    bob = django_user_model.objects.get(username="bob")
    bob.username = "Zoë/b"
    bob.save()
    html = client.get(f"/leagues/{league.pk}/").content.decode()
    links = set(re.findall(r'href="(/players/[^"]*)"', html))
    zoe = [h for h in links if "Zo" in h]
    assert zoe, links
    for href in links:
        page = client.get(href)
        assert page.status_code == 200, href
    assert "Zoë/b" in client.get(zoe[0]).content.decode()
    for name in ("standings", "fixtures"):
        raw = client.get(f"/leagues/{league.pk}/{name}.csv?season={season.pk}").content
        assert raw.startswith(b"\xef\xbb\xbf"), raw[:20]
    assert "Zoë/b".encode() in client.get(
        f"/leagues/{league.pk}/standings.csv?season={season.pk}"
    ).content


def test_player_page(client, club):
    html = client.get("/players/ann/").content.decode()
    assert "Head to head" in html and "<polyline" in html
    assert html.count('href="/games/') == 3  # ann played three finished games
    assert 'href="/players/bob/"' in html
    assert client.get("/players/nobody/").status_code == 404
    assert client.get("/players/%3Ddee/").status_code == 200
    for bad in ("%00", "a%00b", "%01", "a%0Ab"):  # no one's name, never a server error
        assert client.get(f"/players/{bad}/").status_code == 404, bad


def test_league_api_names_its_seasons_and_page(client, club):
    league, season = club
    detail = client.get(f"/api/leagues/{league.pk}/").json()
    assert detail["seasons"] == [{"id": season.pk, "name": "Spring",
                                  "start": season.start.isoformat(),
                                  "end": season.end.isoformat()}]
    assert detail["page"] == f"/leagues/{league.pk}/"
    assert [r["rank"] for r in detail["standings"]] == sorted(r["rank"] for r in
                                                              detail["standings"])


def test_a_live_teka_deal_never_shows(client, admin_client, django_user_model, server_runtime):
    users = [django_user_model.objects.create_user(f"t{i}", password="pw") for i in range(4)]
    league = League.objects.create(name="Teka nights", kind="teka")
    league.members.set(users)
    season = Season.objects.create(league=league, name="S", start=dt.date.today(),
                                   end=dt.date.today())
    game = fixtures.next_round(season)[0].game
    hands = Event.objects.get(game=game, type="deal").payload["hands"]
    pages = [client.get(f"/leagues/{league.pk}/").content.decode(),
             client.get("/players/t0/").content.decode(),
             client.get(f"/leagues/{league.pk}/fixtures.csv?season={season.pk}").content.decode(),
             admin_client.get(f"/admin/leagues/season/{season.pk}/change/").content.decode(),
             admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode(),
             admin_client.get(f"/admin/games/game/{game.pk}/decide/").content.decode(),
             admin_client.get("/admin/games/game/").content.decode()]
    for page in pages:
        for hand in hands:
            for card in hand:
                assert f'"{card}"' not in page and f"'{card}'" not in page
                assert f"&quot;{card}&quot;" not in page


def test_pages_answer_get_only(client, club):
    league, _season = club
    for url in (f"/leagues/{league.pk}/", "/leagues/", "/players/ann/",
                f"/leagues/{league.pk}/standings.csv"):
        assert client.post(url).status_code == 405
        assert client.head(url).status_code == 200
