"""The app's defects found by touch at 360x740, 740x360, 800x1280 and 1280x800: each test
drives the real offscreen window by touch and fails on the code before its fix."""

from __future__ import annotations

from random import Random

import pytest
from server_helpers import seat_code
from test_client_gui import app, buttons, by_text, find, person, start_local  # noqa: F401

from bench import layoutcheck, testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def back_to_tablet_size(app, request):  # noqa: F811
    if "daphne_server" in request.fixturenames:  # (made first: it stops after the app left)
        request.getfixturevalue("daphne_server")
    yield
    app.leave_game()
    testing.set_size(1280, 800)


at = testing.set_size_dp


def bot(name="Computer", level="easy"):
    return {"name": name, "kind": "bot", "level": level}


def finish(s, seed=1):
    """Random legal moves (placements and moves, no resign) until the game is over."""
    rng = Random(seed)
    while s.outcome is None:
        if s.handoff is not None:
            s.confirm_handoff()
            continue
        moves = [c for c in s.legal if c.get("type") not in
                 ("resign", "offer_draw", "accept_draw", "decline_draw")]
        s.send(rng.choice(moves))


# -- 1. saved games: Resume and Delete inside the window at every size ------------------------
@pytest.mark.parametrize("size", [(1280, 800), (800, 1280), (740, 360), (360, 740)])
def test_saved_games_rows_keep_resume_and_delete_in_the_window(app, size):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {"move_cap": 200}, seed=2)
    s.send(next(c for c in s.legal if c["type"] == "place"))
    done = start_local(app, "teeko", [person("Ann"), person("Bob")], {"move_cap": 200}, seed=3)
    finish(done)
    app.leave_game()
    at(*size)
    testing.tap(app.root.get_screen("home").ids.saved)
    assert app.root.current == "saved"
    screen = app.root.get_screen("saved")
    rows = find(screen, "SavedRow")
    assert len(rows) >= 2
    assert layoutcheck.problems(app, "saved") == []
    from kivy.core.window import Window

    for row in rows:
        for b in (row.ids.open, row.ids.delete):
            x, _y = testing.window_point(b, b.x, b.y)
            assert x >= 0 and x + b.width <= Window.width + 1, (b.text, x, b.width)
            rx, _ = testing.window_point(row, row.x, row.y)
            assert x + b.width <= rx + row.width + 1, f"{b.text!r} past its row"
        assert row.ids.open.text in ("Resume", "Replay")
        assert "".join(layoutcheck.rendered_text(row.ids.open).split()) == row.ids.open.text
    # the Resume button of the game in play opens it, by touch
    row = next(r for r in rows if r.ids.open.text == "Resume")
    testing.tap(row.ids.open)
    assert app.root.current == "game"


# -- 2. the rules button names the game chosen -------------------------------------------------
def test_the_setup_rules_button_names_the_game_chosen_offline_and_online(app):  # noqa: F811
    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    for game in ("Tiku", "Tedoku", "Teka", "Teeko"):
        testing.tap(by_text(setup, game))
        rules = setup.ids.rules
        assert rules.text == f"Rules of {game}"
        assert "".join(layoutcheck.rendered_text(rules).split()) == f"Rulesof{game}"
        testing.tap(rules)
        assert app.root.current == "rules"
        assert app.root.get_screen("rules").title == f"Rules of {game}"
        testing.tap(app.root.get_screen("rules").ids.back)
        assert app.root.current == "setup"
    setup.online = True
    testing.pump(2)
    testing.tap(by_text(setup, "Teka"))
    assert "".join(layoutcheck.rendered_text(setup.ids.rules).split()) == "RulesofTeka"
    setup.online = False
    app.show("home")


# -- 5. take back after the end: the banner goes -----------------------------------------------
def test_take_back_after_the_game_is_over_removes_the_end_banner(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), bot()], seed=4)
    s.pace = 0
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: s.my_turn)
    testing.tap(screen.board, *screen.board.point("c3"))
    assert testing.wait_until(lambda: s.my_turn and len(s.events) >= 3)
    # Ann resigns: the game is over, the banner is up
    testing.tap(buttons(screen.ids.actions)["Resign"])
    testing.tap(buttons(screen.ids.actions)["Sure? Tap again"])
    assert s.outcome is not None
    assert screen.banner is not None
    testing.tap(buttons(screen.ids.actions)["Take back"])
    assert s.outcome is None
    testing.pump(3)
    assert screen.banner is None
    assert not [w for w in find(screen, "EndBanner")]
    assert "Game over" not in [w.text for w in find(screen, "WrapLabel")]
    # the end comes again: the banner with it
    testing.tap(buttons(screen.ids.actions)["Resign"])
    testing.tap(buttons(screen.ids.actions)["Sure? Tap again"])
    testing.pump(3)
    assert s.outcome is not None and screen.banner is not None


