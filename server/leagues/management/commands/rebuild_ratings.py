"""Recompute the rating history from scratch (from the finished games, in order)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from server.leagues import ratings
from server.leagues.models import Rating


class Command(BaseCommand):
    help = "Recompute every player's rating history from the finished games."

    def handle(self, *args: Any, **options: Any) -> None:
        t0 = time.perf_counter()
        games = ratings.rebuild()
        took = time.perf_counter() - t0
        self.stdout.write(
            f"rebuilt ratings: {games} finished games taken in, "
            f"{Rating.objects.count()} rating rows, {took:.2f} s"
        )
