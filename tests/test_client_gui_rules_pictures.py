"""The rules screen shows pictures of each game, drawn by the game's own board widget in
a position the rules core reached, not played (no moves offered, taps do nothing): a
Teeko line of four, a Tiku board, a Tedoku sheet with a shape drawn in, a Teka trick and
hand. By touch in the real offscreen window at 360x740 and 1280x800."""

from __future__ import annotations

import pytest
from test_client_gui import app, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

BOARD = {"teeko": "TeekoBoard", "tiku": "TikuBoard", "tedoku": "TedokuSheet",
         "teka": "TekaTable"}


@pytest.mark.parametrize("size", [(360, 740), (1280, 800)])
@pytest.mark.parametrize("game", ["teeko", "tiku", "tedoku", "teka"])
def test_rules_show_a_picture_of_the_game(app, game, size):  # noqa: F811
    from kivy.metrics import dp

    testing.set_size(*size)
    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(next(t for t in setup.ids.games.children if t.value == game))
    testing.tap(setup.ids.rules)
    assert app.root.current == "rules"
    rules = app.root.get_screen("rules")
    testing.pump(6)
    assert rules.pictures, game
    board = rules.pictures[0]
    assert type(board).__name__ == BOARD[game]
    assert board.session is None and board.disabled  # a picture: nothing to play
    view = board.view
    assert view and view.get("game", game) == game
    # scrolled to, the picture is in the window whole, and large enough to read
    rules.ids.scroll.scroll_to(board.parent, animate=False)
    testing.pump(6)
    x, y = testing.window_point(board, board.x, board.y)
    from kivy.core.window import Window

    assert -0.5 <= x and x + board.width <= Window.width + 0.5, (x, board.width)
    assert -0.5 <= y and y + board.height <= Window.height + 0.5, (y, board.height)
    assert min(board.width, board.height) >= dp(180)
    assert board.canvas.length() > 20  # (drawn: the board, its pieces or cards)
    # what the picture shows
    if game == "teeko":
        assert view["phase"] == "over" and view["pieces"][0] == ["a1", "b2", "c3", "d4"]
    elif game == "tiku":
        assert view["discs"]  # discs laid along the way
    elif game == "tedoku":
        me = view["players"][0]
        assert sum(row.count(".") for row in me["sheet"]) == 81 - 4  # one shape drawn in
    else:
        assert len(view["tricks"]) == 1 and len(view["tricks"][0]["cards"]) == 4
        assert len(view["hand"]) == 12  # (North's, after its card in the trick)
    # its caption under it, in words
    caption = board.parent.parent.children[board.parent.parent.children.index(board.parent) - 1]
    assert caption.text and "[" not in caption.text
    # a tap on the picture changes nothing
    before = dict(view)
    testing.tap(board)
    assert board.view == before and app.root.current == "rules"
