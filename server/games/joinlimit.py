"""How often one client address may join a seat or look a code up (docs/protocol.md,
"Private tables"): ``POST /api/join/``, ``POST /api/games/<id>/join/``,
``GET /api/codes/<code>/``, a QR code asked with ``?code=`` and the seat page
``/join/<code>/`` all count against one limit per address, ``GAMENIGHT["JOIN_RATE"]``
(``GAMENIGHT_JOIN_RATE``, default ``60/minute``: a phone joining takes two, a club behind
one address can seat a few tables a minute; a guesser gets 86,400 tries a day against
2^40 codes a seat).

Counted by the ``limits`` library (a moving window: no burst at a window's edge), in this
process's memory, or in Redis when ``REDIS_URL`` is set so that every daphne process of a
server counts the same requests. A request over the limit is answered 429 with
``Retry-After`` (seconds until the oldest counted request leaves the window) and a reason
that says the wait; it changes nothing.

The address is the connection's (``REMOTE_ADDR``), as daphne gives it: behind nginx the
client's, from ``X-Real-IP`` (``GAMENIGHT_BEHIND_PROXY``, docs/deploy.md).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, cast

from django.conf import settings
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from .dbpool import knob

DEFAULT_RATE = "60/minute"

_lock = threading.Lock()
_limiter: MovingWindowRateLimiter | None = None
_storage_url: str | None = None
_items: dict[str, RateLimitItem] = {}


class Limited(Exception):
    """A request over the limit: ``retry_after`` whole seconds to wait, and why."""

    def __init__(self, retry_after: int, reason: str) -> None:
        super().__init__(reason)
        self.retry_after, self.reason = retry_after, reason


def rate() -> str:
    """The limit in force, as ``limits`` reads it ("60/minute", "10 per 10 seconds")."""
    return str(knob("JOIN_RATE", DEFAULT_RATE) or DEFAULT_RATE)


def namespace() -> str:
    """The counts' names start with the server's Redis prefix (``GAMENIGHT_REDIS_PREFIX``):
    two servers sharing one Redis count their requests apart."""
    return f"{knob('REDIS_PREFIX', 'gamenight')}-join"


def _item(text: str) -> RateLimitItem:
    item = _items.get(text)
    if item is None:
        item = _items[text] = parse(text)
    return item


def _get_limiter() -> MovingWindowRateLimiter:
    global _limiter, _storage_url
    url = str(settings.REDIS_URL)
    with _lock:
        if _limiter is None or url != _storage_url:
            storage = cast(Storage, storage_from_string(url)) if url else MemoryStorage()
            _limiter, _storage_url = MovingWindowRateLimiter(storage), url
        return _limiter


def client_address(request: Any) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def hit(request: Any) -> None:
    """Count one join or code lookup of ``request``'s address; raises :class:`Limited` when
    the address is over the limit (the refused request is not counted)."""
    item = _item(rate())
    limiter = _get_limiter()
    addr = client_address(request)
    name = namespace()
    if limiter.hit(item, name, addr):
        return
    reset = limiter.get_window_stats(item, name, addr).reset_time
    wait = max(1, math.ceil(reset - time.time()))
    raise Limited(
        wait,
        f"too many joins and code lookups from this address ({item.amount} a "
        f"{_period(item)}): try again in {wait} s",
    )


def _period(item: RateLimitItem) -> str:
    n = item.multiples
    unit = type(item).__name__.removeprefix("RateLimitItemPer").lower()
    return unit if n == 1 else f"{n} {unit}s"


def reset() -> None:
    """Forget every count (tests)."""
    with _lock:
        if _limiter is not None:
            _limiter.storage.reset()
