"""A table's seats from the outside (docs/protocol.md, "Tables: seat codes, phones, rematch",
and "Private tables").

* Every seat has its own code (``Seat.code``): 8 symbols of ``JOIN_ALPHABET`` (no 0/O/1/I),
  random (``secrets``), 40 bits. A code is shown only to the table's organiser and its seat
  holders (:func:`sees_codes`); :func:`by_code` finds the seat of a code (case, spaces and
  hyphens aside). A released seat gets a new code: the old one joins nothing any more.
* A table is private unless its organiser opens it (``Game.public``; :func:`set_public`):
  the lists of tables (the API's, the front page's, the TV's) show the public ones, and to a
  logged-in user also their own and their leagues' (:func:`listed`); an open seat of a
  private table is joined with its seat code only (:func:`join_by_id_refused`).
* ``GET /api/games/<id>/seats/<n>/qr.svg``: the QR code of ``http://<host>/join/<seat code>/``
  (the phone's seat page, host as the request reached the server), drawn by segno; for the
  organiser and the seat holders, or for whoever gives the seat's code (``?code=``).
* ``POST /api/games/<id>/seats/<n>/release/`` (the organiser): the seat's credential is
  revoked (its sockets are told and closed), the seat gets a new code and can be joined again
  under it; the player's name stays. No event: who holds a seat is not part of the game, as a
  join is not.
* ``POST /api/games/<id>/seats/<n>/bot/`` (the organiser): the seat is played by a bot from
  now on: a ``seat_to_bot`` event with ``"by": null`` (the organiser is no seat), in the same
  transaction as the seat row.
* ``POST /api/games/<id>/rematch/`` (a seat holder of a finished game): the same kind,
  options and time rules with the same people in the same seats, created once; every socket
  of the old game hears ``{"type": "rematch", "game": <new id>}``; each old holder gets its
  new seat (and, for a guest, its new secret) from the same call with its old credential.

The organiser of a table is its creator (``Game.created_by``) or a staff user.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from . import append, cache, creating, hooks, listeners, seating, tablerules
from .inputs import shown
from .models import JOIN_ALPHABET, SEAT_CODE_LENGTH, Game, Seat, new_seat_code

log = logging.getLogger("server.games")

MAX_CODE = 16
RELEASED_CLOSE = 4001
"""Close code of a socket whose seat the organiser handed to another phone or to a bot (the
client should not reconnect with that credential: it is revoked)."""


class TableError(Exception):
    """An organiser's or a player's table request refused: HTTP status, code, reason."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


def normal_code(code: Any) -> str | None:
    """A code as typed (any case, spaces or hyphens between its symbols) in its stored form,
    or None when it cannot be one."""
    if not isinstance(code, str) or len(code) > 2 * MAX_CODE:
        return None
    up = code.replace(" ", "").replace("-", "").upper()
    if not 0 < len(up) <= MAX_CODE or any(c not in JOIN_ALPHABET for c in up):
        return None
    return up


def by_code(code: Any) -> tuple[Game, int]:
    """(game, seat) named by a seat's code (see :func:`normal_code`); NotFound for anything
    else, a released seat's old code included."""
    up = normal_code(code)
    if up is not None:
        row = Seat.objects.filter(code=up).select_related("game").first()
        if row is not None:
            return row.game, row.number
    raise cache.NotFound(f"no seat with code {shown(code, MAX_CODE)}")


def fresh_code() -> str:
    """A seat code no seat has (a clash of 40 random bits is rare: drawn again)."""
    for _ in range(20):
        code = new_seat_code()
        if not Seat.objects.filter(code=code).exists():
            return code
    return new_seat_code() + new_seat_code()[: MAX_CODE - SEAT_CODE_LENGTH]


def _authed(user: Any) -> bool:
    return user is not None and bool(getattr(user, "is_authenticated", False))


def holds_seat(g: Game, user: Any = None, seat: Any = None, secret: Any = None) -> bool:
    """Whether these credentials hold a seat of ``g`` now: a user seat of ``user``, or guest
    seat ``seat`` with its ``secret`` (uses the game's prefetched seats when there are)."""
    rows = list(g.seat_set.all())
    if _authed(user) and any(r.kind == Seat.USER and r.user_id == user.pk for r in rows):
        return True
    if isinstance(seat, int) and not isinstance(seat, bool) and isinstance(secret, str):
        return any(
            r.number == seat and r.kind == Seat.GUEST and r.claimed and bool(r.secret)
            and hmac.compare_digest(r.secret, creating.hash_secret(secret))
            for r in rows
        )
    return False


