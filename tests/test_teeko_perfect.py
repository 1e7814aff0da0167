"""The perfect Teeko level, hints and game analysis (core.ai.teeko_perfect,
core.teeko_analysis): on the small solved game, on a stand-in 5x5 table, and on the real
tables when they are built (var/teeko/, ./gamenight solve teeko)."""

from __future__ import annotations

import logging
from itertools import combinations
from pathlib import Path
from random import Random
from typing import Any

import pytest
from teeko_stub import install

from core.ai.bots import LEVELS, make_bot
from core.api import Obj
from core.teeko import GAME, TeekoState
from core.teeko_analysis import NoTable, analyse, hint
from core.teeko_table import DRAW, load, preference

np = pytest.importorskip("numpy")

from core.ai.teeko_perfect import PerfectBot, opponent_errors, perfect_ply  # noqa: E402
from core.teeko_solve import Spec, build  # noqa: E402
from core.teeko_table import Solved, TableError  # noqa: E402


def play(state: TeekoState, *commands: Obj) -> tuple[TeekoState, list[Obj]]:
    events: list[Obj] = []
    rng = Random(0)
    for c in commands:
        for e in GAME.decide(state, state.turn, c, rng):
            state = GAME.evolve(state, e)
            events.append(e)
    return state, events


def started(**options: Any) -> tuple[TeekoState, list[Obj]]:
    events = GAME.start(options, Random(0))
    state = GAME.initial()
    for e in events:
        state = GAME.evolve(state, e)
    return state, events


def place(*squares: str) -> list[Obj]:
    return [{"type": "place", "to": s} for s in squares]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Solved:
    path = tmp_path_factory.mktemp("tables") / "small.tbl"
    build(Spec("axis", 4, 3), path)
    return Solved(path)


def test_perfect_is_a_registered_teeko_level() -> None:
    assert LEVELS["teeko"][-1] == "perfect"
    assert isinstance(make_bot("teeko", "perfect"), PerfectBot)


def errors(table: Solved, mover: int, opp: int, ply: tuple[int, int, int]) -> tuple[int, int]:
    """The opponent's ways to go wrong after ``ply``."""
    f, t, _ = ply
    moved = mover ^ (1 << f) | 1 << t if f >= 0 else mover | 1 << t
    return opponent_errors(table, opp, moved)


def test_perfect_ply_keeps_the_value_and_leaves_the_most_ways_to_go_wrong(small: Solved) -> None:
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 3)]
    compared = 0
    varied = 0
    for mover in masks[::23]:
        for opp in masks[::29]:
            if mover & opp or opp in small.patterns or mover in small.patterns:
                continue
            value = small.code(mover, opp)
            frm, to, v = perfect_ply(small, mover, opp, Random(1))
            assert v == value  # the fastest win, the slowest loss, or a drawing ply
            best = [p for p in small.children(mover, opp) if p[2] == value]
            if len(best) > 1 and value != 1:
                assert errors(small, mover, opp, (frm, to, v)) == max(
                    errors(small, mover, opp, p) for p in best
                )
                compared += 1
                picks = {perfect_ply(small, mover, opp, Random(s))[:2] for s in range(8)}
                varied += len(picks) > 1
            # Seeded: the same seed, the same ply.
            assert perfect_ply(small, mover, opp, Random(1)) == (frm, to, v)
    assert compared > 20 and varied > 0


def test_opponent_errors_counts_replies_that_throw_the_result_away(small: Solved) -> None:
    masks = [sum(1 << c for c in combo) for combo in combinations(range(16), 3)]
    for mover in masks[::31]:
        for opp in masks[::37]:
            if mover & opp or opp in small.patterns or mover in small.patterns:
                continue
            plies = small.children(mover, opp)
            results, worse = opponent_errors(small, mover, opp)
            top = max(preference(v) for _, _, v in plies)
            assert worse == sum(preference(v) < top for _, _, v in plies)
            assert 0 <= results <= worse


def test_without_a_table_it_says_so_and_plays_like_max(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    state, _ = started(squares="tilted")
    bot = make_bot("teeko", "perfect")
    assert isinstance(bot, PerfectBot)
    with caplog.at_level(logging.WARNING):
        command = bot.choose(GAME.view(state, 0), 0, Random(1), should_stop=lambda: True)
    assert command in GAME.moves(state)
    assert "not built" in bot.fallback and "'max'" in bot.fallback
    with pytest.raises(NoTable, match="not built"):
        hint(state)
    with pytest.raises(NoTable):
        analyse(started(squares="tilted")[1])


def test_with_a_table_it_wins_at_once_and_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch, tmp_path)
    # White: a1 b1 c1 placed; d1 wins at once.
    state, _ = started()
    state, _ = play(state, *place("a1", "a5", "b1", "b5", "c1", "c5"))
    bot = make_bot("teeko", "perfect")
    assert bot.choose(GAME.view(state, 0), 0, Random(1)) == {"type": "place", "to": "d1"}
    # Black to move, White threatens d1 again: Black must block (e1 does not).
    state, _ = started()
    state, _ = play(state, *place("a1", "e5", "b1", "c4", "c1"))
    assert bot.choose(GAME.view(state, 1), 1, Random(1)) == {"type": "place", "to": "d1"}
    assert isinstance(bot, PerfectBot) and bot.fallback == ""


