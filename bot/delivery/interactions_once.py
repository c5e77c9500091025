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

``LateInteractions`` drops an interaction that reaches the bot after Discord's 3 seconds: one Discord
replayed when a silent ("zombied") gateway session was resumed, or one a busy event loop read that late.
Discord has shown its player "This interaction failed" and takes no answer to it any more (404, 10062); acted
on, it would be a move nobody was told of, made again by the player's retry ("typing /eights draw twice draws
twice"). An interaction that reached the bot in time and whose answer came late is not concerned: what it did
stands (``bot.exts._group``).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from discord.utils import DISCORD_EPOCH

log = logging.getLogger(__name__)

# Ids remembered: an interaction's token lives 15 minutes; at 1,000 busy tables that is about as many
# interactions as a few minutes bring, and a redelivery comes within moments of the first.
REMEMBERED = 65_536

# Discord takes an interaction's first answer within 3 seconds of its creation (the time in its id).
ANSWER_WINDOW = 3.0
# How much faster than Discord's clock this machine's monotonic clock may run, at most (NTP slews it by 500
# ppm at most): the freshest interaction's evidence fades by as much a second, so that it never makes a later
# interaction look older than it is.
DRIFT = 0.001
# An interaction's token lives 15 minutes: an id further than that from this machine's wall clock is no
# interaction Discord delivers now (a clock far off, a test's stand-in): it never sets the reference, and one
# that would be later than that is acted on.
TOKEN_LIFETIME = 15 * 60.0
LATE_LOG_EVERY = 60.0  # seconds: one INFO line for the first late interaction in this long, DEBUG the rest


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


class LateInteractions:
    """Whether an interaction reached the bot after Discord's 3 seconds (``late``).

    How late an interaction is, is not read from this machine's wall clock, which may run seconds ahead of
    Discord's (a clock ahead would make every interaction look late, and the bot drop them all) or behind: it
    is compared with the freshest interaction seen so far, on the monotonic clock. Each interaction's id says
    when Discord made it; ``made - received`` (on the monotonic clock) is largest for the interaction that
    reached the bot soonest. An interaction for which that value is more than ANSWER_WINDOW seconds below the
    largest seen reached the bot more than ANSWER_WINDOW seconds after its creation, whatever the wall clock
    says (the freshest one's own delay only makes the figure smaller; the monotonic clock's drift is allowed
    for, DRIFT). Before any interaction was seen nothing is dropped; what is kept is two numbers."""

    def __init__(
        self, monotonic: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time
    ) -> None:
        self._monotonic = monotonic
        self._wall = wall
        self._lead: float | None = None  # the largest ``made - received`` seen (seconds)
        self._lead_at = 0.0  # when (monotonic) it was seen
        self._logged_at: float | None = None
        self.dropped = 0

    def late(self, interaction_id: int) -> float | None:
        """How many seconds after Discord made it the interaction reached the bot (it was at least that late)
        when more than ANSWER_WINDOW, else None (in time, or not known). Each call is taken as its arrival."""
        made = ((interaction_id >> 22) + DISCORD_EPOCH) / 1000
        now = self._monotonic()
        lead = made - now
        best = self._lead
        if best is not None:
            best -= DRIFT * (now - self._lead_at)  # faded: never more than it can show
        if best is None or lead > best:
            if abs(self._wall() - made) <= TOKEN_LIFETIME:
                self._lead, self._lead_at = lead, now
            return None
        late = best - lead
        if late <= ANSWER_WINDOW or late > TOKEN_LIFETIME:
            return None
        return late

    def drop(self, data: dict[str, Any]) -> bool:
        """Whether the INTERACTION_CREATE ``data`` came too late to be acted on (``late``); said in the log
        (its id, type and lateness, never its payload): one INFO line a minute at most, DEBUG for the rest."""
        try:
            interaction_id = int(data["id"])
        except (KeyError, TypeError, ValueError):
            return False
        late = self.late(interaction_id)
        if late is None:
            return False
        self.dropped += 1
        now = self._monotonic()
        level = logging.DEBUG
        if self._logged_at is None or now - self._logged_at >= LATE_LOG_EVERY:
            self._logged_at, level = now, logging.INFO
        log.log(
            level,
            "interaction %s (type %s) reached the bot %.1f s after Discord made it (a gateway session "
            "resumed, a busy bot): Discord showed the player 'This interaction failed'; not acted on",
            interaction_id,
            data.get("type"),
            late,
        )
        return True


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