# -- 6. seat names follow the seat's kind ------------------------------------------------------
def test_seat_names_follow_the_kind_chosen(app):  # noqa: F811
    app.settings.set("name", "")
    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teeko"))
    first, second = setup.rows
    assert first.ids.name.text == "You" and second.ids.name.text == "Computer"
    testing.tap(by_text(first, "Easy"))  # the first seat made a bot
    assert first.ids.name.text != "You"
    testing.tap(by_text(second, "Person"))  # the computer's seat made a person
    assert second.ids.name.text != "Computer"
    assert second.ids.name.text == "Black"
    testing.tap(by_text(first, "Person"))
    assert first.ids.name.text == "White"
    # a name typed by hand stays
    second.ids.name.text = "Bob"
    testing.tap(by_text(second, "Easy"))
    assert second.ids.name.text == "Bob"
    testing.tap(by_text(first, "Easy"))
    testing.tap(setup.ids.start)
    s = app.session
    assert s.players[0]["kind"] == "bot" and s.players[0]["name"] != "You"
    testing.pump(2)
    assert not app.root.get_screen("game").status.startswith("You ")


# -- 10. a tap on a line of the move list jumps the replay there -------------------------------
def test_tapping_a_move_list_line_jumps_the_replay_there(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], seed=5)
    finish(s, 5)
    testing.pump(3)
    testing.tap(by_text(app.root.get_screen("game"), "Replay"))
    replay = app.root.get_screen("replay")
    assert app.root.current == "replay"
    testing.tap(replay.ids.first)
    assert replay.model.index == 0
    testing.tap(by_text(replay, "Moves"))
    view = replay.moves_view
    assert view is not None
    assert view.lines[2].startswith("3. ")
    testing.tap(*view.line_point(2))
    # the position after the third move is shown, and marked in the list
    assert replay.model.index == 4  # first_player, then three placements
    assert view.current == 2
    assert sum(len(p) for p in replay.board.model.view["pieces"]) == 3


# -- 7. online titles and the lobby follow the table ------------------------------------------
def test_online_title_and_lobby_follow_who_sits_down(app, daphne_server, server_runtime):  # noqa: F811
    from test_client_gui_clocks import connect_lobby

    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teka", {}, [{"kind": "open"}, {"kind": "open"},
                                   {"kind": "bot", "level": "easy"},
                                   {"kind": "bot", "level": "easy"}],
                      join={"seat": 0, "name": "Ann"}, public=True)  # (in every lobby)
    app.online_play(game, 0, game["joined"]["secret"])
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.connection == "online")
    testing.pump(3)
    assert "(open)" in screen.title and "Bot (easy)" not in screen.title, screen.title
    api.join_code(seat_code(game, 1), "Bob")  # Bob sits down from another device
    assert testing.wait_until(lambda: "Bob" in screen.title), screen.title
    assert "(open)" not in screen.title
    assert screen.title.startswith("Teka: Ann v Bob v ")
    assert "  " not in screen.title, screen.title  # (no double space between the parts)
    # the lobby, back from the game, lists the table as it is now
    testing.tap(screen.ids.back)
    testing.pump(2)
    if app.root.current != "lobby":  # "Leave this game?": leave (the seat is kept)
        from kivy.core.window import Window

        dialog = next(w for w in Window.children if type(w).__name__ == "ConfirmDialog")
        testing.tap(next(b for b in find(dialog, "GButton") if b.text == dialog.yes_text))
    assert app.root.current == "lobby"
    lobby = app.root.get_screen("lobby")
    lobby.tab = "live"  # (an earlier test of the same app may have left it on "finished")
    app.lobby.refresh()

    def row_text():
        return " ".join(r.text for r in find(lobby, "LobbyRow") if f"#{game['id']} " in r.text)

    # the lobby refreshes on entering and every 5 s (a thread, over HTTP): on a loaded
    # machine that may take a few rounds
    assert testing.wait_until(lambda: "Bob" in row_text()), (row_text(), app.lobby.error)
    assert "(open)" not in row_text()
    app.lobby.logout()


