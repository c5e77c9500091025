"""Helpers: slash commands and autocompletes as a tampered client sends them (values Discord's own client
would refuse: out of the declared range, of the wrong type), built as raw INTERACTION_CREATE payloads."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import World
from tests.e2e.contexts import send_raw
from tests.fakediscord import FakeChannel, FakeUser
from tests.fakediscord.interactions import APPLICATION_COMMAND, AUTOCOMPLETE, InteractionHandle


def option_type(world: World, path: str, name: str) -> int:
    schema = next(c for c in world.fake.synced_commands() if c["name"] == "eights")
    node = schema
    for part in path.split():
        node = next(o for o in node["options"] if o["name"] == part)
    return int(next(o for o in node.get("options", []) if o["name"] == name)["type"])


def raw_data(world: World, path: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    schema = next(c for c in world.fake.synced_commands() if c["name"] == "eights")
    parts = path.split()
    built = options
    node = schema
    chain = []
    for part in parts:
        node = next(o for o in node["options"] if o["name"] == part)
        chain.append(node)
    for sub in reversed(chain):
        built = [{"type": sub["type"], "name": sub["name"], "options": built}]
    data: dict[str, Any] = {"id": schema["id"], "name": "eights", "type": 1, "options": built}
    if schema.get("guild_id"):
        data["guild_id"] = schema["guild_id"]
    return data


async def tampered(
    world: World,
    user: FakeUser,
    path: str,
    channel: FakeChannel | None = None,
    *,
    focused: str | None = None,
    **values: Any,
) -> InteractionHandle:
    """``/eights <path>`` with ``values`` sent as they are (each with the type the schema declares)."""
    options = []
    for name, value in values.items():
        option: dict[str, Any] = {"type": option_type(world, path, name), "name": name, "value": value}
        if name == focused:
            option["focused"] = True
        options.append(option)
    kind = AUTOCOMPLETE if focused else APPLICATION_COMMAND
    handle = await send_raw(
        world.fake, kind, user, channel or world.channel, raw_data(world, path, options), guild=world.guild
    )
    if focused:
        handle.record.focused_type = option_type(world, path, focused)
    return handle
