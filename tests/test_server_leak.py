"""No frame sent to a seat or a spectator holds a card or placement it may not see.

Full games of the four kinds over sockets (every seat and a spectator connected, a bot at
one seat); every frame each connection received is checked against
``game.secrets(state, viewer)`` for the state that connection had reached when the frame
arrived, and its envelopes (record seats, ``to_act``, ``bot`` and ``presence`` frames)
against what the viewer may know (:func:`server_helpers.check_frames`)."""

from __future__ import annotations

import functools
import json
from random import Random
from typing import Any

import pytest
from server_helpers import (
    SEND_TIMEOUT,
    check_frames,
    check_record,
    close_all,
    communicator,
    core_ready,
    play_out,
    strings_in,
)
from test_e2e_server import ws_client

from core import upcast
from core.api import SPECTATOR
from server.games import cache, creating
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def states_by_seq(game_id: int) -> tuple[Any, list[Any], list[Any]]:
    e = cache.entry(game_id, fresh=True)
    g = e.game
    states = [g.initial()]
    for _, _, ev in e.log:
        states.append(g.evolve(states[-1], ev))
    return g, list(e.log), states


def check_http(game_id: int, viewer: int, secret: str | None) -> None:
    """(worker thread) what ``/state/?events=1`` and ``/log/`` tell ``viewer`` about a live
    game: records as :func:`server_helpers.check_record` says, ``to_act`` as the core shows
    it, and none of the viewer's secrets: the view none of those at its seq, each record none
    of those once its event had happened (unless the game has just ended: then all is
    shown)."""
    from django.test import Client

    c = Client()
    q = "" if secret is None else f"seat={viewer}&secret={secret}"
    state = c.get(f"/api/games/{game_id}/state/?events=1&{q}").json()
    raw = b"".join(c.get(f"/api/games/{game_id}/log/?{q}").streaming_content)
    lines = [json.loads(x) for x in raw.decode().splitlines()]
    g, log, states = states_by_seq(game_id)
    if state["viewer"] != viewer or lines[0]["viewer"] != viewer:
        assert g.outcome(states[-1]) is not None  # finished meanwhile: shown whole
        return
    at = state["seq"]
    assert state["to_act"] == g.visible_to_act(states[at], viewer)
    for rec in lines[1:]:
        assert rec.pop("v") == upcast.current(g.name)  # (the schema version: today's)
    for rec in [*state["events"], *lines[1:]]:
        check_record(g, log, rec, viewer)
        # each record against what was secret once its event had happened: a card the viewer
        # held (or saw played) in an earlier deal may be in another hand now
        assert not strings_in(rec) & set(g.secrets(states[rec["seq"]], viewer)), rec
    view = {k: v for k, v in state.items() if k != "events"}
    assert not strings_in(view) & set(g.secrets(states[at], viewer))


