"""A fake Discord server that the real, unmodified discord.py client connects to.

It is an aiohttp app on 127.0.0.1 (a free port) in the test's own event loop: REST under ``/api/v10`` and the
gateway websocket at ``/gateway`` (plain JSON text frames). The bot reaches it through
``bot.delivery.endpoints`` (``DISCORD_API_BASE_URL`` / ``DISCORD_GATEWAY_URL``), as a deployment behind a
proxy of Discord's API would.

Example (a pytest test; ``fake_discord`` is the fixture from ``tests.fakediscord.harness``)::

    from tests.fakediscord import FakeDiscord, fast_bot_options, running_bot

    async def test_new_table(fake_discord: FakeDiscord) -> None:
        fake = fake_discord
        guild = fake.create_guild("Cards")
        channel = fake.create_channel(guild, "table-1")
        alice = fake.create_user("alice")
        fake.add_member(guild, alice)

        bot = make_bot(**fast_bot_options())  # any discord.Client; guild_ready_timeout small
        async with running_bot(fake, bot):  # apply_endpoints + bot.start(token) + wait until ready
            await bot.tree.sync()  # the fake keeps the synced JSON: fake.synced_commands()
            resp = await fake.invoke(alice, channel, "eights new", preset="classic")
            message = await resp.reply()  # waits for the bot's callback (and a deferred reply's edit)
            assert not resp.ephemeral and "classic" in message.content
            click = await fake.click(alice, message, label="Join")
            await click.reply()
            hand = await fake.invoke(alice, channel, "eights hand")
            assert (await hand.reply()).ephemeral
            assert fake.channel_messages(channel)[-1].content  # public messages, oldest first
            assert fake.ephemeral_messages(alice)  # what only alice saw

At teardown the ``fake_discord`` fixture fails the test if the bot called an endpoint the fake does not
know (``fake.unknown_requests``) or broke one of Discord's rules (``fake.violations``). Import the fixture
into your conftest.py: ``from tests.fakediscord.harness import fake_discord  # noqa: F401``.

World building (synchronous; dispatched to a connected bot as GUILD_CREATE, CHANNEL_CREATE, ...):
    ``fake.create_guild(name, owner=None)``, ``fake.create_channel(guild, name)``,
    ``fake.create_role(guild, name, permissions=0)``, ``fake.create_user(name)``,
    ``fake.add_member(guild, user, roles=[...], permissions=None)`` (permissions: an int such as
    ``discord.Permissions(manage_guild=True).value``; by default @everyone's plus the roles'; the guild
    owner has all). ``fake.bot_user``, ``fake.application_id``, ``fake.token``.

Acting as users (async; each returns at once with an ``InteractionHandle``, the bot answers meanwhile):
    ``await fake.invoke(user, channel, "group sub", **options)`` — options are checked like Discord's client
    does (names, types, choices, min/max, required; FakeUser/FakeRole/FakeChannel for entity options, sent
    with ``resolved``); commands hidden by ``default_member_permissions`` cannot be invoked.
    ``await fake.autocomplete(user, channel, "eights play", "card", partial="k", **other_options)`` → the
    bot's choices ``[{"name", "value"}]``.
    ``await fake.click(user, message, custom_id)`` or ``click(user, message, label="Draw")``;
    ``await fake.select(user, message, custom_id, ["value", ...])``;
    ``await fake.submit_modal(user, handle_that_opened_it, input_custom_id="text")``;
    ``await fake.craft_component(user, channel, message, custom_id[, values=[...]])``: what a tampered client
    could send (any custom id on any message, in any channel of a server the user is in);
    ``await fake.post_user_message(user, channel, "hi")``.
    Doing what a user could not (a hidden button, another user's ephemeral message, a bad option) raises
    ``InvalidInteraction``.

Awaiting the bot (``InteractionHandle``):
    ``await resp.callback()`` → the callback type (4 message, 5 defer, 6 deferred update, 7 update, 8, 9);
    ``await resp.reply()`` → the ``FakeMessage`` the callback produced or changed (for a defer: once filled);
    ``await resp.followup(0)`` → the first follow-up; ``resp.content``, ``resp.embeds``, ``resp.components``,
    ``resp.ephemeral``, ``resp.message``, ``resp.followups``, ``resp.modal``.
    Generic: ``await fake.wait_for(lambda: len(fake.channel_messages(channel)) > 2, what="a turn message")``
    (re-checked on every change in the fake and every 10 ms, so conditions on the bot's state work too).
    Waits time out after ``fake.wait_timeout`` (5 s) with an AssertionError; if the bot's answer broke a rule
    the wait fails at once with the violation.

Reading what the bot did:
    ``fake.channel_messages(channel)`` — public messages, oldest first; ephemeral ones are never there.
    ``fake.ephemeral_messages(user)`` — the ephemeral messages only ``user`` saw.
    A ``FakeMessage`` has ``content``, ``embeds``, ``components``, ``ephemeral``, ``recipient``, ``deleted``,
    ``versions`` (every state, edits included, oldest first), ``buttons``, ``selects``,
    ``component(custom_id, label=...)``, ``text()`` (content plus embed text).
    ``fake.synced_commands(guild=None)`` — the command JSON last synced (global or per guild).
    ``fake.add_message_observer(fn)`` — ``fn(message, recipient)`` runs on every message the bot creates or
    edits (``recipient`` None when public); an exception it raises becomes a violation. For privacy checks.
    ``fake.take_violations()`` / ``fake.take_unknown_requests()`` — for tests that provoke one on purpose.

Rules enforced (the request fails as Discord would, and the violation is recorded): one callback per
interaction (400, 40060); the first callback within ``callback_deadline`` = 3 s (404, 10062); no follow-up or
original-response webhook call before the callback; interaction tokens expire (``token_lifetime`` 15 min);
callback types must suit the interaction; content at most 2,000 characters; embed limits; at most 5 action
rows of 5 buttons, one select per row, 25 options per select; unique custom_ids; no empty messages;
autocomplete at most 25 choices; command schemas as Discord validates them. As on Discord, the first
follow-up after a deferred response (type 5) replaces the "thinking" message and keeps the defer's
visibility, and ephemeral messages cannot be fetched or edited through the channel.

Application emojis (``tests/fakediscord/emojis.py``): ``GET/POST /applications/{app}/emojis`` and
``GET/PATCH/DELETE .../emojis/{id}`` with Discord's limits (names 2–32 of ``[A-Za-z0-9_]`` and unique,
PNG/JPEG/GIF/WebP/AVIF of at most 256 KiB, 2,000 per app), refused with Discord's form error shape;
``fake.emojis`` (``items``, ``by_name``, ``images``, ``created``, ``fail_creates = 503`` to make uploads fail,
``add`` as the owner would in the portal). An emoji on a button or select option must be a Unicode emoji or
one of the app's.

Files (``tests/fakediscord/attachments.py``): multipart messages and edits (``payload_json`` plus
``files[n]``), the ``attachments`` array with descriptions, kept attachments on edits, 10 files of 10 MiB at
most, Attach Files needed on channel routes; ``fake.files.content(attachment)`` gives an upload's bytes, and
``FakeMessage.versions`` keep each version's attachments.

Gateway: HELLO, IDENTIFY → READY + GUILD_CREATE per guild of the shard, heartbeats, RESUME (missed events are
replayed), sharded IDENTIFY ``[shard_id, shard_count]`` with ``GET /gateway/bot`` answering
``FakeDiscord(recommended_shards=N)``, member chunk requests. As on Discord, GUILD_CREATE lists only the
bot's own member unless the bot has the presences intent (with the members intent discord.py asks for the
rest). ``await fake.drop_gateway()`` closes the bot's websocket(s) so that the client resumes;
``drop_gateway(invalidate=True)`` forgets the session first, so the RESUME is refused and the client
identifies again. ``fake.identifies``, ``fake.resumes``, ``fake.refused_resumes`` and
``fake.gateway_connections`` record what happened. Interactions go to the shard that holds the guild,
``(guild_id >> 22) % shard_count``; guilds created in the same millisecond share a shard.

Discord's limits and faults (opt-in; ``ratelimits.py`` and ``faults.py`` say what is modelled and why):
``FakeDiscord(limits=DiscordLimits(...))`` or ``fake.enable_limits()`` turns on the global limit (50/s in
1 s windows; interaction callbacks and interaction webhooks exempt), per-route buckets keyed by channel,
guild or webhook id + token (message creates 5 per 5 s per channel, edits a bucket of their own), Discord's
``X-RateLimit-*``, ``Retry-After`` and ``Via`` headers and 429 bodies, and the ban after 10,000 invalid
requests (401, 403, 429 but shared ones) in 10 minutes. ``fake.limits.counters`` (global offered/passed,
429s by scope, ``invalid_recent()``, ``banned``) are for tests and benches;
``fake.limits.assert_no_global_429()`` fails a test whose bot provoked a global 429, and ``assert_clean``
(so the fixture) does too when limits are on. In tests: ``@pytest.mark.discord_limits(**kwargs)`` (the
kwargs of ``DiscordLimits``) on a test using ``fake_discord``, or the ``limited_fake_discord`` fixture.
``FakeDiscord(server_error_rate=0.02, fault_seed=1)`` answers that seeded share of REST calls with
500/502/503/504 before handling them; ``fake.server_errors.fail_next(2, path_contains="/callback")``
answers exactly the next two matching calls 503. ``await fake.drop_gateway(kind=...)`` with "close", "abrupt",
"half_open", "reconnect" (op 7) or "invalid_session" (op 9); ``fake.faults.run(every, kinds, stop=event)``
injects them in turn; ``fake.faults.outages`` records each.

Constructor options: ``FakeDiscord(token=..., recommended_shards=1, callback_deadline=3.0,
token_lifetime=900.0, wait_timeout=5.0, heartbeat_interval=41.25, advertised_gateway_url=None, limits=None,
server_error_rate=0.0, fault_seed=0)`` (``advertised_gateway_url`` names another gateway in
``GET /gateway/bot`` and READY's ``resume_gateway_url``, to prove a configured gateway wins). The deadlines
are attributes too: a test may scale them down (``fake.callback_deadline = 0.2``).

The fake and the real client share the test's event loop: start the bot with ``running_bot`` (or
``await bot.start(fake.token)`` in a task) and close the bot before the fake.
"""

from .harness import fake_discord, fast_bot_options, limited_fake_discord, running_bot
from .interactions import InteractionHandle, InteractionRecord, InvalidInteraction
from .model import (
    ADMINISTRATOR,
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageVersion,
)
from .ratelimits import DiscordLimits, RateLimits
from .server import FakeDiscord, RecordedRequest

__all__ = [
    "ADMINISTRATOR",
    "MANAGE_GUILD",
    "MANAGE_MESSAGES",
    "DiscordLimits",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionHandle",
    "InteractionRecord",
    "InvalidInteraction",
    "MessageVersion",
    "RateLimits",
    "RecordedRequest",
    "fake_discord",
    "fast_bot_options",
    "limited_fake_discord",
    "running_bot",
]
