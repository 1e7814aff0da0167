"""Standings of a league, per season and all-time, computed from its finished games.

Never stored: each call reads the finished games (two queries) and counts. A result is a
game's outcome as the log ended it (``Game.outcome`` is written when the last event is
appended), or as an organiser last corrected it (``Game.corrected``); a result an
organiser decided (adjudicated, forfeited, recorded off the board) says so in its
``reason`` and the tables count and mark it.

Placings: in a game, each seat gets a place (0 = first, ties share a place): winners first;
then, when the game keeps score, the others by score; a seat its player left (handed to a
bot) is last (``Game.ranking`` of the rules core, then the seats left last). A pair of
seats is *opponents* unless they are on one side (``Game.sides``: Teka's partners, seats
0 & 2 and 1 & 3)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from django.db import connection
from django.db.models import Count, Max

import core
from core.api import Game as CoreGame
from core.api import Outcome
from server.games.models import Correction, Game, Seat

from .models import ClubEvent, League, Season

DECIDED = frozenset({"adjudicated", "forfeit", "off_board", "void"})
"""Outcome reasons of results an organiser decided rather than play on the server
(``off_board``: played on a physical board, recorded here)."""
ADJUDICATED = frozenset({"adjudicated", "forfeit"})
"""Of those, results that were not played to the end."""


@dataclass
class Result:
    """One finished game as the tables see it."""

    game_id: int
    kind: str
    finished_at: datetime
    players: list[int | None]
    """user id per seat (None: a guest, a bot or an open seat)"""
    left: list[bool]
    """per seat: its player left and a bot finished the game for them"""
    winners: list[int]
    scores: list[int]
    reason: str
    counts: bool = True
    """a game of a league counts in its tables and the ratings only when it is a real league
    game (:func:`league_game`); a game outside any league always does"""

    @property
    def adjudicated(self) -> bool:
        return self.reason in ADJUDICATED

    @property
    def void(self) -> bool:
        return self.reason == "void"

    def places(self) -> list[int]:
        """0-based place of each seat; ties share a place."""
        n = len(self.players)
        if n == 2 and not self.left[0] and not self.left[1]:  # (the common case, quickly)
            if not self.winners:
                return [0, 0]
            return [0, 1] if self.winners[0] == 0 else [1, 0]
        ranks = game_of(self.kind).ranking(Outcome(self.winners, self.reason, self.scores), n)
        if not any(self.left):
            return ranks
        keys = [(1 if self.left[s] else 0, ranks[s]) for s in range(n)]
        return [sum(1 for k in keys if k < keys[s]) for s in range(n)]

    @cached_property
    def sides(self) -> list[list[int]]:
        """The game's sides (``Game.sides``: Teka's partnerships), each a list of seats."""
        return game_of(self.kind).sides(len(self.players))

    def opponents(self, a: int, b: int) -> bool:
        return a != b and not any(a in side and b in side for side in self.sides)


_ANY_GAME = CoreGame()


def game_of(kind: str) -> CoreGame:
    """The rules core's game of ``kind``; for a kind no longer registered (a plug-in's old
    results), the defaults of every game (single seats, winners first, then by score)."""
    return core.GAMES.get(kind) or _ANY_GAME


def results(league: League | int, season: Season | int | None = None) -> list[Result]:
    """The league's finished games (those of ``season`` when given: the games linked to it,
    whatever their dates), in the order they finished. A few queries."""
    league_id = league if isinstance(league, int) else league.pk
    games = Game.objects.filter(league_id=league_id, status=Game.FINISHED)
    if season is not None:
        games = games.filter(season_id=season if isinstance(season, int) else season.pk)
        if isinstance(season, Season) and season.fixtures_only and season.fixtures.exists():
            games = games.filter(fixture__isnull=False)  # (the others are casual games)
    return results_of(games)


_RESULTS_SQL = """
SELECT g.id, g.kind, g.finished_at, COALESCE(g.corrected, g.outcome)::text, g.num_seats,
       g.league_id,
       g.created_by_id, EXISTS (SELECT 1 FROM leagues_fixture f WHERE f.game_id = g.id),
       array_agg(s.number), array_agg(s.kind), array_agg(s.user_id),
       array_agg(s.secret <> '')
