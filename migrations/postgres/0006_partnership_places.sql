-- Partnership places by side (issue 22). A partnership match used to record each seat's place among the four
-- seats, so the losing partners were 3rd behind two partners sharing 1st, while the final ranking showed them
-- 2nd. Its places were 1, 1, 3, 3 (or 1, 1, 1, 1 in a tie): 3 becomes 2, and the players' best and last
-- finishes follow. Every partnership match has "partnership" in its house rules: no preset plays one.

UPDATE match_rankings SET place = 2
WHERE place = 3
  AND table_id IN (SELECT table_id FROM match_results WHERE house_rules @> '{"partnership": true}');

-- A 2 in a partnership match can only come from the statement above.
UPDATE player_stats SET best_place = 2
WHERE best_place = 3
  AND EXISTS (
    SELECT 1 FROM match_rankings AS r JOIN match_results AS m ON m.table_id = r.table_id
    WHERE r.user_id = player_stats.user_id AND m.guild_id = player_stats.guild_id AND r.place = 2
      AND m.house_rules @> '{"partnership": true}'
  );

-- The last finish is the match recorded with the statistics' last_played_at.
UPDATE player_stats SET last_place = 2
WHERE last_place = 3
  AND EXISTS (
    SELECT 1 FROM match_rankings AS r JOIN match_results AS m ON m.table_id = r.table_id
    WHERE r.user_id = player_stats.user_id AND m.guild_id = player_stats.guild_id AND r.place = 2
      AND m.finished_at = player_stats.last_played_at
      AND m.house_rules @> '{"partnership": true}'
  );
