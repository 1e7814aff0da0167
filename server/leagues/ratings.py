"""Ratings per player per game kind: a projection of the finished games, kept by this
module only (openskill's Plackett-Luce model: teams for Teka's 2 v 2, a ranking of up to 8
for Tedoku).

*Rated* games: finished, not void, every seat a registered player (a seat its player left
counts for that player, placed last), at least two different players. They are taken in
the order they finished (``finished_at``, then id). :func:`catch_up` runs after each commit
that finished a game (a listener of :mod:`server.games.listeners`), takes in every finished
game not yet seen, and when one of them finished before the last one taken in (two games
ending at once in two processes, an imported log), replays the history from there: the
history is always what :func:`rebuild` computes from scratch."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, NamedTuple, cast

from django.db import connection, transaction
from openskill.models import PlackettLuce

from server.games.models import Game

from .models import RatedGame, Rating
from .standings import Result, results_of

log = logging.getLogger("server.leagues")

MODEL = PlackettLuce()
"""openskill's defaults: mu 25, sigma 25/3; shown as mu - 3 sigma (0 for a new player)."""

LOCK_KEY = 0x67616D65_7261
"""pg_advisory_xact_lock key: one projector at a time."""

Key = tuple[datetime, int]


def rated(r: Result) -> bool:
    players = r.players
    return (
        not r.void
        and r.counts
        and len(players) >= 2
        and all(p is not None for p in players)
        and len(set(players)) == len(players)
    )


class Row(NamedTuple):
    """One row of the rating history (the columns of :class:`Rating`)."""

    user_id: int
    kind: str
    game_id: int
    finished_at: datetime
    mu: float
    sigma: float
    mu_before: float
    sigma_before: float
    place: int
    adjudicated: bool


ROW_COLUMNS = ", ".join(Row._fields)


def rate(r: Result, current: dict[tuple[int, str], tuple[float, float]]) -> list[Row]:
    """The ratings after game ``r`` (``current``: (user, kind) -> (mu, sigma), updated)."""
    places = r.places()
    teams_seats = [list(side) for side in r.sides]  # partners (Game.sides) are a team
    before = {}
    teams = []
    for team in teams_seats:
        ratings = []
        for s in team:
            uid = r.players[s]
            assert uid is not None
            mu, sigma = current.get((uid, r.kind), (MODEL.mu, MODEL.sigma))
            before[s] = (mu, sigma)
            ratings.append(MODEL.rating(mu=mu, sigma=sigma))
        teams.append(ratings)
    ranks = [min(places[s] for s in team) for team in teams_seats]
    new = MODEL.rate(teams, ranks=[float(x) for x in ranks])
    out = []
    for team, after in zip(teams_seats, new, strict=True):
        for s, rating in zip(team, after, strict=True):
            uid = r.players[s]
            assert uid is not None
            current[(uid, r.kind)] = (float(rating.mu), float(rating.sigma))
            out.append(Row(uid, r.kind, r.game_id, r.finished_at, float(rating.mu),
                           float(rating.sigma), before[s][0], before[s][1], places[s],
                           r.adjudicated))
    return out


