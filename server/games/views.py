"""JSON HTTP API (see docs/protocol.md). Token auth: ``Authorization: Token <key>``."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from django.contrib.auth import authenticate
from django.core.exceptions import RequestDataTooBig
from django.db import connection, transaction
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.middleware.csrf import get_token
from django.views.decorators.csrf import csrf_exempt

import core
from core import upcast
from core.api import ALL, SPECTATOR, OptionsError, dumps
from core.errors import EventVersionError

from . import (
    accounts,
    cache,
    chain,
    clocks,
    corrections,
    creating,
    dbpool,
    hooks,
    reading,
    seating,
    tablerules,
    tables,
)
from .inputs import BadInput, loads, shown
from .inputs import reason as safe_reason
from .middleware import unavailable_response
from .models import Event, Game, Token
from .wording import outcome_text

log = logging.getLogger("server.games")

MAX_BODY = 1 << 20
MAX_CODE = 16
MAX_USERNAME = 150  # (Django's user names; the throttle stores at most 255 characters)


class ApiError(Exception):
    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


def error(status: int, code: str, reason: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "reason": safe_reason(reason)}}, status=status)


def api(methods: tuple[str, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        @csrf_exempt
        @wraps(fn)
        def view(request: HttpRequest, *args: Any, **kw: Any) -> HttpResponseBase:
            if request.method not in methods:
                return error(405, "method_not_allowed", f"use {' or '.join(methods)}")
            try:
                request.api_user = token_user(request)  # type: ignore[attr-defined]
                out = fn(request, *args, **kw)
            except ApiError as exc:
                return error(exc.status, exc.code, exc.reason)
            except BadInput as exc:
                return error(400, "malformed", exc.reason)
            except cache.NotFound as exc:
                return error(404, "not_found", str(exc))
            except (OptionsError, seating.JoinError) as exc:
                return error(400, "bad_request", str(exc))
            except EventVersionError as exc:  # (the log was written by a newer release)
                return error(409, "log_too_new", str(exc))
            except Exception as exc:
                busy = unavailable_response(exc)  # (no database connection: 503)
                if busy is not None:
                    return busy
                log.exception("%s %s failed", request.method, request.path)
                return error(500, "server_error", "the server could not handle this request")
            if isinstance(out, HttpResponseBase):
                return out
            status = 201 if request.method == "POST" and fn.__name__ in ("games", "create") else 200
            return JsonResponse(out, status=status, safe=False)

        return view

    return deco


def token_user(request: HttpRequest) -> Any:
    """Who makes the request: the user of its API token (``Authorization: Token <key>``),
    else of the browser's session cookie (a POST only with the page's CSRF token:
    :func:`accounts.session_user`), else None."""
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Token "):
        return seating.user_for_token(auth[6:].strip(), request)
    return accounts.session_user(request)


def body(request: HttpRequest) -> dict[str, Any]:
    try:
        raw = request.body
    except RequestDataTooBig:
        raise ApiError(413, "too_large", "request body too large") from None
    if len(raw) > MAX_BODY:
        raise ApiError(413, "too_large", "request body too large")
    if not raw:
        return {}
    data = loads(raw)  # BadInput: 400 malformed
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "the body is a JSON object")
    return data


def iso(dt: Any) -> str | None:
    return dt.isoformat() if dt is not None else None


def game_json(
    g: Game, seq: int | None = None, table: dict[int, dict[str, Any]] | None = None,
    codes: bool = False, own_seat: int | None = None,
) -> dict[str, Any]:
    """``table``: :func:`tablerules.table_rules` of a list of games (else looked up).
    Seat codes are secret: ``codes`` gives every seat's (for the organiser and the seat
    holders only: :func:`tables.sees_codes`), ``own_seat`` that seat's (a request that named
    it by its code); every other seat's ``code`` is null."""
    if seq is None:
        seq = g.events.aggregate(m=Max("seq"))["m"] or 0
    if table is None:
        table = tablerules.table_rules([g.pk])
    return {
        "id": g.pk,
        "kind": g.kind,
        "options": g.options,
        "status": g.status,
        "public": g.public,
        "seats": [
            {
                "seat": s.number,
                "kind": s.kind,
                "name": s.name,
                "taken": s.filled,
                "bot_level": s.bot_level or None,
                "replaced": seating.seat_replaced(s),
                "code": s.code if codes or s.number == own_seat else None,
            }
            for s in g.seat_set.all()
        ],
        "seq": seq,
        "created_at": iso(g.created_at),
        "finished_at": iso(g.finished_at),
        "outcome": g.result,
        "corrections": corrections_json(g),
        "table": table.get(g.pk),
        "league": g.league_id,
        "season": g.season_id,
        "ws": f"/ws/games/{g.pk}/",
    }


