"""/eights replay and the replay's controls. Each resolves who and where, asks ``ReplayService`` for the
step as the clicker may see it and renders it privately; a mistaken request (a ``ServiceError``: no such
match here, a pruned move log) gets a short private answer, and anything unexpected goes to the group's
error handler (``bot.exts._group``)."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands

from bot.delivery import answers
from bot.exts._group import EightsGroup, FeatureCog, answering_control
from bot.exts.autocomplete import quiet_autocomplete
from bot.exts.channel_access import readable_by_member
from bot.i18n import N_, _
from bot.service.replays import ReplayService
from bot.ui.appearance import Appearance
from bot.ui.replays import REPLAYS_COG, recent_choice_name, replay_embed, replay_view

NOT_IN_GUILD = N_("Use this command in a server.")


class ReplaysCog(FeatureCog, name=REPLAYS_COG):
    """Finished matches of this server, step by step."""

    def __init__(self, group: EightsGroup, replays: ReplayService, appearance: Appearance) -> None:
        super().__init__(group)
        self.replays = replays
        self.appearance = appearance

    async def on_replay_step(
        self, interaction: discord.Interaction[Any], table_id: int, step: int, *, new: bool
    ) -> None:
        """Show step ``step`` of the match: a new private message (``new``), else the replay's own message
        edited in place. A replay's message is private: a step pressed on a public one (only a tampered client
        sends it there) is a new private message, and that message is left alone."""
        new = new or not answers.from_private_message(interaction)
        # (a command is watched by the cog's ``interaction_check``)
        component = interaction.type is discord.InteractionType.component
        async with answering_control(interaction, "replay", update=not new if component else None):
            guild_id = interaction.guild_id
            if guild_id is None:
                await answers.answer_privately(interaction, _(NOT_IN_GUILD))
                return
            await self._show(interaction, guild_id, table_id, step, new=new)

    async def _show(
        self, interaction: discord.Interaction[Any], guild_id: int, table_id: int, step: int, *, new: bool
    ) -> None:
        shown = await self.replays.step(
            guild_id, table_id, interaction.user.id, step, readable=readable_by_member(interaction)
        )
        faces = await self.appearance.faces(guild_id)
        picture = await self.appearance.picture(shown.snapshot)
        embed = replay_embed(shown, faces)
        files: list[discord.File] = []
        if picture is not None:
            embed.set_image(url=f"attachment://{picture.filename}")
            files.append(
                discord.File(io.BytesIO(picture.png), picture.filename, description=picture.alt_text)
            )
        view = replay_view(shown)
        if new:
            await answers.answer_privately(interaction, None, embed=embed, view=view, files=files)
        else:
            await answers.edit_in_place(interaction, embed=embed, view=view, attachments=files)

    @app_commands.command(name="replay", description="Step through a finished match of this server.")
    @app_commands.describe(match="The match (its number in /eights history)")
    async def replay(self, interaction: discord.Interaction, match: app_commands.Range[int, 1]) -> None:
        await self.on_replay_step(interaction, match, 0, new=True)

    @replay.autocomplete("match")
    @quiet_autocomplete  # the recent matches are read from the database: answered in time, or with none
    async def _match_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        if interaction.guild_id is None:
            return []
        found = await self.replays.recent(
            interaction.guild_id,
            str(current or ""),
            viewer_id=interaction.user.id,
            readable=readable_by_member(interaction),
        )
        return [app_commands.Choice(name=recent_choice_name(m), value=m.table_id) for m in found[:25]]