def offer(state: TeekoState, seat: int) -> TeekoState:
    for e in GAME.decide(state, seat, {"type": "offer_draw"}, Random(0)):
        state = GAME.evolve(state, e)
    return state


def test_draw_offers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, tmp_path)
    state, _ = started()
    state, _ = play(state, *place("a1", "a5", "b1", "b5", "c1", "c5"))  # White wins in 1
    bot = make_bot("teeko", "perfect")
    # White, to move and winning, ignores Black's offer and wins.
    assert bot.choose(GAME.view(offer(state, 1), 0), 0, Random(1)) == {"type": "place", "to": "d1"}
    # Black, not to move and lost, accepts White's offer.
    assert bot.choose(GAME.view(offer(state, 0), 1), 1, Random(1)) == {"type": "accept_draw"}
    # In a drawn position (the stand-in's value of the empty board) an offer is accepted.
    empty, _ = started()
    assert bot.choose(GAME.view(offer(empty, 1), 0), 0, Random(1)) == {"type": "accept_draw"}


def test_hint_gives_the_value_and_the_best_plies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch, tmp_path)
    state, _ = started()
    state, _ = play(state, *place("a1", "a5", "b1", "b5", "c1", "c5"))
    h = hint(state)
    assert h["seat"] == 0 and h["value"] == {"result": "win", "plies": 1, "text": "win in 1"}
    assert [b["move"] for b in h["best"]] == ["d1"]
    assert h["best"][0]["command"] == {"type": "place", "to": "d1"}
    assert len(h["moves"]) == 19 and h["moves"][0]["move"] == "d1"
    over, _ = play(state, *place("d1"))
    with pytest.raises(ValueError):
        hint(over)


def test_analysis_marks_the_plies_that_lost_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch, tmp_path)
    state, events = started()
    # Black's c5 ignores White's threat at d1 (a draw lost); White's e3 then misses d1 (a
    # win thrown away) and Black wins with d5.
    state, more = play(state, *place("a1", "a5", "b1", "b5", "c1", "c5", "e3", "d5"))
    assert state.over and state.winner == 1
    a = analyse(events + more)
    assert a["squares"] == "axis" and len(a["plies"]) == 8
    marks = [(p["ply"], p["seat"], p["move"], p["lost"]) for p in a["plies"] if p["lost"]]
    assert marks == [(6, 1, "c5", "draw_to_loss"), (7, 0, "e3", "win_to_loss")]
    seventh = a["plies"][6]
    assert seventh["before"]["text"] == "win in 1" and seventh["after"]["text"] == "loss in 2"
    assert seventh["best"] == ["d1"] and seventh["best_move"] is False
    assert a["plies"][7]["after"]["text"] == "win in 1" and a["plies"][7]["lost"] is None
    white, black = a["summary"]
    assert (white["plies"], white["kept"], white["accuracy"]) == (4, 3, 0.75)
    assert white["lost"] == {"win_to_draw": 0, "win_to_loss": 1, "draw_to_loss": 0}
    assert (black["plies"], black["kept"], black["accuracy"]) == (4, 3, 0.75)
    assert black["lost"]["draw_to_loss"] == 1


def test_analysis_refuses_what_is_not_a_teeko_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch, tmp_path)
    with pytest.raises(ValueError):
        analyse([{"type": "placed", "seat": 0, "to": "c3"}])
    _, events = started()
    with pytest.raises(ValueError, match="not legal"):
        analyse([*events, {"type": "moved", "seat": 0, "from": "a1", "to": "a2"}])


def _built(squares: str) -> Solved | None:
    """The real table when it is built and readable (tests never build one)."""
    try:
        table = load(squares)
    except TableError:
        return None
    return table if isinstance(table, Solved) else None


REAL = _built("axis")


@pytest.mark.skipif(REAL is None, reason="the axis table is not built (./gamenight solve teeko)")
def test_real_axis_table_perfect_play_wins_in_13() -> None:
    assert REAL is not None and REAL.code(0, 0) == 13
    state, events = started()
    bot = make_bot("teeko", "perfect")
    rng = Random(5)
    while not state.over:
        command = bot.choose(GAME.view(state, state.turn), state.turn, rng)
        state, more = play(state, command)
        events += more
    assert state.winner == 0 and state.ply == 13
    a = analyse(events)
    assert a["start"]["text"] == "win in 13"
    assert all(p["best_move"] for p in a["plies"])


@pytest.mark.skipif(_built("classic") is None, reason="the classic table is not built")
def test_real_classic_table_is_a_draw() -> None:
    table = _built("classic")
    assert table is not None and table.code(0, 0) == DRAW
