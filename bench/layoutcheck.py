"""Layout check: on every screen of :func:`bench.tour.tour`, at phone and tablet
sizes, no label is cut (shortened to "..", wrapped lines dropped, text running out of its
box or out of the window) and every button lies inside the window (or inside the scroll
view that brings it into view) and is at least 48 dp in both directions. Boards report
their tap targets (a Teka card in the hand) with ``tap_targets()``.

    GAMENIGHT_PURE=1 python -m bench.layoutcheck [--fontscale 1.3] [--density 2] [--json]

Text size is Kivy's ``KIVY_METRICS_FONTSCALE`` (130 % on a phone set to larger text), the
screen's density ``KIVY_METRICS_DENSITY`` (1 on a desktop, 2 to 3 on a phone: pixels per dp);
both are read when Kivy starts, so each runs in its own process. The window is sized in dp,
so at density 2 a 360x740 phone is a 720x1480 window.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from typing import Any

# (width, height) in dp: a 360x740 phone upright and on its side, a bigger phone, a tablet
SIZES = [(360, 740), (740, 360), (540, 960), (1280, 800)]
MIN_TARGET = 48
_MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def _visible(w: Any) -> bool:
    return bool(w.opacity > 0.01 and w.width > 0.5 and w.height > 0.5)


def _window_rect(w: Any) -> tuple[float, float, float, float]:
    from bench.testing import window_point

    x0, y0 = window_point(w, w.x, w.y)
    return x0, y0, w.width, w.height


def _inside(rect: tuple[float, float, float, float], box: tuple[float, float, float, float],
            axes: str = "xy", slack: float = 1.0) -> bool:
    x, y, w, h = rect
    bx, by, bw, bh = box
    ok = True
    if "x" in axes:
        ok = ok and x >= bx - slack and x + w <= bx + bw + slack
    if "y" in axes:
        ok = ok and y >= by - slack and y + h <= by + bh + slack
    return ok


def _where(w: Any, win: tuple[float, float, float, float]) -> tuple[bool, str]:
    """Whether ``w`` can be brought fully into the window (scrolling where it scrolls)."""
    rect = _window_rect(w)
    from bench.testing import scroll_parent

    sv = scroll_parent(w)
    if sv is None:
        return _inside(rect, win), ""
    svrect = _window_rect(sv)
    if not _inside(svrect, win):
        return False, " (its scroll view sticks out of the window)"
    # scrolling brings it into view along the axes the view scrolls; not along the others
    axes = ("" if sv.do_scroll_x else "x") + ("" if sv.do_scroll_y else "y")
    ok = _inside(rect, svrect, axes)
    return ok, "" if ok else " (out of its scroll view, which does not scroll that way)"


def rendered_text(label: Any) -> str:
    label.texture_update()
    core = getattr(label, "_label", None)
    lines = getattr(core, "_cached_lines", None) or []
    return "".join(word.text for line in lines for word in line.words)


def label_problem(label: Any) -> str:
    text = label.text or ""
    if not text.strip():
        return ""
    plain = text
    if label.markup:  # tags go, escaped brackets and ampersands are drawn as themselves
        plain = _MARKUP.sub("", text).replace("&bl;", "[").replace("&br;", "]") \
            .replace("&amp;", "&")
    want = "".join(plain.split())
    got = "".join(rendered_text(label).split())
    if got != want:
        if "..." in got and "..." not in want:
            return f"shortened to {rendered_text(label)!r}"
        if len(got) < len(want):
            return f"cut to {rendered_text(label)!r}"
    tw, th = label.texture_size
    if label.text_size[0] is None and tw > label.width + 2:
        return f"text {tw:.0f} wide in a {label.width:.0f} box"
    if label.text_size[1] is None and th > label.height + 2:
        return f"text {th:.0f} high in a {label.height:.0f} box"
    return ""


def problems(app: Any, where: str = "") -> list[str]:
    """What is wrong with the window as it is now (one line each)."""
    from kivy.core.window import Window
    from kivy.metrics import dp
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.label import Label

    out: list[str] = []
    win = (0.0, 0.0, float(Window.width), float(Window.height))
    least = dp(MIN_TARGET) - 0.5
    roots = [c for c in Window.children if c is not app.root] + [app.root]
    for root in roots:
        if root is app.root:
            start = [app.root.current_screen] if app.root.current_screen is not None else []
        else:
            start = [root]
        stack = list(start)
        while stack:
            w = stack.pop()
            if w.opacity <= 0.01:
                continue
            stack.extend(w.children)  # a box of no size does not hide what is in it
            if not _visible(w):
                continue
            name = f"{where}: {type(w).__name__}"
            text = getattr(w, "text", "")
            if isinstance(w, ButtonBehavior):
                if w.width < least or w.height < least:
                    out.append(f"{name} {text!r} is {w.width / dp(1):.0f}x"
                               f"{w.height / dp(1):.0f} dp (under {MIN_TARGET})")
                ok, why = _where(w, win)
                if not ok:
                    out.append(f"{name} {text!r} is out of the window{why}")
            if isinstance(w, Label):
                bad = label_problem(w)
                if bad:
                    out.append(f"{name} {text!r}: {bad}")
                elif not isinstance(w, ButtonBehavior) and w.text.strip():
                    ok, why = _where(w, win)
                    if not ok:
                        out.append(f"{name} {text!r} is out of the window{why}")
            targets = getattr(w, "tap_targets", None)
            if callable(targets):
                for x, y, tw, th, what in targets():
                    if tw < least or th < least:
                        out.append(f"{name} {what} is a {tw / dp(1):.0f}x{th / dp(1):.0f} dp "
                                   f"target (under {MIN_TARGET})")
                    wx, wy = _window_rect(w)[:2]
                    if not _inside((wx + x - w.x, wy + y - w.y, tw, th), win):
                        out.append(f"{name} {what} is out of the window")
    return out


def _not_drawn(*_: Any) -> bool:
    return True  # (handled: the window's own drawing and flip do not run)


def run(sizes: list[tuple[int, int]] = SIZES) -> list[str]:
    from kivy.metrics import dp

    from bench import testing
    from bench.tour import tour

    testing.headless(1280, 960)
    app = testing.start_app(tempfile.mkdtemp(prefix="gamenight-layout-"))
    from kivy.core.window import Window

    # The check reads sizes, positions and laid-out text, never pixels: the window is not
    # drawn (offscreen, drawing is software GL: without it the check takes a tenth of the
    # time, and every widget's size, position and text comes out the same).
    Window.fbind("on_draw", _not_drawn)
    Window.fbind("on_flip", _not_drawn)
    found: list[str] = []
    for name in tour(app):
        for w, h in sizes:
            testing.set_size(int(dp(w)), int(dp(h)))
            testing.pump(3)
            found.extend(problems(app, f"{name} at {w}x{h}"))
    testing.set_size(int(dp(1280)), int(dp(800)))
    return found


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fontscale", default="")
    ap.add_argument("--density", default="")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.fontscale:
        os.environ["KIVY_METRICS_FONTSCALE"] = args.fontscale
    if args.density:
        os.environ["KIVY_METRICS_DENSITY"] = args.density
    os.environ.setdefault("GAMENIGHT_PURE", "1")
    found = run()
    if args.json:
        print(json.dumps(found))
    else:
        for line in found:
            print(line)
        print(f"{len(found)} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
