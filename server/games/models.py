"""Games, seats, the append-only event log and tokens (leagues: :mod:`server.leagues.models`).

The event log is the truth: a game's state is ``fold(evolve, events)``. Rows of
``games_event`` are never updated, deleted or truncated (triggers refuse it, see migrations
0002 and 0003; the server's role may only INSERT and SELECT them, see :mod:`.grants`), each
row's ``hash`` chains it to the previous one, and :class:`ChainHead` keeps each game's last
hash and event count outside the event table (see ``server.games.chain.verify_chain``).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone

JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


SEAT_CODE_LENGTH = 8
"""A seat code: 8 symbols of :data:`JOIN_ALPHABET` (32 symbols without 0/O/1/I), 40 bits
drawn by ``secrets``: short to type on a phone, far beyond guessing at the rate the join
endpoints allow (docs/protocol.md, "Private tables")."""


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))


def new_seat_code() -> str:
    """A fresh random seat code (unique by the database's constraint; see
    :func:`server.games.tables.fresh_code` for the retry on the rare clash)."""
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(SEAT_CODE_LENGTH))


def kind_choices() -> list[tuple[str, str]]:
    """The game kinds of ``core.GAMES`` (its own and the registered plug-ins), as model
    and form choices: (name, title)."""
    import core

    return [(name, g.title()) for name, g in sorted(core.GAMES.items())]


KIND_WORD = r"^[a-z][a-z0-9_]{0,19}$"
"""What the database keeps a league's kind to: a game's name, a lower-case word (which
games there are is the core's registry, ``core.GAMES``, known to the processes only)."""


class Game(models.Model):
    OPEN = "open"
    LIVE = "live"
    FINISHED = "finished"
    STATUSES = [(OPEN, "open: seats to fill"), (LIVE, "live"), (FINISHED, "finished")]

    kind = models.CharField(max_length=20)
    options = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=STATUSES, default=OPEN, db_index=True)
    num_seats = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=8, unique=True, default=new_join_code)
    # Listed to everyone (the public list of tables, the front page, the TV) only when its
    # organiser opened it; a private table is joined with a seat code the organiser hands out.
    public = models.BooleanField(
        default=False,
        help_text="listed publicly (anyone may see it in the lists and take an open seat "
        "by id); private tables are joined with a seat code only",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    # The result as last corrected by an organiser (NULL: never corrected): the ``new_result``
    # of the game's latest Correction, written by the database when one is appended (migration
    # 0013) and refused otherwise. ``outcome`` stays the log's own end.
    corrected = models.JSONField(null=True, blank=True, editable=False)
    league = models.ForeignKey(
        "leagues.League", null=True, blank=True, on_delete=models.PROTECT, related_name="games"
    )
    season = models.ForeignKey(
        "leagues.Season",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="games",
        help_text="the season the game counts in: its fixture's, or the one chosen when it "
        "was created (none: it counts in the league's all-time table only)",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # The finished game this one is the rematch of (same people, same seats; made once).
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def result(self) -> Any:
        """The result that counts: the latest correction's, else the log's outcome."""
        return self.corrected if self.corrected is not None else self.outcome

    def clean(self) -> None:
        """A game joins only a league of its own kind, and a season of its league."""
        if self.league_id is not None:
            # Through the relation, not an import: the leagues app depends on this one.
            try:
                league = self.league
            except ObjectDoesNotExist:
                league = None
            if league is not None and league.kind != self.kind:
                raise ValidationError(
                    {"league": f"{league.name} plays {league.kind}; this game is {self.kind}"}
                )
        if self.season is not None and self.season.league_id != self.league_id:
            raise ValidationError({"season": "the season is one of the game's league"})


class Seat(models.Model):
    OPEN = "open"  # anyone may take it (a registered user or a guest)
    USER = "user"  # a registered user
    GUEST = "guest"  # a guest with a name and a per-seat secret
    BOT = "bot"
    KINDS = [(OPEN, "open"), (USER, "user"), (GUEST, "guest"), (BOT, "bot")]

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_set")
    number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=KINDS, default=OPEN)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    name = models.CharField(max_length=60, blank=True)
    secret = models.CharField(max_length=64, blank=True)
    bot_level = models.CharField(max_length=20, blank=True)
    # A user seat reserved for a named user who has not joined yet.
    claimed = models.BooleanField(default=False)
    # The seat's join code (random, secret: shown only to the organiser and the table's seat
    # holders); a new one is drawn whenever the seat is released.
    code = models.CharField(max_length=16, unique=True, default=new_seat_code)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="seat_unique")]

    def __str__(self) -> str:
        return f"seat {self.number} of game {self.game_id}: {self.kind} {self.name}"

    @property
    def filled(self) -> bool:
        return self.kind == self.BOT or self.claimed


