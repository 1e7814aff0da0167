"""Verify the hash chain of games' event logs: ``verify_chain <game id>...`` or ``--all``;
``--against FILE`` also checks them against an export of ``export_chain_heads``."""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from server.games.chain import verify_chain
from server.games.models import Game


def read_export(path: Path) -> dict[int, tuple[int, str]]:
    """game id -> (events, head) from a JSON-lines export (blank lines skipped)."""
    out: dict[int, tuple[int, str]] = {}
    try:
        text = path.read_text()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            gid, events, head = rec["game"], rec["events"], rec["head"]
            if not (isinstance(gid, int) and isinstance(events, int) and events >= 1
                    and isinstance(head, str)):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise CommandError(f"{path}:{n}: not a line of export_chain_heads") from None
        out[gid] = (events, head)
    return out


class Command(BaseCommand):
    help = ("Recompute each event's hash from the rows, compare the log's end with the "
            "recorded chain head, and (--against) with an earlier export.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("games", nargs="*", type=int, help="game ids")
        parser.add_argument("--all", action="store_true", help="every game")
        parser.add_argument(
            "--against", type=Path, metavar="FILE",
            help="an export of export_chain_heads: each game in it must still have that "
                 "many events at least, the last of them with that hash (its games are "
                 "checked when no ids are given)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        ids = list(opts["games"])
        exported = read_export(opts["against"]) if opts["against"] else {}
        if opts["all"]:
            ids = list(Game.objects.order_by("id").values_list("id", flat=True))
        elif not ids:
            ids = sorted(exported)
        if not ids and not exported:
            raise CommandError("give game ids, --all or --against FILE")
        bad = 0
        for gid in sorted(set(ids) | set(exported)):
            if not Game.objects.filter(pk=gid).exists():
                if gid in exported:
                    bad += 1
                    self.stdout.write(f"game {gid}: MISSING (in the export, not in the database)")
                    continue
                raise CommandError(f"no game {gid}")
            report = verify_chain(gid)
            if not report.ok:
                bad += 1
                self.stdout.write(f"game {gid}: BROKEN at seq {report.bad_seq}: {report.reason}")
                continue
            if gid in exported:
                events, head = exported[gid]
                if report.events < events:
                    bad += 1
                    self.stdout.write(f"game {gid}: DIFFERS from the export: {events} events "
                                      f"exported, {report.events} now")
                    continue
                if not hmac.compare_digest(report.hashes[events - 1], head):
                    bad += 1
                    self.stdout.write(f"game {gid}: DIFFERS from the export: the hash of "
                                      f"event {events} is not the exported one")
                    continue
                self.stdout.write(f"game {gid}: ok ({report.events} events, the first "
                                  f"{events} as exported)")
            else:
                self.stdout.write(f"game {gid}: ok ({report.events} events)")
        if bad:
            raise CommandError(f"{bad} game(s) with a broken chain or differing from the export")
