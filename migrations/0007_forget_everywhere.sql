-- forget-user removes every copy of a person (issue 22): the ids and names in a closed table's move log, not
-- only its actor_id. The log stays append-only for everyone else: a move is never deleted or renumbered, and
-- its action and events change only inside forget-user's own transaction, which holds the meta row
-- 'forget_user_running' while it works (inserted and deleted before it commits: no one else ever sees it).

DROP TRIGGER moves_no_rewrite;

CREATE TRIGGER moves_no_rewrite
    BEFORE UPDATE OF table_id, seq, version, created_at ON moves
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;

CREATE TRIGGER moves_redacted_only_by_forget
    BEFORE UPDATE OF action, events ON moves
    WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'forget_user_running')
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;

-- forget-user finds the closed tables where a person acted without keeping a seat (a lobby left, a kick
-- before the start, a table ended as a manager).
CREATE INDEX moves_by_actor ON moves (actor_id) WHERE actor_id IS NOT NULL;
