-- PostgreSQL twin of ../0002_results.sql: round and match results, per-guild player statistics with the
-- leaderboard's indexes.

CREATE TABLE round_results (
    table_id     BIGINT  NOT NULL REFERENCES game_tables (id),
    round_number INTEGER NOT NULL CHECK (round_number >= 1),
    position     INTEGER NOT NULL CHECK (position >= 0),
    score        INTEGER NOT NULL,
    won          BOOLEAN NOT NULL,
    PRIMARY KEY (table_id, round_number, position)
);

-- One row per table: the primary key is what makes a match count exactly once.
CREATE TABLE match_results (
    table_id      BIGINT           PRIMARY KEY REFERENCES game_tables (id),
    guild_id      BIGINT           NOT NULL,
    channel_id    BIGINT           NOT NULL,
    preset        TEXT             NOT NULL,
    rounds_played INTEGER          NOT NULL CHECK (rounds_played >= 0),
    finished_at   DOUBLE PRECISION NOT NULL
);

-- A guild's recent matches.
CREATE INDEX match_results_recent ON match_results (guild_id, finished_at DESC, table_id DESC);

CREATE TABLE match_rankings (
    table_id     BIGINT  NOT NULL REFERENCES match_results (table_id),
    position     INTEGER NOT NULL CHECK (position >= 0),
    user_id      BIGINT,
    display_name TEXT    NOT NULL,
    place        INTEGER NOT NULL CHECK (place >= 1),
    total        INTEGER NOT NULL,
    PRIMARY KEY (table_id, position)
);

-- forget-user finds a person's rankings.
CREATE INDEX match_rankings_by_user ON match_rankings (user_id) WHERE user_id IS NOT NULL;

-- Written in the same transaction as the match result. points = opponents finished ahead of, summed.
CREATE TABLE player_stats (
    guild_id       BIGINT  NOT NULL,
    user_id        BIGINT  NOT NULL,
    display_name   TEXT    NOT NULL,
    matches_played INTEGER NOT NULL CHECK (matches_played >= 1),
    matches_won    INTEGER NOT NULL DEFAULT 0,
    rounds_played  INTEGER NOT NULL DEFAULT 0,
    rounds_won     INTEGER NOT NULL DEFAULT 0,
    round_points   BIGINT  NOT NULL DEFAULT 0,
    points         INTEGER NOT NULL DEFAULT 0,
    best_place     INTEGER,
    last_place     INTEGER,
    last_played_at DOUBLE PRECISION,
    PRIMARY KEY (guild_id, user_id)
);

-- One index per leaderboard order; each matches its ORDER BY in bot/store/postgres.py term for term.
CREATE INDEX player_stats_by_wins
    ON player_stats (guild_id, matches_won DESC, points DESC, user_id);
CREATE INDEX player_stats_by_points
    ON player_stats (guild_id, points DESC, matches_won DESC, user_id);
CREATE INDEX player_stats_by_winrate
    ON player_stats (guild_id, (CAST(matches_won AS DOUBLE PRECISION) / matches_played) DESC, matches_won DESC,
                     user_id);
-- forget-user across every guild.
CREATE INDEX player_stats_by_user ON player_stats (user_id);

-- Matches per preset, for a player's favourite preset.
CREATE TABLE player_preset_counts (
    guild_id BIGINT  NOT NULL,
    user_id  BIGINT  NOT NULL,
    preset   TEXT    NOT NULL,
    matches  INTEGER NOT NULL CHECK (matches >= 1),
    PRIMARY KEY (guild_id, user_id, preset)
);

CREATE INDEX player_preset_counts_by_user ON player_preset_counts (user_id);
