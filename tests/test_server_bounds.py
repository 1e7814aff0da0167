"""Per-game structures of a server process stay bounded when more games are played than the
bounds hold: the game cache (games and estimated bytes), the game locks, the presence times
and the bot seat cache. Whole games over the socket (in-process) on real PostgreSQL."""

from __future__ import annotations

import gc
from random import Random

import pytest
from server_helpers import close_all, communicator, play_out

from server.games import cache, creating, loopsubmit, runtime
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

GAMES = 9
BOUND = 3


async def db(fn, /, *args, **kw):
    return await SHARDS.call(0, fn, *args, **kw)


@pytest.fixture
def small_bounds(settings):
    settings.GAMENIGHT = {**settings.GAMENIGHT, "AWAY_GAMES": BOUND, "CACHE_GAMES": BOUND}


def sizes() -> dict[str, int]:
    gc.collect()  # (the weak lock tables: a lock nobody refers to goes with the collector)
    hub = runtime.HUB
    return {"games": len(cache._cache), "locks": len(cache._game_locks),
            "seen_at": len(hub.seen_at), "left_at": len(hub.left_at),
            "async_locks": len(loopsubmit.ASYNC_LOCKS), "bot_seats": len(runtime.BOTS.bot_seats),
            "failures": len(runtime.BOTS.failures)}


async def test_structures_stay_bounded_with_more_games_than_the_bound(server_runtime, small_bounds):
    """Finished and abandoned games, with players, a bot and spectators: after each game no
    structure holds more than its bound, however many games went before."""
    rng = Random(7)
    most: dict[str, int] = {}
    for i in range(GAMES):
        if i % 3 == 2:  # a player and a bot (Tiku), played out
            game = await db(creating.create_game, "tiku", {}, [{"kind": "guest"}, {"kind": "bot",
                                                                                "level": "easy"}])
            a, w = await communicator(game.pk), await communicator(game.pk)
            await a.hello(0, secret=game.guest_secrets[0])
            await w.hello()
            await play_out({0: a}, [w], rng)
            await close_all([a, w])
        elif i % 3 == 1:  # abandoned: a few moves, then everybody leaves
            game = await db(creating.create_game, "teeko", {},
                            [{"kind": "guest"}, {"kind": "guest"}])
            a, b = await communicator(game.pk), await communicator(game.pk)
            await a.hello(0, secret=game.guest_secrets[0])
            await b.hello(1, secret=game.guest_secrets[1])
            await a.command({"type": "place", "to": "c3"})
            await close_all([a, b])
        else:  # two players and a spectator, played out
            game = await db(creating.create_game, "teeko", {"move_cap": 30},
                            [{"kind": "guest"}, {"kind": "guest"}])
            a, b = await communicator(game.pk), await communicator(game.pk)
            w = await communicator(game.pk)
            await a.hello(0, secret=game.guest_secrets[0])
            await b.hello(1, secret=game.guest_secrets[1])
            await w.hello()
            await play_out({0: a, 1: b}, [w], rng)
            await close_all([a, b, w])
        now = sizes()
        for k, v in now.items():
            most[k] = max(most.get(k, 0), v)
        assert now["games"] <= BOUND, now
        assert now["locks"] <= 1, now  # (no game is being worked on between games)
        assert now["async_locks"] == 0, now
        assert now["seen_at"] <= BOUND, now
        assert now["left_at"] <= 2 * BOUND, now  # (two seats a game)
        assert now["bot_seats"] <= BOUND, now
    assert runtime.HUB.rooms == {}
    # the bounds were reached: more games were played than they hold
    assert most["games"] == BOUND and most["seen_at"] >= 1


async def test_cache_bounded_by_bytes(server_runtime, settings):
    """The game cache keeps the folds it can afford: the estimated bytes never exceed the
    budget, the least recently used go first, and an evicted game is read back from the log."""
    games = [await db(creating.create_game, "teeko", {"move_cap": 30},
                      [{"kind": "guest"}, {"kind": "guest"}]) for _ in range(4)]
    rng = Random(3)
    for game in games:
        a, b = await communicator(game.pk), await communicator(game.pk)
        await a.hello(0, secret=game.guest_secrets[0])
        await b.hello(1, secret=game.guest_secrets[1])
        await play_out({0: a, 1: b}, [], rng)
        await close_all([a, b])
    cache.drop_cache()
    one = (await db(cache.entry, games[0].pk)).nbytes
    assert one > 1000
    cache.drop_cache()
    settings.GAMENIGHT = {**settings.GAMENIGHT, "CACHE_MB": one * 2.5 / 2**20}
    heads = {}
    for game in games:
        e = await db(cache.entry, game.pk)
        heads[game.pk] = e.seq
        fig = cache.cache_figures()
        assert fig["bytes"] <= cache.cache_bytes(), fig
        assert fig["bytes"] == sum(x.nbytes for x in cache._cache.values())
    assert list(cache._cache) == [g.pk for g in games[-2:]]  # (each game about the same size)
    await db(cache.entry, games[2].pk)  # a hit makes it the most recently used
    await db(cache.entry, games[0].pk)
    assert list(cache._cache) == [games[2].pk, games[0].pk]
    for game in games:  # evicted games come back whole
        assert (await db(cache.entry, game.pk)).seq == heads[game.pk]