def get_game(game_id: int) -> Game:
    g = Game.objects.filter(pk=game_id).first()
    if g is None:
        raise cache.NotFound(f"no game {game_id}")
    return g


def viewer_of(request: HttpRequest, g: Game) -> int:
    """ALL for a finished game; the seat when the request holds it; else SPECTATOR."""
    if g.status == Game.FINISHED:
        return ALL
    seat = request.GET.get("seat")
    if seat is None:
        return SPECTATOR
    try:
        n = int(seat)
    except ValueError:
        raise ApiError(400, "malformed", "seat must be an integer") from None
    if not 0 <= n < g.num_seats:
        raise ApiError(400, "bad_request", f"seat is 0..{g.num_seats - 1} at this table")
    secret = request.headers.get("X-Seat-Secret") or request.GET.get("secret")
    if not seating.seat_holder_ok(g.pk, n, user=request.api_user, secret=secret):  # type: ignore[attr-defined]
        raise ApiError(403, "forbidden", f"these credentials do not hold seat {n}")
    return n


# ------------------------------------------------------------------------------ endpoints


@api(("POST",))
def login(request: HttpRequest) -> Any:
    """A new login: an API token (``{"token", ...}``), or with ``"session": true`` (a
    browser page, with its CSRF token) the browser's session cookie (``{"csrf", ...}``: the
    page's new CSRF token). Throttled by django-axes (:mod:`.accounts`): 429
    ``locked_out`` with ``Retry-After``, the same for a wrong user name as for a wrong
    password."""
    data = body(request)
    username, password = data.get("username"), data.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise ApiError(400, "malformed", "username and password are strings")
    if len(username) > MAX_USERNAME:  # (no such user can exist: answered as a wrong name)
        raise ApiError(401, "bad_credentials", "wrong username or password")
    browser = data.get("session", False)
    if not isinstance(browser, bool):
        raise ApiError(400, "malformed", "session is true or false")
    if browser and not accounts.csrf_ok(request):
        raise ApiError(403, "csrf_failed", "a browser login needs the page's CSRF token "
                       "(header X-CSRFToken) from the same site: reload the page")
    user = authenticate(request, username=username, password=password)
    if accounts.locked_out(request):  # (the password was not even checked)
        return accounts.lockout_response(request, None, {"username": username})
    if user is None or not user.is_active:
        raise ApiError(401, "bad_credentials", "wrong username or password")
    out = {"username": user.get_username(), "user_id": user.pk}
    if browser:
        t = accounts.log_in_browser(request, user)
        out["csrf"] = get_token(request)
    else:
        t, out["token"] = accounts.issue(user, Token.API, request)
    out.update({"session": t.pk, "expires_at": iso(t.expires_at)})
    return out


@api(("POST",))
def logout(request: HttpRequest) -> Any:
    """Revoke the login the request was made with: its API token, or the browser's session
    (the cookie is emptied too)."""
    body(request)
    if request.api_user is None or not accounts.log_out(request):  # type: ignore[attr-defined]
        raise ApiError(401, "not_logged_in", NOT_LOGGED_IN)
    return {"logged_out": True}


GUEST_PREFIX = "guest-"
"""User names of the throw-away organisers :func:`guest` makes."""