class Event(models.Model):
    """One event of a game's log. Append-only: UPDATE and DELETE are refused by a trigger."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(
        Game, on_delete=models.DO_NOTHING, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    payload = models.JSONField()
    seat = models.SmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()
    hash = models.CharField(max_length=64)
    # The game's outcome on the event that ends it (NULL on every other event): what the
    # game row's outcome must equal (migration 0008). Derived from the log, so not hashed.
    outcome = models.JSONField(null=True, blank=True)
    # The schema version of the payload (core.upcast; migration 0009): what it was written in.
    version = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_game_seq"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="event_version_from_1"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} #{self.seq} {self.type}"


class Correction(models.Model):
    """An organiser's correction of a finished game's result, appended after its end: who,
    when, why, the result it replaces (``old_result``) and the result that counts from
    now on (``new_result``, decided by the rules core from ``command``, a ``result``
    command: adjudicated winners and scores, a forfeit, or void). Append-only like the log
    (migration 0013): UPDATE, DELETE and TRUNCATE are refused, ``n`` counts 1, 2, ... per
    game (the unique ``(game, n)`` is the concurrency control: two organisers correcting at
    once, one wins), ``old_result`` must be the result that counted until then, and the
    database then writes ``new_result`` into ``Game.corrected``. A correction of a
    correction is one more row."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(Game, on_delete=models.DO_NOTHING, related_name="corrections")
    n = models.PositiveIntegerField()
    at = models.DateTimeField(default=timezone.now)
    by = models.CharField(max_length=150, help_text="the organiser who made it (username)")
    why = models.TextField(max_length=500)
    old_result = models.JSONField()
    new_result = models.JSONField()
    command = models.JSONField()

    class Meta:
        ordering = ["game", "n"]
        constraints = [
            models.UniqueConstraint(fields=["game", "n"], name="correction_game_n"),
            models.CheckConstraint(condition=models.Q(n__gte=1), name="correction_n_from_1"),
        ]

    def __str__(self) -> str:
        return f"correction {self.n} of game {self.game_id} by {self.by}"


class ChainHead(models.Model):
    """Each game's chain head, kept outside the event table: the number of events and the hash
    of the last one. Written only by a trigger of the table owner on each event INSERT
    (migration 0003); the server's role may only read it. ``verify_chain`` compares it with
    the log, so a deleted last event or a rewritten history is seen."""

    game = models.OneToOneField(
        Game, primary_key=True, on_delete=models.DO_NOTHING, related_name="chain_head"
    )
    events = models.PositiveIntegerField()
    head = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.events} events, head {self.head[:12]}"


class Token(models.Model):
    """A login of a registered user, listed to that user as one of their sessions
    (``GET /api/sessions/``) and revoked by deleting its row: an API token of the app or a
    script (``Authorization: Token <key>``, kind ``api``), or a browser's login (kind
    ``browser``: the key is kept in the browser's session cookie, HttpOnly, see
    :mod:`server.games.accounts`). Only the SHA-256 of the key is stored (``digest``): a copy
    of the database gives no working credential. The key is random (160 bits), so a fast
    hash is enough: there is nothing to guess."""

    API = "api"
    BROWSER = "browser"
    KINDS = [(API, "app or script (API token)"), (BROWSER, "browser")]

    digest = models.CharField(max_length=64, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tokens"
    )
    kind = models.CharField(max_length=8, choices=KINDS, default=API)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(db_index=True)
    client = models.CharField(max_length=120, blank=True,
                              help_text="the program that logged in, in words (from its "
                              "User-Agent)")
    address = models.CharField(max_length=64, blank=True, help_text="the address it logged "
                               "in from")
    last_address = models.CharField(max_length=64, blank=True, help_text="the address it "
                                    "was last used from")

    class Meta:
        ordering = ["-created_at"]

    @staticmethod
    def new_key() -> str:
        return secrets.token_hex(20)

    @staticmethod
    def digest_of(key: str) -> str:
        """What is stored of ``key``: its SHA-256, hex."""
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def expired(self) -> bool:
        return bool(timezone.now() >= self.expires_at)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} login of {self.user}"
