"""The app's use of the solved Teeko table: a hint against the computer, the value of each
ply in the replay caption (client_kivy.vm.session). A stand-in table (tests/teeko_stub.py)
takes the place of a built one."""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest
from teeko_stub import install

import core
from client_kivy.vm.session import LocalSession, ReplayModel

HUMAN = {"name": "Ann", "kind": "human", "level": ""}
BOT = {"name": "Computer", "kind": "bot", "level": "random"}
PLIES = ["a1", "a5", "b1", "b5", "c1", "c5", "e3", "d5"]


def test_hint_against_the_computer_only_with_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    s = LocalSession("teeko", [HUMAN, BOT], seed=3)
    assert not s.can_hint and not s.hint()  # no table built
    install(monkeypatch, tmp_path)
    assert s.can_hint and s.hint()
    assert s.message.startswith("Hint: a draw with best play - best: ")
    two = LocalSession("teeko", [HUMAN, dict(HUMAN, name="Bob")], seed=3)
    assert not two.can_hint  # two people at one tablet: no hints


def test_replay_caption_says_how_each_ply_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = core.GAMES["teeko"]
    rng = Random(0)
    events = game.start({}, rng)
    state = game.initial()
    for e in events:
        state = game.evolve(state, e)
    for to in PLIES:
        for e in game.decide(state, state.turn, {"type": "place", "to": to}, rng):
            state = game.evolve(state, e)
            events.append(e)
    players = [HUMAN, BOT]
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    plain = ReplayModel("teeko", events, players)
    plain.seek(8)
    assert plain.event_text() == "Ann placed e3"  # no table: the caption as before
    install(monkeypatch, tmp_path)
    r = ReplayModel("teeko", events, players)
    r.seek(2)
    assert r.event_text() == "Ann placed a1 - best: draw"
    r.seek(8)
    assert r.event_text() == ("Ann placed e3 - a win thrown away (win in 1 -> loss in 2; "
                              "best d1)")
    r.seek(7)
    assert "Computer placed c5 - a draw lost" in r.event_text()
