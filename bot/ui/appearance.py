"""What a server's tables look like: card emojis on or off, the board picture on or off (``/eights
settings``), and the art behind both.

``Appearance`` is asked by everything that renders a table: ``faces(guild_id)`` for writing cards (emojis
when they are ready and the server has them on), ``picture(snapshot)`` for the board picture (drawn off the
event loop, or None when the server has it off or the table has no round on it; a crazier-abilities table
has its own picture, ``bot.ui.crazier_picture``). The picture is an extra: one that fails to draw is None
too, said in the log (once per table; the first of the process with its traceback), so that the board (or a
replay's step) goes out as text, without it, and a board's older picture is taken off.

A server's two switches are read once from ``load_switches`` (the settings) and kept; ``set_switches``
updates them when an admin changes the settings, and forgotten (``forget_guild``) when the bot leaves the
server. Both default to on (``CardDisplay``). The synchronous ``cached_*`` answers use what was read so far:
a caller composing a server's public text ``load``s it first (``has_read`` says whether it must; the publisher
does, once per server, before a table's lines and board).

``language(guild_id)`` is the language of the server's public text: the one chosen in its settings, else the
server's language in Discord as its interactions last said it (``note_guild_locale``), else English.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable

from bot.delivery.emojis import CardEmojis
from bot.engine.crazier import PRESET_NAME as CRAZIER
from bot.i18n import DEFAULT_LOCALE, from_discord
from bot.service.models import CardDisplay, TableSnapshot
from bot.ui.art.board import BoardPicture, BoardRenderer, board_key, has_picture
from bot.ui.art.crazier_board import crazier_board_key, prepare_crazier, render_crazier_async
from bot.ui.crazier_picture import crazier_board_of
from bot.ui.faces import TEXT, CardFaces

SwitchLoader = Callable[[int], Awaitable[CardDisplay]]
log = logging.getLogger(__name__)
# Tables whose picture failed, said in the log already: past this many, the record starts again (a renderer
# broken for good then says so again for some tables, rather than keeping every table's id).
FAILED_KEPT = 4096


class Appearance:
    def __init__(
        self,
        emojis: CardEmojis | None = None,
        pictures: BoardRenderer | None = None,
        load_switches: SwitchLoader | None = None,
        guild_locale_of: Callable[[int], object] | None = None,
    ) -> None:
        self.emojis = emojis
        self.pictures = pictures
        self.load_switches = load_switches
        # The server's language as Discord last listed it (its preferred locale), for a server none of whose
        # members has acted since this process started (a restart: its restored tables, their timers).
        self.guild_locale_of = guild_locale_of
        self._switches: dict[int, CardDisplay] = {}
        self._guild_locales: dict[int, str] = {}
        self._failed: set[int] = set()  # tables whose picture failed, said in the log already
        self._failure_shown = False  # a failure's traceback is in the log (the first of the process)

    def set_switches(self, guild_id: int, switches: CardDisplay) -> None:
        self._switches[guild_id] = switches

    def forget_guild(self, guild_id: int) -> None:
        """The bot was removed from the server: its switches and language are read again if it comes back."""
        self._switches.pop(guild_id, None)
        self._guild_locales.pop(guild_id, None)

    def has_read(self, guild_id: int) -> bool:
        """Whether the server's switches are known here (read or set): the ``cached_*`` answers are its own,
        not the defaults."""
        return guild_id in self._switches

    async def load(self, guild_id: int) -> CardDisplay:
        """The server's switches, read from the settings the first time they are needed."""
        switches = self._switches.get(guild_id)
        if switches is None:
            switches = await self.load_switches(guild_id) if self.load_switches else CardDisplay()
            self._switches[guild_id] = switches
        return switches

    def note_guild_locale(self, guild_id: int | None, guild_locale: object) -> None:
        """Remember the server's language in Discord (an interaction's ``guild_locale``), when we have it: one
        without a catalogue of ours is English (not the language the server had before)."""
        if guild_id is None or not guild_locale:
            return
        self._guild_locales[guild_id] = from_discord(guild_locale) or DEFAULT_LOCALE

    def cached_language(self, guild_id: int) -> str:
        """The language of the server's public text, from the settings already read."""
        chosen = self._switches.get(guild_id, CardDisplay()).language
        if chosen:
            return chosen
        noted = self._guild_locales.get(guild_id)
        if noted is None and self.guild_locale_of is not None:
            noted = from_discord(self.guild_locale_of(guild_id))
        return noted or DEFAULT_LOCALE

    async def language(self, guild_id: int) -> str:
        """The language of the server's public text (its settings read the first time)."""
        await self.load(guild_id)
        return self.cached_language(guild_id)

    def cached_faces(self, guild_id: int) -> CardFaces:
        """``faces`` from the switches already read (the defaults until then), for synchronous callers."""
        if self.emojis is None:
            return TEXT
        return self.emojis.faces(self._switches.get(guild_id, CardDisplay()).card_emojis)

    def picture_key(self, snapshot: TableSnapshot) -> Hashable:
        """What ``picture`` would show (its cache key), or None for no picture; without drawing it. None
        too when it cannot be told (said as ``picture`` says a failure)."""
        if self.pictures is None or not self._switches.get(snapshot.guild_id, CardDisplay()).board_picture:
            return None
        try:
            if snapshot.crazier is not None:
                board = crazier_board_of(snapshot)
                return crazier_board_key(board) if board is not None else None
            return board_key(snapshot, self.pictures.palette) if has_picture(snapshot) else None
        except Exception as error:
            self._picture_failed(snapshot.table_id, error)
            return None

    async def faces(self, guild_id: int) -> CardFaces:
        if self.emojis is None:
            return TEXT
        return self.emojis.faces((await self.load(guild_id)).card_emojis)

    async def picture(self, snapshot: TableSnapshot) -> BoardPicture | None:
        """The board's picture; None when the server has it off, the table has no round on it, or drawing it
        failed (said in the log: the board goes out without it). Raises what reading the server's settings
        raised (as ``faces`` and ``language`` do)."""
        if self.pictures is None or not (await self.load(snapshot.guild_id)).board_picture:
            return None
        try:
            return await self._draw(self.pictures, snapshot)
        except Exception as error:  # not a cancellation (a BaseException): that goes on up
            self._picture_failed(snapshot.table_id, error)
            return None

    @staticmethod
    async def _draw(pictures: BoardRenderer, snapshot: TableSnapshot) -> BoardPicture | None:
        # Drawn in the renderer's threads in the caller's context: its words and alt text are in the language
        # in force (the server's, set by the delivery part), which is part of its cache key.
        if snapshot.crazier is not None:
            board = crazier_board_of(snapshot)
            return await render_crazier_async(pictures, board) if board is not None else None
        if snapshot.preset == CRAZIER:  # its lobby: no picture yet, the first one's palette chosen meanwhile
            prepare_crazier(pictures)
            return None
        return await pictures.render_async(snapshot)

    def _picture_failed(self, table_id: int, error: Exception) -> None:
        """Say that the table's picture failed: once per table (the picture reads public fields only, so the
        error holds no hand), the first failure of the process with its traceback."""
        if table_id in self._failed:
            log.debug("table %s: the board picture failed again: %r", table_id, error)
            return
        if len(self._failed) >= FAILED_KEPT:
            self._failed.clear()
        self._failed.add(table_id)
        if not self._failure_shown:
            self._failure_shown = True
            log.error(
                "table %s: could not draw the board picture; the board goes on without it",
                table_id,
                exc_info=error,
            )
        else:
            log.warning(
                "table %s: could not draw the board picture; the board goes on without it: %r",
                table_id,
                error,
            )


TEXT_ONLY = Appearance()
