-- PostgreSQL twin of ../0009_ratings.sql (issue 27): an OpenSkill rating per person, and per CPU level, in
-- each guild. This migration's data step rates the matches already recorded, in the order they were played,
-- in this same transaction (bot/store/migrations.py).
-- A rating's key is (user_id, cpu_level): a person is (their id, ''), a CPU level (0, 'hard'). The key comes
-- first so that forget-user finds a person's ratings in every guild by the primary key.

CREATE TABLE ratings (
    user_id      BIGINT           NOT NULL,
    cpu_level    TEXT             NOT NULL,
    guild_id     BIGINT           NOT NULL,
    display_name TEXT             NOT NULL,
    mu           DOUBLE PRECISION NOT NULL,
    sigma        DOUBLE PRECISION NOT NULL CHECK (sigma > 0),
    skill        DOUBLE PRECISION NOT NULL,  -- mu - 3 * sigma: what the leaderboard shows and sorts by
    matches      INTEGER          NOT NULL CHECK (matches >= 1),
    last_change  DOUBLE PRECISION NOT NULL,  -- of skill, in the last rated match
    recent       TEXT             NOT NULL,  -- JSON: skill after each of the last 20 matches
    rated_at     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, cpu_level, guild_id),
    CHECK ((user_id = 0) <> (cpu_level = ''))
);

-- The rating leaderboard's two lists, each in its ORDER BY (bot/store/ratings.py) term for term: ranked
-- ratings (at least 5 rated matches: RATED_TO_RANK in bot/store/base.py) and the provisional ones. matches is
-- in the index too, so that counting a list (its size, a rank) reads the index alone, not every row.
CREATE INDEX ratings_ranked ON ratings (guild_id, skill DESC, user_id, cpu_level, matches) WHERE matches >= 5;
CREATE INDEX ratings_provisional ON ratings (guild_id, skill DESC, user_id, cpu_level, matches) WHERE matches < 5;

-- Set when the match's ratings are written, in the same transaction: the guard that rates a match once, and
-- how the backfill finds the matches recorded before ratings (false).
ALTER TABLE match_results ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
