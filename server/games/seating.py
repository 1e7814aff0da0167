"""Players taking their seats: :func:`join_seat` (a user or a guest takes an open seat;
the last seat taken starts the table's clocks, :func:`start_running`), who holds a seat
(:func:`seat_holder_ok`, :func:`user_for_token`), and a seat handed to a bot
(:func:`seat_replaced`). The listeners hear of each change (:func:`.listeners.notify_seats`).
"""

from __future__ import annotations

import hmac
import secrets as _secrets
from typing import Any

from django.db import transaction

from . import tablerules
from .append import StaleError, submit
from .cache import NotFound, entry
from .creating import display_name, hash_secret, seat_name
from .inputs import shown
from .listeners import notify_seats
from .models import Game, Seat


class JoinError(ValueError):
    """A seat cannot be taken (taken, none open, the game over...): the reason for people."""


def table_seat(game: Game, place: Any) -> int:
    """The table seat of lobby ``place`` in a game just made by :func:`create_game` (the
    same number unless the start drew for seats). Raises JoinError."""
    if not isinstance(place, int) or isinstance(place, bool):
        raise JoinError("seat must be an integer")
    if not 0 <= place < game.num_seats:
        raise JoinError(f"no seat {place} at this table")
    order = getattr(game, "seating", None)
    return order.index(place) if order and place in order else place


def start_running(game_id: int) -> None:
    """(inside the transaction that took the last seat, the game row locked) when the table
    has time rules, append them again with ``running: true``; clocks start here."""
    e = entry(game_id, fresh=True)
    rules = tablerules.rules_in(e.log)
    if rules is None or rules.get("running"):
        return
    ev = {**rules, "running": True}
    for _ in range(10):
        try:
            with transaction.atomic():
                submit(game_id, 0, None, e.seq, pre=[(None, ev)])
            return
        except StaleError:  # a move came in meanwhile (the first seat may move)
            e = entry(game_id, fresh=True)
    raise JoinError("the game kept moving while the last seat was taken: try again")


def join_seat(
    game_id: int, seat: int | None = None, user: Any = None, name: str | None = None,
    code: str | None = None,
) -> tuple[int, str | None]:
    """Take an open seat (or the given one) as ``user`` or as a guest called ``name``.
    Returns (seat number, guest secret or None). A user who already holds a seat (the asked
    one, or any when none is asked) gets it back. ``code``: the seat's code the caller gave
    (checked again under the game's lock: a seat released meanwhile has a new one). Raises
    JoinError / NotFound."""
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise JoinError("seat must be an integer")
    authed = user is not None and getattr(user, "is_authenticated", False)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise NotFound(f"no game {game_id}")
        if game.status == Game.FINISHED:
            raise JoinError("the game is over")
        seats = list(game.seat_set.all())
        if code is not None and not any(s.number == seat and s.code == code for s in seats):
            raise NotFound(f"no seat with code {shown(code)}")
        if authed:
            mine = [
                s
                for s in seats
                if s.user_id == user.pk
                and s.kind != Seat.BOT  # (a seat handed to a bot is not theirs any more)
                and (seat is None or s.number == seat)
            ]
            if mine:
                return mine[0].number, None
            if game.league_id is not None and any(
                    s.user_id == user.pk and s.kind == Seat.USER for s in seats):
                raise JoinError("a player sits at one seat of a league game")
        free = [s for s in seats if s.kind == Seat.OPEN and not s.claimed]
        if seat is not None:
            if not 0 <= seat < len(seats):
                raise JoinError(f"no seat {seat} at this table")
            free = [s for s in free if s.number == seat]
            if not free:
                raise JoinError(f"seat {seat} is taken")
        if not free:
            raise JoinError("no open seat")
        s = free[0]
        secret: str | None = None
        if authed:
            s.kind, s.user, s.name = Seat.USER, user, display_name(user)
        else:
            # (a seat handed to another phone keeps its player's name: see tables.release)
            guest = seat_name(name, s.name or f"Guest {s.number + 1}", JoinError)
            secret = _secrets.token_urlsafe(16)
            s.kind, s.name, s.secret = Seat.GUEST, guest, hash_secret(secret)
        s.claimed = True
        s.save()
        if all(x.filled for x in seats):
            if Game.objects.filter(pk=game_id, status=Game.OPEN).update(status=Game.LIVE):
                start_running(game_id)
        transaction.on_commit(lambda: notify_seats(game_id))
        return s.number, secret


def seat_replaced(s: Seat) -> bool:
    """Whether a bot seat was a player's, handed to a bot when they left (``seat_to_bot``):
    its user or guest secret stays on the row."""
    return s.kind == Seat.BOT and (s.user_id is not None or bool(s.secret))


def seat_holder_ok(game_id: int, seat: int, user: Any = None, secret: str | None = None) -> bool:
    """Whether these credentials hold ``seat`` (a user seat: that user; a guest seat: its
    secret). Bot seats are never held by a client."""
    s = Seat.objects.filter(game_id=game_id, number=seat).first()
    if s is None or s.kind == Seat.BOT or not s.claimed:
        return False
    if s.kind == Seat.USER:
        return (
            user is not None and getattr(user, "is_authenticated", False) and s.user_id == user.pk
        )
    if s.kind == Seat.GUEST:
        return (
            isinstance(secret, str)
            and bool(s.secret)
            and hmac.compare_digest(s.secret, hash_secret(secret))
        )
    return False


def user_for_token(key: Any, request: Any = None) -> Any:
    """The user of an API token, or None (:func:`server.games.accounts.user_for_token`:
    tokens are stored hashed, and each use is noted)."""
    from .accounts import user_for_token

    return user_for_token(key, request)
