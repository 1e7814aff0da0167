"""Two daphne processes behind one Redis channel layer: a move made on one process reaches
the clients of the other, in order. Needs REDIS_URL (skipped otherwise)."""

from __future__ import annotations

import os
from random import Random

import pytest
from server_helpers import close_all, play_out
from test_e2e_server import ahttp, ws_client

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="needs a Redis server: set REDIS_URL=redis://host:6379/0 to run this test",
    ),
]


async def test_two_processes_one_game(daphne_pair):
    one, two = daphne_pair
    g = await ahttp(
        one,
        "POST",
        "/api/games/",
        {
            "kind": "teeko",
            "options": {"move_cap": 60},
            "seats": [{"kind": "guest"}, {"kind": "guest"}],
        },
    )
    secrets = g["guest_secrets"]
    a = await ws_client(one, g["id"], "a@1")
    b = await ws_client(two, g["id"], "b@2")
    watchers = [await ws_client(one, g["id"], "w@1"), await ws_client(two, g["id"], "w@2")]
    await a.hello(0, secret=secrets["0"])
    await b.hello(1, secret=secrets["1"])
    for w in watchers:
        await w.hello()
    try:
        outcome = await play_out({0: a, 1: b}, watchers, Random(5), timeout=60)
    except Exception:
        for c in (a, b, *watchers):
            print(
                c.name,
                c.seq,
                c.outcome,
                [(f["type"], f.get("from"), f.get("to")) for f in c.frames[-4:]],
            )
        print(one.output()[-3000:], two.output()[-3000:])
        raise
    assert outcome is not None
    assert a.events == b.events == watchers[0].events == watchers[1].events
    assert (await ahttp(two, "GET", f"/api/games/{g['id']}/verify/"))["ok"]
    await close_all([a, b, *watchers])


async def test_a_lost_notification_is_made_good_by_the_reconciler(tmp_path):
    """Redis pub/sub keeps nothing for a subscriber whose connection is down: a move whose
    notification never reached this process (here: appended by a process that publishes
    nothing, this test's own) still reaches its sockets, from the log heads it checks."""
    from asgiref.sync import sync_to_async
    from django.db import connections
    from server_fixtures import start_daphne, stop_daphne

    from server.games import append

    server = start_daphne(tmp_path, "reconcile", {"GAMENIGHT_REDIS_RECONCILE": "1"})
    try:
        g = await ahttp(server, "POST", "/api/games/",
                        {"kind": "teeko", "seats": [{"kind": "guest"}, {"kind": "guest"}]})
        watcher = await ws_client(server, g["id"], "w")
        await watcher.hello()
        head = watcher.seq
        seat = watcher.to_act[0]

        def append_move() -> None:
            try:
                append.submit(g["id"], seat, {"type": "place", "to": "c3"}, head)
            finally:
                connections.close_all()

        await sync_to_async(append_move)()
        await watcher.sync_to(head + 1, timeout=60)
        assert watcher.events[-1]["event"]["to"] == "c3"
        await close_all([watcher])
    finally:
        stop_daphne(server)
