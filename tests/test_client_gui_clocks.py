"""The real app in a headless window against a real daphne: time rules on the new-table
form, the seat clocks on the player chips (a countdown that goes down, urgent in its last
10 s), and an abandoned seat handed to a bot with the button."""

from __future__ import annotations

import time

import pytest
from server_helpers import seat_code
from test_client_gui import app, by_text, find  # noqa: F401  (the module-scoped app fixture)

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def leave_as_found(app):  # noqa: F811
    """The app is one per process: after each test, no game open and not connected (the
    next test file's connect screen starts from scratch)."""
    yield
    if app.session is not None:
        app.leave_game()
    app.lobby.logout()
    app.show("home")


def connect_lobby(app, daphne_server, name="Ann"):  # noqa: F811
    if not app.lobby.connected or app.lobby.api.base != daphne_server.http:
        app.lobby.connect(daphne_server.http, name=name)
        assert testing.wait_until(lambda: app.lobby.connected and
                                  app.lobby.api.base == daphne_server.http)


def seconds(text):
    m, s = text.lstrip("!").split(":")
    return int(m) * 60 + int(s)


def test_move_limit_from_the_form_counts_down(app, daphne_server, server_runtime):  # noqa: F811
    from server.games import cache

    connect_lobby(app, daphne_server)
    app.show("lobby")
    assert testing.wait_until(lambda: not app.lobby.busy)
    testing.pump(3)
    testing.tap(app.root.get_screen("lobby").ids.new_table)
    setup = app.root.get_screen("setup")
    assert app.root.current == "setup" and setup.online
    testing.pump(3)
    testing.tap(by_text(setup, "Teeko"))
    testing.tap(by_text(setup.rows[1], "Easy"))
    assert by_text(setup, "5 min + 5 s")  # a chess clock is offered for Teeko
    testing.tap(by_text(setup, "2 min a move"))  # (the longest: room for a loaded machine)
    testing.tap(by_text(setup, "1 min"))
    assert setup.table_rules() == {"move_limit": 120, "abandon": 60}
    testing.tap(setup.ids.start)
    assert testing.wait_until(lambda: app.root.current == "game"), setup.error
    screen = app.root.get_screen("game")
    session = app.session
    assert session.seat == 0
    # the server made the table with these rules (its log's table event)
    e = cache.entry(session.game_id)
    table = [r[2] for r in e.log if r[2].get("type") == "table"]
    assert table and table[-1]["move_limit"] == 120 and table[-1]["abandon"] == 60
    assert testing.wait_until(lambda: session.clock is not None and session.my_turn)
    clocks = screen.clocks
    mine, bots = clocks.labels
    assert testing.wait_until(lambda: mine.text != "")
    first = seconds(mine.text)
    assert 10 < first <= 120 and not mine.urgent and not mine.text.startswith("!")
    assert mine.opacity == 1 and mine.parent == screen.chips[0]
    assert bots.text == ""  # a bot seat has no deadline and is not waited for
    t0 = time.monotonic()
    seen = []
    assert testing.wait_until(lambda: seen.append(mine.text) or seconds(mine.text) <= first - 2
                              ), (first, sorted(set(seen)), session.clock, clocks._event)
    assert time.monotonic() - t0 >= 1.0  # it follows the time, once a second
    assert clocks._event is not None
    # leaving the screen cancels the tick; the labels and the box go with the screen
    app.leave_game()
    assert clocks._event is None and clocks.session is None and mine.parent is None
    assert clocks.box.parent is None


def test_urgent_clock_then_loss_on_time(app, daphne_server, server_runtime):  # noqa: F811
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    game = Api(daphne_server.http).create(
        "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
        join={"seat": 0, "name": "Ann"}, table={"move_limit": 20})
    app.online_play(game, 0, game["joined"]["secret"])
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.clock is not None and session.my_turn)
    mine = screen.clocks.labels[0]
    # the last 10 s read differently in text and weight, not in colour alone (20 s a move:
    # the app may take a while to be there on a loaded machine, and still sees its last 10 s)
    assert testing.wait_until(lambda: mine.urgent), mine.text
    assert mine.text.startswith("!") and mine.bold and seconds(mine.text) <= 10
    # nobody moves: the server's deadline passes and the game is lost on time
    assert testing.wait_until(lambda: session.outcome is not None), mine.text
    testing.pump(3)
    assert session.outcome["reason"] == "timeout" and session.outcome["winners"] == [1]
    assert mine.text == "" and not mine.urgent
    app.leave_game()


def test_abandoned_seat_handed_to_a_bot(app, daphne_server, server_runtime):  # noqa: F811
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teeko", {}, [{"kind": "open"}, {"kind": "open"}],
                      join={"seat": 0, "name": "Ann"}, table={"abandon": 10})
    secret = game["joined"]["secret"]
    bob = Api(daphne_server.http).join_code(seat_code(game, 1), "Bob")  # Bob never connects
    assert bob["seat"] == 1
    app.online_play(game, 0, secret)
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.connection == "online" and session.clock
                              and session.my_turn)
    assert testing.wait_until(lambda: len(session.players) == 2 and
                              session.players[1].get("connected") is False)
    assert screen.clocks.labels[0].text == ""  # no move limit: no countdown
    # too early: the server refuses and says why; the screen shows it
    screen.clocks.hand_to_bot(1)
    assert testing.wait_until(lambda: "Too early" in screen.message), (
        screen.message, session.message)
    assert "10 s" in screen.message
    assert not any(b.text.startswith("Hand to a bot") for b in find(screen, "GButton"))
    # Bob has been away 10 s: the button shows; a tap hands his seat to a bot
    assert testing.wait_until(lambda: any(b.text == "Hand to a bot: Bob"
                                          for b in find(screen, "GButton")))
    button = by_text(screen, "Hand to a bot: Bob")
    assert button.height >= 48
    testing.tap(button)
    assert testing.wait_until(lambda: session.players[1].get("replaced")), screen.message
    testing.pump(3)
    assert screen.chips[1].name == "Bob (left; bot)"
    assert session.records[-1]["event"]["type"] == "seat_to_bot"
    assert not any(b.text.startswith("Hand to a bot") for b in find(screen, "GButton"))
    # the game goes on against the bot: our move by touch, and its answer
    seq = session.seq
    board = screen.board
    cmd = next(c for c in session.legal if c["type"] == "place")
    testing.tap(board, *board.point(cmd["to"]))
    assert testing.wait_until(lambda: session.seq >= seq + 2 and session.my_turn), (
        session.seq, session.message)
    app.leave_game()


def test_chess_clock_shows_both_players_time(app, daphne_server, server_runtime):  # noqa: F811
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    game = Api(daphne_server.http).create(
        "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
        join={"seat": 0, "name": "Ann"}, table={"clock": 300, "increment": 5})
    app.online_play(game, 0, game["joined"]["secret"])
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.clock is not None and session.my_turn)
    mine, theirs = screen.clocks.labels
    assert testing.wait_until(lambda: mine.text and theirs.text)
    assert theirs.text == "5:00" and 0 < seconds(mine.text) <= 300
    first = seconds(mine.text)
    assert testing.wait_until(lambda: seconds(mine.text) <= first - 2), mine.text
    assert theirs.text == "5:00" and not mine.urgent  # only the waited seat's clock runs
    app.leave_game()
