"""One conformance suite over every game in core.GAMES (OpenSpiel style).

Seeded random playthroughs of every example option set: every legal command applies; junk,
wrong-seat, out-of-turn and unlisted commands raise IllegalMoveError and change nothing;
``decide`` never mutates the state; folding the log equals the live state; commands, events
and views survive a JSON round trip; no viewer's view or redacted events ever contain one of
``game.secrets(state, viewer)``.

GAMENIGHT_CONFORMANCE_SCALE (default 1) multiplies the number of playthroughs.
"""

from __future__ import annotations

import json
import os
from random import Random
from typing import Any

import pytest
from leaks import strings_in

from core import ALL, GAMES, SPECTATOR, IllegalMoveError, Outcome
from core.api import META_COMMANDS, TABLE_EVENTS, Game, dumps, fold

SCALE = float(os.environ.get("GAMENIGHT_CONFORMANCE_SCALE", "1"))
# Playthroughs per game (summed over its example option sets): 900 in all, some 30 s of a
# core; GAMENIGHT_CONFORMANCE_SCALE=10 for a deep run.
RUNS = {"teeko": 500, "tiku": 200, "tedoku": 100, "teka": 100}
STEP_CAP = 20000


def roundtrip(value: Any) -> Any:
    return json.loads(json.dumps(value))


JUNK: list[Any] = [None, 3, "place", [], {}, {"type": 5}, {"type": "no-such-command"},
                   {"type": "move", "from": [1], "to": None}, {"type": "play", "card": "ZZ"}]


def check_views(
    game: Game, state: Any, new_events: list[dict[str, Any]], viewers: list[int]
) -> None:
    waiting = game.to_act(state)
    for viewer in viewers:
        shown = game.visible_to_act(state, viewer)
        assert set(shown) <= set(waiting)
        if viewer >= 0:
            assert (viewer in shown) == (viewer in waiting), "a seat must know it is asked"
        view = game.view(state, viewer)
        assert roundtrip(view) == view
        if viewer >= 0 and game.outcome(state) is None:
            again = game.resample(roundtrip(view), viewer, Random(viewer))
            assert dumps(game.view(again, viewer)) == dumps(view), "resample disagrees with view"
            assert game.legal_commands(again, viewer) == game.legal_commands(state, viewer)
        secret = set(game.secrets(state, viewer))
        if not secret:
            continue
        leaked = strings_in(view) & secret
        assert not leaked, f"view for {viewer} leaks {sorted(leaked)[:5]}"
        for ev in new_events:
            red = game.redact(ev, viewer)
            assert roundtrip(red) == red
            leaked = strings_in(red) & secret
            assert not leaked, f"event {ev['type']} for {viewer} leaks {sorted(leaked)[:5]}"


