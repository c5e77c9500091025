"""The standings subcommands of /eights: leaderboard, stats and history. Each resolves who and where, calls
``StandingsService`` and renders with ``bot.ui.standings``. A mistaken request (a ``ServiceError``) gets a
short private answer here; anything unexpected goes to the group's error handler (``bot.exts._group``), or,
for the leaderboard's page buttons, to ``answering_control``. Every answer goes through
``bot.delivery.answers``, which knows whether the deferral watchdog answered first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext.commands.bot import BotBase

from bot.delivery import answers
from bot.exts._group import EightsGroup, FeatureCog, answering_control
from bot.exts.channel_access import readable_where_asked
from bot.exts.server import ServerCog
from bot.i18n import N_, _, use_locale
from bot.service.errors import ServiceError
from bot.service.standings import BoardSort, StandingsService
from bot.ui.appearance import TEXT_ONLY, Appearance
from bot.ui.replays import history_view
from bot.ui.standings import (
    SERVER_COG,
    STANDINGS_COG,
    history_embed,
    is_leaderboard,
    leaderboard_embed,
    leaderboard_view,
    stats_embed,
    stats_picture,
)

NOT_IN_GUILD = N_("Use this command in a server.")


async def _private(interaction: discord.Interaction, message: str) -> None:
    await answers.answer_privately(interaction, message)


class StandingsCog(FeatureCog, name=STANDINGS_COG):
    """This server's leaderboard, a player's statistics, the last matches: public messages, in the server's
    language (``appearance``); a refusal is its asker's alone, in theirs. A server that lists its table
    channels (/eights settings) has them in public there only: asked anywhere else, they are the asker's
    alone too."""

    def __init__(
        self, group: EightsGroup, standings: StandingsService, appearance: Appearance = TEXT_ONLY
    ) -> None:
        super().__init__(group)
        self.standings = standings
        self.appearance = appearance

    async def _public(self, guild_id: int) -> str:
        return await self.appearance.language(guild_id)

    async def _answer(
        self, interaction: discord.Interaction, build: Callable[[], Awaitable[dict[str, Any]]]
    ) -> None:
        """The answer ``build`` makes (its embed, view, file): public in one of the server's table
        channels, in the server's language; private elsewhere, in the asker's."""
        assert interaction.guild_id is not None
        client = interaction.client
        server = client.get_cog(SERVER_COG) if isinstance(client, BotBase) else None
        if isinstance(server, ServerCog) and not await server.in_table_channels(interaction):
            fields = {name: value for name, value in (await build()).items() if value is not None}
            await answers.answer_privately(interaction, None, **fields)
            return
        with use_locale(await self._public(interaction.guild_id)):
            fields = await build()
        await answers.answer_publicly(interaction, **fields)

    async def on_leaderboard_page(
        self, interaction: discord.Interaction[Any], guild_id: int, sort: BoardSort, page: int, viewer_id: int
    ) -> None:
        """Previous or Next under a leaderboard (``bot.ui.standings.LeaderboardPageButton``): that message,
        edited in place to show the page. Pressed on any other message (only a tampered client sends it
        there), the page is a new private message and that message is left alone."""
        data: dict[str, Any] = dict(interaction.data or {})
        pressed = str(data.get("custom_id", ""))
        in_place = is_leaderboard(interaction.message, pressed)
        async with answering_control(interaction, "leaderboard", update=in_place):
            if interaction.guild_id != guild_id:
                await _private(interaction, _("This leaderboard belongs to another server."))
                return
            shown = await self.standings.leaderboard(
                guild_id, viewer_id=viewer_id, sort=sort, page=page, clamp=True
            )
            message = interaction.message
            if in_place and message is not None and message.flags.ephemeral:
                # A leaderboard answered privately (outside the table channels): in the asker's language.
                embed, view = leaderboard_embed(shown), leaderboard_view(shown)
            else:
                with use_locale(await self._public(guild_id)):
                    embed, view = leaderboard_embed(shown), leaderboard_view(shown)
            if in_place:
                await answers.edit_in_place(interaction, embed=embed, view=view)
            else:
                await answers.answer_privately(interaction, None, embed=embed, view=view)

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
            await _private(interaction, _(NOT_IN_GUILD))
            return
        try:
            board = await self.standings.leaderboard(
                interaction.guild_id, viewer_id=interaction.user.id, sort=sort, page=page
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return

        async def build() -> dict[str, Any]:
            return {"embed": leaderboard_embed(board), "view": leaderboard_view(board)}

        await self._answer(interaction, build)

    @app_commands.command(name="stats", description="A player's Crazy Eights statistics in this server.")
    @app_commands.describe(member="Whose statistics (default: yours)")
    async def stats(self, interaction: discord.Interaction, member: discord.User | None = None) -> None:
        if interaction.guild_id is None:
            await _private(interaction, _(NOT_IN_GUILD))
            return
        user = member or interaction.user
        try:
            stats = await self.standings.stats(
                interaction.guild_id, user.id, own=user.id == interaction.user.id
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return

        async def build() -> dict[str, Any]:
            # The rating over the last matches, once there is one.
            return {"embed": stats_embed(stats), "file": await stats_picture(stats)}

        await self._answer(interaction, build)

    @app_commands.command(name="history", description="This server's last Crazy Eights matches.")
    async def history(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None:
            await _private(interaction, _(NOT_IN_GUILD))
            return
        try:
            matches = await self.standings.history(
                interaction.guild_id, readable=readable_where_asked(interaction)
            )
        except ServiceError as error:
            await _private(interaction, error.message)
            return

        async def build() -> dict[str, Any]:
            # The Replay select: bot.exts.replays.
            return {"embed": history_embed(matches), "view": history_view(matches)}

        await self._answer(interaction, build)
