"""The interaction that carries a table's board: its board message is one that interaction posted.

Discord lets an interaction's token edit and delete the messages that interaction posted (its original
response and its follow-ups) for 15 minutes, through the interaction webhook, which is exempt from the bot's
global rate limit (it has a limit of its own per token, which discord.py reads from the headers and obeys). A
board posted as the answer to ``/eights new`` or ``/eights status``, or as a follow-up of a player's
interaction, is edited that way while the token lives, so a busy table's board never waits for the global
budget. ``BoardCarrier`` holds that interaction and the message; ``bot.delivery.publisher`` decides when the
board moves to a newer interaction (``REPOST_AFTER``) and when it falls back to the channel routes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.delivery import webhook_calls
from bot.delivery.hand_session import HAND_EDIT_WINDOW

# Past this age the board is posted again from a newer interaction of the table when one is at hand, so the
# old token never runs out under a busy table (and the board comes back near the bottom of the channel).
REPOST_AFTER = 10 * 60.0


@dataclass(slots=True)
class BoardCarrier:
    """``message_id`` was posted by ``interaction`` (``original``: as its response, else as a follow-up);
    ``since``: the lanes' clock when the interaction arrived."""

    interaction: discord.Interaction
    since: float
    message_id: int
    original: bool

    def fresh(self, now: float) -> bool:
        """Whether the token can still edit the message (with a margin before Discord's 15 minutes, and not
        refused already: ``webhook_calls.is_spent``)."""
        return now - self.since < HAND_EDIT_WINDOW and not webhook_calls.is_spent(self.interaction)

    def aging(self, now: float) -> bool:
        """Time to move the board to a newer interaction, if one is at hand."""
        return now - self.since >= REPOST_AFTER

    async def edit(self, **fields: Any) -> None:
        # No message object is built from the answer: the board's edits need none.
        if self.original:
            await webhook_calls.edit_original(self.interaction, **fields)
        else:
            await webhook_calls.edit_followup(self.interaction, self.message_id, **fields)

    async def delete(self) -> None:
        if self.original:
            await self.interaction.delete_original_response()
        else:
            await self.interaction.followup.delete_message(self.message_id)