def _project(results: Iterable[Result], current: dict[tuple[int, str], tuple[float, float]]
             ) -> int:
    marks: list[tuple[int, datetime, bool]] = []
    rows: list[Row] = []
    for r in results:
        ok = rated(r)
        marks.append((r.game_id, r.finished_at, ok))
        if ok:
            rows.extend(rate(r, current))
    with connection.cursor() as cur:  # (COPY: 40,000 rows in a blink)
        with cur.copy(f"COPY {RatedGame._meta.db_table} (game_id, finished_at, rated) "
                      "FROM STDIN") as copy:
            for mark in marks:
                copy.write_row(mark)
        with cur.copy(f"COPY {Rating._meta.db_table} ({ROW_COLUMNS}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    return len(marks)


def _current_before(key: Key | None) -> dict[tuple[int, str], tuple[float, float]]:
    """Each (player, kind)'s rating after the last rated game before ``key`` (all: None)."""
    qs = Rating.objects.all()
    if key is not None:
        qs = qs.filter(finished_at__lte=key[0]).exclude(finished_at=key[0], game_id__gte=key[1])
    rows = (
        qs.order_by("user_id", "kind", "-finished_at", "-game_id")
        .distinct("user_id", "kind")
        .values_list("user_id", "kind", "mu", "sigma")
    )
    return {(u, k): (mu, sigma) for u, k, mu, sigma in rows}


def catch_up() -> int:
    """Take in every finished game not yet taken in, in order (see the module docstring).
    Returns how many games were taken in (replayed ones included)."""
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
        pending = Game.objects.filter(status=Game.FINISHED, finished_at__isnull=False).exclude(
            pk__in=RatedGame.objects.values("game_id")
        )
        first = pending.order_by("finished_at", "id").values_list("finished_at", "id").first()
        if first is None:
            return 0
        key: Key = (cast("datetime", first[0]), first[1])  # (finished_at is not null here)
        later = RatedGame.objects.filter(finished_at__gte=key[0]).exclude(
            finished_at=key[0], game_id__lt=key[1]
        )
        replay = list(later.values_list("game_id", flat=True))
        if replay:  # a game finished before games already taken in: replay from it
            log.info("ratings: replaying %d games from game %d", len(replay), key[1])
            Rating.objects.filter(game_id__in=replay).delete()
            RatedGame.objects.filter(game_id__in=replay).delete()
        current = _current_before(key)
        todo = Game.objects.filter(pk__in=replay) | pending
        return _project(results_of(todo), current)


def retake(game_id: int) -> int:
    """Take a game in again (its result was corrected): its rating rows are dropped and the
    history replayed from it (:func:`catch_up`). Returns the games taken in."""
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
        Rating.objects.filter(game_id=game_id).delete()
        RatedGame.objects.filter(game_id=game_id).delete()
    return catch_up()


def rebuild() -> int:
    """Recompute the whole history from the finished games. Returns the games taken in."""
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
        Rating.objects.all().delete()
        RatedGame.objects.all().delete()
        games = Game.objects.filter(status=Game.FINISHED, finished_at__isnull=False)
        return _project(results_of(games), {})


_PROJECTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratings")
"""Where a game finished by a socket move on the event loop is taken in (the ORM is not
for the loop, and 50 ms there would hold every socket of the process)."""


def _catch_up_apart() -> None:
    try:
        catch_up()
    except Exception:
        log.exception("ratings: catch-up failed (the next finished game takes it in)")
    finally:
        connection.close()  # (the pool's connection back, not kept by an idle thread)


def drain(timeout: float = 30.0) -> None:
    """Wait until the projector's thread has taken in what it was given (tests, before the
    database is emptied under it)."""
    _PROJECTOR.submit(lambda: None).result(timeout)


def on_batch(batch: Any) -> None:
    """(store listener, after the commit) a batch that finished a game: catch up, in the
    committing thread, or in the projector's own thread when that is the event loop."""
    if batch.outcome is None:
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        catch_up()
    else:
        _PROJECTOR.submit(_catch_up_apart)


def current(kind: str | None = None, users: list[int] | None = None) -> list[dict[str, Any]]:
    """Each player's current rating per kind: user_id, kind, mu, sigma, rating (mu - 3
    sigma), games (rated games played), best first."""
    from django.db.models import Count

    qs = Rating.objects.all()
    if kind is not None:
        qs = qs.filter(kind=kind)
    if users is not None:
        qs = qs.filter(user_id__in=users)
    counts = {
        (u, k): n
        for u, k, n in qs.values("user_id", "kind").annotate(n=Count("id"))
        .values_list("user_id", "kind", "n")
    }
    last = (
        qs.order_by("user_id", "kind", "-finished_at", "-game_id")
        .distinct("user_id", "kind")
        .values_list("user_id", "kind", "mu", "sigma", "user__username")
    )
    out: list[dict[str, Any]] = [
        {"user_id": u, "username": name, "kind": k, "mu": mu, "sigma": sigma,
         "rating": mu - 3 * sigma, "games": counts.get((u, k), 0)}
        for u, k, mu, sigma, name in last
    ]
    out.sort(key=lambda x: (-x["rating"], x["username"]))
    return out
