"""The app offers an online game's page as a share link (watch it live or replay
it in any browser): a Share button on the game screen, by touch in a real window, against a
real daphne; the address it gives opens that game's page."""

from __future__ import annotations

import urllib.request

import pytest
from test_client_gui import app, by_text, start_local  # noqa: F401  (the module-scoped app fixture)
from test_client_gui_clocks import connect_lobby

from bench import testing


@pytest.fixture(autouse=True)
def leave_as_found(app):  # noqa: F811
    yield
    if app.session is not None:
        app.leave_game()
    app.lobby.logout()
    app.show("home")


def test_share_gives_the_game_page(app, daphne_server, server_runtime):  # noqa: F811
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)  # (this test's server, not an earlier test's)
    game = Api(daphne_server.http).create(
        "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
        join={"seat": 0, "name": "Ann"})
    app.online_play(game, 0, game["joined"]["secret"])
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.connection == "online")
    testing.pump(3)
    button = by_text(screen, "Share")
    testing.tap(button)
    testing.pump(2)
    url = f"{daphne_server.http}/games/{game['id']}/"
    assert url in session.message and url in screen.message
    with urllib.request.urlopen(url, timeout=60) as r:
        assert r.status == 200 and b"gamenight" in r.read()


def test_a_game_on_this_tablet_has_no_share_button(app):  # noqa: F811
    start_local(app, "teeko", [{"name": "Ann", "kind": "human", "level": ""},
                               {"name": "Bot", "kind": "bot", "level": "easy"}])
    screen = app.root.get_screen("game")
    assert app.session.share_url() is None
    with pytest.raises(AssertionError, match="no button 'Share'"):
        by_text(screen, "Share")
