"""Confirm before a move (a setting): a move a board would send is held until it is confirmed,
by the Confirm button or by the same tap again. Online a mis-tap cannot be taken back."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


class MoveGate:
    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled
        self.pending: Obj | None = None

    def offer(self, command: Obj) -> Obj | None:
        """The command to send now, or ``None`` when it is held for confirmation. The same
        command offered again while held is its confirmation."""
        if not self.enabled:
            return command
        if self.pending is not None and self.pending == command:
            self.pending = None
            return command
        self.pending = dict(command)
        return None

    def confirm(self) -> Obj | None:
        command, self.pending = self.pending, None
        return command

    def cancel(self) -> bool:
        held = self.pending is not None
        self.pending = None
        return held

    def still_legal(self, legal: list[Obj]) -> bool:
        """Drops the held move once the game has moved on without it (``False`` then)."""
        if self.pending is not None and self.pending not in legal:
            self.pending = None
            return False
        return True


def command_text(command: Obj) -> str:
    """A move in the project's notation (docs/notation.md): ``c3``, ``b2-c3``, ``7♥``,
    ``bid 9``... for the Confirm button."""
    from core.cli import notation

    t = command.get("type")
    if t in ("place", "move") and "to" in command and "cells" not in command:
        return notation(command)
    if t == "play":
        from client_kivy.vm.teka import card_text

        sig = f" + {command['signal']}" if command.get("signal") else ""
        return card_text(str(command.get("card"))) + sig
    if t == "bid":
        from client_kivy.vm.teka import call_text

        return f"bid {call_text(command.get('call'))}"
    if t == "trumps":
        from client_kivy.vm.teka import SUIT_NAME

        return f"trumps {SUIT_NAME.get(str(command.get('suit')), command.get('suit'))}"
    return str(t).replace("_", " ")
