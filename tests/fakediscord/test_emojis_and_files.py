"""The fake's application emojis, emojis on components and file uploads, driven by real discord.py."""

from __future__ import annotations

import base64
import io
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands
from PIL import Image

from tests.fakediscord import FakeChannel, FakeDiscord, fast_bot_options, running_bot

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def png_of(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (10, 200, 30)).save(out, format="PNG")
    return out.getvalue()


def make_client() -> discord.Client:
    return discord.Client(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)


def table_channel(fake: FakeDiscord) -> FakeChannel:
    return fake.create_channel(fake.create_guild("Cards"), "table")


def messageable(client: discord.Client, channel: FakeChannel) -> discord.PartialMessageable:
    return client.get_partial_messageable(channel.id, guild_id=channel.guild_id)


async def raw(fake: FakeDiscord, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, fake.api_base_url + path, json=body, headers=headers) as response,
    ):
        return response.status, await response.json()


def data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


async def test_create_list_rename_delete_with_discord_py(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    client = make_client()
    async with running_bot(fake, client):
        assert await client.fetch_application_emojis() == []
        emoji = await client.create_application_emoji(name="e8f1_KH", image=png_of(128, 128))
        assert emoji.name == "e8f1_KH" and emoji.id
        listed = await client.fetch_application_emojis()
        assert [(e.id, e.name) for e in listed] == [(emoji.id, "e8f1_KH")]
        assert fake.emojis.created == ["e8f1_KH"]
        assert fake.emojis.images[emoji.id] == png_of(128, 128)
        renamed = await emoji.edit(name="e8f1_KH2")
        assert renamed.name == "e8f1_KH2"
        await emoji.delete()
        assert await client.fetch_application_emojis() == []
        with pytest.raises(discord.NotFound):
            await client.fetch_application_emoji(emoji.id)
    fake.assert_clean()


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"name": "x", "image": data_uri(PNG)}, "name", "BASE_TYPE_BAD_LENGTH"),
        ({"name": "a" * 33, "image": data_uri(PNG)}, "name", "BASE_TYPE_BAD_LENGTH"),
        ({"name": "king-of-hearts", "image": data_uri(PNG)}, "name", "STRING_TYPE_REGEX"),
        ({"name": "king", "image": "not a data uri"}, "image", "IMAGE_INVALID"),
        ({"name": "king", "image": data_uri(b"GIF89a", "image/png")}, "image", "IMAGE_INVALID"),
        ({"name": "king", "image": data_uri(PNG + b"\x00" * 256 * 1024)}, "image", "BINARY_TYPE_MAX_SIZE"),
        ({"name": "king"}, "image", "BASE_TYPE_REQUIRED"),
    ],
)
async def test_bad_emojis_are_refused_with_discords_error_shape(
    fake_discord: FakeDiscord, body: dict[str, Any], field: str, code: str
) -> None:
    fake = fake_discord
    status, answer = await raw(fake, "POST", f"/applications/{fake.application_id}/emojis", body)
    assert status == 400
    assert answer["code"] == 50035
    assert answer["errors"][field]["_errors"][0]["code"] == code
    assert fake.emojis.items == {}
    assert len(fake.take_violations()) == 1


