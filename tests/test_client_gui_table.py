"""Table mode in the real app, by touch in an offscreen window against a real daphne and
PostgreSQL: a tablet opens an online game as the shared table (the public view, a QR code
and a seat code for each open seat, updated live as phones join), the people sharing the
tablet sit at it, the others on phones; hand-offs only between the tablet's seats; the
organiser hands a seat to another phone or to a bot; one-tap rematch online."""

from __future__ import annotations

import json
import threading
from random import Random

import pytest
from test_client_gui import app, by_text, find  # noqa: F401  (the module-scoped app fixture)
from test_client_gui_clocks import connect_lobby

from client_kivy import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def leave_as_found(app):  # noqa: F811
    yield
    if app.session is not None:
        app.leave_game()
    if app.root.has_screen("table"):
        app.leave_table()
    app.lobby.logout()
    app.show("home")


def table_screen(app):  # noqa: F811
    return app.root.get_screen("table")


def module_colours(path, qr):
    """The drawn QR code read back from a screenshot: dark (True) or light at the centre
    of each module."""
    from kivy.core.image import Image as CoreImage
    from kivy.core.window import Window

    img = CoreImage(path, keep_data=True)
    n = len(qr.matrix)
    x0, y0 = testing.window_point(qr, qr.x, qr.y)
    step = qr.width / n
    sx = img.texture.size[0] / Window.width
    sy = img.texture.size[1] / Window.height
    rows = []
    for r in range(n):
        row = []
        for c in range(n):
            px = int((x0 + (c + 0.5) * step) * sx)
            py = int((y0 + qr.height - (r + 0.5) * step) * sy)
            rgb = img.read_pixel(px, img.texture.size[1] - 1 - py)[:3]
            row.append(sum(rgb) / 3 < 0.5)
        rows.append(row)
    return rows


def test_table_mode_shows_open_seats_with_qr_codes_live(app, daphne_server, server_runtime,  # noqa: F811
                                                       tmp_path):
    from client_kivy.vm.net import Api
    from client_kivy.vm.table import qr_matrix

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teka", {}, [{"kind": "open"}] * 4)
    code = game["code"]
    app.show("lobby")
    lobby = app.root.get_screen("lobby")
    assert testing.wait_until(lambda: any(
        b.text == "Table" for b in find(lobby, "GButton")), 15)
    testing.pump(3)
    testing.tap(by_text(lobby, "Table"))
    assert testing.wait_until(lambda: app.root.current == "table", 10)
    screen = table_screen(app)
    assert testing.wait_until(lambda: screen.model.session.connection == "spectating", 15)
    testing.pump(3)
    assert sorted(screen.cards) == [0, 1, 2, 3]
    for seat, card in screen.cards.items():
        assert card.code == f"{code}{seat + 1}"
        assert card.url == f"{daphne_server.http}/join/{code}{seat + 1}/"
        assert card.ids.qr.matrix == qr_matrix(card.url)
    # the QR code really drawn is segno's matrix of the seat's address
    card = screen.cards[0]
    testing.scroll_parent(card).scroll_to(card, animate=False)
    testing.pump(3)
    shot = testing.screenshot(str(tmp_path / "table.png"))
    assert module_colours(shot, card.ids.qr) == qr_matrix(card.url)
    # a phone joins seat 3 by its seat code: the table shows Bob there, its QR code gone
    api.join(int(game["id"]), 2, "Bob")
    assert testing.wait_until(lambda: screen.cards.get(2) is not None and
                              screen.cards[2].code == "" and "Bob" in screen.cards[2].line, 15)
    assert sorted(s for s, c in screen.cards.items() if c.code) == [0, 1, 3]
    # no hand is shown on the table: the public view only
    view = screen.model.session.view
    assert json.dumps(view).count('"hand"') == 0 or all(
        not p.get("hand") for p in view.get("players", []))
