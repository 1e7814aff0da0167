"""What the games app asks of club play (leagues, seasons, organisers) without importing it:
the leagues app depends on this one, never the other way (``tests/test_architecture.py``).

:mod:`server.leagues` puts its answers here when it starts (``LeaguesConfig.ready`` calls
:func:`use_leagues` with its :class:`Leagues`); until then, and on a server without it, the
defaults below answer: no leagues, no seasons, no organisers.
"""

from __future__ import annotations

from typing import Any

from core.api import OptionsError


class Leagues:
    """The questions, with the answers of a server without club play."""

    def league(self, league: Any, kind: str) -> Any:
        """The league a new game of ``kind`` counts in, from the caller's ``league`` (a
        League or its id; None: none). Raises OptionsError."""
        if league is None:
            return None
        raise OptionsError("no such league")

    def season(self, season: Any, league: Any) -> Any:
        """The season a new game counts in, from the caller's ``season`` (a Season or its id;
        None: none), one of ``league``'s. Raises OptionsError."""
        if season is None:
            return None
        raise OptionsError("a season is one of a league's: give the league too")

    def running_season(self, league_id: int) -> Any:
        """The season of the league ``league_id`` running today (a new game counts in it
        when its creator names none), or None."""
        return None

    def open_due_fixtures(self) -> None:
        """League fixtures whose date has come become tables (the lists of tables ask)."""

    def is_organiser(self, user: Any) -> bool:
        """Whether ``user`` organises the club's leagues (sees every league's tables)."""
        return False

    def create_refused(self, user: Any, game: Any) -> str | None:
        """Why ``user`` may not have created ``game`` (checked in its transaction), or None.
        Without club play nobody reserves seats for other players."""
        me = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
        others = [s.name for s in game.seat_set.all() if s.kind == s.USER and s.user_id != me]
        if others:
            return f"only an organiser reserves seats for other players ({', '.join(others)})"
        return None

    def join_refused(self, user: Any, game: Any) -> str | None:
        """Why ``user`` may not take an open seat of ``game``, or None."""
        return None


_IN_USE: list[Leagues] = [Leagues()]


def leagues() -> Leagues:
    """The answers in use."""
    return _IN_USE[0]


def use_leagues(answers: Leagues) -> None:
    """(the leagues app, at start) answer the games app's questions from now on."""
    _IN_USE[0] = answers
