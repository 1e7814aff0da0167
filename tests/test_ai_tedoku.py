"""Tedoku bots: legal placements through whole games, skips only when forced, completing a
sector, bonus shapes kept or used well, a quick score check well above random play."""

from __future__ import annotations

import math
from random import Random
from typing import Any

import pytest

from core.ai.bots import LEVELS, make_bot
from core.ai.tedoku_bot import (
    HARD_WEIGHTS,
    Choice,
    TedokuBot,
    TedokuLevel,
    analyse,
    bucket,
    card_gone,
    covers,
    evaluate,
    features,
    finishers,
    linear_value,
    next_turn_value,
    plan,
    play_solo,
    reachable,
    two_turn_value,
)
from core.api import Obj
from core.tedoku import (
    CARD_MASK,
    CARDS,
    FULL,
    GAME,
    PLACEMENTS,
    SECTOR_MASKS,
    TETROMINOES,
    TedokuState,
    has_placement,
    legal_placements,
    mask_of,
    may_skip,
    score_sheet,
)


def stop_after(calls: int) -> Any:
    asked = [0]

    def should_stop() -> bool:
        asked[0] += 1
        return asked[0] > calls

    return should_stop


def test_levels_registered() -> None:
    assert LEVELS["tedoku"] == ["random", "easy", "medium", "hard"]


@pytest.mark.parametrize(
    ("levels", "seed", "bonus"),
    [
        (["easy"], 1, False),
        (["medium"], 2, True),
        (["hard"], 3, False),
        (["medium", "easy", "random"], 4, True),
    ],
)
def test_whole_games_legal_and_skip_only_when_forced(
    levels: list[str], seed: int, bonus: bool
) -> None:
    rng = Random(seed)
    st = GAME.initial()
    for ev in GAME.start({"seats": len(levels), "bonus": bonus}, rng):
        st = GAME.evolve(st, ev)
    bots = [make_bot("tedoku", lv) for lv in levels]
    brng = Random(seed + 1)
    while GAME.outcome(st) is None:
        seat = GAME.to_act(st)[0]
        view = GAME.view(st, seat)
        cmd = bots[seat].choose(view, seat, brng, should_stop=stop_after(1))
        assert cmd in GAME.legal_commands(st, seat), cmd
        if cmd["type"] == "skip":
            assert may_skip(st.die, st.sheets[seat], st.card)
        for ev in GAME.decide(st, seat, cmd, rng):
            st = GAME.evolve(st, ev)
    assert GAME.outcome(st) is not None


def position(sheet: int, card: str, die: str, bonus: bool = False, turn: int = 5) -> TedokuState:
    """A solo position: ``sheet`` drawn, ``card`` and ``die`` up, ``turn`` cards flipped."""
    st = GAME.initial()
    for ev in GAME.start({"seats": 1, "bonus": bonus}, Random(0)):
        st = GAME.evolve(st, ev)
    deck = [c for c in st.deck if c != card]
    deck.insert(turn - 1, card)
    removed = [c for c in st.removed if c != card]
    deck = (deck + removed)[:20]
    st.deck = deck
    st.removed = [c for c in (st.deck + st.removed) if c not in deck][:7]
    st.turn = turn
    st.rolls = ["I"] * (turn - 1) + [die]
    st.sheets = [sheet]
    return st


def command(level: str, st: TedokuState, seed: int = 0) -> Obj:
    cmd = make_bot("tedoku", level).choose(GAME.view(st, 0), 0, Random(seed))
    assert cmd in GAME.legal_commands(st, 0), cmd
    return cmd


def test_completes_a_sector() -> None:
    hole = mask_of(["B2", "B3", "C2", "C3"])
    sheet = SECTOR_MASKS[0] & ~hole
    for die, turn, levels in (
        ("O", 5, ("medium", "hard")),
        ("W", 5, ("medium",)),
        ("W", 8, ("medium", "hard")),
    ):
        st = position(sheet, "sector:1", die, turn=turn)
        for level in levels:
            cmd = command(level, st)
            assert sorted(cmd["cells"]) == ["B2", "B3", "C2", "C3"], (die, level, cmd)
    # Early on, `hard` (learned evaluation) spends a wild die elsewhere (an L over B2-C2
    # and into sector 4), keeping the notch B3-C3 open for later: its choice, not a rule.


def test_skips_only_when_forced() -> None:
    # Row A full but for A1, A5 and A9: an I touching row A fits nowhere.
    row_a = mask_of([f"A{c}" for c in range(1, 10)])
    sheet = (row_a & ~mask_of(["A1", "A5", "A9"])) | mask_of([f"B{c}" for c in range(1, 10)])
    st = position(sheet, "row:A", "I")
    assert command("medium", st) == {"type": "skip"}
    assert command("hard", st) == {"type": "skip"}
    # One vertical I still fits (column 5 below A5 is free when row B5 is empty).
    st = position(sheet & ~mask_of(["B5"]), "row:A", "I")
    for level in ("easy", "medium", "hard"):
        assert command(level, st)["cells"] == ["A5", "B5", "C5", "D5"]


