"""Static files served by daphne itself (docs/web.md, "Static files")."""

from __future__ import annotations

import os
from typing import Any

from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFiles(WhiteNoiseMiddleware):
    """WhiteNoise (files from the apps' static folders, with caching headers), quiet about a
    STATIC_ROOT that ``collectstatic`` has not made yet: ``./gamenight serve`` makes it, a
    test or a development server does not need it."""

    def add_files(self, root: Any, prefix: Any = None) -> None:
        if root == self.static_root and not os.path.isdir(str(root)):
            return
        super().add_files(root, prefix)
