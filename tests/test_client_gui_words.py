"""Names, cards and results in the app's words, by touch in the real offscreen window (each
test fails on the code before its fix): bots named by seat everywhere the live game names
them (the lobby, the replay's title, its analysis), cards and hands with their suits' symbols
in a font that has them, Tedoku's end with its scores, saved games with their result,
Rematch and Replay in one place, and the Tedoku ghost snapped inside the sheet at its edge."""

from __future__ import annotations

import re
from pathlib import Path
from random import Random
from typing import Any

import pytest
from test_client_gui import app, buttons, by_text, find, person, start_local, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (1280, 800)]
"""A phone upright and a tablet on its side."""


at = testing.set_size_dp


def draws_suits(label: Any) -> bool:
    """Whether ``label``'s font draws the suits (Roboto draws each as the same empty box)."""
    from kivy.core.text import Label as CoreLabel

    def pixels(ch: str) -> bytes:
        core = CoreLabel(text=ch, font_name=label.font_name, font_size=40)
        core.refresh()
        return bytes(core.texture.pixels)

    shapes = {pixels(ch) for ch in "\u2660\u2665\u2666\u2663"}
    return len(shapes) == 4


def bot(name: str = "Computer") -> dict[str, Any]:
    return {"name": name, "kind": "bot", "level": "random"}


def play_tedoku_out(s: Any, seed: int = 1) -> None:
    """The person's drawings chosen at random (the bot plays in its thread) to the end."""
    rng = Random(seed)
    while s.outcome is None:
        if s.handoff is not None:
            s.confirm_handoff()
        moves = [c for c in s.legal if c.get("type") in ("place", "skip")]
        if moves:
            s.send(rng.choice(moves))
        testing.pump(1)
        assert testing.wait_until(lambda: s.outcome is not None or bool(
            [c for c in s.legal if c.get("type") in ("place", "skip")])), s.status_text()


# -- the replay of a Teka match: cards with their symbols, drawn --------------------------------
def test_replay_caption_says_cards_with_suit_symbols(app: Any) -> None:  # noqa: F811
    from teka_match import BID, THROW, teka_match, throwing

    from client_kivy.vm.session import ReplayModel

    events = teka_match(throwing(THROW), bid=BID + 1)
    players = [person(n) for n in ("Ann", "Bob", "Cleo", "Dev")]
    at(360, 740)
    app.open_replay(ReplayModel("teka", events, players), "Replay", "home")
    replay = app.root.get_screen("replay")
    ten = next(i for i, e in enumerate(events) if e["type"] == "play" and e["card"][0] == "T")
    card = events[ten]["card"]
    replay.ids.slider.value = ten  # just before the ten is played; then a tap on ">"
    testing.pump(2)
    testing.tap(replay.ids.next)
    assert replay.model.index == ten + 1
    who = players[events[ten]["seat"]]["name"]
    symbol = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[card[1]]
    assert f"{who} played 10{symbol}" in replay.caption, replay.caption
    assert f"played {card}" not in replay.caption
    caption = next(w for w in find(replay, "WrapLabel") if w.text == replay.caption)
    assert draws_suits(caption), caption.font_name
    # the move list says the same
    testing.tap(replay.ids.moves)
    assert any(f"{who} played 10{symbol}" in line for line in replay.moves_view.lines)
    replay.moves_view.dismiss(animation=False)
    testing.pump(2)


# -- Tedoku's end: scores on the banner, Rematch and Replay once, the saved game's result -------
@pytest.mark.parametrize("size", SIZES)
def test_tedoku_end_banner_scores_and_one_rematch(app: Any, size: Any) -> None:  # noqa: F811
    at(*size)
    s = start_local(app, "tedoku", [person("Ann"), bot()], seed=7)
    play_tedoku_out(s)
    testing.pump(3)
    screen = app.root.get_screen("game")
    assert testing.wait_until(lambda: screen.banner is not None)
    result = screen.banner.ids.result.text
    scores = s.outcome["scores"]
    assert "(score)" not in result, result
    if s.outcome["winners"] and len(s.outcome["winners"]) == 1:
        assert re.search(rf"\b{max(scores)}-{min(scores)}\b", result), (result, scores)
    else:
        assert f"{scores[0]}-{scores[1]}" in result, (result, scores)

    def shown(text: str) -> list[Any]:
        return [b for b in find(screen, "GButton") if b.text == text and b.get_root_window()]

    # Rematch and Replay: once each, on the banner
    assert len(shown("Replay")) == 1 and len(shown("Rematch")) == 1
    assert shown("Replay")[0] in list(screen.banner.walk())
    # the final position: the banner goes, Replay and Rematch come to the panel, still once
    testing.tap(screen.banner.ids.look)
    assert screen.banner is None
    assert len(shown("Replay")) == 1 and len(shown("Rematch")) == 1
    assert {"Replay", "Rematch"} <= set(buttons(screen.ids.actions))
    # the saved game says how it ended, with the scores
    app.leave_game()
    testing.tap(app.root.get_screen("home").ids.saved)
    assert app.root.current == "saved"
    rows = find(app.root.get_screen("saved"), "SavedRow")
    texts = [r.text for r in rows if r.ids.open.text == "Replay"]
    assert texts and any(result in t for t in texts), (result, texts)