# -- 4. the rules screen speaks to players -----------------------------------------------------
DEV_NOTATION = [
    (r"\b(?:[2-9TJQKA])[SHDC]\b", "a card in notation (TH)"),
    (r"\b[a-z]+_[a-z_]+\b", "a snake_case name"),
    (r"\bseats? [0-9]\b", "a seat by number"),
    (r"\bside [01]\b", "a side by number"),
    (r"[{}`]", "code"),
]


def shown_rules_text(app, game):  # noqa: F811
    """The rules screen's text for ``game``, reached from the set-up screen by touch."""
    import re

    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, game.capitalize()))
    testing.tap(setup.ids.rules)
    assert app.root.current == "rules"
    screen = app.root.get_screen("rules")
    text = "\n".join(w.text for w in find(screen, "WrapLabel") if w.text)
    testing.tap(screen.ids.back)
    return re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", text)


def test_the_rules_screen_has_rules_for_players_not_the_specification(app):  # noqa: F811
    import re

    from client_kivy.vm import options as opts

    for game in ("teeko", "tiku", "tedoku", "teka"):
        text = shown_rules_text(app, game)
        assert len(text) > 1500, game
        for pattern, what in DEV_NOTATION:
            hits = re.findall(pattern, text, flags=re.I if "seat" in pattern else 0)
            assert not hits, f"{game}: {what} shown: {hits[:5]}"
        # the table rules by the names and choices the set-up screen shows
        for _key, label, values in opts.option_choices(game):
            assert label in text, f"{game}: option {label!r} not named as on the set-up"
            for _value, vlabel in values:
                assert vlabel in text, f"{game}: choice {vlabel!r} of {label!r} not named"
    teka = shown_rules_text(app, "teka")
    assert all(s in teka for s in "♠♥♦♣")
    assert all(w in teka for w in ("North", "East", "South", "West"))
    assert "Light" in shown_rules_text(app, "tiku") and "Black" in shown_rules_text(app, "teeko")


# -- 3. what the player needs now is in view without scrolling -------------------------------
def in_view(w):
    """Whether ``w`` lies inside the visible part of its scroll view (or the window)."""
    from kivy.core.window import Window

    x, y = testing.window_point(w, w.x, w.y)
    sv = testing.scroll_parent(w)
    if sv is None:
        bx, by, bw, bh = 0, 0, Window.width, Window.height
    else:
        bx, by = testing.window_point(sv, sv.x, sv.y)
        bw, bh = sv.width, sv.height
    return x >= bx - 1 and y >= by - 1 and x + w.width <= bx + bw + 1 \
        and y + w.height <= by + bh + 1


def test_teka_bid_buttons_in_view_on_a_phone_on_its_side(app):  # noqa: F811
    at(740, 360)
    s = start_local(app, "teka", [person("Ann"), bot("Bob"), bot("Cleo"), bot("Dan")], seed=21)
    s.pace = 0
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: (s.my_turn and s.view.get("phase") == "bidding")
                              or s.view.get("phase") == "play", 60)
    if s.view.get("phase") != "bidding":
        pytest.skip("this deal has no bid for Ann")
    testing.pump(4)
    calls = [b for b in find(screen.ids.extra, "GButton") if b.text in ("Pass", "8", "9")]
    assert calls, [b.text for b in find(screen.ids.extra, "GButton")]
    for b in calls:
        assert in_view(b), f"bid {b.text!r} is out of view (under the player chips)"
    testing.tap(next(b for b in calls if b.text == "Pass"))
    assert any(e.get("type") == "bid" and e.get("seat") == 0 for e in s.events)


