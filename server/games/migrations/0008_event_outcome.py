"""The stored outcome is the log's: the event that ends a game carries its outcome.

* ``games_event.outcome`` (jsonb, NULL): set on the last event of the batch that ends a game,
  to the outcome of the log's fold at that event; NULL on every other event. It is written
  with the event (append-only like the rest of the row) and is not part of the chain hash:
  it is derived from the hashed events, and ``/verify/`` recomputes it from them.
* ``games_game_outcome_from_log``: BEFORE UPDATE of a game, its first outcome is refused
  unless the game's last event (at its chain head) carries an outcome equal to it. So the
  server's role can no longer write an outcome its log does not end with: the end must be
  appended first, where it stays.
* ``games_event_outcome_applied``: a DEFERRABLE constraint trigger, checked at commit for
  each event that carries an outcome: it is still its game's last event and the game is
  finished with that very outcome. An end in the log that the game row does not show (or an
  event after the end, in the same transaction) is refused with the whole transaction.

Existing finished games get the outcome on their last event from the game row, with the
append-only trigger of 0002 disabled for that one statement.
"""

from django.db import migrations, models

FORWARD = """
ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete;
UPDATE games_event e SET outcome = g.outcome
    FROM games_game g JOIN games_chainhead h ON h.game_id = g.id
    WHERE g.outcome IS NOT NULL AND e.game_id = g.id AND e.seq = h.events;
ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete;

CREATE OR REPLACE FUNCTION games_game_outcome_from_log() RETURNS trigger AS $$
DECLARE
    last_outcome jsonb;
BEGIN
    IF OLD.outcome IS NULL AND NEW.outcome IS NOT NULL THEN
        SELECT e.outcome INTO last_outcome FROM games_chainhead h
            JOIN games_event e ON e.game_id = h.game_id AND e.seq = h.events
            WHERE h.game_id = NEW.id;
        IF last_outcome IS NULL OR last_outcome IS DISTINCT FROM NEW.outcome THEN
            RAISE EXCEPTION 'outcome of game % refused: its last event does not end it so',
                NEW.id USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_game_outcome_from_log ON games_game;
CREATE TRIGGER games_game_outcome_from_log
    BEFORE UPDATE ON games_game
    FOR EACH ROW EXECUTE FUNCTION games_game_outcome_from_log();

CREATE OR REPLACE FUNCTION games_event_outcome_applied() RETURNS trigger AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM games_game g JOIN games_chainhead h ON h.game_id = g.id
        WHERE g.id = NEW.game_id AND h.events = NEW.seq
          AND g.status = 'finished' AND g.outcome = NEW.outcome
    ) THEN
        RAISE EXCEPTION 'event % ends game %: it stays last, the game finished with its outcome',
            NEW.seq, NEW.game_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_event_outcome_applied ON games_event;
CREATE CONSTRAINT TRIGGER games_event_outcome_applied
    AFTER INSERT ON games_event
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.outcome IS NOT NULL)
    EXECUTE FUNCTION games_event_outcome_applied();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_event_outcome_applied ON games_event;
DROP FUNCTION IF EXISTS games_event_outcome_applied();
DROP TRIGGER IF EXISTS games_game_outcome_from_log ON games_game;
DROP FUNCTION IF EXISTS games_game_outcome_from_log();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0007_game_rematch_of")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="outcome",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
