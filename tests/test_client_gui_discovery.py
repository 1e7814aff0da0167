"""The connect screen lists the servers heard on the network and a tap fills the address in
(the real offscreen window; a real zeroconf announcement on loopback)."""

from __future__ import annotations

import pytest
from test_client_gui import app, find  # noqa: F401
from test_lan_discovery import TAG, mdns_sockets, no_leftovers, wait_for  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui


def own_buttons(screen):
    """The buttons of the servers this test announced (other runs may announce too)."""
    return [b for b in find(screen, "FoundServer") if b.found.name.endswith(TAG)]


def test_connect_screen_lists_a_found_server_and_a_tap_fills_the_address(app, no_leftovers):  # noqa: F811
    from server.ops import announce

    assert testing.os.environ["GAMENIGHT_DISCOVERY_INTERFACES"] == "127.0.0.1"
    if app.lobby.connected:  # an earlier test's server: the lobby would be shown instead
        app.lobby.logout()
    app.show("home")
    testing.pump(2)
    server = announce.start(8765, "127.0.0.1", f"Friday club {TAG}")
    assert server is not None
    try:
        screen = app.root.get_screen("connect")
        screen.ids.address.text = "10.1.1.1:9000"  # typed before: the tap replaces it
        app.show("connect")
        testing.pump(2)
        assert screen.discovery is not None and screen.discovery.running
        assert testing.wait_until(lambda: bool(own_buttons(screen))), screen.found_title
        [button] = own_buttons(screen)
        assert button.text == f"Friday club {TAG}\n127.0.0.1:8765"
        assert screen.found_title == "Servers on this network: tap one"
        # on screen and finger-sized
        assert button.height >= 48 and button.width >= 48
        testing.tap(button)
        assert screen.ids.address.text == "127.0.0.1:8765"
        assert f"Friday club {TAG}" in screen.message
        # the typed address stays usable: the field can still be edited
        screen.ids.address.text = "127.0.0.1:8000"
        # the server stops: its goodbye removes the entry
        server.stop()
        server = None
        assert testing.wait_until(lambda: not own_buttons(screen))
        if not find(screen, "FoundServer"):
            assert screen.found_title == "Looking for servers on this network..."
    finally:
        if server is not None:
            server.stop()
        app.show("home")  # leaving the screen stops listening: no thread, no socket left
        testing.pump(2)
    assert not screen.discovery.running
    assert wait_for(lambda: not mdns_sockets())
