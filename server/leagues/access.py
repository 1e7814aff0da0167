"""Who may do what in a league (the one place these rules are written).

An *organiser* is a user with the permission ``leagues.organise_league`` (give it to a user
or to a group, e.g. "Organisers", in the admin); superusers have every permission."""

from __future__ import annotations

from typing import Any

from .models import League

ORGANISE = "leagues.organise_league"


def is_organiser(user: Any) -> bool:
    return bool(user is not None and user.is_active and user.has_perm(ORGANISE))


def may_create_in(user: Any, league: League) -> str | None:
    """None when ``user`` may create a game in ``league``, else the reason why not."""
    if user is None or not getattr(user, "is_authenticated", False):
        return f"log in to create a game in the league {league.name!r}"
    if is_organiser(user) or league.members.filter(pk=user.pk).exists():
        return None
    return f"only members and organisers of the league {league.name!r} create games in it"


def may_reserve_for(user: Any, others: list[str]) -> str | None:
    """None when ``user`` may reserve seats for the users named ``others`` (not themselves),
    else the reason why not."""
    if not others or is_organiser(user):
        return None
    return f"only a league organiser reserves seats for other players ({', '.join(others)})"


GUESTS_REFUSED = ("a league game is played by the league's members as themselves: no guest "
                  "seats (play a casual game, without a league, with guests)")


def league_seats_refused(user: Any, game: Any) -> str | None:
    """Why the seats of ``game`` (a new game of a league) make it no league game, or None.
    A league game is between members of its league, each in one seat as themselves; an
    organiser (or a fixture) may seat a bot where a player is missing; no guests."""
    league = game.league
    seats = list(game.seat_set.all())
    if any(s.kind == "guest" for s in seats):
        return GUESTS_REFUSED
    if any(s.kind == "bot" for s in seats) and not is_organiser(user):
        return "only an organiser seats a bot in a league game (a fixture's missing player)"
    users = [s.user_id for s in seats if s.kind == "user"]
    if len(set(users)) != len(users):
        return "a player sits at one seat of a league game"
    members = set(league.members.filter(pk__in=users).values_list("pk", flat=True))
    outsiders = [s.name for s in seats if s.kind == "user" and s.user_id not in members]
    if outsiders:
        return (f"{', '.join(outsiders)} is not a member of the league {league.name!r}: "
                "a league game is between its members")
    return None


def may_join(user: Any, game: Any) -> str | None:
    """None when ``user`` may take an open seat of ``game``, else the reason why not: a
    league game's seats are for its league's members, logged in as themselves."""
    league = game.league
    if league is None:
        return None
    if user is None or not getattr(user, "is_authenticated", False):
        return (f"log in to sit at a game of the league {league.name!r}: "
                "its seats are for its members, not guests")
    if not league.members.filter(pk=user.pk).exists():
        return (f"only members of the league {league.name!r} sit at its games "
                "(a league game is between its members)")
    return None
