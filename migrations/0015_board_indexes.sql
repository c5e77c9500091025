-- The win-rate board lists only the players with at least 5 matches (WIN_RATE_MIN_MATCHES in
-- bot/store/base.py, the service's one minimum), and counts its size and a player's rank among them. Its index
-- from 0002 held every player and not matches_played, so each count read the rows of the whole guild to test
-- it (by the primary key, or the index then every row). This one holds those players only, in the page's order,
-- with matches_played, so that the page is read in order and both counts read the index alone; a casual
-- player's statistics (most players: fewer than 5 matches) no longer write an entry in it.
-- The rating board is unchanged here: SQLite still sorts the guild's people when it is read (0013);
-- PostgreSQL's twin also orders its provisional list's index.
DROP INDEX player_stats_by_winrate;
CREATE INDEX player_stats_by_winrate
    ON player_stats (guild_id, (CAST(matches_won AS REAL) / matches_played) DESC, matches_won DESC, user_id,
                     matches_played)
    WHERE matches_played >= 5;
