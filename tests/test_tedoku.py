"""Tedoku rules (core/tedoku.py): rulebook cases and the rulings in RULES.md."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from core import ALL, SPECTATOR, IllegalMoveError, OptionsError
from core.api import apply, dumps, fold
from core.tedoku import (
    BASE_SHAPES,
    BY_CARD,
    CARD_MASK,
    CARDS,
    CELL_NAMES,
    GAME,
    ORIENTATIONS,
    PLACEMENTS,
    empty_squares,
    legal_placements,
    mask_of,
    placements,
    score_parts,
    score_sheet,
    tier,
)

Ev = dict[str, Any]
ROWS = "ABCDEFGHI"


def cells_except(*empty: str) -> list[str]:
    return [c for c in CELL_NAMES if c not in empty]


def deck_starting(*first: str) -> list[str]:
    rest = [c for c in CARDS if c not in first]
    order = list(first) + rest
    return order


def begin(seats: int = 1, bonus: bool = False, card: str = "sector:5", die: str = "O",
          deck: list[str] | None = None) -> list[Ev]:
    order = deck if deck is not None else deck_starting(card)
    return [
        {"type": "start", "options": GAME.options({"seats": seats, "bonus": bonus})},
        {"type": "shuffle", "deck_size": 20, "removed_size": 7,
         "deck": order[:20], "removed": order[20:]},
        {"type": "flip", "turn": 1, "card": order[0], "die": die},
    ]


def with_sheets(sheets: list[list[str]], card: str, die: str, bonus: bool = False) -> Any:
    """A state at turn 2 whose sheets hold ``sheets`` (laid down in turn 1 by events; evolve
    trusts its events)."""
    order = deck_starting("row:A", card) if card != "row:A" else deck_starting("row:A")
    events = begin(len(sheets), bonus, deck=order, die="W")
    for seat, cells in enumerate(sheets):
        events.append({"type": "placed", "seat": seat, "turn": 1, "shape": "L",
                       "cells": cells, "token": "x"})
    events.append({"type": "reveal", "turn": 1, "placements": []})
    events.append({"type": "flip", "turn": 2, "card": order[1], "die": die})
    state = fold(GAME, events)
    assert GAME.view(state, ALL)["card"] == card
    return state


def place(
    state: Any, seat: int, cells: list[str], shape: str | None = None
) -> tuple[Any, list[Ev]]:
    cmd: Ev = {"type": "place", "cells": cells}
    if shape is not None:
        cmd["shape"] = shape
    return apply(GAME, state, seat, cmd, Random(1))


def refused(state: Any, seat: int, command: Any, code: str = "illegal") -> str:
    with pytest.raises(IllegalMoveError) as err:
        GAME.decide(state, seat, command, Random(1))
    assert err.value.code == code, err.value.reason
    return err.value.reason


# ---------------------------------------------------------------- shapes and placements


def test_orientation_counts() -> None:
    counts = {s: len(o) for s, o in ORIENTATIONS.items()}
    assert counts == {"O": 1, "I": 2, "T": 4, "L": 8, "S": 4, "B1": 1, "B2": 2, "B4": 1}
    # placements inside an empty 9x9 sheet
    assert {s: len(PLACEMENTS[s]) for s in ("O", "I", "T", "L", "S", "B1", "B2")} == {
        "O": 64, "I": 108, "T": 224, "L": 448, "S": 224, "B1": 81, "B2": 144}
    for s in PLACEMENTS:
        assert len(set(PLACEMENTS[s])) == len(PLACEMENTS[s])


def brute_force(shape: str, sheet: int, card: str) -> set[frozenset[str]]:
    """Independent enumeration: every rotation/reflection of the base cells, every offset."""
    out: set[frozenset[str]] = set()
    base = BASE_SHAPES[shape]
    forms = []
    for flip in (False, True):
        pts = [(r, -c if flip else c) for r, c in base]
        for _ in range(4):
            pts = [(c, -r) for r, c in pts]
            forms.append(list(pts))
    for form in forms:
        for dr in range(-10, 10):
            for dc in range(-10, 10):
                cells = [(r + dr, c + dc) for r, c in form]
                if not all(0 <= r < 9 and 0 <= c < 9 for r, c in cells):
                    continue
                names = frozenset(ROWS[r] + str(c + 1) for r, c in cells)
                m = mask_of(sorted(names))
                if m & sheet or not m & CARD_MASK[card]:
                    continue
                out.add(names)
    return out


def test_placements_match_brute_force() -> None:
    rng = Random(5)
    for _ in range(12):
        sheet = 0
        for i in range(81):
            if rng.random() < 0.35:
                sheet |= 1 << i
        card = rng.choice(CARDS)
        for shape in BASE_SHAPES:
            got = {frozenset(CELL_NAMES[i] for i in range(81) if m >> i & 1)
                   for m in placements(shape, sheet, card)}
            assert got == brute_force(shape, sheet, card), (shape, card)


def test_legal_commands_list_each_placement_once() -> None:
    state = fold(GAME, begin(1, bonus=True, card="sector:5", die="W"))
    legal = GAME.legal_commands(state, 0)
    cell_sets = [frozenset(c["cells"]) for c in legal if c["type"] == "place"]
    assert len(cell_sets) == len(set(cell_sets))
    # wild: the five tetrominoes, plus the 1x1 and 2x1 bonus shapes (a 2x2 is the O)
    expected = sum(len(BY_CARD[s]["sector:5"]) for s in ("O", "I", "T", "L", "S", "B1", "B2"))
    assert len(legal) == expected
    assert {"type": "skip"} not in legal
    assert not any(c.get("shape") == "B4" for c in legal)
    for cmd in legal[::37]:
        apply(GAME, state, 0, cmd, Random(2))


# ---------------------------------------------------------------- the card rule


def test_shape_must_touch_the_row_of_the_card() -> None:
    state = fold(GAME, begin(card="row:E", die="I"))
    assert "row:E" in refused(state, 0, {"type": "place", "cells": ["A1", "A2", "A3", "A4"]})
    place(state, 0, ["E1", "E2", "E3", "E4"])
    # vertical, one square in row E is enough
    _, events = place(state, 0, ["B1", "C1", "D1", "E1"])
    assert events[0]["shape"] == "I"
    refused(state, 0, {"type": "place", "cells": ["F1", "G1", "H1", "I1"]})


def test_shape_must_touch_the_column_of_the_card() -> None:
    state = fold(GAME, begin(card="col:3", die="L"))
    place(state, 0, ["A1", "A2", "A3", "B3"])
    place(state, 0, ["G3", "H3", "I3", "I4"], shape="L")  # a J counts as the L
    refused(state, 0, {"type": "place", "cells": ["A4", "A5", "A6", "B6"]})


def test_shape_must_touch_the_sector_of_the_card() -> None:
    # rulebook example: wild in the fifth sector, an L only partly inside it
    state = fold(GAME, begin(card="sector:5", die="W"))
    _, events = place(state, 0, ["C4", "D4", "E4", "E3"])
    assert events[0]["shape"] == "L"
    _, events = place(state, 0, ["F5", "G4", "G5", "G6"])  # T poking into sector 5 from below
    assert events[0]["shape"] == "T"
    refused(state, 0, {"type": "place", "cells": ["G4", "G5", "G6", "H5"]})
    refused(state, 0, {"type": "place", "cells": ["A1", "A2", "B1", "B2"]})


def test_overlap_out_of_sheet_and_wrong_shapes_refused() -> None:
    state = with_sheets([["E5", "E6"]], card="sector:5", die="O")
    assert "overlap" in refused(state, 0, {"type": "place", "cells": ["E5", "E4", "D4", "D5"]})
    refused(state, 0, {"type": "place", "cells": ["D9", "D10", "E9", "E10"]})
    refused(state, 0, {"type": "place", "cells": ["J4", "J5", "I4", "I5"]})
    # wrapping around the edge is not a 2x2 square
    refused(state, 0, {"type": "place", "cells": ["D8", "D9", "E1", "E2"]})
    refused(state, 0, {"type": "place", "cells": ["D4", "D5", "F4", "F5"]})  # not joined
    # the die shows the O: an I is not allowed
    assert "not I" in refused(state, 0, {"type": "place", "cells": ["D1", "D2", "D3", "D4"]})
    refused(state, 0, {"type": "place", "cells": ["D4", "D5", "F4", "F5", "F6"]}, "malformed")
    refused(state, 0, {"type": "place", "cells": ["D4", "D4", "E4", "E4"]}, "malformed")
    refused(state, 0, {"type": "place", "cells": "D4"}, "malformed")
    refused(state, 0, {"type": "place", "cells": ["D4", "D3", "E4", "E3"], "x": 1}, "malformed")
    refused(state, 0, {"type": "place", "cells": ["D4", "D3", "E4", "E3"], "shape": "Q"},
            "malformed")
    refused(state, 0, {"type": "place", "cells": ["D4", "D3", "E4", "E3"], "shape": "T"})
    place(state, 0, ["D4", "D3", "E4", "E3"], shape="O")


# ---------------------------------------------------------------- skipping


def test_skip_refused_while_the_rolled_shape_fits() -> None:
    state = fold(GAME, begin(card="row:A", die="T"))
    assert "skip" in refused(state, 0, {"type": "skip"})
    assert {"type": "skip"} not in GAME.legal_commands(state, 0)
    refused(state, 0, {"type": "skip", "why": "no"}, "malformed")


def test_skip_allowed_when_the_rolled_shape_cannot_fit() -> None:
    # row E has only single holes left: no I, but the O still fits elsewhere (not in row E)
    state = with_sheets([cells_except("E1", "E5", "E9", "A1", "A2", "B1", "B2")],
                        card="row:E", die="I")
    assert GAME.legal_commands(state, 0) == [{"type": "skip"}]
    state2, events = apply(GAME, state, 0, {"type": "skip"}, Random(3))
    assert events[0]["skip"] is True
    assert [e["type"] for e in events] == ["placed", "reveal", "flip"]
    assert GAME.view(state2, 0)["players"][0]["history"][-1] == {
        "seat": 0, "shape": None, "cells": []}


def test_wild_skip_only_when_no_shape_fits() -> None:
    # row E: a 1x3 hole then single holes: no tetromino fits, so wild may be skipped
    holes = ["E1", "E2", "E3", "E5", "E7", "E9"]
    state = with_sheets([cells_except(*holes)], card="row:E", die="W")
    assert GAME.legal_commands(state, 0) == [{"type": "skip"}]
    # open one more square below the 1x3 hole: now an L and a T fit, so no skip
    state = with_sheets([cells_except(*holes, "F2")], card="row:E", die="W")
    legal = GAME.legal_commands(state, 0)
    assert {"type": "skip"} not in legal
    assert {c["shape"] for c in legal} == {"T"}
    refused(state, 0, {"type": "skip"})


def test_skip_allowed_even_when_a_bonus_shape_would_fit() -> None:
    # RULES.md: skip when the rolled shape has no placement; a bonus may still be drawn
    state = with_sheets([cells_except("E1", "E5", "E9")], card="row:E", die="S", bonus=True)
    legal = GAME.legal_commands(state, 0)
    assert {"type": "skip"} in legal
    assert sorted(c["cells"][0] for c in legal if c["type"] == "place") == ["E1", "E5", "E9"]
    assert all(c.get("shape") == "B1" for c in legal if c["type"] == "place")
    _, events = place(state, 0, ["E5"])
    assert events[0]["shape"] == "B1"
    apply(GAME, state, 0, {"type": "skip"}, Random(1))


# ---------------------------------------------------------------- bonus shapes


def test_bonus_shapes_once_each_and_two_points_each_unused() -> None:
    state = fold(GAME, begin(1, bonus=True, card="row:A", die="I",
                             deck=deck_starting("row:A", "row:B", "row:C", "row:D")))
    assert GAME.view(state, 0)["players"][0]["score"]["bonus"] == 6
    state, _ = place(state, 0, ["A1"], shape="B1")
    view = GAME.view(state, 0)
    assert view["players"][0]["bonus_left"] == ["B2", "B4"]
    assert view["players"][0]["score"]["bonus"] == 4
    assert "already used" in refused(state, 0, {"type": "place", "cells": ["B1"]})
    state, _ = place(state, 0, ["B1", "C1"])
    assert GAME.view(state, 0)["players"][0]["bonus_left"] == ["B4"]
    assert not any(len(c["cells"]) < 4 for c in GAME.legal_commands(state, 0))


def test_no_bonus_shapes_without_the_option() -> None:
    state = fold(GAME, begin(1, bonus=False, card="row:A", die="L"))
    assert "not used" in refused(state, 0, {"type": "place", "cells": ["A1"]})
    refused(state, 0, {"type": "place", "cells": ["A1", "A2"], "shape": "B2"})
    assert all(len(c["cells"]) == 4 for c in GAME.legal_commands(state, 0))
    assert GAME.view(state, 0)["players"][0]["score"]["bonus"] == 0


@pytest.mark.parametrize("die", ["O", "W"])
def test_a_2x2_counts_as_the_o_when_the_o_may_be_drawn(die: str) -> None:
    state = fold(GAME, begin(1, bonus=True, card="row:A", die=die))
    legal = GAME.legal_commands(state, 0)
    assert not any(c["shape"] == "B4" for c in legal)
    for label in (None, "O", "B4"):
        after, events = place(state, 0, ["A1", "A2", "B1", "B2"], shape=label)
        assert events[0]["shape"] == "O"
        assert GAME.view(after, 0)["players"][0]["bonus_left"] == ["B1", "B2", "B4"]


def test_a_2x2_is_the_bonus_square_when_the_o_may_not_be_drawn() -> None:
    state = fold(GAME, begin(1, bonus=True, card="row:A", die="T"))
    legal = GAME.legal_commands(state, 0)
    assert {"type": "place", "shape": "B4", "cells": ["A1", "A2", "B1", "B2"]} in legal
    assert "B4" in refused(state, 0, {"type": "place", "cells": ["A1", "A2", "B1", "B2"],
                                      "shape": "O"})
    after, events = place(state, 0, ["A1", "A2", "B1", "B2"])
    assert events[0]["shape"] == "B4"
    assert GAME.view(after, 0)["players"][0]["bonus_left"] == ["B1", "B2"]


# ---------------------------------------------------------------- simultaneity


def test_placements_stay_secret_until_everyone_has_drawn() -> None:
    state = fold(GAME, begin(3, card="row:A", die="O"))
    assert GAME.to_act(state) == [0, 1, 2]
    state, events = place(state, 0, ["A1", "A2", "B1", "B2"])
    assert [e["type"] for e in events] == ["placed"]
    assert GAME.to_act(state) == [1, 2]
    secret = GAME.secrets(state, 1)
    assert events[0]["token"] in secret
    for viewer in (1, 2, SPECTATOR):
        red = GAME.redact(events[0], viewer)
        assert red == {"type": "placed", "seat": 0, "turn": 1}
        view = GAME.view(state, viewer)
        p0 = view["players"][0]
        assert p0["placed"] is True and "pending" not in p0
        assert p0["sheet"] == ["........."] * 9
        assert events[0]["token"] not in dumps(view)
    mine = GAME.view(state, 0)["players"][0]
    assert mine["sheet"][0] == "**......." and mine["pending"]["cells"] == ["A1", "A2", "B1", "B2"]
    assert GAME.redact(events[0], 0) == events[0]
    refused(state, 0, {"type": "place", "cells": ["A5", "A6", "B5", "B6"]}, "not_your_turn")
    assert GAME.legal_commands(state, 0) == []
    state, events = place(state, 2, ["A8", "A9", "B8", "B9"])
    assert GAME.view(state, 1)["players"][2]["sheet"][0] == "........."
    state, events = place(state, 1, ["A4", "A5", "B4", "B5"])
    assert [e["type"] for e in events] == ["placed", "reveal", "flip"]
    assert [p["cells"][0] for p in events[1]["placements"]] == ["A1", "A4", "A8"]
    assert events[2]["turn"] == 2 and events[2]["card"] == "row:B"
    for viewer in (0, 1, 2, SPECTATOR):
        rows = [p["sheet"][0] for p in GAME.view(state, viewer)["players"]]
        assert rows == ["##.......", "...##....", ".......##"]
    assert GAME.to_act(state) == [0, 1, 2]


def test_deck_and_removed_cards_are_secret() -> None:
    events = GAME.start(GAME.options({"seats": 2}), Random(11))
    shuffle = events[1]
    assert len(shuffle["deck"]) == 20 and len(shuffle["removed"]) == 7
    assert sorted(shuffle["deck"] + shuffle["removed"]) == sorted(CARDS)
    assert events[2]["card"] == shuffle["deck"][0]
    state = fold(GAME, events)
    for viewer in (0, 1, SPECTATOR):
        secret = set(GAME.secrets(state, viewer))
        assert secret == set(shuffle["deck"][1:] + shuffle["removed"])
        red = GAME.redact(shuffle, viewer)
        assert red == {"type": "shuffle", "deck_size": 20, "removed_size": 7}
        view = GAME.view(state, viewer)
        assert "deck" not in view and "removed" not in view
        assert view["flipped"] == [shuffle["deck"][0]] and view["remaining"] == 19
    assert GAME.view(state, ALL)["deck"] == shuffle["deck"]


def test_resample_keeps_what_the_seat_knows_and_redraws_the_rest() -> None:
    state = fold(GAME, begin(3, card="row:A", die="W"))
    state, _ = place(state, 1, ["A1", "A2", "A3", "A4"])
    state, _ = place(state, 2, ["A6", "A7", "A8", "A9"])
    view = GAME.view(state, 0)
    seen = set()
    for seed in range(8):
        again = GAME.resample(view, 0, Random(seed))
        assert dumps(GAME.view(again, 0)) == dumps(view)
        full = GAME.view(again, ALL)
        assert full["deck"][0] == "row:A"
        assert sorted(full["deck"] + full["removed"]) == sorted(CARDS)
        for seat in (1, 2):
            pend = full["players"][seat]["pending"]
            assert pend is not None and pend["shape"] in ("O", "I", "T", "L", "S")
            assert mask_of(pend["cells"]) & CARD_MASK["row:A"]
        seen.add(tuple(full["deck"]))
    assert len(seen) > 1


# ---------------------------------------------------------------- scoring and the end


RULEBOOK_EMPTY = ["D7", "D8", "E8", "E9", "F9", "H3", "H9", "I3", "I9"]


def test_rulebook_scoring_example() -> None:
    # 6 sectors, columns 1 2 4 5 6, rows A B C G, 9 empty squares: 18 + 5 + 4 = 27
    sheet = mask_of(cells_except(*RULEBOOK_EMPTY))
    assert score_parts(sheet) == (6, 4, 5)
    assert score_sheet(sheet) == 27
    assert empty_squares(sheet) == 9


def crafted_game(seats: int, bonus: bool, plays: list[list[tuple[str, list[str]] | None]]) -> Any:
    """Twenty turns whose placements are given per turn and seat (evolve trusts its events)."""
    events = begin(seats, bonus, card="row:A", die="L", deck=list(CARDS))
    for turn in range(1, 21):
        if turn > 1:
            events.append({"type": "flip", "turn": turn, "card": CARDS[turn - 1], "die": "L"})
        for seat in range(seats):
            play = plays[turn - 1][seat] if turn - 1 < len(plays) else None
            if play is None:
                events.append({"type": "placed", "seat": seat, "turn": turn, "skip": True,
                               "token": "t"})
            else:
                events.append({"type": "placed", "seat": seat, "turn": turn, "shape": play[0],
                               "cells": play[1], "token": "t"})
        events.append({"type": "reveal", "turn": turn, "placements": []})
    return fold(GAME, events)


def chunks(cells: list[str]) -> list[tuple[str, list[str]]]:
    return [("L", cells[i:i + 4]) for i in range(0, len(cells), 4)]


def test_rulebook_example_as_a_solo_game() -> None:
    shapes = chunks(cells_except(*RULEBOOK_EMPTY))
    assert len(shapes) == 18
    state = crafted_game(1, False, [[s] for s in shapes])  # turns 19 and 20 skipped
    oc = GAME.outcome(state)
    assert oc is not None and oc.scores == [27] and oc.winners == [0]
    assert oc.reason == "black_belt"
    view = GAME.view(state, SPECTATOR)
    assert view["tier"] == {"key": "black_belt", "range": "25-40", "label": "Tedoku Black Belt",
                            "final": True}
    assert view["players"][0]["score"] == {"sectors": 6, "rows": 4, "cols": 5, "bonus": 0,
                                           "total": 27, "empty": 9}


def test_solo_tier_counts_bonus_points() -> None:
    # rows A-E full: 3 sectors, 5 rows: 14 points; with two bonus shapes unused: 18
    plays: list[list[tuple[str, list[str]] | None]] = [[("B1", ["I9"])]]
    for s in chunks(CELL_NAMES[:44]):
        plays.append([s])
    plays.append([("L", ["E9"])])
    state = crafted_game(1, True, plays)
    oc = GAME.outcome(state)
    assert oc is not None and oc.scores == [18] and oc.reason == "champion"
    assert GAME.view(state, 0)["tier"]["range"] == "16-24"
    plain = crafted_game(1, False, plays[1:])
    oc = GAME.outcome(plain)
    assert oc is not None and oc.scores == [14] and oc.reason == "right_track"


def test_tiers() -> None:
    assert [tier(t)[0] for t in (0, 10, 11, 15, 16, 24, 25, 40, 41, 99)] == [
        "capable_of_more", "capable_of_more", "right_track", "right_track", "champion",
        "champion", "black_belt", "black_belt", "cheating", "cheating"]


def test_highest_total_wins() -> None:
    row_a = ("I", ["A1", "A2", "A3", "A4"])
    state = crafted_game(2, False, [[row_a, None], [("I", ["A5", "A6", "A7", "A8"]), None],
                                    [("B1", ["A9"]), None]])
    oc = GAME.outcome(state)
    assert oc is not None and oc.winners == [0] and oc.reason == "score" and oc.scores == [1, 0]


def test_tie_broken_by_fewest_empty_squares() -> None:
    state = crafted_game(3, False, [[("I", ["A1", "A2", "A3", "A4"]), None,
                                     ("I", ["B1", "B2", "B3", "B4"])]])
    oc = GAME.outcome(state)
    assert oc is not None and oc.scores == [0, 0, 0]
    assert oc.winners == [0, 2] and oc.reason == "shared"
    state = crafted_game(3, False, [[("I", ["A1", "A2", "A3", "A4"]), None,
                                     ("O", ["B1", "B2", "C1", "C2"])],
                                    [None, None, ("B1", ["D1"])]])
    oc = GAME.outcome(state)
    assert oc is not None and oc.winners == [2] and oc.reason == "fewest_empty"


def test_twenty_turns_then_the_end() -> None:
    rng = Random(4)
    log = GAME.start(GAME.options({"seats": 2, "bonus": True}), rng)
    state = fold(GAME, log)
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        state, events = apply(GAME, state, seat, rng.choice(GAME.legal_commands(state, seat)), rng)
        log += events
    flips = [e for e in log if e["type"] == "flip"]
    reveals = [e for e in log if e["type"] == "reveal"]
    assert [e["turn"] for e in flips] == list(range(1, 21))
    assert len(reveals) == 20 and reveals[-1]["turn"] == 20
    assert [e["card"] for e in flips] == log[1]["deck"]
    assert GAME.to_act(state) == []
    assert GAME.legal_commands(state, 0) == []
    refused(state, 0, {"type": "skip"}, "game_over")
    view = GAME.view(state, 1)
    assert view["remaining"] == 0 and len(view["flipped"]) == 20
    oc = GAME.outcome(state)
    assert oc is not None and view["outcome"] == oc.to_json()
    assert oc.scores == [p["score"]["total"] for p in view["players"]]
    assert dumps(GAME.view(fold(GAME, log), ALL)) == dumps(GAME.view(state, ALL))


def test_legal_placements_helper() -> None:
    assert len(legal_placements("I", 0, "row:A", [])) == len(BY_CARD["I"]["row:A"])
    assert legal_placements("O", mask_of(CELL_NAMES), "row:A", ["B1"]) == []
    both = legal_placements("T", 0, "col:1", ["B1", "B2", "B4"])
    assert {s for s, _ in both} == {"T", "B1", "B2", "B4"}


def test_options() -> None:
    assert GAME.options(None) == {"seats": 1, "bonus": False}
    assert GAME.options({"seats": 8, "bonus": True}) == {"seats": 8, "bonus": True}
    for bad in ({"seats": 0}, {"seats": 9}, {"seats": "2"}, {"seats": True}, {"bonus": 1},
                {"colour": "red"}):
        with pytest.raises(OptionsError):
            GAME.options(bad)
    assert (GAME.min_seats, GAME.max_seats) == (1, 8)


def test_commands_checked() -> None:
    state = fold(GAME, begin(2, card="row:A", die="O"))
    refused(state, 5, {"type": "skip"}, "wrong_seat")
    refused(state, 0, "place", "malformed")
    refused(state, 0, {"type": "resign"}, "malformed")
