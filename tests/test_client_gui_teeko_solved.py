"""Teeko's Perfect level and the replay's analysis read the solved table: the set-up offers
Perfect only where the table of the squares chosen is on this device, and says why not and
how to get it otherwise; a Teeko replay without the table says why there is no analysis. By
touch in the real offscreen window on a phone upright and a tablet on its side (each test
fails on the code before its fix: Perfect offered without a table, thinking 8 s a move like
Max; the replay silent). A stand-in table (tests/teeko_stub.py) takes a built one's place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from teeko_stub import finished_teeko_events, install
from test_client_gui import app, by_text, find, person, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (1280, 800)]
"""A phone upright and a tablet on its side."""


at = testing.set_size_dp


def teeko_setup(app: Any) -> Any:  # noqa: F811
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teeko"))
    return setup


def level_toggles(setup: Any) -> list[str]:
    return sorted({t.text for t in find(setup.ids.seats, "GToggle")})


@pytest.mark.parametrize("size", SIZES)
def test_perfect_offered_only_with_the_solved_table(
    app: Any, size: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    at(*size)
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))  # nothing built there
    setup = teeko_setup(app)
    assert "Perfect" not in level_toggles(setup) and "Max" in level_toggles(setup)
    note = setup.ids.levels_note
    assert "Perfect: not offered" in note.text and "solved Teeko table" in note.text
    assert "./gamenight solve teeko --squares axis" in note.text
    assert note.height > 0 and note.opacity == 1 and note.texture_size[1] <= note.height
    # another pattern set: the note names its own table
    testing.tap(by_text(setup, "+ tilted"))
    assert "--squares tilted" in setup.ids.levels_note.text
    # with the table of "any size" squares on the device: offered, no note
    install(monkeypatch, tmp_path, "axis")
    setup = teeko_setup(app)
    assert "Perfect" in level_toggles(setup)
    assert setup.ids.levels_note.text == "" and setup.ids.levels_note.height == 0
    # choose it for the computer, then squares whose table is not here: it goes again
    computer = setup.rows[1]
    perfect = next(t for t in find(computer, "GToggle") if t.text == "Perfect")
    testing.tap(perfect)
    assert setup.players()[1]["level"] == "perfect"
    testing.tap(by_text(setup, "2x2 only"))
    assert "Perfect" not in level_toggles(setup)
    assert setup.players()[1]["kind"] == "bot" and setup.players()[1]["level"] != "perfect"
    assert "--squares classic" in setup.ids.levels_note.text


@pytest.mark.parametrize("size", SIZES)
def test_a_teeko_replay_without_the_table_says_why(
    app: Any, size: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    from client_kivy.vm.session import ReplayModel

    at(*size)
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    events = finished_teeko_events()
    players = [person("Ann"), person("Bob")]
    app.open_replay(ReplayModel("teeko", events, players), "Replay", "home")
    replay = app.root.get_screen("replay")
    testing.tap(replay.ids.next)
    label = replay.ids.analysis
    assert "No analysis of the moves here" in label.text, label.text
    assert "./gamenight solve teeko --squares axis" in label.text
    assert label.height > 0 and label.opacity == 1
    _x, y = testing.window_point(label, label.x, label.y)
    from kivy.core.window import Window

    assert 0 <= y and y + label.height <= Window.height + 1, "the line is in view"
    # with the table: each ply's value in the caption, no such line
    install(monkeypatch, tmp_path)
    app.open_replay(ReplayModel("teeko", events, players), "Replay", "home")
    replay = app.root.get_screen("replay")
    testing.tap(replay.ids.next)
    assert replay.ids.analysis.text == ""
    assert " - best: " in replay.caption, replay.caption
