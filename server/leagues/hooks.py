"""The leagues app's answers to the games app's questions (:class:`server.games.hooks.Leagues`):
which league and season a new game counts in, who organises, who may create or join a league
game, and fixtures opened when their date has come. Installed at start
(``LeaguesConfig.ready``); the games app imports nothing of this app."""

from __future__ import annotations

from typing import Any

from core.api import OptionsError
from server.games.hooks import Leagues

from . import access
from .models import League, Season


class ClubLeagues(Leagues):
    def league(self, league: Any, kind: str) -> League | None:
        if league is None:
            return None
        if not isinstance(league, League):
            if not isinstance(league, int) or isinstance(league, bool) or not 0 < league < 2**63:
                raise OptionsError("league is a league id (a number)")
            league = League.objects.filter(pk=league).first()
            if league is None:
                raise OptionsError("no such league")
        if league.kind != kind:
            raise OptionsError(f"league {league.name!r} plays {league.kind}, not {kind}")
        found: League = league  # (a League by now; the parameter is any input)
        return found

    def season(self, season: Any, league: Any) -> Any:
        if season is None:
            return None
        if league is None:
            raise OptionsError("a season is one of a league's: give the league too")
        if not isinstance(season, Season):
            if not isinstance(season, int) or isinstance(season, bool) or not 0 < season < 2**63:
                raise OptionsError("season is a season id (a number)")
            season = Season.objects.filter(pk=season).first()
            if season is None:
                raise OptionsError("no such season")
        if season.league_id != league.pk:
            raise OptionsError(f"the season {season.name!r} is not one of {league.name!r}")
        if season.state == Season.CLOSED:
            raise OptionsError(f"the season {season.name!r} is closed: no new game counts in it")
        return season

    def running_season(self, league_id: int) -> Season | None:
        return Season.running(league_id)

    def open_due_fixtures(self) -> None:
        from .fixtures import open_due_now

        open_due_now()

    def is_organiser(self, user: Any) -> bool:
        return access.is_organiser(user)

    def create_refused(self, user: Any, game: Any) -> str | None:
        """A game in a league needs a member of the league or an organiser; seats reserved
        for other users need an organiser."""
        if game.league_id is not None:
            refused = access.may_create_in(user, game.league)
            if refused is not None:
                return refused
        me = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
        others = [s.name for s in game.seat_set.all() if s.kind == s.USER and s.user_id != me]
        refused = access.may_reserve_for(user, others)
        if refused is None and game.league_id is not None:
            refused = access.league_seats_refused(user, game)
        return refused

    def join_refused(self, user: Any, game: Any) -> str | None:
        return access.may_join(user, game)
