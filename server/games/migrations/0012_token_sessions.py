"""Logins as sessions: a token is stored as the SHA-256 of its key (``digest``),
never the key itself, so a copy of the database gives no working credential; each login
says its kind (an API token or a browser's session), the program and address it came from,
when it was last used and when it expires.

The key was the primary key, so the table is made anew: ``games_tokensession`` is created,
every existing token copied into it hashed (still valid until its old expiry, 30 days after
it was made or ``GAMENIGHT_TOKEN_DAYS``), the old table dropped, and the new one renamed to
``games_token``."""

import datetime as dt
import hashlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def copy_hashed(apps, schema_editor):  # type: ignore[no-untyped-def]
    Old = apps.get_model("games", "Token")
    New = apps.get_model("games", "TokenSession")
    days = float(settings.API_TOKEN_DAYS)
    New.objects.bulk_create(
        [
            New(
                digest=hashlib.sha256(t.key.encode("utf-8", "surrogatepass")).hexdigest(),
                user_id=t.user_id,
                kind="api",
                created_at=t.created_at,
                expires_at=t.created_at + dt.timedelta(days=days),
                client="(made before sessions were recorded)",
            )
            for t in Old.objects.all().iterator()
        ],
        batch_size=1000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_private_tables"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="TokenSession",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("digest", models.CharField(editable=False, max_length=64, unique=True)),
                ("kind", models.CharField(choices=[("api", "app or script (API token)"),
                                                   ("browser", "browser")],
                                          default="api", max_length=8)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                ("expires_at", models.DateTimeField(db_index=True)),
                ("client", models.CharField(blank=True, help_text="the program that logged in, "
                                            "in words (from its User-Agent)", max_length=120)),
                ("address", models.CharField(blank=True, help_text="the address it logged in "
                                             "from", max_length=64)),
                ("last_address", models.CharField(blank=True, help_text="the address it was "
                                                  "last used from", max_length=64)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["-created_at"]},
        ),
        migrations.RunPython(copy_hashed, migrations.RunPython.noop),
        migrations.DeleteModel(name="Token"),
        migrations.RenameModel(old_name="TokenSession", new_name="Token"),
        migrations.AlterField(
            model_name="token",
            name="user",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                    related_name="tokens", to=settings.AUTH_USER_MODEL),
        ),
    ]
