#!/usr/bin/env python3
"""Draw the Android launcher icon and loading screen (presplash) in the app's own look:
felt green, brass, the ivory and ebony stones the boards draw (client_kivy/widgets/board.py).

    GAMENIGHT_PURE=1 .venv/bin/python tools/android_art.py      # -> deploy/android/*.png

Writes icon.png (512x512, the legacy icon buildozer asks for), icon_fg.png and icon_bg.png
(the adaptive icon's layers, 432x432: the stones inside the middle 66 % the launchers never
cut), presplash.png (512x512 on felt; android.presplash_color in deploy/buildozer.spec is the
same felt, so it blends with the screen around it). Runs headless (SDL offscreen, Kivy's
OpenGL), like tools/screenshots.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import testing  # noqa: E402

OUT = os.path.join(ROOT, "deploy", "android")


def render(path: str, size: int, draw: Callable[[float], None]) -> str:
    """Draw into an off-screen frame buffer of ``size`` x ``size`` pixels and save a PNG."""
    from kivy.graphics import ClearBuffers, ClearColor, Fbo

    fbo = Fbo(size=(size, size))
    with fbo:
        ClearColor(0, 0, 0, 0)
        ClearBuffers()
        draw(float(size))
    fbo.draw()
    fbo.texture.save(path, flipped=True)
    return path


def felt(s: float, radius: float) -> None:
    from kivy.graphics import Color, RoundedRectangle

    from client_kivy.widgets.common import FELT, FELT_DARK

    Color(*FELT_DARK)
    RoundedRectangle(pos=(0, 0), size=(s, s), radius=[radius])
    Color(*FELT)
    inset = s * 0.025
    RoundedRectangle(pos=(inset, inset), size=(s - 2 * inset, s - 2 * inset),
                     radius=[max(1.0, radius - inset)])


def stones(cx: float, cy: float, r: float) -> None:
    """A brass ring (a Tiku target) around an ivory and an ebony stone (Teeko)."""
    from kivy.graphics import Color, Line

    from client_kivy.widgets.board import draw_piece
    from client_kivy.widgets.common import BRASS

    Color(*BRASS)
    Line(circle=(cx, cy, r * 2.05), width=max(2.0, r * 0.12))
    draw_piece(cx - r * 0.72, cy + r * 0.55, r, 0)
    draw_piece(cx + r * 0.72, cy - r * 0.55, r, 1)


def icon(s: float) -> None:
    felt(s, s * 0.18)
    stones(s / 2, s / 2, s * 0.19)


def icon_foreground(s: float) -> None:
    stones(s / 2, s / 2, s * 0.13)  # ring radius 0.27 s: inside the 0.33 s safe circle


def icon_background(s: float) -> None:
    from kivy.graphics import Color, Rectangle

    from client_kivy.widgets.common import FELT

    Color(*FELT)
    Rectangle(pos=(0, 0), size=(s, s))


def presplash(s: float) -> None:
    from client_kivy.widgets.board import draw_text
    from client_kivy.widgets.common import BRASS, MUTED

    icon_background(s)
    stones(s / 2, s * 0.58, s * 0.12)
    draw_text("gamenight", s / 2, s * 0.22, s * 0.095, BRASS, bold=True)
    draw_text("Teeko · Tiku · Tedoku · Teka", s / 2, s * 0.13, s * 0.038, MUTED)


def main() -> None:
    testing.headless(600, 600)
    from kivy.base import EventLoop

    EventLoop.ensure_window()
    os.makedirs(OUT, exist_ok=True)
    for name, size, draw in (("icon.png", 512, icon), ("icon_fg.png", 432, icon_foreground),
                             ("icon_bg.png", 432, icon_background),
                             ("presplash.png", 512, presplash)):
        print(render(os.path.join(OUT, name), size, draw))


if __name__ == "__main__":
    main()