# -- the Tedoku ghost near the sheet's edge snaps inside ----------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_tedoku_ghost_at_the_edge_snaps_inside_the_sheet(app: Any, size: Any) -> None:  # noqa: F811
    at(*size)
    s = start_local(app, "tedoku", [person("Ann")], seed=3)
    screen = app.root.get_screen("game")
    sheet = screen.board
    m = sheet.model
    from client_kivy.vm.tedoku import SHAPE_NAMES

    # the shape of the die (a line where it is one: it reaches furthest off the sheet)
    shape = next(x for x in ("I", "L", "T", "S", "O", "B2", "B4") if x in m.shapes())
    testing.tap(by_text(screen.ids.extra, SHAPE_NAMES[shape]))
    assert m.shape == shape
    for cell, turns in (("A9", 0), ("I1", 1), ("E9", 0), ("I5", 1), ("A1", 2), ("I9", 3)):
        while m.rotation != turns:  # (turned by touch: across, down...)
            testing.tap(buttons(screen.ids.extra)["Rotate"])
        testing.tap(sheet, *sheet.cell_center(cell))
        ghost = m.ghost()
        assert len(ghost) == len(m.oriented()) and all(
            0 <= r < 9 and 0 <= c < 9 for r, c in ghost), (cell, ghost)
        if shape == "I":
            assert cell in m.ghost_cells()  # (the line still lies on the tapped cell)
        assert "runs off the sheet" not in sheet.misfit_reason
        if m.ghost_command() is not None:
            assert buttons(screen.ids.extra)["Place here"].enabled
    assert s.outcome is None


# -- server bots named by seat: the lobby, the replay's title, its analysis ---------------------
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_server_bots_are_named_by_seat_in_lobby_replay_and_analysis(
        app: Any, tmp_path: Path) -> None:  # noqa: F811
    from server_fixtures import start_daphne, stop_daphne
    from teka_match import BID, THROW, teka_match, throwing

    from server.games import creating

    events = teka_match(throwing(THROW), bid=BID + 1)
    bots = [{"kind": "bot", "level": "easy"} for _ in range(4)]
    game_id = creating.import_game("teka", None, bots, events, public=True).pk
    server = start_daphne(tmp_path, "app-bot-names",
                          {"GAMENIGHT_ANALYSIS_DIR": str(tmp_path / "analysis")})
    seats = "Bot North v Bot East v Bot South v Bot West"
    try:
        at(360, 740)
        app.lobby.connect(server.http, name="Ann")
        assert testing.wait_until(lambda: app.lobby.connected), app.lobby.error
        app.show("lobby")
        lobby = app.root.get_screen("lobby")
        lobby.tab = "finished"
        app.lobby.refresh()

        def row() -> Any:
            return next((r for r in find(lobby, "LobbyRow") if f"#{game_id} " in r.text), None)

        assert testing.wait_until(lambda: row() is not None), app.lobby.error
        assert seats in row().text and "Bot (easy)" not in row().text, row().text
        assert "Bot North & Bot South win" in row().text or \
            "Bot East & Bot West win" in row().text, row().text
        testing.tap(next(b for b in find(row(), "GButton") if b.text == "Replay"))
        assert testing.wait_until(lambda: app.root.current == "replay"), app.lobby.error
        replay = app.root.get_screen("replay")
        assert seats in replay.title and "Bot (easy)" not in replay.title, replay.title
        # the table's seat plates: the name says the seat ("Bot North", not "... (North)")
        assert [replay.board.name(i) for i in range(4)] == seats.split(" v ")
        a = replay.model.teka_analysis
        assert testing.wait_until(lambda: a.state == "ready", 60), (a.state, a.reason)
        testing.pump(2)
        # the deal, with the suits' symbols: North's hand under the board
        trumps = next(i for i, e in enumerate(events) if e["type"] == "trumps")
        replay.ids.slider.value = trumps
        testing.pump(1)
        testing.tap(replay.ids.next)
        text = replay.ids.analysis.text
        assert ("Bot North: \u2660 A K Q J 10 9 8 7 6 5  \u2665 4 3 2") in text, text
        assert draws_suits(replay.ids.analysis)
        # a costly card's best cards with their symbols; the summary names the bots by seat
        plays = [i + 1 for i, e in enumerate(events) if e["type"] == "play"]
        replay.ids.slider.value = plays[1]
        testing.pump(2)
        assert "Bot East played A\u2665" in replay.caption, replay.caption
        assert "best A\u2666 K\u2666 Q\u2666 ..." in replay.caption, replay.caption
        summary = replay.ids.analysis.text
        assert summary.startswith("Double-dummy, tricks lost to play: "), summary
        assert all(f"Bot {where} " in summary for where in ("North", "East", "South", "West"))
        assert "Bot (easy)" not in summary
        testing.tap(replay.ids.last)
        assert "Bot (easy)" not in replay.caption and "Bot " in replay.caption, replay.caption
        app.show("home")
        testing.pump(2)
    finally:
        app.lobby.logout()
        app.lobby.api = None
        stop_daphne(server)
