"""What players hit on the tablet app, each driven by touch in the real offscreen
window (SDL offscreen driver, private KIVY_HOME)."""

from __future__ import annotations

import pytest
from test_client_gui import app, buttons, by_text, find, person, start_local  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = pytest.mark.gui

BOT = {"name": "Computer", "kind": "bot", "level": "easy"}


def bots(n):
    return [dict(BOT, name=f"Bot {i + 1}") for i in range(n)]


def test_a_new_game_shows_only_its_own_controls(app):  # noqa: F811
    """Teka (you + 3 bots) -> Menu -> Teeko -> Start: no Teka bid button on the Teeko screen,
    and the old buttons, if anything still held them, cannot reach the abandoned game."""
    teka = start_local(app, "teka", [person("You"), *bots(3)], {}, seed=11)
    assert testing.wait_until(lambda: any(c["type"] in ("bid", "keep") for c in teka.legal)
                              or teka.view.get("phase") == "play")
    old_screen = app.root.get_screen("game")
    old_buttons = [b for b in find(old_screen, "GButton")
                   if b.text not in ("< Menu", "Score sheet")]
    assert old_buttons
    record_id = teka.record["id"]
    logged = len(app.store.load(record_id)["events"])
    testing.tap(old_screen.ids.back)
    assert app.root.current == "home"
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teeko"))
    testing.tap(setup.ids.start)
    assert app.root.current == "game"
    screen = app.root.get_screen("game")
    texts = {b.text for b in find(screen, "GButton")}
    assert not texts & {"8", "9", "Pass", "Keep", "Throw in", "Score sheet"}, texts
    assert old_screen.parent is None and old_screen.session is None  # nothing outlives it
    for b in old_buttons:  # even a stale reference acts on nothing
        b.dispatch("on_release")
    testing.pump(3)
    assert len(app.store.load(record_id)["events"]) == logged
    assert not teka.send(teka.legal[0] if teka.legal else {"type": "bid", "call": 8})
    app.leave_game()


def test_resuming_tedoku_then_teeko_shows_no_tedoku_controls(app):  # noqa: F811
    s = start_local(app, "tedoku", [person("You")], {}, seed=3)
    testing.pump(3)
    assert "Rotate" in buttons(app.root.get_screen("game"))
    app.leave_game()
    home = app.root.get_screen("home")
    testing.pump(2)
    testing.tap(home.ids.resume)
    assert app.session.record["id"] == s.record["id"]
    app.leave_game()
    start_local(app, "teeko", [person("You"), person("Bob")], {}, seed=3)
    testing.pump(3)
    texts = set(buttons(app.root.get_screen("game")))
    assert not texts & {"Rotate", "Flip", "Tap the sheet", "Place here"}, texts
    app.leave_game()


def dialogs():
    from kivy.core.window import Window

    return [w for w in Window.children if type(w).__name__ == "ConfirmDialog"]


def press_back():
    """Escape on a keyboard, the Back key on Android (both are key 27 to Kivy)."""
    from kivy.core.window import Window

    handled = Window.dispatch("on_keyboard", 27, 0, "", [])
    testing.pump(3)
    return handled


def test_escape_mid_game_asks_before_leaving(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {}, seed=5)
    testing.pump(2)
    assert s.send(s.legal[0])
    assert press_back()  # the app keeps running: the key is taken, not passed on to quit
    assert app.root.current == "game" and app.session is s
    [dlg] = dialogs()
    assert "Leave" in dlg.question
    testing.tap(dlg.ids.no)  # Stay
    assert not dialogs() and app.root.current == "game" and not s.closed
    press_back()
    testing.tap(dialogs()[0].ids.yes)
    assert app.root.current == "home" and s.closed
    rec = app.store.load(s.record["id"])
    assert not rec["finished"] and len(rec["events"]) == len(s.events)  # kept to resume
    # on the home screen Back asks before quitting too
    assert press_back()
    [dlg] = dialogs()
    assert "Quit" in dlg.question
    testing.tap(dlg.ids.no)
    assert not dialogs()


