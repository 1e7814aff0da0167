"""Motion and sound, the settings (sound, animation speed, colour-blind
palette, text size, confirm-before-move), in-app rules, the move list, Teka's last-trick
peek and the end-of-game banner. Each driven by touch in the real offscreen window."""

from __future__ import annotations

from random import Random

import pytest
from test_client_gui import app, buttons, by_text, find, person, start_local  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui

LOOK = ("sound", "motion", "colour_blind", "text_scale", "confirm_moves")


@pytest.fixture(autouse=True)
def default_look(app):  # noqa: F811
    """Every test starts and ends with the default settings (one app per process)."""
    from client_kivy.vm.settings import DEFAULTS

    def reset() -> None:
        for key in LOOK:
            app.settings.set(key, DEFAULTS[key])
        app.apply_text_scale()

    reset()
    yield
    app.leave_game()
    reset()


def choose(app, row, text):  # noqa: F811
    """Open Settings from the home screen and tap the chip ``text`` of ``row``."""
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.settings)
    assert app.root.current == "settings"
    screen = app.root.get_screen("settings")
    [chip] = [t for t in screen.ids[row].children if t.text == text]
    testing.tap(chip)
    screen = app.root.get_screen("settings")  # made anew after a text size change
    assert next(t for t in screen.ids[row].children if t.text == text).state == "down"
    testing.tap(screen.ids.back)


def two(app, game="teeko", seed=1):  # noqa: F811
    return start_local(app, game, [person("Ann"), person("Bob")], seed=seed)


def to_move_phase(s):
    """Pass-and-play Teeko to its move phase, placements sent straight to the session."""
    rng = Random(3)
    while s.view.get("phase") == "place":
        s.send(rng.choice([c for c in s.legal if c["type"] == "place"]))
    testing.pump(3)


# -- sound -------------------------------------------------------------------------------------
def test_sounds_for_a_move_and_the_end_and_none_when_switched_off(app):  # noqa: F811
    s = two(app)
    board = app.root.get_screen("game").board
    played = app.sounds.played
    before = len(played)
    testing.tap(board, *board.point("c3"))
    assert played[before:] == ["move"]
    sound = app.sounds._loaded.get("move")
    if sound is not None:  # an audio provider (SDL's dummy driver here) loaded the WAV
        assert sound.length > 0
    testing.tap(buttons(app.root.get_screen("game").ids.actions)["Resign"])
    testing.tap(buttons(app.root.get_screen("game").ids.actions)["Sure? Tap again"])
    assert s.outcome is not None and played[-1] == "end"
    # against the computer: its answer makes it your turn, a bell
    s = start_local(app, "teeko", [person("Ann"), {"name": "Computer", "kind": "bot",
                                                   "level": "easy"}], seed=2)
    board = app.root.get_screen("game").board
    testing.tap(board, *board.point("c3"))
    assert testing.wait_until(lambda: s.my_turn and len(s.events) == 3)
    assert testing.wait_until(lambda: played[-1] == "turn")
    choose(app, "sound", "Off")
    assert app.settings.get("sound") is False
    s = two(app)
    board = app.root.get_screen("game").board
    before = len(played)
    testing.tap(board, *board.point("c3"))
    assert len(s.events) == 2 and len(played) == before  # the move, and no sound


def test_the_cue_for_each_change():
    from client_kivy.vm.feedback import Snapshot, cue

    base = Snapshot(events=5, my_turn=False, finished=False, tricks=0)
    assert cue(None, base) is None  # the first look at a game
    assert cue(base, Snapshot(6, False, False, 0)) == "move"
    assert cue(base, Snapshot(6, True, False, 0)) == "turn"
    assert cue(base, Snapshot(6, True, False, 1)) == "trick"
    assert cue(base, Snapshot(6, False, True, 1)) == "end"
    assert cue(base, Snapshot(3, True, False, 0)) is None  # taken back
    assert cue(base, base) is None


