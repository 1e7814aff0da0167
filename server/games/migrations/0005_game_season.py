"""A game's season is an explicit link (``Game.season``), no longer its finish date.

Existing games are linked where the link is unambiguous: a fixture's game to the fixture's
season; another league game to the one season of its league whose dates contain the day it
finished (or, not finished, was created). A game whose day falls in two overlapping seasons,
or in none, stays unlinked (it counts in the all-time table; an organiser may link it)."""

from datetime import date

import django.db.models.deletion
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.utils import timezone


def link_seasons(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Game = apps.get_model("games", "Game")
    Season = apps.get_model("leagues", "Season")
    Fixture = apps.get_model("leagues", "Fixture")
    for game_id, season_id in Fixture.objects.filter(game__isnull=False).values_list(
        "game_id", "season_id"
    ):
        Game.objects.filter(pk=game_id).update(season_id=season_id)
    seasons: dict[int, list[tuple[int, date, date]]] = {}
    for pk, league_id, start, end in Season.objects.values_list("pk", "league_id", "start",
                                                                "end"):
        seasons.setdefault(league_id, []).append((pk, start, end))
    games = Game.objects.filter(league__isnull=False, season__isnull=True).values_list(
        "pk", "league_id", "finished_at", "created_at"
    )
    for pk, league_id, finished_at, created_at in games.iterator():
        day = timezone.localtime(finished_at or created_at).date()
        found = [s for s, start, end in seasons.get(league_id, []) if start <= day <= end]
        if len(found) == 1:
            Game.objects.filter(pk=pk).update(season_id=found[0])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_league_kind_choices"),
        ("leagues", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="season",
            field=models.ForeignKey(
                blank=True,
                help_text="the season the game counts in: its fixture's, or the one chosen "
                "when it was created (none: it counts in the league's all-time table only)",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="games",
                to="leagues.season",
            ),
        ),
        migrations.RunPython(link_seasons, migrations.RunPython.noop),
    ]
