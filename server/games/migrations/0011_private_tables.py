"""Private tables: ``Game.public`` (listed to everyone only when its organiser
opens it; existing games are private too) and ``Seat.code``, each seat's own random join
code. The old seat codes (the game's code and the seat's number) were published by the
public list of tables, so every existing seat gets a fresh random code here."""

import secrets

from django.db import migrations, models

import server.games.models

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def give_codes(apps, schema_editor):  # type: ignore[no-untyped-def]
    Seat = apps.get_model("games", "Seat")
    used: set[str] = set()
    batch = []
    for seat in Seat.objects.only("pk").order_by("pk").iterator(chunk_size=2000):
        code = ""
        while not code or code in used:
            code = "".join(secrets.choice(ALPHABET) for _ in range(8))
        used.add(code)
        seat.code = code
        batch.append(seat)
        if len(batch) >= 2000:
            Seat.objects.bulk_update(batch, ["code"])
            batch = []
    if batch:
        Seat.objects.bulk_update(batch, ["code"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_league_to_leagues"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="public",
            field=models.BooleanField(
                default=False,
                help_text="listed publicly (anyone may see it in the lists and take an open "
                "seat by id); private tables are joined with a seat code only",
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="code",
            field=models.CharField(max_length=16, null=True),
        ),
        migrations.RunPython(give_codes, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="seat",
            name="code",
            field=models.CharField(
                default=server.games.models.new_seat_code, max_length=16, unique=True
            ),
        ),
    ]
