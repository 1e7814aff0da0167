"""Pages for people in a browser (docs/web.md): a game's page (live or replay), TV mode, and the
one API endpoint the replay needs (many views at once).

Nothing here shows more than the HTTP API already does: a live game as a spectator sees it,
a finished game whole (viewer -2, as ``/api/games/<id>/state/`` and ``/log/`` give it)."""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static

import core
from core import words
from core.api import ALL, SPECTATOR
from core.api import Game as CoreGame
from server.games import cache, reading
from server.games.dbpool import knob
from server.games.models import Game
from server.games.views import (
    ApiError,
    api,
    game_json,
    last_seqs,
    rate_limited,
    viewing_user,
)
from server.games.wording import player_names

MAX_RANGE = 1000
"""Most views one ``/views/`` answer holds (a 2,000-event Teka match: two requests)."""

FIRST_VIEWS = 120
"""Views the replay asks for first (then the rest, :data:`MAX_RANGE` at a time)..."""
FIRST_BEFORE = 40
"""...of which this many before the position it opens at."""

MAX_WORDS = 5000
"""Most sentences one ``/words/`` answer holds."""


def page_title(g: Game, suffix: str = "") -> str:
    """A game's page title: the game's name for people and the game's number."""
    return f"{core.GAMES[g.kind].title()} #{g.pk}{suffix}"


def game_info(g: Game) -> dict[str, Any]:
    """What the pages' drawings and words need to know of the game (``Game.info``)."""
    return core.GAMES[g.kind].info(g.num_seats)


def seat_names(g: Game) -> list[str]:
    """The players' names by seat, as the pages show them (static/web/common.js
    ``playerNames``): bots by seat ("Bot North"), a bot that took over a player's seat "Ann
    (bot)" (``server.games.wording.player_names``)."""
    return player_names(g.kind, list(g.seat_set.all()))


def worded(g: Game, records: list[dict[str, Any]], names: list[str]) -> list[str]:
    """The sentence of each record (``Game.describe``, core.words: the one text of the app
    and the pages), from the record as the viewer received it: it never says what the record
    hides. The pages' wording (cards with their suit's symbol, moves as words) unless the
    game words its events itself."""
    game = core.GAMES[g.kind]
    if type(game).describe is CoreGame.describe:
        return [words.describe(r["event"], names, plain=True) for r in records]
    return [game.describe(r["event"], names) for r in records]


def table_words(g: Game, e: cache.Entry, seq: int, viewer: int,
                names: list[str]) -> dict[str, str]:
    """What the table is at after event ``seq``, as ``viewer`` sees it (core.words, from the
    viewer's view): what the seats to act are doing, the trick just won and the last hand's
    result ("" for what the game does not have)."""
    _, _at, state = reading.state_at(g.pk, seq)
    view = e.game.view(state, viewer)
    return {"doing": words.doing(g.kind, view, names),
            "trick": words.trick_result(view, names),
            "hand": words.hand_result(view)}


def result_line(g: Game, outcome: dict[str, Any] | None, names: list[str]) -> str:
    """How the game ended in a line (``Game.result_text``); "" while it goes on."""
    return core.GAMES[g.kind].result_text(outcome, names) if outcome else ""


def _page_methods(request: HttpRequest) -> HttpResponse | None:
    if request.method not in ("GET", "HEAD"):
        resp = HttpResponse("use GET\n", status=405, content_type="text/plain")
        resp["Allow"] = "GET, HEAD"
        return resp
    return None


def _seq_param(raw: str | None) -> int | None:
    """``?seq=N`` of a shared link: a number, else ignored (the page opens at the end)."""
    if raw is None or not (raw.isascii() and raw.isdigit() and len(raw) <= 9):
        return None
    return int(raw)