# -- motion ---------------------------------------------------------------------------------
def test_pieces_drop_and_slide_while_taps_still_count(app):  # noqa: F811
    s = two(app)
    screen = app.root.get_screen("game")
    board = screen.board
    testing.tap(board, *board.point("c3"))
    assert board.moving and board._moving == ("c3", None)
    _x, y, grow = board.piece_pos("c3")
    assert y > board.point("c3")[1] and grow > 1  # still dropping onto its point
    testing.tap(board, *board.point("b2"))  # input is not held up by the animation
    assert [e.get("to") for e in s.events[1:]] == ["c3", "b2"]
    assert testing.wait_until(lambda: not board.moving)
    assert board.piece_pos("b2") == (*board.point("b2"), 1.0)
    to_move_phase(s)
    move = next(c for c in s.legal if c["type"] == "move")
    testing.tap(board, *board.point(move["from"]))
    testing.tap(board, *board.point(move["to"]))
    assert s.events[-1]["type"] == "moved" and board.moving
    start, end = board.point(move["from"]), board.point(move["to"])
    px, py, _ = board.piece_pos(move["to"])
    assert (px, py) != end  # on its way
    assert min(start[0], end[0]) - 1 <= px <= max(start[0], end[0]) + 1
    # leaving mid-animation: nothing keeps running on the old screen's board
    assert board.moving
    app.leave_game()
    from kivy.animation import Animation

    assert not any(board.uid in a._widgets for a in Animation._instances)
    assert not board.moving


def test_animation_off_draws_the_final_position_at_once(app):  # noqa: F811
    choose(app, "motion", "Off")
    assert app.settings.get("motion") == "off"
    s = two(app)
    board = app.root.get_screen("game").board
    assert board.motion_factor == 0
    testing.tap(board, *board.point("c3"))
    assert len(s.events) == 2 and not board.moving
    assert board.piece_pos("c3") == (*board.point("c3"), 1.0)
    app.leave_game()
    choose(app, "motion", "Fast")
    two(app)
    assert app.root.get_screen("game").board.motion_factor == 0.5


def test_tiku_discs_drop_and_teka_cards_travel(app):  # noqa: F811
    from bench.tour import play_random

    s = two(app, "tiku", seed=3)
    board = app.root.get_screen("game").board
    move = next(c for c in s.legal if c["type"] == "move")
    testing.tap(board, *board.point(move["from"]))
    testing.tap(board, *board.point(move["to"]))
    last = s.view["last_move"]
    assert board.moving and board.piece_pos(move["to"]) != board.point(move["to"])
    assert all(board.disc_scale(sq) > 1 for sq in last["placed"][-1:])  # still falling
    assert testing.wait_until(lambda: not board.moving)
    assert board.disc_scale(last["placed"][0]) == 1
    app.leave_game()
    s = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dan")], seed=7)
    play_random(s, Random(4), lambda s: s.view.get("phase") == "play" and s.handoff is None
                and s.my_turn)
    if s.handoff is not None:
        s.confirm_handoff()
    testing.pump(3)
    table = app.root.get_screen("game").board
    card = table.model.playable()[0]
    testing.tap(table, *table.card_point(card))
    testing.tap(table, *table.card_point(card))
    assert s.events[-1] == {"type": "play", "seat": s.events[-1]["seat"], "card": card,
                            "signal": None} or s.events[-1].get("card") == card
    testing.pump(1)
    assert table.moving and card in table._incoming
    seat = table._incoming[card]
    slot = table.trick_slot(seat, table.table_rect())[:2]
    assert table.card_pos(card) != slot  # travelling from its seat
    assert testing.wait_until(lambda: not table.moving)
    assert table.card_pos(card) == slot


