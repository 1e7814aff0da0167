"""The settings mypy's Django plugin loads (``[tool.django-stubs]`` in pyproject.toml): the
server's own, read with a database URL that is never connected to and a fixed secret key,
so a type check starts no PostgreSQL and writes no ``var/secret-key.txt``. Never served."""

import os

os.environ.setdefault("DATABASE_URL", "postgresql://typecheck@127.0.0.1:9/typecheck")
os.environ.setdefault("DJANGO_SECRET_KEY", "typecheck")

from server.settings import *  # noqa: F403
