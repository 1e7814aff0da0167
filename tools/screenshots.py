#!/usr/bin/env python3
"""Screenshots of every screen of the tablet app, each game mid-play and at its end, at
phone (540x960) and tablet (1280x800) sizes, into docs/screenshots/.

    GAMENIGHT_PURE=1 .venv/bin/python tools/screenshots.py [--only NAME]

Runs headless (SDL offscreen); nothing needs a display or a server (the lobby is filled
with sample tables).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from random import Random
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from client_kivy import testing  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
SIZES = {"phone": (540, 960), "tablet": (1280, 800)}
META = {"resign", "offer_draw", "accept_draw", "decline_draw"}


def play_random(session: Any, rng: Random, stop: Any, limit: int = 5000) -> None:
    """Play random legal moves for whoever is to act until ``stop(session)``."""
    for _ in range(limit):
        if session.outcome is not None or stop(session):
            return
        if session.handoff is not None:
            session.confirm_handoff()
            continue
        moves = [c for c in session.legal if c.get("type") not in META
                 and c.get("type") != "raise"]
        if not moves:
            return
        session.send(rng.choice(moves))


def sample_lobby(app: Any) -> None:
    from client_kivy.vm.net import Api

    lobby = app.lobby
    lobby.api = Api("192.168.1.20:8000")
    lobby.name = "Ann"
    lobby.refresh = lambda done=None: None  # type: ignore[method-assign]

    def seat(i: int, name: str, kind: str = "guest", taken: bool = True) -> dict[str, Any]:
        return {"seat": i, "kind": kind, "name": name, "taken": taken, "bot_level": None}

    lobby.games = {
        "open": [{"id": 7, "kind": "teka", "status": "open", "code": "KT4M2Q",
                  "seats": [seat(0, "Ann"), seat(1, "", "open", False), seat(2, "Cleo"),
                            seat(3, "Bot", "bot")]},
                 {"id": 8, "kind": "tedoku", "status": "open", "code": "TD9X1A",
                  "seats": [seat(0, "Dan"), seat(1, "", "open", False)]}],
        "live": [{"id": 5, "kind": "teeko", "status": "live", "code": "WAL6GC",
                  "seats": [seat(0, "Bob"), seat(1, "Bot", "bot")]},
                 {"id": 6, "kind": "tiku", "status": "live", "code": "PQ7R2S",
                  "seats": [seat(0, "Eve"), seat(1, "Finn")]}],
        "finished": [{"id": 2, "kind": "teeko", "status": "finished", "code": "ZZ11AA",
                      "outcome": {"winners": [0], "reason": "pattern", "scores": []},
                      "seats": [seat(0, "Ann"), seat(1, "Bob")]}],
    }
    from core.ai.bots import LEVELS

    lobby.kinds = [{"kind": k, "bot_levels": v} for k, v in LEVELS.items()]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    os.environ.setdefault("GAMENIGHT_PURE", "1")
    testing.headless(1280, 960)  # the largest of both: the GL surface never grows
    app = testing.start_app(tempfile.mkdtemp(prefix="gamenight-shots-"))
    from client_kivy.vm.session import LocalSession, ReplayModel

    os.makedirs(OUT, exist_ok=True)
    written = []

    def shot(name: str, size: str) -> None:
        testing.pump(4)
        path = os.path.join(OUT, f"{size}-{name}.png")
        testing.screenshot(path)
        written.append(path)

    def local(game: str, players: list[dict[str, Any]], options: dict[str, Any] | None = None,
              seed: int = 1) -> LocalSession:
        s = LocalSession(game, players, options, store=app.store, post=None, seed=seed)
        app.open_session(s, title=app_title(game, players))
        return s

    you = {"name": "Ann", "kind": "human", "level": ""}

    def human(name: str) -> dict[str, Any]:
        return {"name": name, "kind": "human", "level": ""}

    for size, (w, h) in SIZES.items():
        testing.set_size(w, h)
        if args.only and args.only != size:
            continue
        app.show("home")
        shot("home", size)
        app.show("setup")
        testing.pump(3)
        shot("setup", size)
        # a server announced on loopback (mDNS), as the connect screen lists it at a game night
        from server.ops import announce

        club = announce.start(8000, "127.0.0.1", "Friday club")
        app.lobby.api = None  # not connected yet (the sample lobby of the size before is)
        app.show("connect")
        connect = app.root.get_screen("connect")
        testing.wait_until(lambda c=connect: bool(c.ids.found.children), 8)
        shot("connect", size)
        if club is not None:
            club.stop()
        sample_lobby(app)
        app.show("lobby")
        shot("lobby", size)
        setup = app.root.get_screen("setup")
        setup.online = True
        app.show("setup")
        setup.choose_game("teka")
        shot("setup-online", size)
        app.show("lobby")

        # Teeko mid-play with a piece selected, and at its end
        s = local("teeko", [you, {"name": "Computer", "kind": "bot", "level": "easy"}],
                  seed=4)
        play_random(s, Random(1), lambda s: s.view.get("phase") == "move")
        testing.pump(3)
        board = app.root.get_screen("game").board
        moves = [c for c in s.legal if c["type"] == "move"]
        if moves:
            board.model.tap(moves[0]["from"])
            board._redraw()
        shot("teeko-play", size)
        play_random(s, Random(2), lambda s: False)
        shot("teeko-end", size)

        # Tiku (diagonal variant) mid-play and end
        s = local("tiku", [you, human("Bob")], {"diagonal": True}, seed=3)
        play_random(s, Random(3), lambda s: s.view.get("moves", 0) >= 9)
        testing.pump(3)
        board = app.root.get_screen("game").board
        moves = [c for c in s.legal if c["type"] == "move"]
        if moves:
            board.model.tap(moves[-1]["from"])
            board._redraw()
        shot("tiku-play", size)
        play_random(s, Random(3), lambda s: False)
        shot("tiku-end", size)

        # Tedoku: two players with bonus shapes, a ghost on the sheet; then solo at the end
        s = local("tedoku", [you, human("Bob")], {"bonus": True}, seed=5)
        play_random(s, Random(5), lambda s: s.view.get("turn", 0) >= 6 and s.viewer == 0
                    and s.handoff is None)
        testing.pump(3)
        board = app.root.get_screen("game").board
        cmds = [c for c in s.legal if c.get("type") == "place" and c.get("shape") not in
                ("B1", "B2", "B4")]
        if cmds:
            board.model.set_ghost_to(cmds[len(cmds) // 2])
            board.changed()
        shot("tedoku-play", size)
        s2 = local("tedoku", [you], {"bonus": True}, seed=6)
        play_random(s2, Random(6), lambda s: False)
        shot("tedoku-end", size)

        # hand-off screen (pass-and-play, hidden hands)
        s = local("teka", [you, human("Bob"), human("Cleo"), human("Dan")], seed=7)
        shot("handoff", size)
        # Teka: bidding, then a trick in play with a card selected, score sheet, end
        s.confirm_handoff()
        shot("teka-bid", size)
        play_random(s, Random(8), lambda s: s.view.get("phase") == "play"
                    and len(s.view.get("trick") or []) == 2 and s.handoff is None)
        if s.handoff is not None:
            s.confirm_handoff()
        testing.pump(3)
        board = app.root.get_screen("game").board
        playable = board.model.playable()
        if playable:
            board.model.tap_card(playable[0])
            board._redraw()
            board._side_key = None
            board.side_widgets(app.root.get_screen("game").ids.extra)
        shot("teka-play", size)
        play_random(s, Random(9), lambda s: False)
        shot("teka-end", size)
        from client_kivy.widgets.teka_table import ScoreSheet

        sheet = ScoreSheet(s.view)
        sheet.open(animation=False)
        testing.pump(6)
        shot("teka-scoresheet", size)
        sheet.dismiss(animation=False)
        testing.pump(2)

        # replay of the Teka match, every hand shown, a few cards into the first hand
        tmodel = ReplayModel("teka", s.events, s.players)
        tmodel.seek(1)
        tmodel.next_mark(1)
        tmodel.seek(tmodel.index + 12)
        app.open_replay(tmodel, "Replay: Teka", "saved")
        shot("replay-teka", size)

        # replay of the Teeko game, scrubbed halfway
        rec = [r for r in app.store.list() if r["game"] == "teeko" and r.get("finished")]
        full = app.store.load(rec[0]["id"])
        model = ReplayModel("teeko", full["events"], full["players"])
        model.seek(model.length // 2)
        app.open_replay(model, "Replay: Teeko", "saved")
        shot("replay", size)
        app.show("saved")
        shot("saved", size)
        app.leave_game()
    for p in written:
        print(os.path.relpath(p, ROOT))
    return 0


def app_title(game: str, players: list[dict[str, Any]]) -> str:
    from client_kivy.app import table_title

    return table_title(game, players)


if __name__ == "__main__":
    sys.exit(main())