# -- settings -----------------------------------------------------------------------------------
def test_confirm_before_move(app):  # noqa: F811
    choose(app, "confirm_moves", "On")
    assert app.settings.get("confirm_moves") is True
    s = two(app)
    screen = app.root.get_screen("game")
    board = screen.board
    testing.tap(board, *board.point("c3"))
    assert len(s.events) == 1  # held, nothing sent
    b = buttons(screen.ids.actions)
    assert "Confirm c3" in b and "Cancel" in b
    testing.tap(b["Confirm c3"])
    assert len(s.events) == 2 and s.events[1]["to"] == "c3"
    assert "Cancel" not in buttons(screen.ids.actions)
    testing.tap(board, *board.point("b2"))  # Bob: held...
    assert len(s.events) == 2
    testing.tap(board, *board.point("b2"))  # ...and the same tap again sends it
    assert len(s.events) == 3 and s.events[2]["to"] == "b2"
    testing.tap(board, *board.point("d4"))
    testing.tap(buttons(screen.ids.actions)["Cancel"])
    assert len(s.events) == 3 and board.pending() is None
    assert "Cancel" not in buttons(screen.ids.actions)
    testing.tap(board, *board.point("a1"))  # another point instead: that one is held
    assert board.pending() == {"type": "place", "to": "a1"}
    testing.tap(board, *board.point("e5"))  # another tap elsewhere cancels, holds the new one
    assert board.pending() == {"type": "place", "to": "e5"} and len(s.events) == 3


def test_colour_blind_palette_marks_the_pieces(app):  # noqa: F811
    from client_kivy.widgets.board import MARK_GROUP

    s = two(app)
    board = app.root.get_screen("game").board
    testing.tap(board, *board.point("c3"))
    testing.tap(board, *board.point("b2"))
    assert not board.canvas.get_group(MARK_GROUP)  # colour and tone only, by default
    app.leave_game()
    choose(app, "colour_blind", "On")
    s = two(app)
    board = app.root.get_screen("game").board
    assert board.marks
    testing.tap(board, *board.point("c3"))
    testing.tap(board, *board.point("b2"))
    assert testing.wait_until(lambda: not board.moving)
    marks = board.canvas.get_group(MARK_GROUP)
    shapes = [type(i).__name__ for i in marks
              if type(i).__name__ not in ("Color", "BindTexture")]
    assert sorted(shapes) == ["Line", "Rectangle"]  # a ring on White's, a square on Black's
    app.leave_game()
    s = two(app, "tiku", seed=3)
    board = app.root.get_screen("game").board
    shapes = {type(i).__name__ for i in board.canvas.get_group(MARK_GROUP)}
    assert {"Triangle", "Rectangle"} <= shapes  # Tiku: a triangle and a square
    assert len(s.events) >= 1


def test_larger_text_applies_app_wide_and_persists(app):  # noqa: F811
    from kivy.metrics import Metrics

    from client_kivy.vm.settings import Settings

    base = float(Metrics.fontscale)
    play = app.root.get_screen("home").ids.play_here
    size = play.font_size
    choose(app, "text_scale", "130 %")
    assert Settings(app.data_dir).get("text_scale") == 1.3
    assert Metrics.fontscale == pytest.approx(base * 1.3)
    home = app.root.get_screen("home")
    assert home.ids.play_here.font_size == pytest.approx(size * 1.3)
    setup = app.root.get_screen("setup")
    app.show("setup")
    testing.pump(2)
    assert by_text(setup, "Teeko").font_size > 17 * 1.25  # sp(18) chips, bigger
    choose(app, "text_scale", "100 %")
    assert Metrics.fontscale == pytest.approx(base)
    assert app.root.get_screen("home").ids.play_here.font_size == pytest.approx(size)
    # the screens made anew leave nothing listening for servers on the network (the connect
    # screen, entered on the way while the screens were replaced, kept its mDNS browser)
    import psutil

    proc = psutil.Process()
    conns = getattr(proc, "net_connections", proc.connections)
    assert testing.wait_until(
        lambda: not [c for c in conns(kind="udp") if c.laddr and c.laddr.port == 5353])


