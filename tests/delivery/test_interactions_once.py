"""An INTERACTION_CREATE delivered twice is parsed once, and each shard's session lists the servers its
READY (and the GUILD_CREATEs since) named (bot.delivery.interactions_once)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.delivery import interactions_once


def test_a_second_delivery_of_an_interaction_is_dropped_and_others_pass() -> None:
    parsed: list[str] = []
    state = SimpleNamespace(parsers={"INTERACTION_CREATE": lambda data: parsed.append(data["id"])})
    interactions_once.act_once(state)
    for key in ("1", "2", "1", "3", "2"):
        state.parsers["INTERACTION_CREATE"]({"id": key})
    assert parsed == ["1", "2", "3"]


def test_the_ids_remembered_are_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(interactions_once, "REMEMBERED", 2)
    parsed: list[str] = []
    state = SimpleNamespace(parsers={"INTERACTION_CREATE": lambda data: parsed.append(data["id"])})
    interactions_once.act_once(state)
    for key in ("1", "2", "3", "1"):  # "1" forgotten once three were seen
        state.parsers["INTERACTION_CREATE"]({"id": key})
    assert parsed == ["1", "2", "3", "1"]


def guild_on(shard: int, count: int, n: int) -> int:
    """A guild id Discord puts on ``shard`` of ``count``."""
    return ((n * count + shard) << 22) | 1


def test_a_shards_session_lists_what_its_ready_and_the_guild_creates_since_named() -> None:
    parsed: list[tuple[str, Any]] = []
    state = SimpleNamespace(
        shard_count=2,
        parsers={
            "READY": lambda data: parsed.append(("READY", data["shard"][0])),
            "GUILD_CREATE": lambda data: parsed.append(("GUILD_CREATE", data["id"])),
        },
    )
    sessions = interactions_once.SessionGuilds()
    sessions.watch(state)
    kept, gone, joined = guild_on(0, 2, 1), guild_on(0, 2, 2), guild_on(0, 2, 3)
    elsewhere = guild_on(1, 2, 1)  # shard 1's: not this READY's to judge
    tables = [kept, gone, joined, elsewhere]
    assert sessions.left_out(0, tables, 2) == []  # no READY yet: nothing known, nothing closed
    # A new session's READY: its servers listed unavailable (GUILD_CREATEs follow); ``gone`` left out.
    state.parsers["READY"]({"shard": [0, 2], "guilds": [{"id": str(kept), "unavailable": True}]})
    state.parsers["GUILD_CREATE"]({"id": str(kept)})
    state.parsers["GUILD_CREATE"]({"id": str(joined)})  # added the bot since
    assert sessions.left_out(0, tables, 2) == [gone]
    assert sessions.left_out(1, tables, 2) == []
    assert parsed == [("READY", 0), ("GUILD_CREATE", str(kept)), ("GUILD_CREATE", str(joined))]


def test_a_server_that_removed_the_bot_leaves_its_sessions_list_and_one_in_an_outage_stays() -> None:
    """GUILD_DELETE without ``unavailable``: the bot was removed from the server, which leaves the list (a
    session's list holds no server the bot left, however long the session lives); with it, an outage: the
    server stays listed. discord.py still parses both."""
    parsed: list[str] = []
    state = SimpleNamespace(
        shard_count=1,
        parsers={
            "READY": lambda data: None,
            "GUILD_CREATE": lambda data: None,
            "GUILD_DELETE": lambda data: parsed.append(data["id"]),
        },
    )
    sessions = interactions_once.SessionGuilds()
    sessions.watch(state)
    out, removed = guild_on(0, 1, 1), guild_on(0, 1, 2)
    state.parsers["READY"]({"shard": [0, 1], "guilds": [{"id": str(out)}, {"id": str(removed)}]})
    state.parsers["GUILD_DELETE"]({"id": str(out), "unavailable": True})
    state.parsers["GUILD_DELETE"]({"id": str(removed)})
    assert sessions.left_out(0, [out, removed], 1) == [removed]
    assert sessions._listed == {0: {out}}
    assert parsed == [str(out), str(removed)]