def test_bonus_square_used_to_complete_a_sector_else_kept() -> None:
    sheet = FULL & ~mask_of(["B2"]) & ~mask_of([f"{r}{c}" for r in "DEFGHI" for c in range(1, 10)])
    sheet &= ~mask_of(["A4", "A5", "A6", "A7"])
    # The die shows S on row:B: no S fits touching row B (a skip is allowed); B1 on B2
    # completes sector 1 and row B: 4 points for the 2 the unused B1 would bring.
    st = position(sheet, "row:B", "S", bonus=True)
    assert may_skip("S", sheet, "row:B")
    assert command("medium", st)["cells"] == ["B2"]
    # On the first turn of an empty sheet, no bonus shape is used.
    st = position(0, "sector:5", "T", bonus=True, turn=1)
    assert command("hard", st)["shape"] == "T"


def test_reproducible() -> None:
    st = position(SECTOR_MASKS[4], "col:4", "W", turn=8)
    bot = TedokuBot("hard")
    a = bot.choose(GAME.view(st, 0), 0, Random(2), should_stop=stop_after(2))
    b = bot.choose(GAME.view(st, 0), 0, Random(2), should_stop=stop_after(2))
    assert a == b


def test_mean_score_well_above_random() -> None:
    scores = [play_solo("medium", 500 + s) for s in range(8)]
    assert sum(scores) / len(scores) >= 12  # random legal play averages about 4


def test_covers_agree_with_has_placement() -> None:
    rng = Random(7)
    for _ in range(60):
        sheet = 0
        for _ in range(rng.randrange(24)):
            shape = rng.choice(TETROMINOES)
            m = rng.choice(PLACEMENTS[shape])
            if not m & sheet:
                sheet |= m
        cov = covers(FULL & ~sheet)
        for i, shape in enumerate(TETROMINOES):
            for card in CARDS:
                assert bool(cov[i] & CARD_MASK[card]) == has_placement(shape, sheet, card)


def test_keeps_room_for_cards_still_to_come() -> None:
    # Everything drawn but A1-A4 and I1-I4; the card col:1 with an I: both placements finish
    # a row and a sector. Row I and sector 7 have been flipped already, row A and sector 1
    # may still come: drawing on A1-A4 would leave them sure skips, so I1-I4 is better.
    free = mask_of(["A1", "A2", "A3", "A4", "I1", "I2", "I3", "I4"])
    st = position(FULL & ~free, "col:1", "I", turn=15)
    others = [c for c in CARDS if c not in ("row:I", "sector:7", "col:1", "row:A", "sector:1")]
    first = ["row:I", "sector:7", *others[:12], "col:1"]
    st.deck = [*first, "row:A", "sector:1", *others[12:15]]
    st.removed = [c for c in CARDS if c not in st.deck]
    assert len(st.deck) == 20 and len(set(st.deck)) == 20 and len(st.removed) == 7
    for level in ("medium", "hard"):
        assert command(level, st)["cells"] == ["I1", "I2", "I3", "I4"], level


def test_lookahead_sees_the_next_card_gone() -> None:
    # The lookahead values each sheet of the next turn as it will be then: that turn's card
    # flipped, so no longer to come. The cheap adjustment must equal a full re-evaluation
    # without that card (whenever that does not change which cells are dead, or which units
    # one tetromino can finish).
    rng = Random(11)
    checked = 0
    for _ in range(120):
        sheet = 0
        density = rng.random()
        for i in range(81):
            if rng.random() < density:
                sheet |= 1 << i
        unseen = [c for c in CARDS if rng.random() < 0.5]
        tl = rng.randrange(1, 19)
        if len(unseen) < 2:
            continue
        a = analyse(sheet, tl, unseen)
        base = linear_value(sheet, tl, HARD_WEIGHTS, unseen)
        for k, card in enumerate(CARDS):
            if card not in unseen:
                continue
            rest = [c for c in unseen if c != card]
            after = analyse(sheet, tl, rest)
            if after.dead != a.dead or after.f[49:] != a.f[49:]:
                continue
            got = base + card_gone(sheet, tl, HARD_WEIGHTS.linear[bucket(tl)], a, len(unseen), k)
            assert got == pytest.approx(linear_value(sheet, tl, HARD_WEIGHTS, rest))
            checked += 1
    assert checked > 500


def test_reachable_cells_need_a_card_still_to_come() -> None:
    # Only A1-A4 and I6-I9 are empty. With row A still to come only A1-A4 can be drawn on;
    # with col 9 only I6-I9 (an I drawn there touches column 9); with nothing, no cell.
    a = mask_of(["A1", "A2", "A3", "A4"])
    i = mask_of(["I6", "I7", "I8", "I9"])
    assert reachable(a | i, CARD_MASK["row:A"]) == a
    assert reachable(a | i, CARD_MASK["col:9"]) == i
    assert reachable(a | i, CARD_MASK["row:E"]) == 0
    assert reachable(a | i, FULL) == a | i


