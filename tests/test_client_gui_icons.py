"""Pictures instead of typed signs, by touch in the real offscreen window at 360x740 and
1280x800: the replay's transport is drawn (first, back a hand, back a move, play / pause,
on a move, on a hand, last), each keeping its name in words; Tedoku's shape chips show
the shape itself in small squares, beside its name."""

from __future__ import annotations

from random import Random

import pytest
from test_client_gui import app, by_text, find, person, start_local, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (1280, 800)]
TRANSPORT = {"first": "first", "prev_mark": "back", "prev": "prev", "play": "play",
             "next": "next", "next_mark": "forward", "last": "last"}


def drawn_inside(w, group: str) -> list:
    """The instructions of canvas group ``group`` on ``w``'s canvas.after, each checked to
    lie inside the widget (a picture drawn where its button is)."""
    from kivy.graphics import Rectangle, Triangle

    found = []
    for ins in w.canvas.after.get_group(group):
        if isinstance(ins, Triangle):
            xs, ys = ins.points[0::2], ins.points[1::2]
        elif isinstance(ins, Rectangle):
            xs = [ins.pos[0], ins.pos[0] + ins.size[0]]
            ys = [ins.pos[1], ins.pos[1] + ins.size[1]]
        else:
            continue
        assert w.x - 0.5 <= min(xs) and max(xs) <= w.right + 0.5, (w, xs)
        assert w.y - 0.5 <= min(ys) and max(ys) <= w.top + 0.5, (w, ys)
        found.append(ins)
    return found


@pytest.mark.parametrize("size", SIZES)
def test_the_replay_transport_is_drawn_icons_with_their_names(app, size):  # noqa: F811
    from kivy.metrics import dp

    from client_kivy.widgets.icons import ICON_GROUP, ICON_NAMES

    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {"move_cap": 200}, seed=5)
    rng = Random(5)
    while s.outcome is None:  # (random legal moves to the end: at most the move limit)
        s.send(rng.choice([c for c in s.legal if c["type"] not in
                           ("resign", "offer_draw", "accept_draw", "decline_draw")]))
    testing.pump(3)
    testing.tap(by_text(app.root.get_screen("game"), "Replay"))
    replay = app.root.get_screen("replay")
    assert app.root.current == "replay"
    testing.set_size(*size)
    testing.pump(6)
    for key, icon in TRANSPORT.items():
        b = replay.ids[key]
        assert b.icon == icon and b.label == ICON_NAMES[icon]
        assert b.text == ""  # no "|<" "<<" ">|": the picture says it
        assert b.width >= dp(48) - 0.5 and b.height >= dp(48) - 0.5
        assert testing.inside_window(b), (key, b.to_window(*b.pos), b.size)
        assert drawn_inside(b, ICON_GROUP), key
    # play turns to pause while it plays, and back
    testing.tap(replay.ids.first)
    testing.tap(replay.ids.play)
    assert replay.ids.play.icon == "pause" and replay.ids.play.label == "Pause"
    assert drawn_inside(replay.ids.play, ICON_GROUP)
    testing.tap(replay.ids.play)
    assert replay.ids.play.icon == "play"
    # and they still do what they did
    testing.tap(replay.ids.last)
    assert replay.model.index == replay.model.length
    testing.tap(replay.ids.prev)
    assert replay.model.index == replay.model.length - 1
    testing.tap(replay.ids.first)
    assert replay.model.index == 0


@pytest.mark.parametrize("size", SIZES)
def test_tedoku_shape_chips_show_the_shape(app, size):  # noqa: F811
    from kivy.metrics import dp

    from client_kivy.vm.tedoku import BASE, SHAPE_NAMES
    from client_kivy.widgets.tedoku_sheet import SHAPE_GROUP

    testing.set_size(*size)
    s = start_local(app, "tedoku", [person("Ann")], {"bonus": True}, seed=6)
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: bool(s.legal))
    testing.pump(4)
    chips = find(screen.ids.extra, "ShapeChip")
    assert chips
    for chip in chips:
        squares = drawn_inside(chip, SHAPE_GROUP)
        # the paper slip and one square a cell of the shape, as the shape lies
        assert len(squares) == 1 + len(BASE[chip.value]), chip.value
        assert chip.text == SHAPE_NAMES[chip.value]
        assert chip.height >= dp(48) - 0.5 and chip.width >= dp(48) - 0.5
        # the name is beside the picture, not over it
        x, _y, w, _h = chip.picture_rect()
        assert chip.padding[0] >= (x - chip.x) + w
    # the chips still choose the shape
    for value in [c.value for c in chips]:
        # (the panel is rebuilt on a choice: the chip as it is now)
        chip = next(c for c in find(screen.ids.extra, "ShapeChip") if c.value == value)
        if testing.scroll_parent(chip) is not None:
            testing.scroll_parent(chip).scroll_to(chip, animate=False)
        testing.tap(chip)
        assert screen.board.model.shape == value
