from __future__ import annotations

import json
from typing import Any, ClassVar

from django.contrib import admin
from django.utils.html import format_html

import core
from core import upcast
from core.api import ALL, SPECTATOR

from . import reading
from .models import Event, Game, Seat, Token
from .wording import outcome_text, seat_label


class SeatInline(admin.TabularInline):
    """A game's seats, read only: they are made with the game (``creating.create_game``) and
    filled by joining; a seat edited here would change a result behind the log's back (a
    finished game's player) or hang a live game (a bot seat made open)."""

    model = Seat
    extra = 0
    fields = ("number", "kind", "user", "name", "bot_level", "claimed", "code")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class RealChangesOnly(admin.ModelAdmin):
    """The admin's history gets a line only for a real change: a form sent back unchanged
    (or forged with the same values) changed nothing and says nothing."""

    def log_change(self, request: Any, obj: Any, message: Any) -> Any:
        if not message:
            return None
        return super().log_change(request, obj, message)


@admin.register(Game)
class GameAdmin(RealChangesOnly):
    # (players, readable results, date filters, search by player; the club's view adds a
    # season filter, closing stale tables and the pages that decide or correct a result:
    # server.leagues.club_admin.ClubGameAdmin, registered in this one's place)
    list_display = ("id", "kind", "status", "players", "result", "league", "code", "created_at",
                    "finished_at")
    list_filter: ClassVar[tuple[Any, ...]] = (
        "kind", "status", "public", "league", ("finished_at", admin.DateFieldListFilter),
        ("created_at", admin.DateFieldListFilter))
    list_select_related = ("league",)
    search_fields = ("code", "seat_set__code", "seat_set__name", "seat_set__user__username")
    search_help_text = "a table's or a seat's code, or a player's name"
    readonly_fields = (
        "kind",
        "options",
        "num_seats",
        "code",
        "created_at",
        "finished_at",
        "result",
        "status",
        "links",
    )
    fields = (
        "links",
        "kind",
        "options",
        "num_seats",
        "code",
        "public",
        "status",
        "league",
        "season",
        "created_by",
        "created_at",
        "finished_at",
        "result",
    )
    inlines = [SeatInline]

    def get_queryset(self, request: Any) -> Any:
        return super().get_queryset(request).prefetch_related("seat_set")

    @admin.display(description="players")
    def players(self, obj: Game) -> str:
        return ", ".join(seat_label(s) for s in obj.seat_set.all())

    @admin.display(description="result")
    def result(self, obj: Game) -> str:
        return outcome_text(obj, list(obj.seat_set.all())) or "-"

    @admin.display(description="see")
    def links(self, obj: Game) -> str:
        """The game's page and its log (the replay of a finished game)."""
        if obj.pk is None:
            return "-"
        return format_html(
            '<a href="/games/{}/">game page</a> · <a href="/api/games/{}/log/">log</a>',
            obj.pk, obj.pk,
        )

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        """Only an open table's league and season may be changed here (to one of the game's
        kind, a season of that league: see ``Game.clean``); a live or finished game is read
        only (its results are the log's, its season is the table it counts in)."""
        fields = tuple(self.readonly_fields)
        if obj is not None and obj.status != Game.OPEN:
            fields += ("league", "season", "created_by")
        return fields

    def view_on_site(self, obj: Game) -> str:
        """The admin's "View on site" button: the game's page (server/web)."""
        return f"/games/{obj.pk}/"

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False  # the log is permanent

    def has_add_permission(self, request: Any) -> bool:
        return False  # games are created through the API (server.games.creating.create_game)


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """The log, read only. A game still being played is shown as a spectator sees it (the
    event redacted by the rules core, the envelope's seat hidden where the event hides it, no
    chain hash: a hash would let anyone test guesses of a hidden event), to every staff user,
    superusers included; a finished game is shown whole. Filtering is by game and type only
    (a lookup on the seat or the payload would answer questions about hidden events)."""

    list_display = ("game", "seq", "type", "shown_seat", "created_at")
    list_filter = ("type",)
    list_select_related = ("game",)
    search_fields = ("game__id",)
    fields = (
        "game", "seq", "type", "shown_seat", "shown_event", "version", "outcome", "created_at",
        "shown_hash",
    )
    readonly_fields = fields
    ALLOWED_LOOKUPS = frozenset(
        {"game", "game__id", "game__id__exact", "game__exact", "type", "type__exact"}
    )

    def lookup_allowed(self, lookup: str, value: Any, request: Any = None) -> bool:
        return lookup in self.ALLOWED_LOOKUPS

    def get_search_results(self, request: Any, queryset: Any, search_term: str) -> Any:
        term = search_term.strip()
        if not term:
            return queryset, False
        if not term.isdigit():
            return queryset.none(), False
        return queryset.filter(game_id=int(term)), False

    @staticmethod
    def record(obj: Event) -> dict[str, Any]:
        """The event's record as the admin may show it now (see the class docstring): a
        finished game's as stored (in its ``version``), a live one's redacted by today's core,
        so read in today's version first (``core.upcast``)."""
        viewer = ALL if obj.game.status == Game.FINISHED else SPECTATOR
        event = obj.payload if viewer == ALL else upcast.upcast(obj.game.kind, obj.version,
                                                                 obj.payload)
        return reading.redact_record(core.GAMES[obj.game.kind], obj.seq, obj.seat, event, viewer)

    @admin.display(description="seat")
    def shown_seat(self, obj: Event) -> Any:
        seat = self.record(obj)["seat"]
        return "-" if seat is None else seat

    @admin.display(description="event")
    def shown_event(self, obj: Event) -> str:
        return format_html(
            "<pre>{}</pre>", json.dumps(self.record(obj)["event"], indent=1, sort_keys=True)
        )

    @admin.display(description="hash")
    def shown_hash(self, obj: Event) -> str:
        if obj.game.status != Game.FINISHED:
            return "(shown when the game is over)"
        return str(obj.hash)

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Token)
class TokenAdmin(admin.ModelAdmin):
    """Logins (the app's and scripts' API tokens, browsers' sessions): who, from what and
    where, last used, expiry; never a key (only its SHA-256 is stored, and not shown
    either). Nothing is made or edited here; a login is revoked by deleting it (the action
    below, or "Revoke API tokens" on Users for all of a user's, or making the user
    inactive). Users list and revoke their own (``/api/sessions/``)."""

    list_display = ("user", "kind", "client", "address", "last_address", "created_at",
                    "last_used_at", "expires_at")
    list_filter = ("kind",)
    list_select_related = ("user",)
    search_fields = ("user__username", "address", "last_address")
    actions = ["revoke"]
    fields = ("user", "kind", "client", "address", "last_address", "created_at",
              "last_used_at", "expires_at")
    readonly_fields = fields

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: Any) -> Any:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # ("revoke" says what deleting means here)
        return actions

    @admin.action(description="Revoke the selected logins (they must log in again)",
                  permissions=["delete"])
    def revoke(self, request: Any, queryset: Any) -> None:
        n, _ = queryset.delete()
        self.message_user(request, f"{n} login(s) revoked")


