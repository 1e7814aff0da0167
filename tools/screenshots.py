#!/usr/bin/env python3
"""Screenshots of every screen of the tablet app (every state of bench/tour.py: each
screen, each game mid-play and at its end) at phone (360x740 dp), phone on its side
(740x360) and tablet (1280x800) sizes, into docs/screenshots/.

    GAMENIGHT_PURE=1 .venv/bin/python tools/screenshots.py [--only phone,phone-side,tablet]
        [--states a,b]

Runs headless (SDL offscreen); nothing needs a display or a server (the lobby is filled
with sample tables).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import testing  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
SIZES = {"phone": (360, 740), "phone-side": (740, 360), "tablet": (1280, 800)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--states", default="", help="only these states of the tour, e.g. rules,home")
    args = ap.parse_args()
    os.environ.setdefault("GAMENIGHT_PURE", "1")
    testing.headless(1280, 960)  # the largest of all: the GL surface never grows
    app = testing.start_app(tempfile.mkdtemp(prefix="gamenight-shots-"))
    from bench.tour import tour

    os.makedirs(OUT, exist_ok=True)
    written = []
    sizes = {k: v for k, v in SIZES.items() if not args.only or k in args.only.split(",")}
    states = {x for x in args.states.split(",") if x}
    for name in tour(app):
        if states and name not in states:
            continue
        for size, (w, h) in sizes.items():
            testing.set_size(w, h)
            testing.pump(4)
            path = os.path.join(OUT, f"{size}-{name}.png")
            testing.screenshot(path)
            written.append(path)
    for p in written:
        print(os.path.relpath(p, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
