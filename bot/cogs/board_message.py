"""The table's board message: its fields (embed, buttons, picture), posting it, editing it in place, and
posting it again when it is gone.

``BoardMessages`` knows which message is each table's board (as last set by this process, else as stored)
and sends the requests; when to send them (the board lane, its turns of the global budget and its retries)
is ``bot.cogs.publisher``'s business. An edit sends only what changed and is skipped when the board would
look the same as the last one this process showed (``TableFeed.board_embed``, ``board_view_key``,
``board_picture_key``). In a channel where the bot may not attach files, boards go on without the picture.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.cogs.table_feed import TableFeed, board_view_key
from bot.service import TableSnapshot
from bot.ui import render
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardPicture
from bot.ui.controls import board_view

log = logging.getLogger(__name__)


def picture_file(picture: BoardPicture) -> discord.File:
    """The board picture as an upload, described for screen readers."""
    return discord.File(io.BytesIO(picture.png), picture.filename, description=picture.alt_text)


class BoardMessages:
    """Each table's board message. ``on_posted(table_id, message_id)``: a new board message was posted."""

    def __init__(
        self,
        client: discord.Client,
        appearance: Appearance,
        on_posted: Callable[[int, int], Awaitable[None]],
    ) -> None:
        self.client = client
        self.appearance = appearance
        self.on_posted = on_posted
        self._boards: dict[int, int] = {}  # table id -> board message id, as last set by this process
        self._no_files: set[int] = set()  # channels where the bot may not attach files: no board picture

    def remember(self, table_id: int, message_id: int) -> None:
        self._boards[table_id] = message_id

    def forget(self, table_id: int) -> None:
        self._boards.pop(table_id, None)

    def board_id(self, snapshot: TableSnapshot) -> int | None:
        return self._boards.get(snapshot.table_id, snapshot.board_message_id)

    async def post(self, snapshot: TableSnapshot) -> int | None:
        """Post the board as a fresh message in the table's channel and make it the board."""
        try:
            return await self._post(snapshot)
        except discord.HTTPException as error:
            log.warning("table %s: could not post the board: %s", snapshot.table_id, error)
            return None

    async def fields(self, snapshot: TableSnapshot) -> dict[str, Any]:
        """The board as message fields (``embed``, ``view`` when it has buttons, ``file``: the picture when
        the server shows it), for ``send`` or an interaction response."""
        fields: dict[str, Any] = {
            "embed": render.board_embed(snapshot, await self.appearance.faces(snapshot.guild_id))
        }
        view = board_view(snapshot)
        if view is not None:
            fields["view"] = view
        picture = await self._picture(snapshot)
        if picture is not None:
            fields["file"] = picture_file(picture)
        return fields

    async def _picture(self, snapshot: TableSnapshot) -> BoardPicture | None:
        if snapshot.channel_id in self._no_files:
            return None
        return await self.appearance.picture(snapshot)

    def _files_refused(self, snapshot: TableSnapshot, error: discord.Forbidden) -> None:
        """Without Attach Files in a channel, its boards go on as text (said once per channel)."""
        if snapshot.channel_id not in self._no_files:
            self._no_files.add(snapshot.channel_id)
            log.warning(
                "table %s: the board picture was refused in channel %s (%s; Attach Files missing?); "
                "its boards are shown without the picture",
                snapshot.table_id,
                snapshot.channel_id,
                error.text or error.status,
            )

    async def _post(self, snapshot: TableSnapshot) -> int:
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        fields = await self.fields(snapshot)
        try:
            message = await channel.send(**fields)
        except discord.Forbidden as error:
            if fields.pop("file", None) is None:
                raise
            self._files_refused(snapshot, error)
            message = await channel.send(**fields)
        await self.on_posted(snapshot.table_id, message.id)
        return message.id

    async def check(self, snapshot: TableSnapshot, feed: TableFeed) -> None:
        board_id = self.board_id(snapshot)
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        if board_id is not None:
            try:
                await channel.fetch_message(board_id)
            except discord.NotFound:
                board_id = None
            except discord.HTTPException as error:
                log.warning("table %s: could not check the board: %s", snapshot.table_id, error)
                return
        if board_id is None:
            await self.post(snapshot)
        else:
            self._boards[snapshot.table_id] = board_id
            with contextlib.suppress(discord.HTTPException):
                await self.edit(snapshot, feed)

    def unchanged(self, snapshot: TableSnapshot, feed: TableFeed) -> bool:
        if self.board_id(snapshot) is None:
            return False
        embed_data = dict(
            render.board_embed(snapshot, self.appearance.cached_faces(snapshot.guild_id)).to_dict()
        )
        picture_key = None if snapshot.channel_id in self._no_files else self.appearance.picture_key(snapshot)
        return (
            embed_data == feed.board_embed
            and board_view_key(snapshot) == feed.board_view_key
            and picture_key == feed.board_picture_key
        )

    async def edit(self, snapshot: TableSnapshot, feed: TableFeed) -> None:
        """Show ``snapshot`` on the board (posting it again if its message is gone). Raises what failed."""
        board_id = self.board_id(snapshot)
        if board_id is None:
            await self._post(snapshot)
            return
        embed = render.board_embed(snapshot, await self.appearance.faces(snapshot.guild_id))
        embed_data: dict[str, Any] = dict(embed.to_dict())
        view_key = board_view_key(snapshot)
        view_changed = view_key != feed.board_view_key
        picture = await self._picture(snapshot)
        picture_key = picture.key if picture is not None else None
        picture_changed = picture_key != feed.board_picture_key
        if embed_data == feed.board_embed and not view_changed and not picture_changed:
            return
        message = self.client.get_partial_messageable(
            snapshot.channel_id, guild_id=snapshot.guild_id
        ).get_partial_message(board_id)
        # Only what changed is sent: the buttons and the picture stay as they are otherwise.
        fields: dict[str, Any] = {"embed": embed}
        if view_changed:
            fields["view"] = board_view(snapshot)
        if picture_changed:
            fields["attachments"] = [picture_file(picture)] if picture is not None else []
        try:
            try:
                await message.edit(**fields)
            except discord.Forbidden as error:
                if not fields.get("attachments"):
                    raise
                self._files_refused(snapshot, error)
                fields["attachments"] = []
                picture_key = None
                await message.edit(**fields)
        except discord.NotFound:
            if self._boards.get(snapshot.table_id, board_id) != board_id:
                return  # a newer board was posted meanwhile
            log.info("table %s: the board message was deleted; posting it again", snapshot.table_id)
            if snapshot.open:
                await self._post(snapshot)
            return
        feed.board_embed = embed_data
        feed.board_view_key = view_key
        feed.board_picture_key = picture_key
