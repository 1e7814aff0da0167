"""The phone layout of the game screen and the replay, by touch in the real offscreen window
at 360x740 and 740x360 (phones upright and on their side) and 800x1280 and 1280x800
(tablets, which keep the panel beside or under the board): the player bars with the seat
to act lit in view without scrolling, the board as large as the window allows, an action
that works by tap, the More sheet with the moves and the score sheet; the replay's board
on a phone on its side and nothing drawn over its Back button."""

from __future__ import annotations

import pytest
from test_client_gui import app, by_text, find, person, start_local, tablet_after  # noqa: F401
from test_client_gui_phone_and_tablet import at, bot, in_view

from bench import layoutcheck, testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (740, 360), (800, 1280), (1280, 800)]
PLAYERS = {
    "teeko": [person("Ann"), bot()],
    "tiku": [person("Ann"), bot()],
    "tedoku": [person("Ann"), bot()],
    "teka": [person("Ann"), bot("Bob"), bot("Cleo"), bot("Dan")],
}


def dp_size(w):
    from kivy.metrics import dp

    return w.width / dp(1), w.height / dp(1)


def lit_chip_in_view(screen):
    """The lit chip (the seat to act) is on screen, not in a scrolling panel on a phone."""
    lit = [c for c in screen.chips if c.active]
    assert lit, "no lit chip"
    for chip in lit:
        assert chip.get_root_window() is not None, f"{chip.name!r} is not on screen"
        assert in_view(chip), f"{chip.name!r} is out of view"
        if screen.mode != "tablet":
            assert testing.scroll_parent(chip) is None, f"{chip.name!r} scrolls on a phone"
    return lit


def act_by_tap(app, s, screen):  # noqa: F811
    """One move of the seat to act, by touch; returns once the session has it."""
    board = screen.board
    before = len(s.events)
    if s.game_name == "teeko":
        square = next(c["to"] for c in s.legal if c["type"] == "place")
        testing.tap(board, *board.point(square))
    elif s.game_name == "tiku":
        move = next(c for c in s.legal if c["type"] == "move")
        testing.tap(board, *board.point(move["from"]))
        testing.tap(board, *board.point(move["to"]))
    elif s.game_name == "tedoku":
        cmd = next(c for c in s.legal if c.get("type") == "place")
        board.model.set_ghost_to(cmd)
        board.changed()
        testing.pump(3)
        place = by_text(screen.ids.extra, "Place here")
        assert in_view(place), "Place here is out of view"
        testing.tap(place)
    else:  # teka: a call (or the keep / throw-in choice) from the short bar
        calls = [b for b in find(screen.ids.extra, "GButton")
                 if b.text in ("Pass", "Keep", "8")]
        assert calls, [b.text for b in find(screen.ids.extra, "GButton")]
        assert in_view(calls[0]), f"{calls[0].text!r} is out of view"
        testing.tap(calls[0])
    assert testing.wait_until(lambda: len(s.events) > before, 120), "the tap sent nothing"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("game", ["teeko", "tiku", "tedoku", "teka"])
def test_player_bar_board_and_action_in_view_by_touch(app, game, size):  # noqa: F811
    at(*size)
    s = start_local(app, game, PLAYERS[game], seed=21)
    s.pace = 0
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: s.my_turn, 60)
    testing.pump(4)
    phone = min(size) < 600
    assert screen.mode == ("tablet" if not phone else
                           "phone-side" if size[0] > size[1] else "phone")
    # the seat to act lit, in view without scrolling; on a phone in the bars
    lit = lit_chip_in_view(screen)
    if phone:
        bars = (screen.top_bar, screen.bottom_bar)
        assert all(c.parent in bars for c in screen.chips)
        assert lit[0].parent is screen.bottom_bar  # Ann, this device's seat, below
        assert screen.board.get_root_window() is not None
    assert in_view(screen.ids.status) and screen.status
    assert layoutcheck.player_bar_problems(app, game) == []
    # the board as large as the window allows
    w, h = dp_size(screen.board)
    side = min(w, h) if game != "teka" else h
    if size == (740, 360):
        assert h >= 300, (game, w, h)
    elif size == (360, 740):
        assert w >= 340, (game, w, h)
        if game != "teka":
            assert side >= 340, (game, w, h)
    else:
        assert side >= 400, (game, w, h)
    # an action by touch
    act_by_tap(app, s, screen)
    testing.pump(3)
    assert layoutcheck.problems(app, f"{game} {size}") == []


