"""The Teka analysis as a budgeted service, over real HTTP on a real daphne
and the test PostgreSQL: a queue of bounded length (503 ``queue_full``), a limit per client
(429 ``too_many_analyses``), both with ``Retry-After`` and changing nothing; the answer says
where a match is in the queue; a replay that is open (``watch=1``) goes first and has a
runner of its own, so strangers' requests do not hold it up (the issue's reproduction 2);
a match's CPU budget ends its analysis with what was solved, marked partial; a league match
is analysed as it finishes, before anyone asks; a queued match no longer in the database is
dropped quietly.

Clients are told apart by their address: each request leaves from its own loopback address
(127.0.0.N; Linux routes all of 127/8 to the loopback interface). The slow matches are
random play to 400 points (minutes of CPU each); the quick one is :data:`teka_match.DEAL`,
solved in milliseconds."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from server_fixtures import Daphne, start_daphne, stop_daphne
from server_helpers import Client
from teka_match import BID, SEATS, THROW, teka_match, throwing

from server.games import creating
from server.games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def ask(server: Daphne, game_id: int, client: int = 1, watch: bool | str = False,
        token: str = "") -> tuple[int, Any, dict[str, str]]:
    """``GET /api/games/<id>/analysis/`` from address 127.0.0.<client> (as the user of
    ``token``, if given)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60,
                                      source_address=(f"127.0.0.{client}", 0))
    try:
        flag = watch if isinstance(watch, str) else ("1" if watch else "")
        conn.request("GET", f"/api/games/{game_id}/analysis/" + (f"?watch={flag}" if flag else ""),
                     headers={"Authorization": f"Token {token}"} if token else {})
        r = conn.getresponse()
        return r.status, json.loads(r.read()), {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def call(server: Daphne, method: str, path: str, data: Any) -> tuple[int, Any, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request(method, path, json.dumps(data), {"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read()), r.getheaders()
    finally:
        conn.close()


def slow_match(seed: int) -> int:
    """A finished match of random play to 400 points: some 17 hands, 150 to 200 CPU s to
    analyse here (the issue's strangers' matches: random bots, distinct matches)."""
    from bench.analysisbench import random_match

    events = random_match(400, seed)
    return int(creating.import_game("teka", None, SEATS, events).pk)


def quick_match() -> int:
    events = teka_match(throwing(THROW), bid=BID + 1)
    return int(creating.import_game("teka", None, SEATS, events).pk)


def until(what: str, check: Any, seconds: float = 180) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        out = check()
        if out:
            return out
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.2)


def server(tmp_path: Path, name: str, **env: str) -> Daphne:
    return start_daphne(tmp_path, name, {
        "GAMENIGHT_ANALYSIS_DIR": str(tmp_path / "analysis"),
        "GAMENIGHT_TEKA_SOLVE_SECONDS": "30",
        "GAMENIGHT_ANALYSIS_CPU_SECONDS": "300",
        **env,
    })


def test_the_queue_is_bounded_per_server_and_per_client_and_says_where_a_match_is(
    transactional_db: Any, tmp_path: Path
) -> None:
    slow = [slow_match(seed) for seed in range(1, 7)]
    s = server(tmp_path, "queue", GAMENIGHT_ANALYSIS_QUEUE="3", GAMENIGHT_ANALYSIS_PER_CLIENT="2",
               GAMENIGHT_TEKA_ANALYSES="1", GAMENIGHT_ANALYSIS_WATCHED_SLOTS="0")
    try:
        status, first, headers = ask(s, slow[0], client=2)
        assert status == 202 and headers["retry-after"] == "2", first
        assert first["state"] in ("queued", "computing")
        # the first one runs (the queue's bound counts matches waiting, not running)
        until("the first analysis runs", lambda: ask(s, slow[0], client=2)[1]["state"]
              == "computing")
        status, body, _ = ask(s, slow[1], client=2)
        assert status == 202 and body["state"] == "queued", body
        assert (body["position"], body["ahead"], body["running"]) == (1, 0, 1)
        assert body["progress"] == "next in the queue" and body["watched"] is False
        # a third match from the same address: refused, and nothing queued for it
        for _ in range(2):
            status, err, headers = ask(s, slow[2], client=2)
            assert status == 429 and headers["retry-after"] == "30", err
            assert err["error"]["code"] == "too_many_analyses"
            assert "2 matches waiting" in err["error"]["reason"]
        # ... which another address may ask for
        status, body, _ = ask(s, slow[2], client=3)
        assert status == 202 and (body["position"], body["ahead"]) == (2, 1), body
        assert body["progress"] == "in the queue, 1 match ahead"
        status, body, _ = ask(s, slow[3], client=4)
        assert status == 202 and (body["position"], body["ahead"]) == (3, 2), body
        # three wait: the queue is full for a new match, from anyone
        for client in (5, 6):
            status, err, headers = ask(s, slow[4], client=client)
            assert status == 503 and headers["retry-after"] == "60", err
            assert err["error"]["code"] == "queue_full"
            assert "3 matches wait" in err["error"]["reason"]
        # asking again for a queued match is never refused; the same place
        status, body, _ = ask(s, slow[1], client=7)
        assert status == 202 and body["position"] == 1, body
        # a replay open on the last one (watch=1) puts it first: the others move down
        status, body, _ = ask(s, slow[3], client=8, watch=True)
        assert status == 202 and body["watched"] is True, body
        assert (body["position"], body["ahead"]) == (1, 0), body
        assert ask(s, slow[1], client=2)[1]["position"] == 2
        assert ask(s, slow[2], client=3)[1]["position"] == 3
        # bad input: a clear error, nothing changed
        status, err, _ = ask(s, slow[4], client=9, watch="yes")
        assert status == 400 and err["error"]["code"] == "bad_request", err
        assert ask(s, slow[4], client=9)[0] == 503
        queue = json.loads((tmp_path / "analysis" / "queue.json").read_text())["jobs"]
        assert sorted(j["game"] for j in queue) == sorted(slow[:4])
        # a replay opened on a new match is not shut out by strangers' full queue
        status, body, _ = ask(s, slow[4], client=10, watch=True)
        assert status == 202 and body["watched"] is True, body
        assert (body["position"], body["ahead"]) == (2, 1), body
        # a logged-in member watching goes before anonymous watchers
        from django.contrib.auth.models import User

        User.objects.create_user("ann", password="a long enough password")
        status, login, _ = call(s, "POST", "/api/login",
                                {"username": "ann", "password": "a long enough password"})
        assert status == 200, login
        status, body, _ = ask(s, slow[2], client=11, watch=True, token=login["token"])
        assert status == 202 and (body["position"], body["watched"]) == (1, True), body
        assert ask(s, slow[3], client=8, watch=True)[1]["position"] == 2
        assert ask(s, slow[4], client=10, watch=True)[1]["position"] == 3
        assert ask(s, slow[1], client=2)[1]["position"] == 4
        # three watched wait: a visitor's replay opened on a new match waits for a place,
        # a member's does not (fewer than three watched by members wait)
        status, err, headers = ask(s, slow[5], client=12, watch=True)
        assert status == 503 and err["error"]["code"] == "queue_full", err
        assert headers["retry-after"] == "60"
        status, body, _ = ask(s, slow[5], client=13, watch=True, token=login["token"])
        assert status == 202 and (body["position"], body["watched"]) == (2, True), body
        queue = json.loads((tmp_path / "analysis" / "queue.json").read_text())["jobs"]
        assert sorted(j["game"] for j in queue) == sorted(slow)
    finally:
        stop_daphne(s)


def test_a_watched_replay_is_analysed_while_strangers_matches_wait(
    transactional_db: Any, tmp_path: Path
) -> None:
    """Reproduction 2 of issue 26: strangers queue matches that take minutes each; a replay
    that is open is analysed at once all the same (its own runner, first in the order),
    while their matches still wait."""
    slow = [slow_match(seed) for seed in range(11, 17)]
    watched = quick_match()
    s = server(tmp_path, "watched", GAMENIGHT_TEKA_ANALYSES="1")
    try:
        for i, gid in enumerate(slow):
            status, body, _ = ask(s, gid, client=10 + i // 2)
            assert status == 202, body
        status, body, _ = ask(s, watched, client=20, watch=True)
        assert status == 202 and body["watched"] is True, body
        answers = [body]

        def done() -> Any:  # the replay page polls with watch=1
            status, body, _ = ask(s, watched, client=20, watch=True)
            answers.append(body)
            return body if status == 200 else None

        a = until("the watched match's analysis", done)
        assert a["id"] == watched and a["partial"] is False and a["cut_short"] == []
        assert a["hands"][0]["par"] == 10
        # the strangers' matches have not moved: at most one of them started
        states = [ask(s, gid, client=30)[1] for gid in slow]
        assert [b["state"] for b in states].count("queued") >= len(slow) - 2, states
        assert all(b.get("state") in ("queued", "computing") for b in states), states
        assert all(b.get("watched") in (True, None) for b in answers)
    finally:
        stop_daphne(s)


def test_a_match_past_its_cpu_budget_is_answered_partial(
    transactional_db: Any, tmp_path: Path
) -> None:
    gid = slow_match(21)
    s = server(tmp_path, "budget", GAMENIGHT_ANALYSIS_CPU_SECONDS="2")
    try:
        status, body, _ = ask(s, gid)
        assert status == 202, body

        def ready() -> Any:
            status, body, _ = ask(s, gid)
            assert status in (200, 202), body
            return body if status == 200 else None

        a = until("the analysis within its budget", ready)
        assert a["partial"] is True, a["budget"]
        hands = a["hands"]
        assert len(hands) > 3
        assert re.fullmatch(r"the match's budget of 2 CPU seconds ran out in hand \d+ of "
                            rf"{len(hands)}: the figures not solved by then are null",
                            a["partial_reason"]), a["partial_reason"]
        b = a["budget"]
        assert b["cpu_seconds"] == 2 and b["cpu_used"] >= 1.99 and b["not_tried"] > 0, b
        # what was solved before the budget ran out is there: the first hand's last cards
        # (the first solves); the last hand, after it ran out, is not solved
        first, last = hands[0], hands[-1]
        assert first["cards"][-2]["after"] is not None, first["cards"]
        assert last["par"] is None and all(
            c["cost"] is None for c in last["cards"][:-1]), last["cards"]
        listed = {(c["hand"], c["what"]) for c in a["cut_short"]}
        assert (len(hands), "par") in listed, a["cut_short"]
        # kept: asked again, the same answer at once
        status, again, _ = ask(s, gid, client=2)
        assert status == 200 and again == a
    finally:
        stop_daphne(s)


def test_a_league_match_is_analysed_as_it_finishes_before_anyone_asks(
    transactional_db: Any, tmp_path: Path
) -> None:
    from server.leagues.models import League

    league = League.objects.create(name="Teka club", kind="teka")
    events = teka_match(throwing(THROW), bid=BID + 1)
    last = max(i for i, e in enumerate(events) if e["type"] == "play")
    card = events[last]
    g = creating.import_game("teka", None, SEATS, events[:last], league=league)
    assert g.status == Game.LIVE
    secret = g.guest_secrets[card["seat"]]  # type: ignore[attr-defined]
    cache = tmp_path / "analysis"
    s = server(tmp_path, "league")
    try:
        async def play_last_card() -> None:
            ws = await websockets.connect(f"{s.ws}/ws/games/{g.pk}/")
            c = Client(ws.send, ws.recv, "last")
            await c.hello(card["seat"], secret=secret)
            answer = await c.command({"type": "play", "card": card["card"]})
            assert answer["type"] == "ok", answer
            await ws.close()

        asyncio.run(play_last_card())
        # nobody asks: the analysis appears in the cache
        until("the league match's analysis", lambda: list(cache.glob(f"teka-{g.pk}-v1-*.json")))
        status, a, _ = ask(s, g.pk)
        assert status == 200 and a["id"] == g.pk and a["partial"] is False, a
        assert a["hands"][0]["par"] == 10
        assert "waited" in a["budget"]
    finally:
        stop_daphne(s)


def test_a_queued_match_missing_from_the_database_is_dropped_without_a_traceback(
    transactional_db: Any, tmp_path: Path
) -> None:
    """A queue left by a server whose database was since restored from an older backup: the
    match it names is not there. The runner drops it with one line (no traceback: nothing went
    wrong in the server), empties the queue and answers the next match as usual."""
    missing = (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "queue.json").write_text(json.dumps({"jobs": [{
        "key": f"teka-{missing}-v1-0123456789abcdef", "kind": "teka", "game": missing,
        "head": "0123456789abcdef" * 4, "client": "", "rank": 2, "created": time.time(),
        "watched_until": 0, "watched_by": "", "state": "queued"}]}))
    s = server(tmp_path, "missing")
    try:
        until("the queue emptied", lambda: json.loads(
            (tmp_path / "analysis" / "queue.json").read_text())["jobs"] == [], 120)
        until("the line saying so", lambda: f"match {missing} is not in the database: its "
              "analysis is dropped" in s.output(), 60)
        assert "Traceback" not in s.output(), s.output()
        quick = quick_match()
        until("a match analysed after it",
              lambda: ask(s, quick)[0] == 200, 120)
    finally:
        stop_daphne(s)
    assert "Traceback" not in s.output(), s.output()
