"""A season's life and the club's record.

* ``Season.state`` (draft, running, closed): seasons that already have fixtures are
  running, the others draft; ``Season.fixtures_only`` (default true).
* ``leagues_clubevent``: the organisers' actions on a league's record, append-only: UPDATE,
  DELETE (row trigger) and TRUNCATE (statement trigger) refused.
"""

import django.utils.timezone
from django.db import migrations, models

FORWARD = """
UPDATE leagues_season s SET state = 'running'
    WHERE EXISTS (SELECT 1 FROM leagues_fixture f WHERE f.season_id = s.id);

CREATE OR REPLACE FUNCTION leagues_clubevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'leagues_clubevent is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS leagues_clubevent_no_update_delete ON leagues_clubevent;
CREATE TRIGGER leagues_clubevent_no_update_delete
    BEFORE UPDATE OR DELETE ON leagues_clubevent
    FOR EACH ROW EXECUTE FUNCTION leagues_clubevent_append_only();

DROP TRIGGER IF EXISTS leagues_clubevent_no_truncate ON leagues_clubevent;
CREATE TRIGGER leagues_clubevent_no_truncate
    BEFORE TRUNCATE ON leagues_clubevent
    FOR EACH STATEMENT EXECUTE FUNCTION leagues_clubevent_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS leagues_clubevent_no_truncate ON leagues_clubevent;
DROP TRIGGER IF EXISTS leagues_clubevent_no_update_delete ON leagues_clubevent;
DROP FUNCTION IF EXISTS leagues_clubevent_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("leagues", "0003_league_kind_registry")]

    operations = [
        migrations.AddField(
            model_name="season",
            name="state",
            field=models.CharField(
                choices=[("draft", "draft: not started"), ("running", "running"),
                         ("closed", "closed: its table is final")],
                default="draft", editable=False, max_length=8,
                help_text="changed only by the organiser's actions on record (start with the "
                "first round, close, reopen): the league's history lists them"),
        ),
        migrations.AddField(
            model_name="season",
            name="fixtures_only",
            field=models.BooleanField(
                default=True,
                help_text="once it has fixtures, only its fixtures count in its table; other "
                "games between members naming it are casual and say so"),
        ),
        migrations.CreateModel(
            name="ClubEvent",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("by", models.CharField(blank=True, max_length=150)),
                ("action", models.CharField(choices=[
                    ("start", "season started"), ("close", "season closed"),
                    ("reopen", "season reopened"), ("enter", "late entry"),
                    ("withdraw", "withdrawal"),
                    ("override", "round made before the last was played"),
                    ("member_added", "member added"), ("member_removed", "member removed")],
                    max_length=16)),
                ("why", models.TextField(blank=True, max_length=500)),
                ("data", models.JSONField(blank=True, default=dict)),
                ("league", models.ForeignKey(on_delete=models.deletion.DO_NOTHING,
                                             related_name="record", to="leagues.league")),
                ("season", models.ForeignKey(blank=True, null=True,
                                             on_delete=models.deletion.DO_NOTHING,
                                             related_name="record", to="leagues.season")),
            ],
            options={"ordering": ["league", "id"]},
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
