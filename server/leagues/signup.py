"""Members sign themselves up (docs/club.md, "Inviting players"): an organiser makes an
invite link for a league in the admin; whoever opens it chooses a display name (any
characters: shown at the table and on the pages) and a password, gets a login name made
from it, becomes a member and is logged in. A revoked link signs nobody up. Sign-ups count
against the join limit of the address (server.games.joinlimit)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import get_password_validators, validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from server.games import accounts, joinlimit
from server.games.inputs import text_ok

from . import life
from .models import ClubEvent, Invite

SIGN_UP_VALIDATORS: list[dict[str, Any]] = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
"""A password chosen on a public page: Django's checks (8 characters at least, not a common
one, not only digits), whatever the server's own settings."""


class SignUpForm(forms.Form):
    display_name = forms.CharField(
        max_length=60, label="Your name",
        help_text="as the others see it at the table and on the league's pages: any "
        "characters (O'Brien, Anne/Marie, 李雷)")
    password = forms.CharField(widget=forms.PasswordInput, label="Password")
    password_again = forms.CharField(widget=forms.PasswordInput, label="Password again")

    def clean_display_name(self) -> str:
        name = " ".join(str(self.cleaned_data.get("display_name", "")).split())
        if not name or not text_ok(name):
            raise ValidationError("a name of letters, digits, spaces and punctuation")
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") != data.get("password_again"):
            raise ValidationError("the two passwords differ")
        if data.get("password"):
            validate_password(data["password"],
                              password_validators=get_password_validators(SIGN_UP_VALIDATORS))
        return data


def login_name(display: str) -> str:
    """A free login name made from a display name ("Anne/Marie O'Brien" -> "anne-marie-obrien",
    then "anne-marie-obrien-2"...; "player" when nothing of it is ASCII)."""
    ascii_name = unicodedata.normalize("NFKD", display).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "-", ascii_name.replace("'", "").lower()).strip("-")[:30]
    base = base or "player"
    users = get_user_model().objects
    name, n = base, 1
    while users.filter(username__iexact=name).exists():
        n += 1
        name = f"{base}-{n}"
    return name


def invite_view(request: HttpRequest, code: str) -> HttpResponse:
    invite = Invite.objects.select_related("league").filter(code=code[:32]).first()
    if invite is None or invite.revoked:
        return render(request, "leagues/invite.html",
                      {"gone": True, "invite": invite}, status=410 if invite else 404)
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            joinlimit.hit(request)
        except joinlimit.Limited as exc:
            form.add_error(None, str(exc))
            status = 429
        else:
            user = sign_up(invite, form.cleaned_data["display_name"],
                           form.cleaned_data["password"])
            accounts.log_in_browser(request, user)
            return render(request, "leagues/invite.html",
                          {"invite": invite, "done": user, "league": invite.league})
    return render(request, "leagues/invite.html",
                  {"invite": invite, "form": form, "league": invite.league}, status=status)


def sign_up(invite: Invite, display: str, password: str) -> Any:
    """Make the member: a login name from the display name, the password, the league."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(login_name(display), password=password,
                                                    first_name=display)
        token = life.ACTOR.set(user.get_username())
        try:
            invite.league.members.add(user)
        finally:
            life.ACTOR.reset(token)
        Invite.objects.filter(pk=invite.pk).update(uses=F("uses") + 1)
        life.record(invite.league, ClubEvent.SIGNED_UP, user, data={
            "name": display, "invite": invite.code[:6]})
    return user