def playthrough(game: Game, raw_options: dict[str, Any], seed: int, probe: bool) -> None:
    rng = Random(seed)
    options = game.options(raw_options)
    assert roundtrip(options) == options
    log = list(game.start(options, Random(seed)))
    assert log and log[0]["type"] == "start"
    state = fold(game, log)
    seats = game.seats(state)
    viewers = [*range(seats), SPECTATOR]
    check_views(game, state, log, viewers)
    steps = 0
    while game.outcome(state) is None:
        steps += 1
        assert steps < STEP_CAP, "game does not end"
        actors = game.to_act(state)
        assert actors, "nobody may act in an unfinished game"
        seat = rng.choice(actors)
        legal = game.legal_commands(state, seat)
        assert legal, f"seat {seat} must act but has no legal command"
        moves = [c for c in legal if c["type"] not in META_COMMANDS] or legal
        command = rng.choice(moves if rng.random() < 0.98 else legal)
        assert roundtrip(command) == command
        check = probe or steps % 7 == 0
        before = dumps(game.view(state, ALL)) if check else ""
        if probe:
            for junk in JUNK:
                if junk in legal:
                    continue
                with pytest.raises(IllegalMoveError):
                    game.decide(state, seat, junk, rng)
            for bad_seat in (-1, seats, 99):
                with pytest.raises(IllegalMoveError) as err:
                    game.decide(state, bad_seat, command, rng)
                assert err.value.code == "wrong_seat"
            for other in range(seats):
                if other not in actors and not game.legal_commands(state, other):
                    with pytest.raises(IllegalMoveError):
                        game.decide(state, other, command, rng)
            assert dumps(game.view(state, ALL)) == before, "a refused command changed the state"
        events = game.decide(state, seat, roundtrip(command) if check else command, rng)
        if check:
            assert dumps(game.view(state, ALL)) == before, "decide mutated the state"
        assert events, "a legal command produced no event"
        for ev in events:
            if check:
                assert roundtrip(ev) == ev
            state = game.evolve(state, ev)
        log.extend(events)
        if check:
            check_views(game, state, events, viewers)
    outcome = game.outcome(state)
    assert outcome is not None
    assert roundtrip(outcome.to_json()) == outcome.to_json()
    assert game.to_act(state) == []
    rebuilt = fold(game, roundtrip(log))
    assert dumps(game.view(rebuilt, ALL)) == dumps(game.view(state, ALL))
    with pytest.raises(IllegalMoveError):
        game.decide(state, 0, {"type": "resign"}, rng)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_playthroughs(name: str) -> None:
    game = GAMES[name]
    variants = game.example_options()
    runs = max(len(variants), int(RUNS.get(name, 100) * SCALE))
    for i in range(runs):
        playthrough(game, variants[i % len(variants)], seed=1000 * i + 7, probe=i % 10 == 0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_registry(name: str) -> None:
    game = GAMES[name]
    assert game.name == name
    assert game.min_seats <= game.max_seats
    for raw in game.example_options():
        opts = game.options(raw)
        assert game.min_seats <= opts["seats"] <= game.max_seats


@pytest.mark.parametrize("name", sorted(GAMES))
def test_what_the_rest_asks_of_a_game(name: str) -> None:
    """The game API the server, leagues, pages and app read (docs/games.md): sides split the
    seats, a label per seat and side, a place per seat with the winners first, option fields
    whose defaults are the game's, a board drawing, a league pairing; all of it JSON."""
    game = GAMES[name]
    for seats in range(game.min_seats, game.max_seats + 1):
        sides = game.sides(seats)
        assert sorted(s for side in sides for s in side) == list(range(seats))
        assert len(game.seat_labels(seats)) == seats
        assert len(game.side_labels(seats)) == len(sides)
        info = game.info(seats)
        assert roundtrip(info) == info and info["kind"] == name and info["title"]
        winners = sides[0] if len(sides) > 1 else []
        ranks = game.ranking(Outcome(winners, "score", []), seats)
        assert len(ranks) == seats and all(ranks[s] == 0 for s in winners)
        assert all(r > 0 for s, r in enumerate(ranks) if winners and s not in winners)
    defaults = game.options({})
    for f in game.option_fields():
        assert f["kind"] == "choice" and f["choices"] and f["name"] != "seats"
        assert f["default"] == f["choices"][0]["value"] == defaults[f["name"]]
    assert game.board()["drawing"] and game.league()["pairing"] in (
        "pairs", "partnerships", "tables")


TABLE_SAMPLES = [
    {"type": "table", "move_limit": 30, "clock": None, "increment": 0, "abandon": 60},
    {"type": "timeout", "seat": 0},
    {"type": "seat_to_bot", "seat": 1, "by": 0, "level": "random"},
]
LOSES_ON_TIME = {"teeko", "tiku"}  # the others: a bot makes the timed-out seat's move


@pytest.mark.parametrize("name", sorted(GAMES))
def test_table_events_and_forfeit(name: str) -> None:
    """Table events (time rules, timeouts, seats handed to bots) leave the state as it is at
    any point of a game; ``forfeit`` ends a two-player game with that seat losing on time
    and is ``[]`` for the others."""
    assert {ev["type"] for ev in TABLE_SAMPLES} == TABLE_EVENTS
    game = GAMES[name]
    rng = Random(5)
    state = fold(game, game.start(game.options(game.example_options()[0]), Random(5)))
    seats = game.seats(state)
    for _step in range(40):
        if game.outcome(state) is not None:
            break
        before = dumps(game.view(state, ALL))
        for ev in TABLE_SAMPLES:
            assert dumps(game.view(game.evolve(state, ev), ALL)) == before
        for seat in range(seats):
            events = game.forfeit(state, seat)
            assert dumps(game.view(state, ALL)) == before, "forfeit mutated the state"
            assert bool(events) == (name in LOSES_ON_TIME)
            if events:
                after = state
                for ev in events:
                    after = game.evolve(after, roundtrip(ev))
                out = game.outcome(after)
                assert out is not None and out.winners == [1 - seat] and out.reason == "timeout"
        if name in LOSES_ON_TIME:
            with pytest.raises(IllegalMoveError):
                game.forfeit(state, seats)
        actor = rng.choice(game.to_act(state))
        moves = [c for c in game.legal_commands(state, actor) if c["type"] not in META_COMMANDS]
        for ev in game.decide(state, actor, rng.choice(moves), rng):
            state = game.evolve(state, ev)
    if name in LOSES_ON_TIME:
        state = fold(game, [*game.start(game.options({}), Random(1)), *game.forfeit(
            fold(game, game.start(game.options({}), Random(1))), 0)])
        with pytest.raises(IllegalMoveError):
            game.forfeit(state, 1)
