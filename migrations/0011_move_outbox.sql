-- What the channel must still be told (issue 26: a committed move is always told). commit_move writes one
-- row per move, in the move's own transaction: the move's public events. The bot deletes a table's rows
-- once Discord has accepted the lines telling them, so the table holds only what is on its way (bounded:
-- a restarted process tells what is left, and rows older than a day are dropped there). `attempt` is the
-- delivery's note of the line being sent for these rows (its messages' nonces and texts, and the route),
-- written just before sending, so that a restart can tell whether a line Discord may have accepted went
-- out, without telling it twice.
CREATE TABLE move_outbox (
    table_id   INTEGER NOT NULL REFERENCES game_tables (id),
    version    INTEGER NOT NULL,
    events     TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    attempt    TEXT,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;
