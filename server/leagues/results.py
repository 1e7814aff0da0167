"""Results that happen off the server, and corrections: always by appending, never by
editing rows: a ``result`` event to a game's log (:func:`server.games.append.append_result`)
for a game not over, a correction after the end of a finished one
(:func:`server.games.corrections.correct`).

* *Decide* a game that is not over (abandoned, a no-show): forfeit (a seat or a Teka
  partnership loses), adjudicated (the organiser names the winners, scores optional), void
  (no result: standings and ratings leave it out), or off_board (it was finished on a
  physical board).
* *Correct* a finished game's result, with the reason: the same choices (adjudicated,
  forfeit, void, off_board); a correction of a correction works the same way.
* *Record* a game played on a physical board: a new game with the players' seats, its
  start events and then its ``result`` event (``off_board``).

Both are admin pages (organisers: the permission ``leagues.organise_league``)."""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

import core
from core.api import OptionsError
from server.games import append, cache, corrections, creating
from server.games.models import Game, kind_choices
from server.games.wording import outcome_text, seat_label

from . import life
from .access import is_organiser
from .models import ClubEvent, League, Season

REASONS = [
    ("adjudicated", "adjudicated: the organiser names the winners"),
    ("forfeit", "forfeit: a seat (and its partner in Teka) loses"),
    ("void", "void: no result (not counted)"),
    ("off_board", "finished on a physical board: the winners as played"),
]


def _seat_choices(game: Game) -> list[tuple[str, str]]:
    return [(str(s.number), f"seat {s.number}: {seat_label(s)}") for s in game.seat_set.all()]


def _scores(text: str) -> list[int] | None:
    parts = [p.strip() for p in text.replace("-", ",").split(",") if p.strip()]
    if not parts:
        return None
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise forms.ValidationError("scores are whole numbers, one per seat") from None


