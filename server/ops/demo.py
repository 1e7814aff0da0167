"""Demo data: leagues, players and recorded matches from ``seeds/`` (see seeds/make_demo.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def manifest(seeds: Path = SEEDS) -> dict[str, Any]:
    return json.loads((seeds / "demo.json").read_text())


def match_records(match: dict[str, Any], seeds: Path = SEEDS) -> list[dict[str, Any]]:
    """The log of a recorded match: ``{"seat": s, "event": {...}}`` records."""
    lines = (seeds / match["file"]).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def match_events(match: dict[str, Any], seeds: Path = SEEDS) -> list[dict[str, Any]]:
    return [r["event"] for r in match_records(match, seeds)]


def load_demo(seeds: Path = SEEDS, log: Any = print) -> dict[str, int]:
    """Create what is missing of the demo data; never duplicates. Counts of what was created."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from server.games import store
    from server.games.models import Game, League

    data = manifest(seeds)
    User = get_user_model()
    created = {"players": 0, "leagues": 0, "games": 0}
    with transaction.atomic():
        users: dict[str, Any] = {}
        for p in data["players"]:
            user, new = User.objects.get_or_create(
                username=p["username"], defaults={"first_name": p.get("name", "")}
            )
            if new:
                user.set_unusable_password()
                user.save(update_fields=["password"])
                created["players"] += 1
            users[p["username"]] = user
        leagues: dict[str, Any] = {}
        for lg in data["leagues"]:
            league, new = League.objects.get_or_create(name=lg["name"],
                                                       defaults={"kind": lg["kind"]})
            created["leagues"] += int(new)
            league.members.add(*users.values())
            leagues[lg["name"]] = league
    for m in data["matches"]:
        league = leagues[m["league"]]
        records = match_records(m, seeds)
        events = [r["event"] for r in records]
        seat_users = [users[u] for u in m["seats"]]
        if _already_loaded(Game, league, m, seat_users, events):
            continue
        with transaction.atomic():
            store.import_game(m["game"], m["options"],
                              [{"kind": "user", "user": u} for u in seat_users], records,
                              league=league, created_by=None)
        created["games"] += 1
    log(f"demo data: {created['players']} players, {created['leagues']} leagues, "
        f"{created['games']} games created ({len(data['matches'])} recorded matches in seeds/)")
    return created


def _already_loaded(Game: Any, league: Any, match: dict[str, Any], seat_users: list[Any],
                    events: list[dict[str, Any]]) -> bool:
    """A game of this league with the same seats, event count and last event."""
    for game in Game.objects.filter(league=league, kind=match["game"]):
        seats = list(game.seat_set.order_by("number").values_list("user_id", flat=True))
        if seats != [u.pk for u in seat_users]:
            continue
        if game.events.count() != len(events):
            continue
        last = game.events.order_by("-seq").values_list("payload", flat=True).first()
        if last == events[-1]:
            return True
    return False