@admin.action(description="Revoke API tokens and browser logins (they must log in again)")
def revoke_api_tokens(modeladmin: Any, request: Any, queryset: Any) -> None:
    n, _ = Token.objects.filter(user__in=queryset).delete()
    modeladmin.message_user(request, f"{n} login(s) revoked (API tokens and browser sessions)")


@admin.action(description="Make a password reset link (hand it to the player)")
def password_reset_link(modeladmin: Any, request: Any, queryset: Any) -> None:
    """A one-time link the player opens to choose a new password (Django's reset views,
    valid for PASSWORD_RESET_TIMEOUT): the organiser hands it over, no e-mail needed."""
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    for user in queryset:
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        link = request.build_absolute_uri(
            f"/reset/{uid}/{default_token_generator.make_token(user)}/")
        modeladmin.message_user(request, f"{user.get_username()}: {link}")


def _user_admin_with_revoke() -> None:
    """Users in the admin get the "Revoke API tokens" action (tokens are no event log:
    revoking deletes them)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    base = (type(admin.site.get_model_admin(User)) if admin.site.is_registered(User)
            else admin.ModelAdmin)
    actions = [*(getattr(base, "actions", None) or []), revoke_api_tokens, password_reset_link]
    if admin.site.is_registered(User):
        admin.site.unregister(User)
    admin.site.register(User, type("UserAdmin", (base,), {"actions": actions}))


_user_admin_with_revoke()
