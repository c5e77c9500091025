-- PostgreSQL twin of ../0013_ratings_in_player_stats.sql. People's ratings move into player_stats: a match
-- result already rewrites each person's statistics row. The ratings table keeps the CPU levels' ratings.
-- Here the ranked list keeps a skill-ordered index (a row update writes every index entry of the row anyway),
-- and the provisional list an index of which rows are provisional, as ratings had (0009, 0012).

ALTER TABLE player_stats ADD COLUMN mu DOUBLE PRECISION;
ALTER TABLE player_stats ADD COLUMN sigma DOUBLE PRECISION;
ALTER TABLE player_stats ADD COLUMN skill DOUBLE PRECISION;  -- mu - 3 * sigma
ALTER TABLE player_stats ADD COLUMN rated_matches INTEGER NOT NULL DEFAULT 0;
ALTER TABLE player_stats ADD COLUMN last_change DOUBLE PRECISION;
ALTER TABLE player_stats ADD COLUMN recent TEXT;  -- JSON: skill after each of the last 20 matches
ALTER TABLE player_stats ADD COLUMN rated_at DOUBLE PRECISION;

UPDATE player_stats SET mu = g.mu, sigma = g.sigma, skill = g.skill, rated_matches = g.matches,
    last_change = g.last_change, recent = g.recent, rated_at = g.rated_at
FROM ratings AS g
WHERE g.user_id = player_stats.user_id AND g.cpu_level = '' AND g.guild_id = player_stats.guild_id;

INSERT INTO player_stats (guild_id, user_id, display_name, matches_played, last_played_at, mu, sigma, skill,
    rated_matches, last_change, recent, rated_at)
SELECT g.guild_id, g.user_id, g.display_name, g.matches, g.rated_at, g.mu, g.sigma, g.skill, g.matches,
    g.last_change, g.recent, g.rated_at
FROM ratings AS g
WHERE g.cpu_level = '' AND NOT EXISTS (
    SELECT 1 FROM player_stats AS p WHERE p.guild_id = g.guild_id AND p.user_id = g.user_id
);

DELETE FROM ratings WHERE cpu_level = '';

CREATE INDEX player_stats_rated ON player_stats (guild_id, skill DESC, user_id, rated_matches)
    WHERE rated_matches >= 5;
CREATE INDEX player_stats_provisional ON player_stats (guild_id) WHERE rated_matches BETWEEN 1 AND 4;