def test_back_from_a_finished_game_and_other_screens_goes_back(app):  # noqa: F811
    app.show("setup")
    testing.pump(2)
    assert press_back() and app.root.current == "home" and not dialogs()
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {}, seed=6)
    s.send({"type": "resign"})
    testing.pump(2)
    assert s.outcome is not None
    assert press_back() and app.root.current == "home" and not dialogs()


def test_you_win_by_name(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("You")], {}, seed=7)
    testing.tap(buttons(app.root.get_screen("game").ids.actions)["Resign"])
    testing.tap(buttons(app.root.get_screen("game").ids.actions)["Sure? Tap again"])
    assert s.outcome is not None and s.outcome["winners"] == [1]
    status = app.root.get_screen("game").status
    assert status.startswith("You win ") and "wins" not in status, status
    app.leave_game()


def message(the_app):
    return the_app.root.get_screen("game").message


def test_illegal_taps_are_explained_and_teeko_taps_near_a_point_only(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {}, seed=8)
    screen = app.root.get_screen("game")
    board = screen.board
    testing.tap(board, *board.point("c3"))
    assert s.events[-1]["to"] == "c3"  # Ann placed c3; Bob to play
    before = len(s.events)
    testing.tap(board, *board.point("c3"))  # taken: said why, nothing sent
    assert len(s.events) == before
    assert "c3" in message(app) and "occupied" in message(app), message(app)
    # half a spacing away from c4 is no tap on c4 (nor on anything)
    x, y = board.point("c4")
    step = board.point("d4")[0] - x
    testing.tap(board, x + step * 0.45, y)
    testing.tap(board, x, y + step * 0.45)
    assert len(s.events) == before
    testing.tap(board, x + step * 0.2, y - step * 0.2)  # near the centre: c4
    assert len(s.events) == before + 1 and s.events[-1]["to"] == "c4"
    assert message(app) == ""
    app.leave_game()


def test_teka_unplayable_card_says_why(app):  # noqa: F811
    s = start_local(app, "teka", [person("Ann"), *bots(3)], {}, seed=21)
    screen = app.root.get_screen("game")
    table = screen.board
    from random import Random

    from bench.tour import play_random

    # play until Ann must follow suit with some card she may not play
    rng = Random(3)
    for _ in range(400):
        assert testing.wait_until(lambda: s.my_turn or s.outcome is not None)
        if s.view.get("phase") == "play" and set(table.model.hand()) - set(
                table.model.playable()):
            break
        play_random(s, rng, lambda s: True if not s.my_turn else False, limit=1)
        cmds = [c for c in s.legal if c["type"] not in ("resign", "raise")]
        s.send(rng.choice(cmds))
    testing.pump(3)
    bad = sorted(set(table.model.hand()) - set(table.model.playable()))[0]
    before = len(s.events)
    testing.tap(table, *table.card_point(bad))
    assert len(s.events) == before
    assert message(app), "no reason given for an unplayable card"
    app.leave_game()


def test_tedoku_does_not_fit_says_why(app):  # noqa: F811
    start_local(app, "tedoku", [person("Ann")], {}, seed=3)
    screen = app.root.get_screen("game")
    sheet = screen.board
    m = sheet.model
    m.choose(m.shapes()[0])
    reasons = set()
    for cell in ("A1", "I9", "E5", "A9", "I1", "A5", "E1", "I5", "E9"):
        testing.tap(sheet, *sheet.cell_center(cell))
        if m.ghost_command() is None:
            texts = {w.text for w in find(screen.ids.extra, "WrapLabel")}
            button = buttons(screen.ids.extra)["Does not fit"]
            assert not button.enabled
            why = [t for t in texts if t.startswith("Does not fit:")]
            assert why, texts
            reasons.add(why[0])
    assert reasons
    app.leave_game()


