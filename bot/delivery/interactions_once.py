"""Each interaction acted on once, however many times Discord delivers it; and the servers each gateway
session says the bot is in.

Discord's gateway makes no exactly-once promise: an INTERACTION_CREATE may come again (a dispatch replayed
after a resume, a new session). The second copy has the same id and token; Discord takes one answer to it and
refuses the second (40060), but a bot that acted on both would have drawn two cards for one /eights draw.
The gateway's INTERACTION_CREATE parser is wrapped (discord.py's ``ConnectionState.parsers``, the table its
gateway dispatches from) so that an id seen lately is dropped before discord.py builds anything of it.

``SessionGuilds`` wraps READY, GUILD_CREATE and GUILD_DELETE the same way, to record the servers each
shard's session lists: discord.py's sharded state keeps the guilds it cached across sessions (its READY
parser adds the guilds READY lists and removes none), so after a session Discord could not resume (op 9
INVALID SESSION) a server that removed the bot meanwhile, whose GUILD_DELETE went to the dead session, is
still in its cache.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

# Ids remembered: an interaction's token lives 15 minutes; at 1,000 busy tables that is about as many
# interactions as a few minutes bring, and a redelivery comes within moments of the first.
REMEMBERED = 65_536


def act_once(state: Any) -> None:
    """Make ``state`` (a discord.py ``ConnectionState``) drop an INTERACTION_CREATE whose id it has seen."""
    parse: Callable[[dict[str, Any]], None] = state.parsers["INTERACTION_CREATE"]
    seen: OrderedDict[str, None] = OrderedDict()

    def parse_once(data: dict[str, Any]) -> None:
        key = data.get("id")
        if key is not None:
            if key in seen:
                log.info("interaction %s delivered again by Discord: acted on once", key)
                return
            seen[key] = None
            if len(seen) > REMEMBERED:
                seen.popitem(last=False)
        parse(data)

    state.parsers["INTERACTION_CREATE"] = parse_once


class SessionGuilds:
    """The servers each shard's latest gateway session says the bot is in: those its READY lists (as
    unavailable, their GUILD_CREATEs following; a server in an outage stays listed) and those a GUILD_CREATE
    brought since (a server that added the bot), less those a GUILD_DELETE removed the bot from since (one
    only unavailable, in an outage, stays). Nothing else: a server missing from a new session's READY
    removed the bot while it had no session (the bot was down, or its session was invalidated)."""

    def __init__(self) -> None:
        self._listed: dict[int, set[int]] = {}  # shard id -> guild ids

    def watch(self, state: Any) -> None:
        """Record what ``state``'s (a discord.py ``ConnectionState``) READY, GUILD_CREATE and GUILD_DELETE
        say, before discord.py parses them."""
        parse_ready: Callable[[dict[str, Any]], None] = state.parsers["READY"]
        parse_guild: Callable[[dict[str, Any]], None] = state.parsers["GUILD_CREATE"]
        parse_delete: Callable[[dict[str, Any]], None] | None = state.parsers.get("GUILD_DELETE")

        def ready(data: dict[str, Any]) -> None:
            shard = data.get("shard") or (0, 1)
            self._listed[int(shard[0])] = {int(guild["id"]) for guild in data.get("guilds") or ()}
            parse_ready(data)

        def guild_create(data: dict[str, Any]) -> None:
            guild_id = int(data["id"])
            count = getattr(state, "shard_count", None) or 1
            listed = self._listed.get((guild_id >> 22) % count)
            if listed is not None:
                listed.add(guild_id)
            parse_guild(data)

        def guild_delete(data: dict[str, Any]) -> None:
            if not data.get("unavailable"):  # removed from the server (not an outage): no longer listed
                guild_id = int(data["id"])
                for listed in self._listed.values():
                    listed.discard(guild_id)
            if parse_delete is not None:
                parse_delete(data)

        state.parsers["READY"] = ready
        state.parsers["GUILD_CREATE"] = guild_create
        state.parsers["GUILD_DELETE"] = guild_delete

    def left_out(self, shard_id: int, guild_ids: Iterable[int], shard_count: int) -> list[int]:
        """Of ``guild_ids``, those on shard ``shard_id`` (of ``shard_count``) that its session does not list;
        none before the shard's first READY."""
        listed = self._listed.get(shard_id)
        if listed is None:
            return []
        return [
            guild_id
            for guild_id in guild_ids
            if (guild_id >> 22) % shard_count == shard_id and guild_id not in listed
        ]
