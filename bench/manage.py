"""A Django management command of bench/ run against the server's settings.

    python -m bench.manage club [--players 200] [--games 20000] [--requests 60] [--force]

bench/ is no Django app (it is not in INSTALLED_APPS), so its commands are not
``manage.py`` commands: this sets Django up with ``server.settings`` (or
``DJANGO_SETTINGS_MODULE``) and runs the command class of the named module.
"""

from __future__ import annotations

import importlib
import os
import sys

COMMANDS = {"club": "bench.club"}
"""Command name -> the module holding its ``Command`` class."""


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        asked = argv[:1] in (["-h"], ["--help"])
        print(f"usage: python -m bench.manage {{{','.join(COMMANDS)}}} [options]\n\n"
              f"{__doc__}", file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    import django

    django.setup()
    command = importlib.import_module(COMMANDS[argv[0]]).Command()
    command.run_from_argv(["bench.manage", *argv])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