async def run_and_check(
    kind: str,
    options: dict[str, Any],
    seats: int,
    seed: int,
    bot: int | None = None,
    deal_seed: int | None = None,
    hidden: bool = True,
    server: Any = None,
) -> None:
    """Play a game with guests at every seat but ``bot`` (a bot, "easy"); ``deal_seed``
    seeds the game's start (its shuffle and first deal). Sockets: in this process (channels'
    communicator), or to ``server`` (a daphne process) over real WebSockets."""
    reason = core_ready(kind)
    if reason:
        pytest.skip(reason)
    specs: list[Any] = [{"kind": "guest", "name": f"P{i}"} for i in range(seats)]
    if bot is not None:
        specs[bot] = {"kind": "bot", "level": "easy"}
    rng = Random(deal_seed) if deal_seed is not None else None
    game = await SHARDS.call(0, creating.create_game, kind, options, specs, rng=rng)
    # record, for every frame (from the first: welcome and catch-up too), the seq its
    # receiver had reached
    marks: dict[str, list[tuple[int, dict[str, Any]]]] = {}

    def recording(c: Any) -> Any:
        orig = c._absorb

        def absorb(frame: dict[str, Any]) -> None:
            orig(frame)
            marks.setdefault(c.name, []).append((c.seq, frame))

        c._absorb = absorb
        return c

    connect = communicator if server is None else functools.partial(ws_client, server)
    spectator = recording(await connect(game.pk, "spectator"))
    await spectator.hello()
    players = {}
    for i in range(seats):
        if i == bot:
            continue
        players[i] = recording(await connect(game.pk, f"seat {i}"))
        await players[i].hello(i, secret=game.guest_secrets[i])
    everyone = [*players.values(), spectator]
    http_checked = [0]

    async def over_http() -> None:
        # now and then, mid-game: /state/?events=1 and the live /log/ for every viewer
        http_checked[0] += 1
        if http_checked[0] % 7 == 1:
            creds = {SPECTATOR: None} | {i: game.guest_secrets[i] for i in players}
            for viewer, secret in creds.items():
                await SHARDS.call(game.pk, check_http, game.pk, viewer, secret)

    outcome = await play_out(players, [spectator], Random(seed), timeout=2 * SEND_TIMEOUT,
                             after_each=over_http)
    assert http_checked[0] >= 2
    assert outcome is not None
    g, log, states = await SHARDS.call(game.pk, states_by_seq, game.pk)
    checked = 0
    viewers = {f"seat {i}": i for i in range(seats)} | {"spectator": SPECTATOR}
    for name, frames in marks.items():
        viewer = viewers[name]
        for seq, frame in frames:
            if frame["type"] == "finished":
                continue  # the end: everything is revealed on purpose
            secret = set(g.secrets(states[seq], viewer))
            leaked = strings_in(frame) & secret
            assert not leaked, (
                f"{name} got {sorted(leaked)[:5]} in a {frame['type']} frame at seq {seq}"
            )
            checked += 1
        assert check_frames(g, log, states, viewer, frames) == len(frames)
    assert checked > (50 if hidden else 10)
    if hidden:  # what was hidden was really there to hide (the check is not vacuous)
        assert any(g.secrets(s, SPECTATOR) for s in states[1:-1])
    if bot is not None:  # the bot was seen thinking
        assert any(f["type"] == "bot" for _q, f in marks["spectator"])
    await close_all(everyone)


async def test_teka_match_leaks_nothing(server_runtime):
    await run_and_check("teka", {"target": 20}, 4, seed=11, deal_seed=11)


async def test_teka_throw_in_with_a_bot_leaks_nothing(server_runtime, settings):
    settings.GAMENIGHT = {**settings.GAMENIGHT, "BOT_SECRET_DELAY": 0.2}
    # deal seed 91: only seat 1 (the bot) is asked about a throw-in at the first deal
    await run_and_check("teka", {"target": 1}, 4, seed=3, bot=1, deal_seed=91)


async def test_teka_throw_in_asked_of_a_later_seat_only(server_runtime):
    """Deal seed 19: only seat 3 is asked about a throw-in, and seat 0 is not told who is
    asked (its to_act is empty). The players are people at every seat: the game waits for
    seat 3, not for a bot (a random deal like this once left the Teka match waiting)."""
    await run_and_check("teka", {"target": 1}, 4, seed=4, deal_seed=19)


async def test_tedoku_game_leaks_nothing(server_runtime):
    await run_and_check("tedoku", {"seats": 3, "bonus": True}, 3, seed=5, bot=2)


async def test_teeko_and_tiku_envelopes(server_runtime):
    await run_and_check("teeko", {}, 2, seed=7, bot=1, hidden=False)
    await run_and_check("tiku", {}, 2, seed=8, bot=0, hidden=False)


async def test_four_games_over_daphne(daphne_server, server_runtime):
    """The same checks with every socket a real one to a daphne process (bots thinking in
    its process pool)."""
    server = daphne_server
    await run_and_check("teeko", {}, 2, seed=7, bot=1, hidden=False, server=server)
    await run_and_check("tiku", {}, 2, seed=8, bot=0, hidden=False, server=server)
    await run_and_check("tedoku", {"seats": 2}, 2, seed=5, bot=1, server=server)
    await run_and_check("teka", {"target": 1}, 4, seed=3, bot=1, deal_seed=91, server=server)
