"""Static files served by daphne itself (docs/web.md, "Static files")."""

from __future__ import annotations

import os
from typing import Any

from django.http import HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFiles(WhiteNoiseMiddleware):
    """WhiteNoise (files from the apps' static folders, with caching headers), quiet about a
    STATIC_ROOT that ``collectstatic`` has not made yet: ``./gamenight serve`` makes it, a
    test or a development server does not need it.

    Files are answered whole, not streamed: they are small (the largest, the admin's, some
    tens of KB), and under ASGI Django would read WhiteNoise's file iterator in a thread and
    warn for every file ("StreamingHttpResponse must consume synchronous iterators")."""

    def serve(self, static_file: Any, request: Any) -> Any:
        resp = super().serve(static_file, request)
        if not getattr(resp, "streaming", False):
            return resp
        try:
            body = b"".join(resp.streaming_content)
        finally:
            resp.close()
        out = HttpResponse(body, status=resp.status_code)
        for key, value in resp.items():
            out[key] = value
        return out

    def add_files(self, root: Any, prefix: Any = None) -> None:
        if root == self.static_root and not os.path.isdir(str(root)):
            return
        super().add_files(root, prefix)
