-- forget-user anonymises the tables a person hosted; without this it would scan every table ever played.
CREATE INDEX game_tables_by_host ON game_tables (host_id);
