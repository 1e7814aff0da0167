"""The club's admin: leagues (with their standings and latest games), seasons (with their
standings and the next round's fixtures)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from server.games.admin import RealChangesOnly
from server.games.models import Game
from server.games.wording import outcome_text

from . import api, club_admin, fixtures, life, standings
from .models import ClubEvent, Fixture, Invite, League, Season


def player_names(ids: list[Any]) -> str:
    """Usernames of a fixture's players in seat order (a bot for None)."""
    names = dict(
        get_user_model().objects.filter(pk__in=[i for i in ids if i is not None])
        .values_list("pk", "username")
    )
    return ", ".join("bot" if i is None else names.get(i, f"#{i}") for i in ids)


def game_links(game_id: int | None) -> Any:
    """The game's public page and its admin page."""
    if game_id is None:
        return "-"
    return format_html(
        '<a href="/games/{}/">game #{}</a> (<a href="{}">admin</a>, '
        '<a href="/api/games/{}/log/">log</a>)',
        game_id, game_id, reverse("admin:games_game_change", args=[game_id]), game_id,
    )


class FixtureInline(admin.TabularInline):
    model = Fixture
    extra = 0
    fields = ("round", "table", "date", "who", "result", "links")
    readonly_fields = fields
    can_delete = False
    ordering = ("-round", "table")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    @admin.display(description="players")
    def who(self, obj: Fixture) -> str:
        return player_names(obj.players) + (" (bye)" if obj.bye else "")

    @admin.display(description="result")
    def result(self, obj: Fixture) -> str:
        if obj.game is None:
            return "-" if obj.bye else "scheduled (the table opens with its round)"
        return outcome_text(obj.game) or obj.game.status

    @admin.display(description="game")
    def links(self, obj: Fixture) -> Any:
        return game_links(obj.game_id)


def standings_html(rows: list[standings.Row]) -> str:
    """A standings table for the admin (names escaped)."""
    head = mark_safe(
        "<tr><th>#</th><th>player</th><th>P</th><th>W</th><th>D</th><th>L</th>"
        "<th>adj.</th><th>pts</th><th>h2h</th><th>SB</th></tr>"
    )
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        ((r.rank, r.username, r.played, r.won, r.drawn, r.lost, r.adjudicated or "",
          r.points, f"{r.h2h:g}", f"{r.sb:g}") for r in rows),
    )
    return format_html("<table>{}{}</table>", head, body)