def _analysis(g: Game) -> dict[str, Any] | None:
    """For a finished Teeko game: where its analysis is (``/api/games/<id>/analysis/``) and
    whether this server has the solved table of its pattern set (else the page does not ask,
    and says the analysis is not available here). A game whose analysis is computed in the
    background (``BACKGROUND``, a Teka match): always (computed on the first request)."""
    name = core.GAMES[g.kind].analysis_module()
    if not name or g.status != Game.FINISHED:
        return None
    if getattr(importlib.import_module(name), "BACKGROUND", False):
        return {"url": f"/api/games/{g.pk}/analysis/", "ready": True, "background": True}
        return None
    from core import teeko_table

    try:
        squares = getattr(cache.entry(g.pk).state, "squares", None)
        path = teeko_table.table_path(squares) if squares else None
        ready = path is not None and teeko_table.available(path)
    except Exception:  # (an unreadable log or an unknown set: no analysis, never a 500)
        ready = False
    return {"url": f"/api/games/{g.pk}/analysis/", "ready": ready}


def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``/games/<id>/``: the board drawn in the browser; live over the game socket as a
    spectator, or the replay of a finished game (``?seq=N`` opens at event N)."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    g = (
        Game.objects.filter(pk=int(game_id))
        .select_related("league")
        .prefetch_related("seat_set")
        .first()
    )
    if g is None:
        return render(request, "web/missing.html", {"game_id": game_id}, status=404)
    info = game_json(g)
    seq = _seq_param(request.GET.get("seq"))
    config: dict[str, Any] = {
        "game": info,
        "seq": seq,
        "views": f"/api/games/{g.pk}/views/",
        "ws": f"/ws/games/{g.pk}/",
        "first": None,
        "analysis": _analysis(g),
        "words": f"/api/games/{g.pk}/words/",
        "result": result_line(g, g.result, seat_names(g)),
        "info": game_info(g),
    }
    if g.status == Game.FINISHED:
        # The views the replay draws first, around the position it opens at: named here so
        # that the browser fetches them (<link rel=preload>) while it loads the modules.
        head = int(info["seq"])
        start = head if seq is None else min(seq, head)
        lo = max(0, start - FIRST_BEFORE)
        config["first"] = {"from": lo, "to": min(head, lo + FIRST_VIEWS - 1),
                           "url": f"/api/games/{g.pk}/views/?from={lo}"
                                  f"&to={min(head, lo + FIRST_VIEWS - 1)}&delta=1"}
    title = page_title(g)
    return render(
        request,
        "web/game.html",
        {"config": config, "title": title, "game": info, "league": g.league},
    )


def tv_idle() -> float:
    """Seconds without an event after which a live table leaves the TV (abandoned)."""
    return float(knob("TV_IDLE", 600.0))


def tv_games(request: HttpRequest) -> list[dict[str, Any]]:
    """The tables the TV shows: the live ones listed to this viewer (the public tables, and
    for a logged-in user also theirs and their leagues') that had an event in the last
    :func:`tv_idle` seconds."""
    from datetime import timedelta

    from django.db.models import OuterRef, Subquery
    from django.utils import timezone

    from server.games import tables
    from server.games.models import Event

    since = timezone.now() - timedelta(seconds=tv_idle())
    last = Event.objects.filter(game=OuterRef("pk")).order_by("-seq").values("created_at")[:1]
    rows = list(
        tables.listed(Game.objects.filter(status=Game.LIVE), viewing_user(request))
        .annotate(last_event=Subquery(last))
        .prefetch_related("seat_set").order_by("id")[:500]
    )
    rows = [g for g in rows if (g.last_event or g.created_at) >= since][:200]
    seqs = last_seqs(rows)
    return [game_json(g, seqs.get(g.pk, 0), {}) for g in rows]


