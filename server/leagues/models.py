"""Club play: leagues, their seasons, fixtures, the rating history.

Standings are never stored: they are computed from the finished games (see
:mod:`.standings`). The rating history is a projection of the finished games, written only
by :mod:`.ratings` (and rebuilt from scratch by ``manage.py rebuild_ratings``)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from server.games.models import KIND_WORD, Game, kind_choices

TIEBREAKS = {
    "h2h": "head-to-head (points between the tied players)",
    "sb": "Sonneborn-Berger (the points of the players beaten, half of those drawn)",
    "wins": "most wins",
}


def parse_tiebreaks(text: str) -> list[str]:
    """``"h2h, sb"`` -> ``["h2h", "sb"]``; ValidationError for an unknown or repeated code."""
    codes = [c.strip() for c in text.split(",") if c.strip()]
    bad = [c for c in codes if c not in TIEBREAKS]
    if bad:
        raise ValidationError(
            f"unknown tie-break {bad[0][:20]!r}: use {', '.join(TIEBREAKS)} (comma separated)"
        )
    if len(set(codes)) != len(codes):
        raise ValidationError("a tie-break is named twice")
    return codes


def parse_placings(text: str) -> list[int]:
    """``"10, 6, 4"`` -> ``[10, 6, 4]`` (points for 1st, 2nd, ...); ValidationError."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not (part.isascii() and part.isdigit() and len(part) <= 4):
            raise ValidationError(f"placing points are whole numbers 0..9999, not {part[:20]!r}")
        out.append(int(part))
    if len(out) > 8:
        raise ValidationError("at most 8 placings (a Tedoku table seats up to 8)")
    return out


def validate_tiebreaks(text: str) -> None:
    parse_tiebreaks(text)


def validate_placings(text: str) -> None:
    parse_placings(text)


class League(models.Model):
    """A club's league: a name, the game kind it plays and its members. Its games point to
    it (``Game.league``); its seasons, fixtures and standings are the rest of this app."""

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=kind_choices, help_text="the game it plays")
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="leagues")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__regex=KIND_WORD), name="league_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"

    def clean(self) -> None:
        """A league's kind cannot change under games of the old kind."""
        if self.pk is not None:
            other = Game.objects.filter(league_id=self.pk).exclude(kind=self.kind).first()
            if other is not None:
                raise ValidationError(
                    {"kind": f"the league has {other.kind} games: its kind stays {other.kind}"}
                )


class Season(models.Model):
    POINTS = "points"
    PLACINGS = "placings"
    SCORING = [
        (POINTS, "points for a win, a draw, a loss"),
        (PLACINGS, "points by placing (multi-player Tedoku)"),
    ]
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    PAIRINGS = [(ROUND_ROBIN, "round robin (every pair meets)"), (SWISS, "Swiss")]

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(max_length=100)
    start = models.DateField()
    end = models.DateField()
    scoring = models.CharField(max_length=10, choices=SCORING, default=POINTS)
    points_win = models.PositiveSmallIntegerField(default=3)
    points_draw = models.PositiveSmallIntegerField(default=1)
    points_loss = models.PositiveSmallIntegerField(default=0)
    placings = models.CharField(
        max_length=60,
        blank=True,
        default="10, 6, 4, 3, 2, 1, 0, 0",
        validators=[validate_placings],
        help_text="with placings: points for 1st, 2nd, 3rd... (comma separated)",
    )
    tiebreaks = models.CharField(
        max_length=40,
        blank=True,
        default="h2h, sb, wins",
        validators=[validate_tiebreaks],
        help_text="in order: h2h (head-to-head), sb (Sonneborn-Berger), wins",
    )
    pairing = models.CharField(max_length=12, choices=PAIRINGS, default=ROUND_ROBIN)
    DRAFT = "draft"
    RUNNING = "running"
    CLOSED = "closed"
    STATES = [(DRAFT, "draft: not started"), (RUNNING, "running"),
              (CLOSED, "closed: its table is final")]
    state = models.CharField(
        max_length=8, choices=STATES, default=DRAFT, editable=False,
        help_text="changed only by the organiser's actions on record (start with the first "
        "round, close, reopen): the league's history lists them")
    fixtures_only = models.BooleanField(
        default=True,
        help_text="once it has fixtures, only its fixtures count in its table; other games "
        "between members naming it are casual and say so")
    table_size = models.PositiveSmallIntegerField(
        default=4, help_text="Tedoku: players per table (3 to 8)"
    )

    class Meta:
        ordering = ["league", "-start"]
        constraints = [
            models.UniqueConstraint(fields=["league", "name"], name="season_unique_name"),
            models.CheckConstraint(condition=models.Q(end__gte=models.F("start")),
                                   name="season_dates"),
        ]
        permissions = [
            ("organise_league", "Can organise leagues: games, seats, seasons"),
        ]

    def __str__(self) -> str:
        return f"{self.league.name}: {self.name}"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.start and self.end and self.end < self.start:
            errors["end"] = "a season ends on or after its start"
        if not 3 <= (self.table_size or 0) <= 8:
            errors["table_size"] = "a Tedoku table seats 3 to 8 players"
        if self.scoring == self.PLACINGS and not parse_placings(self.placings or ""):
            errors["placings"] = "scoring by placings needs the points of each placing"
        if errors:
            raise ValidationError(errors)

    @staticmethod
    def running(league_id: int, day: dt.date | None = None) -> Season | None:
        """The league's one season whose dates contain ``day`` (default today), or None
        when there is none or several overlap there (a game then names its season)."""
        day = day or timezone.localdate()
        found = list(Season.objects.filter(league_id=league_id, start__lte=day,
                                           end__gte=day)[:2])
        return found[0] if len(found) == 1 else None

    def overlapping(self) -> list[Season]:
        """The other seasons of the league whose dates overlap this one's."""
        if not (self.league_id and self.start and self.end):
            return []
        return list(Season.objects.filter(league_id=self.league_id, start__lte=self.end,
                                          end__gte=self.start).exclude(pk=self.pk))

    def tiebreak_list(self) -> list[str]:
        return parse_tiebreaks(self.tiebreaks or "")

    def placing_list(self) -> list[int]:
        return parse_placings(self.placings or "")


