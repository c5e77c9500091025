"""The tables feature: a Crazy Eights table in a channel, from opening to the final ranking.

- ``_base``: ``TableCog``, what the table cogs share (who acts, the channel's table, showing a hand, making a
  move, dealing the first round) and the deferral watchdog on every one of their commands;
- ``_lobby``: new, join, leave, cpu, start, end, kick; ``_play``: hand, play, draw, pass, last, catch, suit;
  ``_information``: status, scores, rules; ``_house_rules``: ``/eights house`` and the House rules panel;
- ``_controls``: the table's buttons, selects and forms; ``_channels``: channels deleted, the bot removed
  from a server, permissions changed.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.delivery.publisher import TablePublisher
from bot.exts._group import EightsGroup
from bot.exts.tables._channels import ChannelsCog
from bot.exts.tables._controls import ControlsCog
from bot.exts.tables._house_rules import HouseCog
from bot.exts.tables._information import InformationCog
from bot.exts.tables._lobby import LobbyCog
from bot.exts.tables._play import PlayCog
from bot.service import TableService
from bot.ui.controls import DYNAMIC_ITEMS


async def setup(
    bot: commands.Bot, group: EightsGroup, service: TableService, publisher: TablePublisher
) -> list[commands.Cog]:
    """Add the table cogs (their commands under ``group``) and register the table's persistent controls.
    Returns the cogs added."""
    # Every command of the bot is an /eights subcommand, and Discord sets where a command may be used on the
    # top-level one: the whole group is for servers that added the bot. Installed by a user (User Install),
    # the app could be used in servers the bot is not in, where no table can run (``_base.bot_absent``
    # answers so all the same), and the standings, replays and settings are of the bot's servers only.
    group.allowed_installs = app_commands.AppInstallationType(guild=True, user=False)
    group.allowed_contexts = app_commands.AppCommandContext(
        guild=True, dm_channel=False, private_channel=False
    )
    hands = publisher.hands
    house = HouseCog(bot, group, service, publisher, hands)
    cogs: list[commands.Cog] = [
        LobbyCog(bot, group, service, publisher, hands),
        PlayCog(bot, group, service, publisher, hands),
        InformationCog(bot, group, service, publisher, hands),
        house,
        ControlsCog(bot, group, service, publisher, hands, house),
        ChannelsCog(bot, service, publisher),
    ]
    for cog in cogs:
        await bot.add_cog(cog)
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    return cogs
