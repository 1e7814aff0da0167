"""seeds/: the recorded demo matches are reproducible and replay to their recorded outcome."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from core import GAMES, upcast
from core.api import ALL, Outcome, dumps, fold

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
MANIFEST = json.loads((SEEDS / "demo.json").read_text())
MATCHES = MANIFEST["matches"]


def _make_demo():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("make_demo", SEEDS / "make_demo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _records(match: dict) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (SEEDS / match["file"]).read_text().splitlines()]


def _events(match: dict) -> list[dict]:  # type: ignore[type-arg]
    """The match's events in today's version (through the upcasters, as the server reads a
    stored log)."""
    return upcast.upcast_log(match["game"], [(r["v"], r["event"]) for r in _records(match)])


def test_manifest_shape() -> None:
    kinds = {m["game"] for m in MATCHES}
    assert "teeko" in kinds
    assert {lg["kind"] for lg in MANIFEST["leagues"]} == set(GAMES)
    names = {p["username"] for p in MANIFEST["players"]}
    league_names = {lg["name"] for lg in MANIFEST["leagues"]}
    for m in MATCHES:
        assert set(m["seats"]) <= names
        assert m["league"] in league_names
        assert len(m["seats"]) == m["options"]["seats"]


@pytest.mark.parametrize("match", MATCHES, ids=[m["id"] for m in MATCHES])
def test_recorded_match_replays_to_its_outcome(match: dict) -> None:  # type: ignore[type-arg]
    game = GAMES[match["game"]]
    events = _events(match)
    assert len(events) == match["events"]
    assert events[0]["type"] == "start"
    assert events[0]["options"] == match["options"]
    state = fold(game, events)
    outcome = game.outcome(state)
    assert outcome is not None, "a recorded demo match is a finished game"
    assert outcome == Outcome.from_json(match["outcome"])
    assert game.to_act(state) == []
    # No prefix of the log is already finished: the game ended on its last event.
    assert game.outcome(fold(game, events[:-1])) is None
    assert isinstance(game.view(state, ALL), dict)
    # Files are in canonical JSON, one record a line; seats are seats of the table.
    records = _records(match)
    assert (SEEDS / match["file"]).read_text() == "".join(dumps(r) + "\n" for r in records)
    assert all(r["seat"] is None or 0 <= r["seat"] < len(match["seats"]) for r in records)


def test_generation_is_reproducible() -> None:
    """make_demo.py regenerates the committed files byte for byte (same engines, same seeds)."""
    make_demo = _make_demo()
    manifest, files, _skipped = make_demo.generate()
    ids = [m["id"] for m in manifest["matches"]]
    assert ids == [m["id"] for m in MATCHES], "seeds/ are stale: run python seeds/make_demo.py"
    for rel, text in files.items():
        assert (SEEDS / rel).read_text() == text, f"seeds/{rel} is stale: rerun make_demo.py"
    assert make_demo.manifest_text(manifest) == (SEEDS / "demo.json").read_text()