def test_draw_offer_feedback(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], {}, seed=9)
    screen = app.root.get_screen("game")
    testing.tap(buttons(screen.ids.actions)["Offer draw"])
    assert s.events[-1]["type"] == "draw_offered"
    assert "draw" in message(app).lower() and "Ann" in message(app), message(app)
    # the other player sees the offer and the answers (pass-and-play: Ann still to move)
    board = screen.board
    testing.tap(board, *board.point("a1"))
    assert message(app).startswith("Ann offers a draw"), message(app)
    assert "Accept draw" in buttons(screen.ids.actions)
    testing.tap(buttons(screen.ids.actions)["Decline draw"])
    assert "declined" in message(app).lower(), message(app)
    app.leave_game()


def test_take_back_against_the_computer(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), dict(BOT, level="easy")], seed=12)
    screen = app.root.get_screen("game")
    board = screen.board
    assert "Take back" not in buttons(screen.ids.actions)  # nothing to take back yet
    testing.tap(board, *board.point("c3"))  # a mis-tap...
    assert testing.wait_until(lambda: s.my_turn and len(s.events) == 3)  # bot answered
    testing.tap(buttons(screen.ids.actions)["Take back"])
    assert [e["type"] for e in s.events] == ["start"] and s.my_turn
    assert board.model.owner("c3") is None
    assert app.store.load(s.record["id"])["events"] == s.events  # the log is the prefix
    testing.tap(board, *board.point("b2"))
    assert testing.wait_until(lambda: s.my_turn and len(s.events) == 3)
    assert s.events[1]["to"] == "b2"
    app.leave_game()


def test_no_take_back_in_pass_and_play(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], seed=12)
    testing.tap(app.root.get_screen("game").board,
                *app.root.get_screen("game").board.point("c3"))
    assert len(s.events) == 2 and not s.can_undo
    assert "Take back" not in buttons(app.root.get_screen("game").ids.actions)
    app.leave_game()


def test_teka_bots_are_paced_and_a_finished_trick_stays(app):  # noqa: F811
    """You + 3 bots: a trick the bots finish stays on the table for a moment (or until the
    table is tapped); bot cards come one by one, not all at once."""
    import time
    from random import Random

    s = start_local(app, "teka", [person("Ann"), *bots(3)], seed=5)
    table = app.root.get_screen("game").board
    stamps = []  # (events in the log, time) at each change the screen is told of
    s.subscribe(lambda: stamps.append((len(s.events), time.monotonic(), s.view.get("phase"),
                                       len(s.view.get("trick") or []),
                                       table.model.showing_last())))
    rng = Random(1)
    for _ in range(300):
        assert testing.wait_until(lambda: s.my_turn or s.outcome is not None, 60)
        if s.view.get("phase") == "play" and len(s.view.get("tricks") or []) >= 3:
            break
        cmds = [c for c in s.legal if c["type"] not in ("resign", "raise")]
        s.send(rng.choice(cmds))
    # each play in the log with the time it came; a bot's card after a finished trick (a
    # bot's lead) came at least trick_pause later, and bot cards at least card_pause apart
    def came(index):
        """When the screen first heard of a log holding event ``index``."""
        return next((t for n, t, *_rest in stamps if n > index), None)

    from core.api import ALL

    state = s.game.initial()
    leads = set()  # indices of play events that lead a trick after a finished one
    for i, ev in enumerate(s.events):
        if ev.get("type") == "play":
            v = s.game.view(state, ALL)
            if not v.get("trick") and (v.get("last_trick") or {}).get("cards"):
                leads.add(i)
        state = s.game.evolve(state, ev)
    plays = [(i, e) for i, e in enumerate(s.events) if e.get("type") == "play"]
    leads_after_trick = []
    card_gaps = []
    for k in range(1, len(plays)):
        i, ev = plays[k]
        j, prev = plays[k - 1]
        ti, tj = came(i), came(j)
        if ev["seat"] == 0 or ti is None or tj is None:
            continue  # a person's card comes when they tap
        if i in leads:  # a bot leads after a finished trick: it stayed on the table first
            leads_after_trick.append(ti - tj)
        elif prev["seat"] != 0:
            card_gaps.append(ti - tj)
    assert leads_after_trick and min(leads_after_trick) >= s.trick_pause * 0.9, \
        leads_after_trick
    assert card_gaps and min(card_gaps) >= s.card_pause * 0.9, card_gaps
    app.leave_game()


