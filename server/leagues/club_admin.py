"""Club tools for the games admin (used by ``server.games.admin.GameAdmin``): a season
filter, the players column, closing stale open tables, creating players from a CSV."""

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

from core.api import OptionsError
from server.games import store
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


def players(game: Game) -> str:
    """The seats' players, as the front page names them."""
    from server.games.views import _seat_label

    return ", ".join(_seat_label(s) for s in game.seat_set.all())


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
            store.append_result(game.pk, [], "void")
        except (OptionsError, store.NotFound, store.StaleError):
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