def test_finishers_are_the_shapes_that_complete_a_unit_in_one_drawing() -> None:
    # Sector 1 drawn but for C2 and C3, the rest of the sheet empty: every tetromino can
    # cover both holes at once (touching sector 1); holes C1 and A3 need two drawings.
    empty = FULL & ~SECTOR_MASKS[0]
    sector = CARD_MASK["sector:1"]
    assert finishers(mask_of(["C2", "C3"]), empty | mask_of(["C2", "C3"]), sector)[0] == 0b11111
    assert finishers(mask_of(["C1", "A3"]), empty | mask_of(["C1", "A3"]), sector) == (0, 0)
    # Holes A3-C3 (a column of three, A2, C2 and A4-C4 drawn too): only the I (A3-D3)
    # covers them; an L would need a foot beside A3 or C3, a T one beside B3.
    holes = mask_of(["A3", "B3", "C3"])
    empty = FULL & ~(SECTOR_MASKS[0] | mask_of(["A4", "B4", "C4"])) | holes
    i_shape = 1 << TETROMINOES.index("I")
    i_mask = mask_of(["A3", "B3", "C3", "D3"])
    assert finishers(holes, empty, sector) == (i_shape, i_mask)
    assert finishers(holes, empty, CARD_MASK["row:D"]) == (i_shape, i_mask)  # D3: row D
    assert finishers(holes, empty, CARD_MASK["row:E"]) == (0, 0)
    # A unit counted as not finishable in one drawing shows in its feature.
    sheet = SECTOR_MASKS[0] & ~mask_of(["C1", "A3"])
    f = features(sheet, 10, CARDS)
    assert f[49] == 1.0 and f[52:55] == [0.0, 0.0, 0.0] and f[57] == 0.0
    # The chance of a turn that finishes it: the hole A3-C3 above takes only the I, on A3-D3.
    # With rows H and I, the columns and the sectors still to come, column 3, sector 1 and
    # sector 4 allow it, each coming with chance 10/20, with a die of I or wild (2 of 6).
    sheet = FULL & ~empty
    unseen = CARDS[7:]
    f = features(sheet, 10, unseen)
    allowing = [c for c in unseen if CARD_MASK[c] & i_mask]
    assert allowing == ["col:3", "sector:1", "sector:4"]
    assert f[57] == pytest.approx(1 - math.exp(-len(allowing) * 0.5 * 2 / 6))


def test_two_turn_search_is_exact_at_the_end() -> None:
    # With two turns left and no pruning, the two-turn search is the exact expectimax of the
    # final score: every card that may come next, every die face, then the last turn.
    free = mask_of(["A1", "A2", "A3", "A4", "A5", "B1", "B2", "C1", "E5", "E6", "F5", "F6"])
    sheet = FULL & ~free
    unseen = ["row:A", "row:B", "sector:5", "col:6", "col:9"]

    def best_after(s: int, card: str, die: str, then: Any) -> float:
        shapes = TETROMINOES if die == "W" else [die]
        options = [s | m for sh in shapes for m in PLACEMENTS[sh] if m & CARD_MASK[card]
                   and not m & s]
        return max((then(o) for o in options), default=then(s))

    def last(s: int, cards: list[str]) -> float:
        return sum(best_after(s, c, d, score_sheet) for c in cards for d in "OITLSW") / (
            6 * len(cards))

    exact = sum(
        best_after(sheet, c, d, lambda s, c=c: last(s, [x for x in unseen if x != c]))
        for c in unseen for d in "OITLSW"
    ) / (6 * len(unseen))
    assert two_turn_value(sheet, 2, unseen, HARD_WEIGHTS, 99) == pytest.approx(exact)
    assert exact > score_sheet(sheet)


def test_lookahead_correction_weighs_the_lookahead_against_the_evaluation() -> None:
    # A placement is valued e + correction * (l - e): e its evaluation, l its one-turn
    # lookahead value. At 0 the lookahead changes nothing (the greedy choice); the chosen
    # placement is the best of the 16 candidates by that value.
    st = position(SECTOR_MASKS[4] | mask_of(["A1", "A2", "B1", "B2"]), "row:E", "W", turn=6)
    view = GAME.view(st, 0)
    sheet = st.sheets[0]
    flipped = [str(c) for c in view["flipped"]]
    unseen = [c for c in CARDS if c not in flipped]
    turns_left = 20 - 6

    def chosen(level: TedokuLevel) -> Choice:
        return plan(sheet, "row:E", "W", [], flipped, 6, level, HARD_WEIGHTS, Random(0))

    greedy = chosen(TedokuLevel("eval"))
    assert chosen(TedokuLevel("lookahead", candidates=16, correction=0.0)).mask == greedy.mask
    ranked = sorted(
        ((-evaluate(sheet | m, turns_left, HARD_WEIGHTS, unseen), m)
         for _, m in legal_placements("W", sheet, "row:E", [])),
    )[:16]
    for correction in (1.0, 1.5):
        values = {}
        for neg_e, m in ranked:
            lv = next_turn_value(sheet | m, turns_left, unseen, HARD_WEIGHTS)
            values[m] = -neg_e + correction * (lv + neg_e)
        ch = chosen(TedokuLevel("lookahead", candidates=16, correction=correction))
        assert ch.value == pytest.approx(values[ch.mask])
        assert ch.value == pytest.approx(max(values.values()))