@api(("POST",))
def guest(request: HttpRequest) -> Any:
    """A browser without an account starts a table: a throw-away organiser (a user named
    ``guest-<10 hex>`` with no usable password, so nobody logs in as it) logged in on this
    browser's session, as a browser login is (the page's CSRF token needed). A browser
    already logged in keeps its user. Limited per address, as joins are: ``{"username",
    "csrf", "guest"}``."""
    body(request)
    if not accounts.csrf_ok(request):
        raise ApiError(403, "csrf_failed", "starting a table from a page needs the page's "
                       "CSRF token (header X-CSRFToken) from the same site: reload the page")
    user = request.api_user  # type: ignore[attr-defined]
    if user is not None:
        return {"username": user.get_username(), "csrf": get_token(request), "guest": False}
    limited = rate_limited(request)
    if limited is not None:
        return limited
    import secrets

    from django.contrib.auth import get_user_model

    model = get_user_model()
    made = model.objects.create_user(GUEST_PREFIX + secrets.token_hex(5))  # (no password)
    t = accounts.log_in_browser(request, made)
    return {"username": made.get_username(), "csrf": get_token(request), "guest": True,
            "session": t.pk, "expires_at": iso(t.expires_at)}


NOT_LOGGED_IN = "send Authorization: Token <key> (or log in on the page)"


def logged_in(request: HttpRequest) -> Any:
    user = request.api_user  # type: ignore[attr-defined]
    if user is None:
        raise ApiError(401, "not_logged_in", NOT_LOGGED_IN)
    return user


@api(("GET",))
def me(request: HttpRequest) -> Any:
    user = logged_in(request)
    t = accounts.current_token(request)
    return {
        "username": user.get_username(),
        "user_id": user.pk,
        "leagues": [lg.pk for lg in user.leagues.all()],
        "session": t.pk if t is not None else None,
    }


@api(("GET",))
def sessions(request: HttpRequest) -> Any:
    """The user's logins (API tokens and browser sessions): kind, program, addresses,
    made, last used, expiry; ``current`` marks the one this request uses."""
    user = logged_in(request)
    return {"sessions": accounts.sessions_of(user, accounts.current_token(request))}


@api(("POST",))
def session_revoke(request: HttpRequest, session_id: int) -> Any:
    """Revoke one of the user's logins (this one too: then it is a logout)."""
    body(request)
    user = logged_in(request)
    current = accounts.current_token(request)
    if current is not None and current.pk == session_id:
        accounts.log_out(request)
        return {"revoked": 1}
    if accounts.revoke(user, session_id) is None:
        raise ApiError(404, "not_found", f"you have no session {session_id}")
    return {"revoked": 1}


@api(("POST",))
def sessions_revoke_others(request: HttpRequest) -> Any:
    """Revoke every login of the user but the one this request uses."""
    body(request)
    user = logged_in(request)
    return {"revoked": accounts.revoke_others(user, accounts.current_token(request))}


@api(("GET",))
def kinds(request: HttpRequest) -> Any:
    out = []
    for name, g in sorted(core.GAMES.items()):
        try:
            examples = g.example_options()
            defaults = g.options({})
        except NotImplementedError:
            examples, defaults = [], None
        out.append(
            {
                **g.info(g.max_seats),
                "default_options": defaults,
                "example_options": examples,
                "bot_levels": creating.bot_levels(name),
            }
        )
    return {"kinds": out}


@api(("GET", "POST"))
def games(request: HttpRequest) -> Any:
    if request.method == "POST":
        return create(request)
    open_due_fixtures()
    user = viewing_user(request)
    qs = tables.listed(
        Game.objects.all().select_related("league").prefetch_related("seat_set"), user
    )
    status = request.GET.get("status")
    if status:
        if status not in (Game.OPEN, Game.LIVE, Game.FINISHED):
            raise ApiError(400, "malformed", "status is open, live or finished")
        qs = qs.filter(status=status)
    kind = request.GET.get("kind")
    if kind:
        if kind not in core.GAMES:
            raise ApiError(400, "malformed", f"kind is one of {', '.join(sorted(core.GAMES))}")
        qs = qs.filter(kind=kind)
    league = request.GET.get("league")
    if league:
        qs = qs.filter(league_id=query_id(league, "league"))
    try:
        limit = max(1, min(int(request.GET.get("limit", "50")), 500))
    except ValueError:
        raise ApiError(400, "malformed", "limit must be an integer") from None
    rows = list(qs.order_by("-id")[:limit])
    seqs = last_seqs(rows)
    table = tablerules.table_rules([g.pk for g in rows])
    return {"games": [game_json(g, seqs.get(g.pk, 0), table, codes=tables.sees_codes(g, user))
                      for g in rows]}


