"""Tiku bots: legal moves through whole games, reproducible search, the winning move taken,
the caller's budget respected."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from core.ai.bots import LEVELS, make_bot
from core.ai.tiku_bot import TikuBot, TikuLevel, move_gain
from core.api import Obj
from core.tiku import GAME, parse_square


def stop_after(calls: int) -> Any:
    """A ``should_stop`` that says stop after ``calls`` questions (a small test budget)."""
    asked = [0]

    def should_stop() -> bool:
        asked[0] += 1
        return asked[0] > calls

    return should_stop


def play_game(levels: tuple[str, str], seed: int, options: Obj, budget: int = 1) -> Any:
    rng = Random(seed)
    state = GAME.initial()
    for ev in GAME.start(options, rng):
        state = GAME.evolve(state, ev)
    bots = [make_bot("tiku", lv) for lv in levels]
    brng = Random(seed + 1)
    plies = 0
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        cmd = bots[seat].choose(view, seat, brng, should_stop=stop_after(budget))
        assert cmd in GAME.legal_commands(state, seat), cmd
        assert cmd["type"] in ("move", "pass")
        for ev in GAME.decide(state, seat, cmd, rng):
            state = GAME.evolve(state, ev)
        plies += 1
        assert plies < 400
    return GAME.outcome(state)


def test_levels_registered() -> None:
    assert LEVELS["tiku"] == ["random", "easy", "medium", "hard"]
    for lv in LEVELS["tiku"]:
        assert make_bot("tiku", lv).level == lv


@pytest.mark.parametrize(
    ("levels", "seed", "options"),
    [
        (("easy", "random"), 1, {}),
        (("random", "medium"), 2, {"diagonal": True}),
        (("hard", "easy"), 3, {}),
        (("medium", "hard"), 4, {"points": True, "target": 6, "diagonal": True}),
    ],
)
def test_whole_games_only_legal_moves(levels: tuple[str, str], seed: int, options: Obj) -> None:
    out = play_game(levels, seed, {**options, "move_cap": 300})
    assert out is not None


def test_bots_beat_random() -> None:
    wins = 0
    for seed in range(4):
        levels = ("easy", "random") if seed % 2 == 0 else ("random", "easy")
        out = play_game(levels, 100 + seed, {"move_cap": 300}, budget=10)
        if out.winners == [seed % 2]:
            wins += 1
    assert wins >= 3


def winning_view() -> tuple[Obj, str]:
    """White (5 discs in hand) wins only by sliding a1 to a6 (laying five discs); a1 to f1
    lays one (b1-e1 already hold white discs)."""
    pieces = [{"square": "a1", "seat": 0, "flipped": False}]
    pieces += [{"square": f + "2", "seat": 0, "flipped": False} for f in "bcdef"]
    pieces += [{"square": f + "5", "seat": 1, "flipped": False} for f in "bcdef"]
    pieces += [{"square": "b6", "seat": 1, "flipped": False}]
    view = GAME.view(GAME.initial(), 0)
    view.update(
        {
            "started": True,
            "options": GAME.options({}),
            "pieces": pieces,
            "discs": {f + "1": 0 for f in "bcdef"},
            "hands": [5, 14],
            "turn": 0,
            "to_act": [0],
            "first": 0,
            "round": 1,
        }
    )
    return view, "a1-a6"


def test_takes_the_immediate_win() -> None:
    view, _ = winning_view()
    state = GAME.resample(view, 0, Random(0))
    wins = []
    for cmd in GAME.legal_commands(state, 0):
        if cmd["type"] != "move":
            continue
        after = state
        for ev in GAME.decide(state, 0, cmd, Random(0)):
            after = GAME.evolve(after, ev)
        out = GAME.outcome(after)
        if out is not None and out.winners == [0]:
            wins.append(cmd)
    assert wins == [{"type": "move", "from": "a1", "to": "a6"}]
    for lv in ("easy", "medium", "hard"):
        cmd = make_bot("tiku", lv).choose(view, 0, Random(5))
        assert cmd == {"type": "move", "from": "a1", "to": "a6"}, lv


def test_move_gain_counts_discs() -> None:
    view, _ = winning_view()
    state = GAME.resample(view, 0, Random(0))
    a1, a6, f1 = parse_square("a1"), parse_square("a6"), parse_square("f1")
    assert move_gain(state.cells, 0, a1 * 36 + a6, 5) == 1000
    assert move_gain(state.cells, 0, a1 * 36 + f1, 5) == 0  # lays a1, takes back f1


def test_reproducible_for_a_fixed_budget() -> None:
    rng = Random(11)
    state = GAME.initial()
    for ev in GAME.start({}, rng):
        state = GAME.evolve(state, ev)
    seat = GAME.to_act(state)[0]
    view = GAME.view(state, seat)
    bot = TikuBot("custom", TikuLevel(150))
    a = bot.choose(view, seat, Random(3))
    b = bot.choose(view, seat, Random(3))
    assert a == b
    assert a in GAME.legal_commands(state, seat)


def test_budget_and_progress() -> None:
    rng = Random(12)
    state = GAME.initial()
    for ev in GAME.start({}, rng):
        state = GAME.evolve(state, ev)
    seat = GAME.to_act(state)[0]
    seen: list[float] = []
    calls = [0]

    def should_stop() -> bool:
        calls[0] += 1
        return calls[0] > 3

    bot = make_bot("tiku", "hard")
    cmd = bot.choose(GAME.view(state, seat), seat, Random(1), should_stop, seen.append)
    assert cmd in GAME.legal_commands(state, seat)
    assert calls[0] == 4  # stopped at the caller's word, long before 3000 iterations
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= p <= 1.0 for p in seen)
    assert seen == sorted(seen)
