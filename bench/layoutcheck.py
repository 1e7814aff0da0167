"""Layout check: on every screen of :func:`bench.tour.tour`, at phone and tablet
sizes, no label is cut (shortened to "..", wrapped lines dropped, text running out of its
box or out of the window) and every button lies inside the window (or inside the scroll
view that brings it into view) and is at least 48 dp in both directions. Boards report
their tap targets (a Teka card in the hand) with ``tap_targets()``. Nothing is drawn over a
label's text by a widget drawn after it (:func:`overlaps`: a button, another label's text,
a board's drawing, which may reach past its widget). On a phone the game screen's player
bars, and the chip of the seat to act, are in the window (:func:`player_bar_problems`).

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
    for root in roots:
        top = app.root.current_screen if root is app.root else root
        if top is not None:
            out.extend(overlaps(top, where))
    out.extend(player_bar_problems(app, where))
    return out


def drawn_rect(w: Any) -> tuple[float, float, float, float] | None:
    """Where ``w`` draws in its own canvas (not its background, ``canvas.before``), in
    window coordinates: a label its text, any other widget the box around its rectangles
    and ellipses (a board's drawing may reach past the widget); None if it draws nothing."""
    from kivy.graphics import Rectangle
    from kivy.uix.label import Label

    if isinstance(w, Label):
        if not (w.text or "").strip():
            return None
        tw, th = w.texture_size
        return (*_point(w, w.center_x - tw / 2, w.center_y - th / 2), tw, th)
    boxes = [(i.pos, i.size) for i in w.canvas.children if isinstance(i, Rectangle)]
    if not boxes:
        return None
    x0 = min(p[0] for p, _ in boxes)
    y0 = min(p[1] for p, _ in boxes)
    x1 = max(p[0] + sz[0] for p, sz in boxes)
    y1 = max(p[1] + sz[1] for p, sz in boxes)
    return (*_point(w, x0, y0), x1 - x0, y1 - y0)


def _dims_all(layer: Any, screen: Any) -> bool:
    """Whether ``layer`` paints over the whole screen (a backdrop: the hand-off screen)."""
    rect = _background_rect(layer)
    return rect is not None and rect[2] >= screen.width - 1 and rect[3] >= screen.height - 1


def _background_rect(w: Any) -> tuple[float, float, float, float] | None:
    """Where ``w`` paints its background (``canvas.before``), in window coordinates."""
    from kivy.graphics import Rectangle

    if not w.canvas.has_before:
        return None
    boxes = [(i.pos, i.size) for i in w.canvas.before.children if isinstance(i, Rectangle)]
    if not boxes:
        return None
    x0 = min(p[0] for p, _ in boxes)
    y0 = min(p[1] for p, _ in boxes)
    x1 = max(p[0] + sz[0] for p, sz in boxes)
    y1 = max(p[1] + sz[1] for p, sz in boxes)
    return (*_point(w, x0, y0), x1 - x0, y1 - y0)


def _point(w: Any, x: float, y: float) -> tuple[float, float]:
    from bench.testing import window_point

    return window_point(w, x, y)


def covers(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
            least: float = 1.0) -> bool:
    """Whether ``a`` and ``b`` share more than ``least`` in both directions."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return min(ax + aw, bx + bw) - max(ax, bx) > least and \
        min(ay + ah, by + bh) - max(ay, by) > least


def overlaps(root: Any, where: str = "") -> list[str]:
    """Labels whose text a widget drawn later covers (not the label's own ancestor or
    descendant): a button or a label over another's text, a board's drawing over a title.
    What a scroll view shows is cut to its view (the rest is not drawn). A layer over the
    whole screen (the hand-off screen, the end banner: a later child of the screen as large
    as it) covers what is under it on purpose: it is checked on its own."""
    from kivy.metrics import dp
    from kivy.uix.label import Label

    layers = [c for c in root.children[:-1] if tuple(c.size) == tuple(root.size)] \
        if len(root.children) > 1 else []
    out: list[str] = []
    for top in [root, *layers]:
        skip = {id(c) for c in layers if c is not top}
        out.extend(_overlaps_in(top, skip, where, dp(2), Label))
    return out


def _overlaps_in(root: Any, skip: set[int], where: str, least: float,
                 label_type: Any) -> list[str]:
    order: list[Any] = []  # the order Kivy draws them: a parent, then its children, the
    stack = [root]         # last added (first in ``children``) last
    while stack:
        w = stack.pop()
        if w.opacity <= 0.01 or id(w) in skip:
            continue
        order.append(w)
        stack.extend(w.children)
    drawn = []
    for k, w in enumerate(order):
        rect = drawn_rect(w) if _visible(w) else None
        rect = _clipped(w, rect) if rect is not None else None
        if rect is not None:
            drawn.append((k, w, rect))
    out: list[str] = []
    for k, label, text_rect in drawn:
        if not isinstance(label, label_type):
            continue
        mine = set()
        p = label
        while p is not None and p is not p.parent:
            mine.add(id(p))
            p = p.parent
        for k2, w, rect in drawn:
            if k2 <= k or id(w) in mine or _ancestor(label, w):
                continue
            if covers(rect, text_rect, least):
                what = getattr(w, "text", "") or ""
                out.append(f"{where}: {type(w).__name__} {what!r} is drawn over "
                           f"{type(label).__name__} {label.text!r}")
                break
    return out


def _clipped(w: Any, rect: tuple[float, float, float, float]
             ) -> tuple[float, float, float, float] | None:
    """``rect`` cut to the views of the scroll views holding ``w`` (None: out of view)."""
    from bench.testing import scroll_parent

    x0, y0, x1, y1 = rect[0], rect[1], rect[0] + rect[2], rect[1] + rect[3]
    sv = scroll_parent(w)
    while sv is not None:
        bx, by, bw, bh = _window_rect(sv)
        x0, y0, x1, y1 = max(x0, bx), max(y0, by), min(x1, bx + bw), min(y1, by + bh)
        sv = scroll_parent(sv)
    if x1 - x0 <= 0.5 or y1 - y0 <= 0.5:
        return None
    return x0, y0, x1 - x0, y1 - y0


def _ancestor(w: Any, maybe_child: Any) -> bool:
    p = maybe_child.parent
    while p is not None and p is not p.parent:
        if p is w:
            return True
        p = p.parent
    return False


def player_bar_problems(app: Any, where: str = "") -> list[str]:
    """On a phone the game screen shows its players in bars outside any scrolling panel:
    every chip inside the window and, while someone is to act, a lit chip among them."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    from bench.testing import scroll_parent

    screen = app.root.current_screen
    if screen is None or screen.name != "game" or getattr(screen, "session", None) is None:
        return []
    if min(Window.width, Window.height) / dp(1) >= 600:  # a tablet: the players' panel
        return []
    win = (0.0, 0.0, float(Window.width), float(Window.height))
    out: list[str] = []
    chips = list(getattr(screen, "chips", []))
    for seat, chip in enumerate(chips):
        if chip.get_root_window() is None or not _visible(chip):
            out.append(f"{where}: the player bar has no chip for seat {seat}")
        elif scroll_parent(chip) is not None or not _inside(_window_rect(chip), win):
            out.append(f"{where}: the player bar ({chip.name!r}) is not in view")
    # a layer's card (the end banner) over a chip hides it
    # (the hand-off screen, which dims the whole screen, hides it on purpose)
    layers = [c for c in screen.children[:-1] if not _dims_all(c, screen)]
    cards = [(c, _background_rect(c)) for layer in layers
             for c in list(layer.walk(restrict=True))[1:] if _visible(c)]
    for chip in chips:
        if chip.get_root_window() is None:
            continue
        for card, rect in cards:
            if rect is not None and covers(rect, _window_rect(chip), dp(2)):
                out.append(f"{where}: {type(card).__name__} covers the player bar "
                           f"({chip.name!r})")
                break
    s = screen.session
    if s.outcome is None and s.to_act and s.handoff is None and chips \
            and not any(c.active and c.get_root_window() is not None for c in chips):
        out.append(f"{where}: no lit turn marker in the player bars")
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
