"""ASGI entry point: HTTP (Django) and WebSockets (Channels).

Run: ``daphne server.asgi:application``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")

from django.core.asgi import get_asgi_application

# Static files (the admin's CSS, the web pages' modules) are served by daphne itself through
# WhiteNoise's middleware (settings.py), so `./gamenight serve` needs no web server; behind
# nginx, /static/ is served from STATIC_ROOT first (deploy/).
django_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from server.games.clocks import TIMEKEEPER  # noqa: E402


class _OriginCheck:
    """A browser's socket (it sends ``Origin``) must come from a page of an allowed host
    (``ALLOWED_HOSTS``); the app and other programs send no ``Origin`` and are let through
    (an Origin check guards browsers against other sites' pages, it is no authentication)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.checked = AllowedHostsOriginValidator(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if not any(k == b"origin" for k, _v in scope.get("headers", [])):
            return await self.inner(scope, receive, send)
        return await self.checked(scope, receive, send)
from server import transport  # noqa: E402
from server.games.consumers import too_large_frame  # noqa: E402
from server.games.dbpool import knob  # noqa: E402
from server.games.routing import websocket_urlpatterns  # noqa: E402
from server.games.runtime import HUB  # noqa: E402

try:  # under daphne: oversize frames and close codes as docs/protocol.md says
    transport.install(max_frame=lambda: int(knob("MAX_FRAME", 65536)), too_large=too_large_frame)
    # a stop ends the process within about twice GAMENIGHT_STOP_GRACE seconds
    transport.install_stop(grace=lambda: float(knob("STOP_GRACE", 3)))
except ImportError:  # another ASGI server
    pass

if "daphne" in os.path.basename(os.path.dirname(sys.argv[0])) + os.path.basename(sys.argv[0]):
    # Served by daphne: the table clocks run from the start (deadlines re-armed from the
    # log), not only from the first request. (Imported elsewhere, e.g. by tests: on the
    # first request, below.)
    TIMEKEEPER.start()
    from server.games import analysis_jobs

    # League matches analysed as they finish; matches left queued taken up (docs/protocol.md).
    analysis_jobs.serve()

router = ProtocolTypeRouter(
    {
        "http": django_app,
        "websocket": _OriginCheck(URLRouter(websocket_urlpatterns)),
    }
)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Records the event loop (commits made in worker threads hand frames to it) and starts
    the table clocks (their deadlines re-armed from the log) with the first request."""
    HUB.set_loop(asyncio.get_running_loop())
    if TIMEKEEPER.thread is None:
        TIMEKEEPER.start()
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await router(scope, receive, send)
