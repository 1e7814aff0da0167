"""League.kind is a game of the core's registry (``core.GAMES``, plug-ins included).

The choices are read from the registry when a form is shown (``models.kind_choices``), not
frozen here; the database keeps the kind a game's name, a lower-case word (the registry is
the processes' configuration, ``GAMENIGHT_GAMES``, which a constraint cannot see)."""

from django.db import migrations, models

import server.games.models


class Migration(migrations.Migration):
    dependencies = [("leagues", "0002_league_from_games")]

    operations = [
        migrations.AlterField(
            model_name="league",
            name="kind",
            field=models.CharField(
                choices=server.games.models.kind_choices,
                help_text="the game it plays",
                max_length=20,
            ),
        ),
        migrations.RemoveConstraint(model_name="league", name="league_kind"),
        migrations.AddConstraint(
            model_name="league",
            constraint=models.CheckConstraint(
                condition=models.Q(kind__regex="^[a-z][a-z0-9_]{0,19}$"), name="league_kind"
            ),
        ),
    ]