def viewing_user(request: HttpRequest) -> Any:
    """The user a read is for (the API's or a page's): the token's, else the browser
    session's (:func:`token_user`); None when neither."""
    if hasattr(request, "api_user"):
        return request.api_user
    return token_user(request)


def rate_limited(request: HttpRequest) -> JsonResponse | None:
    """(joins and code lookups) the 429 answer when the client's address is over
    ``GAMENIGHT["JOIN_RATE"]`` (:mod:`.joinlimit`), else None (and the request counted)."""
    from . import joinlimit

    try:
        joinlimit.hit(request)
    except joinlimit.Limited as exc:
        resp = error(429, "rate_limited", exc.reason)
        resp["Retry-After"] = str(exc.retry_after)
        return resp
    return None


def open_due_fixtures() -> None:
    """(the lists of tables) league fixtures whose date has come become tables."""
    hooks.leagues().open_due_fixtures()


def query_id(raw: str, what: str) -> int:
    """A database id given in a query string."""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        raise ApiError(400, "malformed", f"{what} is a number")
    return int(raw)


def last_seqs(games_: list[Game]) -> dict[int, int]:
    """The last event's seq of each of ``games_`` (one query)."""
    return dict(
        Event.objects.filter(game_id__in=[g.pk for g in games_])
        .values("game_id")
        .annotate(m=Max("seq"))
        .values_list("game_id", "m")
    )


def create(request: HttpRequest) -> Any:
    """Create (and join) in one transaction: a refused join or any failure leaves no game.
    ``join.seat`` is a place in the lobby (the order of ``seats``): where a start draws for
    seats (Teka's ``draw_for_partners``) the joiner takes that place before the draw and
    ``joined.seat`` is the table seat the draw gave it."""
    data = body(request)
    user = request.api_user  # type: ignore[attr-defined]
    join = data.get("join")
    if join is not None and not isinstance(join, dict):
        raise ApiError(400, "malformed", "join is an object like {'seat': 0, 'name': 'Ann'}")
    with transaction.atomic():
        game = creating.create_game(
            cast(str, data.get("kind")),  # (any value: create_game refuses what is no kind)
            data.get("options") or {},
            data.get("seats"),
            league=data.get("league"),
            created_by=user,
            table=data.get("table"),
            season=data["season"] if "season" in data else running_season(data.get("league")),
            public=data.get("public", False),
        )
        refused = create_refused(user, game)
        if refused is not None:  # (raised inside the transaction: nothing is created)
            raise ApiError(403, "forbidden", refused)
        guest_secrets = {str(k): v for k, v in game.guest_secrets.items()}  # type: ignore[attr-defined]
        joined = None
        if join is not None:
            refused = join_refused(user, game)
            if refused is not None:
                raise ApiError(403, "forbidden", refused)
            place = join.get("seat")
            seat = seating.table_seat(game, place) if place is not None else None
            try:
                seat, secret = seating.join_seat(game.pk, seat, user=user, name=join.get("name"))
            except seating.JoinError as exc:
                if place is not None and seat != place:  # say it in the caller's numbers
                    said = str(exc).replace(f"seat {seat}", f"seat {place}")
                    raise seating.JoinError(said) from None
                raise
            joined = {"seat": seat, "secret": secret}
        out = game_json(get_game(game.pk), codes=True)  # (its creator: the codes to hand out)
    if (core.GAMES[game.kind].analysis_module()
            and any(s["bot_level"] == "perfect" for s in out["seats"])):
        from .solved import ensure_table

        missing = ensure_table(game.options.get("squares", "axis"))
        if missing is not None:  # the bot plays like "max" until the table is there
            out["notice"] = f"the perfect level plays like max for now: {missing}"
    out["guest_secrets"] = guest_secrets
    if joined is not None:
        out["joined"] = joined
    return out


def create_refused(user: Any, game: Game) -> str | None:
    """Why ``user`` may not have created ``game`` (checked after the input, in its
    transaction), or None: a game in a league needs a member of the league or an
    organiser; seats reserved for other users need an organiser (the leagues app says:
    :class:`server.games.hooks.Leagues`)."""
    return hooks.leagues().create_refused(user, game)


