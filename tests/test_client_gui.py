"""The real app in a headless window, driven by touches (SDL offscreen driver)."""

from __future__ import annotations

from random import Random

import pytest

from bench import testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return testing.start_app(str(tmp_path_factory.mktemp("client")))


@pytest.fixture
def tablet_after(app):
    """After the test: no game open (the home screen) and the window a tablet on its side
    again (1280x800), whatever size the test chose."""
    yield
    app.leave_game()
    testing.set_size(1280, 800)


def find(root, cls_name):
    out = []
    stack = [root]
    while stack:
        w = stack.pop()
        if type(w).__name__ == cls_name:
            out.append(w)
        stack.extend(w.children)
    return out


def by_text(root, text):
    hits = [w for w in find(root, "GButton") + find(root, "GToggle") + find(root, "ShapeChip")
            if w.text == text]
    assert hits, f"no button {text!r}"
    return hits[0]


def winning_move(session, moves):
    from core.api import apply

    for c in moves:
        state, _ = apply(session.game, session.state, session.viewer, c, Random(0))
        if session.game.outcome(state) is not None:
            return c
    return None


def test_window_renders(app, tmp_path):
    from kivy.core.window import Window

    app.show("home")
    testing.pump(5)
    path = testing.screenshot(str(tmp_path / "home.png"))
    # the felt background and the brass title are really drawn (not a black frame)
    from kivy.core.image import Image as CoreImage

    img = CoreImage(path, keep_data=True)
    w, h = img.texture.size
    colours = {tuple(img.read_pixel(x, y)[:3])
               for x in range(0, w, w // 16) for y in range(0, h, h // 16)}
    assert len(colours) > 2
    assert Window.size[0] > 0


def test_teeko_against_bot_by_touch(app):
    app.show("home")
    testing.pump(3)
    home = app.root.get_screen("home")
    testing.tap(home.ids.play_here)
    assert app.root.current == "setup"
    setup = app.root.get_screen("setup")
    testing.pump(3)
    testing.tap(by_text(setup, "Teeko"))
    # Black: the easy bot; a move cap so the game surely ends
    testing.tap(by_text(setup.rows[1], "Easy"))
    testing.tap(by_text(setup, "200 plies"))
    testing.tap(setup.ids.start)
    assert app.root.current == "game", setup.error
    screen = app.root.get_screen("game")
    session = app.session
    assert session.players[1] == {"name": "Computer", "kind": "bot", "level": "easy"}
    board = screen.board
    rng = Random(7)
    plies = 0
    while session.outcome is None:
        assert testing.wait_until(lambda: session.my_turn or session.outcome is not None)
        if session.outcome is not None:
            break
        assert "Your turn" in screen.status
        moves = [c for c in session.legal if c["type"] in ("place", "move")]
        cmd = winning_move(session, moves) or rng.choice(moves)
        before = len(session.events)
        if cmd["type"] == "move":
            testing.tap(board, *board.point(cmd["from"]))
            assert board.model.selected == cmd["from"]
            assert cmd["to"] in board.model.targets()
        testing.tap(board, *board.point(cmd["to"]))
        assert len(session.events) > before, f"tap did not play {cmd}"
        assert session.events[before]["to"] == cmd["to"]
        plies += 1
        assert plies < 200
    testing.pump(3)
    assert screen.status == app.session.status_text()
    # (the easy bot's choices are its own: either side may win, "You win" when it is us)
    assert any(w in screen.status for w in ("wins", "You win", "Draw")), screen.status
    if session.outcome["reason"] == "pattern":
        assert len(board.model.winning()) == 4
    # the finished game is on the device and replays by slider
    testing.tap(by_text(screen, "Replay"))
    assert app.root.current == "replay"
    replay = app.root.get_screen("replay")
    n = replay.model.length
    assert n == len(session.events)
    slider = replay.ids.slider
    slider.value = 3
    testing.pump(2)
    assert replay.model.index == 3
    assert sum(len(p) for p in replay.board.model.view["pieces"]) == 2
    testing.tap(replay.ids.last)
    assert replay.model.index == n
    testing.tap(replay.ids.prev)
    assert replay.model.index == n - 1
    replay.model.seek(1)  # far from the end: autoplay (0.6 s a step) cannot finish meanwhile
    testing.tap(replay.ids.play)
    assert replay.playing
    testing.tap(replay.ids.play)
    assert not replay.playing
    testing.tap(replay.ids.first)
    assert replay.model.index == 0
    saved = app.store.list()
    assert saved and saved[0]["finished"]


def start_local(app, game, players, options=None, seed=1):
    """Start a local game the way the set-up screen does (bots in threads, via Clock)."""
    session = app.start_local_game(game, players, options or {}, seed=seed)
    testing.pump(3)
    return session


def person(name):
    return {"name": name, "kind": "human", "level": ""}


def buttons(screen):
    return {b.text: b for b in find(screen, "GButton")}


def test_teka_pass_and_play_handoff_bid_and_trick(app):
    players = [person("Ann"), person("Bob"), person("Cleo"), person("Dan")]
    s = start_local(app, "teka", players, seed=11)
    screen = app.root.get_screen("game")
    table = screen.board
    # hidden hands: nothing is shown before the tablet is handed over
    assert s.handoff is not None and screen.overlay is not None
    first = s.handoff
    assert screen.handoff_name == s.player_name(first)
    assert table.model.hand() == []  # the spectator view while the overlay is up
    testing.tap(screen.overlay.ids.show)
    assert screen.overlay is None and s.handoff is None
    assert len(table.model.hand()) == 13
    # throw-in questions, then bidding: every call is a button
    rounds = 0
    while s.view.get("phase") in ("throw_in", "bidding", "trumps") and rounds < 40:
        rounds += 1
        if s.handoff is not None:
            who = s.handoff
            testing.tap(screen.overlay.ids.show)
            assert s.viewer == who
            continue
        b = buttons(screen.ids.extra)
        before = len(s.events)
        if "Keep" in b:
            testing.tap(b["Keep"])
        elif s.view["phase"] == "bidding":
            calls = [c["call"] for c in s.legal if c["type"] == "bid"]
            assert "Pass" in b or 8 in calls
            # the first bidder bids 9, the others pass (the dealer, if forced, bids 8+)
            text = "9" if not s.view.get("bids") else ("Pass" if "Pass" in b else str(calls[0]))
            testing.tap(b[text])
        else:
            trumps = [t for t in b if t.endswith("Hearts")]
            suits = ("Spades", "Hearts", "Diamonds", "Clubs")
            assert len([t for t in b if t.split()[-1] in suits]) == 4
            testing.tap(b[trumps[0]])
        assert len(s.events) > before
    assert s.view["phase"] == "play"
    assert s.view["contract"]["bid"] >= 8
    # a whole trick by touch: select a playable card, then play it (one with a signal)
    for k in range(4 if s.view.get("sitting_out") is None else 3):
        if s.handoff is not None:
            testing.tap(screen.overlay.ids.show)
        card = table.model.playable()[0]
        testing.tap(table, *table.card_point(card))
        assert table.model.selected == card
        before = len(s.events)
        if k == 0:
            testing.tap(buttons(screen.ids.extra)["+ slam"])
            assert s.events[before] == {"type": "play", "seat": s.events[before]["seat"],
                                        "card": card, "signal": "slam"}
        else:
            testing.tap(table, *table.card_point(card))  # a second tap plays it plain
            assert s.events[before]["card"] == card
    assert len(s.view["tricks"]) == 1
    sheet_button = buttons(screen.ids.extra)["Score sheet"]
    testing.tap(sheet_button)
    from kivy.core.window import Window

    sheets = [w for w in Window.children if type(w).__name__ == "ScoreSheet"]
    assert sheets
    sheets[0].dismiss(animation=False)
    testing.pump(2)


def test_tedoku_place_with_rotate_and_flip(app):
    s = start_local(app, "tedoku", [person("Ann")], {"bonus": True}, seed=3)
    screen = app.root.get_screen("game")
    sheet = screen.board
    m = sheet.model
    placed = 0
    for _ in range(5):
        if s.outcome is not None:
            break
        b = buttons(screen.ids.extra)
        shapes = [c for c in s.legal if c.get("type") == "place" and c["shape"] not in
                  ("B1", "B2", "B4")]
        if not shapes:
            testing.tap(b["Skip (no room)"])
            continue
        target = shapes[len(shapes) // 3]
        want = set(target["cells"])
        # work out the rotations, flip and cell that put the ghost there...
        from client_kivy.vm.tedoku import SHAPE_NAMES, TedokuModel

        plan = TedokuModel()
        plan.update(s.view, s.legal, 0)
        plan.choose(target["shape"])
        steps = None
        for flip in (False, True):
            for rot in range(4):
                plan.rotation, plan.flipped = rot, flip
                for cell in target["cells"]:
                    plan.tap(cell)
                    if {f"{'ABCDEFGHI'[r]}{c + 1}" for r, c in plan.ghost()} == want:
                        steps = (rot, flip, cell)
                        break
                if steps:
                    break
            if steps:
                break
        assert steps is not None
        # ...then do it by touch: shape chip, Rotate, Flip, tap the sheet
        chips = {t.text: t for t in find(screen.ids.extra, "ShapeChip")}
        testing.tap(chips[SHAPE_NAMES[target["shape"]]])
        assert m.shape == target["shape"]
        for _ in range(steps[0]):
            testing.tap(buttons(screen.ids.extra)["Rotate"])
        if steps[1]:
            testing.tap(buttons(screen.ids.extra)["Flip"])
        assert (m.rotation, m.flipped) == steps[:2]
        testing.tap(sheet, *sheet.cell_center(steps[2]))
        assert {f"{'ABCDEFGHI'[r]}{c + 1}" for r, c in m.ghost()} == want
        place = buttons(screen.ids.extra)["Place here"]
        assert place.enabled
        before = s.view["turn"]
        testing.tap(place)
        placed += 1
        assert s.view["turn"] == before + 1 or s.outcome is not None
        mine = s.view["players"][0]
        filled = {f"{'ABCDEFGHI'[r]}{c + 1}" for r, row in enumerate(mine["sheet"])
                  for c, ch in enumerate(row) if ch == "#"}
        assert want <= filled
    assert placed >= 3
    # an illegal spot shows a red ghost and a disabled button
    if s.outcome is None and m.legal:
        m.choose(m.shapes()[0])
        for cell in ("A1", "I9", "E5", "A9", "I1"):
            testing.tap(sheet, *sheet.cell_center(cell))
            if m.ghost_command() is None:
                assert not buttons(screen.ids.extra)["Does not fit"].enabled
                break


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_online_teeko_through_the_lobby(app, daphne_server, server_runtime):
    """Connect screen -> lobby -> new table with a server bot -> a whole game by touch ->
    the finished game replayed from the lobby."""
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.online)
    assert app.root.current == "connect"
    connect = app.root.get_screen("connect")
    connect.ids.address.text = f"127.0.0.1:{daphne_server.port}"
    connect.ids.name.text = "Ann"
    testing.tap(connect.ids.guest)
    assert testing.wait_until(lambda: app.root.current == "lobby"), connect.message
    assert app.settings.get("server") == daphne_server.http
    lobby = app.root.get_screen("lobby")
    testing.tap(lobby.ids.new_table)
    setup = app.root.get_screen("setup")
    assert app.root.current == "setup" and setup.online
    testing.tap(by_text(setup, "Teeko"))
    testing.tap(by_text(setup.rows[1], "Easy"))
    testing.tap(by_text(setup, "200 plies"))
    assert setup.players()[0]["kind"] == "me"
    testing.tap(setup.ids.start)
    assert testing.wait_until(lambda: app.root.current == "game"), setup.error
    screen = app.root.get_screen("game")
    session = app.session
    assert session.kind == "remote" and session.seat == 0
    assert testing.wait_until(lambda: session.connection == "online")
    # (no game-wide code any more: each seat has its own, shared from the table screen)
    assert "code" not in screen.title
    board = screen.board
    rng = Random(5)
    plies = 0
    while session.outcome is None:
        assert testing.wait_until(lambda: session.my_turn or session.outcome is not None), \
            session.status_text()
        if session.outcome is not None:
            break
        assert screen.status == "Your turn"
        moves = [c for c in session.legal if c["type"] in ("place", "move")]
        cmd = remote_winning(session, moves) or rng.choice(moves)
        seq = session.seq
        if cmd["type"] == "move":
            testing.tap(board, *board.point(cmd["from"]))
        testing.tap(board, *board.point(cmd["to"]))
        assert testing.wait_until(lambda: session.seq > seq)  # noqa: B023
        plies += 1
        assert plies < 150
    testing.pump(3)
    assert "wins" in screen.status or "Draw" in screen.status
    # back to the lobby: the game is among the finished ones, and replays
    testing.tap(screen.ids.back)
    assert app.root.current == "lobby"
    testing.tap(lobby.ids.tab_finished)
    assert testing.wait_until(lambda: any(
        g["id"] == session.game_id for g in app.lobby.games.get("finished", [])))
    assert testing.wait_until(lambda: not app.lobby.busy)
    testing.pump(3)
    replay_buttons = [b for b in find(lobby, "GButton") if b.text == "Replay"]
    assert replay_buttons
    testing.tap(replay_buttons[0])
    assert testing.wait_until(lambda: app.root.current == "replay"), app.lobby.error
    replay = app.root.get_screen("replay")
    assert replay.model.length == session.seq
    replay.ids.slider.value = replay.model.length
    testing.pump(2)
    assert replay.model.outcome() == session.outcome


def remote_winning(session, moves):
    from core.api import apply

    state = session.game.resample(session.view, session.seat, Random(0))
    for c in moves:
        after, _ = apply(session.game, state, session.seat, c, Random(0))
        if session.game.outcome(after) is not None:
            return c
    return None


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_watch_a_live_teka_match(app, daphne_server, server_runtime):
    """A spectator sees a live Teka match of four server bots: public information only."""
    from client_kivy.vm.net import Api

    if not app.lobby.connected or app.lobby.api.base != daphne_server.http:
        app.lobby.connect(daphne_server.http, name="Watcher")
        assert testing.wait_until(lambda: app.lobby.connected and
                                  app.lobby.api.base == daphne_server.http)
    game = Api(daphne_server.http).create(
        "teka", {}, [{"kind": "bot", "level": "easy"} for _ in range(4)])
    app.online_play(game, None, "")
    session = app.session
    screen = app.root.get_screen("game")
    table = screen.board
    assert testing.wait_until(lambda: session.connection == "spectating")
    assert testing.wait_until(lambda: session.view.get("phase") == "play"
                              and session.view.get("trick")), session.view.get("phase")
    view = session.view  # the frame as it came (bots play on meanwhile)
    assert session.viewer == -1 and session.legal == []
    assert view["hand"] == [] and "hands" not in view
    assert sum(view["counts"]) > 0
    from client_kivy.vm.teka import TekaModel
    frame = TekaModel()
    frame.update(view, [], -1)  # the frame as it came: mid-trick, so a contract stands
    assert frame.hand() == [] and frame.contract_text()
    testing.pump(2)
    # the bots play on meanwhile (the hand may end and the next be dealt), but whatever
    # frame the table now shows, no one's cards are shown to a spectator
    assert table.model.hand() == []
    if table.model.view.get("phase") == "play":
        assert table.model.contract_text()
    assert screen.connection.startswith("* Watching")
    app.leave_game()


def test_resign_asks_once_more(app):
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], seed=2)
    screen = app.root.get_screen("game")
    resign = buttons(screen.ids.actions)["Resign"]
    testing.tap(resign)
    assert s.outcome is None and resign.text.startswith("Sure")
    testing.tap(resign)
    testing.pump(2)
    assert s.outcome == {"winners": [1], "reason": "resign", "scores": []}
    assert "Bob wins" in screen.status


def test_continue_the_last_unfinished_game(app):
    s = start_local(app, "tiku", [person("Ann"), person("Bob")], seed=4)
    move = next(c for c in s.legal if c["type"] == "move")
    assert s.send(move)
    app.leave_game()
    testing.pump(2)
    home = app.root.get_screen("home")
    assert app.root.current == "home" and home.resume_id == s.record["id"]
    testing.tap(home.ids.resume)
    assert app.root.current == "game"
    again = app.session
    assert again is not s and again.events == s.events and again.to_act == [s.to_act[0]]
    app.leave_game()
