"""Every event carries the schema version of its game's events (``core.upcast``).

``games_event.version`` (smallint, NOT NULL, from 1, no default): every INSERT names it, so
no writer can forget it. Existing rows, all written in the first format, get version 1 from
the ADD COLUMN itself (a default PostgreSQL fills in without rewriting or updating a row:
the append-only triggers of 0002 and 0003 do not fire, and need no change); the default is
dropped in the same migration.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0008_event_outcome")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="version",
            field=models.PositiveSmallIntegerField(default=1),
            preserve_default=False,
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(version__gte=1), name="event_version_from_1"
            ),
        ),
    ]
