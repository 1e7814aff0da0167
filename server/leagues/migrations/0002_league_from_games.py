"""League moves from the games app to this one, with every row where it is.

The model's state moves (``SeparateDatabaseAndState``): this app gets ``League`` with the
same fields, ``Season.league`` points to it, and ``games`` 0009 points ``Game.league`` to it
and drops its own. In the database nothing is copied: the tables are renamed,
``games_league`` to ``leagues_league`` and ``games_league_members`` to
``leagues_league_members`` (their rows, ids, constraints, and the foreign keys of games and
seasons to them stay as they are). The league's content type is relabelled, so the
permissions on leagues given to users and groups, and the admin's history of leagues, stay
with them."""

from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

KINDS = [("teeko", "Teeko"), ("tiku", "Tiku"), ("tedoku", "Tedoku"), ("teka", "Teka")]

RENAME = """
ALTER TABLE games_league RENAME TO leagues_league;
ALTER TABLE games_league_members RENAME TO leagues_league_members;
"""

RENAME_BACK = """
ALTER TABLE leagues_league_members RENAME TO games_league_members;
ALTER TABLE leagues_league RENAME TO games_league;
"""


def relabel(apps: StateApps, old: str, new: str) -> None:
    """The content type of the league model moves from app ``old`` to app ``new`` (unless
    ``new`` already has one)."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=new, model="league").exists():
        ContentType.objects.filter(app_label=old, model="league").update(app_label=new)


def forwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    relabel(apps, "games", "leagues")


def backwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    relabel(apps, "leagues", "games")


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0001_initial"),
        ("games", "0008_event_outcome"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(RENAME, RENAME_BACK)],
            state_operations=[
                migrations.CreateModel(
                    name="League",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("name", models.CharField(max_length=100, unique=True)),
                        (
                            "kind",
                            models.CharField(choices=KINDS, help_text="the game it plays",
                                             max_length=20),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "members",
                            models.ManyToManyField(
                                blank=True, related_name="leagues", to=settings.AUTH_USER_MODEL
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["name"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(kind__in=[k for k, _ in KINDS]),
                                name="league_kind",
                            )
                        ],
                    },
                ),
                migrations.AlterField(
                    model_name="season",
                    name="league",
                    field=models.ForeignKey(
                        on_delete=models.deletion.PROTECT, related_name="seasons",
                        to="leagues.league",
                    ),
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
