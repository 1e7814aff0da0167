"""Logins, sessions and their throttle (docs/protocol.md, "Logging in"; docs/deploy.md,
"Logins").

Every login is a row of :class:`~server.games.models.Token`, listed to its user as one of
their sessions (``GET /api/sessions/``) and revoked by deleting the row:

* the app and scripts get an API token (``POST /api/login``), sent as
  ``Authorization: Token <key>``;
* a browser page (the table page's organiser) logs in with ``"session": true``: Django's
  session, kept in a signed, HttpOnly, SameSite=Lax cookie, holds the key of a ``browser``
  row; so does an admin login (:func:`on_logged_in`). :class:`SessionTokens` ends a
  session whose row was revoked or ran out, and the API honours a session on a
  state-changing call only with its CSRF token (:func:`session_user`).

Only the SHA-256 of a key is stored. Failed logins are counted by django-axes per address
and per user name; during a lock-out even the right password is refused without running
the password hasher, with a 429 saying how long to wait (:func:`lockout_response`).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_in
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from .inputs import text_ok
from .models import Token

SESSION_TOKEN = "gamenight_token"
"""The key of the browser's login row, in its (signed cookie) session."""

TOUCH_EVERY = dt.timedelta(seconds=60)
"""A session's last use is written at most this often (a write per request would cost
every API call a database write)."""

MAX_KEY = 128
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


# ------------------------------------------------------------------------------ clients


def client_address(request: HttpRequest) -> str:
    """The address a request came from: daphne's peer (behind nginx, the address nginx
    puts in X-Real-IP: daphne's ``--proxy-headers-host``, docs/deploy.md)."""
    return str(request.META.get("REMOTE_ADDR") or "")[:64]


def axes_address(request: HttpRequest) -> str | None:
    """(``AXES_CLIENT_IP_CALLABLE``) the address failures are counted under."""
    return client_address(request) or None


BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"),
            ("Chromium/", "Chromium"), ("HeadlessChrome/", "Chromium (headless)"),
            ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
           ("Windows", "Windows"), ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"),
           ("Linux", "Linux"))
PROGRAMS = (("curl/", "curl"), ("Wget/", "wget"), ("python-requests/", "Python (requests)"),
            ("Python-urllib/", "Python (urllib)"), ("python-httpx/", "Python (httpx)"))


def client_words(user_agent: str) -> str:
    """The program that made a request, in words, from its User-Agent: "gamenight app on
    Android", "Firefox on Windows", "curl", or the agent's first word."""
    ua = user_agent.strip()
    if not ua:
        return "unknown program"
    m = re.match(r"gamenight-app/(\S+)(?: \(([^)]*)\))?", ua)
    if m:
        where = m.group(2)
        return f"gamenight app {m.group(1)}" + (f" on {where}" if where else "")
    for mark, name in PROGRAMS:
        if mark in ua:
            return name
    browser = next((name for mark, name in BROWSERS if mark in ua), None)
    system = next((name for mark, name in SYSTEMS if mark in ua), None)
    if browser:
        return f"{browser} on {system}" if system else browser
    first = ua.split()[0].split("/")[0]
    return "".join(c for c in first if c.isprintable())[:60] or "unknown program"


# ------------------------------------------------------------------------------ tokens


def lifetime(kind: str) -> dt.timedelta:
    """How long a login is accepted: an API token ``API_TOKEN_DAYS`` after it was made; a
    browser session ``BROWSER_SESSION_HOURS`` after it was last used (renewed while used)."""
    if kind == Token.BROWSER:
        return dt.timedelta(hours=settings.BROWSER_SESSION_HOURS)
    return dt.timedelta(days=settings.API_TOKEN_DAYS)


def issue(user: Any, kind: str, request: HttpRequest | None) -> tuple[Token, str]:
    """A new login of ``user``: its row and its key (the only time the key is known)."""
    key = Token.new_key()
    now = timezone.now()
    meta = request.META if request is not None else {}
    address = client_address(request) if request is not None else ""
    token = Token.objects.create(
        digest=Token.digest_of(key), user=user, kind=kind, created_at=now,
        expires_at=now + lifetime(kind),
        client=client_words(str(meta.get("HTTP_USER_AGENT", "")))[:120], address=address,
        last_address=address, last_used_at=now,
    )
    return token, key