FROM games_game g LEFT JOIN games_seat s ON s.game_id = g.id
WHERE g.id IN ({games}) AND g.status = 'finished'
GROUP BY g.id
ORDER BY g.finished_at, g.id
"""


def league_game(seats: list[tuple[str, int | None, bool]], members: set[int],
                bots_allowed: bool) -> bool:
    """Whether a game of a league with these seats ((kind, user id, guest secret) each) is a
    real league game: every seat a member of the league as themselves (one seat each) or, in
    a fixture or a game an organiser made, a bot; a seat its player left and a bot finished
    counts as that player's. No guest, no open seat, no bot a member seated herself."""
    users = []
    for skind, uid, secret in seats:
        if skind == Seat.USER or (skind == Seat.BOT and uid is not None):
            users.append(uid)
        elif skind != Seat.BOT or secret or not bots_allowed:
            return False
    return len(set(users)) == len(users) and all(u in members for u in users)


def results_of(games: Any) -> list[Result]:
    """:class:`Result` of each finished game of the queryset ``games``, in the order they
    finished (then by id). One query (the seats aggregated per game), and two more when
    some are league games (their leagues' members, the organisers who made them)."""
    sql, params = games.values("id").query.sql_with_params()
    with connection.cursor() as cur:
        cur.execute(_RESULTS_SQL.format(games=sql), params)
        rows = cur.fetchall()
    leagues = {r[5] for r in rows if r[5] is not None}
    members: dict[int, set[int]] = {lg: set() for lg in leagues}
    organisers: set[int] = set()
    if leagues:
        for lg, uid in League.members.through.objects.filter(league_id__in=leagues) \
                .values_list("league_id", "user_id"):
            members[lg].add(uid)
        # (taken out of a league, on its record: their games still count)
        for lg, data in ClubEvent.objects.filter(
                league_id__in=leagues, action=ClubEvent.MEMBER_REMOVED
        ).values_list("league_id", "data"):
            members[lg].update(int(u) for u in data.get("users", []))
        organisers = organiser_ids({r[6] for r in rows if r[5] is not None and r[6]})
    out = []
    for (gid, kind, finished_at, outcome_text, n, league_id, created_by, fixture, numbers,
         kinds, users, secrets) in rows:
        players: list[int | None] = [None] * n
        left = [False] * n
        seats: list[tuple[str, int | None, bool]] = []
        for number, skind, uid, secret in zip(numbers, kinds, users, secrets, strict=True):
            if number is None or not 0 <= number < n:
                continue
            seats.append((skind, uid, bool(secret)))
            if skind == Seat.USER:
                players[number] = uid
            elif skind == Seat.BOT:
                players[number] = uid
                left[number] = uid is not None or bool(secret)
        o = json.loads(outcome_text) if outcome_text else {}
        counts = league_id is None or (
            len(seats) == n
            and league_game(seats, members[league_id], fixture or created_by in organisers)
        )
        out.append(
            Result(
                gid, kind, finished_at, players, left,
                [int(w) for w in o.get("winners", [])],
                [int(x) for x in o.get("scores", []) or []],
                str(o.get("reason", "")),
                counts,
            )
        )
    return out


def organiser_ids(user_ids: set[int]) -> set[int]:
    """Those of ``user_ids`` who are organisers (``access.is_organiser``: active, with the
    permission directly, through a group, or a superuser)."""
    if not user_ids:
        return set()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.db.models import Q

    perm = Permission.objects.filter(content_type__app_label="leagues",
                                     codename="organise_league").first()
    q = Q(is_superuser=True)
    if perm is not None:
        q |= Q(user_permissions=perm) | Q(groups__permissions=perm)
    return set(get_user_model().objects.filter(q, pk__in=user_ids, is_active=True)
               .values_list("pk", flat=True))


@dataclass
class Scheme:
    """How a table scores: points for a win/draw/loss, or points by placing; tie-breaks."""

    win: int = 3
    draw: int = 1
    loss: int = 0
    placings: list[int] | None = None
    tiebreaks: list[str] = field(default_factory=lambda: ["h2h", "sb", "wins"])

    @staticmethod
    def of(season: Season) -> Scheme:
        return Scheme(
            season.points_win, season.points_draw, season.points_loss,
            season.placing_list() if season.scoring == Season.PLACINGS else None,
            season.tiebreak_list(),
        )


