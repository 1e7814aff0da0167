"""Corrections of finished games' results, appended after the end (``games_correction``).

* ``games_correction`` is append-only like the log: UPDATE, DELETE (row trigger) and
  TRUNCATE (statement trigger) refused.
* ``games_correction_check`` (BEFORE INSERT): the game is finished; ``n`` is one more than
  its last correction's (1 for the first); ``old_result`` is the result that counted until then
  (the last correction's ``new_result``, else the game's outcome). With the unique ``(game, n)`` a
  correction made on a stale view of the result is refused.
* ``games_correction_applied`` (AFTER INSERT): writes ``new_result`` into ``games_game.corrected``.
* ``games_game_corrected_guard`` (BEFORE UPDATE of a game): ``corrected`` may only become
  the game's last correction's ``new_result``; nothing else changes it.
"""

import django.utils.timezone
from django.db import migrations, models

FORWARD = """
CREATE OR REPLACE FUNCTION games_correction_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_correction is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_correction_no_update_delete ON games_correction;
CREATE TRIGGER games_correction_no_update_delete
    BEFORE UPDATE OR DELETE ON games_correction
    FOR EACH ROW EXECUTE FUNCTION games_correction_append_only();

DROP TRIGGER IF EXISTS games_correction_no_truncate ON games_correction;
CREATE TRIGGER games_correction_no_truncate
    BEFORE TRUNCATE ON games_correction
    FOR EACH STATEMENT EXECUTE FUNCTION games_correction_append_only();

CREATE OR REPLACE FUNCTION games_correction_check() RETURNS trigger AS $$
DECLARE
    g_status text;
    g_outcome jsonb;
    last_n integer;
    last_new jsonb;
BEGIN
    SELECT status, outcome INTO g_status, g_outcome FROM games_game
        WHERE id = NEW.game_id FOR UPDATE;
    IF g_status IS DISTINCT FROM 'finished' OR g_outcome IS NULL THEN
        RAISE EXCEPTION 'game % is not finished: only a finished result is corrected',
            NEW.game_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT n, new_result INTO last_n, last_new FROM games_correction
        WHERE game_id = NEW.game_id ORDER BY n DESC LIMIT 1;
    IF NEW.n <> COALESCE(last_n, 0) + 1 THEN
        RAISE EXCEPTION 'correction % of game % refused: the next one is %',
            NEW.n, NEW.game_id, COALESCE(last_n, 0) + 1 USING ERRCODE = 'unique_violation';
    END IF;
    IF NEW.old_result IS DISTINCT FROM COALESCE(last_new, g_outcome) THEN
        RAISE EXCEPTION 'correction of game % refused: it does not replace the result that counts',
            NEW.game_id USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_correction_check ON games_correction;
CREATE TRIGGER games_correction_check
    BEFORE INSERT ON games_correction
    FOR EACH ROW EXECUTE FUNCTION games_correction_check();

CREATE OR REPLACE FUNCTION games_correction_applied() RETURNS trigger AS $$
BEGIN
    UPDATE games_game SET corrected = NEW.new_result WHERE id = NEW.game_id;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_correction_applied ON games_correction;
CREATE TRIGGER games_correction_applied
    AFTER INSERT ON games_correction
    FOR EACH ROW EXECUTE FUNCTION games_correction_applied();

CREATE OR REPLACE FUNCTION games_game_corrected_guard() RETURNS trigger AS $$
BEGIN
    IF NEW.corrected IS DISTINCT FROM OLD.corrected AND NEW.corrected IS DISTINCT FROM (
        SELECT c.new_result FROM games_correction c WHERE c.game_id = NEW.id
        ORDER BY c.n DESC LIMIT 1
    ) THEN
        RAISE EXCEPTION 'the corrected result of game % is its last correction''s', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS games_game_corrected_guard ON games_game;
CREATE TRIGGER games_game_corrected_guard
    BEFORE UPDATE ON games_game
    FOR EACH ROW EXECUTE FUNCTION games_game_corrected_guard();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS games_game_corrected_guard ON games_game;
DROP FUNCTION IF EXISTS games_game_corrected_guard();
DROP TRIGGER IF EXISTS games_correction_applied ON games_correction;
DROP FUNCTION IF EXISTS games_correction_applied();
DROP TRIGGER IF EXISTS games_correction_check ON games_correction;
DROP FUNCTION IF EXISTS games_correction_check();
DROP TRIGGER IF EXISTS games_correction_no_truncate ON games_correction;
DROP TRIGGER IF EXISTS games_correction_no_update_delete ON games_correction;
DROP FUNCTION IF EXISTS games_correction_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("games", "0012_token_sessions")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="corrected",
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        migrations.CreateModel(
            name="Correction",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("n", models.PositiveIntegerField()),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("by", models.CharField(help_text="the organiser who made it (username)",
                                        max_length=150)),
                ("why", models.TextField(max_length=500)),
                ("old_result", models.JSONField()),
                ("new_result", models.JSONField()),
                ("command", models.JSONField()),
                ("game", models.ForeignKey(on_delete=models.deletion.DO_NOTHING,
                                           related_name="corrections", to="games.game")),
            ],
            options={
                "ordering": ["game", "n"],
                "constraints": [
                    models.UniqueConstraint(fields=("game", "n"), name="correction_game_n"),
                    models.CheckConstraint(condition=models.Q(("n__gte", 1)),
                                           name="correction_n_from_1"),
                ],
            },
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
