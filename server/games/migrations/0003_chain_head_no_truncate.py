"""TRUNCATE of the event log refused by a trigger; each game's chain head kept outside it.

* ``games_event_no_truncate``: BEFORE TRUNCATE (statement level) on ``games_event`` raises,
  like the row trigger of 0002 does for UPDATE and DELETE. TRUNCATE fires no row trigger.
* ``games_chainhead`` (game, events, head): one row per game, the count of its events and the
  hash of the last one. ``games_chainhead_advance``, a SECURITY DEFINER function of the owner
  run BEFORE INSERT of each event row, moves the head: seq 1 creates the row, seq n needs the
  head at n - 1 (else the insert fails with unique_violation, like a stale append). The
  server's role has SELECT only on the table (server/games/grants.py), so it writes the head
  only by appending an event.
* ``games_chainhead_guard``: INSERT, UPDATE, DELETE and TRUNCATE of ``games_chainhead`` are
  refused unless they come from the event trigger (``pg_trigger_depth() > 1``).

Existing games get their head from their last event (before the guard exists).
"""

import django.db.models.deletion
from django.db import migrations, models

FORWARD = """
CREATE OR REPLACE FUNCTION games_event_no_truncate() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: TRUNCATE refused', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
CREATE TRIGGER games_event_no_truncate
    BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_no_truncate();

INSERT INTO games_chainhead (game_id, events, head)
    SELECT DISTINCT ON (game_id) game_id, seq, hash FROM games_event
    ORDER BY game_id, seq DESC;

CREATE OR REPLACE FUNCTION games_chainhead_advance() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF NEW.seq = 1 THEN
        INSERT INTO games_chainhead (game_id, events, head) VALUES (NEW.game_id, 1, NEW.hash);
    ELSE
        UPDATE games_chainhead SET events = NEW.seq, head = NEW.hash
            WHERE game_id = NEW.game_id AND events = NEW.seq - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'event % of game % does not follow its chain head', NEW.seq,
                NEW.game_id USING ERRCODE = 'unique_violation';
        END IF;
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS games_event_chain_head ON games_event;
CREATE TRIGGER games_event_chain_head
    BEFORE INSERT ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_chainhead_advance();

CREATE OR REPLACE FUNCTION games_chainhead_guard() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') OR pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'games_chainhead is written only by appending to games_event: % refused',
            TG_OP USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_chainhead_guard ON games_chainhead;
CREATE TRIGGER games_chainhead_guard
    BEFORE INSERT OR UPDATE OR DELETE ON games_chainhead
    FOR EACH ROW EXECUTE FUNCTION games_chainhead_guard();
DROP TRIGGER IF EXISTS games_chainhead_no_truncate ON games_chainhead;
CREATE TRIGGER games_chainhead_no_truncate
    BEFORE TRUNCATE ON games_chainhead
    FOR EACH STATEMENT EXECUTE FUNCTION games_chainhead_guard();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_chainhead_no_truncate ON games_chainhead;
DROP TRIGGER IF EXISTS games_chainhead_guard ON games_chainhead;
DROP FUNCTION IF EXISTS games_chainhead_guard();
DROP TRIGGER IF EXISTS games_event_chain_head ON games_event;
DROP FUNCTION IF EXISTS games_chainhead_advance();
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP FUNCTION IF EXISTS games_event_no_truncate();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0002_event_append_only")]

    operations = [
        migrations.CreateModel(
            name="ChainHead",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="chain_head",
                        serialize=False,
                        to="games.game",
                    ),
                ),
                ("events", models.PositiveIntegerField()),
                ("head", models.CharField(max_length=64)),
            ],
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
