"""The table's board message: its fields (embed, buttons, picture), posting it, editing it in place, and
posting it again when it is gone.

``BoardMessages`` knows which message is each table's board (as last set by this process, else as stored)
and sends the requests; when to send them (the board lane, its turns of the global budget and its retries)
is ``bot.delivery.publisher``'s business. An edit sends only what changed and is skipped when the board would
look the same as the last one this process showed (``TableFeed.board_embed``, ``board_view_key``,
``board_picture_key``). What the picture of each board message shows is recorded (a digest, through the
table service), so that a restarted process does not upload an unchanged picture again. In a channel where
the bot may not attach files, a board sent through the channel goes without the picture (one refused upload,
said once in the log); one sent through an interaction (its answer, follow-ups and their edits) carries it,
since Discord grants interactions Attach Files whatever the bot's own permissions.

A board restored from the store (a table the previous process ran) is checked before this process first shows
it (``restored``, ``check``): the id the store holds may name a message a moderator deleted, and a board the
previous process posted just before it stopped (Discord took it, the id was never recorded) is in the channel
all the same, with live buttons. The check reads the channel's latest messages once (``HISTORY_PAGE``, in
place of fetching the recorded board: one request per restored table, as before), adopts the table's newest
board found there, deletes its other boards, and posts the board only when none is left. It runs in the
table's board lane (``BoardMessages.edit``), so nothing else shows the table's board meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Protocol, TypeVar

import discord

from bot.delivery.carrier import BoardCarrier
from bot.delivery.channel_refusals import MISSING_PERMISSIONS, UNKNOWN_MESSAGE, is_gone
from bot.delivery.feed import UNKNOWN, TableFeed, board_view_key
from bot.delivery.store_failures import level_of
from bot.i18n import current_locale, use_locale
from bot.service import TableSnapshot
from bot.ui import render
from bot.ui.appearance import Appearance
from bot.ui.art.board import BoardPicture
from bot.ui.controls import BUTTON_TEMPLATE, CPU, HAND, HOUSE, JOIN, LEAVE, NEXT, START, board_view, release
from bot.ui.faces import CardFaces

T = TypeVar("T")
log = logging.getLogger(__name__)

# The channel's latest messages a restored board's check reads (one request): the board of a post the previous
# process never recorded is among them (it was the last thing the bot posted there), and so is, nearly always,
# the recorded board, whose message is fetched only when it is older than all of them and no board of the
# table is among them.
HISTORY_PAGE = 50
# How long a board posted another way waits for a check under way (``check_settled``): a page read and a post.
CHECK_SETTLE_WAIT = 10.0
# The actions of the board's buttons (``bot.ui.controls.board_view``): a public message of the bot carrying
# one of these for a table is that table's board (its other controls are on private messages).
BOARD_ACTIONS = frozenset({JOIN, LEAVE, CPU, START, HOUSE, HAND, NEXT})


def picture_file(picture: BoardPicture) -> discord.File:
    """The board picture as an upload, described for screen readers."""
    return discord.File(_Upload(picture.png), picture.filename, description=picture.alt_text)


class _Upload(io.BytesIO):
    """discord.File replaces its file's ``close`` with a no-op while it sends (so that aiohttp cannot close it
    before a retry) and puts the real one back when done, in the file's own attributes: a cycle (the file, its
    attributes, its bound ``close``, the file) left to the cyclic garbage collector for every picture sent.
    Here the real ``close``, given back, is the class's again, and no cycle is made."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "close" and getattr(value, "__self__", None) is self:
            self.__dict__.pop("close", None)
            return
        super().__setattr__(name, value)


def picture_digest(key: Hashable | None) -> str | None:
    """A short, stable digest of what a picture shows (``BoardPicture.key``: public fields of plain values,
    whose repr is the same in every process), to compare with what a board shows, across restarts too.
    None for no picture."""
    if key is None:
        return None
    return hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:32]


class PictureRecords(Protocol):
    """Where what each board's picture shows is kept (the table service, in the database)."""

    async def board_picture(self, table_id: int) -> tuple[int, str] | None: ...

    async def set_board_picture(self, table_id: int, message_id: int, digest: str) -> None: ...

    async def forget_board_picture(self, table_id: int) -> None: ...


