"""The app's saved games carry their events' schema version and are read through the
upcasters (core/upcast.py): a game saved by an older app resumes and replays; one saved by
a newer app is refused with a clear error."""

from __future__ import annotations

from typing import Any

import pytest

from client_kivy.vm.session import LocalSession, ReplayModel, saved_events
from client_kivy.vm.store import LocalStore
from core import upcast
from core.errors import EventVersionError

HUMAN = {"name": "Ann", "kind": "human", "level": ""}
BOT = {"name": "Computer", "kind": "bot", "level": "random"}


def numbered(event: dict[str, Any]) -> dict[str, Any]:
    """A test-only Teeko v2: a placed piece says which of the seat's four it is (a field
    today's ``evolve`` does not read); a v1 event gets ``"piece": null``."""
    return {**event, "piece": None} if event["type"] == "placed" else event


def saved_game(tmp_path: Any) -> tuple[LocalStore, dict[str, Any]]:
    store = LocalStore(str(tmp_path))
    s = LocalSession("teeko", [HUMAN, dict(HUMAN, name="Bob")], store=store, seed=3)
    for sq in ("c3", "b2", "d4"):
        s.send({"type": "place", "to": sq})
    return store, store.load(store.list()[0]["id"])


def test_a_saved_game_says_its_version(tmp_path):
    _store, rec = saved_game(tmp_path)
    assert rec["version"] == upcast.current("teeko")
    old = {k: v for k, v in rec.items() if k != "version"}  # (saved before versions: 1)
    assert saved_events(old) == rec["events"]


def test_a_game_saved_by_an_older_app_resumes_and_replays_in_todays_version(tmp_path):
    store, rec = saved_game(tmp_path)
    v1 = rec["version"]
    upcast.register("teeko", numbered)
    try:
        again = LocalSession("teeko", rec["players"], record=store.load(rec["id"]),
                             store=store)
        assert [e.get("piece", "?") for e in again.events if e["type"] == "placed"] == [None] * 3
        assert again.view["pieces"] == [["c3", "d4"], ["b2"]]
        again.send({"type": "place", "to": "a1"})
        resaved = store.load(rec["id"])
        assert resaved["version"] == v1 + 1 and len(resaved["events"]) == 5
        # the old events are saved again as upcast (the new move is today's core's own: this
        # v2 exists in its upcaster only)
        placed = [e for e in resaved["events"] if e["type"] == "placed"]
        assert [e.get("piece", "?") for e in placed] == [None, None, None, "?"]
        replay = ReplayModel("teeko", saved_events(resaved))
        replay.seek(replay.length)
        assert replay.view["pieces"] == [["c3", "d4"], ["a1", "b2"]]
    finally:
        upcast.unregister("teeko")
    # Back on an app that reads v1 only, the game saved in v2 is refused, not folded.
    with pytest.raises(EventVersionError, match="newer than this gamenight reads"):
        LocalSession("teeko", rec["players"], record=store.load(rec["id"]), store=store)
    with pytest.raises(EventVersionError, match="event 1"):
        saved_events(store.load(rec["id"]))
