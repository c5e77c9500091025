"""The standings subcommands of /eights: leaderboard, stats, history, settings and forget.

``StandingsCommands`` is a mixin, not a cog: ``EightsCog`` (a ``GroupCog`` named "eights") inherits from
it, and discord.py's CogMeta walks the class's MRO, so these commands become /eights subcommands. Each
command resolves who and where, calls ``StandingsService`` and renders with ``bot.ui.standings``. A
mistaken request (a ``ServiceError``) gets a short private answer here; anything unexpected goes to the cog's
error handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import answers
from bot.engine import RulesetError, house
from bot.engine.rules import PRESETS
from bot.service.errors import ServiceError
from bot.service.standings import MAX_TURN_TIMEOUT, MIN_TURN_TIMEOUT, StandingsService
from bot.ui.appearance import Appearance
from bot.ui.standings import (
    FORGET_QUESTION,
    forget_view,
    history_embed,
    leaderboard_embed,
    leaderboard_view,
    settings_embed,
    stats_embed,
    stats_picture,
)

if TYPE_CHECKING:
    # For the type checker only: app_commands.command expects its methods on a Cog, and the class that
    # really carries them, EightsCog, is one. At run time the mixin stays a plain class (module docstring).
    _MixinBase = commands.Cog
else:
    _MixinBase = object

NOT_IN_GUILD = "Use this command in a server."
NO_MENTIONS = discord.AllowedMentions.none()


async def _private(interaction: discord.Interaction, message: str) -> None:
    await interaction.response.send_message(message, ephemeral=True)


class StandingsCommands(_MixinBase):
    bot: commands.Bot
    _standings: StandingsService | None = None

    @property
    def standings(self) -> StandingsService:
        """Built on first use, because the bot's store is opened in setup_hook, after the cog is created."""
        if self._standings is None:
            self._standings = StandingsService.of(self.bot)
        return self._standings

    @app_commands.command(name="leaderboard", description="This server's best Crazy Eights players.")
    @app_commands.describe(
        sort="What to rank by (default: rating once the server has ratings, else wins)",
        page="Which page of ten (default: 1)",
    )
    @app_commands.choices(
        sort=[
            app_commands.Choice(name="rating (OpenSkill)", value="rating"),
            app_commands.Choice(name="wins", value="wins"),
            app_commands.Choice(name="win rate (at least 5 matches)", value="winrate"),
            app_commands.Choice(name="points", value="points"),
        ]
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        sort: str | None = None,
        page: app_commands.Range[int, 1, 1_000_000] = 1,
    ) -> None:
        if interaction.guild_id is None:
            await _private(interaction, NOT_IN_GUILD)
            return
        try:
            board = await self.standings.leaderboard(
                interaction.guild_id, viewer_id=interaction.user.id, sort=sort, page=page
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return
        await interaction.response.send_message(
            embed=leaderboard_embed(board), view=leaderboard_view(board), allowed_mentions=NO_MENTIONS
        )

    @app_commands.command(name="stats", description="A player's Crazy Eights statistics in this server.")
    @app_commands.describe(member="Whose statistics (default: yours)")
    async def stats(self, interaction: discord.Interaction, member: discord.User | None = None) -> None:
        if interaction.guild_id is None:
            await _private(interaction, NOT_IN_GUILD)
            return
        user = member or interaction.user
        try:
            stats = await self.standings.stats(
                interaction.guild_id, user.id, own=user.id == interaction.user.id
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return
        picture = stats_picture(stats)  # the rating over the last matches, once there is one
        await interaction.response.send_message(
            embed=stats_embed(stats),
            allowed_mentions=NO_MENTIONS,
            files=[] if picture is None else [picture],
        )

    @app_commands.command(name="history", description="This server's last Crazy Eights matches.")
    async def history(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None:
            await _private(interaction, NOT_IN_GUILD)
            return
        try:
            matches = await self.standings.history(interaction.guild_id)
        except ServiceError as error:
            await _private(interaction, error.message)
            return
        await interaction.response.send_message(embed=history_embed(matches), allowed_mentions=NO_MENTIONS)

    @app_commands.command(
        name="settings", description="Show or change this server's Crazy Eights settings (Manage Server)."
    )
    @app_commands.describe(
        default_preset="The preset new tables use",
        turn_timeout=f"Seconds a player has for a turn ({MIN_TURN_TIMEOUT}–{MAX_TURN_TIMEOUT})",
        allow_channel="Add a channel where tables may be opened (none listed: any channel)",
        disallow_channel="Remove a channel from that list",
        clear_channels="Empty the list, so tables may be opened in any channel",
        manager_role="A role whose members may manage tables",
        clear_manager_role="Remove the manager role",
        house_option="A house rule new tables start with (with house_value)",
        house_value="Its value (the list offers the values it takes)",
        clear_house_rules="New tables start from their preset as it is",
        card_emojis="Show the card pictures (emojis) beside the card names",
        board_picture="Attach a picture of the table to the board message",
    )
    @app_commands.choices(default_preset=[app_commands.Choice(name=name, value=name) for name in PRESETS])
    async def settings(
        self,
        interaction: discord.Interaction,
        default_preset: str | None = None,
        turn_timeout: app_commands.Range[int, MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT] | None = None,
        allow_channel: discord.TextChannel | None = None,
        disallow_channel: discord.TextChannel | None = None,
        clear_channels: bool = False,
        manager_role: discord.Role | None = None,
        clear_manager_role: bool = False,
        house_option: str | None = None,
        house_value: str | None = None,
        clear_house_rules: bool = False,
        card_emojis: bool | None = None,
        board_picture: bool | None = None,
    ) -> None:
        if interaction.guild_id is None:
            await _private(interaction, NOT_IN_GUILD)
            return
        # Checked here, when the command runs, and not only through default permissions: a server can grant
        # the command to anyone in its integration settings, and those overrides must not open the settings.
        if not interaction.permissions.manage_guild:
            await _private(interaction, "You need the Manage Server permission to use this command.")
            return
        changes = (
            default_preset is not None
            or turn_timeout is not None
            or allow_channel is not None
            or disallow_channel is not None
            or clear_channels
            or manager_role is not None
            or clear_manager_role
            or house_option is not None
            or house_value is not None
            or clear_house_rules
            or card_emojis is not None
            or board_picture is not None
        )
        try:
            if not changes:
                settings = await self.standings.settings(interaction.guild_id)
            else:
                settings = await self.standings.update_settings(
                    interaction.guild_id,
                    default_preset=default_preset,
                    turn_timeout=turn_timeout,
                    allow_channel=allow_channel.id if allow_channel else None,
                    disallow_channel=disallow_channel.id if disallow_channel else None,
                    clear_channels=clear_channels,
                    manager_role=manager_role.id if manager_role else None,
                    clear_manager_role=clear_manager_role,
                    house_option=house_option,
                    house_value=house_value,
                    clear_house_rules=clear_house_rules,
                )
            display = await self.standings.update_card_display(
                interaction.guild_id, card_emojis=card_emojis, board_picture=board_picture
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return
        appearance = getattr(self.bot, "appearance", None)
        if isinstance(appearance, Appearance):
            # Boards and hands use the new switches from their next update on.
            appearance.set_switches(interaction.guild_id, display)
        await interaction.response.send_message(
            embed=settings_embed(settings, display, changed=changes), ephemeral=True
        )

    @settings.autocomplete("house_option")
    async def settings_house_option_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=option.label, value=option.key)
            for option in house.OPTIONS
            if not typed or typed in option.label.lower() or typed in option.key.replace("_", " ")
        ][:25]

    @settings.autocomplete("house_value")
    async def settings_house_value_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        option = str(getattr(interaction.namespace, "house_option", "") or "")
        try:
            values = house.suggestions(option, current)
        except RulesetError:
            return []
        return [app_commands.Choice(name=label[:100], value=code[:100]) for code, label in values[:25]]

    @app_commands.command(name="forget", description="Delete your Crazy Eights statistics everywhere.")
    async def forget(self, interaction: discord.Interaction) -> None:
        # The deletion itself happens when the member confirms (bot.ui.standings.ForgetButton).
        view = forget_view(interaction.user.id)
        await interaction.response.send_message(FORGET_QUESTION, view=view, ephemeral=True)
        answers.release(view)
