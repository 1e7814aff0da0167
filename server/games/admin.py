from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

import core
from core.api import ALL, SPECTATOR

from . import leagues, store
from .models import Event, Game, League, Seat, Token


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "kind", "user", "name", "bot_level", "claimed")
    readonly_fields = ("number",)
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "code", "league", "created_at", "finished_at")
    list_filter = ("kind", "status", "league")
    search_fields = ("code",)
    readonly_fields = (
        "kind",
        "options",
        "num_seats",
        "code",
        "created_at",
        "finished_at",
        "outcome",
        "status",
    )
    fields = (
        "kind",
        "options",
        "num_seats",
        "code",
        "status",
        "league",
        "created_by",
        "created_at",
        "finished_at",
        "outcome",
    )
    inlines = [SeatInline]

    def view_on_site(self, obj: Game) -> str:
        """The admin's "View on site" button: the game's page (server/web, issue 14)."""
        return f"/games/{obj.pk}/"

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False  # the log is permanent

    def has_add_permission(self, request: Any) -> bool:
        return False  # games are created through the API (server.games.store.create_game)


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
    fields = ("game", "seq", "type", "shown_seat", "shown_event", "created_at", "shown_hash")
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
        """The event's record as the admin may show it now (see the class docstring)."""
        viewer = ALL if obj.game.status == Game.FINISHED else SPECTATOR
        return store.redact_record(
            core.GAMES[obj.game.kind], obj.seq, obj.seat, obj.payload, viewer
        )

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


class LeagueGameInline(admin.TabularInline):
    model = Game
    fk_name = "league"
    extra = 0
    fields = ("id", "kind", "status", "code", "finished_at", "outcome")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "member_count", "game_count")
    filter_horizontal = ("members",)
    readonly_fields = ("standings_table",)
    fields = ("name", "kind", "members", "standings_table")
    inlines = [LeagueGameInline]

    @admin.display(description="members")
    def member_count(self, obj: League) -> int:
        return obj.members.count()

    @admin.display(description="games")
    def game_count(self, obj: League) -> int:
        return obj.games.count()

    @admin.display(description="standings")
    def standings_table(self, obj: League) -> str:
        if obj.pk is None:
            return "-"
        rows = leagues.standings(obj)
        head = (
            "<tr><th>#</th><th>player</th><th>P</th><th>W</th><th>D</th><th>L</th><th>pts</th></tr>"
        )
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (i, r["username"], r["played"], r["won"], r["drawn"], r["lost"], r["points"])
                for i, r in enumerate(rows, start=1)
            ),
        )
        return mark_safe(f"<table>{head}{body}</table>")


@admin.register(Token)
class TokenAdmin(admin.ModelAdmin):
    """Who has API tokens, never the tokens: a key is a credential (whoever reads it acts for
    that user and sees that user's hand). The key is the primary key, so the list has no
    links and no actions (both would carry it), and no token is made here. To revoke a
    user's tokens, make the user inactive."""

    list_display = ("user", "created_at")
    list_display_links = None
    actions = None
    fields = ("user", "created_at")
    readonly_fields = fields

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
