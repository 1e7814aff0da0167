"""Events, results and tables in words for callers that have an event, a view or a game's name
rather than the game: the app's replay captions and move list, the sentences the server sends
the web pages (docs/web.md).

Each game words what is its own in its own module, through the game API (:class:`core.api.Game`:
``describe``, ``result_text``, ``doing``, ``trick_result``, ``hand_result``; docs/games.md
"Words"), from the wording every game shares (:mod:`core.wording`). The functions here find the
game: ``describe(event, names)`` asks each registered game for its words in turn, then falls
back on the shared wording; ``result(kind, outcome, names)`` and ``doing(kind, view, names)``
ask the game of that name; ``trick_result(view, names)`` and ``hand_result(view)`` the first
game that has something to say. A caller that has the game calls the game.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from core.wording import card_text as card_text
from core.wording import doing_line, outcome_text, shared_event
from core.wording import joined_and as joined_and

if TYPE_CHECKING:
    from core.api import Game

Obj = dict[str, Any]


def _games() -> Iterator[Game]:
    import core

    return iter(list(core.GAMES.values()))


def _game(kind: str) -> Game | None:
    import core

    return core.GAMES.get(kind)


def all_reasons() -> dict[str, str]:
    """Every registered game's reasons in words (for an outcome of a game not named)."""
    out: dict[str, str] = {}
    for game in _games():
        out.update(game.reason_words())
    return out


def describe(ev: Obj, names: Sequence[str] | None = None, plain: bool = False) -> str:
    """One event of any registered game in a short sentence: the words of the first game that
    has its own for it (``Game.event_words``, each game in the order of ``core.GAMES``), else
    the shared wording. A caller that has the game calls ``Game.describe``."""
    for game in _games():
        text = game.event_words(ev, names, plain)
        if text is not None:
            return text
    return shared_event(ev, names, all_reasons())


def result(kind: str, outcome: Obj | None, names: Sequence[str] | None = None) -> str:
    """How a game of ``kind`` ended, in a line (``Game.result_text``: "ada & chen win 104-52",
    "Ann wins (four in a pattern)", "Draw (by agreement)"); "" for no outcome. A kind that is
    no game's gets the default wording."""
    game = _game(kind)
    if game is None:
        return outcome_text(outcome, names, all_reasons())
    return game.result_text(outcome, names)


def doing(kind: str, view: Obj | None, names: Sequence[str] | None = None) -> str:
    """What the seats to act are doing in a game of ``kind``, from the view a viewer has
    (``Game.doing``): "Ann is cutting the deck", "Ann, Bob and Cy are drawing the shape",
    "Ann to play"; "" when the game is over or nobody is to act."""
    game = _game(kind)
    return game.doing(view, names) if game else doing_line(view, names, "")


def trick_result(view: Obj | None, names: Sequence[str] | None = None) -> str:
    """The last trick won, from a view of a game that has tricks (``Game.trick_result``):
    "Bob won trick 3; North-South 1, East-West 2"; "" otherwise."""
    for game in _games():
        text = game.trick_result(view, names)
        if text:
            return text
    return ""


def hand_result(view: Obj | None) -> str:
    """The last hand scored, from a view of a game that keeps a score sheet
    (``Game.hand_result``): "Hand 5: North-South bid 9 and made it"; "" otherwise."""
    for game in _games():
        text = game.hand_result(view)
        if text:
            return text
    return ""