def test_pass_and_play_tedoku_needs_no_hand_off(app):  # noqa: F811
    """Nothing secret is shown to the next person in Tedoku (the other drawings stay hidden
    until revealed), so no hand-off screen; Teka shows a hand, so it still asks, over the
    public table."""
    s = start_local(app, "tedoku", [person("Ann"), person("Bob")], seed=4)
    for _ in range(6):
        assert s.handoff is None
        place = next(c for c in s.legal if c["type"] == "place")
        s.send(place)
        testing.pump(2)
        assert app.root.get_screen("game").overlay is None
    app.leave_game()
    t = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dan")], seed=7)
    screen = app.root.get_screen("game")
    assert t.handoff is not None and screen.overlay is not None
    assert screen.board.model.hand() == [] and screen.board.view  # the table is drawn
    assert "N-S" in {w.text.split()[0] for w in find(screen.ids.extra, "WrapLabel")
                     if w.text}  # the score line stays beside it
    app.leave_game()


def test_delete_in_saved_games_asks_first(app):  # noqa: F811
    s = start_local(app, "tiku", [person("Ann"), person("Bob")], seed=4)
    app.leave_game()
    app.show("saved")
    testing.pump(3)
    saved = app.root.get_screen("saved")
    row = next(r for r in find(saved, "SavedRow") if r.game_id == s.record["id"])
    testing.tap(row.ids.delete)
    [dlg] = dialogs()
    testing.tap(dlg.ids.no)  # Keep
    assert any(r["id"] == s.record["id"] for r in app.store.list())
    row = next(r for r in find(saved, "SavedRow") if r.game_id == s.record["id"])
    testing.tap(row.ids.delete)
    testing.tap(dialogs()[0].ids.yes)
    assert not any(r["id"] == s.record["id"] for r in app.store.list())
    assert not any(r.game_id == s.record["id"] for r in find(saved, "SavedRow"))


def test_unreachable_server_is_said_in_words(app):  # noqa: F811
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app.show("connect")
    testing.pump(2)
    connect = app.root.get_screen("connect")
    connect.ids.address.text = f"127.0.0.1:{port}"
    connect.ids.name.text = "Ann"
    testing.tap(connect.ids.guest)
    assert testing.wait_until(lambda: connect.is_error), connect.message
    assert "Errno" not in connect.message and "Nothing answers at" in connect.message, \
        connect.message
    app.show("home")
    testing.pump(3)  # the connect screen is left (it stops listening for servers)


def test_bots_of_one_name_are_told_apart(app):  # noqa: F811
    s = start_local(app, "teka", [person("Ann")] + [dict(BOT, name="Bot")] * 3, seed=3)
    chips = app.root.get_screen("game").chips
    testing.pump(2)
    assert [c.name for c in chips] == ["Ann", "Bot East", "Bot South", "Bot West"]
    assert all("easy bot" in c.extra for c in chips[1:])
    assert "(bot" not in s.status_text()
    app.leave_game()