@dataclass
class Row:
    user_id: int
    username: str = ""
    name: str = ""
    """the display name the player chose (else the login name)"""
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    abandoned: int = 0
    adjudicated: int = 0
    points: int = 0
    h2h: float = 0.0
    sb: float = 0.0
    rank: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def table(
    res: list[Result], scheme: Scheme | None = None, names: dict[int, str] | None = None,
    members: list[int] | None = None,
) -> list[Row]:
    """The standings of these results, best first (``rank`` 1, 2, ...; equal rows after every
    tie-break share a rank). ``members`` get a row even without a game; ``names``: usernames
    (looked up when None). Void results, and games of a league that are no real league
    games (:attr:`Result.counts`), are not counted."""
    scheme = scheme or Scheme()
    rows: dict[int, Row] = {}

    def row(uid: int) -> Row:
        r = rows.get(uid)
        if r is None:
            r = rows[uid] = Row(uid)
        return r

    for member in members or []:
        row(member)
    counted = [r for r in res if not r.void and r.counts]
    # per game: (user, place, placing points) and pairs of opponents' places
    per_game: list[tuple[Result, list[int]]] = []
    for r in counted:
        places = r.places()
        per_game.append((r, places))
        n = len(places)
        draw = not r.winners and not any(r.left)
        for seat, uid in enumerate(r.players):
            if uid is None:
                continue
            x = row(uid)
            x.played += 1
            if r.adjudicated:
                x.adjudicated += 1
            if r.left[seat]:
                x.abandoned += 1
                x.lost += 1
                outcome = "loss"
            elif draw:
                x.drawn += 1
                outcome = "draw"
            elif seat in r.winners:
                x.won += 1
                outcome = "win"
            else:
                x.lost += 1
                outcome = "loss"
            if scheme.placings is not None and n > 2:
                p = places[seat]
                x.points += scheme.placings[p] if p < len(scheme.placings) else 0
            else:
                x.points += {"win": scheme.win, "draw": scheme.draw, "loss": scheme.loss}[outcome]
    # tie-breaks
    points = {uid: x.points for uid, x in rows.items()}
    for r, places in per_game:
        for a, ua in enumerate(r.players):
            if ua is None:
                continue
            for b, ub in enumerate(r.players):
                if ub is None or ub == ua or not r.opponents(a, b):
                    continue
                share = 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] else 0.0
                rows[ua].sb += share * points[ub]
                if points[ua] == points[ub]:
                    rows[ua].h2h += share
    shown: dict[int, str] = {}
    if names is None:
        from django.contrib.auth import get_user_model

        names = {}
        for pk, username, first in get_user_model().objects.filter(
                pk__in=list(rows)).values_list("pk", "username", "first_name"):
            names[pk] = username
            shown[pk] = first.strip() or username
    for uid, x in rows.items():
        x.username = names.get(uid, f"#{uid}")
        x.name = shown.get(uid, x.username)

    def key(x: Row) -> tuple[Any, ...]:
        tb = tuple(-{"h2h": x.h2h, "sb": x.sb, "wins": float(x.won)}[t] for t in scheme.tiebreaks)
        return (-x.points, *tb)

    ordered = sorted(rows.values(), key=lambda x: (key(x), x.username.lower(), x.user_id))
    for i, x in enumerate(ordered):
        x.rank = ordered[i - 1].rank if i and key(ordered[i - 1]) == key(x) else i + 1
    return ordered


# ------------------------------------------------------------------ cached by data version

_cache: dict[tuple[Any, ...], list[Row]] = {}
_cache_lock = threading.Lock()
CACHE_SIZE = 64


def _version(league_id: int) -> tuple[Any, ...]:
    """Changes whenever a game of the league finishes or a result is corrected (the two
    ways results change)."""
    v = Game.objects.filter(league_id=league_id, status=Game.FINISHED).aggregate(
        n=Count("id"), last=Max("finished_at"), top=Max("id")
    )
    fixed = Correction.objects.filter(game__league_id=league_id).aggregate(top=Max("id"))
    return (v["n"], v["last"], v["top"], fixed["top"])


def season_table(season: Season) -> list[Row]:
    """A season's standings: the finished games linked to the season (its fixtures', and
    those created in it: ``Game.season``), its scheme, its league's members listed even
    without a game."""
    members = members_of(season.league_id)
    key = ("season", season.pk, season.fixtures_only, season.scoring, season.points_win,
           season.points_draw, season.points_loss, season.placings, season.tiebreaks,
           _version(season.league_id), tuple(members))
    return _cached(key, lambda: table(
        results(season.league_id, season), Scheme.of(season), members=members,
    ))


def members_of(league_id: int) -> list[int]:
    return sorted(
        League.members.through.objects.filter(league_id=league_id).values_list(
            "user_id", flat=True
        )
    )


def all_time_table(league: League) -> list[Row]:
    """All the league's finished games, 3/1/0 points, tie-breaks h2h, SB, wins."""
    members = members_of(league.pk)
    key = ("all", league.pk, _version(league.pk), tuple(members))
    return _cached(key, lambda: table(results(league.pk), Scheme(), members=members))


def _cached(key: tuple[Any, ...], compute: Any) -> list[Row]:
    """(the rows are shared: callers must not change them)"""
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    rows: list[Row] = compute()
    with _cache_lock:
        if len(_cache) >= CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = rows
    return rows


def forget() -> None:
    with _cache_lock:
        _cache.clear()
