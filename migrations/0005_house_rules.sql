-- House rules (issue 17): a server's default house rules for new tables, and the house rules each finished
-- match was played with (for history). Both are JSON objects of the options that differ from the preset.

ALTER TABLE guild_settings
    ADD COLUMN default_house_rules TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(default_house_rules));

ALTER TABLE match_results
    ADD COLUMN house_rules TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(house_rules));
