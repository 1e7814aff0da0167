"""The real app in a headless window, across a server restart: connect screen -> lobby ->
an online Teeko table against a server bot, a few moves by touch, then daphne is killed and
started again on the same port. The screen shows the lost connection, comes back online by
itself, the board catches up from the log and play goes on by touch."""

from __future__ import annotations

import json
import os
from random import Random

import pytest
from test_client_gui import app, by_text  # noqa: F401  (the module-scoped app fixture)
from test_client_net import _daphne_env, restart_daphne

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def plain(obj):
    return json.loads(json.dumps(obj))


def safe_move(game, state, seat, moves, rng):
    """A move by ``seat`` that neither ends the game nor lets the other seat win at once
    (so the game surely lasts past the restart); any move if none is safe."""
    from core.api import apply

    safe = []
    for c in moves:
        after, _ = apply(game, state, seat, c, Random(0))
        if game.outcome(after) is not None:
            continue
        replies = game.legal_commands(after, 1 - seat)
        if not any(game.outcome(apply(game, after, 1 - seat, r, Random(0))[0]) is not None
                   for r in replies if r["type"] in ("place", "move")):
            safe.append(c)
    return rng.choice(safe or moves)


def play_by_touch(session, board, rng):
    """Wait for our turn, tap a safe move on the board, wait until the server accepted it."""
    assert testing.wait_until(lambda: session.my_turn), session.status_text()
    moves = [c for c in session.legal if c["type"] in ("place", "move")]
    state = session.game.resample(session.view, session.seat, Random(0))
    cmd = safe_move(session.game, state, session.seat, moves, rng)
    seq = session.seq
    if cmd["type"] == "move":
        testing.tap(board, *board.point(cmd["from"]))
        assert board.model.selected == cmd["from"]
    testing.tap(board, *board.point(cmd["to"]))
    assert testing.wait_until(lambda: session.seq > seq), session.message
    mine = session.records[seq]  # the first new record is our move, as the server logged it
    assert mine["seat"] == session.seat and mine["event"]["to"] == cmd["to"]
    assert cmd["to"] in board.model.view["pieces"][session.seat]  # drawn on the board
    return cmd


def test_reconnect_after_server_restart_by_touch(app, daphne_server, server_runtime):  # noqa: F811
    from server.games import append, cache, reading

    # connect screen -> lobby -> new table (me vs the server's easy bot) by touch
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.online)
    connect = app.root.get_screen("connect")
    connect.ids.address.text = f"127.0.0.1:{daphne_server.port}"
    connect.ids.name.text = "Ann"
    testing.tap(connect.ids.guest)
    assert testing.wait_until(lambda: app.root.current == "lobby"), connect.message
    assert testing.wait_until(lambda: not app.lobby.busy)
    testing.pump(3)  # a screen shown for the first time is laid out over a frame or two
    testing.tap(app.root.get_screen("lobby").ids.new_table)
    setup = app.root.get_screen("setup")
    assert app.root.current == "setup" and setup.online
    testing.pump(3)
    testing.tap(by_text(setup, "Teeko"))
    testing.tap(by_text(setup.rows[1], "Easy"))
    testing.tap(setup.ids.start)
    assert testing.wait_until(lambda: app.root.current == "game"), setup.error
    screen = app.root.get_screen("game")
    session = app.session
    board = screen.board
    assert session.kind == "remote" and session.seat == 0
    assert testing.wait_until(lambda: screen.connection == "* Online"), screen.connection
    game_id = session.game_id
    rng = Random(3)

    # a few moves by touch; each is answered by the bot
    for _ in range(2):
        play_by_touch(session, board, rng)
    assert testing.wait_until(lambda: session.my_turn), session.status_text()
    seq_before = session.seq
    assert seq_before >= 4 and len(board.model.view["pieces"][0]) == 2

    shown: list[str] = []

    def note(_w, text):
        shown.append(text)

    screen.bind(connection=note)
    states: list[str] = []  # every change the session tells the screen about
    session.subscribe(lambda: states.append(session.connection))
    daphne_server.env = {**os.environ, **_daphne_env(daphne_server)}
    daphne_server.cwd = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        # the server dies without a goodbye
        daphne_server.proc.kill()
        daphne_server.proc.wait(60)
        assert testing.wait_until(lambda: screen.connection == "* Reconnecting..."), shown
        assert screen.status == "Connection lost: reconnecting..."
        # while it is down the log grows without this tablet (our seat plays from elsewhere,
        # as through another server on the same database): the tablet must catch up on it
        cache.drop_cache(game_id)
        e = cache.entry(game_id)
        away = safe_move(e.game, e.state, 0, e.game.legal_commands(e.state, 0), rng)
        append.submit(game_id, 0, away, e.seq)
        # still down while the app retries (after 0.5 s, then 1 s more): every retry that
        # fails leaves the screen saying so, never "Connecting..." or "Your turn" (the drop
        # and two failed retries, each told to the screen: however long they take)
        assert testing.wait_until(lambda: len(states) >= 3), states
        assert session.connection == "offline" and shown == ["* Reconnecting..."], shown
        assert set(states) == {"offline"}, states
        assert screen.status == "Connection lost: reconnecting..."

        restart_daphne(daphne_server)  # the same port, the same database
        assert testing.wait_until(lambda: screen.connection == "* Online"), (
            shown, daphne_server.output()[-2000:])
        # caught up: our move made elsewhere, then the bot's answer (played after restart)
        assert testing.wait_until(lambda: session.my_turn and session.seq >= seq_before + 2), (
            session.seq, session.status_text())
        testing.pump(3)
        cache.drop_cache(game_id)
        e = cache.entry(game_id)
        assert session.seq == e.seq
        assert [r["seq"] for r in session.records] == list(range(1, e.seq + 1))
        assert session.records[seq_before]["event"]["to"] == away["to"]
        server_view = plain(reading.viewer_view(e, e.state, 0))
        assert plain(session.view) == server_view["view"]
        assert plain(board.model.view) == server_view["view"]  # what the board draws
        assert plain(session.legal) == server_view["legal"]
        assert screen.status == "Your turn" and screen.connection == "* Online"

        # and the game goes on by touch
        seq = session.seq
        cmd = play_by_touch(session, board, rng)
        # the bot answers (and may win: with no safe move left, ours was any move)
        assert testing.wait_until(
            lambda: session.seq >= seq + 2 and (session.my_turn or session.outcome is not None)
        ), (session.seq, seq, session.status_text())
        cache.drop_cache(game_id)
        e = cache.entry(game_id)
        assert e.log[seq][2]["to"] == cmd["to"] and e.seq == session.seq
        assert plain(board.model.view) == plain(e.game.view(e.state, 0))
    finally:
        screen.unbind(connection=note)
        app.leave_game()
        # the fixture only stops the daphne it started: stop the restarted one here
        if daphne_server.proc.poll() is None:
            daphne_server.proc.terminate()
            daphne_server.proc.wait(60)
