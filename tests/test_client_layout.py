"""The layout check: every screen of every game (bench/tour.py) at 360x740 dp upright
and on its side, 540x960 and 1280x800, at 100 % text on density 1 (a desktop) and at 130 % text
on density 2 (a phone: two pixels a dp, text drawn at twice the pixels; the largest text and
the finest rounding): no label cut to "..", every button inside the window and at least 48 dp
both ways, every Teka card in the hand at least 48 dp. Each text size and density runs in its
own process (Kivy reads them at start); ``./gamenight bench layout --fontscale 1.3 --density 1``
(and 1 with 2) checks the two mixed cases too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench import testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


RUNS = [("1", "1"), ("1.3", "2")]  # (text size, density)


@pytest.mark.timeout(1500)  # two processes of about 10 s of CPU each; far more on a busy machine
def test_every_screen_fits_phone_and_tablet_at_plain_and_at_130_percent_text_on_density_2(
        tmp_path):
    procs = {}
    for scale, density in RUNS:
        run = f"text {scale} density {density}"
        env = dict(os.environ, GAMENIGHT_PURE="1", KIVY_NO_ARGS="1",
                   KIVY_HOME=str(tmp_path / f"kivy{scale}-{density}"))
        env.pop("KIVY_METRICS_FONTSCALE", None)
        env.pop("KIVY_METRICS_DENSITY", None)
        procs[run] = subprocess.Popen(
            [sys.executable, "-m", "bench.layoutcheck", "--json", "--fontscale", scale,
             "--density", density],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = {}
    for run, proc in procs.items():
        out, err = proc.communicate(timeout=1400)
        lines = [ln for ln in out.splitlines() if ln.startswith("[")]
        assert lines, f"no result at {run}: {err[-3000:]}"
        found[run] = json.loads(lines[-1])
    assert all(v == [] for v in found.values()), json.dumps(found, indent=1, ensure_ascii=False)


def test_the_check_sees_a_cut_label_and_a_small_button(app_window):
    """The checker itself: a shortened title and a 40 dp button on screen are reported."""
    from kivy.uix.label import Label

    from bench import layoutcheck
    from client_kivy.widgets.common import GButton

    app = app_window
    app.show("home")
    testing.pump(2)
    home = app.root.get_screen("home")
    label = Label(text="Teeko: Ann v Computer", shorten=True, size_hint=(None, None),
                  size=(60, 30), text_size=(60, 30), pos=(10, 10))
    button = GButton(text="x", size_hint=(None, None), size=(40, 40), pos=(100, 10))
    home.add_widget(label)
    home.add_widget(button)
    testing.pump(2)
    try:
        found = layoutcheck.problems(app, "home")
    finally:
        home.remove_widget(label)
        home.remove_widget(button)
    assert any("shortened" in p and "Teeko" in p for p in found), found
    assert any("'x' is 40x" in p for p in found), found


@pytest.fixture(scope="module")
def app_window(tmp_path_factory):
    return testing.start_app(str(tmp_path_factory.mktemp("client")))


def test_the_check_sees_an_overlap_and_a_player_bar_out_of_view(app_window):
    """The checker itself: a button drawn over a label's text is reported (and the same
    button beside it is not); on a phone a game's player bars taken off the screen, and no
    lit chip, are reported."""
    from kivy.metrics import dp
    from kivy.uix.label import Label

    from bench import layoutcheck
    from client_kivy.vm.session import LocalSession
    from client_kivy.widgets.common import GButton

    app = app_window
    app.show("home")
    testing.pump(2)
    home = app.root.get_screen("home")
    label = Label(text="Whose turn it is", size_hint=(None, None), size=(200, 40),
                  pos=(10, 300))
    button = GButton(text="Over it", size_hint=(None, None), size=(120, 60), pos=(40, 290))
    home.add_widget(label)
    home.add_widget(button)
    testing.pump(2)
    try:
        found = layoutcheck.problems(app, "home")
        button.pos = (label.right + 4, 290)  # beside it: nothing drawn over its text
        testing.pump(2)
        beside = [p for p in layoutcheck.overlaps(home, "home") if "Whose turn" in p]
    finally:
        home.remove_widget(label)
        home.remove_widget(button)
    assert any("'Over it' is drawn over Label 'Whose turn it is'" in p for p in found), found
    assert beside == [], beside

    testing.set_size(int(dp(360)), int(dp(740)))
    try:
        s = LocalSession("teeko", [{"name": "Ann", "kind": "human", "level": ""},
                                   {"name": "Bob", "kind": "human", "level": ""}],
                         store=app.store, post=None, seed=1)
        app.open_session(s, title="Teeko")
        testing.pump(4)
        screen = app.root.get_screen("game")
        assert layoutcheck.player_bar_problems(app, "game") == []
        bar = screen.bottom_bar
        parent = bar.parent
        parent.remove_widget(bar)  # the seat to act is not on screen any more
        testing.pump(2)
        found = layoutcheck.player_bar_problems(app, "game")
        parent.add_widget(bar)
        for chip in screen.chips:
            chip.active = False
        unlit = layoutcheck.player_bar_problems(app, "game")
    finally:
        app.leave_game()
        testing.set_size(int(dp(1280)), int(dp(800)))
    assert any("no chip for seat 0" in p for p in found), found
    assert any("no lit turn marker" in p for p in found + unlit), unlit