def join_refused(user: Any, game: Game) -> str | None:
    """Why ``user`` may not take an open seat of ``game`` (a league game's seats are for its
    members, as themselves), or None."""
    return hooks.leagues().join_refused(user, game)


def running_season(league: Any) -> Any:
    """The season a new game of ``league`` (its id, as given) counts in when the request
    names none: the league's one season running today, else none."""
    if not isinstance(league, int) or isinstance(league, bool) or not 0 < league < 2**63:
        return None  # (no league, or a bad one: create_game says why)
    return hooks.leagues().running_season(league)


@api(("GET",))
def game_detail(request: HttpRequest, game_id: int) -> Any:
    """The game; its seat codes for the organiser and the seat holders (a token, or
    ``?seat=<n>`` with the guest's secret in ``X-Seat-Secret``)."""
    g = get_game(game_id)
    raw = request.GET.get("seat", "")
    seat = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 3 else None
    secret = request.headers.get("X-Seat-Secret") or request.GET.get("secret")
    out = game_json(g, codes=tables.sees_codes(g, viewing_user(request), seat, secret))
    out["rematch"] = tables.rematch_of(game_id)
    return out


@api(("POST",))
def game_public(request: HttpRequest, game_id: int) -> Any:
    """The organiser opens the table to the public or closes it: ``{"public": true}``."""
    data = body(request)
    return _table_call(tables.set_public, game_id, data.get("public"), request.api_user)  # type: ignore[attr-defined]


@api(("GET",))
def game_by_code(request: HttpRequest, code: str) -> Any:
    """The game of a seat's code (``seat`` names that seat; only that seat's code is given,
    unless the request is the organiser's or a seat holder's). Rate-limited per address."""
    limited = rate_limited(request)
    if limited is not None:
        return limited
    g, seat = tables.by_code(code)
    out = game_json(g, codes=tables.sees_codes(g, viewing_user(request)), own_seat=seat)
    out["seat"] = seat
    out["rematch"] = tables.rematch_of(g.pk)
    return out


def by_code(code: Any) -> Game:
    """The game of this seat code (case-insensitive); NotFound for anything else."""
    return tables.by_code(code)[0]


def _join(
    request: HttpRequest, game_id: int, seat: Any = None, code: str | None = None
) -> Any:
    data = body(request)
    g = get_game(game_id)
    user = request.api_user  # type: ignore[attr-defined]
    refused = join_refused(user, g)
    if refused is None and code is None:
        refused = tables.join_by_id_refused(g, user)
    if refused is not None:
        raise ApiError(403, "forbidden", refused)
    asked = data.get("seat")
    if seat is not None and asked is not None and asked != seat:
        raise seating.JoinError(f"the code names seat {seat}, not seat {shown(asked)}")
    seat, secret = seating.join_seat(
        game_id,
        seat if seat is not None else asked,
        user=user,
        name=data.get("name"),
        code=code,
    )
    # (a seat holder now: the table's codes, to bring the others in)
    return {"game": game_json(get_game(game_id), codes=True), "seat": seat, "secret": secret}


@api(("POST",))
def join(request: HttpRequest, game_id: int) -> Any:
    """An open seat of a public table, or of a private one for its organiser, its league's
    members and the users who sit at it (a private table is joined by seat code).
    Rate-limited per address."""
    limited = rate_limited(request)
    if limited is not None:
        return limited
    return _join(request, game_id)


@api(("POST",))
def join_by_code(request: HttpRequest) -> Any:
    """``code``: a seat's code (from the organiser: the table page or the app shows it).
    Rate-limited per address."""
    limited = rate_limited(request)
    if limited is not None:
        return limited
    code = body(request).get("code")
    g, seat = tables.by_code(code)
    return _join(request, g.pk, seat, code=tables.normal_code(code))


