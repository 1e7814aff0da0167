"""Invite links to a league (``leagues_invite``); two more kinds of record."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

import server.leagues.models


class Migration(migrations.Migration):
    dependencies = [("leagues", "0004_season_life")]

    operations = [
        migrations.CreateModel(
            name="Invite",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("code", models.CharField(default=server.leagues.models.new_invite_code,
                                          editable=False, max_length=32, unique=True)),
                ("created_by", models.CharField(blank=True, editable=False, max_length=150)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now,
                                                    editable=False)),
                ("revoked", models.BooleanField(default=False, editable=False)),
                ("uses", models.PositiveIntegerField(default=0, editable=False)),
                ("league", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                             related_name="invites", to="leagues.league")),
            ],
        ),
        migrations.AlterField(
            model_name="clubevent",
            name="action",
            field=models.CharField(choices=[
                ("decided", "result decided"),
                ("signed_up", "signed up with an invite"),
                ("invite_revoked", "invite link revoked"),
                ("start", "season started"), ("close", "season closed"),
                ("reopen", "season reopened"), ("enter", "late entry"),
                ("withdraw", "withdrawal"),
                ("override", "round made before the last was played"),
                ("member_added", "member added"), ("member_removed", "member removed")],
                max_length=16),
        ),
    ]
