"""Ratings: openskill per player per kind, kept incrementally after each commit
that finishes a game, and ``rebuild_ratings`` gives exactly the same figures."""

from __future__ import annotations

import datetime as dt
import io
import itertools
from random import Random

import pytest
from django.core.management import call_command
from server_helpers import pick_move

from server.games import append, cache, creating
from server.games.models import Event, Game
from server.leagues import ratings
from server.leagues.models import RatedGame, Rating
from server.leagues.standings import Result

T0 = dt.datetime(2026, 3, 1, 19, 30, tzinfo=dt.UTC)


def res(players, winners, scores=None, kind="teeko", left=None, reason="score"):
    return Result(1, kind, T0, players, left or [False] * len(players), winners,
                  scores or [], reason)


def test_teka_is_two_teams_and_tedoku_a_ranking():
    cur: dict = {}
    rows = ratings.rate(res([1, 2, 3, 4], [0, 2], [104, 52, 104, 52], kind="teka"), cur)
    by = {r.user_id: r for r in rows}
    assert by[1].mu == by[3].mu > 25 > by[2].mu == by[4].mu  # partners move together
    cur = {}
    rows = ratings.rate(res([1, 2, 3, 4, 5], [2], [30, 40, 50, 40, 10], kind="tedoku"), cur)
    mu = {r.user_id: r.mu for r in rows}
    assert mu[3] > mu[2] == mu[4] >= mu[1] > mu[5]  # (openskill PL: a tie below a tie)
    assert cur[(3, "tedoku")][0] == mu[3]
    # a player who left is placed last
    rows = ratings.rate(res([1, 2], [0], left=[True, False], kind="teeko", reason="pattern"), {})
    assert {r.user_id: r.place for r in rows} == {1: 1, 2: 0}
    assert not ratings.rated(res([1, None], [0]))
    assert not ratings.rated(res([1, 1], [0]))
    assert not ratings.rated(res([1, 2], [], reason="void"))


def finish(game_id: int, seed: int) -> None:
    rng = Random(seed)
    while True:
        e = cache.entry(game_id)
        if e.game.outcome(e.state) is not None:
            return
        seat = rng.choice(e.game.to_act(e.state))
        append.submit(game_id, seat, pick_move(e.game.legal_commands(e.state, seat), rng), e.seq)


def history() -> list[tuple]:
    return list(Rating.objects.order_by("finished_at", "game_id", "user_id").values_list(
        "user_id", "kind", "game_id", "mu", "sigma", "mu_before", "sigma_before", "place",
        "adjudicated"))


@pytest.mark.django_db(transaction=True)
def test_kept_after_each_game_and_rebuilt_exactly(django_user_model, server_runtime):
    names = ["ann", "bob", "cid", "dee"]
    for n in names:
        django_user_model.objects.create_user(n, password="pw")
    rng = Random(5)
    games = []
    for i in range(12):
        kind = "teeko" if i % 3 else "tiku"
        a, b = rng.sample(names, 2)
        g = creating.create_game(kind, {"move_cap": 40} if kind == "teeko" else {},
                              [{"kind": "user", "username": a}, {"kind": "user", "username": b}])
        finish(g.pk, i)
        games.append(g.pk)
        # (the projector ran after the commit that finished it)
        assert RatedGame.objects.filter(game_id=g.pk, rated=True).exists()
        assert Rating.objects.filter(game_id=g.pk).count() == 2
    # a game with a bot is not rated; a guest neither
    g = creating.create_game("tiku", {}, [{"kind": "user", "username": "ann"},
                                       {"kind": "bot", "level": "random"}])
    finish(g.pk, 99)
    assert RatedGame.objects.filter(game_id=g.pk, rated=False).exists()
    # each player's history chains: the next game starts from the last figures
    for n in names:
        rows = list(Rating.objects.filter(user__username=n, kind="teeko"))
        for prev, nxt in itertools.pairwise(rows):
            assert (nxt.mu_before, nxt.sigma_before) == (prev.mu, prev.sigma)
    # a log imported with times before the last games: the history is replayed from it
    src = Game.objects.get(pk=games[1])
    events = list(Event.objects.filter(game=src).order_by("seq").values_list("seat", "payload"))
    early = Game.objects.order_by("finished_at").values_list("finished_at", flat=True)[2]
    times = [early - dt.timedelta(seconds=len(events) - i) for i in range(len(events))]
    imported = creating.import_game(
        src.kind, None, [{"kind": "user", "username": "dee"}, {"kind": "user", "username": "cid"}],
        [{"seat": s, "event": e} for s, e in events], times=times)
    assert Rating.objects.filter(game_id=imported.pk).count() == 2
    incremental = history()
    assert len(incremental) == 26
    out = io.StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert "rebuilt ratings: 14 finished games" in \
        out.getvalue()
    assert history() == incremental  # exactly the same figures
    top = ratings.current("teeko")
    assert top == sorted(top, key=lambda x: -x["rating"])


@pytest.mark.django_db(transaction=True)
async def test_a_game_finished_on_the_event_loop_is_rated(django_user_model, server_runtime):
    """A socket move of a cached game is appended on the event loop (runtime.submit), and
    the store's listeners run there after it. The projector used the ORM right there:
    Django refused it (SynchronousOnlyOperation, logged), so a game finished by a socket move
    was not rated until some later game finished in a thread. Now it is rated at once, by
    the projector's own thread, and the loop is not held for it."""
    import asyncio

    from server.games import runtime

    for n in ("eve", "fay"):  # (database work in the shards' threads: their connections
        # are closed after the test, so the test database can be dropped)
        await runtime.SHARDS.call(0, django_user_model.objects.create_user, n, password="pw")
    game = await runtime.SHARDS.call(0, creating.create_game, "teeko", {}, [
        {"kind": "user", "username": "eve"}, {"kind": "user", "username": "fay"}])
    gid = game.pk
    # White plays a1 b1 c1 d1 (a row), Black somewhere else.
    plan = [("place", "a1"), ("place", "a5"), ("place", "b1"), ("place", "b5"),
            ("place", "c1"), ("place", "e3"), ("place", "d1")]
    e = await runtime.SHARDS.call(gid, cache.entry, gid)  # cached: moves go on the loop
    seq = e.seq
    for i, (kind, to) in enumerate(plan):
        res = await runtime.submit(gid, i % 2, {"type": kind, "to": to}, seq)
        seq = res.seq
    assert res.outcome is not None

    def rows() -> int:
        return Rating.objects.filter(game_id=gid).count()

    for _ in range(2400):  # (rated in a thread of its own: up to 2 minutes, a hang)
        if await runtime.SHARDS.call(0, rows) == 2:
            break
        await asyncio.sleep(0.05)
    assert await runtime.SHARDS.call(0, rows) == 2
