"""A table's seats from the outside (docs/protocol.md, "Tables: seat codes, phones, rematch").

* A seat's code is the game's join code followed by the seat's number as players count
  (1-8): game ``K7QF9A``, seat 2 -> ``K7QF9A3``. :func:`by_code` reads both forms.
* ``GET /api/games/<id>/seats/<n>/qr.svg``: the QR code of ``http://<host>/join/<seat code>/``
  (the phone's seat page, host as the request reached the server), drawn by segno.
* ``POST /api/games/<id>/seats/<n>/release/`` (the organiser): the seat's credential is
  revoked (its sockets are told and closed) and the seat can be joined again under the same
  code; the player's name stays. No event: who holds a seat is not part of the game, as a
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

import asyncio
import hashlib
import hmac
import io
import json
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from . import store, tablerules
from .inputs import shown
from .models import Game, Seat

log = logging.getLogger("server.games")

MAX_CODE = 16
SEAT_DIGITS = "12345678"
RELEASED_CLOSE = 4001
"""Close code of a socket whose seat the organiser handed to another phone or to a bot (the
client should not reconnect with that credential: it is revoked)."""


class TableError(Exception):
    """An organiser's or a player's table request refused: HTTP status, code, reason."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


def seat_code(game_code: str, seat: int) -> str:
    """The short code of ``seat`` (0-based) of the game with join code ``game_code``."""
    return f"{game_code}{seat + 1}"


def by_code(code: Any) -> tuple[Game, int | None]:
    """(game, seat) named by a join code: a game's code (seat None) or a seat's code (the
    game's code and the seat's number 1-8). Case-insensitive; NotFound for anything else."""
    ok = isinstance(code, str) and 0 < len(code) <= MAX_CODE and code.isalnum() and code.isascii()
    if ok:
        up = code.upper()
        g = Game.objects.filter(code=up).first()
        if g is not None:
            return g, None
        if len(up) > 1 and up[-1] in SEAT_DIGITS:
            g = Game.objects.filter(code=up[:-1]).first()
            if g is not None and int(up[-1]) <= g.num_seats:
                return g, int(up[-1]) - 1
    raise store.NotFound(f"no game or seat with code {shown(code, MAX_CODE)}")


def seat_qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (segno; error correction M, 2-module
    border, black on white, 8 px a module: sharp at any size the page scales it to)."""
    import segno

    qr = segno.make(url, error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=8, border=2, dark="#000", light="#fff", xmldecl=False)
    return out.getvalue().decode("utf-8")


def is_organiser(user: Any, g: Game) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or (g.created_by_id is not None and g.created_by_id == user.pk)


def _organiser_game(game_id: int, user: Any) -> Game:
    """The game row, locked for this transaction, when ``user`` organises it."""
    g = Game.objects.select_for_update().filter(pk=game_id).first()
    if g is None:
        raise store.NotFound(f"no game {game_id}")
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
            if conn.seat != seat:
                continue
            conn.push_text(text)
            conn.ready = False  # (later frames wait in its pending list and are never sent)
            conn.catching_up = True  # (and no catch-up starts for it either)
            task = asyncio.ensure_future(conn._close_after_sent(RELEASED_CLOSE))
            conn.release_task = task  # (keep a reference until it is done)

    loop.call_soon_threadsafe(on_loop)


def release(game_id: int, seat: Any, user: Any) -> dict[str, Any]:
    """The organiser frees ``seat`` for another phone: its credential (user or guest secret)
    stops holding it, its sockets are closed, the name stays, the seat code joins it."""
    seat = _seat_number(seat)
    with transaction.atomic():
        g = _organiser_game(game_id, user)
        row = _seat_row(g, seat)
        if row.kind == Seat.BOT:
            raise TableError(409, "bot_seat", f"seat {seat} is played by a bot")
        if not row.claimed:
            raise TableError(409, "open_seat", f"seat {seat} is open already")
        Seat.objects.filter(pk=row.pk).update(
            kind=Seat.OPEN, user=None, secret="", claimed=False
        )
        transaction.on_commit(lambda: _revoke_sockets(
            game_id, seat, "the organiser handed this seat to another phone"))
        transaction.on_commit(lambda: store._notify_seats(game_id))
    return {"game": game_id, "seat": seat, "code": seat_code(g.code, seat), "name": row.name}


def to_bot(game_id: int, seat: Any, level: Any, user: Any) -> dict[str, Any]:
    """The organiser hands ``seat`` to a bot of ``level`` (None: the kind's default): a
    ``seat_to_bot`` event (``by`` null) and the bot seat row, in one transaction. A player's
    seat keeps its user or guest on the row (see :func:`store.seat_replaced`)."""
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
                lvl = store.bot_level(g.kind, level)  # (OptionsError: 400)
                Seat.objects.filter(pk=row.pk).update(
                    kind=Seat.BOT, bot_level=lvl, claimed=True, name=row.name or f"Bot ({lvl})"
                )
                # (before the event's own on_commit: the bot runner must see the new bot seat)
                transaction.on_commit(lambda: BOTS.bot_seats.pop(game_id, None))
                e = store.entry(game_id, fresh=True)
                event = {"type": "seat_to_bot", "seat": seat, "by": None, "level": lvl}
                result = store.submit(game_id, 0, None, e.seq, pre=[(None, event)])
                others = Seat.objects.filter(game_id=game_id).exclude(pk=row.pk)
                if g.status == Game.OPEN and all(s.filled for s in others):
                    if Game.objects.filter(pk=game_id, status=Game.OPEN).update(
                        status=Game.LIVE
                    ):
                        store.start_running(game_id)
                transaction.on_commit(lambda: _revoke_sockets(
                    game_id, seat, "the organiser handed this seat to a bot"))
                transaction.on_commit(lambda: store._notify_seats(game_id))
                transaction.on_commit(lambda: SHARDS.submit(game_id, BOTS.kick, game_id))
            return {"game": game_id, "seat": seat, "level": lvl, "seq": result.seq}
        except store.StaleError:  # a move came in meanwhile: append after it
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
            and hmac.compare_digest(r.secret, store.hash_secret(secret))
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
            name = None if store.seat_replaced(r) else r.name
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
    e = store.entry(new.pk, fresh=True)
    order = store.seating([ev for _s, _seat, ev in e.log])
    return order.index(old_seat) if order and old_seat in order else old_seat


def rematch(game_id: int, user: Any, seat: Any, secret: Any) -> dict[str, Any]:
    """The rematch of a finished game (made by the first call, found by the next ones) and
    the caller's seat in it. Raises TableError / NotFound."""
    created = False
    with transaction.atomic():
        g = Game.objects.select_for_update().filter(pk=game_id).first()
        if g is None:
            raise store.NotFound(f"no game {game_id}")
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
            new = store.create_game(g.kind, g.options, _specs(g), created_by=g.created_by,
                                    table=rules)
            Game.objects.filter(pk=new.pk).update(rematch_of=g)
            Seat.objects.filter(game_id=new.pk, kind=Seat.GUEST).update(secret="")
            created = True
        where = _new_seat(new, held.number)
        new_secret: str | None = None
        if held.kind == Seat.GUEST:
            new_secret = _derived_secret(new.pk, held.number, str(secret))
            hashed = store.hash_secret(new_secret)
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
