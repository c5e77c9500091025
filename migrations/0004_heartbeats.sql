-- One heartbeat row per process, keyed by the shards it runs ("all", or e.g. "0,2/4"), so that `health` in
-- each container checks its own process; the single meta row shared by every process could not tell them apart.

CREATE TABLE heartbeats (
    process TEXT PRIMARY KEY,
    beat_at REAL NOT NULL,
    pid     INTEGER,
    host    TEXT
) WITHOUT ROWID;

DELETE FROM meta WHERE key = 'heartbeat';
