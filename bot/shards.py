"""Which guilds a process serves. Discord puts a guild on shard ``(guild_id >> 22) % shard_count``; a process
running some of the shards (SHARD_COUNT and SHARD_IDS) owns exactly those shards' guilds: it loads, restores,
times and plays their tables, and no other process does. Without SHARD_IDS a process runs every shard and owns
every guild."""

from __future__ import annotations

from dataclasses import dataclass

ALL = "all"  # the heartbeat key of a process that runs every shard


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's rule: the shard that receives a guild's events."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The shards one process runs: ``ids`` of ``count``, or every shard when either is None."""

    count: int | None = None
    ids: tuple[int, ...] | None = None

    @property
    def everything(self) -> bool:
        # The ids are each below the count (checked with the settings): all of them, when as many.
        return self.count is None or self.ids is None or len(set(self.ids)) >= self.count

    def owns(self, guild_id: int) -> bool:
        if self.everything:
            return True
        assert self.count is not None and self.ids is not None
        return shard_of(guild_id, self.count) in self.ids

    @property
    def key(self) -> str:
        """The process's name in the heartbeats table: "all", or its shard ids and count, e.g. "0,2/4"."""
        if self.everything:
            return ALL
        assert self.count is not None and self.ids is not None
        return f"{','.join(map(str, sorted(self.ids)))}/{self.count}"

    def describe(self) -> str:
        if self.everything:
            return "every shard"
        assert self.count is not None and self.ids is not None
        return (
            f"shard{'s' if len(self.ids) > 1 else ''} {', '.join(map(str, sorted(self.ids)))} of {self.count}"
        )
