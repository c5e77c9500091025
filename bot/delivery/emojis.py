"""The bot's card emojis on Discord: made sure of at start-up, then handed to the renderers as ``CardFaces``.

``CardEmojis.ensure`` lists the application's emojis, uploads only the ones missing by name (one at a time,
``pace`` seconds apart, so a first start's 113 uploads stay far from any rate limit; discord.py waits out a
429 itself), and from then on ``faces(enabled)`` gives the emojis to write cards with. Until it has finished,
or when it fails (the app at its 2,000 emojis, a refused upload), cards are written as text: the failure is
logged once, in one line that says the game goes on with text, and the next start tries again (emojis uploaded
before the failure are kept and not uploaded again). A passing failure (a 5xx, which discord.py raises at once
for a 503; a 429 it gave up waiting out; the network) is logged once and tried again in the background,
``RETRY_FIRST`` seconds later, then twice as long each time up to ``RETRY_STEP_LIMIT``, for ``RETRY_LIMIT``
seconds in all before it counts as a failure.

With several processes (shards), only one uploads (``uploader``: the process running shard 0); the others
look again every ``WAIT_STEP`` seconds, for up to ``WAIT_LIMIT``, until the set is complete. Should an upload
still be refused because its name was just taken (two uploaders by mistake), the emoji already there is used.
"""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord

from bot.ui.art.emoji_set import EmojiArt, EmojiSet
from bot.ui.faces import TEXT, CardFaces

log = logging.getLogger(__name__)

UPLOAD_PACE = 0.25  # seconds between two uploads
WAIT_STEP = 5.0  # seconds between two looks, for a process that waits for another's uploads
WAIT_LIMIT = 300.0
RETRY_FIRST = 1.0  # seconds before the first new try after a passing failure; doubled each time
RETRY_STEP_LIMIT = 60.0
RETRY_LIMIT = 300.0  # seconds of waiting between tries before a passing failure counts as a failure


class CardEmojis:
    def __init__(
        self,
        art: EmojiSet,
        *,
        pace: float = UPLOAD_PACE,
        uploader: bool = True,
        wait_step: float = WAIT_STEP,
        retry_first: float = RETRY_FIRST,
    ) -> None:
        self.art = art
        self.pace = pace
        self.uploader = uploader
        self.wait_step = wait_step
        self.retry_first = retry_first
        self.uploaded = 0  # emojis this process uploaded
        self.error: str | None = None  # why the emojis are not in use, once ensure failed
        self._faces = TEXT
        self._task: asyncio.Task[bool] | None = None

    @property
    def ready(self) -> bool:
        return self._faces.with_emojis

    def faces(self, enabled: bool = True) -> CardFaces:
        """The emojis to write cards with: none until they are ready, or when the server turned them off."""
        return self._faces if enabled else TEXT

    def start(self, client: discord.Client) -> asyncio.Task[bool]:
        """``ensure`` in the background (start-up does not wait for the uploads)."""
        if self._task is None:
            self._task = asyncio.create_task(self.ensure(client), name="eights-card-emojis")
        return self._task

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def wait(self) -> bool:
        return await self._task if self._task is not None else self.ready

    async def ensure(self, client: discord.Client) -> bool:
        """Make sure every card emoji exists on the application; True when they are all in use. A passing
        failure is tried again (see the module's docstring); a refusal is final until the next start."""
        delay, waited = self.retry_first, 0.0
        said: set[str] = set()  # the kinds of passing failure already logged
        try:
            # Drawing (or reading back from the disk cache) happens off the event loop.
            arts: list[EmojiArt] = await asyncio.to_thread(list, self.art)
            while True:
                try:
                    existing = await self._ensure_once(client, arts)
                    break
                except PASSING_ERRORS as error:
                    if not passing_failure(error) or waited >= RETRY_LIMIT:
                        raise
                    self.error = _describe(error)
                    kind = failure_kind(error)
                    if kind not in said:
                        said.add(kind)
                        log.warning(
                            "card emojis: %s; trying again in the background (cards are shown as text until "
                            "then)",
                            self.error,
                        )
                    await asyncio.sleep(delay)
                    waited += delay
                    delay = min(delay * 2, RETRY_STEP_LIMIT)
        except (
            discord.HTTPException,
            discord.ClientException,
            aiohttp.ClientError,
            OSError,  # TimeoutError among them
            _NotUploaded,
        ) as error:
            self.error = _describe(error)
            log.warning(
                "card emojis are not available (%s); cards are shown as text. The next start tries again.",
                self.error,
            )
            return False
        self.error = None
        self._faces = CardFaces(
            {art.key: discord.PartialEmoji(name=art.name, id=existing[art.name].id) for art in arts}
        )
        already = len(arts) - self.uploaded
        log.info("card emojis ready (%d uploaded now, %d already there)", self.uploaded, already)
        return True

    async def _ensure_once(self, client: discord.Client, arts: list[EmojiArt]) -> dict[str, discord.Emoji]:
        """List the application's emojis and upload the missing ones; the emojis by name."""
        existing = {emoji.name: emoji for emoji in await client.fetch_application_emojis()}
        missing = [art for art in arts if art.name not in existing]
        waited = 0.0
        while missing and not self.uploader:
            if waited >= WAIT_LIMIT:
                raise _NotUploaded(f"{len(missing)} of them are still missing after {WAIT_LIMIT:g} s")
            await asyncio.sleep(self.wait_step)
            waited += self.wait_step
            existing = {emoji.name: emoji for emoji in await client.fetch_application_emojis()}
            missing = [art for art in arts if art.name not in existing]
        if missing:
            log.info("uploading %d card emojis to the application", len(missing))
        for number, art in enumerate(missing):
            if number:
                await asyncio.sleep(self.pace)
            try:
                existing[art.name] = await client.create_application_emoji(name=art.name, image=art.png)
            except discord.HTTPException as error:
                # Another process of the bot (another shard) may have uploaded it meanwhile: the name is
                # then taken, and its emoji is the one to use.
                if error.status != 400:
                    raise
                existing = {emoji.name: emoji for emoji in await client.fetch_application_emojis()}
                if art.name not in existing:
                    raise
                continue
            self.uploaded += 1
        return existing


# What may pass by itself: Discord's 5xx (and a 429 that discord.py gave up waiting out), the network, a
# request that timed out. ``passing_failure`` tells the HTTP answers apart (any other 4xx is a refusal).
PASSING_ERRORS: tuple[type[BaseException], ...] = (
    discord.HTTPException,
    aiohttp.ClientError,
    OSError,
    asyncio.TimeoutError,
)


def passing_failure(error: BaseException) -> bool:
    """Whether a failed request to Discord is worth trying again a little later (not a refusal)."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, PASSING_ERRORS)


def failure_kind(error: BaseException) -> str:
    """A failure's kind, to log each kind once: the HTTP status, or the exception's class."""
    if isinstance(error, discord.HTTPException):
        return f"http {error.status}"
    return error.__class__.__name__


class _NotUploaded(Exception):
    """The process that uploads the emojis has not finished in time."""


def _describe(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return f"Discord answered {error.status}: {error.text or error.__class__.__name__}"
    return f"{error.__class__.__name__}: {error}"
