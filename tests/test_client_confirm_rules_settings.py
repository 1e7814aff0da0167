"""The view-model side (no window): confirm-before-move, the move list in
notation, the rules pages as markup, the settings' meanings."""

from __future__ import annotations

from client_kivy.vm.confirm import MoveGate, command_text
from client_kivy.vm.rules import inline, paragraphs, rules_markup
from client_kivy.vm.session import move_list
from client_kivy.vm.settings import Settings, parse_choice


def test_move_gate_holds_until_confirmed():
    place = {"type": "place", "to": "c3"}
    gate = MoveGate(enabled=False)
    assert gate.offer(place) == place  # off: sent at once
    gate = MoveGate(enabled=True)
    assert gate.offer(place) is None and gate.pending == place
    assert gate.offer(place) == place and gate.pending is None  # the same tap again
    gate.offer(place)
    assert gate.offer({"type": "place", "to": "d4"}) is None  # another move: held instead
    assert gate.pending == {"type": "place", "to": "d4"}
    assert gate.confirm() == {"type": "place", "to": "d4"} and gate.confirm() is None
    gate.offer(place)
    assert gate.still_legal([place]) and gate.pending == place
    assert not gate.still_legal([]) and gate.pending is None  # the game moved on
    assert not gate.cancel()


def test_command_text_in_notation():
    assert command_text({"type": "place", "to": "c3"}) == "c3"
    assert command_text({"type": "move", "from": "b2", "to": "c3"}) == "b2-c3"
    assert command_text({"type": "play", "card": "TH", "signal": "slam"}) == "10\u2665 + slam"
    assert command_text({"type": "bid", "call": 9}) == "bid 9"
    assert command_text({"type": "trumps", "suit": "S"}) == "trumps Spades"


def test_move_list_numbers_moves_and_heads_hands():
    events = [{"type": "start"}, {"type": "placed", "seat": 0, "to": "c3"},
              {"type": "moved", "seat": 1, "from": "b2", "to": "c3"},
              {"type": "deal", "hand": 2}, {"type": "play", "seat": 0, "card": "KH",
                                             "signal": "snap"},
              {"type": "first_player", "seat": 1}]
    assert move_list(events, ["Ann", "Bob"]) == [
        "1. Ann placed c3", "2. Bob moved b2-c3", "Hand 2 dealt", "3. Ann played K\u2665 (snap)"]


def test_rules_pages_as_markup_for_players():
    md = ("# Game\n\nRules core: `core/x.py`.\n\n## Play\n\n"
          "- **Place** a piece on `c3` [see](#x).\n"
          "| a | b |\n|---|---|\n| 1 | 2 |\n\n## Notation\n\nsecret")
    out = paragraphs(md)
    assert "core/" not in " ".join(out) and "secret" not in " ".join(out)
    assert any("[b]Place[/b]" in p and "see" in p for p in out)
    assert "1 · 2" in out
    assert inline("seating[seat]") == "seating&bl;seat&br;"
    for game in ("teeko", "tiku", "tedoku", "teka"):
        text = " ".join(rules_markup(game))
        assert len(text) > 2000 and "Notation" not in text


def test_settings_meanings(tmp_path):
    s = Settings(str(tmp_path))
    assert s.flag("sound") and not s.flag("confirm_moves") and not s.flag("colour_blind")
    assert s.motion_factor() == 1.0 and s.text_scale() == 1.0
    s.set("motion", parse_choice("motion", "fast"))
    s.set("text_scale", parse_choice("text_scale", "1.3"))
    s.set("sound", parse_choice("sound", "false"))
    again = Settings(str(tmp_path))
    assert again.motion_factor() == 0.5 and again.text_scale() == 1.3
    assert not again.flag("sound")
    again.set("motion", "off")
    assert again.motion_factor() == 0.0
