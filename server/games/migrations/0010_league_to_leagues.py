"""League now lives in the leagues app (leagues 0002 moved its state and renamed its
tables): ``Game.league`` points to ``leagues.League`` and this app's ``League`` is dropped
from the state only. Nothing changes in the database here."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_event_version"),
        ("leagues", "0002_league_from_games"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="game",
                    name="league",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="games",
                        to="leagues.league",
                    ),
                ),
                migrations.DeleteModel(name="League"),
            ],
        ),
    ]
