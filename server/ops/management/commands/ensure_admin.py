"""``ensure_admin``: create the admin account once and print its login."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from server.ops.admin_account import ensure_admin, password_file


class Command(BaseCommand):
    help = "Create the admin superuser if missing (password kept in var/) and print the login."

    def handle(self, *args: Any, **options: Any) -> None:
        username, password, created = ensure_admin()
        if password is not None:
            verb = "created" if created else "exists"
            self.stdout.write(f"admin login ({verb}): username {username}  password {password}")
        else:
            self.stdout.write(
                f"admin login: username {username} already exists; its password was changed "
                f"since {password_file()} was written (reset: manage.py changepassword {username})"
            )
