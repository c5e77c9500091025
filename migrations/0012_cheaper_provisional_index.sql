-- The provisional ratings' index (issue 27): only which ratings of a guild are provisional (fewer than 5
-- rated matches: RATED_TO_RANK in bot/store/base.py), not their order. The old one, ordered by skill like the
-- ranked list's, moved every provisional player's entry at every match they played (about two more pages
-- written per player and match result: bench/store.py's WAL frames). This one is written when a rating is
-- made and when it leaves the list; the provisional page sorts its few rows when it is read. The ranked
-- list, the one the leaderboard shows by default and counts ranks in, keeps its ordered index.
DROP INDEX ratings_provisional;
CREATE INDEX ratings_provisional ON ratings (guild_id) WHERE matches < 5;
