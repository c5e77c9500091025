-- People's ratings move into player_stats (issue 27): a match result already rewrites each person's statistics
-- row, so their rating written in the same row costs no B-tree, row or page of its own (a separate ratings
-- row was about 3.5 of the 6.4 more pages a rated match result wrote, bench/store.py). The ratings table keeps
-- the CPU levels' ratings (user_id 0), which few results write. rated_matches 0: a person not rated yet (no
-- rating: the rating columns are NULL).
-- No skill-ordered index on player_stats: such an index moves every rated player's entry at every match
-- (about two pages written per player and result); the rating board reads the guild's rows by the primary key
-- and sorts the page it shows (bench/store.py: under 20 ms with 100,000 matches). PostgreSQL keeps its
-- ordered index (postgres/0013), where a row update writes every index entry anyway.

ALTER TABLE player_stats ADD COLUMN mu REAL;
ALTER TABLE player_stats ADD COLUMN sigma REAL;
ALTER TABLE player_stats ADD COLUMN skill REAL;  -- mu - 3 * sigma
ALTER TABLE player_stats ADD COLUMN rated_matches INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_stats ADD COLUMN last_change REAL;
ALTER TABLE player_stats ADD COLUMN recent TEXT;  -- JSON: skill after each of the last 20 matches
ALTER TABLE player_stats ADD COLUMN rated_at REAL;

-- The people's ratings, carried over (each person's rating and statistics share their key).
UPDATE player_stats SET mu = g.mu, sigma = g.sigma, skill = g.skill, rated_matches = g.matches,
    last_change = g.last_change, recent = g.recent, rated_at = g.rated_at
FROM ratings AS g
WHERE g.user_id = player_stats.user_id AND g.cpu_level = '' AND g.guild_id = player_stats.guild_id;

-- A rating without statistics should not exist (both are written by the same result and forgotten
-- together); if one does, it is kept, with statistics of the matches it counts.
INSERT INTO player_stats (guild_id, user_id, display_name, matches_played, last_played_at, mu, sigma, skill,
    rated_matches, last_change, recent, rated_at)
SELECT g.guild_id, g.user_id, g.display_name, g.matches, g.rated_at, g.mu, g.sigma, g.skill, g.matches,
    g.last_change, g.recent, g.rated_at
FROM ratings AS g
WHERE g.cpu_level = '' AND NOT EXISTS (
    SELECT 1 FROM player_stats AS p WHERE p.guild_id = g.guild_id AND p.user_id = g.user_id
);

DELETE FROM ratings WHERE cpu_level = '';