def _table_call(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except tables.TableError as exc:
        raise ApiError(exc.status, exc.code, exc.reason) from None


@api(("GET",))
def seat_qr(request: HttpRequest, game_id: int, seat: int) -> Any:
    """The QR code (SVG) of the seat page ``/join/<seat code>/`` on the host as reached: for
    the organiser and the seat holders, or for a request that gives the seat's code
    (``?code=``: what a page without the organiser's token shows; rate-limited)."""
    g = get_game(game_id)
    if not 0 <= seat < g.num_seats:
        raise ApiError(404, "not_found", f"no seat {seat} at this table (0..{g.num_seats - 1})")
    row = g.seat_set.get(number=seat)
    given = request.GET.get("code")
    if given is not None:
        limited = rate_limited(request)
        if limited is not None:
            return limited
        if tables.normal_code(given) != row.code:
            raise ApiError(403, "forbidden", "that is not this seat's code")
    elif not tables.sees_codes(g, viewing_user(request)):
        raise ApiError(403, "forbidden", "a seat's QR code is for the table's organiser and "
                       "its players: send Authorization: Token <key>, or the seat's code")
    url = request.build_absolute_uri(f"/join/{row.code}/")
    resp = HttpResponse(tables.seat_qr_svg(url), content_type="image/svg+xml")
    resp["Cache-Control"] = "no-store"  # (the host in it is the request's)
    return resp


@api(("POST",))
def seat_release(request: HttpRequest, game_id: int, seat: int) -> Any:
    body(request)
    return _table_call(tables.release, game_id, seat, request.api_user)  # type: ignore[attr-defined]


@api(("POST",))
def seat_bot(request: HttpRequest, game_id: int, seat: int) -> Any:
    data = body(request)
    return _table_call(
        tables.to_bot, game_id, seat, data.get("level"), request.api_user  # type: ignore[attr-defined]
    )


@api(("POST",))
def rematch(request: HttpRequest, game_id: int) -> Any:
    """The rematch of a finished game for a holder of one of its seats (``secret`` and
    optionally ``seat`` in the body, or a token): ``{"game", "seat", "secret"}``."""
    data = body(request)
    secret = data.get("secret") or request.headers.get("X-Seat-Secret")
    out = _table_call(
        tables.rematch, game_id, request.api_user, data.get("seat"), secret  # type: ignore[attr-defined]
    )
    out["table"] = game_json(get_game(out["game"]), codes=True)  # (a seat holder of it)
    return out


@api(("GET",))
def state(request: HttpRequest, game_id: int) -> Any:
    g = get_game(game_id)
    viewer = viewer_of(request, g)
    raw = request.GET.get("seq")
    try:
        seq = int(raw) if raw not in (None, "") else None
    except ValueError:
        raise ApiError(400, "malformed", "seq must be an integer") from None
    if seq is not None:
        head = cache.entry(game_id, fresh=True).seq
        if not 0 <= seq <= head:
            raise ApiError(400, "bad_request", f"seq is 0..{head} for this game (its log so far)")
    e, at, st = reading.state_at(game_id, seq)
    out = {"game": game_id, "kind": g.kind, "seq": at, "head": e.seq, "viewer": viewer}
    out.update(reading.viewer_view(e, st, viewer))
    if at == e.seq and clocks.ensure(e) is not None:
        clock = clocks.frame_clock(e, at, st, viewer)
        if clock is not None:
            out["clock"] = clock
    if request.GET.get("events") in ("1", "true"):
        out["events"] = reading.redact_records(e, e.log[:at], viewer)
        out["version"] = upcast.current(g.kind)  # (the events' schema version: today's)
    return out


@api(("GET",))
def export_log(request: HttpRequest, game_id: int) -> Any:
    g = get_game(game_id)
    viewer = viewer_of(request, g)
    # Each record says its event's schema version ("v", core.upcast): the whole log as
    # stored (each event in the version it was written in, as its hash vouches), or what a
    # viewer may see of it in today's version.
    if viewer == ALL:
        rows = (
            Event.objects.filter(game_id=game_id)
            .order_by("seq")
            .values_list("seq", "seat", "payload", "created_at", "hash", "version")
        )
        lines = (
            dumps({"seq": s, "seat": seat, "event": ev, "time": iso(t), "hash": h, "v": v})
            + "\n"
            for s, seat, ev, t, h, v in rows.iterator()
        )
    else:
        e = cache.entry(game_id, fresh=True)
        now = upcast.current(g.kind)
        lines = (dumps({**r, "v": now}) + "\n"
                 for r in reading.redact_records(e, list(e.log), viewer))
    header = (
        dumps(
            {
                "game": g.pk,
                "kind": g.kind,
                "options": g.options,
                "status": g.status,
                "viewer": viewer,
                "outcome": g.outcome,
                "version": upcast.current(g.kind),
            }
        )
        + "\n"
    )
    resp = StreamingHttpResponse(_chain([header], lines), content_type="application/x-ndjson")
    resp["Content-Disposition"] = f'attachment; filename="{g.kind}-{g.pk}.jsonl"'
    return resp


def _chain(*parts: Any) -> Any:
    for p in parts:
        yield from p


@api(("GET",))
def verify(request: HttpRequest, game_id: int) -> Any:
    g = get_game(game_id)
    out = chain.verify_chain(game_id).to_json()
    problem = corrections.verify_corrections(game_id) if out["ok"] else ""
    if problem:
        out.update(ok=False, reason=problem)
    out["corrections"] = g.corrections.count()
    if g.status != Game.FINISHED:
        # A live game's head hash would let anyone test guesses of a hidden event (who kept
        # at a Teka throw-in: 4 guesses; a Tedoku drawing: a few hundred): given at the end.
        out["head"] = None
    return out


def analysis_of(g: Game, what: str) -> Any:
    """The analysis module of ``g``'s game (``Game.analysis_module``: Teeko's solved table),
    or a 400 saying its game has none."""
    name = core.GAMES[g.kind].analysis_module()
    if not name:
        raise ApiError(400, "bad_request", f"{what} are not given for {g.kind} games")
    return importlib.import_module(name)


@api(("GET",))
def analysis(request: HttpRequest, game_id: int) -> Any:
    """A finished game analysed, for a game with an analysis (``Game.analysis_module``):
    Teeko ply by ply under perfect play (core.teeko_analysis.analyse); a module that says
    ``BACKGROUND`` (a Teka match hand by hand, double-dummy: core.teka_analysis) is computed
    in the background: 202 with the progress until it is ready."""
    g = get_game(game_id)
    module = analysis_of(g, "analyses")
    if getattr(module, "BACKGROUND", False):
        return background_analysis(request, g, module)
    if g.status != Game.FINISHED:
        # Teeko hides nothing, but the analysis of a running game is a hint for its players.
        raise ApiError(409, "not_finished", "a game is analysed once it is finished")
    from .solved import ensure_table

    e = cache.entry(game_id, fresh=True)
    try:
        out = module.analyse([ev for _, _, ev in e.log])
    except module.NoTable as exc:
        # Without its table: not available, at once (an operator builds it: solved.py).
        raise ApiError(409, "no_table", ensure_table(exc.squares) or exc.reason) from None
    out["id"] = g.pk
    return out


def background_analysis(request: HttpRequest, g: Game, module: Any) -> Any:
    """The analysis of a finished game computed off the request path by ``module``, a
    budgeted queue (:mod:`server.games.analysis_jobs`): 200 with it, 202 with its place in
    the queue or its progress, 429/503 with ``Retry-After`` when the queue is full.
    ``?watch=1``: asked by a replay that is open (watched matches go first)."""
    watch = request.GET.get("watch", "0")
    if watch not in ("0", "1"):
        raise ApiError(400, "bad_request", "watch is 1 (the replay is open) or 0")
    if g.status != Game.FINISHED:
        # Every hand is shown: never while the match is played.
        raise ApiError(409, "not_finished", "a match is analysed once it is finished")
    from . import analysis_jobs
    from .models import ChainHead

    head = ChainHead.objects.filter(game_id=g.pk).values_list("head", flat=True).first() or ""
    client = analysis_jobs.client_of(getattr(request, "api_user", None),
                                     str(request.META.get("REMOTE_ADDR") or ""))
    try:
        answer = analysis_jobs.lookup(g, module, head, client, watch == "1")
    except OSError:  # (the cache folder cannot be written: said, not a 500)
        log.exception("the analysis cache of game %d cannot be written", g.pk)
        raise ApiError(503, "unavailable", "the analysis cannot be kept on this server (its "
                       "cache folder cannot be written)") from None
    if answer.status == 200:
        return answer.body
    resp = JsonResponse(answer.body, status=answer.status)
    if answer.retry_after is not None:
        resp["Retry-After"] = str(answer.retry_after)
    return resp


@api(("GET",))
def hint(request: HttpRequest, game_id: int) -> Any:
    """The value of the position and the best plies for the player to move in a casual Teeko
    game against the computer (core.teeko_analysis.hint); never in a league game."""
    g = get_game(game_id)
    module = analysis_of(g, "hints")
    if not hasattr(module, "hint"):
        raise ApiError(400, "bad_request", f"hints are not given for {g.kind} games")
    if g.status != Game.LIVE:
        raise ApiError(409, "not_running", "hints are given while the game runs")
    if g.league_id is not None:
        raise ApiError(403, "forbidden", "no hints in league games")
    if request.GET.get("seat") is None:
        raise ApiError(403, "forbidden", "hints are for a player of the game: give seat")
    seat = viewer_of(request, g)  # 403 unless the request holds that seat
    others = [s for s in g.seat_set.all() if s.number != seat]
    if not others or any(s.kind != "bot" for s in others):
        raise ApiError(403, "forbidden", "hints only in games against the computer")
    from .solved import ensure_table

    e = cache.entry(game_id, fresh=True)
    if e.game.to_act(e.state) != [seat]:
        raise ApiError(409, "not_your_turn", "a hint is for the player to move")
    try:
        out = module.hint(e.state)
    except module.NoTable as exc:
        raise ApiError(409, "no_table", ensure_table(exc.squares) or exc.reason) from None
    out["id"] = g.pk
    out["seq"] = e.seq
    return out


# ------------------------------------------------------------------------------ results


def corrections_json(g: Game) -> list[dict[str, Any]]:
    """The corrections of a game's result, oldest first: who, when, why, the results in
    words (a query only for a game that has been corrected)."""
    if g.corrected is None:
        return []
    seats = list(g.seat_set.all())
    return [
        {"n": c.n, "at": iso(c.at), "by": c.by, "why": c.why, "old": c.old_result,
         "new": c.new_result, "old_text": outcome_text(g, seats, c.old_result),
         "new_text": outcome_text(g, seats, c.new_result)}
        for c in g.corrections.order_by("n")
    ]


def api_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: the JSON error under /api/ (and /healthz), Django's page elsewhere."""
    if is_api(request):
        return error(404, "not_found", "no such endpoint (see docs/protocol.md)")
    from django.views.defaults import page_not_found

    return page_not_found(request, exception or Exception())


def api_bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400 (Django refused the request itself, e.g. a body over its size limit)."""
    if is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return error(413, "too_large", "request body too large")
        return error(400, "malformed", "the request could not be read")
    from django.views.defaults import bad_request

    return bad_request(request, exception or Exception())


def api_forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler403."""
    if is_api(request):
        return error(403, "forbidden", "forbidden")
    from django.views.defaults import permission_denied

    return permission_denied(request, exception or Exception())


def api_server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an exception outside the API views' own handling."""
    if is_api(request):
        return error(500, "server_error", "the server could not handle this request")
    from django.views.defaults import server_error

    return server_error(request)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(("/api/", "/healthz"))


def healthz(request: HttpRequest) -> HttpResponse:
    """For a load balancer or a process monitor: 200 when a pooled connection answers within
    the time any request waits for one (``GAMENIGHT_DB_POOL_TIMEOUT``), else 503 naming why:
    ``"database": "busy"`` (no connection of this process's pool came free in that time: a
    request arriving now would be refused too) or ``"down"`` (PostgreSQL cannot be reached).
    A pool that is all lent at the moment but still serving is healthy. ``pools`` gives the
    process's pool sizes and use."""
    pool = dbpool.sync_pool()
    try:
        if pool is not None:
            pool.open()
            with pool.connection(timeout=float(pool.timeout)) as conn:
                conn.execute("SELECT 1")
        else:
            with connection.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchone()
    except Exception as exc:  # any database failure means unhealthy
        reason = dbpool.unavailable(exc) or dbpool.DOWN
        return JsonResponse(
            {"ok": False, "database": "busy" if reason == dbpool.BUSY else "down",
             "reason": reason, "pools": dbpool.stats()},
            status=503,
        )
    return JsonResponse(
        {"ok": True, "database": "ok", "core": "compiled" if core.COMPILED else "pure",
         "pools": dbpool.stats()}
    )
