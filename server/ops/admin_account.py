"""The admin account of a gamenight server: created once, its password kept under ``var/``.

The password is generated on first use and stored in ``var/admin-password.txt`` (mode 600) so
every later ``./gamenight serve`` prints the same login. ``GAMENIGHT_ADMIN_USER`` (default
``admin``) and ``GAMENIGHT_ADMIN_PASSWORD`` (used instead of a generated one when the account is
created) override.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings


def var_dir() -> Path:
    path = Path(settings.VAR_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def password_file() -> Path:
    return var_dir() / "admin-password.txt"


def stored_password() -> str | None:
    try:
        text = password_file().read_text().strip()
    except FileNotFoundError:
        return None
    return text or None


def _store(password: str) -> None:
    path = password_file()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password + "\n")


def ensure_admin() -> tuple[str, str | None, bool]:
    """(username, password or None when unknown, created now?)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    from server.games.dbpool import knob

    username = str(knob("ADMIN_USER", "admin") or "admin")
    user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
    if user is not None:
        password = stored_password()
        if password is not None and not user.check_password(password):
            password = None  # changed since: we no longer know it
        return username, password, False
    password = (str(knob("ADMIN_PASSWORD", "")) or stored_password()
                or secrets.token_urlsafe(12))
    User.objects.create_superuser(username=username, email="", password=password)
    _store(password)
    return username, password, True
