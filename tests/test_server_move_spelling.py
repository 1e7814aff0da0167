"""A move names its squares one way (issue 26, reproduction 5: ``"C3 "`` and upper-case
squares were taken as moves): the name the game's legal moves give (``"c3"``); any other
spelling is refused as ``malformed`` with the reason, and nothing is appended. Through the
game socket, in-process, on real PostgreSQL."""

from __future__ import annotations

import pytest
from server_helpers import close_all, communicator

from server.games import cache, creating
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]



def spellings(name: str) -> list[str]:
    """Other ways to write the square ``name`` ("c3"): upper case, spaces, a tab, a space
    inside, a full-width digit."""
    wide = name[0] + chr(ord(name[1]) + 0xFEE0)
    return [name.upper(), name + " ", " " + name, name.upper() + " ", name + "\t",
            f"{name[0]} {name[1]}", wide]


async def test_squares_have_one_spelling(server_runtime):
    for kind in ("teeko", "tiku"):
        game = await SHARDS.call(0, creating.create_game, kind, {}, [
            {"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bob"}])
        clients = []
        for seat in (0, 1):
            c = await communicator(game.pk, f"seat{seat}")
            await c.hello(seat, secret=game.guest_secrets[seat])
            clients.append(c)
        # (the player to move: its placement or move)
        a, legal = next((c, m) for c in clients for m in c.legal if "to" in m)
        seq = a.seq
        for spelled in spellings(legal["to"]):
            command = {**legal, "to": spelled}
            answer = await a.command(command)
            assert answer["type"] == "error" and answer["code"] == "malformed", (kind, command)
            assert "is not a square" in answer["reason"] and "lower-case" in answer["reason"]
        head = (await SHARDS.call(0, cache.entry, game.pk, fresh=True)).seq
        assert a.seq == seq == head  # nothing appended
        assert (await a.command(legal))["type"] == "ok"  # (the one spelling)
        await close_all(clients)