def tv_page(request: HttpRequest) -> HttpResponse:
    """``/tv/``: every live table in a grid, for the big screen of a game night."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    config = {"games": tv_games(request), "poll": "/api/tv/",
              "linger": float(knob("TV_LINGER", 30.0)),
              "kinds": {name: game.info(game.max_seats) for name, game in core.GAMES.items()}}
    return render(request, "web/tv.html", {"config": config})


@api(("GET",))
def tv_list(request: HttpRequest) -> Any:
    """``GET /api/tv/``: the tables the TV shows (:func:`tv_games`), as ``/api/games/``
    lists them."""
    return {"games": tv_games(request)}


FAVICON = Path(__file__).parent / "static" / "web" / "favicon.svg"


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: the site's icon (an SVG), for the browsers and pages that ask for it
    there rather than where the pages' ``<link rel=icon>`` says."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    resp = HttpResponse(FAVICON.read_bytes(), content_type="image/svg+xml")
    resp["Cache-Control"] = "public, max-age=86400"
    return resp


def _int_param(request: HttpRequest, name: str, default: int) -> int:
    raw = request.GET.get(name)
    if raw in (None, ""):
        return default
    assert raw is not None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9):
        raise ApiError(400, "malformed", f"{name} must be a whole number")
    return int(raw)


def _public_range(
    request: HttpRequest, game_id: str, first: int, most: int, what: str
) -> tuple[Game, int, cache.Entry, int, int]:
    """The game, the viewer ``/state/`` gives without credentials (a finished game whole,
    any other as a spectator), its cache entry and the range ``from``..``to`` asked for
    (``first``..head, at most ``most`` ``what``; default from ``first``)."""
    g = Game.objects.filter(pk=int(game_id)).prefetch_related("seat_set").first()
    if g is None:
        raise cache.NotFound(f"no game {game_id}")
    viewer = ALL if g.status == Game.FINISHED else SPECTATOR
    e = cache.entry(g.pk, fresh=True)
    head = e.seq
    lo = _int_param(request, "from", first)
    hi = _int_param(request, "to", min(head, lo + most - 1))
    if not first <= lo <= hi <= head:
        raise ApiError(400, "bad_request",
                       f"from and to are {first}..{head} for this game, from <= to")
    if hi - lo + 1 > most:
        raise ApiError(400, "bad_request", f"at most {most} {what} in one request")
    return g, viewer, e, lo, hi


@api(("GET",))
def views_range(request: HttpRequest, game_id: str) -> Any:
    """``GET /api/games/<id>/views/?from=A&to=B[&delta=1]``: the views after events A..B (at
    most :data:`MAX_RANGE`) and the records A..B, folded here with the core so that a replay
    needs no request per step. The viewer is the one ``/state/`` gives without credentials:
    a finished game whole (-2), any other game as a spectator (-1). With ``delta=1`` every
    view after the first is given as its difference from the one before
    (:func:`view_delta`)."""
    g, viewer, e, lo, hi = _public_range(request, game_id, 0, MAX_RANGE, "views")
    delta = request.GET.get("delta") in ("1", "true")
    _, _at, state = reading.state_at(g.pk, lo)
    game = e.game
    log = e.log
    prev = game.view(state, viewer)
    views: list[Any] = [prev]
    for seq in range(lo + 1, hi + 1):
        state = game.evolve(state, log[seq - 1][2])
        view = game.view(state, viewer)
        views.append(view_delta(prev, view) if delta else view)
        prev = view
    first = max(lo, 1)
    records = reading.redact_records(e, log[first - 1 : hi], viewer) if hi >= 1 else []
    out = reading.viewer_view(e, state, viewer)
    names = seat_names(g)
    body = {
        "game": g.pk,
        "kind": g.kind,
        "status": g.status,
        "head": e.seq,
        "viewer": viewer,
        "from": lo,
        "to": hi,
        "views": views,
        "delta": delta,
        "events": records,
        "texts": worded(g, records, names),
        "to_act": out["to_act"],
        "outcome": out["outcome"],
        "result": result_line(g, out["outcome"], names),
    }
    resp = JsonResponse(body)
    # A finished game's log never changes: the same answer for ever.
    resp["Cache-Control"] = "public, max-age=86400" if viewer == ALL else "no-cache"
    return resp


@api(("GET",))
def words_range(request: HttpRequest, game_id: str) -> Any:
    """``GET /api/games/<id>/words/?from=A&to=B``: the sentences of events A..B (at most
    :data:`MAX_WORDS`; default 1..head) as the viewer of ``/views/`` sees them, and the
    result line once the game is over. The live pages ask it for the events the game
    socket brought (a record's envelope stays ``seq``, ``seat``, ``event``). With ``now=1``
    also ``now``: what the table is at after event B (:func:`table_words`)."""
    g, viewer, e, lo, hi = _public_range(request, game_id, 1, MAX_WORDS, "events")
    names = seat_names(g)
    records = reading.redact_records(e, e.log[lo - 1 : hi], viewer)
    outcome = e.game.outcome(e.state)
    body = {
        "game": g.pk,
        "head": e.seq,
        "viewer": viewer,
        "from": lo,
        "to": hi,
        "texts": worded(g, records, names),
        "result": corrected_line(g, names) if g.corrected is not None
        else result_line(g, outcome.to_json() if outcome else None, names),
    }
    if request.GET.get("now") in ("1", "true"):
        body["now"] = table_words(g, e, hi, viewer, names)
    resp = JsonResponse(body)
    # (a finished game's words change only when an organiser corrects its result)
    resp["Cache-Control"] = "public, max-age=300" if viewer == ALL else "no-cache"
    return resp


def corrected_line(g: Game, names: list[str]) -> str:
    """The result line of a corrected game: the result that counts, who corrected it, why."""
    last = g.corrections.order_by("-n").first()
    line = result_line(g, g.result, names)
    return f"{line} (corrected by {last.by}: {last.why})" if last is not None else line


def view_delta(prev: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """``view`` as a change of ``prev`` (both the core's views, JSON objects), by top-level
    key: ``set`` the keys whose value changed, ``add`` the items appended to a list that
    only grew (a trick, the score sheet, a move history), ``del`` the keys gone. Most of a
    view stays as it was from one event to the next: a 2,000-event Teka match's views are
    about 15 MB whole, under 2 MB as deltas. Undone in the browser (static/web/game.js)."""
    out: dict[str, Any] = {}
    changed: dict[str, Any] = {}
    added: dict[str, Any] = {}
    for key, value in view.items():
        old = prev.get(key, _MISSING)
        if old is _MISSING:
            changed[key] = value
        elif value is old or value == old:
            continue
        elif (isinstance(value, list) and isinstance(old, list) and len(value) > len(old)
              and value[: len(old)] == old):
            added[key] = value[len(old):]
        else:
            changed[key] = value
    gone = [key for key in prev if key not in view]
    if changed:
        out["set"] = changed
    if added:
        out["add"] = added
    if gone:
        out["del"] = gone
    return out


_MISSING: Any = object()


def table_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``/games/<id>/table/``: the shared table for a TV or a tablet: the live view a
    spectator gets, large, with a QR code and a short code for each open seat, and the
    organiser's hand-over of a seat to another phone or to a bot."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    from server.games import tables

    g = Game.objects.filter(pk=int(game_id)).prefetch_related("seat_set").first()
    if g is None:
        return render(request, "web/missing.html", {"game_id": game_id}, status=404)
    # The seat codes only for the organiser's (or a player's) browser session; the page asks
    # for them with the organiser's login otherwise (table.js).
    user = viewing_user(request)
    info = game_json(g, codes=tables.sees_codes(g, user))
    # (who is logged in on this browser, if anyone: the page need not ask, and a stranger's
    # page makes no request that is refused)
    config = {"game": info, "join": request.build_absolute_uri("/join/"), "info": game_info(g),
              "user": user.get_username() if user is not None else None}
    title = page_title(g, " · table")
    return render(request, "web/table.html", {"config": config, "title": title, "game": info})


def seat_page(request: HttpRequest, code: str) -> HttpResponse:
    """``/join/<code>/``: a seat on a phone, no install. A seat code opens that seat (joined
    here, or taken back with the credential this phone keeps); nothing else opens it (a
    released seat's old code is gone). The page shows the seat's own view only, as the socket
    gives it to that seat. Rate-limited per address, as the API's code lookups."""
    from server.games import tables

    bad = _page_methods(request)
    if bad is not None:
        return bad
    limited = rate_limited(request)
    if limited is not None:  # (the same limit as the API's joins and code lookups)
        page = HttpResponse(limited_text(limited), status=429,
                            content_type="text/plain; charset=utf-8")
        page["Retry-After"] = limited["Retry-After"]
        return page
    try:
        g, seat = tables.by_code(code)
    except cache.NotFound:
        return render(request, "web/missing.html", {"code": code}, status=404)
    info = game_json(g, own_seat=seat)  # (that seat's code only: the one in the address)
    user = viewing_user(request)
    # (a league game's seats are its members': the page offers a login, seat_login.js)
    config = {"game": info, "seat": seat, "code": tables.normal_code(code), "info": game_info(g),
              "user": user.get_username() if user is not None else None,
              "league": g.league.name if g.league is not None else None}
    title = page_title(g)
    return render(request, "web/seat.html", {"config": config, "title": title, "game": info})


def limited_text(resp: HttpResponse) -> str:
    """The reason of a 429 JSON answer, for a page."""
    return str(json.loads(resp.content)["error"]["reason"]) + "\n"


def join_form(request: HttpRequest) -> HttpResponse:
    """``/join/?code=...``: the front page's join form without JavaScript: to the seat page of
    the code as typed (any case, spaces, hyphens), or back to the front page."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    from server.games import tables

    code = tables.normal_code(request.GET.get("code", ""))
    return redirect(f"/join/{code}/" if code else "/")


def manifest(request: HttpRequest, code: str | None = None) -> HttpResponse:
    """``/manifest.webmanifest``: the web app manifest (a page added to a phone's home screen
    opens as an app of its own). The seat page links ``/join/<code>/manifest.webmanifest``,
    the same document: its ``start_url`` ``./`` is that seat page (nothing is looked up)."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    body = {
        "name": "gamenight: your seat" if code else "gamenight",
        "short_name": "gamenight",
        "description": "Table games at a game night: your seat on your phone.",
        "start_url": "./" if code else "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "portrait",
        "background_color": "#f4f1ea",
        "theme_color": "#2d4a3e",
        "icons": [
            {"src": static("web/icon.svg"), "sizes": "any", "type": "image/svg+xml",
             "purpose": "any"},
            {"src": static("web/icon-192.png"), "sizes": "192x192", "type": "image/png",
             "purpose": "any"},
            {"src": static("web/icon-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "any"},
            {"src": static("web/icon-maskable-512.png"), "sizes": "512x512",
             "type": "image/png", "purpose": "maskable"},
        ],
    }
    resp = HttpResponse(json.dumps(body, indent=1), content_type="application/manifest+json")
    resp["Cache-Control"] = "public, max-age=300"
    return resp


STATIC = Path(__file__).parent / "static" / "web"
SERVICE_WORKER = Path(__file__).parent / "sw.js"
CACHED_TYPES = (".js", ".css", ".svg", ".png")
"""The static files the service worker keeps (the seat page's shell and its drawings)."""


def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the service worker of the seat pages (scope ``/join/``; static/web's
    files and the seat pages opened, kept for a phone with no network; never an API or a
    socket answer). It names the files to keep and a version, the hash of their contents:
    a changed file is a new worker, which drops the old copies."""
    bad = _page_methods(request)
    if bad is not None:
        return bad
    files = sorted(p for p in STATIC.iterdir() if p.suffix in CACHED_TYPES and p.is_file())
    digest = hashlib.sha256()
    for p in files:
        digest.update(p.name.encode() + b"\0" + p.read_bytes())
    head = (f"const VERSION = {json.dumps(digest.hexdigest()[:16])};\n"
            f"const FILES = {json.dumps([static('web/' + p.name) for p in files])};\n")
    resp = HttpResponse(head + SERVICE_WORKER.read_text(), content_type="text/javascript")
    resp["Cache-Control"] = "no-cache"
    return resp
