"""CardEmojis: lists, uploads only what is missing, paced; a failure leaves text and is logged once."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.delivery.emojis import CardEmojis
from bot.ui.art.cards import Palette
from bot.ui.art.emoji_set import EmojiSet, all_keys, crazier_card_key, draw, emoji_name


class Emoji:
    def __init__(self, name: str, emoji_id: int) -> None:
        self.name, self.id = name, emoji_id


class FakeResponse:
    status = 403  # a refusal: final until the next start (a 5xx is tried again)
    reason = "Forbidden"


class Client:
    """The two calls CardEmojis makes, recorded."""

    def __init__(self, existing: list[str], fail_after: int | None = None) -> None:
        self.emojis = [Emoji(name, 1000 + i) for i, name in enumerate(existing)]
        self.created: list[str] = []
        self.fail_after = fail_after

    async def fetch_application_emojis(self) -> list[Emoji]:
        return list(self.emojis)

    async def create_application_emoji(self, *, name: str, image: bytes) -> Emoji:
        assert image.startswith(b"\x89PNG")
        if self.fail_after is not None and len(self.created) >= self.fail_after:
            raise discord.HTTPException(FakeResponse(), {"code": 50013, "message": "Missing Permissions"})  # type: ignore[arg-type]
        self.created.append(name)
        emoji = Emoji(name, 5000 + len(self.created))
        self.emojis.append(emoji)
        return emoji


async def test_only_missing_emojis_are_uploaded(tmp_path: Path) -> None:
    present = [emoji_name(key) for key in ("AC", "KH", "back")]
    client: Any = Client(present)
    emojis = CardEmojis(EmojiSet(tmp_path), pace=0)
    assert not emojis.ready and not emojis.faces().with_emojis
    assert await emojis.ensure(client)
    assert len(client.created) == 113 - 3 and not set(present) & set(client.created)
    faces = emojis.faces()
    assert faces.card_emoji("KH") == discord.PartialEmoji(name="e8f2_KH", id=1001)
    assert faces.suit_emoji("H") is not None
    # The Crazier Eights faces come with them, by their own keys.
    assert faces.emojis[crazier_card_key("KB")].name == "e8z1_KB"
    assert not emojis.faces(enabled=False).with_emojis
    # A second run (a restart) uploads nothing.
    again = CardEmojis(EmojiSet(tmp_path), pace=0)
    assert await again.ensure(client)
    assert again.uploaded == 0 and len(client.created) == 110


async def test_a_failed_upload_means_text_and_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client: Any = Client([], fail_after=5)
    emojis = CardEmojis(EmojiSet(tmp_path), pace=0)
    with caplog.at_level(logging.WARNING, logger="bot.delivery.emojis"):
        assert await emojis.ensure(client) is False
    assert not emojis.ready and not emojis.faces().with_emojis
    assert emojis.error is not None and "403" in emojis.error
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "cards are shown as text" in caplog.records[0].getMessage()
    # The five that made it are kept: the next start uploads the other 108 only.
    client.fail_after = None
    assert await CardEmojis(EmojiSet(tmp_path), pace=0).ensure(client)
    assert len(client.created) == 113


class RacingClient(Client):
    """Another process uploads every emoji just before this one tries: Discord refuses the name as taken."""

    async def create_application_emoji(self, *, name: str, image: bytes) -> Emoji:
        self.emojis.append(Emoji(name, 9000 + len(self.emojis)))

        class Taken:
            status = 400
            reason = "Bad Request"

        raise discord.HTTPException(Taken(), {"code": 50035, "message": "Invalid Form Body"})  # type: ignore[arg-type]


async def test_an_emoji_another_process_made_meanwhile_is_used(tmp_path: Path) -> None:
    client: Any = RacingClient([])
    emojis = CardEmojis(EmojiSet(tmp_path), pace=0)
    assert await emojis.ensure(client)
    assert emojis.uploaded == 0
    made = {emoji.name: emoji.id for emoji in client.emojis}
    assert emojis.faces().card_emoji("KH") == discord.PartialEmoji(name="e8f2_KH", id=made["e8f2_KH"])


class UploadedElsewhere(Client):
    """The uploading process finishes while this one waits: the second look finds every emoji."""

    def __init__(self) -> None:
        super().__init__([])
        self.looks = 0

    async def fetch_application_emojis(self) -> list[Emoji]:
        self.looks += 1
        if self.looks == 2:
            self.emojis = [Emoji(emoji_name(key), 7000 + i) for i, key in enumerate(all_keys())]
        return list(self.emojis)


async def test_a_process_that_does_not_upload_waits_for_the_set(tmp_path: Path) -> None:
    client: Any = UploadedElsewhere()
    emojis = CardEmojis(EmojiSet(tmp_path), pace=0, uploader=False, wait_step=0.01)
    assert await emojis.ensure(client)
    assert client.created == [] and client.looks == 2 and emojis.ready


async def test_the_emojis_are_drawn_off_the_event_loop(tmp_path: Path) -> None:
    """Drawing the 113 emojis at a first start is about a second of work: done on the event loop's thread it
    would hold every answer that long (bench/art.py --first-start measures the loop's lateness)."""
    loop_thread = threading.get_ident()
    drawn_in: set[int] = set()

    def drawer(key: str, palette: Palette) -> bytes:
        drawn_in.add(threading.get_ident())
        return draw(key, palette)

    client: Any = Client([])
    assert await CardEmojis(EmojiSet(tmp_path, drawer=drawer), pace=0).ensure(client)
    assert drawn_in and loop_thread not in drawn_in
