"""Demo data: leagues, players and recorded matches from ``seeds/`` (see seeds/make_demo.py)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def manifest(seeds: Path = SEEDS) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((seeds / "demo.json").read_text())
    return out


def match_records(match: dict[str, Any], seeds: Path = SEEDS) -> list[dict[str, Any]]:
    """The log of a recorded match: ``{"seat": s, "event": {...}}`` records."""
    lines = (seeds / match["file"]).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def match_events(match: dict[str, Any], seeds: Path = SEEDS) -> list[dict[str, Any]]:
    return [r["event"] for r in match_records(match, seeds)]


def match_times(match: dict[str, Any], records: list[dict[str, Any]], index: int, count: int,
                now: datetime) -> tuple[datetime, list[datetime]]:
    """When a recorded match was played, for the demo: (created_at, one time per event).

    Match ``index`` of ``count`` was played ``count - index`` days before ``now``, starting
    at 19:30 UTC (a club night); the table was set up 1-5 minutes before the first event;
    each command took 2-20 seconds (seeded by the match's seed, so a reload gives the same
    times), and events the game produces itself (a deal, a reveal) follow the command
    that caused them by a millisecond. Created < first event < ... < last event = finished."""
    rng = Random(match.get("seed", index))
    day = (now - timedelta(days=count - index)).replace(hour=19, minute=30, second=0,
                                                         microsecond=0)
    t = day
    times: list[datetime] = []
    for rec in records:
        t += timedelta(seconds=rng.uniform(2, 20)) if rec.get("seat") is not None else \
            timedelta(milliseconds=1)
        times.append(t)
    return day - timedelta(seconds=rng.uniform(60, 300)), times


def load_demo(seeds: Path = SEEDS, log: Any = print) -> dict[str, int]:
    """Create what is missing of the demo data; never duplicates. Counts of what was created."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from server.games import creating
    from server.games.models import Game
    from server.leagues.models import League

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
    now = timezone.now()
    for index, m in enumerate(data["matches"]):
        league = leagues[m["league"]]
        records = match_records(m, seeds)
        events = [r["event"] for r in records]
        seat_users = [users[u] for u in m["seats"]]
        loaded = _already_loaded(Game, league, m, seat_users, events)
        if loaded is not None:
            if not loaded.public:  # (loaded before tables were private: made so by 0011)
                Game.objects.filter(pk=loaded.pk).update(public=True)
            continue
        created_at, times = match_times(m, records, index, len(data["matches"]), now)
        with transaction.atomic():
            creating.import_game(m["game"], m["options"],
                              [{"kind": "user", "user": u} for u in seat_users], records,
                              league=league, created_by=None, times=times,
                              created_at=created_at, public=True)  # (there to be watched)
        created["games"] += 1
    log(f"demo data: {created['players']} players, {created['leagues']} leagues, "
        f"{created['games']} games created ({len(data['matches'])} recorded matches in seeds/)")
    from server.leagues.demo import load_club_demo  # (seasons, fixtures, ratings)

    load_club_demo(log)
    return created


def _already_loaded(Game: Any, league: Any, match: dict[str, Any], seat_users: list[Any],
                    events: list[dict[str, Any]]) -> Any:
    """The game of this league with the same seats, event count and last event, or None."""
    for game in Game.objects.filter(league=league, kind=match["game"]):
        seats = list(game.seat_set.order_by("number").values_list("user_id", flat=True))
        if seats != [u.pk for u in seat_users]:
            continue
        if game.events.count() != len(events):
            continue
        last = game.events.order_by("-seq").values_list("payload", flat=True).first()
        if last == events[-1]:
            return game
    return None
