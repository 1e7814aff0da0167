"""Client view models without a window: local sessions, Teeko taps, replay, store, settings."""

from __future__ import annotations

from random import Random

import pytest

import core
from client_kivy.vm.session import LocalSession, ReplayModel
from client_kivy.vm.settings import Settings
from client_kivy.vm.store import LocalStore
from client_kivy.vm.teeko import TeekoModel

HUMAN = {"name": "Ann", "kind": "human", "level": ""}
BOT = {"name": "Computer", "kind": "bot", "level": "random"}


def test_settings_remembered(tmp_path):
    s = Settings(str(tmp_path))
    s.set("server", "http://192.168.1.5:8000")
    s.set("name", "Ann")
    again = Settings(str(tmp_path))
    assert again.get("server") == "http://192.168.1.5:8000"
    assert again.get("name") == "Ann"


def test_teeko_taps_place_then_move():
    game = core.GAMES["teeko"]
    s = LocalSession("teeko", [HUMAN, dict(HUMAN, name="Bob")], seed=1)
    m = TeekoModel()
    squares = ["a1", "e5", "b1", "d4", "c1", "c5", "a3", "e3"]
    for sq in squares:
        m.update(s.view, s.legal)
        assert sq in m.targets()
        cmd = m.tap(sq)
        assert cmd == {"type": "place", "to": sq}
        assert s.send(cmd)
    assert s.view["phase"] == "move"
    m.update(s.view, s.legal)
    assert m.targets() == set()  # nothing selected yet
    assert m.tap("a3") is None and m.selected == "a3"
    assert m.targets() == {"a2", "a4", "b2", "b3", "b4"}
    assert m.tap("e1") is None and m.selected is None  # not a target: deselect
    m.tap("a3")
    cmd = m.tap("b2")
    assert cmd == {"type": "move", "from": "a3", "to": "b2"}
    assert s.send(cmd)
    assert sorted(s.view["pieces"][0]) == ["a1", "b1", "b2", "c1"]
    assert s.to_act == [1] and s.viewer == 1  # pass-and-play: the view follows the turn
    assert not s.send({"type": "move", "from": "e5", "to": "c3"})  # not adjacent
    assert s.message.startswith("Refused")
    assert game.outcome(s.state) is None


def test_refused_command_message_and_no_change():
    s = LocalSession("teeko", [HUMAN, dict(HUMAN, name="Bob")], seed=1)
    before = len(s.events)
    assert s.send({"type": "place", "to": "c3"})
    assert not s.send({"type": "place", "to": "c3"})
    assert s.message.startswith("Refused")
    assert len(s.events) == before + 1


def test_bot_plays_sync_and_game_ends_with_winning_squares(tmp_path):
    store = LocalStore(str(tmp_path))
    s = LocalSession("teeko", [HUMAN, BOT], {"move_cap": 60}, store=store, seed=5)
    rng = Random(2)
    while s.outcome is None:
        assert s.to_act == [0] and s.my_turn
        moves = [c for c in s.legal if c["type"] in ("place", "move")]
        assert s.send(rng.choice(moves))
    assert s.outcome["reason"] in ("pattern", "move_cap")
    if s.outcome["reason"] == "pattern":
        assert len(s.view["winning_squares"]) == 4
    rec = store.list()[0]
    assert rec["finished"] and rec["game"] == "teeko"
    # the stored log replays to the same end
    full = store.load(rec["id"])
    replay = ReplayModel("teeko", full["events"], full["players"])
    replay.seek(replay.length)
    assert replay.outcome() == s.outcome
    assert replay.view["board"] == core.GAMES["teeko"].view(s.state, -2)["board"]


def test_resume_from_store(tmp_path):
    store = LocalStore(str(tmp_path))
    s = LocalSession("teeko", [HUMAN, BOT], store=store, seed=9)
    s.send({"type": "place", "to": "c3"})
    rec = store.load(store.list()[0]["id"])
    again = LocalSession("teeko", rec["players"], record=rec, store=store)
    assert again.view["board"] == s.view["board"]
    assert again.to_act == [0] and again.legal


def test_replay_scrub():
    s = LocalSession("teeko", [HUMAN, dict(HUMAN, name="Bob")], seed=1)
    for sq in ["a1", "e5", "b1", "d5"]:
        s.send({"type": "place", "to": sq})
    r = ReplayModel("teeko", s.events)
    assert r.length == 5
    r.seek(3)
    assert r.view["pieces"] == [["a1"], ["e5"]]
    r.step(-1)
    assert r.view["pieces"] == [["a1"], []]
    r.seek(99)
    assert r.index == 5
    assert "d5" in r.view["pieces"][1]


