"""core/words.py for the shared screen: a card with its suit's symbol and a move in words,
what the seats to act are doing, the trick just won and the last hand's result, worded from
the view a viewer has (a spectator's view names no secret, and neither do these words)."""

from __future__ import annotations

from random import Random
from typing import Any

import core
from core import words
from core.api import META_COMMANDS, SPECTATOR

NAMES = ["Ann", "Bob", "Cy", "Di"]


def test_cards_and_moves_in_words() -> None:
    assert words.card_text("9S") == "9\u2660"
    assert words.card_text("TH") == "10\u2665"
    assert words.card_text("") == "?"
    play = {"type": "play", "seat": 1, "card": "QD", "signal": "snap"}
    assert words.describe(play, NAMES, plain=True) == "Bob played Q\u2666 (snap)"
    assert words.describe(play, NAMES) == "Bob played Q\u2666 (snap)"  # (the app's too)
    move = {"type": "moved", "seat": 0, "from": "b2", "to": "c3"}
    assert words.describe(move, NAMES, plain=True) == "Ann moved b2 to c3"
    assert words.describe(move, NAMES) == "Ann moved b2-c3"


def test_a_score_below_zero() -> None:
    assert words.result("teka", {"winners": [1, 3], "reason": "match",
                                 "scores": [-32, 63, -32, 63]}) == "East-West win 63 to -32"
    assert words.result("teka", {"winners": [0, 2], "reason": "match",
                                 "scores": [104, 52, 104, 52]}) == "North-South win 104-52"


def test_doing() -> None:
    assert words.doing("teka", {"phase": "cut", "to_act": [1]}, NAMES) == "Bob is cutting the deck"
    assert words.doing("teka", {"phase": "bidding", "to_act": [2]}, NAMES) == "Cy is bidding"
    assert words.doing("teka", {"phase": "trumps", "to_act": [3]}, NAMES) == "Di is naming trumps"
    assert words.doing("teka", {"phase": "play", "to_act": [0]}, NAMES) == "Ann is playing a card"
    assert words.doing("teka", {"phase": "play", "to_act": [1, 3], "raise": {"pending": 10}},
                       NAMES) == "Bob and Di are answering the raise to 10"
    assert words.doing("teka", {"phase": "throw_in", "to_act": []}, NAMES).startswith(
        "The players are deciding")
    assert words.doing("teeko", {"phase": "place", "to_act": [0]},
                       NAMES) == "Ann is placing a piece"
    assert words.doing("teeko", {"phase": "move", "to_act": [1]}) == "Seat 2 is moving a piece"
    assert words.doing("tiku", {"to_act": [1]}, NAMES) == "Bob is moving a piece"
    assert words.doing("tedoku", {"to_act": [0, 1, 2]},
                       NAMES) == "Ann, Bob and Cy are drawing the shape"
    assert words.doing("other", {"to_act": [0]}, NAMES) == "Ann to play"
    assert words.doing("teka", {"phase": "play", "to_act": [0], "outcome": {"winners": [0]}}) == ""
    assert words.doing("teka", None) == ""


def test_trick_and_hand_results() -> None:
    view: dict[str, Any] = {"phase": "play", "trick": [], "tricks": [{}, {}, {}],
                            "last_trick": {"cards": [], "winner": 1}, "tricks_won": [1, 2]}
    assert words.trick_result(view, NAMES) == "Bob won trick 3; North-South 1, East-West 2"
    assert words.trick_result({**view, "trick": [{"seat": 2, "card": "9S"}]},
                              NAMES) == "Bob won trick 3; North-South 1, East-West 2"
    assert words.trick_result({"phase": "bidding"}, NAMES) == ""
    assert words.hand_result({"sheet": []}) == ""
    row = {"hand": 5, "bidder": 2, "bid": 9, "made": True, "double13": False}
    assert words.hand_result({"sheet": [row]}) == "Hand 5: North-South bid 9 and made it"
    assert words.hand_result({"sheet": [{**row, "bidder": 1, "made": False, "double13": True}]}
                             ) == "Hand 5: East-West bid double 13 and went down"


def test_a_table_worded_all_along() -> None:
    """Every position of random games of the four: the words are sentences, and what they
    say of a Teka table never names a card the spectator does not see."""
    for kind in ("teeko", "tiku", "tedoku", "teka"):
        g = core.GAMES[kind]
        rng = Random(7)
        state = g.initial()
        for ev in g.start(g.options({}), rng):
            state = g.evolve(state, ev)
        said = set()
        for _ in range(400):
            view = g.view(state, SPECTATOR)
            line = words.doing(kind, view, NAMES)
            said.add(line.split(" ", 1)[-1])
            secrets = set(g.secrets(state, SPECTATOR))
            for text in (line, words.trick_result(view, NAMES), words.hand_result(view)):
                assert not set(text.replace(";", " ").replace(",", " ").split()) & secrets
            if g.outcome(state) is not None:
                assert line == ""
                break
            seat = g.to_act(state)[0]
            legal = [c for c in g.legal_commands(state, seat) if c["type"] not in META_COMMANDS]
            for ev in g.decide(state, seat, rng.choice(legal), rng):
                state = g.evolve(state, ev)
        said.discard("")  # (the end)
        assert said and all("to play" not in s for s in said), (kind, said)
