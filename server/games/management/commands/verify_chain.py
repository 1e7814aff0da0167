"""Verify the hash chain of games' event logs: ``verify_chain <game id>...`` or ``--all``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from server.games.models import Game
from server.games.store import verify_chain


class Command(BaseCommand):
    help = "Recompute each event's hash from the rows and report the first edited event."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("games", nargs="*", type=int, help="game ids")
        parser.add_argument("--all", action="store_true", help="every game")

    def handle(self, *args: Any, **opts: Any) -> None:
        ids = list(opts["games"])
        if opts["all"]:
            ids = list(Game.objects.order_by("id").values_list("id", flat=True))
        if not ids:
            raise CommandError("give game ids or --all")
        bad = 0
        for gid in ids:
            if not Game.objects.filter(pk=gid).exists():
                raise CommandError(f"no game {gid}")
            report = verify_chain(gid)
            if report.ok:
                self.stdout.write(f"game {gid}: ok ({report.events} events)")
            else:
                bad += 1
                self.stdout.write(f"game {gid}: BROKEN at seq {report.bad_seq}: {report.reason}")
        if bad:
            raise CommandError(f"{bad} game(s) with a broken chain")
