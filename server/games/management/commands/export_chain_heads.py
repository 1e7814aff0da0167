"""Write each game's chain head (id, event count, hash of the last event) as JSON lines.

    export_chain_heads [--output FILE] [--live] [game ids...]   (default: every finished game)

One line a game, e.g. ``{"events":41,"game":7,"head":"9f2c..."}``. Only games whose chain
verifies are written (a broken one is reported and the command fails after writing the
others). Live games only with ``--live``: a live game's head lets whoever has the file test
guesses of its hidden events (like ``/verify/``, which gives no head for a live game), so
such a file stays with the operator until those games are over.

Keep the file away from the database (print it, mail it, put it in the club's archive):
``verify_chain --against FILE`` later checks that every exported game still begins with
exactly those events, which nobody who can rewrite the database can fake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.api import dumps
from server.games.chain import verify_chain
from server.games.models import Game


class Command(BaseCommand):
    help = "Write each game's id, event count and head hash as JSON lines (for safe keeping)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("games", nargs="*", type=int, help="game ids (default: every game)")
        parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                            help="write here instead of standard output")
        parser.add_argument("--live", action="store_true",
                            help="also games not finished yet (keep such a file private)")

    def handle(self, *args: Any, **opts: Any) -> None:
        games = Game.objects.order_by("id")
        if not opts["live"]:
            games = games.filter(status=Game.FINISHED)
        if opts["games"]:
            games = games.filter(pk__in=opts["games"])
            missing = set(opts["games"]) - set(Game.objects.filter(
                pk__in=opts["games"]).values_list("id", flat=True))
            if missing:
                raise CommandError(f"no game {min(missing)}")
        ids = list(games.values_list("id", flat=True))
        lines: list[str] = []
        broken: list[int] = []
        for gid in ids:
            report = verify_chain(gid)
            if not report.ok:
                broken.append(gid)
                self.stderr.write(f"game {gid}: BROKEN at seq {report.bad_seq}: "
                                  f"{report.reason} (not exported)")
            elif report.events:
                lines.append(dumps({"game": gid, "events": report.events, "head": report.head}))
        text = "".join(line + "\n" for line in lines)
        if opts["output"]:
            opts["output"].write_text(text)
            self.stderr.write(f"{len(lines)} game(s) written to {opts['output']}")
        else:
            self.stdout.write(text, ending="")
        if broken:
            raise CommandError(f"{len(broken)} game(s) with a broken chain not exported")
