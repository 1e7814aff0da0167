"""The real app in a headless window, driven by touches (SDL offscreen driver)."""

from __future__ import annotations

from random import Random

import pytest

from client_kivy import testing

testing.headless(1280, 800)

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return testing.start_app(str(tmp_path_factory.mktemp("client")))


def find(root, cls_name):
    out = []
    stack = [root]
    while stack:
        w = stack.pop()
        if type(w).__name__ == cls_name:
            out.append(w)
        stack.extend(w.children)
    return out


def by_text(root, text):
    hits = [w for w in find(root, "GButton") + find(root, "GToggle") if w.text == text]
    assert hits, f"no button {text!r}"
    return hits[0]


def winning_move(session, moves):
    from core.api import apply

    for c in moves:
        state, _ = apply(session.game, session.state, session.viewer, c, Random(0))
        if session.game.outcome(state) is not None:
            return c
    return None


def test_window_renders(app, tmp_path):
    from kivy.core.window import Window

    app.show("home")
    testing.pump(5)
    path = testing.screenshot(str(tmp_path / "home.png"))
    # the felt background and the brass title are really drawn (not a black frame)
    from kivy.core.image import Image as CoreImage

    img = CoreImage(path, keep_data=True)
    w, h = img.texture.size
    colours = {tuple(img.read_pixel(x, y)[:3]) for x in range(0, w, w // 16) for y in range(0, h, h // 16)}
    assert len(colours) > 2
    assert Window.size[0] > 0


def test_teeko_against_bot_by_touch(app):
    app.show("home")
    testing.pump(3)
    home = app.root.get_screen("home")
    testing.tap(home.ids.play_here)
    assert app.root.current == "setup"
    setup = app.root.get_screen("setup")
    testing.pump(3)
    testing.tap(by_text(setup, "Teeko"))
    # Black: the easy bot; a move cap so the game surely ends
    testing.tap(by_text(setup.rows[1], "Easy"))
    testing.tap(by_text(setup, "200 plies"))
    testing.tap(setup.ids.start)
    assert app.root.current == "game"
    screen = app.root.get_screen("game")
    session = app.session
    assert session.players[1] == {"name": "Computer", "kind": "bot", "level": "easy"}
    board = screen.board
    rng = Random(7)
    plies = 0
    while session.outcome is None:
        assert testing.wait_until(lambda: session.my_turn or session.outcome is not None, 30)
        if session.outcome is not None:
            break
        assert "Your turn" in screen.status
        moves = [c for c in session.legal if c["type"] in ("place", "move")]
        cmd = winning_move(session, moves) or rng.choice(moves)
        before = len(session.events)
        if cmd["type"] == "move":
            testing.tap(board, *board.point(cmd["from"]))
            assert board.model.selected == cmd["from"]
            assert cmd["to"] in board.model.targets()
        testing.tap(board, *board.point(cmd["to"]))
        assert len(session.events) > before, f"tap did not play {cmd}"
        assert session.events[before]["to"] == cmd["to"]
        plies += 1
        assert plies < 200
    testing.pump(3)
    assert screen.status == app.session.status_text()
    assert "wins" in screen.status or "Draw" in screen.status
    if session.outcome["reason"] == "pattern":
        assert len(board.model.winning()) == 4
    # the finished game is on the device and replays by slider
    testing.tap(by_text(screen, "Replay"))
    assert app.root.current == "replay"
    replay = app.root.get_screen("replay")
    n = replay.model.length
    assert n == len(session.events)
    slider = replay.ids.slider
    slider.value = 3
    testing.pump(2)
    assert replay.model.index == 3
    assert sum(len(p) for p in replay.board.model.view["pieces"]) == 2
    testing.tap(replay.ids.last)
    assert replay.model.index == n
    testing.tap(replay.ids.prev)
    assert replay.model.index == n - 1
    testing.tap(replay.ids.play)
    assert replay.playing
    testing.tap(replay.ids.play)
    assert not replay.playing
    testing.tap(replay.ids.first)
    assert replay.model.index == 0
    saved = app.store.list()
    assert saved and saved[0]["finished"]