@admin.register(Season)
class SeasonAdmin(RealChangesOnly):
    list_display = ("name", "league", "state", "start", "end", "overlaps", "pairing",
                    "scoring")
    list_filter = ("league", "scoring")
    search_fields = ("name", "league__name")
    date_hierarchy = "start"
    readonly_fields = ("life", "standings_table")
    inlines = [FixtureInline]
    actions = ["generate_next_round", "open_next_round"]

    def get_urls(self) -> list[Any]:
        return club_admin.season_urls(self) + super().get_urls()

    @admin.display(description="life")
    def life(self, obj: Season) -> Any:
        """Its state and the page of its life (close, reopen, entries, withdrawals)."""
        if obj.pk is None:
            return "draft: the first round starts it"
        return format_html('{} · <a href="{}">close, reopen, entries and withdrawals</a>',
                           obj.get_state_display(),
                           reverse("admin:leagues_season_life", args=[obj.pk]))

    @admin.display(description="overlaps")
    def overlaps(self, obj: Season) -> str:
        """The league's other seasons whose dates overlap this one's (a warning: a game
        still counts in one season only, its own)."""
        return ", ".join(s.name for s in obj.overlapping()) or "-"

    def save_model(self, request: Any, obj: Season, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        other = obj.overlapping()
        if other:
            self.message_user(
                request,
                f"{obj} overlaps {', '.join(f'{s.name} ({s.start} to {s.end})' for s in other)}"
                ": each game counts in one season only (its fixture's, or the one chosen when "
                "it is created); games created without naming a season in those dates count "
                "in no season",
                messages.WARNING,
            )

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        """A season with fixtures keeps its league (its fixtures' games are that league's);
        a closed season keeps everything that makes its table."""
        if obj is not None and obj.pk is not None and obj.state == Season.CLOSED:
            return tuple(f.name for f in Season._meta.fields if f.editable
                         and f.name != "id") + self.readonly_fields
        if obj is not None and obj.pk is not None and obj.fixtures.exists():
            return ("league", *self.readonly_fields)
        return self.readonly_fields

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        """A season with fixtures stays (its games and their results are in the log)."""
        if obj is not None and obj.fixtures.exists():
            return False
        return super().has_delete_permission(request, obj)

    @admin.action(description="Generate the next round (fixtures and their games)")
    def generate_next_round(self, request: Any, queryset: Any) -> None:
        for season in queryset.select_related("league"):
            try:
                made = fixtures.next_round(season, created_by=request.user)
            except ValueError as exc:
                self.message_user(request, f"{season}: {exc}", messages.ERROR)
                continue
            games = sum(1 for f in made if not f.bye)
            byes = len(made) - games
            opened = any(f.game_id is not None for f in made)
            self.message_user(
                request,
                f"{season}: round {made[0].round} on {made[0].date}: {games} games"
                + (f", {byes} bye" + ("s" if byes > 1 else "") if byes else "")
                + ("" if opened or not games else
                   " (scheduled: the tables open on that date, or with Open the next round)"),
                messages.SUCCESS,
            )

    @admin.action(description="Open the next scheduled round (its fixtures become tables)")
    def open_next_round(self, request: Any, queryset: Any) -> None:
        for season in queryset.select_related("league"):
            opened = fixtures.open_round(season, created_by=request.user)
            if not opened:
                self.message_user(request, f"{season}: no scheduled round to open",
                                  messages.WARNING)
                continue
            self.message_user(
                request, f"{season}: round {opened[0].round} opened: {len(opened)} tables",
                messages.SUCCESS)

    @admin.display(description="standings")
    def standings_table(self, obj: Season) -> Any:
        if obj.pk is None:
            return "-"
        # (as saved: a form sent back with errors has put its bad values on ``obj``)
        saved = Season.objects.select_related("league").get(pk=obj.pk)
        return standings_html(standings.season_table(saved))


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ("season", "round", "table", "date", "who", "result", "links")
    list_filter = ("season", "round", "date", "bye")
    list_select_related = ("season__league", "game")
    fields = list_display
    readonly_fields = list_display
    who = FixtureInline.who
    result = FixtureInline.result
    links = FixtureInline.links

    def has_add_permission(self, request: Any) -> bool:
        return False  # fixtures are made by the season's "Generate the next round"

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class LeagueGameInline(admin.TabularInline):
    model = Game
    fk_name = "league"
    extra = 0
    fields = ("id", "kind", "status", "code", "finished_at", "result")
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    verbose_name_plural = "latest games (all of them: Games, filtered by league)"
    LATEST = 20

    def get_queryset(self, request: Any) -> Any:
        qs = super().get_queryset(request)
        league = request.resolver_match.kwargs.get("object_id") if request.resolver_match \
            else None
        if league is None or not str(league).isdigit():
            return qs.none()
        latest = list(qs.filter(league_id=int(league)).order_by("-id")
                      .values_list("id", flat=True)[: self.LATEST])
        return qs.filter(pk__in=latest).prefetch_related("seat_set")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    @admin.display(description="result")
    def result(self, obj: Game) -> str:
        return outcome_text(obj, list(obj.seat_set.all())) or "-"


@admin.register(League)
class LeagueAdmin(RealChangesOnly):
    list_display = ("name", "kind", "member_count", "game_count")
    filter_horizontal = ("members",)
    readonly_fields = ("standings_table",)
    fields = ("name", "kind", "members", "standings_table")
    inlines = [LeagueGameInline]
    search_fields = ("name", "members__username")

    def get_urls(self) -> list[Any]:
        return club_admin.league_urls(self) + super().get_urls()

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        """(members added or taken out go on the league's record under the organiser's
        name: see life.on_members_changed)"""
        token = life.ACTOR.set(request.user.get_username())
        try:
            super().save_related(request, form, formsets, change)
        finally:
            life.ACTOR.reset(token)

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
        rows = api.standings(obj)
        head = mark_safe(
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
        return format_html("<table>{}{}</table>", head, body)


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    """Invite links: made for a league (whoever opens one signs up as a member), revoked by
    an action (on the league's record), never edited."""

    list_display = ("league", "link", "uses", "revoked", "created_by", "created_at")
    list_filter = ("league", "revoked")
    fields = ("league", "link", "uses", "revoked", "created_by", "created_at")
    actions = ["revoke"]

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        rest = ("link", "uses", "revoked", "created_by", "created_at")
        return ("league", *rest) if obj is not None else rest

    @admin.display(description="link")
    def link(self, obj: Invite) -> Any:
        if obj.pk is None:
            return "made when saved"
        url = self.request_host + obj.path if getattr(self, "request_host", "") else obj.path
        return format_html('<a href="{}">{}</a>', obj.path, url)

    def get_queryset(self, request: Any) -> Any:
        self.request_host = request.build_absolute_uri("/").rstrip("/")
        return super().get_queryset(request)

    def get_form(self, request: Any, obj: Any = None, change: bool = False, **kw: Any) -> Any:
        self.request_host = request.build_absolute_uri("/").rstrip("/")
        return super().get_form(request, obj, change, **kw)

    def save_model(self, request: Any, obj: Invite, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user.get_username()
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False  # (revoke it: the sign-ups it made stay on the record)

    @admin.action(description="Revoke the selected invite links")
    def revoke(self, request: Any, queryset: Any) -> None:
        for inv in queryset.filter(revoked=False).select_related("league"):
            Invite.objects.filter(pk=inv.pk).update(revoked=True)
            life.record(inv.league, ClubEvent.INVITE_REVOKED, request.user,
                        data={"invite": inv.code[:6]})
            self.message_user(request, f"{inv.league.name}: invite {inv.code[:6]}… revoked")


# The games admin with the club's view (a season filter, closing stale tables, deciding and
# correcting results): the games app's admin knows nothing of leagues.
admin.site.unregister(Game)
admin.site.register(Game, club_admin.ClubGameAdmin)
