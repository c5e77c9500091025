-- forget-user after retention (issue 26): a closed table whose move log the retention task deleted no longer
-- tells, through moves.actor_id, who acted there, yet its stored state still names people who hold no seat
-- (a lobby left, a removal from it: the "kicked" list and the recent events keep their id and name). The
-- retention task writes here, in the transaction that deletes the moves, who acted in them; forget-user finds
-- such tables by the person's id (the primary key), anonymises them and deletes the person's rows here.
CREATE TABLE pruned_actors (
    user_id  INTEGER NOT NULL,
    table_id INTEGER NOT NULL REFERENCES game_tables (id),
    PRIMARY KEY (user_id, table_id)
) WITHOUT ROWID;

-- The tables retention pruned before this migration: the people their stored state and untold lines name,
-- by the keys and lists forget-user anonymises (bot/store/forget.py). Once, here; retention keeps it after.
INSERT OR IGNORE INTO pruned_actors (user_id, table_id)
SELECT DISTINCT j.value, t.id
FROM game_tables AS t
JOIN game_state AS g ON g.table_id = t.id,
     json_tree(g.state) AS j
WHERE t.moves_pruned_at IS NOT NULL
  AND j.type = 'integer' AND j.value <> 0
  AND (j.key IN ('user_id', 'to', 'member', 'host_id') OR j.path LIKE '%.kicked');

INSERT OR IGNORE INTO pruned_actors (user_id, table_id)
SELECT DISTINCT j.value, t.id
FROM game_tables AS t
JOIN move_outbox AS o ON o.table_id = t.id,
     json_tree(o.events) AS j
WHERE t.moves_pruned_at IS NOT NULL
  AND j.type = 'integer' AND j.value <> 0
  AND (j.key IN ('user_id', 'to', 'member', 'host_id') OR j.path LIKE '%.kicked');
