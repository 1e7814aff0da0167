"""The Teka ``expert`` level at the server: four expert bots play a hand through the bot
workers, and the server's time limit per decision cuts the expert's own (longer) one."""

from __future__ import annotations

import itertools
from random import Random
from typing import Any

import pytest
from server_helpers import close_all, communicator

from core.ai.bots import LEVELS
from server.games import creating
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

LIMIT = 0.3
"""The server's limit per decision in this test (the expert's own is 4 s)."""


def answer_times(game_id: int) -> tuple[list[str], list[float]]:
    """The log's event types, and the seconds between one command's events and the next's."""
    from server.games.models import Event

    rows = list(Event.objects.filter(game_id=game_id).order_by("seq").values_list(
        "payload", "created_at"))
    kinds = [str(p["type"]) for p, _t in rows]
    times = sorted({t for _b, t in rows})
    return kinds, [(b - a).total_seconds() for a, b in itertools.pairwise(times)]


async def test_expert_bots_play_a_hand_within_the_servers_limit(server_runtime: Any,
                                                                 settings: Any) -> None:
    assert "expert" in LEVELS["teka"]
    settings.GAMENIGHT = {**settings.GAMENIGHT, "BOT_PACE": 0.0, "BOT_TIME_LIMIT": LIMIT}
    bots = [{"kind": "bot", "level": "expert"} for _ in range(4)]
    game = await SHARDS.call(0, creating.create_game, "teka", {"target": 10}, bots, rng=Random(3))
    spectator = await communicator(game.pk, "spectator")
    await spectator.hello()

    def scored(f: dict[str, Any]) -> bool:
        return f["type"] == "events" and any(r["event"]["type"] == "score" for r in f["events"])

    await spectator.until(scored, 200)
    await close_all([spectator])
    kinds, gaps = await SHARDS.call(game.pk, answer_times, game.pk)
    assert kinds.count("play") >= 13, kinds  # a hand was played out to its result
    # Every answer within the limit, plus the time to start the job and append its events
    # on a busy machine (the expert alone would think up to 4 s on its slow decisions).
    assert max(gaps) < LIMIT + 2.0, sorted(gaps)[-5:]
