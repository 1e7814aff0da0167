"""The frozen corpus of old logs (tests/corpus/, written once by tests/make_corpus.py):
every log folds through the upcasters to the states and the outcome it was written with.

A failure names the file and the event whose state differs. Never rewrite a corpus file to
make this pass: a changed event format gets an upcaster (core/upcast.py, docs/protocol.md
"Event versions"); a changed rule that changes states is a new game version too.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import pytest
from make_corpus import SCENARIOS, digest

from core import GAMES, OptionsError, upcast
from core.api import Outcome, dumps
from core.errors import EventVersionError

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = sorted(CORPUS.glob("*.jsonl"))


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return lines[0], lines[1:]


def stored(records: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [(r["v"], r["event"]) for r in records]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_log_folds_to_its_states_and_outcome(path: Path) -> None:
    head, records = read(path)
    game = GAMES[head["game"]]
    assert head["events"] == len(records), f"{path.name}: the header's event count"
    # The whole log is read (every version known) before anything is folded.
    events = upcast.upcast_log(head["game"], stored(records))
    state = game.initial()
    for rec, event in zip(records, events, strict=True):
        where = f"{path.name}, event {rec['seq']} ({rec['event'].get('type')})"
        try:
            state = game.evolve(state, event)
        except Exception as exc:
            pytest.fail(f"{where} no longer folds: {exc!r}")
        assert digest(game, state) == rec["view"], f"{where}: the state after it differs"
    out = game.outcome(state)
    want = None if head["outcome"] is None else Outcome.from_json(head["outcome"])
    assert out == want, f"{path.name}: outcome {out!r}, written with {want!r}"


def test_corpus_is_complete_and_covers_what_logs_hold() -> None:
    """Every log the generator knows is in the corpus (none lost, none unknown), and the
    corpus holds every game and option set, every result reason, the table's events, a
    Teka throw-in and Tedoku with several seats."""
    assert {p.stem for p in FILES} == set(SCENARIOS)
    kinds: Counter[str] = Counter()
    types: Counter[str] = Counter()
    reasons: set[str] = set()
    tedoku_seats: set[int] = set()
    for path in FILES:
        head, records = read(path)
        kinds[head["game"]] += 1
        for r in records:
            ev = r["event"]
            types[ev["type"]] += 1
            if ev["type"] == "result":
                reasons.add(ev["reason"])
            if ev["type"] == "start" and head["game"] == "tedoku":
                tedoku_seats.add(ev["options"]["seats"])
    assert set(kinds) == set(upcast.VERSIONS)  # (the core's games; a test's plug-in is not)
    for kind in upcast.VERSIONS:
        for i, _raw in enumerate(GAMES[kind].example_options()):
            assert f"{kind}-options-{i}" in SCENARIOS
    assert reasons == {"forfeit", "adjudicated", "void", "off_board"}
    for t in ("table", "timeout", "seat_to_bot", "throw_in", "keep", "resigned",
              "draw_accepted", "draw_declined"):
        assert types[t], f"no {t!r} event in the corpus"
    assert max(tedoku_seats) >= 4


def test_every_chain_reaches_its_current_version() -> None:
    assert set(upcast.UPCASTERS) == set(upcast.VERSIONS)
    for kind in upcast.VERSIONS:
        assert len(upcast.UPCASTERS[kind]) == upcast.VERSIONS[kind] - upcast.FIRST, kind
        assert upcast.current(kind) == upcast.VERSIONS[kind]


def test_a_log_of_an_unknown_version_is_refused_not_folded() -> None:
    _head, records = read(CORPUS / "teeko-resign.jsonl")
    newer = upcast.current("teeko") + 1
    log = stored(records)
    log[5] = (newer, log[5][1])
    with pytest.raises(EventVersionError, match=f"event 6: teeko events of schema version "
                                                f"{newer} are newer than this gamenight reads"):
        upcast.upcast_log("teeko", log)
    with pytest.raises(EventVersionError, match="event 6"):
        upcast.fold_stored(GAMES["teeko"], log)
    for bad in (0, -1, "1", True, None, 1.0):
        with pytest.raises(EventVersionError, match="whole number"):
            upcast.upcast_log("teeko", [(bad, log[0][1])])  # type: ignore[list-item]


def test_folding_trusts_a_stored_start_event() -> None:
    """``evolve`` of a start event takes its options as validated when the game was made:
    a stored log still folds when today's validator would refuse its options (an option
    dropped since, here an unknown key)."""
    for kind in upcast.VERSIONS:
        game = GAMES[kind]
        start = game.start(game.options(game.example_options()[0]), Random(1))
        options = dict(start[0]["options"])
        with pytest.raises(OptionsError):
            game.options({**options, "retired_option": 1})
        old = [{**start[0], "options": {**options, "retired_option": 1}}, *start[1:]]
        state = game.initial()
        for ev in old:
            state = game.evolve(state, ev)
        assert game.to_act(state), kind


RENAMED = ("placed", "moved")


def teeko_v2_step(event: dict[str, Any]) -> dict[str, Any]:
    """A hypothetical Teeko v2: a piece's square is ``"square"``, no longer ``"to"``."""
    if event["type"] not in RENAMED:
        return event
    out = {k: v for k, v in event.items() if k != "to"}
    out["square"] = event["to"]
    return out


def teeko_v2_evolve(state: Any, event: dict[str, Any]) -> Any:
    """What the v2 core's ``evolve`` would do: it reads ``"square"`` (and refuses a v1
    event), written here on top of today's."""
    if event["type"] in RENAMED:
        assert "to" not in event and "square" in event, f"a v1 event reached v2: {event}"
        event = {**{k: v for k, v in event.items() if k != "square"}, "to": event["square"]}
    return GAMES["teeko"].evolve(state, event)


def test_a_new_version_reads_the_v1_corpus_through_its_upcaster() -> None:
    """The mechanism at work: a test-only v2 of Teeko (a renamed field) registered as a step
    of the chain; every v1 Teeko log of the corpus folds through it to the same states, and
    a v2 event is read as it is."""
    game = GAMES["teeko"]
    before = upcast.current("teeko")
    assert upcast.register("teeko", teeko_v2_step) == before + 1
    try:
        for path in [p for p in FILES if p.stem.startswith("teeko-")]:
            head, records = read(path)
            assert {r["v"] for r in records} == {before}
            state = game.initial()
            for rec, event in zip(records, upcast.upcast_log("teeko", stored(records)),
                                  strict=True):
                state = teeko_v2_evolve(state, event)
                assert digest(game, state) == rec["view"], f"{path.name}, event {rec['seq']}"
            assert dumps(game.outcome(state).to_json()) == dumps(head["outcome"])  # type: ignore[union-attr]
        v2 = {"type": "placed", "seat": 0, "square": "c3"}
        assert upcast.upcast("teeko", before + 1, v2) is v2
        assert upcast.upcast("teeko", before, {"type": "placed", "seat": 0, "to": "c3"}) == v2
    finally:
        upcast.unregister("teeko")
    assert upcast.current("teeko") == before
    with pytest.raises(EventVersionError):
        upcast.upcast("teeko", before + 1, {"type": "placed", "seat": 0, "square": "c3"})
