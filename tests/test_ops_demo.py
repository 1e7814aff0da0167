"""load_demo / ensure_admin management commands against the real (embedded or given) PostgreSQL."""

from __future__ import annotations

import io
import json
from itertools import pairwise

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from core import GAMES
from core.api import Outcome
from server.ops import demo

pytestmark = pytest.mark.django_db(transaction=True)


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_load_demo_is_idempotent_and_games_replay_to_their_outcome() -> None:
    from server.games import cache, chain, reading
    from server.games.models import Event, Game
    from server.leagues.models import League

    data = demo.manifest()
    text = _run("load_demo")
    assert f"{len(data['matches'])} games created" in text
    counts = (get_user_model().objects.count(), League.objects.count(), Game.objects.count(),
              Event.objects.count())
    from server.leagues.demo import LEAGUE  # (the club demo: tests/test_club_results.py)

    seeded = Game.objects.exclude(league__name=LEAGUE)
    assert seeded.count() == len(data["matches"])
    assert Event.objects.filter(game__in=seeded).count() == sum(m["events"] for m in
                                                                 data["matches"])
    assert "0 players, 0 leagues, 0 games created" in _run("load_demo")
    assert (get_user_model().objects.count(), League.objects.count(), Game.objects.count(),
            Event.objects.count()) == counts

    cache.drop_cache()
    for m in data["matches"]:
        game = Game.objects.get(league__name=m["league"], kind=m["game"],
                                seat_set__number=0,
                                seat_set__user__username=m["seats"][0],
                                options=m["options"],
                                events__seq=m["events"])
        assert [s.user.username for s in game.seat_set.order_by("number")] == m["seats"]
        assert game.league is not None and game.league.kind == m["game"]
        # Rebuilt from the stored log (cache dropped): the recorded outcome.
        e = cache.entry(game.pk)
        assert e.seq == m["events"]
        outcome = GAMES[m["game"]].outcome(e.state)
        assert outcome == Outcome.from_json(m["outcome"])
        assert game.status == Game.FINISHED and game.outcome == m["outcome"]
        assert chain.verify_chain(game.pk).ok
        seats = [r[1] for r in reading.records(game.pk)]
        assert seats == [r["seat"] for r in demo.match_records(m)]


def test_ensure_admin_creates_once_and_prints_the_same_login(tmp_path, settings) -> None:  # type: ignore[no-untyped-def]
    settings.VAR_DIR = tmp_path
    settings.GAMENIGHT = {**settings.GAMENIGHT, "ADMIN_USER": "admin", "ADMIN_PASSWORD": ""}
    first = _run("ensure_admin")
    assert "admin login (created): username admin  password " in first
    password = first.strip().rsplit(" ", 1)[1]
    assert (tmp_path / "admin-password.txt").read_text().strip() == password
    assert oct((tmp_path / "admin-password.txt").stat().st_mode & 0o777) == "0o600"
    user = get_user_model().objects.get(username="admin")
    assert user.is_superuser and user.is_staff and user.check_password(password)
    again = _run("ensure_admin")
    assert again.strip() == f"admin login (exists): username admin  password {password}"
    assert get_user_model().objects.filter(username="admin").count() == 1
    user.set_password("changed-by-hand")
    user.save()
    assert "already exists" in _run("ensure_admin")


def test_manifest_matches_files() -> None:
    for m in demo.manifest()["matches"]:
        assert len(demo.match_events(m)) == m["events"]
        json.dumps(m["options"])


def test_demo_games_have_plausible_ordered_times() -> None:
    """Each demo game was created before its first event, its events came one after the
    other at a playing pace, it finished with its last event, all in the past; the games
    were played on different days."""
    from django.utils import timezone

    from server.games import creating
    from server.games.models import Event, Game
    from server.leagues.demo import LEAGUE  # (the club demo has games being played)

    _run("load_demo")
    now = timezone.now()
    days = set()
    for game in Game.objects.exclude(league__name=LEAGUE):
        times = list(
            Event.objects.filter(game=game).order_by("seq").values_list("created_at", flat=True)
        )
        assert game.created_at < times[0], game.pk
        assert all(a < b for a, b in pairwise(times)), game.pk
        assert game.finished_at is not None and times[-1] <= game.finished_at < now
        played = (times[-1] - times[0]).total_seconds()
        moves = Event.objects.filter(game=game, seat__isnull=False).count()
        assert 1 <= played / max(moves, 1) <= 60, (game.pk, played, moves)
        days.add(times[0].date())
    assert len(days) > 1
    # a game made now: created no later than its first event, finished with its last
    g = creating.create_game("teeko", {}, [{"kind": "guest"}, {"kind": "guest"}])
    g.refresh_from_db()
    first = Event.objects.filter(game=g).order_by("seq").first()
    assert first is not None and g.created_at <= first.created_at


def test_imported_log_keeps_its_times() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from server.games import creating
    from server.games.models import Event

    events = demo.match_records(demo.manifest()["matches"][1])
    t0 = timezone.now() - timedelta(days=3)
    times = [t0 + timedelta(seconds=5 * i) for i in range(len(events))]
    game = creating.import_game("teeko", None, None, events, times=times,
                             created_at=t0 - timedelta(minutes=1))
    game.refresh_from_db()
    assert list(Event.objects.filter(game=game).order_by("seq")
                .values_list("created_at", flat=True)) == times
    assert game.created_at == t0 - timedelta(minutes=1) and game.finished_at == times[-1]
    with pytest.raises(Exception, match="times"):
        creating.import_game("teeko", None, None, events, times=times[::-1])