def test_tedoku_misfit_reason_in_view_on_a_phone(app):  # noqa: F811
    at(360, 740)
    s = start_local(app, "tedoku", [person("Ann")], seed=3)
    screen = app.root.get_screen("game")
    sheet = screen.board
    for cell in ("I9", "A9", "E5", "A1", "I1", "C7"):
        testing.tap(sheet, *sheet.cell_center(cell))
        if sheet.model.ghost_command() is None and sheet.model.misfit_command() is not None:
            break
    assert sheet.model.ghost_command() is None
    testing.pump(4)
    [why] = [w for w in find(screen.ids.extra, "WrapLabel") if w.text.startswith("Does not fit:")]
    assert in_view(why), "the reason is below the visible panel"
    assert s.events  # nothing was sent by the misfit tap


# -- 8. Teka on a phone: the hand off your own plate, the plates off "Bidding" ---------------
def overlap(a, b):
    ax, ay, aw, ah = a[:4]
    bx, by, bw, bh = b[:4]
    return ax < bx + bw - 0.5 and bx < ax + aw - 0.5 and ay < by + bh - 0.5 and by < ay + ah - 0.5


@pytest.mark.parametrize("scale", ["1", "1.3"])
def test_teka_plates_clear_of_the_hand_and_of_bidding_on_phones(app, scale):  # noqa: F811
    app.settings.set("text_scale", float(scale))
    app.apply_text_scale()
    try:
        for size in ((360, 740), (740, 360)):
            at(*size)
            s = start_local(app, "teka", [person("Ann"), bot("Bob"), bot("Cleo"), bot("Dan")],
                            seed=21)
            s.pace = 0
            table = app.root.get_screen("game").board
            assert testing.wait_until(lambda s=s: s.my_turn
                                      and s.view.get("phase") == "bidding", 60)
            testing.pump(4)
            own = table.plates[s.viewer]
            cards = table._hand_rects
            assert cards
            hit = [c[4] for c in cards if overlap(own, c)]
            assert not hit, f"{size} at {scale}: the hand covers your plate ({hit})"
            word = table.labels["Bidding"]
            for seat, plate in table.plates.items():
                assert not overlap(word, plate), f"{size} at {scale}: seat {seat} over Bidding"
            app.leave_game()
    finally:
        app.settings.set("text_scale", 1.0)
        app.apply_text_scale()


# -- 9. the little things ----------------------------------------------------------------------
def test_an_old_refusal_goes_with_the_next_tap(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], seed=6)
    screen = app.root.get_screen("game")
    board = screen.board
    testing.tap(board, *board.point("c3"))  # Ann
    testing.tap(board, *board.point("c3"))  # Bob: refused
    testing.pump(3)
    assert "occupied" in screen.message
    (x1, y1), (x2, y2) = board.point("c3"), board.point("d4")
    testing.tap(board, (x1 + x2) / 2, (y1 + y2) / 2)  # between points: no tap on the board
    testing.pump(3)
    assert screen.message == "", screen.message
    testing.tap(board, *board.point("c3"))  # refused again: said again
    testing.pump(3)
    assert "occupied" in screen.message
    testing.tap(board, *board.point("d4"))  # Bob places: the line is clear
    testing.pump(3)
    assert screen.message == "" and len(s.events) == 3


def test_the_end_banner_offers_share_online(app, daphne_server, server_runtime):  # noqa: F811
    from test_client_gui_clocks import connect_lobby

    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    game = Api(daphne_server.http).create(
        "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
        join={"seat": 0, "name": "Ann"})
    app.online_play(game, 0, game["joined"]["secret"])
    screen = app.root.get_screen("game")
    session = app.session
    assert testing.wait_until(lambda: session.connection == "online" and session.legal)
    testing.pump(3)
    testing.tap(buttons(screen.ids.actions)["Resign"])
    testing.tap(buttons(screen.ids.actions)["Sure? Tap again"])
    assert testing.wait_until(lambda: screen.banner is not None)
    testing.pump(3)
    card = screen.banner.ids.card
    cx, cy = testing.window_point(card, card.x, card.y)

    def covered(b):
        x, y = testing.window_point(b, b.center_x, b.center_y)
        return cx <= x <= cx + card.width and cy <= y <= cy + card.height

    shares = [b for b in find(screen, "GButton") if b.text == "Share"]
    reachable = [b for b in shares if screen.banner in _ancestors(b) or not covered(b)]
    assert reachable, "Share is under the end banner"
    testing.tap(reachable[0])
    testing.pump(2)
    assert f"/games/{game['id']}/" in screen.message
    app.leave_game()
    app.lobby.logout()


