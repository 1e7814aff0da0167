"""Each bot level thinks at most its own time on this device (client_kivy.vm.session
LEVEL_SECONDS: Teeko Max 5 s, Hard 3 s; the settings' cap over all of them), not the whole
8 s cap every move. A game set up by touch on a phone upright and a tablet on its side; the
app's clock is a stand-in that moves half a second each time the bot looks at it, so the
test sees where the bot was stopped without depending on the machine's speed (it fails on
the code before: Max and Hard both ran to 8 s)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from test_client_gui import app, by_text, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (1280, 800)]


class StepClock:
    """Half a second later at every look."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            self.now += 0.5
            return self.now


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("level", "limit"), [("Max", 5.0), ("Hard", 3.0)])
def test_a_bot_thinks_its_levels_time(app: Any, size: Any, level: str, limit: float,  # noqa: F811
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kivy.metrics import dp

    from client_kivy.vm.session import LocalSession

    clock = StepClock()
    looks: list[float] = []

    def watched() -> float:
        t = clock()
        looks.append(t)
        return t

    monkeypatch.setattr(LocalSession, "clock", staticmethod(watched))
    testing.set_size(int(dp(size[0])), int(dp(size[1])))
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teeko"))
    computer = setup.rows[1]
    testing.tap(next(t for t in computer.ids.kinds.children if t.text == level))
    assert setup.players()[1] == {"name": "Computer", "kind": "bot", "level": level.lower()}
    testing.tap(setup.ids.start)
    s = app.session
    assert s.think_seconds(1) == limit
    if 0 in s.to_act:  # Ann first: she places, then the computer answers
        board = app.root.get_screen("game").board
        testing.tap(board, *board.point("c3"))
    assert testing.wait_until(lambda: sum(1 for e in s.events if e.get("seat") == 1
                                          and e.get("type") == "placed") == 1)
    start = looks[0]
    assert limit <= looks[-1] - start <= limit + 0.5, (level, looks[-1] - start)


@pytest.mark.parametrize(("choice", "hard", "easy"), [("2 s", 2.0, 0.5), ("By level", 3.0, 0.5),
                                                      ("20 s", 20.0, 20.0)])
def test_the_think_time_setting_still_chooses(app: Any, choice: str, hard: float,  # noqa: F811
                                              easy: float) -> None:
    """The settings' think time next to the levels' own limits: "2 s" caps every level, "By
    level" keeps each level's own, "20 s" lets every level think that long (before, 8 s and
    20 s both gave the levels' limits: the choice did nothing)."""
    from test_client_gui_motion_and_settings import choose

    choose(app, "think", choice)
    try:
        app.show("home")
        testing.pump(2)
        testing.tap(app.root.get_screen("home").ids.play_here)
        setup = app.root.get_screen("setup")
        testing.tap(by_text(setup, "Teeko"))
        testing.tap(next(t for t in setup.rows[1].ids.kinds.children if t.text == "Hard"))
        testing.tap(setup.ids.start)
        s = app.session
        assert s.think_seconds(1) == hard
        s.players[1]["level"] = "easy"
        assert s.think_seconds(1) == easy
    finally:
        app.leave_game()
        choose(app, "think", "By level")
