-- Retention of the move logs of closed matches (issue 26). The log of a closed table (finished or abandoned)
-- may be deleted by the bot's retention task, in batches; an open table's stays append-only. Results,
-- rankings and statistics are separate tables and are kept forever. moves_pruned_at records when a closed
-- table's log was deleted, so that a replay can say its moves are gone.

DROP TRIGGER moves_no_delete;

CREATE TRIGGER moves_no_delete
    BEFORE DELETE ON moves
    WHEN (SELECT status FROM game_tables WHERE id = OLD.table_id) NOT IN ('finished', 'abandoned')
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;

ALTER TABLE game_tables ADD COLUMN moves_pruned_at REAL;

-- The retention task's look-up: the closed tables whose log is still there, oldest first.
CREATE INDEX game_tables_unpruned_by_age ON game_tables (updated_at)
    WHERE status IN ('finished', 'abandoned') AND moves_pruned_at IS NULL;
