"""The app offers an online game's page as a share link (watch it live or replay
it in any browser): a Share button on the game screen, by touch in a real window, against a
real daphne; the address it gives opens that game's page."""

from __future__ import annotations

import urllib.request

import pytest
from test_client_gui import app, by_text, find, start_local  # noqa: F401  (the module-scoped app fixture)
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


@pytest.mark.parametrize("size", [(360, 740), (1280, 800)])
def test_share_is_shown_once_at_the_end(app, daphne_server, server_runtime, size):  # noqa: F811
    """The end banner offers Share; the panel under it does not offer it again. Once the
    banner goes (See the board) Share is in the panel: one Share on screen at any time."""
    from kivy.metrics import dp

    from client_kivy.vm.net import Api

    testing.set_size(int(dp(size[0])), int(dp(size[1])))
    try:
        connect_lobby(app, daphne_server)
        game = Api(daphne_server.http).create(
            "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
            join={"seat": 0, "name": "Ann"})
        app.online_play(game, 0, game["joined"]["secret"])
        screen = app.root.get_screen("game")
        session = app.session
        assert testing.wait_until(lambda: session.connection == "online" and session.legal)
        testing.pump(3)

        phone = screen.mode != "tablet"  # (a phone: the panel's Share is in the More sheet)

        def shares():
            shown = [b for b in find(screen, "GButton") if b.text == "Share"
                     and b.get_root_window() is not None]
            return shown + ["sheet" for text, _call in screen.more_entries if text == "Share"]

        assert len(shares()) == 1  # during the game: in the panel (a phone: its More sheet)
        if phone:
            testing.tap(screen.ids.more)
            sheet = screen.more_view
            testing.tap(by_text(sheet, "Resign"))
            testing.tap(by_text(sheet, "Sure? Tap again"))
        else:
            testing.tap(by_text(screen, "Resign"))
            testing.tap(by_text(screen, "Sure? Tap again"))
        assert testing.wait_until(lambda: screen.banner is not None)
        testing.pump(3)
        assert len(shares()) == 1, "Share on the banner and in the panel"
        assert shares()[0] in list(screen.banner.walk())
        testing.tap(screen.banner.ids.look)
        assert screen.banner is None
        assert len(shares()) == 1
        assert shares()[0] == "sheet" if phone else shares()[0] in list(screen.ids.actions.walk())
    finally:
        testing.set_size(1280, 800)