class BoardMessages:
    """Each table's board message. ``on_posted(table_id, message_id)``: a new board message was posted."""

    def __init__(
        self,
        client: discord.Client,
        appearance: Appearance,
        on_posted: Callable[[int, int], Awaitable[None]],
        records: Callable[[], PictureRecords | None] = lambda: None,
    ) -> None:
        self.client = client
        self.appearance = appearance
        self.on_posted = on_posted
        self.records = records
        # table id -> board message id, as last set by this process; None: its message is gone (no board now)
        self._boards: dict[int, int | None] = {}
        # Restored tables whose board is not checked yet (``check``) -> set when the next check ends, whatever
        # its outcome; ``_checked``: the tables checked (in this process, not checked again).
        self._unchecked: dict[int, asyncio.Event] = {}
        self._checked: set[int] = set()
        self._checking: set[int] = set()  # restored tables whose check is under way (``_check_once``)
        # Channels where the bot may not attach files: a board sent through the channel goes without its
        # picture there (an interaction's messages carry files whatever the bot's permissions).
        self._no_files: set[int] = set()
        # table id -> the picture digest ("" for none) of the board built by ``fields`` and not yet posted
        self._built: dict[int, str] = {}
        # table id -> (snapshot, faces, its embed, the embed's dict): the lane asks whether the board changed,
        # then sends it; the embed is rendered once for both
        self._embeds: dict[int, tuple[TableSnapshot, CardFaces, str, discord.Embed, dict[str, Any]]] = {}
        # table id -> (board message id, picture digest) shown since the last record, written at ``flush``
        # (shutdown) rather than at every move: the record is only read by the next process. The table's
        # record is dropped at the first change left unrecorded, so that it never tells an older picture.
        self._unrecorded: dict[int, tuple[int, str]] = {}

    async def remember(self, table_id: int, message_id: int) -> None:
        """``message_id`` is the table's board from now on; the picture it was posted with is recorded."""
        self._boards[table_id] = message_id
        self._unrecorded.pop(table_id, None)
        digest = self._built.pop(table_id, None)
        if digest is not None:
            await self._record(table_id, message_id, digest)

    async def _record(self, table_id: int, message_id: int, digest: str) -> None:
        records = self.records()
        if records is None:
            return
        try:
            await records.set_board_picture(table_id, message_id, digest)
        except Exception as error:  # only costs an upload of the same picture after a restart
            _log_failed(table_id, "could not record the board picture", error)

    async def _shown(self, table_id: int, message_id: int, digest: str) -> None:
        """The board message ``message_id`` shows the picture ``digest`` now (recorded at ``flush``)."""
        if table_id not in self._unrecorded:
            records = self.records()
            if records is not None:
                try:
                    await records.forget_board_picture(table_id)
                except Exception as error:  # only costs an upload of the same picture after a restart
                    log.warning("table %s: could not drop the board picture's record: %s", table_id, error)
        self._unrecorded[table_id] = (message_id, digest)

    async def flush(self) -> None:
        """Record what each board's picture shows, for the next process (at shutdown)."""
        unrecorded, self._unrecorded = self._unrecorded, {}
        for table_id, (message_id, digest) in unrecorded.items():
            await self._record(table_id, message_id, digest)

    async def _recall(self, table_id: int, board_id: int) -> Any:
        """What the board message ``board_id`` shows as its picture, as recorded (by this process or an
        earlier one): a digest, None for no picture, or ``UNKNOWN``."""
        records = self.records()
        if records is None:
            return UNKNOWN
        try:
            recorded = await records.board_picture(table_id)
        except Exception as error:
            _log_failed(table_id, "could not read the board picture's record", error)
            return UNKNOWN
        if recorded is None or recorded[0] != board_id:
            return UNKNOWN
        return recorded[1] or None

    def forget(self, table_id: int) -> None:
        """The table is over and shown: nothing of it is kept (a board built for an answer that never went
        out included)."""
        self._boards.pop(table_id, None)
        self._built.pop(table_id, None)
        self._embeds.pop(table_id, None)
        self._unrecorded.pop(table_id, None)
        self._checked.discard(table_id)
        self._checking.discard(table_id)
        unchecked = self._unchecked.pop(table_id, None)
        if unchecked is not None:
            unchecked.set()

    def forget_channel(self, channel_id: int) -> None:
        """No table of the publisher's is in the channel any more (the last one is over and shown), or the
        channel was deleted: whether it let the bot attach files is asked again by its next table."""
        self._no_files.discard(channel_id)

    def restored(self, table_id: int) -> asyncio.Event | None:
        """The table's board comes from the store (a restored table): it is checked (``check``) before it is
        first shown. Returns the event set when its next check ends; None if it was checked already."""
        if table_id in self._checked:
            return None
        return self._unchecked.setdefault(table_id, asyncio.Event())

    async def check_settled(self, table_id: int) -> None:
        """Wait until a check of the table's board under way has settled which message is the board (a few
        seconds at most): a board posted meanwhile in another way (``/eights status``) then replaces the
        check's, instead of the check's post replacing it unseen."""
        attempt = self._unchecked.get(table_id)
        if attempt is None or table_id not in self._checking:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CHECK_SETTLE_WAIT):
                await attempt.wait()

    def unchecked(self, table_id: int) -> bool:
        """Whether the table's board still waits for its check (``restored``)."""
        return table_id in self._unchecked

    def _embed(self, snapshot: TableSnapshot, faces: CardFaces) -> tuple[discord.Embed, dict[str, Any]]:
        """The board's embed for ``snapshot`` and its dict (what an edit is compared by)."""
        language = current_locale()  # the caller's: the server's language
        last = self._embeds.get(snapshot.table_id)
        if last is not None and last[0] is snapshot and last[1] is faces and last[2] == language:
            return last[3], last[4]
        embed = render.board_embed(snapshot, faces)
        data = dict(embed.to_dict())
        self._embeds[snapshot.table_id] = (snapshot, faces, language, embed, data)
        return embed, data

    def board_id(self, snapshot: TableSnapshot) -> int | None:
        return self._boards.get(snapshot.table_id, snapshot.board_message_id)

    async def fields(self, snapshot: TableSnapshot, *, channel: bool = False) -> dict[str, Any]:
        """The board as message fields (``embed``, ``view`` when it has buttons, ``file``: the picture when
        the server shows it), for an interaction response or follow-up, or (``channel``) a channel's
        ``send``."""
        # Public: the board, its buttons and the picture's alt text are in the server's language.
        with use_locale(await self.appearance.language(snapshot.guild_id)):
            fields: dict[str, Any] = {
                "embed": render.board_embed(snapshot, await self.appearance.faces(snapshot.guild_id))
            }
            view = board_view(snapshot)
            picture = await self._picture(snapshot, channel=channel)
        if view is not None:
            fields["view"] = view
        if picture is not None:
            fields["file"] = picture_file(picture)
        # Recorded with the message id once it is posted (``remember``).
        self._built[snapshot.table_id] = picture_digest(picture.key if picture else None) or ""
        return fields

    async def _picture(self, snapshot: TableSnapshot, *, channel: bool) -> BoardPicture | None:
        """The board's picture, if the server shows it and the route can carry it (``channel``: the
        channel's routes, where the bot needs Attach Files). A picture that fails to draw is None
        (``Appearance.picture`` says so in the log): the board goes out as text and buttons, and an edit
        takes an older picture off (its digest is then None)."""
        if channel and snapshot.channel_id in self._no_files:
            return None
        return await self.appearance.picture(snapshot)

    async def _without_files(
        self, snapshot: TableSnapshot, error: discord.Forbidden, send: Callable[[], Awaitable[T]]
    ) -> T:
        """A send carrying the picture was refused with 403: without Attach Files in a channel (Missing
        Permissions), boards sent through it go on as text (said once per channel). Another refusal
        (Missing Access: the channel itself), or the same refusal without the picture, is not about the
        files: raised."""
        if error.code != MISSING_PERMISSIONS:
            raise error
        channel_id = snapshot.channel_id
        new = channel_id not in self._no_files
        self._no_files.add(channel_id)
        try:
            result = await send()
        except discord.Forbidden:
            if new:
                self._no_files.discard(channel_id)
            raise
        self._built[snapshot.table_id] = ""
        if new:
            log.warning(
                "table %s: the board picture was refused in channel %s (%s; Attach Files missing?); "
                "boards edited through the channel are shown without it",
                snapshot.table_id,
                channel_id,
                error.text or error.status,
            )
        return result

    async def _post(self, snapshot: TableSnapshot) -> int:
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        fields = await self.fields(snapshot, channel=True)
        try:
            message = await channel.send(**fields)
        except discord.Forbidden as error:
            if fields.pop("file", None) is None:
                raise
            message = await self._without_files(snapshot, error, lambda: channel.send(**fields))
        finally:
            release(fields.get("view"))  # routed by custom id: nothing of it is kept
        await self.on_posted(snapshot.table_id, message.id)
        return message.id

    async def check(self, snapshot: TableSnapshot, feed: TableFeed) -> None:
        """Check a restored table's board (``restored``), in its board lane (``edit``): read the channel's
        latest messages for the table's boards; the newest found is the board (recorded, and brought up to
        date), the others are deleted. None found: the recorded board, unless the page shows it is gone
        (fetched when it is older than the page); when there is none, the board is posted from the table's
        latest state (``feed.snapshot``: what came while the channel was read included). Raises what failed
        (404 Unknown Channel: the publisher closes the table; a failure that may pass: the lane tries again
        later, the board still unchecked). A channel whose history the bot may not read (403) keeps the
        recorded board, unchecked for strays."""
        table_id = snapshot.table_id
        recorded = self.board_id(snapshot)
        page = await self._latest_messages(snapshot)
        latest = feed.snapshot if feed.snapshot is not None else snapshot
        current = self.board_id(latest)
        found = [] if page is None else _boards_of(page, table_id, self._me())
        # Whether the page tells if the recorded board is there: it reaches back past it.
        told = (
            page is not None
            and current is not None
            and (len(page) < HISTORY_PAGE or current > min(_ids(page), default=current))
        )
        strays = found[1:]
        if current is not None and current != recorded:
            board: int | None = current  # posted meanwhile (an /eights status, in this process): the board
            # (The recorded one is the board it replaced: ``replace_board`` deletes it.)
            strays = [message_id for message_id in found if message_id not in (current, recorded)]
        elif found:
            # The newest: a board the previous process posted and did not record, if it is not the recorded
            # one. The recorded one, if the page does not show it, may be further up: deleted too.
            board = found[0]
            if current is not None and current != board and current not in found and not told:
                strays.append(current)
        elif current is None or told:
            board = None  # none recorded, or the page shows it gone (a moderator deleted it)
        elif page is None:
            # The channel's history refused (403): fetching the board would be refused too, one more request
            # counting towards Discord's ban; the next edit tells whether it is there.
            board = current
        else:
            board = current if await self._exists(latest, current) else None
        if board is None:
            self._boards[table_id] = None  # gone: never deleted again (``/eights status``, a move)
            if latest.open:
                if current is not None:
                    log.info("table %s: the board message was deleted; posting it again", table_id)
                await self._post(latest)
        elif board != current:
            # Posted and not recorded (the previous process stopped first), or left behind a gone one.
            log.info(
                "table %s: board %s found in the channel is the board (recorded: %s)",
                table_id,
                board,
                current,
            )
            self._built.pop(table_id, None)  # what its picture shows is not known
            await self.on_posted(table_id, board)
        else:
            self._boards[table_id] = board
        for stray in strays:
            await self._delete_stray(latest, stray)
        self._done_checking(table_id)
        if board is not None:
            await self.edit(latest, feed)

    def _me(self) -> int | None:
        user = self.client.user
        return user.id if user is not None else None

    async def _latest_messages(self, snapshot: TableSnapshot) -> list[dict[str, Any]] | None:
        """The channel's latest ``HISTORY_PAGE`` messages (raw, newest first); None when the bot may not read
        them (403: no Read Message History) or does not know its own id. Raises what else failed."""
        if self._me() is None:
            return None
        try:
            page: list[Any] = await self.client.http.logs_from(snapshot.channel_id, HISTORY_PAGE)
        except discord.Forbidden as error:
            log.info("table %s: could not read the channel for its boards: %s", snapshot.table_id, error)
            return None
        return [message for message in page if isinstance(message, dict)]

    async def _exists(self, snapshot: TableSnapshot, message_id: int) -> bool:
        """Whether the board message ``message_id`` is still there (fetched); True when the bot may not read
        it (the edit tells). Raises 404 Unknown Channel and failures that may pass."""
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        try:
            await channel.fetch_message(message_id)
        except discord.NotFound as error:
            if is_gone(error):
                raise  # the channel, not only the board message
            return False
        except discord.Forbidden as error:
            log.info("table %s: could not check the board: %s", snapshot.table_id, error)
        return True

    async def _delete_stray(self, snapshot: TableSnapshot, message_id: int) -> None:
        """Delete another board of the table (one board per table): gone already is done; a refusal is
        said and left. Raises 404 Unknown Channel and failures that may pass (the check is tried again)."""
        channel = self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.NotFound as error:
            if is_gone(error):
                raise
        except discord.Forbidden as error:
            log.info(
                "table %s: could not delete its other board %s: %s", snapshot.table_id, message_id, error
            )
        else:
            log.info("table %s: deleted its other board %s", snapshot.table_id, message_id)

    async def _check_once(self, snapshot: TableSnapshot, feed: TableFeed) -> None:
        """One attempt at the check; whatever its outcome, whoever waits for it (``restored``) is told."""
        self._checking.add(snapshot.table_id)
        try:
            await self.check(snapshot, feed)
        finally:
            self._checking.discard(snapshot.table_id)
            attempt = self._unchecked.get(snapshot.table_id)
            if attempt is not None:  # it failed: still unchecked, tried again at the lane's next turn
                self._unchecked[snapshot.table_id] = asyncio.Event()
                attempt.set()

    def _done_checking(self, table_id: int) -> None:
        self._checked.add(table_id)
        ended = self._unchecked.pop(table_id, None)
        if ended is not None:
            ended.set()

    def unchanged(self, snapshot: TableSnapshot, feed: TableFeed) -> bool:
        if self.board_id(snapshot) is None or snapshot.table_id in self._unchecked:
            return False
        with use_locale(self.appearance.cached_language(snapshot.guild_id)):
            _, embed_data = self._embed(snapshot, self.appearance.cached_faces(snapshot.guild_id))
            if snapshot.channel_id in self._no_files:
                return False  # the picture depends on the route the edit takes: ``edit`` tells
            shown = self.appearance.picture_key(snapshot)
        picture_key = picture_digest(shown)
        return (
            embed_data == feed.board_embed
            and board_view_key(snapshot) == feed.board_view_key
            and picture_key == feed.board_picture_key
        )

    async def repost(self, snapshot: TableSnapshot, via: discord.Interaction) -> tuple[int, int | None]:
        """Post the board as a follow-up of ``via`` (an answered interaction of the table, in its channel) and
        make it the board; returns its id and the board it replaced (read as it is made the board: an
        ``/eights status`` may have posted one while the follow-up was on its way). Raises what failed (the
        board stays where it was)."""
        fields = await self.fields(snapshot)
        try:
            try:
                message = await via.followup.send(wait=True, **fields)
            except discord.Forbidden as error:
                if fields.pop("file", None) is None:
                    raise
                message = await self._without_files(
                    snapshot, error, lambda: via.followup.send(wait=True, **fields)
                )
        finally:
            release(fields.get("view"))  # routed by custom id: nothing of it is kept
        replaced = self.board_id(snapshot)
        await self.on_posted(snapshot.table_id, message.id)
        return message.id, replaced

    async def edit(
        self, snapshot: TableSnapshot, feed: TableFeed, carrier: BoardCarrier | None = None
    ) -> None:
        """Show ``snapshot`` on the board (posting it again if its message is gone). Raises what failed.
        ``carrier``: the interaction that posted the board message, whose token edits it off the global
        limit; None: the channel route. A restored board not checked yet is checked instead (``check``)."""
        if snapshot.table_id in self._unchecked:
            await self._check_once(snapshot, feed)
            return
        board_id = self.board_id(snapshot)
        if board_id is None:
            await self._post(snapshot)
            return
        with use_locale(await self.appearance.language(snapshot.guild_id)):
            embed, embed_data = self._embed(snapshot, await self.appearance.faces(snapshot.guild_id))
            view_key = board_view_key(snapshot)
            view_changed = view_key != feed.board_view_key
            via_carrier = carrier is not None and carrier.message_id == board_id
            picture = await self._picture(snapshot, channel=not via_carrier)
        picture_key = picture_digest(picture.key if picture is not None else None)
        if feed.board_picture_key is UNKNOWN:  # e.g. after a restart: what the message shows may be recorded
            feed.board_picture_key = await self._recall(snapshot.table_id, board_id)
        picture_changed = picture_key != feed.board_picture_key
        if embed_data == feed.board_embed and not view_changed and not picture_changed:
            return
        if carrier is not None and via_carrier:
            send: Callable[..., Awaitable[Any]] = carrier.edit
        else:
            send = (
                self.client.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
                .get_partial_message(board_id)
                .edit
            )
        # Only what changed is sent: the buttons and the picture stay as they are otherwise.
        fields: dict[str, Any] = {"embed": embed}
        if view_changed:
            with use_locale(self.appearance.cached_language(snapshot.guild_id)):
                fields["view"] = board_view(snapshot)
        if picture_changed:
            fields["attachments"] = [picture_file(picture)] if picture is not None else []
        try:
            try:
                await send(**fields)
            except discord.Forbidden as error:
                if not fields.get("attachments"):
                    raise
                fields["attachments"] = []
                picture_key = None
                await self._without_files(snapshot, error, lambda: send(**fields))
            finally:
                release(fields.get("view"))  # routed by custom id: nothing of it is kept
        except discord.NotFound as error:
            if is_gone(error):
                raise  # the channel itself: the publisher closes its table
            if via_carrier and error.code != UNKNOWN_MESSAGE:
                # The token failed (404 Unknown Webhook while it should live), not the message: the publisher
                # edits through the channel instead. Posting again would leave two boards.
                raise
            if self._boards.get(snapshot.table_id, board_id) != board_id:
                # A newer board was posted meanwhile (an /eights status), maybe of a state read before this
                # one: it shows this one now.
                await self.edit(snapshot, feed)
                return
            log.info("table %s: the board message was deleted; posting it again", snapshot.table_id)
            self._boards[snapshot.table_id] = None  # gone: never deleted again
            if snapshot.open:
                await self._post(snapshot)
            return
        feed.board_embed = embed_data
        feed.board_view_key = view_key
        if picture_changed:
            await self._shown(snapshot.table_id, board_id, picture_key or "")
        feed.board_picture_key = picture_key


