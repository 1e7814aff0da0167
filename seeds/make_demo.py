#!/usr/bin/env python3
"""Generate the demo data in ``seeds/``: a league, players and recorded matches.

    python seeds/make_demo.py            # rewrite seeds/demo.json and seeds/matches/*.jsonl
    python seeds/make_demo.py --check    # exit 1 when the files differ from a fresh generation

Each match is played by the rules core itself: seeded random legal moves (meta commands such
as ``resign`` are left out unless nothing else is legal), ``random.Random(seed)`` for every
choice and for the game's own chance, so a run reproduces the files byte for byte. A match
file is a JSON-lines event log, one record per line in canonical JSON:
``{"seat": <seat whose command produced it, or null>, "event": {...}, "v": <the event's schema
version, core.upcast>}`` (the form the server's log export and
``server.games.creating.import_game`` use); ``demo.json`` lists
the leagues (one per game), the players and, per match, its game, options, seats, seed and
recorded outcome.
The logs double as replay fixtures (tests/test_ops_seeds.py folds each one).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from random import Random
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core import GAMES, upcast  # noqa: E402
from core.api import META_COMMANDS, apply, dumps, fold  # noqa: E402

LEAGUES = [
    {"name": "Thursday Teeko", "kind": "teeko"},
    {"name": "Thursday Tiku", "kind": "tiku"},
    {"name": "Thursday Tedoku", "kind": "tedoku"},
    {"name": "Thursday Teka", "kind": "teka"},
]
"""The demo league of each game (a league plays one game); every player is a member."""

PLAYERS = [
    {"username": "ada", "name": "Ada"},
    {"username": "bruno", "name": "Bruno"},
    {"username": "chen", "name": "Chen"},
    {"username": "dita", "name": "Dita"},
]

# (file stem, game, raw options, seed). Seats are filled from PLAYERS in rotation.
MATCHES: list[tuple[str, str, dict[str, Any], int]] = [
    ("teeko-1", "teeko", {}, 101),
    ("teeko-2", "teeko", {}, 102),
    ("teeko-3", "teeko", {"squares": "tilted"}, 103),
    ("tiku-1", "tiku", {}, 201),
    ("tiku-2", "tiku", {"points": True}, 202),
    ("tedoku-1", "tedoku", {"seats": 2, "bonus": True}, 301),
    ("tedoku-2", "tedoku", {"seats": 4}, 302),
    ("teka-1", "teka", {}, 401),
    ("teka-2", "teka", {}, 402),
]

MAX_COMMANDS = 20_000
"""A random game that has not ended after this many commands is recorded unfinished."""


def play(kind: str, raw_options: dict[str, Any], seed: int) -> tuple[dict[str, Any], list[Any]]:
    """Options and the full log of one seeded random game: records ``{"seat", "event", "v"}``
    (``seat`` is the seat whose command produced the event, ``null`` for start events)."""
    game = GAMES[kind]
    rng = Random(seed)
    options = game.options(raw_options)
    v = upcast.current(kind)
    records: list[dict[str, Any]] = [{"seat": None, "event": e, "v": v}
                                     for e in game.start(options, rng)]
    state = fold(game, [r["event"] for r in records])
    for _ in range(MAX_COMMANDS):
        if game.outcome(state) is not None:
            break
        seats = game.to_act(state)
        if not seats:
            break
        seat = seats[0] if len(seats) == 1 else rng.choice(seats)
        legal = game.legal_commands(state, seat)
        moves = [c for c in legal if c.get("type") not in META_COMMANDS] or legal
        if not moves:
            break
        state, new = apply(game, state, seat, rng.choice(moves), rng)
        records.extend({"seat": seat, "event": e, "v": v} for e in new)
    return options, records


def events_of(records: list[dict[str, Any]]) -> list[Any]:
    return [r["event"] for r in records]


def generate() -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """(manifest, {relative path: file text}, skipped games with the reason)."""
    matches: list[dict[str, Any]] = []
    files: dict[str, str] = {}
    skipped: list[str] = []
    rotation = 0
    for stem, kind, raw, seed in MATCHES:
        try:
            options, records = play(kind, raw, seed)
        except NotImplementedError:
            skipped.append(f"{stem}: the {kind} engine is not implemented yet")
            continue
        game = GAMES[kind]
        nseats = int(options["seats"])
        seats = [PLAYERS[(rotation + i) % len(PLAYERS)]["username"] for i in range(nseats)]
        rotation += 1
        outcome = game.outcome(fold(game, events_of(records)))
        rel = f"matches/{stem}.jsonl"
        files[rel] = "".join(dumps(r) + "\n" for r in records)
        matches.append({
            "id": stem,
            "file": rel,
            "game": kind,
            "options": options,
            "seats": seats,
            "league": next(lg["name"] for lg in LEAGUES if lg["kind"] == kind),
            "seed": seed,
            "events": len(records),
            "outcome": outcome.to_json() if outcome is not None else None,
        })
    manifest = {"leagues": LEAGUES, "players": PLAYERS, "matches": matches}
    return manifest, files, skipped


def manifest_text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    manifest, files, skipped = generate()
    files["demo.json"] = manifest_text(manifest)
    for line in skipped:
        print(f"skipped {line}")
    if args.check:
        stale = [rel for rel, text in files.items()
                 if not (HERE / rel).exists() or (HERE / rel).read_text() != text]
        for rel in stale:
            print(f"differs: seeds/{rel}")
        return 1 if stale else 0
    (HERE / "matches").mkdir(exist_ok=True)
    for rel, text in files.items():
        (HERE / rel).write_text(text)
    for m in manifest["matches"]:
        print(f"{m['id']}: {m['events']} events, outcome {m['outcome']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
