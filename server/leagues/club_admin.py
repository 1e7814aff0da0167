"""Club tools for the admin: the games admin with the club's view (:class:`ClubGameAdmin`,
registered in place of ``server.games.admin.GameAdmin``: a season filter, closing stale open
tables, the pages that decide or correct a result), creating players from a CSV, a season's
life."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from core.api import OptionsError
from server.games import append, cache
from server.games.admin import GameAdmin
from server.games.models import Game

from .access import is_organiser
from .models import League, Season

STALE_AFTER = timedelta(hours=12)
"""An open table nobody filled for this long is stale."""


class SeasonFilter(admin.SimpleListFilter):
    """Games of a season: those linked to it (its fixtures' games and the games created in
    it)."""

    title = "season"
    parameter_name = "season"

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(s.pk), str(s)) for s in Season.objects.select_related("league")]

    def queryset(self, request: Any, queryset: Any) -> Any:
        raw = self.value()
        if not raw:
            return queryset
        season = Season.objects.filter(pk=int(raw)).first() if raw.isdigit() and \
            len(raw) < 19 else None
        if season is None:
            return queryset.none()
        return queryset.filter(season=season)


def close_stale(queryset: Any, now: Any = None) -> tuple[int, int]:
    """Close the open tables of ``queryset`` created more than :data:`STALE_AFTER` ago: a
    ``void`` result appended to each log. Returns (closed, skipped)."""
    now = now or timezone.now()
    closed = skipped = 0
    for game in queryset:
        if game.status != Game.OPEN or game.created_at > now - STALE_AFTER:
            skipped += 1
            continue
        try:
            append.append_result(game.pk, [], "void")
        except (OptionsError, cache.NotFound, append.StaleError):
            skipped += 1
        else:
            closed += 1
    return closed, skipped


@admin.action(description="Close stale open tables (open over 12 h: a void result)")
def close_stale_open_tables(model_admin: Any, request: HttpRequest, queryset: Any) -> None:
    if not is_organiser(request.user):
        model_admin.message_user(request, "only league organisers close tables", messages.ERROR)
        return
    closed, skipped = close_stale(queryset)
    model_admin.message_user(
        request, f"{closed} stale open tables closed"
        + (f"; {skipped} left as they are (not open, or open for less than 12 h)"
           if skipped else ""), messages.SUCCESS if closed else messages.WARNING)


class ClubGameAdmin(GameAdmin):
    """The games admin as the club uses it: :class:`GameAdmin` with a season filter, closing
    stale open tables, and the pages that decide a game's result or correct it
    (:func:`server.leagues.results.admin_urls`), linked from each game."""

    list_filter = ("kind", "status", "public", "league", SeasonFilter,
                   ("finished_at", admin.DateFieldListFilter),
                   ("created_at", admin.DateFieldListFilter))
    actions = [close_stale_open_tables]

    @admin.display(description="see")
    def links(self, obj: Game) -> str:
        """The game's page, its log (the replay of a finished game) and the page that
        decides its result (a game not over) or corrects it (a finished one)."""
        out = super().links(obj)
        if obj.pk is None:
            return out
        if obj.status != Game.FINISHED:
            out += format_html(
                ' · <a href="{}">decide the result (forfeit, adjudicate, void)</a>',
                reverse("admin:games_game_decide", args=[obj.pk]),
            )
        else:
            out += format_html(
                ' · <a href="{}">correct the result (with a reason on the record)</a>',
                reverse("admin:games_game_decide", args=[obj.pk]),
            )
        return out

    def get_urls(self) -> list[Any]:
        from .results import admin_urls  # (results and corrections)

        return admin_urls(self) + super().get_urls()


class PlayersCsvForm(forms.Form):
    csv_text = forms.CharField(
        label="CSV", widget=forms.Textarea(attrs={"rows": 10, "cols": 60}), required=False,
        max_length=200_000,
        help_text="one player a line: username[,email[,league name]] (a first line "
        "'username,email,league' is skipped)")
    csv_file = forms.FileField(label="or a CSV file", required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        text = data.get("csv_text") or ""
        upload = data.get("csv_file")
        if upload is not None:
            if upload.size > 200_000:
                raise forms.ValidationError("the file is over 200 kB")
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise forms.ValidationError("the file is not UTF-8 text") from None
        if not text.strip():
            raise forms.ValidationError("give the CSV as text or as a file")
        data["rows"] = parse_players(text)
        return data


def parse_players(text: str) -> list[tuple[str, str, League | None]]:
    """Rows (username, email, league) of a players CSV, checked; ValidationError naming the
    first bad line."""
    User = get_user_model()
    username_field = User._meta.get_field("username")
    leagues = {lg.name: lg for lg in League.objects.all()}
    out: list[tuple[str, str, League | None]] = []
    seen: set[str] = set()
    for i, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        row = [c.strip() for c in row]
        if not row or not any(row):
            continue
        if i == 1 and row[0].lower() == "username":
            continue
        name, email = row[0], (row[1] if len(row) > 1 else "")
        league_name = row[2] if len(row) > 2 else ""
        try:
            username_field.clean(name, None)
            if email:
                forms.EmailField().clean(email)
        except forms.ValidationError as exc:
            raise forms.ValidationError(f"line {i}: {' '.join(exc.messages)}") from None
        if "\x00" in ",".join(row):
            raise forms.ValidationError(f"line {i}: a NUL character")
        if name in seen:
            raise forms.ValidationError(f"line {i}: {name} is named twice")
        seen.add(name)
        if league_name and league_name not in leagues:
            raise forms.ValidationError(f"line {i}: no league called {league_name[:60]!r}")
        out.append((name, email, leagues.get(league_name) if league_name else None))
        if len(out) > 2000:
            raise forms.ValidationError("at most 2000 players at once")
    if not out:
        raise forms.ValidationError("no player in the CSV")
    return out


def create_players(rows: list[tuple[str, str, League | None]]) -> tuple[int, int]:
    """Create the players that do not exist yet (without a password: they get one from an
    organiser, "Reset password" in the admin), add each to its league. (created, existing)"""
    User = get_user_model()
    created = existing = 0
    with transaction.atomic():
        for name, email, league in rows:
            user = User.objects.filter(username=name).first()
            if user is None:
                user = User(username=name, email=email)
                user.set_unusable_password()
                user.save()
                created += 1
            else:
                existing += 1
            if league is not None:
                league.members.add(user)
    return created, existing


def players_csv_view(model_admin: Any, request: HttpRequest) -> HttpResponse:
    if not is_organiser(request.user):
        raise PermissionDenied("only league organisers create players")
    form = PlayersCsvForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        created, existing = create_players(form.cleaned_data["rows"])
        messages.success(request, f"{created} players created, {existing} already there")
        return redirect(reverse("admin:leagues_league_changelist"))
    context = {**model_admin.admin_site.each_context(request), "form": form, "game": None,
               "title": "Create players from a CSV", "opts": League._meta,
               "back": reverse("admin:leagues_league_changelist"), "upload": True}
    return TemplateResponse(request, "leagues/players_csv.html", context)


def league_urls(model_admin: Any) -> list[Any]:
    site = model_admin.admin_site
    return [path("players-csv/", site.admin_view(lambda r: players_csv_view(model_admin, r)),
                 name="leagues_league_players_csv")]


LIFE_ACTIONS = [
    ("close", "close the season (its table becomes final)"),
    ("reopen", "reopen the season (say why)"),
    ("enter", "late entry of a member"),
    ("withdraw", "withdrawal of a player"),
    ("round", "make the next round before the last one is played (say why)"),
]


class LifeForm(forms.Form):
    action = forms.ChoiceField(choices=LIFE_ACTIONS)
    player = forms.ModelChoiceField(get_user_model().objects.none(), required=False,
                                    help_text="late entry, withdrawal: the player")
    why = forms.CharField(max_length=500, required=False,
                          widget=forms.Textarea(attrs={"rows": 2}),
                          help_text="on the league's record with your name; required to "
                          "reopen and to make a round early")

    def __init__(self, season: Season, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["player"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = season.league.members.order_by("username")


def season_life_view(model_admin: Any, request: HttpRequest, object_id: str) -> HttpResponse:
    """A season's life on one page: its state, its record, and the organiser's actions
    (close, reopen, late entry, withdrawal, a round made early), each on the record."""
    from . import fixtures, life

    if not is_organiser(request.user):
        raise PermissionDenied("only league organisers change a season's life")
    season = Season.objects.select_related("league").filter(
        pk=int(object_id) if object_id.isdigit() and len(object_id) < 19 else 0).first()
    if season is None:
        return redirect(reverse("admin:leagues_season_changelist"))
    form = LifeForm(season, request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        why = d.get("why") or ""
        try:
            if d["action"] == "close":
                life.close(season, request.user, why)
            elif d["action"] == "reopen":
                life.reopen(season, request.user, why)
            elif d["action"] in ("enter", "withdraw"):
                if d.get("player") is None:
                    raise OptionsError("choose the player")
                (life.enter if d["action"] == "enter" else life.withdraw)(
                    season, d["player"], request.user, why)
            else:
                if not why.strip():
                    raise OptionsError("say why the round is made before the last is played")
                fixtures.next_round(season, created_by=request.user, override=why)
        except (OptionsError, ValueError) as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"{season}: done, on the record")
            return redirect(request.path)
    record = season.record.order_by("-id")
    context = {**model_admin.admin_site.each_context(request), "form": form,
               "season": season, "record": record, "entrants": life.entrants(season),
               "title": f"The life of {season}", "opts": Season._meta,
               "back": reverse("admin:leagues_season_change", args=[season.pk])}
    return TemplateResponse(request, "leagues/season_life.html", context)


def season_urls(model_admin: Any) -> list[Any]:
    site = model_admin.admin_site
    return [path("<str:object_id>/life/",
                 site.admin_view(lambda r, object_id: season_life_view(model_admin, r,
                                                                       object_id)),
                 name="leagues_season_life")]
