"""``load_demo``: the demo leagues, players and recorded matches from seeds/ (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from server.ops.demo import load_demo


class Command(BaseCommand):
    help = "Load the demo leagues, players and recorded matches from seeds/ (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        load_demo(log=lambda msg: self.stdout.write(msg) if options["verbosity"] else None)
