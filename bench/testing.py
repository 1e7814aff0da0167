"""Headless driving of the app for tests and tools/screenshots.py.

Call :func:`headless` before anything imports Kivy: it selects the offscreen SDL driver, a
private KIVY_HOME and no log file. Then :func:`start_app` builds the app in the current process
(no main loop: :func:`pump` runs frames) and :func:`tap` presses a widget like a finger.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from typing import Any


def headless(width: int = 1280, height: int = 800) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # sounds load and play, silently
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")  # leave the root logger to pytest
    # the connect screen listens for servers (client_kivy/discovery.py) on loopback only
    os.environ.setdefault("GAMENIGHT_DISCOVERY_INTERFACES", "127.0.0.1")
    if "KIVY_HOME" not in os.environ:
        os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="kivyhome-")
    from kivy.config import Config

    Config.set("graphics", "width", str(width))
    Config.set("graphics", "height", str(height))
    Config.set("input", "mouse", "")  # no mouse provider: touches come from the tests
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("graphics", "maxfps", "0")  # frames as fast as they come: no waiting on a clock


_app: Any = None


def start_app(data_dir: str | None = None) -> Any:
    """The app, built once per process (Kivy has one window)."""
    global _app
    from kivy.base import EventLoop

    from client_kivy.app import GamenightApp

    if _app is None:
        _app = GamenightApp(data_dir=data_dir or tempfile.mkdtemp(prefix="gamenight-client-"))
        _app._run_prepare()
        from kivy.uix.screenmanager import NoTransition

        _app.root.transition = NoTransition()  # a fading screen ignores touches
        EventLoop.ensure_window()
        pump(3)
    return _app


def set_size(width: int, height: int) -> None:
    from kivy.core.window import Window

    Window.size = (width, height)
    pump(4)


def set_size_dp(width: int, height: int) -> None:
    """The window at ``width`` x ``height`` dp (a phone at density 2: twice the pixels),
    drawn."""
    from kivy.metrics import dp

    set_size(int(dp(width)), int(dp(height)))
    pump(4)


def pump(frames: int = 1) -> None:
    from kivy.base import EventLoop

    for _ in range(frames):
        EventLoop.idle()


WAIT = 120.0
"""Seconds a test waits for what it expects: only a hang takes this long (a loaded machine
may take 30 s for what takes one on a quiet one)."""


def wait_until(cond: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        pump(1)
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def tap(widget: Any, x: float | None = None, y: float | None = None) -> None:
    """Press and release a finger on ``widget`` (its centre, or the point x, y given in the
    widget's ``pos`` frame). The touch goes through the window like a real one; inside a
    ScrollView (which delays and re-targets still touches) it is dispatched to the widget."""
    from kivy.tests.common import UnitTestTouch

    pump(4)  # a finger taps what is on screen: a screen just shown is laid out first
    widget = real_widget(widget)
    if x is None or y is None:
        x, y = widget.center_x, widget.center_y
    if scroll_parent(widget) is not None:
        wx, wy = window_point(widget, x, y)
        touch = UnitTestTouch(wx, wy)
        touch.pos = touch.x, touch.y = (x, y)
        widget.dispatch("on_touch_down", touch)
        touch.grab_current = widget
        widget.dispatch("on_touch_up", touch)
        touch.grab_current = None
        pump(2)
        return
    wx, wy = window_point(widget, x, y)
    touch = UnitTestTouch(wx, wy)
    touch.touch_down()
    touch.touch_up()
    pump(2)


def real_widget(widget: Any) -> Any:
    """The widget itself, not the weak proxy ``ids`` hands out (grabs compare identity)."""
    from client_kivy.widgets.common import real_widget as real

    return real(widget)


def window_point(widget: Any, x: float, y: float) -> tuple[float, float]:
    """Window coordinates of a point given in ``widget``'s parent coordinates (its ``pos``
    frame), counting ScrollView offsets, which ``to_window`` leaves out."""
    from kivy.uix.scrollview import ScrollView

    p = widget.parent
    while p is not None and p is not p.parent:
        if isinstance(p, ScrollView):
            tx, ty = p.g_translate.xy
            x, y = x + tx, y + ty
        else:
            x, y = p.to_parent(x, y)
        p = p.parent
    return x, y


def scroll_parent(widget: Any) -> Any:
    """The nearest ScrollView holding ``widget``, or None."""
    from kivy.uix.scrollview import ScrollView

    w = widget.parent
    while w is not None and w is not w.parent:
        if isinstance(w, ScrollView):
            return w
        w = w.parent
    return None


def screenshot(path: str) -> str:
    """Write the window to ``path`` (a PNG) and return it."""
    from kivy.core.window import Window

    pump(2)
    base, ext = os.path.splitext(path)
    tmp = Window.screenshot(name=base + ".tmp" + ext)
    # Window.screenshot appends a counter; move it to the wanted name.
    if tmp and os.path.exists(tmp):
        os.replace(tmp, path)
    return path


def inside_window(widget: Any) -> bool:
    """Whether ``widget`` lies whole inside the window (where it is drawn, counting the
    ScrollView offsets above it: :func:`window_point`)."""
    from kivy.core.window import Window

    x, y = window_point(widget, widget.x, widget.y)
    return bool(x >= -0.5 and y >= -0.5 and x + widget.width <= Window.width + 0.5
                and y + widget.height <= Window.height + 0.5)
