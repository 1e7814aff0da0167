"""League.kind is one of the four game kinds (a choice, and a CHECK constraint).

Existing leagues with any other kind are mended first: a kind written in another case or
with spaces is normalised; otherwise the kind its games are played in (the most common);
otherwise ``teeko``."""

from collections import Counter

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

KINDS = ["teeko", "tiku", "tedoku", "teka"]


def mend_kinds(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    League = apps.get_model("games", "League")
    Game = apps.get_model("games", "Game")
    for league in League.objects.exclude(kind__in=KINDS):
        kind = league.kind.strip().lower()
        if kind not in KINDS:
            played = Counter(Game.objects.filter(league=league).values_list("kind", flat=True))
            kind = next((k for k, _ in played.most_common() if k in KINDS), "teeko")
        league.kind = kind
        league.save(update_fields=["kind"])


class Migration(migrations.Migration):
    dependencies = [("games", "0003_chain_head_no_truncate")]

    operations = [
        migrations.RunPython(mend_kinds, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="league",
            name="kind",
            field=models.CharField(
                choices=[("teeko", "Teeko"), ("tiku", "Tiku"), ("tedoku", "Tedoku"),
                         ("teka", "Teka")],
                help_text="the game it plays",
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="league",
            constraint=models.CheckConstraint(
                condition=models.Q(kind__in=KINDS), name="league_kind"
            ),
        ),
    ]
