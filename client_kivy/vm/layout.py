"""The phone layout's decisions, without Kivy: which layout a window gets and who sits in
which player bar.

A window whose short side is under :data:`PHONE_SHORT_SIDE` dp is a phone: the game screen
shows the board as large as it fits, a player bar above it (the others) and one below it
(this device's seat), the status and the actions in a short bar under it, and the rest
(moves, score sheet, rules, less-used actions) in the *More* sheet. On its side the board
takes the height and the bars and actions stand beside it. A tablet keeps the board beside
(or above) a panel with every player and every button.
"""

from __future__ import annotations

from typing import Any

PHONE_SHORT_SIDE = 600.0
"""dp: a window with a shorter short side is a phone."""

TABLET, PHONE, PHONE_SIDE = "tablet", "phone", "phone-side"

SHARED_BOARD_GAMES = frozenset({"teeko", "tiku"})
"""Games whose board is the same for every seat (not drawn from one seat's side)."""


def layout_mode(width_dp: float, height_dp: float) -> str:
    """``tablet``, ``phone`` (upright) or ``phone-side`` for a window of that size in dp."""
    if min(width_dp, height_dp) >= PHONE_SHORT_SIDE:
        return TABLET
    return PHONE_SIDE if width_dp > height_dp * 1.15 else PHONE


def bottom_seat(game: str, kind: str, viewer: int, players: list[dict[str, Any]]) -> int:
    """The seat in the bar below the board: this device's seat (the seat the table is drawn
    from). Two people sharing one board game on the device keep the first seat at the
    bottom (the board does not turn between them); a spectator sees the first seat there."""
    n = len(players) or 2
    if not 0 <= viewer < n:
        return 0
    people = [p for p in players if p.get("kind") == "human"]
    if kind == "local" and game in SHARED_BOARD_GAMES and len(people) > 1:
        return 0
    return viewer


def bar_seats(game: str, kind: str, viewer: int,
              players: list[dict[str, Any]]) -> tuple[list[int], list[int]]:
    """(seats in the bar above the board, seats in the bar below it): the others above, in
    turn order from the seat after this device's, which is below."""
    n = len(players) or 2
    me = bottom_seat(game, kind, viewer, players)
    return [(me + k) % n for k in range(1, n)], [me]


SECONDARY_ACTIONS = frozenset({"Resign", "Offer draw", "Moves", "Rules", "Share"})
"""The game screen's buttons that go to the *More* sheet on a phone (the short bar keeps
what answers the game now: Confirm/Cancel a held move, a draw offer, Take back, Hint,
Replay/Rematch at the end)."""


def in_short_bar(text: str) -> bool:
    """Whether a game-screen button of this text stays in the phone's short bar."""
    return text not in SECONDARY_ACTIONS and not text.startswith("Sure?")
