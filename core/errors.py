"""The errors of the rules core.

Kept out of the mypyc build (see setup.py): the server subclasses them, and an interpreted
class cannot inherit from a compiled one.
"""

from __future__ import annotations

from typing import Any


class IllegalMoveError(ValueError):
    """A command the rules refuse. ``code`` classifies it; the message says why.

    Codes: ``malformed`` (not a well-formed command), ``wrong_seat`` (no such seat),
    ``not_your_turn``, ``game_over``, ``illegal`` (well-formed but against a rule).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = message

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason}


class OptionsError(ValueError):
    """Table options that are unknown, of the wrong type or out of range."""


class EventVersionError(ValueError):
    """A stored event whose schema version this core cannot read: not a version number, or
    newer than the game's current one (a newer gamenight wrote it). Such a log is refused,
    never folded."""
