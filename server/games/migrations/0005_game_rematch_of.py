"""Game.rematch_of: the finished game a game is the rematch of (one rematch per game)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0004_league_kind_choices")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="rematch_of",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="rematch",
                to="games.game",
            ),
        ),
    ]
