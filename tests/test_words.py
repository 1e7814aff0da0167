"""core/words.py: events and results in words, the one text of the app and the web pages.

Every event of the recorded matches and of seeded random games is worded as a sentence (no
field dump such as "cut · at 43 · seat 1"), the sentences of the events a spectator or a
seat receives never name a secret of that moment (a card in another hand, the deck, a
Tedoku drawing before the reveal), and results say who won and by how much."""

from __future__ import annotations

import json
import re
from pathlib import Path
from random import Random
from typing import Any

import pytest

import core
from core import words
from core.api import ALL, META_COMMANDS, SPECTATOR

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["ada", "bo", "chen", "dan"]


def test_the_issue_examples() -> None:
    assert words.describe({"type": "cut", "seat": 3, "at": 43}, NAMES) == "dan cut the deck"
    assert words.describe({"type": "cut", "seat": 3}, NAMES) == "dan cut the deck"
    assert words.describe({"type": "score", "hand": 5, "bidder": 2, "bid": 13, "made": False,
                           "points": [0, 26], "totals": [52, 78], "tricks": [6, 7]},
                          NAMES) == "Hand 5: North-South bid 13 and went down"
    assert words.result("teka", {"winners": [0, 2], "reason": "match",
                                 "scores": [104, 52, 104, 52]}, NAMES) == "ada & chen win 104-52"
    assert words.result("teka", {"winners": [1, 3], "reason": "match",
                                 "scores": [52, 128, 52, 128]}) == "East-West win 128-52"


def test_the_apps_words_as_before() -> None:
    events = [{"type": "placed", "seat": 0, "to": "c3"},
              {"type": "moved", "seat": 1, "from": "b2", "to": "c3"},
              {"type": "deal", "hand": 2}, {"type": "play", "seat": 0, "card": "KH",
                                             "signal": "snap"}]
    assert [words.describe(e, ["Ann", "Bob"]) for e in events] == [
        "Ann placed c3", "Bob moved b2-c3", "Hand 2 dealt", "Ann played K\u2665 (snap)"]
    assert words.describe({"type": "placed", "seat": 5, "to": "a1"}) == "Seat 6 placed a1"


def test_results() -> None:
    two = ["Ann", "Bob"]
    assert words.result("teeko", {"winners": [1], "reason": "pattern", "scores": []},
                        two) == "Bob wins (four in a pattern)"
    assert words.result("teeko", {"winners": [], "reason": "draw_agreed", "scores": []},
                        two) == "Draw (by agreement)"
    assert words.result("tiku", {"winners": [0], "reason": "last_disc", "scores": [0, 6]},
                        two) == "Ann wins (every disc laid; Bob had 6 discs left)"
    assert words.result("tiku", {"winners": [1], "reason": "points", "scores": [14, 20]},
                        two) == "Bob wins 20-14"
    assert words.result("tedoku", {"winners": [1], "reason": "score", "scores": [30, 54, 40]},
                        NAMES) == "bo wins 54-40-30"
    shared = {"winners": [0, 2], "reason": "shared", "scores": [40, 33, 40]}
    assert words.result("tedoku", shared, NAMES) == "ada & chen win 40-40-33 (shared)"
    # solo: the rulebook's tier by its label, not its key ("champion")
    assert words.result("tedoku", {"winners": [0], "reason": "champion", "scores": [30]},
                        ["You"]) == "Tedoku Champion: 30 points"
    # the app's own player is "You": "You win", never "You wins"
    assert words.result("teeko", {"winners": [0], "reason": "pattern", "scores": []},
                        ["You", "Computer"]) == "You win (four in a pattern)"
    assert words.result("teka", None) == ""


FIELD_DUMP = re.compile(r" · |\b[a-z_]+ \d+ · ")


def recorded() -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for path in sorted((ROOT / "seeds" / "matches").glob("*.jsonl")):
        kind = path.name.split("-")[0]
        out.append((kind, [json.loads(line)["event"] for line in path.read_text().splitlines()
                           if line.strip()]))
    return out


def test_every_recorded_event_is_a_sentence_for_every_viewer() -> None:
    seen: set[tuple[str, str]] = set()
    for kind, events in recorded():
        g = core.GAMES[kind]
        for ev in events:
            for viewer in (ALL, SPECTATOR, 0):
                text = words.describe(g.redact(ev, viewer), NAMES)
                assert text and not FIELD_DUMP.search(text), (kind, ev["type"], text)
                assert text[0].isupper() or text.split(" ")[0] in NAMES, text
            seen.add((kind, ev["type"]))
    assert ("teka", "cut") in seen and ("teka", "score") in seen and ("tedoku", "reveal") in seen


def random_log(kind: str, seed: int) -> list[dict[str, Any]]:
    g = core.GAMES[kind]
    rng = Random(seed)
    events = list(g.start(g.options({}), rng))
    state = g.initial()
    for ev in events:
        state = g.evolve(state, ev)
    for _ in range(300):
        if g.outcome(state) is not None:
            break
        seat = g.to_act(state)[0]
        legal = [c for c in g.legal_commands(state, seat) if c["type"] not in META_COMMANDS]
        for ev in g.decide(state, seat, rng.choice(legal), rng):
            state = g.evolve(state, ev)
            events.append(ev)
    return events


def word_set(text: str) -> set[str]:
    return set(re.split(r"[^0-9A-Za-z:.]+", text)) | set(re.split(r"[^0-9A-Za-z]+", text))


@pytest.mark.parametrize("kind", ["teka", "tedoku"])
def test_sentences_never_name_a_secret(kind: str) -> None:
    """What a viewer's sentence says is in the viewer's redacted event: no card of another
    hand, of the deck, no drawing before its reveal (core ``secrets`` at that point)."""
    g = core.GAMES[kind]
    for seed in range(6):
        state = g.initial()
        for ev in random_log(kind, seed):
            state = g.evolve(state, ev)
            for viewer in (SPECTATOR, 0, 1):
                secrets = set(g.secrets(state, viewer))
                text = words.describe(g.redact(ev, viewer), NAMES)
                assert not (word_set(text) & secrets), (viewer, ev, text)
                if kind == "tedoku" and ev["type"] == "placed" and ev.get("seat") != viewer:
                    assert text == f"{NAMES[ev['seat']]} has drawn"
                if kind == "teka" and ev["type"] == "cut" and viewer != ALL:
                    assert "at" not in text.split()
