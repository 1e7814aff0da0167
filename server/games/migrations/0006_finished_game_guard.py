"""A finished game stays finished, in the database itself.

* ``games_event_not_after_end``: BEFORE INSERT of an event, refused when its game is
  finished (``status = 'finished'`` or an outcome stored). Every correction the server
  makes (a forfeit on time, an adjudication, an abandonment, an organiser's ``result``)
  is appended *before* the end it causes, by the statement that ends the game; nothing
  follows a game's end.
* ``games_game_outcome_guard``: BEFORE UPDATE of a game, its stored outcome is written once,
  when the game ends (``status`` becomes ``finished`` in the same row) and only for a game
  whose log has events; it is never changed or cleared afterwards, and a finished game is
  never reopened. ``/verify/`` checks that the stored outcome is the fold of the log.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION games_event_not_after_end() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM games_game WHERE id = NEW.game_id
               AND (status = 'finished' OR outcome IS NOT NULL)) THEN
        RAISE EXCEPTION 'game % is over: no event follows its end', NEW.game_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_event_not_after_end ON games_event;
CREATE TRIGGER games_event_not_after_end
    BEFORE INSERT ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_not_after_end();

CREATE OR REPLACE FUNCTION games_game_outcome_guard() RETURNS trigger AS $$
BEGIN
    IF OLD.outcome IS NOT NULL AND NEW.outcome IS DISTINCT FROM OLD.outcome THEN
        RAISE EXCEPTION 'the outcome of game % is its log''s: written once, never changed',
            OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF OLD.status = 'finished' AND NEW.status IS DISTINCT FROM 'finished' THEN
        RAISE EXCEPTION 'game % is finished: it is not reopened', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF OLD.outcome IS NULL AND NEW.outcome IS NOT NULL AND (
        NEW.status IS DISTINCT FROM 'finished'
        OR NOT EXISTS (SELECT 1 FROM games_chainhead WHERE game_id = NEW.id)
    ) THEN
        RAISE EXCEPTION 'the outcome of game % is written only when its log ends it', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_game_outcome_guard ON games_game;
CREATE TRIGGER games_game_outcome_guard
    BEFORE UPDATE ON games_game
    FOR EACH ROW EXECUTE FUNCTION games_game_outcome_guard();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_game_outcome_guard ON games_game;
DROP FUNCTION IF EXISTS games_game_outcome_guard();
DROP TRIGGER IF EXISTS games_event_not_after_end ON games_event;
DROP FUNCTION IF EXISTS games_event_not_after_end();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0005_game_season")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