# -- rules, moves, last trick, end banner ------------------------------------------------------
def test_rules_from_setup_and_from_the_game(app):  # noqa: F811
    setup = app.root.get_screen("setup")
    setup.online = False
    app.show("setup")
    testing.pump(2)
    testing.tap(by_text(setup, "Tiku"))
    testing.tap(setup.ids.rules)
    assert app.root.current == "rules"
    rules = app.root.get_screen("rules")
    assert rules.title == "Rules of Tiku"
    text = "\n".join(w.text for w in rules.ids.text.children)
    assert "A turn" in text and "Notation" not in text and "core/" not in text
    testing.tap(rules.ids.back)
    assert app.root.current == "setup"
    s = two(app)
    testing.tap(buttons(app.root.get_screen("game").ids.actions)["Rules"])
    assert app.root.current == "rules" and rules.title == "Rules of Teeko"
    from kivy.core.window import Window

    Window.dispatch("on_keyboard", 27, 0, "", [])  # Back
    testing.pump(3)
    assert app.root.current == "game" and app.session is s and not s.closed


def test_move_list_in_the_game_and_the_replay(app):  # noqa: F811
    s = two(app)
    screen = app.root.get_screen("game")
    board = screen.board
    for sq in ("c3", "b2"):
        testing.tap(board, *board.point(sq))
    testing.tap(buttons(screen.ids.actions)["Moves"])
    view = screen.moves_view
    assert view is not None and list(view.lines) == ["1. Ann placed c3", "2. Bob placed b2"]
    testing.tap(view.ids.close)
    assert screen.moves_view is None
    testing.tap(buttons(screen.ids.actions)["Moves"])
    view = screen.moves_view
    s.send({"type": "place", "to": "d4"})  # while open: the list follows the game
    testing.pump(3)
    assert list(view.lines)[-1] == "3. Ann placed d4"
    app.leave_game()  # the list goes with its screen
    from kivy.core.window import Window

    assert view not in Window.children
    from client_kivy.vm.session import ReplayModel

    app.open_replay(ReplayModel("teeko", s.events, s.players), "Replay", "home")
    replay = app.root.get_screen("replay")
    replay.seek(2)
    testing.tap(replay.ids.moves)
    assert replay.moves_view.current == 0  # after Ann's c3
    testing.tap(replay.moves_view.ids.close)
    testing.tap(replay.ids.next)
    testing.tap(replay.ids.moves)
    assert replay.moves_view.current == 1
    testing.tap(replay.moves_view.ids.close)
    app.show("home")


def test_teka_last_trick_peek(app):  # noqa: F811
    from bench.tour import play_random

    s = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dan")], seed=9)
    play_random(s, Random(2), lambda s: bool(s.view.get("trick"))
                and bool((s.view.get("last_trick") or {}).get("cards")))
    if s.handoff is not None:
        s.confirm_handoff()
    testing.pump(4)
    screen = app.root.get_screen("game")
    last = s.view["last_trick"]
    testing.tap(buttons(screen.ids.extra)["Last trick"])
    peek = screen.board.peek
    assert peek is not None
    shown = find(peek, "TrickCards")[0].cards
    assert [c for c, _ in shown] == [p["card"] for p in last["cards"]]
    assert s.player_name(last["winner"]) in find(peek, "WrapLabel")[0].text
    testing.tap(find(peek, "GButton")[0])
    assert screen.board.peek is None


def test_end_banner_with_result_and_rematch(app):  # noqa: F811
    s = two(app)
    screen = app.root.get_screen("game")
    s.send({"type": "resign"})
    testing.pump(3)
    banner = screen.banner
    assert banner is not None and banner.result == s.status_text() and "Bob" in banner.result
    testing.tap(banner.ids.look)  # see the final position: the banner goes
    assert screen.banner is None
    assert {"Replay", "Rematch"} <= set(buttons(screen.ids.actions))
    s2 = two(app)
    s2.send({"type": "resign"})
    testing.pump(3)
    screen = app.root.get_screen("game")
    testing.tap(screen.banner.ids.again)
    assert app.session is not s2 and app.session.outcome is None
    assert app.root.get_screen("game").banner is None
    assert app.session.players == s2.players