def test_bot_thread_posts_result():
    posted = []
    s = LocalSession("teeko", [BOT, HUMAN], post=posted.append, seed=3)
    s.start()
    assert s.thinking and "thinking" in s.status_text()
    import time

    deadline = time.time() + 120  # (only a hang takes this long)
    while s.thinking and time.time() < deadline:
        while posted:
            posted.pop(0)()
        time.sleep(0.01)
    assert not s.thinking
    assert s.to_act == [1] and s.my_turn
    assert len(s.view["pieces"][0]) == 1


@pytest.mark.parametrize("game", ["teeko"])
def test_sessions_fold_equals_live(game):
    players = [dict(BOT, name=f"B{i}") for i in range(core.GAMES[game].min_seats)]
    s = LocalSession(game, players, {"move_cap": 40} if game == "teeko" else None, seed=4)
    s.start()
    assert s.outcome is not None  # bots only, synchronous: plays to the end
    r = ReplayModel(game, s.events)
    r.seek(r.length)
    assert r.outcome() == s.outcome


def test_bot_progress_reaches_the_screen_fields():
    posted = []
    seen = []
    # "hard": enough search that even the compiled core reports progress between 0 and 1
    s = LocalSession("teeko", [HUMAN, dict(BOT, level="hard")], post=posted.append, seed=2)
    s.subscribe(lambda: seen.append((s.thinking, s.progress)))
    s.send({"type": "place", "to": "c3"})
    import time

    deadline = time.time() + 120  # (only a hang takes this long)
    while s.thinking and time.time() < deadline:
        while posted:
            posted.pop(0)()
        time.sleep(0.005)
    assert any(th and 0 < p < 1 for th, p in seen), seen
    assert not s.thinking and s.my_turn


def test_tiku_taps_and_diagonal_targets():
    from client_kivy.vm.tiku import TikuModel

    s = LocalSession("tiku", [HUMAN, dict(HUMAN, name="Bob")], {"diagonal": True}, seed=1)
    m = TikuModel()
    m.update(s.view, s.legal)
    piece = sorted(m.movable())[0]
    assert m.tap(piece) is None and m.selected == piece
    targets = m.targets()
    assert targets == {c["to"] for c in s.legal if c.get("from") == piece}
    assert m.diagonal_targets() and m.diagonal_targets() < targets
    diag = sorted(m.diagonal_targets())[0]
    cmd = m.tap(diag)
    assert cmd == {"type": "move", "from": piece, "to": diag}
    hands = list(s.view["hands"])
    assert s.send(cmd)
    moved = next(p for p in s.view["pieces"] if p["square"] == diag)
    assert moved["flipped"] is True
    assert sum(s.view["hands"]) < sum(hands)


def test_tedoku_every_legal_placement_reachable_by_rotate_flip_and_tap():
    from client_kivy.vm.tedoku import TedokuModel, cell_name

    s = LocalSession("tedoku", [HUMAN], {"bonus": True}, seed=4)
    rng = Random(1)
    for _turn in range(4):
        m = TedokuModel()
        m.update(s.view, s.legal, 0)
        places = [c for c in s.legal if c["type"] == "place"]
        assert places
        for cmd in places:
            m.set_ghost_to(cmd)
            assert {cell_name(r, c) for r, c in m.ghost()} == set(cmd["cells"])
            assert m.ghost_command() == cmd or (cmd["shape"] == "B4" and m.shape == "B4")
        # a ghost over a drawn cell (the tapped cell is always covered) is never a command
        filled = [cell_name(r, c) for r, row in enumerate(s.view["players"][0]["sheet"])
                  for c, ch in enumerate(row) if ch == "#"]
        for shape in m.shapes():
            m.choose(shape)
            for cell in filled:
                m.tap(cell)
                assert cell_name(*m.anchor) in {cell_name(r, c) for r, c in m.ghost()}
                assert m.ghost_command() is None
        assert s.send(rng.choice(places))


def test_teka_model_calls_cards_and_signals():
    from client_kivy.vm.teka import TekaModel, call_text

    s = LocalSession("teka", [dict(HUMAN, name=n) for n in "ABCD"], seed=5)
    s.confirm_handoff()
    m = TekaModel()
    guard = 0
    while s.view["phase"] != "play" and guard < 50:
        guard += 1
        if s.handoff is not None:
            s.confirm_handoff()
            continue
        m.update(s.view, s.legal, s.viewer)
        if m.bids():
            assert {call_text(c["call"]) for c in m.bids()} >= {"Pass"} or \
                any(isinstance(c["call"], int) for c in m.bids())
        s.send([c for c in s.legal if c["type"] not in ("resign", "raise")][-1])
    if s.handoff is not None:
        s.confirm_handoff()
    m.update(s.view, s.legal, s.viewer)
    assert m.position(s.viewer) == "bottom" and m.position((s.viewer + 2) % 4) == "top"
    card = m.playable()[0]
    assert m.tap_card(card) is None and m.selected == card
    assert m.play(card, "drop") == {"type": "play", "card": card, "signal": "drop"}
    cmd = m.tap_card(card)
    assert cmd == {"type": "play", "card": card}
    assert s.send(cmd)
    assert s.view["trick"][0]["card"] == card
    assert m.contract_text()