def _ancestors(w):
    out = []
    while w is not None and w.parent is not w:
        out.append(w)
        w = w.parent
    return out


def test_the_phone_teeko_board_keeps_its_size_when_a_message_comes(app):  # noqa: F811
    at(360, 740)
    start_local(app, "teeko", [person("Ann"), person("Bob")], seed=6)
    screen = app.root.get_screen("game")
    board = screen.board
    testing.tap(board, *board.point("c3"))
    testing.pump(4)
    before = tuple(board.size)
    testing.tap(board, *board.point("c3"))  # refused: a message
    testing.pump(4)
    assert "occupied" in screen.message
    assert tuple(board.size) == before, (before, tuple(board.size))
    assert in_view(screen.ids.message)  # at the top of the panel, in view


def test_tedoku_drawings_are_told_apart_by_shape(app):  # noqa: F811
    from kivy.graphics import Color

    s = start_local(app, "tedoku", [person("Ann")], seed=8)
    sheet = app.root.get_screen("game").board

    def colours():
        testing.pump(3)
        sheet.changed()
        return {tuple(round(v, 3) for v in i.rgba) for i in sheet.canvas.children
                if isinstance(i, Color)}

    sheet.model.anchor = None
    before = colours()
    rng = Random(8)
    shapes = set()
    while len(shapes) < 3 and s.outcome is None:
        cmds = [c for c in s.legal if c.get("type") == "place"
                and c.get("shape") not in shapes and not str(c.get("shape")).startswith("B")]
        cmd = rng.choice(cmds or [c for c in s.legal if c.get("type") in ("place", "skip")])
        if cmd["type"] == "place":
            sheet.model.set_ghost_to(cmd)
            sheet.changed()
            testing.pump(3)
            testing.tap(by_text(app.root.get_screen("game").ids.extra, "Place here"))
            shapes.add(s.view["players"][0]["history"][-1]["shape"])
        else:
            s.send(cmd)
    assert len(shapes) >= 3
    sheet.model.anchor = None
    after = colours()
    assert len(after - before) >= len(shapes), (shapes, after - before)


@pytest.mark.parametrize("size", [(360, 740), (740, 360)])
def test_the_last_move_ring_leaves_the_coordinates_readable(app, size):  # noqa: F811
    at(*size)
    start_local(app, "teeko", [person("Ann"), person("Bob")], seed=6)
    board = app.root.get_screen("game").board
    for corner in ("a1", "e1", "a5"):
        testing.tap(board, *board.point(corner))
        testing.pump(3)
        cx, cy = board.point(corner)
        r = board.ring_radius
        ring = (cx - r, cy - r, 2 * r, 2 * r)
        for text, rect in board.coord_rects.items():
            # the ring is a circle: a coordinate's box corner nearest the centre
            nx = min(max(cx, rect[0]), rect[0] + rect[2])
            ny = min(max(cy, rect[1]), rect[1] + rect[3])
            inside = (nx - cx) ** 2 + (ny - cy) ** 2 < r * r
            assert not (overlap(ring, rect) and inside), f"the ring on {corner} covers {text!r}"


@pytest.mark.parametrize("size", [(1280, 800), (360, 740)])
def test_the_online_panel_has_no_empty_band(app, daphne_server, server_runtime, size):  # noqa: F811
    from test_client_gui_clocks import connect_lobby

    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    game = Api(daphne_server.http).create(
        "teeko", {}, [{"kind": "open"}, {"kind": "bot", "level": "easy"}],
        join={"seat": 0, "name": "Ann"})
    at(*size)
    app.online_play(game, 0, game["joined"]["secret"])
    s = app.session
    assert testing.wait_until(lambda: s.connection == "online" and s.legal)
    testing.pump(4)
    screen = app.root.get_screen("game")
    empty = [type(w).__name__ for w in screen.ids.inner.children
             if w.height > 1 and not w.children and not getattr(w, "text", "")
             and not w == screen.ids.message]
    assert not empty, f"empty bands in the panel: {empty}"
    testing.tap(screen.board, *screen.board.point("c3"))  # the panel's buttons still work
    assert testing.wait_until(lambda: len(s.events) >= 2)
    app.leave_game()
    app.lobby.logout()
