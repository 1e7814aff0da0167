#!/usr/bin/env python3
"""Screenshots of the app's table mode (client_kivy/screens/table.py) at phone (360x740 dp,
and 740x360 on its side) and tablet (1280x800, 800x1280) sizes, into
docs/screenshots/{phone,phone-side,tablet,tablet-upright}-table*.png, and the layout check
(bench/layoutcheck.py) of each: it prints any label cut or button too small.

    GAMENIGHT_PURE=1 .venv/bin/python tools/table_screenshots.py

Runs headless with no server: the table's spectator session is given the frames a server
sends (a Teka match just dealt, seat 3 taken by a phone, the others open), from the core.
"""

from __future__ import annotations

import os
import sys
import tempfile
from random import Random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import testing  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
SIZES = {"phone": (360, 740), "phone-side": (740, 360), "tablet": (1280, 800),
         "tablet-upright": (800, 1280)}


class NoSocket:
    def __init__(self, *_a: object, **_kw: object) -> None:
        pass

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass

    def send(self, _msg: object) -> bool:
        return False


def main() -> int:
    os.environ.setdefault("GAMENIGHT_PURE", "1")
    testing.headless(1280, 1280)  # the largest of all: the GL surface never grows
    app = testing.start_app(tempfile.mkdtemp(prefix="gamenight-shots-"))
    import core
    from client_kivy.screens.table import TableScreen
    from client_kivy.vm.net import Api
    from client_kivy.vm.table import TableModel
    from core.api import SPECTATOR, fold

    game = core.GAMES["teka"]
    events = list(game.start(game.options({}), Random(4)))
    state = fold(game, events)
    codes = ["K7QF9A3M", "R2XD8BNC", "H5TW4KPE", "Z9MV3GQA"]  # (the organiser's: every code)
    seats = [{"seat": i, "kind": "open", "name": "", "taken": False, "code": codes[i]}
             for i in range(4)]
    seats[2].update(kind="guest", name="Bob", taken=True, connected=True, code="")
    info = {"id": 12, "kind": "teka", "code": "K7QF9A", "status": "live", "seats": seats}
    api = Api("192.168.1.20:8000")
    model = TableModel(api, info, app.settings, socket_factory=NoSocket)
    model.session.handle({"type": "welcome", "viewer": SPECTATOR, "seats": seats,
                          "code": "K7QF9A", "status": "live"})
    model.session.handle({"type": "events", "events": [], "to": len(events),
                          "view": game.view(state, SPECTATOR),
                          "to_act": list(game.to_act(state)), "legal": []})
    app.lobby.api = api
    screen = TableScreen(name="table")
    app.root.add_widget(screen)
    screen.set_model(model)
    app.show("table")
    from bench.layoutcheck import problems

    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for size, (w, h) in SIZES.items():
        testing.set_size(w, h)
        testing.pump(8)
        path = os.path.join(OUT, f"{size}-table.png")
        testing.screenshot(path)
        print(os.path.relpath(path, ROOT))
        for problem in problems(app, f"table {size}"):
            print("  layout:", problem)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