async def test_names_are_unique_and_the_count_is_capped(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    path = f"/applications/{fake.application_id}/emojis"
    status, _ = await raw(fake, "POST", path, {"name": "dup", "image": data_uri(PNG)})
    assert status == 201
    status, answer = await raw(fake, "POST", path, {"name": "dup", "image": data_uri(PNG)})
    assert status == 400
    assert answer["errors"]["name"]["_errors"][0]["code"] == "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"
    for number in range(1999):
        fake.emojis.add(f"filler_{number}")
    status, answer = await raw(fake, "POST", path, {"name": "one_more", "image": data_uri(PNG)})
    assert (status, answer["code"]) == (400, 30008)
    assert len(fake.take_violations()) == 2


async def test_a_test_can_make_uploads_fail(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.emojis.fail_creates = 503
    client = make_client()
    async with running_bot(fake, client):
        with pytest.raises(discord.HTTPException):
            await client.create_application_emoji(name="e8f1_AS", image=PNG)
    assert fake.emojis.items == {}
    fake.assert_clean()  # the test's own outage is no violation


class OneButton(discord.ui.View):
    def __init__(self, emoji: discord.PartialEmoji | str | None) -> None:
        super().__init__(timeout=None)
        self.add_item(discord.ui.Button(label="play", custom_id="play", emoji=emoji))


async def test_emoji_on_buttons_must_exist_and_belong_to_the_app(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    channel = table_channel(fake)
    client = make_client()
    async with running_bot(fake, client):
        own = await client.create_application_emoji(name="e8f1_QS", image=png_of(128, 128))
        target = messageable(client, channel)
        sent = await target.send("ok", view=OneButton(discord.PartialEmoji(name=own.name, id=own.id)))
        button = fake.messages[sent.id].buttons[0]
        assert int(button["emoji"]["id"]) == own.id
        await target.send("unicode", view=OneButton("♠️"))
        unknown = discord.PartialEmoji(name="e8f1_QS", id=own.id + 1)
        with pytest.raises(discord.HTTPException) as refused:
            await target.send("bad", view=OneButton(unknown))
        assert refused.value.status == 400 and refused.value.code == 50035
        violations = fake.take_violations()
        assert len(violations) == 1 and "emoji" in violations[0]
        with pytest.raises(discord.HTTPException):
            await target.send("word", view=OneButton(discord.PartialEmoji(name="spade")))
        assert len(fake.take_violations()) == 1
    assert fake.emojis.unknown_in(f"<:e8f1_QS:{own.id}> <:nope:{own.id + 5}>") == [f"<:nope:{own.id + 5}>"]


async def test_files_on_messages_and_edits(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    channel = table_channel(fake)
    client = make_client()
    first, second = png_of(80, 45), png_of(40, 30)
    async with running_bot(fake, client):
        target = messageable(client, channel)
        message = await target.send(
            "board", file=discord.File(io.BytesIO(first), "board.png", description="the table")
        )
        stored = fake.messages[message.id]
        (attachment,) = stored.attachments
        assert attachment["filename"] == "board.png"
        assert attachment["description"] == "the table"
        assert (attachment["width"], attachment["height"]) == (80, 45)
        assert attachment["content_type"] == "image/png"
        assert fake.files.content(attachment) == first
        assert message.attachments[0].description == "the table"
        assert await message.attachments[0].read() == first
        # An edit replaces the picture: the old attachment is dropped, the new one described.
        await message.edit(
            attachments=[discord.File(io.BytesIO(second), "board.png", description="the table, later")]
        )
        (replaced,) = stored.attachments
        assert replaced["id"] != attachment["id"] and replaced["description"] == "the table, later"
        assert fake.files.content(replaced) == second
        assert stored.versions[0].attachments[0]["id"] == attachment["id"]
        # Edits that do not mention attachments keep them.
        await message.edit(content="board, text changed")
        assert stored.attachments == [replaced]
        # And removing them all leaves the text.
        await message.edit(attachments=[])
        assert stored.attachments == []
    fake.assert_clean()


async def test_file_limits(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    channel = table_channel(fake)
    client = make_client()
    async with running_bot(fake, client):
        target = messageable(client, channel)
        with pytest.raises(discord.HTTPException) as too_long:
            await target.send(file=discord.File(io.BytesIO(PNG), "a.png", description="d" * 1025))
        assert too_long.value.status == 400
        fake.files.max_file_bytes = 10
        with pytest.raises(discord.HTTPException) as too_big:
            await target.send(file=discord.File(io.BytesIO(PNG), "a.png"))
        assert too_big.value.status == 413
        fake.files.max_file_bytes = 10 * 1024 * 1024
        files = [discord.File(io.BytesIO(PNG), f"{i}.png") for i in range(11)]
        with pytest.raises((discord.HTTPException, ValueError)):
            await target.send(files=files)
        assert len(fake.take_violations()) >= 2
        # Without Attach Files in the channel's guild, uploads are refused (403).
        for role in fake.guilds[channel.guild_id].roles.values():
            role.permissions &= ~(1 << 15)
        with pytest.raises(discord.Forbidden):
            await target.send(file=discord.File(io.BytesIO(PNG), "a.png"))
        fake.take_violations()


async def test_interaction_messages_carry_files_without_the_bots_attach_files(
    fake_discord: FakeDiscord,
) -> None:
    """Discord: an interaction's response and follow-ups (its webhook) may attach files whatever the bot's
    own permissions in the channel (the 2022 change to how bots' permissions are computed for interactions
    left ATTACH_FILES and EMBED_LINKS out: they are always granted there); a message sent through the
    channel needs the bot's Attach Files."""
    fake = fake_discord
    channel = table_channel(fake)
    alice = fake.create_user("alice")
    fake.add_member(fake.guilds[channel.guild_id], alice)
    for role in fake.guilds[channel.guild_id].roles.values():
        role.permissions &= ~(1 << 15)
    bot = commands.Bot(command_prefix="!", intents=discord.Intents(guilds=True), **fast_bot_options())
    refused: list[int] = []

    @bot.tree.command(name="picture", description="Answers with a picture, follows up and edits with others")
    async def picture(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one", file=discord.File(io.BytesIO(png_of(8, 8)), "a.png"))
        later = await interaction.followup.send(
            "two", file=discord.File(io.BytesIO(png_of(9, 9)), "b.png"), wait=True
        )
        await interaction.followup.edit_message(
            later.id, attachments=[discord.File(io.BytesIO(png_of(10, 10)), "c.png")]
        )
        await interaction.edit_original_response(
            attachments=[discord.File(io.BytesIO(png_of(11, 11)), "d.png")]
        )
        try:
            await messageable(bot, channel).send(file=discord.File(io.BytesIO(png_of(12, 12)), "e.png"))
        except discord.Forbidden as error:
            refused.append(error.status)

    del picture
    async with running_bot(fake, bot):
        await bot.tree.sync()
        handle = await fake.invoke(alice, channel, "picture")
        answer = await handle.reply()
        follow_up = await handle.followup()
        await fake.wait_for(lambda: refused != [], what="the channel message refused")
    assert refused == [403]
    assert [a["filename"] for a in answer.attachments] == ["d.png"]
    assert [a["filename"] for a in follow_up.attachments] == ["c.png"]
    assert [m.content for m in fake.channel_messages(channel)] == ["one", "two"]
    fake.take_violations()
