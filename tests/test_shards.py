"""Which guilds a shard process owns: Discord's rule, shard = (guild_id >> 22) % shard_count."""

from __future__ import annotations

from bot.shards import ShardSet, shard_of


def test_discords_rule() -> None:
    # A real guild id; the shard comes from the timestamp bits above the low 22.
    guild = 197038439483310086
    assert shard_of(guild, 1) == 0
    assert shard_of(guild, 2) == (guild >> 22) % 2
    assert shard_of(3 << 22, 2) == 1 and shard_of(4 << 22, 2) == 0
    assert shard_of((1 << 22) - 1, 2) == 0  # the low 22 bits (worker, process, increment) do not count


def test_a_process_owns_its_shards_guilds_only() -> None:
    first, second = ShardSet(2, (0,)), ShardSet(2, (1,))
    for guild in (3 << 22, 4 << 22, 197038439483310086, 1 << 50):
        assert first.owns(guild) != second.owns(guild)  # exactly one owner
        assert ShardSet().owns(guild) and ShardSet(2, None).owns(guild) and ShardSet(2, (1, 0)).owns(guild)


def test_heartbeat_keys_and_descriptions() -> None:
    assert ShardSet().key == "all" and ShardSet(4, None).key == "all" and ShardSet(2, (1, 0)).key == "all"
    assert ShardSet(4, (2, 0)).key == "0,2/4" and ShardSet(2, (1,)).key == "1/2"
    assert (
        ShardSet(4, (2, 0)).describe() == "shards 0, 2 of 4"
        and ShardSet(2, (1,)).describe() == "shard 1 of 2"
    )
    assert ShardSet().describe() == "every shard"
