"""Teka's declarer raises with one "Raise..." action, a chooser of the numbers allowed and a
confirmation before anything is sent; the calls and signals say what they mean where they
are chosen ("Ter", "Behi ter", "+ slam"...), and a forced contract says why it is forced. By
touch in the real offscreen window, on a phone upright and a tablet on its side (each test
fails on the code before its fix: five "Bid N instead" buttons, sent at one tap, no words)."""

from __future__ import annotations

from typing import Any

import pytest
from test_client_gui import app, buttons, find, person, start_local, tablet_after  # noqa: F401

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("tablet_after")]

SIZES = [(360, 740), (1280, 800)]
"""A phone upright and a tablet on its side."""


at = testing.set_size_dp


def texts(root: Any) -> list[str]:
    return [w.text for w in find(root, "WrapLabel")]


def show_hand(screen: Any) -> None:
    """Pass-and-play: the next person takes the tablet."""
    s = screen.session
    while s.handoff is not None:
        testing.tap(screen.overlay.ids.show)


def in_window(widget: Any) -> bool:
    from kivy.core.window import Window

    x, y = testing.window_point(widget, widget.x, widget.y)
    return x >= 0 and y >= 0 and x + widget.width <= Window.width + 1 \
        and y + widget.height <= Window.height + 1


def bid_to_a_forced_contract(screen: Any) -> None:
    """Four people; the first three pass by touch (Ter, Behi ter, Pass: each says what it
    means under the buttons), the dealer must bid and bids 9, then names trumps."""
    s = screen.session
    passes = ["Ter", "Behi ter", "Pass"]
    rounds = 0
    while s.view.get("phase") in ("throw_in", "bidding", "trumps") and rounds < 20:
        rounds += 1
        show_hand(screen)
        b = buttons(screen.ids.extra)
        before = len(s.events)
        if "Keep" in b:
            testing.tap(b["Keep"])
        elif s.view["phase"] == "bidding" and passes:
            said = texts(screen.ids.extra)
            assert any("Ter: a pass that tells your partner: I can win few or no tricks" in t
                       for t in said), said
            assert any("Behi ter: a pass that tells your partner: my hand is very weak" in t
                       for t in said), said
            testing.tap(b[passes.pop(0)])
        elif s.view["phase"] == "bidding":  # the dealer: no pass offered
            assert "Pass" not in b and "Ter" not in b
            testing.tap(b["9"])
        else:
            testing.tap(b[next(t for t in b if t.endswith("Spades"))])
        assert len(s.events) > before
    assert s.view["phase"] == "play"
    contract = s.view["contract"]
    assert contract["forced"] and contract["bid"] == 9, contract
    show_hand(screen)


@pytest.mark.parametrize("size", SIZES)
def test_the_declarer_raises_with_one_confirmed_action(app: Any, size: Any) -> None:  # noqa: F811
    at(*size)
    s = start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dev")], seed=5)
    screen = app.root.get_screen("game")
    bid_to_a_forced_contract(screen)
    table = screen.board
    assert s.viewer == s.view["contract"]["bidder"]  # the declarer leads: their hand shown
    # the forced contract says why it is forced
    assert any("Forced: the first three passed, so the dealer had to bid" in t
               for t in texts(screen.ids.extra)), texts(screen.ids.extra)
    # one raise action, not a button per number
    b = buttons(screen.ids.extra)
    raising = [t for t in b if t.startswith("Raise")]
    assert raising == ["Raise\u2026"], list(b)
    assert not [t for t in b if "instead" in t or t.isdigit()], list(b)
    before = len(s.events)
    testing.tap(b["Raise\u2026"])
    dialog = table.raise_view
    assert dialog is not None and len(s.events) == before  # a chooser, nothing sent
    numbers = {t: w for t, w in buttons(dialog).items() if t.isdigit()}
    assert sorted(numbers) == ["10", "11", "12", "13"], list(buttons(dialog))
    from kivy.metrics import dp

    for w in buttons(dialog).values():
        assert in_window(w) and w.height >= dp(48) - 1 and w.width >= dp(48) - 1, w.text
    # a number asks first; Cancel sends nothing
    testing.tap(numbers["11"])
    assert len(s.events) == before
    asked = texts(dialog)
    assert any("Raise the contract from 9 to 11?" in t and "Both opponents must accept" in t
               for t in asked), asked
    testing.tap(buttons(dialog)["Cancel"])
    assert table.raise_view is None and len(s.events) == before
    assert s.view.get("raise", {}).get("pending") in (None, 0)
    # again, and confirmed: the raise to 11 is proposed
    testing.tap(buttons(screen.ids.extra)["Raise\u2026"])
    dialog = table.raise_view
    testing.tap(buttons(dialog)["12"])
    testing.tap(buttons(dialog)["Other number"])  # changed my mind: the numbers again
    testing.tap(buttons(dialog)["11"])
    testing.tap(buttons(dialog)["Propose 11"])
    assert table.raise_view is None
    assert s.events[before:] == [{"type": "raise", "seat": s.view["contract"]["bidder"],
                                  "to": 11}], s.events[before:]
    assert s.view["raise"]["pending"] == 11


@pytest.mark.parametrize("size", SIZES)
def test_signals_say_what_they_mean_where_they_are_chosen(app: Any, size: Any) -> None:  # noqa: F811
    at(*size)
    start_local(app, "teka", [person(n) for n in ("Ann", "Bob", "Cleo", "Dev")], seed=5)
    screen = app.root.get_screen("game")
    bid_to_a_forced_contract(screen)
    table = screen.board
    card = table.model.playable()[0]
    testing.tap(table, *table.card_point(card))
    assert table.model.selected == card
    b = buttons(screen.ids.extra)
    offered = [t for t in b if t.startswith("+ ")]
    assert offered, list(b)
    said = " ".join(texts(screen.ids.extra))
    meanings = {"+ slam": "partner, lead this suit when you next lead",
                "+ snap": "partner, lead the other suit of this colour",
                "+ drop": "I have no more cards of this suit"}
    for signal in offered:
        assert f"{signal}: {meanings[signal]}" in said, said
    label = next(w for w in find(screen.ids.extra, "WrapLabel") if "+ slam:" in w.text
                 or "+ drop:" in w.text)
    grid = next(w for w in find(screen.ids.extra, "FlowGrid") if b[offered[0]] in w.children)
    assert label.top <= grid.y + 1, "the meanings are under the signal buttons"
    assert label.font_name == "DejaVuSans"  # "snap" names the suits by their symbols
