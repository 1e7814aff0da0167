"""No frame sent to a seat or a spectator holds a card or placement it may not see.

Full Teka and Tedoku games over sockets (every seat and a spectator connected); every frame
each connection received is checked against ``game.secrets(state, viewer)`` for the state
that connection had reached when the frame arrived."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from server_helpers import close_all, communicator, core_ready, play_out, strings_in

from core.api import SPECTATOR
from server.games import store
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]


def states_by_seq(game_id: int) -> tuple[Any, list[Any]]:
    e = store.entry(game_id, fresh=True)
    g = e.game
    states = [g.initial()]
    for _, _, ev in e.log:
        states.append(g.evolve(states[-1], ev))
    return g, states


async def run_and_check(kind: str, options: dict[str, Any], seats: int, seed: int) -> None:
    reason = core_ready(kind)
    if reason:
        pytest.skip(reason)
    game = await SHARDS.call(
        0,
        store.create_game,
        kind,
        options,
        [{"kind": "guest", "name": f"P{i}"} for i in range(seats)],
    )
    spectator = await communicator(game.pk, "spectator")
    await spectator.hello()
    players = {}
    for i in range(seats):
        players[i] = await communicator(game.pk, f"seat {i}")
        await players[i].hello(i, secret=game.guest_secrets[i])
    # record, for every frame, the seq its receiver had reached
    marks: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    everyone = [*players.values(), spectator]
    for c in everyone:
        orig = c._absorb

        def absorb(frame: dict[str, Any], c=c, orig=orig) -> None:
            orig(frame)
            marks.setdefault(c.name, []).append((c.seq, frame))

        c._absorb = absorb  # type: ignore[method-assign]
    outcome = await play_out(players, [spectator], Random(seed), timeout=20)
    assert outcome is not None
    g, states = await SHARDS.call(game.pk, states_by_seq, game.pk)
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
    assert checked > 50
    # what was hidden was really there to hide (the check is not vacuous)
    assert any(g.secrets(s, SPECTATOR) for s in states[1:-1])
    await close_all(everyone)


async def test_teka_match_leaks_nothing(server_runtime):
    await run_and_check("teka", {"target": 20}, 4, seed=11)


async def test_tedoku_game_leaks_nothing(server_runtime):
    await run_and_check("tedoku", {"seats": 3, "bonus": True}, 3, seed=5)