def _ids(page: list[dict[str, Any]]) -> list[int]:
    return [int(message["id"]) for message in page if str(message.get("id", "")).isdigit()]


def _boards_of(page: list[dict[str, Any]], table_id: int, me: int | None) -> list[int]:
    """The ids of the table's boards among ``page`` (raw messages), newest first: the bot's messages
    carrying the table's board buttons."""
    found = [
        int(message["id"])
        for message in page
        if str(message.get("id", "")).isdigit()
        and str((message.get("author") or {}).get("id")) == str(me)
        and _carries_board(message.get("components"), table_id)
    ]
    return sorted(found, reverse=True)


def _carries_board(components: object, table_id: int) -> bool:
    """Whether these components (raw, nested in action rows) hold one of the table's board buttons."""
    if not isinstance(components, list):
        return False
    for component in components:
        if not isinstance(component, dict):
            continue
        match = BUTTON_TEMPLATE.fullmatch(str(component.get("custom_id") or ""))
        if match is not None and int(match["table"]) == table_id and match["action"] in BOARD_ACTIONS:
            return True
        if _carries_board(component.get("components"), table_id):
            return True
    return False


def _log_failed(table_id: int, what: str, error: Exception) -> None:
    """A warning, except while the database is away: the service's outage says that once, not a line for
    every board shown meanwhile."""
    log.log(level_of(error), "table %s: %s: %s", table_id, what, error)
