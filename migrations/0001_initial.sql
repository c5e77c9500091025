-- Guilds, tables, seats, live game state and the move log.
-- Times are Unix seconds (REAL); JSON documents are TEXT written by bot/store/sqlite.py.
-- The runner wraps this file in one transaction: no BEGIN/COMMIT or PRAGMA here.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE guild_settings (
    guild_id             INTEGER PRIMARY KEY,
    default_preset       TEXT    NOT NULL DEFAULT 'classic',
    default_turn_timeout REAL    NOT NULL DEFAULT 90 CHECK (default_turn_timeout > 0),
    manager_role_id      INTEGER
);

-- Channels where tables may be opened; none listed means any channel.
CREATE TABLE guild_table_channels (
    guild_id   INTEGER NOT NULL REFERENCES guild_settings (guild_id) ON DELETE CASCADE,
    channel_id INTEGER NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
) WITHOUT ROWID;

-- AUTOINCREMENT: table ids travel in button custom_ids, so an id must never be reused.
CREATE TABLE game_tables (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    host_id          INTEGER NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'abandoned')),
    ruleset          TEXT    NOT NULL CHECK (json_valid(ruleset)),
    options          TEXT    NOT NULL CHECK (json_valid(options)),
    target           INTEGER,
    turn_timeout     REAL    NOT NULL CHECK (turn_timeout > 0),
    board_message_id INTEGER,
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL
);

-- At most one open table per channel. Also serves "load every open table" (same WHERE clause).
CREATE UNIQUE INDEX game_tables_one_open_per_channel
    ON game_tables (channel_id) WHERE status IN ('lobby', 'playing');

CREATE TABLE seats (
    table_id     INTEGER NOT NULL REFERENCES game_tables (id),
    position     INTEGER NOT NULL CHECK (position >= 0),
    user_id      INTEGER,
    cpu_level    TEXT,
    display_name TEXT    NOT NULL,
    cpu_takeover INTEGER NOT NULL DEFAULT 0 CHECK (cpu_takeover IN (0, 1)),
    joined_at    REAL    NOT NULL,
    left_at      REAL,
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;

-- forget-user finds a person's seats.
CREATE INDEX seats_by_user ON seats (user_id) WHERE user_id IS NOT NULL;

-- The live state of each table; version is +1 with every committed move (the optimistic-concurrency guard).
CREATE TABLE game_state (
    table_id INTEGER PRIMARY KEY REFERENCES game_tables (id),
    version  INTEGER NOT NULL CHECK (version >= 0),
    state    TEXT    NOT NULL,
    deadline REAL
);

-- Timers due soonest, after a restart.
CREATE INDEX game_state_by_deadline ON game_state (deadline) WHERE deadline IS NOT NULL;

-- Every action and the events it caused, private ones included (never shown to anyone else).
CREATE TABLE moves (
    table_id   INTEGER NOT NULL REFERENCES game_tables (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    version    INTEGER NOT NULL,
    actor_id   INTEGER,
    action     TEXT    NOT NULL,
    events     TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (table_id, seq)
);

-- Append-only. Only actor_id may change, so that forget-user can anonymise it.
CREATE TRIGGER moves_no_rewrite
    BEFORE UPDATE OF table_id, seq, version, action, events, created_at ON moves
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;

CREATE TRIGGER moves_no_delete
    BEFORE DELETE ON moves
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;
