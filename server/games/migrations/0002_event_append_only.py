"""The event log is append-only: the database itself refuses UPDATE and DELETE on it."""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_event is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_event_no_update_delete ON games_event;
CREATE TRIGGER games_event_no_update_delete
    BEFORE UPDATE OR DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_event_no_update_delete ON games_event;
DROP FUNCTION IF EXISTS games_event_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