@pytest.mark.parametrize("size", [(360, 740), (740, 360)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("game", ["teeko", "teka"])
def test_the_more_sheet_shows_the_moves_and_the_score_sheet(app, game, size):  # noqa: F811
    at(*size)
    s = start_local(app, game, PLAYERS[game], seed=21)
    s.pace = 0
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: s.my_turn, 60)
    testing.pump(4)
    act_by_tap(app, s, screen)
    # the less-used buttons are not in the short bar, they are in the sheet
    short = [b.text for b in find(screen.ids.actions, "GButton")]
    assert "Moves" not in short and "Rules" not in short and "Resign" not in short
    assert in_view(screen.ids.more)
    testing.tap(screen.ids.more)
    sheet = screen.more_view
    assert sheet is not None and sheet.get_root_window() is not None
    texts = [b.text for b in find(sheet, "GButton")]
    assert "Moves" in texts and "Rules" in texts, texts
    assert "\n1. " in "\n" + sheet.moves, sheet.moves  # the moves so far, in the sheet
    assert layoutcheck.problems(app, f"more {game} {size}") == []
    if game == "teka":
        testing.tap(by_text(sheet, "Score sheet"))
        from kivy.core.window import Window

        assert testing.wait_until(lambda: any(type(w).__name__ == "ScoreSheet"
                                              for w in Window.children), 10)
        for w in list(Window.children):
            if type(w).__name__ in ("ScoreSheet", "MoreSheet"):
                w.dismiss(animation=False)
        testing.pump(2)
    else:  # Resign from the sheet: two taps, the sheet goes, the game is over
        testing.tap(by_text(sheet, "Resign"))
        testing.tap(by_text(sheet, "Sure? Tap again"))
        assert testing.wait_until(lambda: s.outcome is not None, 120)
        assert screen.more_view is None
        testing.pump(4)
        assert layoutcheck.player_bar_problems(app, "end") == []  # (the banner is docked)
        assert not layoutcheck.overlaps(screen, "end")


def finished(app, game):  # noqa: F811
    from random import Random

    from client_kivy.vm.session import ReplayModel

    s = start_local(app, game, [person("Ann"), person("Bob"), person("Cleo"), person("Dan")]
                    if game == "teka" else [person("Ann"), person("Bob")], seed=5)
    rng = Random(5)
    for _ in range(60 if game == "teka" else 400):
        if s.outcome is not None:
            break
        if s.handoff is not None:
            s.confirm_handoff()
            continue
        moves = [c for c in s.legal if c.get("type") not in
                 ("resign", "offer_draw", "accept_draw", "decline_draw", "raise")]
        s.send(rng.choice(moves))
    return ReplayModel(game, s.events, s.players)


@pytest.mark.parametrize("game", ["teeko", "teka"])
def test_the_replay_on_a_phone_on_its_side_has_a_big_board_and_a_clear_back(app, game):  # noqa: F811
    model = finished(app, game)
    app.leave_game()
    at(740, 360)
    model.seek(min(model.length, 12))
    app.open_replay(model, f"Replay: {game.capitalize()}: Ann v Bob v Cleo v Dan", "saved")
    testing.pump(4)
    screen = app.root.get_screen("replay")
    assert screen.mode == "phone-side"
    w, h = dp_size(screen.board)
    assert h >= 300, (w, h)
    # nothing of the board (its plates, its trick) drawn over Back, the title or Moves
    back, moves, heading = screen.ids.back, screen.ids.moves, screen.ids.heading
    drawn = layoutcheck.drawn_rect(screen.board)
    for w_ in (back, moves, heading):
        rect = (*testing.window_point(w_, w_.x, w_.y), w_.width, w_.height)
        assert not layoutcheck.covers(drawn, rect), f"the board is drawn over {w_.text!r}"
    assert layoutcheck.problems(app, f"replay {game}") == []
    # the transport works by touch
    before = screen.model.index
    testing.tap(screen.ids.next)
    assert screen.model.index == before + 1
    testing.tap(back)
    assert app.root.current == "saved"
