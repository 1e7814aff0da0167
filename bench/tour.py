"""A walk through every screen of the app and every phase of every game, for the screenshots
(tools/screenshots.py) and the layout check (bench/layoutcheck.py).

:func:`tour` puts the app in one state after another and yields a name for each; the caller
looks at the window meanwhile. Games are played by random legal commands through the session
(bots in the calling thread), the lobby is filled with sample tables: nothing needs a server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from random import Random
from typing import Any

from bench import testing

META = {"resign", "offer_draw", "accept_draw", "decline_draw"}


def play_random(session: Any, rng: Random, stop: Callable[[Any], bool],
                limit: int = 5000) -> None:
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
    lobby.refresh = lambda done=None: None

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


def human(name: str) -> dict[str, Any]:
    return {"name": name, "kind": "human", "level": ""}


def bot(name: str, level: str = "easy") -> dict[str, Any]:
    return {"name": name, "kind": "bot", "level": level}


def tour(app: Any, games: bool = True) -> Iterator[str]:
    """Every screen, one after another: yields a name once the window shows it."""
    from client_kivy.app import table_title
    from client_kivy.vm.session import LocalSession, ReplayModel

    def local(game: str, players: list[dict[str, Any]], options: dict[str, Any] | None = None,
              seed: int = 1) -> LocalSession:
        s = LocalSession(game, players, options, store=app.store, post=None, seed=seed)
        app.open_session(s, title=table_title(game, players))
        testing.pump(3)
        return s

    def game_screen() -> Any:
        return app.root.get_screen("game")

    def settle() -> None:
        testing.pump(4)

    def close_modals() -> None:
        from kivy.core.window import Window
        from kivy.uix.modalview import ModalView

        for w in list(Window.children):
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        testing.pump(2)

    app.leave_game()
    app.show("home")
    settle()
    yield "home"
    setup = app.root.get_screen("setup")
    setup.online = False
    app.show("setup")
    for g in ("teeko", "tiku", "tedoku", "teka"):
        setup.choose_game(g)
        settle()
        yield "setup" if g == "teeko" else f"setup-{g}"
    setup.choose_game("teeko")
    # a server announced on loopback (mDNS), as the connect screen lists it at a game night
    club = None
    try:
        from server.ops import announce

        club = announce.start(8000, "127.0.0.1", "Friday club")
    except Exception:  # no zeroconf here: the screen without a server heard
        club = None
    app.lobby.api = None  # not connected yet
    app.show("connect")
    connect = app.root.get_screen("connect")
    if club is not None and "found" in connect.ids:
        testing.wait_until(lambda: bool(connect.ids.found.children), 8)
    settle()
    yield "connect"
    if club is not None:
        club.stop()
    sample_lobby(app)
    app.show("lobby")
    settle()
    yield "lobby"
    setup.online = True
    app.show("setup")
    setup.choose_game("teka")
    settle()
    yield "setup-online"
    setup.online = False
    app.show("settings")
    settle()
    yield "settings"
    app.open_rules("teka", "setup")
    settle()
    yield "rules"
    rules = app.root.get_screen("rules")
    if rules.pictures:  # (the rules' picture of a Teka trick, scrolled into view)
        rules.ids.scroll.scroll_to(rules.pictures[0].parent, animate=False)
        settle()
        yield "rules-picture"
    if not games:
        return
    you = human("Ann")

    # Teeko mid-play with a piece selected, and at its end
    s = local("teeko", [you, bot("Computer")], seed=4)
    play_random(s, Random(1), lambda s: s.view.get("phase") == "move")
    settle()
    board = game_screen().board
    moves = [c for c in s.legal if c["type"] == "move"]
    if moves:
        board.model.tap(moves[0]["from"])
        board._redraw()
    yield "teeko-play"
    # confirm-before-move: the move held, Confirm and Cancel in the panel
    board.model.selected = None
    if moves:
        board.gate.enabled = True
        board.send(moves[0])
        settle()
        yield "teeko-confirm"
        board.cancel_pending()
        board.gate.enabled = False
        settle()
    game_screen().show_moves()
    settle()
    yield "teeko-moves"
    close_modals()
    app.back()  # Back mid-game: "Leave this game?"
    settle()
    yield "teeko-leave"
    app.back()
    play_random(s, Random(2), lambda s: False)
    settle()
    yield "teeko-end"

    # Tiku (diagonal variant) mid-play and end
    s = local("tiku", [you, human("Bob")], {"diagonal": True}, seed=3)
    play_random(s, Random(3), lambda s: s.view.get("moves", 0) >= 9)
    settle()
    board = game_screen().board
    moves = [c for c in s.legal if c["type"] == "move"]
    if moves:
        board.model.tap(moves[-1]["from"])
        board._redraw()
    yield "tiku-play"
    board.marks = True  # the colour-blind palette: shapes on pieces and discs
    settle()
    yield "tiku-colourblind"
    board.marks = False
    play_random(s, Random(3), lambda s: False)
    settle()
    yield "tiku-end"

    # Tedoku: two players with bonus shapes, a ghost on the sheet; then solo at the end
    s = local("tedoku", [you, human("Bob")], {"bonus": True}, seed=5)
    play_random(s, Random(5), lambda s: s.view.get("turn", 0) >= 6 and s.viewer == 0
                and s.handoff is None)
    settle()
    board = game_screen().board
    cmds = [c for c in s.legal if c.get("type") == "place" and c.get("shape") not in
            ("B1", "B2", "B4")]
    if cmds:
        board.model.set_ghost_to(cmds[len(cmds) // 2])
        board.changed()
    yield "tedoku-play"
    s2 = local("tedoku", [you], {"bonus": True}, seed=6)
    play_random(s2, Random(6), lambda s: False)
    settle()
    yield "tedoku-end"

    # hand-off screen (pass-and-play, hidden hands)
    s = local("teka", [you, human("Bob"), human("Cleo"), human("Dan")], seed=7)
    settle()
    yield "handoff"
    # Teka: bidding, then a trick in play with a card selected, score sheet, end
    s.confirm_handoff()
    settle()
    yield "teka-bid"
    play_random(s, Random(8), lambda s: s.view.get("phase") == "play"
                and len(s.view.get("trick") or []) == 2 and s.handoff is None)
    if s.handoff is not None:
        s.confirm_handoff()
    settle()
    board = game_screen().board
    playable = board.model.playable()
    if playable:
        board.model.tap_card(playable[0])
        board.changed()
    settle()
    yield "teka-play"
    play_random(s, Random(8), lambda s: bool(s.view.get("trick"))
                and bool((s.view.get("last_trick") or {}).get("cards")) and s.handoff is None)
    if s.handoff is not None:
        s.confirm_handoff()
    settle()
    board.show_last_trick()
    settle()
    yield "teka-last-trick"
    close_modals()
    play_random(s, Random(9), lambda s: s.view.get("sheet") and s.view.get("phase") != "play"
                and s.view.get("phase") != "bidding")
    settle()
    yield "teka-hand-summary"
    close_modals()
    play_random(s, Random(9), lambda s: False)
    settle()
    close_modals()
    yield "teka-end"
    from client_kivy.widgets.teka_table import ScoreSheet

    sheet = ScoreSheet(s.view)
    sheet.open(animation=False)
    testing.pump(6)
    yield "teka-scoresheet"
    sheet.dismiss(animation=False)
    testing.pump(2)

    # replay of the Teka match, every hand shown, a few cards into the first hand
    tmodel = ReplayModel("teka", s.events, s.players)
    tmodel.seek(1)
    tmodel.next_mark(1)
    tmodel.seek(tmodel.index + 12)
    app.open_replay(tmodel, "Replay: " + table_title("teka", s.players), "saved")
    settle()
    yield "replay-teka"

    # replay of the Teeko game, scrubbed halfway
    rec = [r for r in app.store.list() if r["game"] == "teeko" and r.get("finished")]
    full = app.store.load(rec[0]["id"])
    model = ReplayModel("teeko", full["events"], full["players"])
    model.seek(model.length // 2)
    app.open_replay(model, "Replay: " + table_title("teeko", full["players"]), "saved")
    settle()
    yield "replay"
    app.leave_game()
    app.show("saved")
    settle()
    yield "saved"
