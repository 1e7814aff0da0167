"""A season's life and the club's record (docs/club.md, "A season's life").

A season is *draft* until its first round is made, which *starts* it and fixes its
entrants (the league's members then); it runs until an organiser *closes* it, which
stores its final table and ratings on the record and refuses, from then on, new games
naming it, new rounds, opening its rounds and corrections of its games' results; an
organiser *reopens* it with a reason. Late entries and withdrawals are explicit actions.
Every action is a :class:`~.models.ClubEvent` (append-only: who, when, what, why); the
season's ``state`` column follows the actions, written with them under the season's lock.
"""

from __future__ import annotations

import contextvars
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from core.api import OptionsError

from .models import ClubEvent, League, Season


def record(league: League | int, action: str, by: Any = None, why: str = "",
           season: Season | None = None, data: dict[str, Any] | None = None) -> ClubEvent:
    """Append one action to the league's record."""
    league_id = league if isinstance(league, int) else league.pk
    who = by.get_username() if hasattr(by, "get_username") else str(by or "")
    return ClubEvent.objects.create(league_id=league_id, season=season, by=who,
                                    action=action, why=why.strip(), data=data or {})


def _locked(season: Season) -> Season:
    return Season.objects.select_for_update().select_related("league").get(pk=season.pk)


def _set(season: Season, state: str) -> None:
    Season.objects.filter(pk=season.pk).update(state=state)
    season.state = state


def refuse_closed(season: Season | None, what: str) -> None:
    """OptionsError when ``season`` is closed: ``what`` cannot be done in it."""
    if season is not None and season.state == Season.CLOSED:
        raise OptionsError(f"the season {season.name!r} is closed: {what} (an organiser "
                           "reopens it first, with a reason on the record)")


def start(season: Season, by: Any = None) -> bool:
    """Start a draft season (its first round is being made): its entrants are fixed, the
    league's members now. Returns whether it was started by this call."""
    with transaction.atomic():
        s = _locked(season)
        if s.state != Season.DRAFT:
            return False
        entrants = sorted(s.league.members.values_list("pk", flat=True))
        record(s.league, ClubEvent.START, by, season=s, data={"entrants": entrants})
        _set(s, Season.RUNNING)
        season.state = Season.RUNNING
    return True


def entrants(season: Season) -> list[int]:
    """The season's players (user ids): fixed when it started, then late entries and
    withdrawals in order; a season without a start on the record (made before seasons had
    a life) plays the league's members."""
    events = list(season.record.filter(action__in=(
        ClubEvent.START, ClubEvent.ENTER, ClubEvent.WITHDRAW)).order_by("id"))
    if not any(e.action == ClubEvent.START for e in events):
        return sorted(season.league.members.values_list("pk", flat=True))
    players: set[int] = set()
    for e in events:
        if e.action == ClubEvent.START:
            players = {int(x) for x in e.data.get("entrants", [])}
        elif e.action == ClubEvent.ENTER:
            players.add(int(e.data["user"]))
        else:
            players.discard(int(e.data["user"]))
    return sorted(players)


def enter(season: Season, user: Any, by: Any, why: str = "") -> ClubEvent:
    """A late entry (a member of the league), on the record."""
    with transaction.atomic():
        s = _locked(season)
        refuse_closed(s, "no entry")
        if not s.league.members.filter(pk=user.pk).exists():
            raise OptionsError(f"{user.get_username()} is not a member of {s.league.name}")
        if user.pk in entrants(s):
            raise OptionsError(f"{user.get_username()} already plays in {s.name}")
        return record(s.league, ClubEvent.ENTER, by, why, s,
                      {"user": user.pk, "name": user.get_username()})


def withdraw(season: Season, user: Any, by: Any, why: str = "") -> ClubEvent:
    """A withdrawal, on the record: the player is paired no more; results already played
    stand; their unplayed fixtures stay as they are (an organiser decides them: a forfeit)."""
    with transaction.atomic():
        s = _locked(season)
        refuse_closed(s, "no withdrawal")
        if user.pk not in entrants(s):
            raise OptionsError(f"{user.get_username()} does not play in {s.name}")
        return record(s.league, ClubEvent.WITHDRAW, by, why, s,
                      {"user": user.pk, "name": user.get_username()})


def close(season: Season, by: Any, why: str = "") -> ClubEvent:
    """Close a running season: its final table and its players' ratings stored on the
    record; from now on nothing changes its table (see the module docstring)."""
    from . import ratings, standings

    with transaction.atomic():
        s = _locked(season)
        if s.state == Season.CLOSED:
            raise OptionsError(f"the season {s.name!r} is already closed")
        rows = standings.season_table(s)
        table = [{"user_id": r.user_id, "username": r.username, "rank": r.rank,
                  "played": r.played, "won": r.won, "drawn": r.drawn, "lost": r.lost,
                  "points": r.points} for r in rows]
        players = [r.user_id for r in rows if r.user_id is not None]
        rated = [{"user_id": x["user_id"], "rating": round(float(x["rating"]), 2),
                  "games": x["games"]}
                 for x in ratings.current(s.league.kind, players)]
        event = record(s.league, ClubEvent.CLOSE, by, why, s,
                       {"standings": table, "ratings": rated})
        _set(s, Season.CLOSED)
        season.state = Season.CLOSED
    return event


def reopen(season: Season, by: Any, why: str) -> ClubEvent:
    """Reopen a closed season: only with a reason, on the record."""
    if not why or not why.strip():
        raise OptionsError("say why the season is reopened (the reason is on the record)")
    with transaction.atomic():
        s = _locked(season)
        if s.state != Season.CLOSED:
            raise OptionsError(f"the season {s.name!r} is not closed")
        event = record(s.league, ClubEvent.REOPEN, by, why, s)
        _set(s, Season.RUNNING)
        season.state = Season.RUNNING
    return event


def final_table(season: Season) -> list[dict[str, Any]] | None:
    """The table stored when the season was last closed (None: not closed)."""
    if season.state != Season.CLOSED:
        return None
    last = season.record.filter(action=ClubEvent.CLOSE).order_by("-id").first()
    return list(last.data.get("standings", [])) if last is not None else None


ACTOR: contextvars.ContextVar[str] = contextvars.ContextVar("gamenight_club_actor", default="")
"""Who changes a league's members now (the admin sets it around its save)."""


def on_members_changed(sender: Any, instance: Any, action: str, reverse: bool,
                       pk_set: set[int] | None, **kwargs: Any) -> None:
    """(m2m_changed of League.members) members added or taken out go on the league's
    record; those taken out keep their games counting (the standings count them)."""
    if reverse or not isinstance(instance, League):
        return  # (changed from the user's side: not done by the club's pages)
    if action == "pre_clear":
        ids = set(instance.members.values_list("pk", flat=True))
        kind = ClubEvent.MEMBER_REMOVED
    elif action in ("post_add", "post_remove") and pk_set:
        ids = set(pk_set)
        kind = ClubEvent.MEMBER_ADDED if action == "post_add" else ClubEvent.MEMBER_REMOVED
    else:
        return
    if not ids:
        return
    names = sorted(get_user_model().objects.filter(pk__in=ids)
                   .values_list("username", flat=True))
    record(instance, kind, ACTOR.get(), data={"users": sorted(ids), "names": names})
