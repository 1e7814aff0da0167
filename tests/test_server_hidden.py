"""Hidden information at the server edge: who is being waited for, and the partner draw."""

from __future__ import annotations

from random import Random

import pytest

import core
from core.api import SPECTATOR, fold
from server.games import cache, creating, reading

pytestmark = pytest.mark.django_db(transaction=True)

TEKA = core.GAMES["teka"]


def throw_in_seed() -> int:
    """A seed whose first deal gives some hand nothing above a 10 (a throw-in question)."""
    for seed in range(5000):
        state = fold(TEKA, TEKA.start(TEKA.options({}), Random(seed)))
        if TEKA.to_act(state) and TEKA.view(state, -2)["phase"] == "throw_in":
            return seed
    raise AssertionError("no throw-in deal in 5000 seeds")


def test_throw_in_question_is_not_shown_to_other_seats(server_runtime):
    seed = throw_in_seed()
    game = creating.create_game("teka", {}, [{"kind": "guest", "name": f"P{i}"} for i in range(4)],
                             rng=Random(seed))
    e = cache.entry(game.pk)
    asked = TEKA.to_act(e.state)
    assert asked, "the seed must open with a throw-in question"
    for viewer in [*range(4), SPECTATOR]:
        sent = reading.viewer_view(e, e.state, viewer)
        expected = [viewer] if viewer in asked else []
        assert sent["to_act"] == expected
        assert sent["view"].get("to_act", expected) == expected
    from server.games.runtime import HUB  # the presence frame goes to the whole room

    assert HUB.presence(game.pk)["to_act"] == []


def test_partner_draw_reseats_the_lobby(server_runtime):
    lobby = [{"kind": "guest", "name": name} for name in ("Ann", "Ben", "Cat", "Dan")]
    game = creating.create_game("teka", {"draw_for_partners": True}, lobby, rng=Random(3))
    e = cache.entry(game.pk)
    draw = next(ev for _s, _seat, ev in e.log if ev["type"] == "draw")
    names = list(game.seat_set.order_by("number").values_list("name", flat=True))
    assert names == [lobby[place]["name"] for place in draw["seating"]]
    assert sorted(names) == ["Ann", "Ben", "Cat", "Dan"]
