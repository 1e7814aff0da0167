"""Who may do what in a league (the one place these rules are written).

An *organiser* is a user with the permission ``leagues.organise_league`` (give it to a user
or to a group, e.g. "Organisers", in the admin); superusers have every permission."""

from __future__ import annotations

from typing import Any

from server.games.models import League

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