def sees_codes(g: Game, user: Any = None, seat: Any = None, secret: Any = None) -> bool:
    """Whether a request with these credentials may see the seat codes of ``g``: its
    organiser and the holders of its seats; nobody else."""
    return is_organiser(user, g) or holds_seat(g, user, seat, secret)


def listed(qs: Any, user: Any) -> Any:
    """The games of ``qs`` a list shows to ``user`` (None or anonymous: the public ones;
    a logged-in user also sees the ones they created, sit at, or of their leagues; a league
    organiser every league's; a staff user every table)."""
    from django.db.models import Q

    if _authed(user) and user.is_staff:
        return qs  # (the club's staff organise every table)
    shown_ = Q(public=True)
    if _authed(user):
        if hooks.leagues().is_organiser(user):  # (a league organiser: every league's tables)
            shown_ |= Q(league_id__isnull=False)
        shown_ |= (
            Q(created_by_id=user.pk)
            | Q(pk__in=Seat.objects.filter(user_id=user.pk).values("game_id"))
            | Q(league_id__in=user.leagues.values("pk"))
        )
    return qs.filter(shown_)


def join_by_id_refused(g: Game, user: Any) -> str | None:
    """Why ``user`` may not take an open seat of ``g`` by its id (without a seat code), or
    None: a public table, its organiser, a member of its league (where the league's rules
    apply), or a user who already sits at it (their seat back) may; a private table is
    joined with a seat code the organiser hands out."""
    if g.public or is_organiser(user, g) or g.league_id is not None:
        return None
    if _authed(user) and g.seat_set.filter(user_id=user.pk).exclude(kind=Seat.BOT).exists():
        return None
    return ("this table is private: join it with the seat code its organiser shows "
            "(POST /api/join/ {\"code\": ...})")


def set_public(game_id: int, public: Any, user: Any) -> dict[str, Any]:
    """The organiser opens the table to the public (listed to everyone, open seats taken by
    id) or makes it private again."""
    if not isinstance(public, bool):
        raise TableError(400, "malformed", "public is true or false")
    with transaction.atomic():
        g = Game.objects.select_for_update().filter(pk=game_id).first()
        if g is None:
            raise cache.NotFound(f"no game {game_id}")
        if not is_organiser(user, g):
            raise TableError(
                403, "forbidden",
                "only the table's organiser (the user who created it, or a staff user) opens "
                "it to the public or closes it: send Authorization: Token <key>",
            )
        Game.objects.filter(pk=game_id).update(public=public)
    return {"game": game_id, "public": public}