class DecideForm(forms.Form):
    reason = forms.ChoiceField(choices=REASONS)
    winners = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple,
        help_text="adjudicated / off the board: the seats that won (none: a draw)",
    )
    forfeit = forms.ChoiceField(required=False, label="forfeiting seat",
                                help_text="forfeit: the seat that loses")
    scores = forms.CharField(required=False, max_length=80,
                             help_text="optional: one number per seat, e.g. 104, 52, 104, 52")
    why = forms.CharField(max_length=500, required=False,
                          widget=forms.Textarea(attrs={"rows": 2}),
                          help_text="why (on the league's record with your name)")

    def __init__(self, game: Game, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        seats = _seat_choices(game)
        cast(forms.ChoiceField, self.fields["winners"]).choices = seats
        cast(forms.ChoiceField, self.fields["forfeit"]).choices = [("", "-"), *seats]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        reason = data.get("reason")
        n = self.game.num_seats
        winners = [int(w) for w in data.get("winners") or []]
        if reason == "forfeit":
            if data.get("forfeit") in (None, ""):
                raise forms.ValidationError("name the seat that forfeits")
            lost = int(data["forfeit"])
            sides = core.GAMES[self.game.kind].sides(n)
            losing = next((set(side) for side in sides if lost in side), {lost})
            winners = [s for s in range(n) if s not in losing]
        elif reason == "void":
            winners = []
        try:
            scores = _scores(data.get("scores") or "")
            data["event"] = core.api.result_event(n, winners, reason, scores)
        except OptionsError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


class RecordForm(forms.Form):
    league = forms.ModelChoiceField(League.objects.all(), required=False)
    season = forms.ModelChoiceField(
        Season.objects.select_related("league"), required=False,
        help_text="the season of the league it counts in (none: the all-time table only)")
    kind = forms.ChoiceField(choices=lambda: [("", "the league's game"), *kind_choices()],
                             required=False)
    played_on = forms.DateField(required=False, help_text="the day it was played (YYYY-MM-DD; "
                                "none: today); the tables order games by it")
    players = forms.CharField(
        max_length=400, help_text="login names in seat order, comma separated (partners: "
        "the game's sides, Teka's seats 0 & 2 and 1 & 3); the names are suggested as you type",
        widget=forms.TextInput(attrs={"list": "gn-players", "autocomplete": "off",
                                      "size": 60}))
    winners = forms.CharField(max_length=400, required=False,
                              help_text="usernames of the winners (none: a draw)")
    scores = forms.CharField(required=False, max_length=80,
                             help_text="optional: one number per seat")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        league = data.get("league")
        if not data.get("kind") and league is not None:
            data["kind"] = league.kind  # (the kind follows the league)
        if not data.get("kind"):
            raise forms.ValidationError("choose the game (or the league, whose game it is)")
        kind = data.get("kind")
        season = data.get("season")
        day = data.get("played_on")
        if season is not None and day is not None and not season.start <= day <= season.end:
            raise forms.ValidationError(
                f"{day} is not in the season {season.name} ({season.start} to {season.end})")
        if not kind or "players" not in data:
            return data
        if league is not None and league.kind != kind:
            raise forms.ValidationError(f"{league.name} plays {league.kind}, not {kind}")
        season = data.get("season")
        if season is not None and (league is None or season.league_id != league.pk):
            raise forms.ValidationError(f"the season {season} is not one of the league's")
        names = [x.strip() for x in data["players"].split(",") if x.strip()]
        game = core.GAMES[kind]
        if not game.min_seats <= len(names) <= game.max_seats or len(names) < 2:
            raise forms.ValidationError(
                f"{kind} is played by {max(game.min_seats, 2)} to {game.max_seats} players")
        if len(set(names)) != len(names):
            raise forms.ValidationError("a player is named twice")
        users = {u.get_username(): u for u in get_user_model().objects.filter(
            username__in=names)}
        missing = [x for x in names if x not in users]
        if missing:
            raise forms.ValidationError(f"no player called {missing[0][:40]!r}")
        if league is not None:
            members = set(league.members.values_list("pk", flat=True))
            outsiders = [x for x in names if users[x].pk not in members]
            if outsiders:
                raise forms.ValidationError(
                    f"{', '.join(outsiders)[:80]} is not a member of {league.name}: a league "
                    "game is between its members")
        won = [x.strip() for x in (data.get("winners") or "").split(",") if x.strip()]
        if any(w not in names for w in won):
            raise forms.ValidationError("the winners are among the players")
        try:
            scores = _scores(data.get("scores") or "")
            core.api.result_event(len(names), [names.index(w) for w in won], "off_board",
                                  scores)
        except OptionsError as exc:
            raise forms.ValidationError(str(exc)) from None
        data["seat_users"] = [users[x] for x in names]
        data["winner_seats"] = [names.index(w) for w in won]
        data["score_list"] = scores
        return data


def record_off_board(kind: str, users: list[Any], winners: list[int],
                     scores: list[int] | None, league: League | None = None,
                     created_by: Any = None, season: Season | None = None,
                     played_on: Any = None) -> Game:
    """A game played on a physical board, in one transaction: the game with its players'
    seats and start events, then its ``result`` event (``off_board``), which the rules core
    decides (an impossible result is refused, OptionsError, and nothing is stored)."""
    from .fixtures import table_options

    options = table_options(kind, len(users))
    with transaction.atomic():
        game = creating.create_game(kind, options, [{"kind": "user", "user": u} for u in users],
                                 league=league, created_by=created_by, season=season)
        append.append_result(game.pk, winners, "off_board", scores)
        if played_on is not None:  # (the day it was played: where the tables place it)
            at = dt.datetime.combine(played_on, dt.time(12), tzinfo=dt.UTC)
            Game.objects.filter(pk=game.pk).update(finished_at=at, created_at=at)
    return Game.objects.get(pk=game.pk)


def correct_result(game: Game, by: Any, why: str, winners: list[int], reason: str,
                   scores: list[int] | None = None) -> Any:
    """Correct a finished game's result (:func:`server.games.corrections.correct`: a correction
    appended after its end, who and why on the record); the standings follow at once (they
    read the result that counts) and the ratings are replayed from the game. Raises
    OptionsError saying why it is refused."""
    from . import ratings

    if not is_organiser(by):
        raise OptionsError("only league organisers correct results")
    season = Season.objects.filter(pk=game.season_id).first() if game.season_id else None
    if season is not None and season.state == Season.CLOSED:
        raise OptionsError(f"the season {season.name!r} is closed: its table is final "
                           "(an organiser reopens it first, with a reason on the record)")
    correction = corrections.correct(game.pk, by.get_username(), why, winners, reason, scores)
    ratings.retake(game.pk)
    return correction


def _check(request: HttpRequest) -> None:
    if not is_organiser(request.user):
        raise PermissionDenied("only league organisers record or decide results")


def decide_view(model_admin: Any, request: HttpRequest, object_id: str) -> HttpResponse:
    _check(request)
    game = Game.objects.filter(pk=int(object_id) if object_id.isdigit() else 0).first()
    if game is None:
        return redirect(reverse("admin:games_game_changelist"))
    back = reverse("admin:games_game_change", args=[game.pk])
    if game.status == Game.FINISHED:
        return correct_view(model_admin, request, game, back)
    form = DecideForm(game, request.POST or None)
    if request.method == "POST" and form.is_valid():
        ev = form.cleaned_data["event"]
        try:
            append.append_result(game.pk, ev["winners"], ev["reason"], ev["scores"] or None)
        except (OptionsError, cache.NotFound) as exc:
            form.add_error(None, str(exc))
        else:
            game.refresh_from_db()
            if game.league_id is not None:
                life.record(game.league_id, ClubEvent.DECIDED, request.user,
                            form.cleaned_data.get("why") or "", game.season,
                            {"game": game.pk, "name": f"game #{game.pk}: {outcome_text(game)}"})
            messages.success(request, f"game #{game.pk}: {outcome_text(game)}")
            return redirect(back)
    context = {**model_admin.admin_site.each_context(request), "form": form, "game": game,
               "title": f"Decide the result of game #{game.pk}", "opts": Game._meta,
               "back": back}
    return TemplateResponse(request, "leagues/decide.html", context)


class CorrectForm(DecideForm):
    why = forms.CharField(max_length=500, widget=forms.Textarea(attrs={"rows": 3}),
                          help_text="why the result is corrected: it is on the record, "
                          "shown with the result")


def correct_view(model_admin: Any, request: HttpRequest, game: Game, back: str) -> HttpResponse:
    """A finished game's result corrected (or voided) with a reason: a correction appended
    after its end, never an edit of its log."""
    from server.games.views import corrections_json

    form = CorrectForm(game, request.POST or None)
    if request.method == "POST" and form.is_valid():
        ev = form.cleaned_data["event"]
        try:
            correct_result(game, request.user, form.cleaned_data["why"], ev["winners"],
                           ev["reason"], ev["scores"] or None)
        except (OptionsError, cache.NotFound) as exc:
            form.add_error(None, str(exc))
        else:
            game.refresh_from_db()
            messages.success(request, f"game #{game.pk} corrected: {outcome_text(game)}")
            return redirect(request.path)  # (the page shows the correction on the record)
    context = {**model_admin.admin_site.each_context(request), "form": form, "game": game,
               "title": f"Correct the result of game #{game.pk}", "opts": Game._meta,
               "back": back, "now": outcome_text(game), "corrections": corrections_json(game)}
    return TemplateResponse(request, "leagues/decide.html", context)


def record_view(model_admin: Any, request: HttpRequest) -> HttpResponse:
    _check(request)
    form = RecordForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            game = record_off_board(d["kind"], d["seat_users"], d["winner_seats"],
                                    d["score_list"], d["league"], request.user, d["season"],
                                    d.get("played_on"))
        except OptionsError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"game #{game.pk} recorded: {outcome_text(game)}")
            return redirect(reverse("admin:games_game_change", args=[game.pk]))
    context = {**model_admin.admin_site.each_context(request), "form": form, "game": None,
               "title": "Record a game played on a physical board", "opts": Game._meta,
               "back": reverse("admin:games_game_changelist"),
               "usernames": get_user_model().objects.filter(is_active=True)
               .order_by("username").values_list("username", flat=True)[:2000]}
    return TemplateResponse(request, "leagues/decide.html", context)


def admin_urls(model_admin: Any) -> list[Any]:
    """The two pages, under the Game admin (``/admin/games/game/record/``,
    ``/admin/games/game/<id>/decide/``)."""
    site = model_admin.admin_site
    return [
        path("record/", site.admin_view(lambda r: record_view(model_admin, r)),
             name="games_game_record"),
        path("<str:object_id>/decide/",
             site.admin_view(lambda r, object_id: decide_view(model_admin, r, object_id)),
             name="games_game_decide"),
    ]

