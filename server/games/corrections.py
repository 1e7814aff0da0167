"""Corrections of a finished game's result: each a row appended after the game's end (who,
why, the result it replaces and the new one: :func:`correct`), never an edit of the log;
:func:`verify_corrections` checks that they follow from the log and from each other. The
result a correction gives is decided by the rules core as if the organiser had ended the
game with it (:func:`correction_outcome`).
"""

from __future__ import annotations

import json
from typing import Any

from django.db import IntegrityError, transaction

from core.api import IllegalMoveError, OptionsError, dumps

from .cache import Entry, NotFound, entry
from .inputs import text_ok
from .models import Game


def _before_the_end(e: Entry) -> Any:
    """The state of a finished game just before its end: the fold of the longest start of
    its log whose state is not over (where a result command is decided)."""
    state = e.game.initial()
    for _seq, _seat, event in e.log:
        after = e.game.evolve(state, event)
        if e.game.outcome(after) is not None:
            return state
        state = after
    return state


def correction_outcome(e: Entry, command: Any) -> dict[str, Any]:
    """The result a correction ``command`` (a ``result`` command) gives the finished game of
    ``e``, decided by the rules core as if the organiser had ended the game with it: well
    formed, and a result this game with its options can have. Raises OptionsError why not."""
    state = _before_the_end(e)
    try:
        events = e.game.decide_result(state, command)
    except IllegalMoveError as exc:
        raise OptionsError(exc.reason) from None
    for event in events:
        state = e.game.evolve(state, event)
    out = e.game.outcome(state)
    if out is None:  # (a result command always ends the game)
        raise OptionsError("that result does not end the game")
    return dict(json.loads(dumps(out.to_json())))


class CorrectionStale(OptionsError):
    """Another correction of the same game came first: look at the result again."""


def correct(game_id: int, by: str, why: Any, winners: Any, reason: Any,
            scores: Any = None) -> Any:
    """Correct a finished game's result: one :class:`~server.games.models.Correction`
    appended after its end (who, why, the result it replaces and the new one), never an
    edit of the log. ``reason`` is a result's reason (``adjudicated`` with the winners and
    optional scores, ``forfeit``, ``void``: counts for nobody, ``off_board``). The database
    refuses it unless the game is finished and it replaces the result that counts now.
    Raises OptionsError (why it is refused), CorrectionStale, NotFound."""
    from core.api import RESULT

    from .models import Correction

    if not isinstance(why, str) or not why.strip():
        raise OptionsError("say why the result is corrected (the reason is on the record)")
    why = why.strip()
    if len(why) > 500 or not text_ok(why):
        raise OptionsError("the reason is at most 500 characters of plain text")
    e = entry(game_id, fresh=True)
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"no game {game_id}")
    if game.status != Game.FINISHED or game.outcome is None:
        raise OptionsError("the game is not over: decide its result instead of correcting it")
    command = {"type": RESULT, "winners": winners, "reason": reason, "scores": scores}
    new = correction_outcome(e, command)
    old = game.result
    if new == old:
        raise OptionsError("that is already the result: nothing to correct")
    n = game.corrections.count() + 1
    try:
        with transaction.atomic():
            return Correction.objects.create(game=game, n=n, by=by, why=why, old_result=old,
                                             new_result=new,
                                             command=command)
    except IntegrityError:
        raise CorrectionStale(
            "another correction of this game came first: look at its result again") from None


def verify_corrections(game_id: int) -> str:
    """Why a game's corrections do not follow from its log and each other, or ``""``: each
    replaces the result that counted before it (the log's outcome, then each correction's),
    its result is what the rules core gives its command, and the game's corrected result is
    the last one's."""
    from .models import Correction

    game = Game.objects.filter(pk=game_id).first()
    rows = list(Correction.objects.filter(game_id=game_id).order_by("n"))
    if game is None or not rows:
        return ""
    e = entry(game_id, fresh=True)
    counted = game.outcome
    for i, c in enumerate(rows, start=1):
        if c.n != i:
            return f"correction {i} is missing"
        if c.old_result != counted:
            return f"correction {i} does not replace the result that counted before it"
        try:
            want = correction_outcome(e, c.command)
        except OptionsError as exc:
            return f"correction {i} is not a result this game can have: {exc}"
        if want != c.new_result:
            return f"correction {i}'s result is not its command's"
        counted = c.new_result
    if game.corrected != counted:
        return "the game's corrected result is not its last correction's"
    return ""
