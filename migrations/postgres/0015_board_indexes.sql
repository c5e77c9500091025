-- PostgreSQL twin of ../0015_board_indexes.sql. The win-rate board's index holds only the players with at
-- least 5 matches (WIN_RATE_MIN_MATCHES in bot/store/base.py), in the page's order, with matches_played: its
-- size and a player's rank are counted by index-only scans (with the statistics of a real server the planner
-- read the whole table for them, no index holding matches_played).
DROP INDEX player_stats_by_winrate;
CREATE INDEX player_stats_by_winrate
    ON player_stats (guild_id, (CAST(matches_won AS DOUBLE PRECISION) / matches_played) DESC, matches_won DESC,
                     user_id, matches_played)
    WHERE matches_played >= 5;

-- The provisional ratings' list (1 to 4 rated matches) is read in the order the rating board shows it
-- (bot/store/ratings.py, board_query: skill DESC, user_id), as the ranked list is (0013): a page reads its rows
-- and stops, instead of reading and sorting every provisional player of the guild (most players of a server
-- with many casual ones). On PostgreSQL a match result writes a new entry in every index of its players' rows
-- anyway (their statistics change), so the order costs no more writes.
DROP INDEX player_stats_provisional;
CREATE INDEX player_stats_provisional ON player_stats (guild_id, skill DESC, user_id)
    WHERE rated_matches BETWEEN 1 AND 4;
