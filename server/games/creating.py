"""Creating games: a new game with its start events and seats (:func:`create_game`), or a
recorded log stored with its hash chain (:func:`import_game`); the seat rows, players' and
bots' names and bot levels as stored. A game of a league or a season is checked by the
leagues app (:func:`server.games.hooks.leagues`): this app imports none of it.
"""

from __future__ import annotations

import hashlib
import json
import secrets as _secrets
from collections.abc import Iterable
from datetime import datetime
from itertools import pairwise
from random import Random
from typing import Any

from django.db import connection, transaction

import core
from core import upcast
from core.api import Game as CoreGame
from core.api import OptionsError, dumps
from core.errors import EventVersionError

from . import hooks, tablerules
from .append import Append, append, new_rng
from .cache import NotFound, Record, entry
from .chain import GENESIS
from .inputs import shown, text_ok
from .listeners import Batch, notify
from .models import Game, Seat


def hash_secret(secret: str) -> str:
    """A guest's secret as its seat row keeps it (SHA-256, hex): the secret itself is
    never stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _seat_rows(game: Game, specs: list[Any] | None, n: int) -> tuple[list[Seat], dict[int, str]]:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    if specs is not None and not isinstance(specs, list):
        raise OptionsError(
            f"seats is a list of seats like [{{'kind': 'open'}}], not {shown(specs)}"
        )
    specs = list(specs or [])
    if len(specs) > n:
        raise OptionsError(f"{len(specs)} seats given but the table has {n}")
    specs += [{"kind": Seat.OPEN}] * (n - len(specs))
    rows: list[Seat] = []
    guest_secrets: dict[int, str] = {}
    for i, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = {"kind": spec}
        if not isinstance(spec, dict):
            raise OptionsError(f"seat {i}: a seat is an object like {{'kind': 'open'}}")
        kind = spec.get("kind", Seat.OPEN)
        seat = Seat(game=game, number=i, kind=kind if isinstance(kind, str) else "")
        if kind == Seat.OPEN:
            pass
        elif kind == Seat.BOT:
            seat.bot_level = bot_level(game.kind, spec.get("level"))
            seat.name = seat_name(spec.get("name"), f"Bot ({seat.bot_level})", OptionsError)
            seat.claimed = True
        elif kind == Seat.USER:
            user = spec.get("user")
            if user is None:
                username = spec.get("username")
                user = (
                    User.objects.filter(username=username).first()
                    if isinstance(username, str)
                    else None
                )
            if user is None:
                raise OptionsError(f"seat {i}: unknown user {shown(spec.get('username'))}")
            seat.user = user
            seat.name = display_name(user)
            seat.claimed = True
        elif kind == Seat.GUEST:
            name = seat_name(spec.get("name"), f"Guest {i + 1}", OptionsError)
            secret = _secrets.token_urlsafe(16)
            seat.name = name
            seat.secret = hash_secret(secret)
            seat.claimed = True
            guest_secrets[i] = secret
        else:
            raise OptionsError(
                f"seat {i}: unknown seat kind {shown(kind)} (open, user, guest, bot)"
            )
        rows.append(seat)
    return rows, guest_secrets


MAX_NAME = 60


def display_name(user: Any) -> str:
    """The name a player shows at the table: the display name they chose (any characters,
    kept in the user's first name), else their login name."""
    return str(getattr(user, "first_name", "") or "").strip() or str(user.get_username())


def seat_name(name: Any, default: str, exc: type[ValueError]) -> str:
    """A player's or bot's name as stored: a string without control characters, cut to
    :data:`MAX_NAME`; ``default`` when None or empty. Raises ``exc``."""
    if name is None or name == "":
        return default
    if not isinstance(name, str):
        raise exc("a name is a string")
    if not text_ok(name):
        raise exc("a name must not contain control characters or lone surrogates")
    return name.strip()[:MAX_NAME] or default


def bot_levels(kind: str) -> list[str]:
    try:
        from core.ai.bots import LEVELS
    except ImportError:
        return ["random"]
    return list(LEVELS.get(kind, ["random"]))


def bot_level(kind: str, level: Any) -> str:
    """A bot level name of ``kind``: a name from core.ai.bots.LEVELS, an index into that list,
    or None (the default: the second level when there is one, else "random")."""
    levels = bot_levels(kind)
    if level is None:
        return levels[1] if len(levels) > 1 else levels[0]
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < len(levels):
        return levels[level]
    if isinstance(level, str) and level in levels:
        return level
    raise OptionsError(
        f"unknown bot level {shown(level)} for {kind}: one of {', '.join(levels)}"
        f" or 0..{len(levels) - 1}"
    )


def _game_kind(kind: Any) -> CoreGame:
    if not isinstance(kind, str) or kind not in core.GAMES:
        known = ", ".join(sorted(core.GAMES))
        raise OptionsError(f"unknown game kind {shown(kind)}; one of {known}")
    return core.GAMES[kind]


def _new_code() -> str:
    from .models import new_join_code

    for _ in range(20):
        code = new_join_code()
        if not Game.objects.filter(code=code).exists():
            return code
    return new_join_code() + new_join_code()[:2]


def _store_game(
    kind: str,
    options: dict[str, Any],
    seats: list[Any] | None,
    records: list[Record],
    state: Any,
    league: Any,
    created_by: Any,
    times: list[datetime] | None = None,
    created_at: datetime | None = None,
    table: dict[str, Any] | None = None,
    season: Any = None,
    versions: list[int] | None = None,
    public: bool = False,
) -> tuple[Game, dict[int, str]]:
    """Store a new game with its first ``records``. Times: the game's ``created_at`` and its
    events' are the transaction's ``now()`` (so the game is never created after its first
    event), or ``created_at`` and ``times`` as given (an imported log). ``versions``: the
    records' schema versions as recorded (an imported log; default: today's)."""
    cg = core.GAMES[kind]
    versions = list(versions or [upcast.current(kind)] * len(records))
    n = int(options["seats"])
    outcome = cg.outcome(state) if records else None
    with transaction.atomic():
        clubs = hooks.leagues()
        in_league = clubs.league(league, kind)
        game = Game(
            kind=kind,
            options=options,
            num_seats=n,
            code=_new_code(),
            league=in_league,
            season=clubs.season(season, in_league),
            created_by=created_by,
            public=public,
        )
        game.save()
        with connection.cursor() as cur:  # (auto_now_add took Python's clock, after now())
            cur.execute(
                "UPDATE games_game SET created_at = coalesce(%s, now()) WHERE id = %s "
                "RETURNING created_at",
                [created_at, game.pk],
            )
            game.created_at = cur.fetchone()[0]
        rows, guest_secrets = _seat_rows(game, seats, n)
        Seat.objects.bulk_create(rows)
        status = Game.LIVE if all(s.filled for s in rows) else Game.OPEN
        Game.objects.filter(pk=game.pk).update(status=status)
        game.status = status
        if table is not None and outcome is None:
            # The table's time rules, in the log; they run once every seat is taken.
            ev = tablerules.table_event(table, running=status == Game.LIVE)
            records = [*records, (len(records) + 1, None, ev)]
            versions.append(upcast.current(kind))
        if records:
            append(Append(game.pk, records, GENESIS, state, outcome, times, versions=versions))
        if outcome is not None:
            game.refresh_from_db()
        gid = game.pk
        if records:

            def after() -> None:
                try:
                    e = entry(gid)
                except NotFound:
                    return
                notify(Batch(gid, e, records, e.state, e.seq, outcome))

            transaction.on_commit(after)
    return game, guest_secrets


def create_game(
    kind: str,
    options: dict[str, Any] | None = None,
    seats: list[Any] | None = None,
    league: Any = None,
    created_by: Any = None,
    rng: Random | None = None,
    table: Any = None,
    season: Any = None,
    public: Any = False,
) -> Game:
    """Create a game and append its start events. ``seats``: one spec per seat, e.g.
    ``{"kind": "open"}``, ``{"kind": "bot", "level": 2}``, ``{"kind": "user", "username": "ann"}``
    or ``{"kind": "guest", "name": "Bob"}`` (missing seats are open). ``table``: time rules
    (see :func:`server.games.tablerules.parse_rules`; None: none). ``season``: the season of
    ``league`` the game counts in (a Season or its id; None: none). ``public``: listed to
    everyone (else private: docs/protocol.md, "Private tables"). Guest secrets are on
    ``game.guest_secrets`` ({seat: secret}). Raises OptionsError."""
    if not isinstance(public, bool):
        raise OptionsError("public is true (listed to everyone) or false (private)")
    cg = _game_kind(kind)
    opts = cg.options(options if options is not None else {})
    rules = tablerules.parse_rules(kind, table)
    events = cg.start(opts, rng or new_rng())
    records: list[Record] = [(i, None, ev) for i, ev in enumerate(events, start=1)]
    seats = reseat(seats, events)
    state = cg.initial()
    for ev in events:
        state = cg.evolve(state, ev)
    game, guest_secrets = _store_game(
        kind, opts, seats, records, state, league, created_by, table=rules, season=season,
        public=public,
    )
    game.guest_secrets = guest_secrets  # type: ignore[attr-defined]
    game.seating = seating(events)  # type: ignore[attr-defined]
    return game


def seating(events: list[dict[str, Any]]) -> list[int] | None:
    """``seating[seat]`` = lobby place, when the start drew for seats (else None)."""
    for ev in events:
        if ev["type"] == "draw" and ev.get("seating") is not None:
            return [int(p) for p in ev["seating"]]
    return None


def reseat(seats: list[Any] | None, events: list[dict[str, Any]]) -> list[Any] | None:
    """Seat specs in game-seat order. A start that draws for seats (Teka's partner draw)
    records ``seating[seat] = lobby place``; ``seats`` are given in lobby order."""
    for ev in events:
        seating = ev.get("seating")
        if ev["type"] == "draw" and seating is not None and seats and len(seats) <= len(seating):
            lobby = list(seats) + [{"kind": "open"}] * (len(seating) - len(seats))
            return [lobby[place] for place in seating]
    return seats


def import_game(
    kind: str,
    options: dict[str, Any] | None,
    seats: list[Any] | None,
    events: Iterable[Any],
    league: Any = None,
    created_by: Any = None,
    *,
    times: list[datetime] | None = None,
    created_at: datetime | None = None,
    season: Any = None,
    public: bool = False,
) -> Game:
    """Store a recorded log (with its hash chain); ``public``: listed to everyone. ``events``
    are event objects, or records
    ``{"seat": s, "event": {...}, "v": version}`` as exported by the HTTP log endpoint. Each
    event is stored as recorded, in its schema version: a record's ``"v"`` (1 when it has
    none, as in exports made before versions), today's for an event object (made by today's
    code, as the demo data and tests make them); the log is checked by folding it through the
    upcasters (:mod:`core.upcast`), its start events' options (in today's version) by the
    game's validator. The stored options are the start event's when ``options`` is None.

    Times: ``times`` (one per event, in order), else the records' ``"time"`` (ISO 8601, as
    the log export writes them) when every record has one, else now. The game is created at
    ``created_at`` (default: its first event's time) and finished at its last event's."""
    cg = _game_kind(kind)
    records: list[Record] = []
    versions: list[int] = []
    found: list[datetime] = []
    state = cg.initial()
    for i, item in enumerate(events, start=1):
        version: Any = upcast.current(kind)  # (an event object: written by today's code)
        if isinstance(item, dict) and "event" in item and "type" not in item:
            seat, ev = item.get("seat"), item["event"]
            version = item.get("v", upcast.FIRST)
            if isinstance(item.get("time"), str):
                try:
                    found.append(datetime.fromisoformat(item["time"]))
                except ValueError:
                    raise OptionsError(f"event {i}: time is not ISO 8601") from None
        else:
            seat, ev = None, item
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise OptionsError(f"event {i} is not an object with a type")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise OptionsError(f"event {i}: seat must be an integer or null")
        ev = json.loads(dumps(ev))
        try:
            version = upcast.check(kind, version)
            now = upcast.upcast(kind, version, ev)
        except EventVersionError as exc:
            raise OptionsError(f"event {i}: {exc}") from None
        if i == 1 and now["type"] != "start":
            raise OptionsError("a log begins with a start event")
        if now["type"] == "start":
            _check_start_options(cg, i, now.get("options"))
            if options is None:
                options = now["options"]
        try:
            state = cg.evolve(state, now)
        except Exception as exc:
            raise OptionsError(f"event {i} does not apply: {exc}") from exc
        records.append((i, seat, ev))
        versions.append(version)
    if not records:
        raise OptionsError("a log begins with a start event")
    opts = cg.options(options)
    if times is None and len(found) == len(records):
        times = found
    if times is not None:
        times = list(times)
        if len(times) != len(records) or any(b < a for a, b in pairwise(times)):
            raise OptionsError("times: one per event, in order")
        if created_at is None:
            created_at = times[0]
        elif created_at > times[0]:
            raise OptionsError("times: the game is created before its first event")
    game, guest_secrets = _store_game(
        kind, opts, seats, records, state, league, created_by, times, created_at,
        season=season, versions=versions, public=public,
    )
    game.guest_secrets = guest_secrets  # type: ignore[attr-defined]
    return game


def _check_start_options(cg: CoreGame, i: int, options: Any) -> None:
    """An imported start event's options (in today's version) are the game's validated
    options, defaults filled in: ``evolve`` trusts a start event, so an import is where they
    are checked. Raises OptionsError."""
    try:
        valid = cg.options(options)
    except OptionsError as exc:
        raise OptionsError(f"event {i}: the start event's options are refused: {exc}") from None
    if valid != options:
        raise OptionsError(f"event {i}: the start event's options are not in their validated "
                           f"form, defaults filled in: {dumps(valid)}")
