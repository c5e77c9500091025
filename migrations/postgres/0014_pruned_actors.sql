-- PostgreSQL twin of ../0014_pruned_actors.sql: who acted in a closed table's move log that retention deleted,
-- so that forget-user still finds the table (its stored state names people who hold no seat there).
CREATE TABLE pruned_actors (
    user_id  BIGINT NOT NULL,
    table_id BIGINT NOT NULL REFERENCES game_tables (id),
    PRIMARY KEY (user_id, table_id)
);

-- The tables retention pruned before this migration: the people their stored state and untold lines name,
-- by the keys and lists forget-user anonymises (bot/store/forget.py). Once, here; retention keeps it after.
INSERT INTO pruned_actors (user_id, table_id)
SELECT DISTINCT (v #>> '{}')::numeric::bigint, pruned.table_id
FROM (
    SELECT t.id AS table_id, g.state::jsonb AS doc
    FROM game_tables AS t JOIN game_state AS g ON g.table_id = t.id
    WHERE t.moves_pruned_at IS NOT NULL
    UNION ALL
    SELECT t.id, o.events::jsonb
    FROM game_tables AS t JOIN move_outbox AS o ON o.table_id = t.id
    WHERE t.moves_pruned_at IS NOT NULL
) AS pruned
CROSS JOIN LATERAL unnest(ARRAY[
    'lax $.**.user_id ? (@.type() == "number")',
    'lax $.**."to" ? (@.type() == "number")',
    'lax $.**.member ? (@.type() == "number")',
    'lax $.**.host_id ? (@.type() == "number")',
    'lax $.**.kicked[*] ? (@.type() == "number")'
]::jsonpath[]) AS path (query)
CROSS JOIN LATERAL jsonb_path_query(pruned.doc, path.query) AS v
WHERE (v #>> '{}')::numeric <> 0
ON CONFLICT DO NOTHING;
