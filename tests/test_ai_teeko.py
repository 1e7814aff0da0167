"""Teeko bots: tactics they must never miss, reproducibility, legality; the random bot of
every game; the bot registry. Positions are built from events and checked through the API
(not through the bot's own engine). Fast in pure Python: iteration budgets, not time."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from core import GAMES
from core.ai.bots import LEVELS, RandomBot, make_bot
from core.ai.teeko_mcts import (
    NO_MOVE,
    Level,
    Playout,
    Search,
    TeekoBot,
    command_of,
    forced_win_in,
    safe_moves,
    slide_code,
    tables_for,
    win_within,
)
from core.api import META_COMMANDS, Obj, apply, fold
from core.teeko import parse_square

G = GAMES["teeko"]
STRONG = ["medium", "hard", "max"]
STOP_NOW = lambda: True  # noqa: E731  (the caller's clock says: answer now)


def build(white: list[str], black: list[str], squares: str = "axis",
          white_move: tuple[str, str] | None = None, then: list[Obj] | None = None,
          **opts: Any) -> Any:
    """White and Black place alternately (White first); then White may make one move, then
    the events ``then``."""
    assert len(white) - len(black) in (0, 1)
    events: list[Obj] = [{"type": "start", "options": G.options({"squares": squares, **opts})}]
    for k in range(len(white)):
        events.append({"type": "placed", "seat": 0, "to": white[k]})
        if k < len(black):
            events.append({"type": "placed", "seat": 1, "to": black[k]})
    if white_move is not None:
        events.append({"type": "moved", "seat": 0, "from": white_move[0], "to": white_move[1]})
    state = fold(G, events + (then or []))
    assert G.outcome(state) is None
    return state


def moves(state: Any) -> list[Obj]:
    return [c for c in G.legal_commands(state, state.turn) if c["type"] not in META_COMMANDS]


def wins(state: Any, seat: int, command: Obj) -> bool:
    after, _ = apply(G, state, seat, command, Random(0))
    out = G.outcome(after)
    return out is not None and out.winners == [seat]


def forced_win_in_3(state: Any, seat: int, command: Obj) -> bool:
    """Checked by brute force through the API: every reply loses to a win in 1."""
    after, _ = apply(G, state, seat, command, Random(0))
    if G.outcome(after) is not None:
        return bool(G.outcome(after).winners == [seat])  # type: ignore[union-attr]
    replies = moves(after)
    for r in replies:
        s2, _ = apply(G, after, 1 - seat, r, Random(0))
        if G.outcome(s2) is not None or not any(wins(s2, seat, m) for m in moves(s2)):
            return False
    return bool(replies)


def choose(level: str, state: Any, seed: int = 1, **kw: Any) -> Obj:
    seat = state.turn
    command = make_bot("teeko", level).choose(G.view(state, seat), seat, Random(seed), **kw)
    assert command in G.legal_commands(state, seat)
    return command


# ---------------------------------------------------------------------------------- win in 1

WIN_IN_1 = [
    # placement: White's fourth piece on d1 completes a1-d1
    ("axis", ["a1", "b1", "c1"], ["a5", "c5", "e3"], None),
    # movement: e2-d1 completes a1-d1
    ("axis", ["a1", "b1", "c1", "e2"], ["a5", "b5", "d5", "e4"], None),
    # tilted square b1 d2 c4 a3 only in the tilted set: White's a4-a3 (or a placement)
    ("tilted", ["b1", "d2", "c4", "a4"], ["e5", "e4", "b5", "c2"], None),
    # classic: a 2x2 square, c3 c4 d3 + d5-d4
    ("classic", ["c3", "c4", "d3", "d5"], ["a1", "a5", "e1", "b2"], None),
]


@pytest.mark.parametrize("case", WIN_IN_1)
@pytest.mark.parametrize("level", STRONG)
def test_takes_a_win_in_1(level: str, case: tuple[str, list[str], list[str], Any]) -> None:
    squares, white, black, _ = case
    state = build(white, black, squares)
    assert any(wins(state, 0, m) for m in moves(state))
    for seed in range(3):
        assert wins(state, 0, choose(level, state, seed))


def test_easy_takes_a_win_in_1_most_of_the_time() -> None:
    state = build(["a1", "b1", "c1", "e2"], ["a5", "b5", "d5", "e4"])
    taken = sum(wins(state, 0, choose("easy", state, seed)) for seed in range(40))
    assert taken >= 30


# ------------------------------------------------------------------------------------ blocks


@pytest.mark.parametrize("level", STRONG)
def test_blocks_in_placement(level: str) -> None:
    # Black places its third piece; White threatens d1 (a1 b1 c1).
    state = build(["a1", "b1", "c1"], ["e5", "e4"])
    assert state.turn == 1
    assert choose(level, state) == {"type": "place", "to": "d1"}


@pytest.mark.parametrize("level", STRONG)
def test_blocks_in_movement(level: str) -> None:
    # White threatens e2-d1; only d2-d1 stops it.
    state = build(["a1", "b1", "c1", "e3"], ["d2", "a5", "c5", "e5"], white_move=("e3", "e2"))
    assert choose(level, state) == {"type": "move", "from": "d2", "to": "d1"}


@pytest.mark.parametrize("level", STRONG)
def test_blocks_with_several_ways_even_when_stopped_at_once(level: str) -> None:
    # Both c2-d1 and d2-d1 block e2-d1; whatever the budget, the threat is answered.
    state = build(["a1", "b1", "c1", "e3"], ["d2", "c2", "a5", "e5"], white_move=("e3", "e2"))
    for seed in range(3):
        command = choose(level, state, seed, should_stop=STOP_NOW)
        after, _ = apply(G, state, 1, command, Random(0))
        assert not any(wins(after, 0, m) for m in moves(after))


# ----------------------------------------------------------------------- forced win in 3 plies

FORCED_3 = [
    ("axis", ["c3", "d4"], ["b1", "c2"]),
    ("axis", ["b2", "b3"], ["d1", "c4"]),
    ("tilted", ["b2", "c2"], ["c3", "d5"]),
    ("classic", ["b5", "c5"], ["d2", "d3"]),
    ("axis", ["a2", "e3", "b4", "d4"], ["b1", "e4", "c5", "d5"]),
    ("axis", ["a2", "b3", "b4", "c4"], ["b2", "c5", "d5", "e5"]),
    ("tilted", ["b2", "e2", "b3", "c5"], ["e1", "a2", "b4", "c4"]),
    ("tilted", ["c1", "e3", "b4", "e4"], ["b1", "e2", "c3", "a4"]),
    ("classic", ["c2", "e2", "d4", "d5"], ["b3", "b4", "c4", "a5"]),
    ("classic", ["c2", "c3", "a4", "c4"], ["a1", "b2", "b5", "e5"]),
]


@pytest.mark.parametrize("case", FORCED_3, ids=[f"{c[0]}-{len(c[1])}-{c[1][0]}" for c in FORCED_3])
@pytest.mark.parametrize("level", STRONG)
def test_finds_a_forced_win_in_3(level: str, case: tuple[str, list[str], list[str]]) -> None:
    squares, white, black = case
    state = build(white, black, squares)
    assert not any(wins(state, 0, m) for m in moves(state))
    assert any(forced_win_in_3(state, 0, m) for m in moves(state))
    assert forced_win_in_3(state, 0, choose(level, state, should_stop=STOP_NOW))


def test_forced_wins_need_their_pattern_set() -> None:
    # The movement-phase tilted positions are forced wins only with tilted squares.
    for squares, white, black in FORCED_3:
        if squares == "tilted" and len(white) == 4:
            state = build(white, black, "axis")
            assert not any(forced_win_in_3(state, 0, m) for m in moves(state))


# ---------------------------------------------------------- deeper exact tactics, solver

# White to move; the solved table says d1-c2 is the only move winning within 5 plies (the
# others win later or not at all) and no move wins in 3.
WIN_IN_5 = (["d1", "b2", "d3", "c4"], ["b1", "e2", "b5", "e5"])
# White to move (a draw); c2-c1, c2-d1 and c2-b3 let Black force a win in 5 plies (table),
# and no move loses faster.
LOSS_IN_6 = (["b1", "c2", "a3", "e5"], ["b2", "c3", "c4", "e4"], [("c2", "c1"), ("c2", "d1"),
                                                                  ("c2", "b3")])


def _bits(squares: list[str]) -> int:
    return sum(1 << parse_square(s) for s in squares)


def test_exact_search_finds_the_only_win_in_5() -> None:
    t = tables_for("axis")
    cur, oth = _bits(WIN_IN_5[0]), _bits(WIN_IN_5[1])
    assert not win_within(t, cur, oth, 3, [10**6])
    assert win_within(t, cur, oth, 5, [10**6])
    assert not win_within(t, cur, oth, 5, [0])  # out of budget: not proven
    safe = safe_moves(t, cur, oth, t.moves(cur, oth))
    assert forced_win_in(t, cur, oth, safe, 5, [10**6]) == slide_code(parse_square("d1"),
                                                                         parse_square("c2"))


@pytest.mark.parametrize("level", ["hard", "max"])
def test_plays_a_win_in_5_even_when_stopped_at_once(level: str) -> None:
    state = build(*WIN_IN_5)
    assert not any(forced_win_in_3(state, 0, m) for m in moves(state))
    for seed in range(2):
        command = choose(level, state, seed, should_stop=STOP_NOW)
        assert command == {"type": "move", "from": "d1", "to": "c2"}


def test_deep_tactics_avoid_a_loss_in_6_even_when_stopped_at_once() -> None:
    white, black, losing = LOSS_IN_6
    state = build(white, black)
    bot = TeekoBot("deep", Level(200, avoid3=True, avoid_plies=5))
    for seed in range(3):
        command = bot.choose(G.view(state, 0), 0, Random(seed), should_stop=STOP_NOW)
        assert (command["from"], command["to"]) not in losing


def test_solver_proves_a_forced_win_in_3() -> None:
    # Placement, White to move: c3 d4 against b1 c2 (FORCED_3): a forced win in 3 plies.
    t = tables_for("axis")
    cur, oth = _bits(["c3", "d4"]), _bits(["b1", "c2"])
    search = Search(t, 7, solver=True)
    res = search.run_root(cur, oth, 4, 1 << 30, t.moves(cur, oth), [], 20000, None, None)
    assert res.value == 1.0 and search.status[0] == 1
    assert res.iterations < 20000  # stopped once proven
    state = build(["c3", "d4"], ["b1", "c2"])
    assert forced_win_in_3(state, 0, command_of(res.move))


# ---------------------------------------------------------------------------------- playouts


def _landings(cur: list[str], oth: list[str], only: list[str], n: int = 2000) -> dict[int, int]:
    """Where ``n`` playout moves of ``cur`` land (square: count), told to favour ``only``."""
    p = Playout(tables_for("axis"), 12345, True, 8)
    c, o, mask = _bits(cur), _bits(oth), _bits(only)
    counts: dict[int, int] = {}
    for _ in range(n):
        code = p.random_move(c, o, mask)
        assert code != NO_MOVE
        counts[code & 31] = counts.get(code & 31, 0) + 1
    return counts


def _uniform(counts: dict[int, int], squares: set[int], n: int = 2000) -> bool:
    """Every square of ``squares`` hit, within half of its fair share either way."""
    fair = n / len(squares)
    return set(counts) == squares and all(0.5 * fair < k < 1.5 * fair for k in counts.values())


def test_placement_playouts_land_on_the_target_squares() -> None:
    # A defect found by reading: a playout's placement ignored the squares it was told to
    # favour (those the opponent threatens): 43 times in 1,000 on a single one, not always.
    white, black = ["a1", "c3"], ["b2", "d4"]
    assert _landings(white, black, ["e5"]) == {parse_square("e5"): 2000}
    two = _landings(white, black, ["e5", "a5", "b2"])  # b2 is taken: e5 or a5 only
    assert set(two) == {parse_square("e5"), parse_square("a5")}
    assert all(800 < k < 1200 for k in two.values())
    free = set(range(25)) - {parse_square(s) for s in white + black}
    assert _uniform(_landings(white, black, []), free)  # nothing to favour: uniform
    assert _uniform(_landings(white, black, ["b2", "d4"]), free)  # every target taken


def test_movement_playouts_land_on_the_target_squares() -> None:
    white, black = ["a1", "c3", "e1", "e5"], ["b2", "d4", "a5", "c5"]
    assert _landings(white, black, ["d3"]) == {parse_square("d3"): 2000}
    # No piece of White's is next to a3: any move, none onto a3.
    anywhere = _landings(white, black, ["a3"])
    assert parse_square("a3") not in anywhere and len(anywhere) > 3


# ------------------------------------------------------------------- reproducible and legal


def test_reproducible_for_a_fixed_seed_and_budget() -> None:
    state = build(["a1", "c3", "e5", "b4"], ["b2", "d4", "c1", "a5"])
    bot = TeekoBot("medium", Level(400))
    first = [bot.choose(G.view(state, 0), 0, Random(seed)) for seed in range(4)]
    again = [TeekoBot("medium", Level(400)).choose(G.view(state, 0), 0, Random(seed))
             for seed in range(4)]
    assert first == again


@pytest.mark.parametrize("opts", [
    {"squares": "axis", "move_cap": 40},
    {"squares": "tilted", "repetition": True, "move_cap": 40},
    {"squares": "classic", "repetition": True, "move_cap": 30},
])
def test_bots_only_send_legal_commands(opts: Obj) -> None:
    rng = Random(3)
    state = fold(G, G.start(G.options(opts), rng))
    bots = [make_bot("teeko", "easy"), TeekoBot("medium", Level(150))]
    progress: list[float] = []
    while G.outcome(state) is None:
        seat = state.turn
        command = bots[seat].choose(G.view(state, seat), seat, rng, progress=progress.append)
        assert command in G.legal_commands(state, seat)
        assert command["type"] not in META_COMMANDS
        state, _ = apply(G, state, seat, command, rng)
    assert all(0.0 <= p <= 1.0 for p in progress) and progress[-1] == 1.0


def test_repetition_counts_and_a_third_occurrence_is_a_draw() -> None:
    # White and Black shuffle b2-b3 / e3-e4 twice round: Black to move at the same position
    # for the second time, and e4-e3 would bring a position for the third time.
    shuffle = [(0, "b2", "b3"), (1, "e3", "e4"), (0, "b3", "b2"), (1, "e4", "e3")]
    moved = [{"type": "moved", "seat": p, "from": f, "to": t} for p, f, t in shuffle * 2][:-1]
    state = build(["a1", "b1", "c1", "b2"], ["a5", "c5", "e5", "e3"], repetition=True,
                  then=moved)
    assert state.turn == 1
    back = {"type": "move", "from": "e4", "to": "e3"}
    after, _ = apply(G, state, 1, back, Random(0))
    out = G.outcome(after)
    assert out is not None and out.reason == "repetition"
    # The bot sees the same counts (it scores that move as a draw).
    cur, oth = state.pieces(1), state.pieces(0)
    codes = tables_for("axis").moves(cur, oth)
    counts = TeekoBot("medium").repeats(state, 1, cur, codes)
    back_code = slide_code(parse_square("e4"), parse_square("e3"))
    assert counts[codes.index(back_code)] == 2
    assert sorted(counts)[-2] < 2


# ------------------------------------------------------------------------------ draw offers

OFFER_WHITE = [{"type": "draw_offered", "seat": 0}]


def test_accepts_a_draw_when_lost_and_declines_when_not() -> None:
    # White threatens a1 and e1 (b1 c1 d1): Black, to move, cannot stop both.
    lost = build(["b1", "c1", "d1"], ["a5", "e5"], then=OFFER_WHITE)
    assert choose("medium", lost) == {"type": "accept_draw"}
    # Black can win at once instead: it plays the win (which declines the offer).
    winning = build(["a1", "c3", "e2", "b4"], ["a5", "b5", "c5", "e4"],
                    white_move=("e2", "e3"), then=OFFER_WHITE)
    assert wins(winning, 1, choose("medium", winning))


def test_answers_an_offer_when_it_is_not_its_turn() -> None:
    # White, to move, offers a draw; Black (not to move) answers.
    lost = build(["a1", "b1", "c1"], ["a5", "e5", "c3"], then=OFFER_WHITE)
    assert lost.turn == 0
    bot = TeekoBot("medium", Level(300))
    assert bot.choose(G.view(lost, 1), 1, Random(1)) == {"type": "accept_draw"}
    fine = build(["a1"], ["c3"], then=OFFER_WHITE)
    assert bot.choose(G.view(fine, 1), 1, Random(1)) == {"type": "decline_draw"}


# ------------------------------------------------------------------------ every game's bots


@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_bot_plays_every_game(name: str) -> None:
    game = GAMES[name]
    assert "random" in LEVELS[name]
    rng = Random(5)
    try:
        state = fold(game, game.start(game.options(game.example_options()[0]), rng))
    except NotImplementedError:
        pytest.skip(f"{name} is not implemented yet")
    bot = make_bot(name, "random")
    assert isinstance(bot, RandomBot)
    steps = 0
    while game.outcome(state) is None:
        steps += 1
        assert steps < 20000
        for seat in game.to_act(state):
            command = bot.choose(game.view(state, seat), seat, rng)
            assert command in game.legal_commands(state, seat)
            assert command["type"] not in META_COMMANDS
            state, _ = apply(game, state, seat, command, rng)
            if game.outcome(state) is not None or seat not in game.to_act(state):
                break


def test_registry() -> None:
    assert LEVELS["teeko"] == ["random", "easy", "medium", "hard", "max", "perfect"]
    for name in GAMES:
        assert LEVELS[name][0] == "random"
    with pytest.raises(ValueError):
        make_bot("teeko", "grandmaster")
    with pytest.raises(ValueError):
        make_bot("chess", "random")
