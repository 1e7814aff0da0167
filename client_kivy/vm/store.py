"""Games kept on the device: one JSON file per game holding its event log.

A record: ``{"id", "game", "options", "players": [{"name", "kind": "human"|"bot", "level"}],
"events": [...], "version", "created", "updated", "finished", "outcome"}``. The events carry
all chance (shuffles, rolls), so folding them with the core rebuilds the game exactly;
``version`` is their schema version (``core.upcast``; a record without one: 1), so a record
saved by an older app folds through the upcasters (``session.saved_events``).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any


class LocalStore:
    def __init__(self, directory: str) -> None:
        self.directory = os.path.join(directory, "games")

    def new_id(self) -> str:
        return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]

    def path(self, game_id: str) -> str:
        return os.path.join(self.directory, f"{game_id}.json")

    def save(self, record: dict[str, Any]) -> None:
        os.makedirs(self.directory, exist_ok=True)
        record["updated"] = time.time()
        tmp = self.path(record["id"]) + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record, f, separators=(",", ":"))
        os.replace(tmp, self.path(record["id"]))

    def load(self, game_id: str) -> dict[str, Any]:
        with open(self.path(game_id), encoding="utf-8") as f:
            data: dict[str, Any] = json.load(f)
        return data

    def delete(self, game_id: str) -> None:
        try:
            os.remove(self.path(game_id))
        except OSError:
            pass

    def list(self) -> list[dict[str, Any]]:
        """Summaries (no events), newest first."""
        out: list[dict[str, Any]] = []
        if not os.path.isdir(self.directory):
            return out
        for name in os.listdir(self.directory):
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(self.directory, name), encoding="utf-8") as f:
                    rec = json.load(f)
            except (OSError, ValueError):
                continue
            summary = {k: v for k, v in rec.items() if k != "events"}
            summary["moves"] = len(rec.get("events", []))
            out.append(summary)
        out.sort(key=lambda r: r.get("updated", 0), reverse=True)
        return out