class RatedGame(models.Model):
    """A finished game the rating projector has taken in (rated or not), with its place in
    the rating order (``finished_at``, then the game's id). Written by :mod:`.ratings`
    only."""

    game = models.OneToOneField(
        "games.Game", primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    finished_at = models.DateTimeField()
    rated = models.BooleanField()

    class Meta:
        indexes = [models.Index(fields=["finished_at", "game"], name="ratedgame_order")]

    def __str__(self) -> str:
        return f"game {self.game_id} ({'rated' if self.rated else 'not rated'})"


class Rating(models.Model):
    """A player's rating in a game kind after one rated game: the rating history, a
    projection of the finished games (openskill's Plackett-Luce model). The current rating
    is the last row of the player and kind. Written by :mod:`.ratings` only; rebuilt from
    scratch by ``manage.py rebuild_ratings``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=20)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    mu = models.FloatField()
    sigma = models.FloatField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    place = models.PositiveSmallIntegerField()
    adjudicated = models.BooleanField(default=False)

    class Meta:
        ordering = ["finished_at", "game_id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="rating_unique")]
        indexes = [
            models.Index(fields=["user", "kind", "finished_at", "game"], name="rating_history"),
            models.Index(fields=["finished_at", "game"], name="rating_order"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} after game {self.game_id}: {self.display:.1f}"

    @property
    def display(self) -> float:
        """The figure shown: the conservative estimate mu - 3 sigma."""
        return self.mu - 3 * self.sigma


class Fixture(models.Model):
    """A table of a season's round: the players (user ids in seat order; None: a bot), the
    date, and the game made for it with the seats reserved (or a bye: one player, no game).
    Made by the admin action "Generate the next round" (:mod:`.fixtures`)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="fixtures")
    round = models.PositiveSmallIntegerField()
    table = models.PositiveSmallIntegerField()
    date = models.DateField()
    players = models.JSONField(default=list)
    bye = models.BooleanField(default=False)
    game = models.OneToOneField(
        "games.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="fixture"
    )

    class Meta:
        ordering = ["season", "round", "table"]
        constraints = [
            models.UniqueConstraint(fields=["season", "round", "table"], name="fixture_unique")
        ]

    def __str__(self) -> str:
        return f"{self.season}: round {self.round}, table {self.table}"


class ClubEvent(models.Model):
    """An organiser's action on a league's record, append-only (migration 0004: UPDATE,
    DELETE and TRUNCATE refused): who, when, what and why. A season's life (``start`` with
    its entrants, ``close`` with its final table, ``reopen``), its entrants (``enter``,
    ``withdraw``), a round made before the last one was played (``override``), a member
    taken out of the league (``member_removed``: their games keep counting) or added. The
    league's history page lists them with the corrections of its games' results."""

    START = "start"
    CLOSE = "close"
    REOPEN = "reopen"
    ENTER = "enter"
    WITHDRAW = "withdraw"
    OVERRIDE = "override"
    MEMBER_ADDED = "member_added"
    MEMBER_REMOVED = "member_removed"
    DECIDED = "decided"
    SIGNED_UP = "signed_up"
    INVITE_REVOKED = "invite_revoked"
    ACTIONS = [(DECIDED, "result decided"), (SIGNED_UP, "signed up with an invite"),
               (INVITE_REVOKED, "invite link revoked"),
               (START, "season started"), (CLOSE, "season closed"),
               (REOPEN, "season reopened"), (ENTER, "late entry"), (WITHDRAW, "withdrawal"),
               (OVERRIDE, "round made before the last was played"),
               (MEMBER_ADDED, "member added"), (MEMBER_REMOVED, "member removed")]

    id = models.BigAutoField(primary_key=True)
    league = models.ForeignKey(League, on_delete=models.DO_NOTHING, related_name="record")
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.DO_NOTHING,
                               related_name="record")
    at = models.DateTimeField(default=timezone.now)
    by = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=16, choices=ACTIONS)
    why = models.TextField(max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["league", "id"]

    def __str__(self) -> str:
        return f"{self.league_id}: {self.action} by {self.by or '?'}"


def new_invite_code() -> str:
    import secrets

    return secrets.token_urlsafe(12)


class Invite(models.Model):
    """A league's invite link (``/invite/<code>/``): whoever opens it chooses a display name
    and a password and becomes a member; the organiser who made it can revoke it. Sign-ups
    and revocations are on the league's record."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="invites")
    code = models.CharField(max_length=32, unique=True, default=new_invite_code,
                            editable=False)
    created_by = models.CharField(max_length=150, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    revoked = models.BooleanField(default=False, editable=False)
    uses = models.PositiveIntegerField(default=0, editable=False)

    def __str__(self) -> str:
        return f"invite to {self.league.name} ({'revoked' if self.revoked else 'open'})"

    @property
    def path(self) -> str:
        return f"/invite/{self.code}/"
