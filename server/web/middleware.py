"""Static files served by daphne itself (docs/web.md, "Static files")."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path
from typing import Any
from wsgiref.headers import Headers

from django.conf import settings
from django.http import HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.responders import StaticFile

COMPRESSIBLE = (".js", ".css", ".svg", ".json", ".html", ".txt", ".map", ".webmanifest")
"""Files worth compressing (text); images and fonts are compressed already."""


class StaticFiles(WhiteNoiseMiddleware):
    """WhiteNoise (files from the apps' static folders, with caching headers), quiet about a
    STATIC_ROOT that ``collectstatic`` has not made yet: ``./gamenight serve`` makes it, a
    test or a development server does not need it.

    Files are answered whole, not streamed: they are small (the largest, the admin's, some
    tens of KB), and under ASGI Django would read WhiteNoise's file iterator in a thread and
    warn for every file ("StreamingHttpResponse must consume synchronous iterators").

    Text files are sent gzipped to a browser that takes gzip: the copy ``collectstatic``
    made beside the file (``CompressedStaticFilesStorage``), else one made here once, in
    ``var/static-gz/`` (named by the file's path, size and time: a changed file is a new
    copy), when that is smaller."""

    def get_static_file(self, path: Any, url: Any, stat_cache: Any = None) -> Any:
        gz = None
        if str(path).endswith(COMPRESSIBLE) and not os.path.exists(f"{path}.gz"):
            gz = gzip_copy(str(path))
        if gz is None:
            return super().get_static_file(path, url, stat_cache)
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        self.add_cache_headers(headers, path, url)
        if self.allow_all_origins:
            headers["Access-Control-Allow-Origin"] = "*"
        if self.add_headers_function is not None:
            self.add_headers_function(headers, path, url)
        return StaticFile(path, headers.items(), encodings={"gzip": gz})

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


def gzip_copy(path: str) -> str | None:
    """A gzip copy of the file at ``path`` in ``var/static-gz/`` (made now if missing), or
    None when compressing saves little or the copy cannot be written."""
    try:
        st = os.stat(path)
        if st.st_size < 256:
            return None
        key = hashlib.sha256(f"{path}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()
        folder = Path(settings.VAR_DIR) / "static-gz"
        out = folder / f"{key[:32]}.gz"
        if out.exists():
            return str(out)
        data = Path(path).read_bytes()
        packed = gzip.compress(data, compresslevel=9, mtime=0)
        if len(packed) > 0.9 * len(data):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{key[:32]}.{os.getpid()}"
        tmp.write_bytes(packed)
        os.replace(tmp, out)
        return str(out)
    except OSError:
        return None
