-- Ratings (issue 27): an OpenSkill rating per person, and per CPU level, in each guild, and each rated match's
-- new ratings (for a player's rating over their last matches). A match is rated in the transaction that records
-- its result; this migration's data step (bot/store/migrations.py DATA_STEPS, bot/store/ratings.py backfill)
-- rates the matches already recorded, in the order they were played, in this same transaction.
-- A rating's key is (user_id, cpu_level): a person is (their id, ''), a CPU level (0, 'hard').

CREATE TABLE ratings (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    cpu_level    TEXT    NOT NULL,
    display_name TEXT    NOT NULL,
    mu           REAL    NOT NULL,
    sigma        REAL    NOT NULL CHECK (sigma > 0),
    skill        REAL    NOT NULL,  -- mu - 3 * sigma: what the leaderboard shows and sorts by
    matches      INTEGER NOT NULL CHECK (matches >= 1),
    last_change  REAL    NOT NULL,  -- of skill, in the last rated match
    rated_at     REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id, cpu_level),
    CHECK ((user_id = 0) <> (cpu_level = ''))
) WITHOUT ROWID;

-- The rating leaderboard's two lists, each in its ORDER BY (bot/store/sqlite.py) term for term: ranked
-- ratings (at least 5 rated matches: RATED_TO_RANK in bot/store/base.py) and the provisional ones.
CREATE INDEX ratings_ranked ON ratings (guild_id, skill DESC, user_id, cpu_level) WHERE matches >= 5;
CREATE INDEX ratings_provisional ON ratings (guild_id, skill DESC, user_id, cpu_level) WHERE matches < 5;
-- forget-user across every guild.
CREATE INDEX ratings_by_user ON ratings (user_id);

-- One row per rated seat of a match; its primary key is the second guard (after match_results') against
-- rating a match twice.
CREATE TABLE rating_history (
    table_id  INTEGER NOT NULL REFERENCES match_results (table_id),
    position  INTEGER NOT NULL CHECK (position >= 0),
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    cpu_level TEXT    NOT NULL,
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    skill     REAL    NOT NULL,
    change    REAL    NOT NULL,
    rated_at  REAL    NOT NULL,
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;

-- A player's last rated matches, newest first; forget-user finds a person's rows by the same index.
CREATE INDEX rating_history_by_player
    ON rating_history (user_id, cpu_level, guild_id, rated_at DESC, table_id DESC);