def seat_qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (segno; error correction M, 2-module
    border, black on white, 8 px a module: sharp at any size the page scales it to)."""
    import segno

    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=8, border=2, dark="#000", light="#fff", xmldecl=False)
    return out.getvalue().decode("utf-8")


def is_organiser(user: Any, g: Game) -> bool:
    if not _authed(user):
        return False
    return bool(user.is_staff) or (g.created_by_id is not None and g.created_by_id == user.pk)


def _organiser_game(game_id: int, user: Any) -> Game:
    """The game row, locked for this transaction, when ``user`` organises it."""
    g = Game.objects.select_for_update().filter(pk=game_id).first()
    if g is None:
        raise cache.NotFound(f"no game {game_id}")
    if not is_organiser(user, g):
        raise TableError(
            403,
            "forbidden",
            "only the table's organiser (the user who created it, or a staff user) hands "
            "seats over: send Authorization: Token <key>",
        )
    if g.status == Game.FINISHED:
        raise TableError(409, "game_over", "the game is over")
    return g


def _seat_row(g: Game, seat: int) -> Seat:
    if not 0 <= seat < g.num_seats:
        raise TableError(400, "wrong_seat", f"no seat {seat} at this table (0..{g.num_seats - 1})")
    return Seat.objects.select_for_update().get(game_id=g.pk, number=seat)


def _revoke_sockets(game_id: int, seat: int, reason: str) -> None:
    """(after commit, any thread) tell the sockets holding ``seat`` that it is no longer
    theirs, send them nothing more, and close them (code :data:`RELEASED_CLOSE`)."""
    from .hub import HUB

    loop = HUB.live_loop()
    if loop is None:
        return
    text = json.dumps({"type": "seat_released", "game": game_id, "seat": seat,
                       "reason": reason})

    def on_loop() -> None:
        room = HUB.rooms.get(game_id)
        if room is None:
            return
        for conn in list(room.conns):
            if conn.seat == seat:
                conn.revoke_seat(text, RELEASED_CLOSE)

    loop.call_soon_threadsafe(on_loop)


def release(game_id: int, seat: Any, user: Any) -> dict[str, Any]:
    """The organiser frees ``seat`` for another phone: its credential (user or guest secret)
    stops holding it, its sockets are closed, the name stays, and it gets a new code (the
    old one, which its player knew, joins nothing any more)."""
    seat = _seat_number(seat)
    with transaction.atomic():
        g = _organiser_game(game_id, user)
        row = _seat_row(g, seat)
        if row.kind == Seat.BOT:
            raise TableError(409, "bot_seat", f"seat {seat} is played by a bot")
        if not row.claimed:
            raise TableError(409, "open_seat", f"seat {seat} is open already")
        code = fresh_code()
        Seat.objects.filter(pk=row.pk).update(
            kind=Seat.OPEN, user=None, secret="", claimed=False, code=code
        )
        transaction.on_commit(lambda: _revoke_sockets(
            game_id, seat, "the organiser handed this seat to another phone"))
        transaction.on_commit(lambda: listeners.notify_seats(game_id))
    return {"game": game_id, "seat": seat, "code": code, "name": row.name}


def to_bot(game_id: int, seat: Any, level: Any, user: Any) -> dict[str, Any]:
    """The organiser hands ``seat`` to a bot of ``level`` (None: the kind's default): a
    ``seat_to_bot`` event (``by`` null) and the bot seat row, in one transaction. A player's
    seat keeps its user or guest on the row (see :func:`seating.seat_replaced`)."""
    from .bots import BOTS
    from .shards import SHARDS

    seat = _seat_number(seat)
    for _ in range(10):
        try:
            with transaction.atomic():
                g = _organiser_game(game_id, user)
                row = _seat_row(g, seat)
                if row.kind == Seat.BOT:
                    raise TableError(409, "bot_seat", f"seat {seat} is played by a bot already")
                lvl = creating.bot_level(g.kind, level)  # (OptionsError: 400)
                Seat.objects.filter(pk=row.pk).update(
                    kind=Seat.BOT, bot_level=lvl, claimed=True, name=row.name or f"Bot ({lvl})"
                )
                # (before the event's own on_commit: the bot runner must see the new bot seat)
                transaction.on_commit(lambda: BOTS.bot_seats.pop(game_id, None))
                e = cache.entry(game_id, fresh=True)
                event = {"type": "seat_to_bot", "seat": seat, "by": None, "level": lvl}
                result = append.submit(game_id, 0, None, e.seq, pre=[(None, event)])
                others = Seat.objects.filter(game_id=game_id).exclude(pk=row.pk)
                if g.status == Game.OPEN and all(s.filled for s in others):
                    if Game.objects.filter(pk=game_id, status=Game.OPEN).update(
                        status=Game.LIVE
                    ):
                        seating.start_running(game_id)
                transaction.on_commit(lambda: _revoke_sockets(
                    game_id, seat, "the organiser handed this seat to a bot"))
                transaction.on_commit(lambda: listeners.notify_seats(game_id))
                transaction.on_commit(lambda: SHARDS.submit(game_id, BOTS.kick, game_id))
            return {"game": game_id, "seat": seat, "level": lvl, "seq": result.seq}
        except append.StaleError:  # a move came in meanwhile: append after it
            continue
    raise TableError(409, "busy", "the game kept moving: try again")


def _seat_number(seat: Any) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise TableError(400, "malformed", "seat must be an integer")
    return seat


# --------------------------------------------------------------------------- rematch


def _derived_secret(new_id: int, old_seat: int, old_secret: str) -> str:
    """A guest's secret in the rematch: made from its secret in the old game (which only it
    knows) and the server's key, so the same call gives the same secret again and the server
    never stores it."""
    key = settings.SECRET_KEY.encode()
    msg = f"gamenight-rematch:{new_id}:{old_seat}:{old_secret}".encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()[:32]


def _held_seat(g: Game, user: Any, seat: Any, secret: Any) -> Seat:
    """The seat of ``g`` these credentials held when it ended."""
    authed = user is not None and getattr(user, "is_authenticated", False)
    rows = list(g.seat_set.all())
    if seat is not None:
        seat = _seat_number(seat)
        if not 0 <= seat < len(rows):
            raise TableError(400, "wrong_seat", f"no seat {seat} at this table")
        rows = [r for r in rows if r.number == seat]
    for r in rows:
        if r.kind == Seat.USER and authed and r.user_id == user.pk:
            return r
        if (
            r.kind == Seat.GUEST
            and isinstance(secret, str)
            and r.secret
            and hmac.compare_digest(r.secret, creating.hash_secret(secret))
        ):
            return r
    raise TableError(
        403, "forbidden",
        f"these credentials hold no seat of game {g.pk} (send the seat's secret, or a token)",
    )


def _specs(g: Game) -> list[dict[str, Any]]:
    """The old game's seats as seat specs of the new one (bots stay bots; guests become
    guest seats claimed by nobody until they ask with their old secret)."""
    out: list[dict[str, Any]] = []
    for r in g.seat_set.all():
        if r.kind == Seat.BOT:  # (a bot that took over a player's seat gets a bot's name)
            name = None if seating.seat_replaced(r) else r.name
            out.append({"kind": "bot", "level": r.bot_level or None, "name": name})
        elif r.kind == Seat.USER and r.user is not None:
            out.append({"kind": "user", "user": r.user})
        elif r.kind == Seat.GUEST:
            out.append({"kind": "guest", "name": r.name})
        else:
            out.append({"kind": "open"})
    return out


def _new_seat(new: Game, old_seat: int) -> int:
    """Where the person of ``old_seat`` sits in the rematch: the same seat, unless its start
    drew for seats again (Teka's ``draw_for_partners``)."""
    e = cache.entry(new.pk, fresh=True)
    order = creating.seating([ev for _s, _seat, ev in e.log])
    return order.index(old_seat) if order and old_seat in order else old_seat


def rematch(game_id: int, user: Any, seat: Any, secret: Any) -> dict[str, Any]:
    """The rematch of a finished game (made by the first call, found by the next ones) and
    the caller's seat in it. Raises TableError / NotFound."""
    created = False
    with transaction.atomic():
        g = Game.objects.select_for_update().filter(pk=game_id).first()
        if g is None:
            raise cache.NotFound(f"no game {game_id}")
        if g.status != Game.FINISHED:
            raise TableError(409, "not_finished", "a rematch follows a finished game")
        held = _held_seat(g, user, seat, secret)
        new = Game.objects.filter(rematch_of=g).first()
        if new is None:
            rules = tablerules.table_rules([g.pk]).get(g.pk)
            if rules is not None:
                rules = {k: v for k, v in rules.items() if k in tablerules.RULE_KEYS}
                if rules.get("clock") is None:
                    rules.pop("increment", None)  # (stored as 0 without a clock)
            new = creating.create_game(g.kind, g.options, _specs(g), created_by=g.created_by,
                                    table=rules)
            Game.objects.filter(pk=new.pk).update(rematch_of=g, public=g.public)
            Seat.objects.filter(game_id=new.pk, kind=Seat.GUEST).update(secret="")
            created = True
        where = _new_seat(new, held.number)
        new_secret: str | None = None
        if held.kind == Seat.GUEST:
            new_secret = _derived_secret(new.pk, held.number, str(secret))
            hashed = creating.hash_secret(new_secret)
            row = Seat.objects.select_for_update().get(game_id=new.pk, number=where)
            if row.kind != Seat.GUEST or (row.secret and row.secret != hashed):
                raise TableError(409, "taken", f"seat {where} of the rematch is not yours")
            if not row.secret:
                Seat.objects.filter(pk=row.pk).update(secret=hashed)
        new_id = new.pk
        if created:
            transaction.on_commit(lambda: _announce(game_id, new_id))
    return {"game": new_id, "seat": where, "secret": new_secret, "created": created}


def rematch_of(game_id: int) -> int | None:
    """The rematch made of game ``game_id``, if any."""
    return Game.objects.filter(rematch_of_id=game_id).values_list("pk", flat=True).first()


def _announce(old_id: int, new_id: int) -> None:
    from .hub import HUB

    HUB.broadcast_threadsafe(old_id, json.dumps({"type": "rematch", "game": new_id}))