def test_teka_wording_and_replay_names(app):  # noqa: F811
    s = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dan")], seed=11)
    from random import Random

    from bench.tour import play_random

    play_random(s, Random(2), lambda s: s.view.get("phase") == "play" and s.handoff is None
                and bool(s.legal))
    if s.handoff is not None:
        s.confirm_handoff()
    testing.pump(3)
    screen = app.root.get_screen("game")
    texts = [w.text for w in find(screen.ids.extra, "WrapLabel")]
    assert not any("raised card" in t for t in texts), texts
    assert not any(b.startswith("Raise to") for b in buttons(screen.ids.extra))
    app.replay_session(s)
    testing.pump(2)
    replay = app.root.get_screen("replay")
    assert replay.board.players == ["Ann", "Bob", "Cleo", "Dan"]
    assert replay.board.name(1) == "Bob (East)"
    app.leave_game()


def test_tedoku_misfit_ghost_is_crossed_not_only_red(app):  # noqa: F811
    from kivy.graphics import Line

    s = start_local(app, "tedoku", [person("Ann")], seed=3)
    sheet = app.root.get_screen("game").board
    m = sheet.model

    def lines():
        return sum(isinstance(i, Line) for i in sheet.canvas.children)

    m.anchor = None
    sheet.changed()
    plain = lines()
    good = next(c for c in s.legal if c["type"] == "place")
    m.set_ghost_to(good)
    sheet.changed()
    fits = lines()
    m.anchor = (0, 0) if m.ghost_command() is not None else m.anchor
    for cell in ("I9", "A9", "E5", "A1"):
        m.tap(cell)
        if m.ghost_command() is None and m.misfit_command() is not None:
            break
    sheet.changed()
    assert m.ghost_command() is None
    crossed = lines()
    assert fits > plain and crossed >= plain + 2 * len(m.ghost_cells())
    app.leave_game()


def test_teka_end_of_hand_summary(app):  # noqa: F811
    from random import Random

    from kivy.core.window import Window

    from bench.tour import play_random

    s = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dan")], seed=13)
    play_random(s, Random(4), lambda s: bool(s.view.get("sheet")) or False)
    testing.pump(3)
    shown = [w for w in Window.children if type(w).__name__ == "HandSummary"]
    assert len(shown) == 1, shown
    texts = " / ".join(w.text for w in find(shown[0], "WrapLabel"))
    assert "Hand 1 is over" in texts and "Match: N-S" in texts and "Tricks:" in texts, texts
    testing.tap(by_text(shown[0], "Next hand"))
    assert not [w for w in Window.children if type(w).__name__ == "HandSummary"]
    app.leave_game()


def test_rematch_after_a_finished_game(app):  # noqa: F811
    s = start_local(app, "teeko", [person("Ann"), person("Bob")], seed=14)
    screen = app.root.get_screen("game")
    testing.tap(buttons(screen.ids.actions)["Resign"])
    testing.tap(buttons(screen.ids.actions)["Sure? Tap again"])
    assert s.outcome is not None
    testing.tap(screen.banner.ids.again)  # (Rematch: on the end banner, once)
    again = app.session
    assert again is not s and s.closed and again.outcome is None
    assert again.players == s.players and len(again.events) == 1
    assert app.root.get_screen("game") is not screen  # a new screen for the new game
    app.leave_game()


def test_settings_name_bot_speed_and_think_time(app):  # noqa: F811
    app.show("home")
    testing.pump(2)
    testing.tap(app.root.get_screen("home").ids.settings)
    assert app.root.current == "settings"
    screen = app.root.get_screen("settings")
    screen.ids.name.text = "Zoe"
    testing.tap(by_text(screen, "Fast"))
    testing.tap(by_text(screen, "2 s"))
    testing.tap(screen.ids.back)
    assert app.root.current == "home"
    assert app.settings.get("name") == "Zoe"
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teka"))
    assert setup.players()[0]["name"] == "Zoe"
    testing.tap(setup.ids.start)
    s = app.session
    assert s.bot_time_limit == 2.0 and s.pause_before({"phase": "play"}) == 0.0
    app.leave_game()
    # back to the defaults for the other tests
    app.settings.set("bot_pace", 1.0)
    app.settings.set("bot_think", 8.0)
    app.settings.set("name", "")