def token_for_key(key: Any) -> Token | None:
    """The live login of ``key`` (its user active), or None. An expired row is deleted."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY or not text_ok(key):
        return None
    t = Token.objects.select_related("user").filter(digest=Token.digest_of(key)).first()
    if t is None:
        return None
    if t.expired():
        Token.objects.filter(pk=t.pk).delete()
        return None
    return t if t.user.is_active else None


def touch(t: Token, request: HttpRequest | None) -> None:
    """Note a use of ``t`` (at most every ``TOUCH_EVERY``, or when it comes from another
    address); a browser session is renewed by it."""
    now = timezone.now()
    address = client_address(request) if request is not None else t.last_address
    if (t.last_used_at is not None and now - t.last_used_at < TOUCH_EVERY
            and address == t.last_address):
        return
    fields: dict[str, Any] = {"last_used_at": now, "last_address": address}
    if t.kind == Token.BROWSER:
        fields["expires_at"] = now + lifetime(t.kind)
    Token.objects.filter(pk=t.pk).update(**fields)
    for name, value in fields.items():
        setattr(t, name, value)


def user_for_token(key: Any, request: HttpRequest | None = None) -> Any:
    """The user of an API token (``Authorization: Token <key>``, a socket's hello), or
    None; the use is noted. A browser's key is no API token."""
    t = token_for_key(key)
    if t is None or t.kind != Token.API:
        return None
    touch(t, request)
    if request is not None:
        request.gamenight_token = t  # type: ignore[attr-defined]
    return t.user


# ------------------------------------------------------------------------------ browsers


def csrf_ok(request: HttpRequest) -> bool:
    """Whether a request carries the page's CSRF token (header ``X-CSRFToken``, matching
    its CSRF cookie) and a same-site Origin: Django's own check, for the API views (which
    are exempt from it, as token requests need none)."""
    from django.middleware.csrf import CsrfViewMiddleware

    def check(r: HttpRequest) -> HttpResponse:
        return HttpResponse()

    return CsrfViewMiddleware(check).process_view(request, check, (), {}) is None


def session_user(request: HttpRequest) -> Any:
    """The user of the browser's session (its login row checked by :class:`SessionTokens`),
    for the API: on a state-changing call (POST) only with the page's CSRF token, else
    None (a page of another site cannot act with the organiser's cookie)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    if request.method not in SAFE_METHODS and not csrf_ok(request):
        return None
    return user


def log_in_browser(request: HttpRequest, user: Any) -> Token:
    """Log ``user`` in this browser (Django's login: a new session key and CSRF token);
    its login row is made by :func:`on_logged_in`."""
    auth.login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return request.gamenight_token  # type: ignore[attr-defined, no-any-return]


def on_logged_in(sender: Any, request: HttpRequest | None, user: Any, **kw: Any) -> None:
    """(``user_logged_in``) every browser login, the admin's too, is a session row."""
    if request is None or not hasattr(request, "session"):
        return
    before = request.session.get(SESSION_TOKEN)
    if isinstance(before, str):  # (a login over a login in the same browser: one row)
        Token.objects.filter(digest=Token.digest_of(before)).delete()
    token, key = issue(user, Token.BROWSER, request)
    request.session[SESSION_TOKEN] = key
    request.gamenight_token = token  # type: ignore[attr-defined]


def session_token(request: HttpRequest) -> Token | None:
    """The live browser login of this request's session, or None."""
    session = request.session
    t = token_for_key(session.get(SESSION_TOKEN))
    if t is None or t.kind != Token.BROWSER:
        return None
    if str(t.user_id) != str(session.get(auth.SESSION_KEY)):
        return None
    return t


def session_cookie_user(cookie: Any) -> Any:
    """The user of a browser's session cookie as the browser sent it (its value), when its
    login row is live; else None. For the game socket of a page of this site (the seat page
    of a member's seat: the socket's Origin is checked before, server/asgi.py); the use is
    noted as a request's is."""
    if not isinstance(cookie, str) or not cookie or len(cookie) > 4096 or not text_ok(cookie):
        return None
    from importlib import import_module

    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=cookie)
    t = token_for_key(session.get(SESSION_TOKEN))
    if t is None or t.kind != Token.BROWSER or str(t.user_id) != str(session.get(auth.SESSION_KEY)):
        return None
    touch(t, None)
    return t.user


def check_session(request: HttpRequest) -> None:
    """End a logged-in session whose login row is gone (revoked, expired) or missing (a
    session from before sessions were recorded); note the use of a live one."""
    session = getattr(request, "session", None)
    if session is None or auth.SESSION_KEY not in session:
        return
    t = session_token(request)
    if t is None:
        session.flush()
        request.user = AnonymousUser()
        return
    touch(t, request)
    request.gamenight_token = t  # type: ignore[attr-defined]


class SessionTokens:
    """Middleware (after Django's AuthenticationMiddleware): :func:`check_session` for a
    request that carries a session cookie; nothing (no thread hop, no query) for one that
    does not."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self.__acall__(request)
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            check_session(request)
        return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> Any:
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            await sync_to_async(check_session, thread_sensitive=True)(request)
        return await self.get_response(request)


def current_token(request: HttpRequest) -> Token | None:
    """The login that authenticated this request (an API token or the browser session)."""
    return getattr(request, "gamenight_token", None)


def log_out(request: HttpRequest) -> bool:
    """Revoke the login this request was made with (and end the browser's session)."""
    t = current_token(request)
    if t is None:
        return False
    Token.objects.filter(pk=t.pk).delete()
    if t.kind == Token.BROWSER:
        auth.logout(request)
    return True


# ------------------------------------------------------------------------------ sessions


def iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def session_json(t: Token, current: Token | None) -> dict[str, Any]:
    return {
        "id": t.pk,
        "kind": t.kind,
        "client": t.client,
        "address": t.address,
        "last_address": t.last_address,
        "created_at": iso(t.created_at),
        "last_used_at": iso(t.last_used_at),
        "expires_at": iso(t.expires_at),
        "current": current is not None and t.pk == current.pk,
    }


def sessions_of(user: Any, current: Token | None) -> list[dict[str, Any]]:
    """``user``'s live logins, the newest first (expired ones are deleted here)."""
    Token.objects.filter(user=user, expires_at__lte=timezone.now()).delete()
    return [session_json(t, current) for t in Token.objects.filter(user=user)]


def revoke(user: Any, session_id: int) -> Token | None:
    """Revoke one of ``user``'s logins; None when it has none of that id."""
    t = Token.objects.filter(user=user, pk=session_id).first()
    if t is not None:
        t.delete()
    return t


def revoke_others(user: Any, current: Token | None) -> int:
    """Revoke every login of ``user`` but the current one; how many were revoked."""
    qs = Token.objects.filter(user=user)
    if current is not None:
        qs = qs.exclude(pk=current.pk)
    n, _ = qs.delete()
    return n


# ------------------------------------------------------------------------------ throttle


def lockout_wait(request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Seconds until this request's address and user name may try again: failures count
    for ``AXES_COOLOFF_TIME`` after each (axes keeps one row per address, name and
    program, with the time of its last failure), and a lock ends when the failures still
    counting drop under ``AXES_FAILURE_LIMIT``."""
    from axes.models import AccessAttempt

    cool = settings.AXES_COOLOFF_TIME
    limit = int(settings.AXES_FAILURE_LIMIT)
    now = timezone.now()
    ip = getattr(request, "axes_ip_address", None) or client_address(request)
    username = (credentials or {}).get("username")
    waits = [0.0]
    for where in ({"ip_address": ip}, {"username": username}):
        if where.get("username", "") is None:
            continue
        rows = list(AccessAttempt.objects.filter(attempt_time__gte=now - cool, **where)
                    .order_by("attempt_time").values_list("attempt_time",
                                                          "failures_since_start"))
        total = sum(f for _, f in rows)
        for at, failures in rows:
            if total < limit:
                break
            total -= failures
            waits.append((at + cool - now).total_seconds())
    return max(1, math.ceil(max(waits)))


def wait_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


def lockout_response(request: HttpRequest, original_response: Any = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """(``AXES_LOCKOUT_CALLABLE``) the answer to a login refused by the throttle: 429 with
    ``Retry-After``; under /api/ the protocol's JSON error (code ``locked_out``, the wait
    in words and in ``retry_after``), elsewhere (the admin's login) a line of text. The
    same for a wrong user name as for a wrong password. Made once per request."""
    made = getattr(request, "gamenight_lockout", None)
    if made is not None:
        return made  # type: ignore[no-any-return]
    wait = lockout_wait(request, credentials)
    reason = (f"too many failed logins for this user name or from this address: try again "
              f"in {wait_words(wait)}")
    resp: HttpResponse
    if request.path.startswith("/api/"):
        resp = JsonResponse({"error": {"code": "locked_out", "reason": reason,
                                       "retry_after": wait}}, status=429)
    else:
        resp = HttpResponse(reason[0].upper() + reason[1:] + ".\n", status=429,
                            content_type="text/plain; charset=utf-8")
    resp["Retry-After"] = str(wait)
    request.gamenight_lockout = resp  # type: ignore[attr-defined]
    return resp


def locked_out(request: HttpRequest) -> bool:
    return bool(getattr(request, "axes_locked_out", False))


def connect_signals() -> None:
    user_logged_in.connect(on_logged_in, dispatch_uid="games.accounts.on_logged_in")
