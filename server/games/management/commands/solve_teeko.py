"""``solve_teeko``: build (or check) the solved Teeko table of a pattern set under var/teeko/.

The same as ``./gamenight solve teeko``; the options pass through to
:func:`core.teeko_solve.main`.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Solve Teeko by retrograde analysis into var/teeko/<squares>.tbl (progress on stderr); "
        "'check' verifies a built table, 'info' prints its figures."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", nargs="?", choices=("build", "check", "info"),
                            default="build")
        parser.add_argument("--squares", choices=("axis", "tilted", "classic"), default="axis")
        parser.add_argument("--force", action="store_true", help="rebuild an existing table")
        parser.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            from core.teeko_solve import main
        except ImportError as exc:  # numpy missing
            raise CommandError(f"the solver needs numpy ({exc}); pip install numpy") from exc
        argv = [options["action"], "--squares", options["squares"]]
        if options["force"]:
            argv.append("--force")
        if options["quiet"]:
            argv.append("--quiet")
        code = main(argv)
        if code:
            raise CommandError(f"solve_teeko {' '.join(argv)} failed (exit code {code})")