def test_options_and_teka_partner_draw_reseats_players():
    from client_kivy.vm.options import validated_options

    assert validated_options("tiku", {"points": "to10"}, 2)["target"] == 10
    assert validated_options("tedoku", {"bonus": True}, 3)["seats"] == 3
    names = [dict(HUMAN, name=n) for n in ("Ann", "Bob", "Cleo", "Dan")]
    reseated = 0
    for seed in range(6):
        s = LocalSession("teka", names, {"draw_for_partners": True}, seed=seed)
        draw = next(ev for ev in s.events if ev["type"] == "draw")
        assert [p["name"] for p in s.players] == [names[i]["name"] for i in draw["seating"]]
        reseated += draw["seating"] != [0, 1, 2, 3]
    assert reseated


def test_teka_raise_proposed_and_accepted_through_the_model():
    from client_kivy.vm.teka import TekaModel

    players = [dict(HUMAN, name=n) for n in "ABCD"]
    for seed in range(20):
        s = LocalSession("teka", players, seed=seed)
        # bid 8 with the first caller, everyone else passes; then trumps
        guard = 0
        while s.view["phase"] in ("throw_in", "bidding", "trumps") and guard < 30:
            guard += 1
            if s.handoff is not None:
                s.confirm_handoff()
                continue
            kinds = {c["type"] for c in s.legal}
            if "keep" in kinds:
                s.send({"type": "keep"})
            elif "bid" in kinds:
                calls = [c["call"] for c in s.legal if c["type"] == "bid"]
                s.send({"type": "bid", "call": 8 if not s.view["bids"] and 8 in calls
                        else "pass" if "pass" in calls else calls[0]})
            else:
                s.send(next(c for c in s.legal if c["type"] == "trumps"))
        if s.view["phase"] != "play" or s.view["contract"]["bid"] >= 13:
            continue
        bidder = s.view["contract"]["bidder"]
        m = TekaModel()
        # the declarer sees the raise buttons (also off turn): the session acts for the seat
        raises = [c for c in s.game.legal_commands(s.state, bidder) if c["type"] == "raise"]
        assert raises and raises[0]["to"] == s.view["contract"]["bid"] + 1
        assert s.send(raises[0], seat=bidder)
        assert s.view["raise"]["pending"] == raises[0]["to"]
        for opp in ((bidder + 1) % 4, (bidder + 3) % 4):
            legal = s.game.legal_commands(s.state, opp)
            m.update(s.game.view(s.state, opp), legal, opp)
            answers = {c["type"] for c in m.commands("accept_raise") + m.commands("refuse_raise")}
            assert answers == {"accept_raise", "refuse_raise"}
            assert s.send(m.commands("accept_raise")[0], seat=opp)
        assert s.view["contract"]["bid"] == raises[0]["to"] and s.view["contract"]["raised"]
        m.update(s.view, [], 0)
        assert "(raised)" in m.contract_text()
        return
    pytest.fail("no seed gave a raisable contract")


def test_offline_bot_answers_by_the_device_time_limit():
    # The strongest levels run on the pure core on a tablet: past its level's time (max:
    # 5 s), never more than the session's cap, the bot answers with its best move so far. A
    # clock that jumps 5 s a reading: the deadline is set at 0, the bot's check at 5 s stops
    # it (with the cap alone, 8 s, it went on to the check at 10 s).
    reads = []

    def clock() -> float:
        reads.append(5.0 * len(reads))
        return reads[-1]

    s = LocalSession("teeko", [HUMAN, dict(BOT, level="max")], seed=3)
    s.bot_time_limit = 8.0
    s.clock = clock
    assert s.send({"type": "place", "to": "c3"})
    assert s.to_act == [0] and len(s.view["pieces"][1]) == 1
    assert reads == [0.0, 5.0]
    assert s.think_seconds(1) == 5.0
    s.bot_time_limit = 2.0  # the settings' cap under the level's time: the cap counts
    assert s.think_seconds(1) == 2.0
    assert LocalSession.bot_time_limit <= 10
