"""The lobby's /eights commands: new, join, leave, cpu, start, end and kick."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.delivery.answers import (
    EMBED_LINKS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    answer_privately,
    answer_publicly,
)
from bot.exts.server import thread_parent
from bot.exts.tables._base import NOT_A_MEMBER, NOT_IN_GUILD, PRESET_CHOICES, TableCog, bot_absent
from bot.i18n import N_, _, ngettext
from bot.service import ServiceError
from bot.service.lobby import MAX_TARGET, MIN_TARGET
from bot.ui.names import shown_name
from bot.ui.render import cpu_level

REQUIRED_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", VIEW_CHANNEL),
    ("send_messages", SEND_MESSAGES),
    ("send_messages_in_threads", SEND_MESSAGES_IN_THREADS),
    ("embed_links", EMBED_LINKS),
    ("read_message_history", N_("Read Message History")),
)
# Discord's Send Messages does not cover threads (a forum post is one): there it takes Send Messages in
# Threads instead. Each is checked where Discord asks for it.
_NOT_IN_THREADS = "send_messages"
_IN_THREADS_ONLY = "send_messages_in_threads"


def missing_permissions(interaction: discord.Interaction) -> list[str]:
    """What the bot lacks, of what a table needs in the interaction's channel (names to translate)."""
    skipped = _NOT_IN_THREADS if thread_parent(interaction) is not None else _IN_THREADS_ONLY
    granted = interaction.app_permissions
    return [label for name, label in REQUIRED_PERMISSIONS if name != skipped and not getattr(granted, name)]


class LobbyCog(TableCog, name="Eights lobby"):
    @app_commands.command(name="new", description="Open a Crazy Eights table in this channel.")
    @app_commands.describe(
        preset="The rules (default: the server's default, classic)",
        target="Target score: the match ends when a total passes it (reaches it, with payment scoring)",
        seats="How many seats, 2 to the ruleset's maximum",
        turn_timeout="Seconds a player has for a turn (15 to 86400)",
        teams="crazier-abilities: two teams seated alternately (4 or 6 players)",
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        target: app_commands.Range[int, MIN_TARGET, MAX_TARGET] | None = None,
        seats: app_commands.Range[int, 2, 8] | None = None,
        turn_timeout: app_commands.Range[int, 15, 86_400] | None = None,
        teams: bool = False,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await answer_privately(interaction, _(NOT_IN_GUILD))
            return
        if bot_absent(interaction):
            # Its app permissions are what Discord gives a user's app, not the bot's: no advice to grant any.
            await answer_privately(interaction, _(NOT_A_MEMBER))
            return
        missing = missing_permissions(interaction)
        if missing:
            # (The names are joined first: a ``_()`` among ngettext's arguments makes the extractor read the
            # whole call as ``_()``, and the plural message would be missing from the catalogues.)
            names = ", ".join(_(label) for label in missing)
            await answer_privately(
                interaction,
                ngettext(
                    "I can't run a table in this channel: I'm missing the permission {permissions}.",
                    "I can't run a table in this channel: I'm missing the permissions {permissions}.",
                    len(missing),
                    permissions=names,
                ),
            )
            return
        try:
            outcome = await self.service.open_table(
                interaction.guild_id,
                interaction.channel_id,
                self.actor(interaction),
                preset=preset,
                target=target,
                seats=seats,
                turn_timeout=float(turn_timeout) if turn_timeout is not None else None,
                teams=teams,
                parent_id=thread_parent(interaction),
            )
        except ServiceError as error:
            text = error.message
            if error.code == "table_exists" and error.table_id is not None:
                try:
                    board = self.publisher.board_id(await self.service.snapshot(error.table_id))
                except ServiceError:
                    board = None
                if board:
                    link = f"https://discord.com/channels/{interaction.guild_id}/{interaction.channel_id}/{board}"
                    text += " " + _("The table: {link}", link=link)
            await answer_privately(interaction, text)
            return
        snapshot = outcome.snapshot
        async with self.publisher.board_coming(snapshot.table_id):
            message_id = await answer_publicly(interaction, **await self.publisher.board_message(snapshot))
            if message_id is not None:
                await self.publisher.remember_board(snapshot.table_id, message_id, via=interaction)

    @app_commands.command(name="join", description="Take a seat at this channel's table.")
    async def join(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.join(table_id, self.actor(interaction))
        self.publisher.publish(outcome)
        if outcome.snapshot.phase == "lobby":
            await answer_privately(interaction, _("You're seated. The host starts the game."))
        else:
            await self.show_hand(interaction, table_id, note=_("You took your seat back."))

    @app_commands.command(
        name="leave", description="Leave this channel's table (a CPU player takes over a game)."
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.leave(table_id, self.actor(interaction))
        self.publisher.publish(outcome)
        playing = outcome.snapshot.phase != "lobby" and outcome.snapshot.open
        await answer_privately(
            interaction,
            _("You left. A CPU player plays your seat; /eights join takes it back.")
            if playing
            else _("You left the table."),
        )

    @app_commands.command(name="cpu", description="Add a CPU player (host or manager).")
    @app_commands.describe(level="How well it plays (default: normal)")
    @app_commands.choices(
        level=[app_commands.Choice(name=name, value=name) for name in ("easy", "normal", "hard")]
    )
    async def cpu(self, interaction: discord.Interaction, level: str = "normal") -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.add_cpu(table_id, await self.manager_actor(interaction), level)
        self.publisher.publish(outcome)
        await answer_privately(interaction, _("A CPU player ({level}) sat down.", level=cpu_level(level)))

    @app_commands.command(
        name="start",
        description="Deal the first round (host or manager; at least two seats, exactly four in a"
        " partnership).",
    )
    async def start(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.start_table(interaction, table_id)

    @app_commands.command(name="end", description="Abandon this channel's table (host or manager).")
    async def end(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.end(table_id, await self.manager_actor(interaction))
        self.publisher.publish(outcome)
        await answer_privately(interaction, _("The table is closed."))

    @app_commands.command(
        name="kick",
        description="Remove a player (host or manager); during a game a CPU player takes their seat.",
    )
    @app_commands.describe(member="The player to remove")
    # A User, not a Member: a player who left the server comes as a user only (the bot has no members
    # intent), and must still be removable.
    async def kick(self, interaction: discord.Interaction, member: discord.User) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.kick(table_id, await self.manager_actor(interaction), member.id)
        self.publisher.publish(outcome)
        await answer_privately(
            interaction, _("{name} was removed from the table.", name=shown_name(member.display_name))
        )
