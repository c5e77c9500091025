"""End-to-end fixtures: the real EightsBot against the fake Discord, on each backend: a temporary SQLite
database, and PostgreSQL (tests/backends.py: every end-to-end test runs on both).

``world`` gives a started bot (CPU delay 0), a guild with a channel and three members,
helpers to act as those members, and a privacy observer that fails the test (as a fake violation) whenever
a public message, or an ephemeral message shown to someone, contains a card that a player holds and the
rules have not made public. ``world.restart()`` closes the bot and starts a new one on the same database.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from bot.client import EightsBot
from bot.config import Config, Secret
from bot.delivery.publisher import TablePublisher
from bot.engine import Match, card_label, parse_card
from bot.engine.crazier import CrazierMatch
from bot.exts.tables._base import TableCog
from bot.service import TableService, TableSnapshot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, fast_bot_options, running_bot

LABEL = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")
CUSTOM_ID_CARD = re.compile(r":play:((?:10|[2-9AJQK])[CDHS])$")
# A crazier-abilities card as text and in its controls' values ("9B Death (blue ☾)", "9B/c6G").
CRAZIER_CARD = re.compile(r"(?<![\w/])((?:10|[2-9AJQK])[BGOP])\b")
# A card emoji (<:e8f2_KH:123> in text, its name on a component) shows the card as much as its label.
EMOJI_CARD = re.compile(r"\be8[a-z]\d+_((?:10|[2-9AJQK])[CDHS])\b")


class PrivacyObserver:
    """Checks every message the bot creates or edits against the hands held at that moment.

    A card may appear where the viewer is allowed to know it: in the viewer's own hand, or because the round
    made it public (the starter, buried and played cards in the round's public history) or because it was
    shown publicly before. Any other card held by a player must never be shown. Live hands come from the
    service's table observer (``TableService.observe``), which reports every committed state it holds.

    A message is checked against the tables of its own channel only: each table deals a deck of its own, so
    alice's 4♦ at one table may well be carol's 4♦ at another (a message of one table naming it is no leak
    of the other's). ``hidden_from`` without a channel takes every table."""

    def __init__(self) -> None:
        self.bot: EightsBot | None = None
        self.public_seen: set[str] = set()
        self.checked = 0
        self._observed: TableService | None = None
        self._tables: dict[int, tuple[tuple[int | None, ...], Match | CrazierMatch]] = {}

    def detach(self) -> None:
        """Forget the bot and its service (the fake keeps this observer for the whole test session)."""
        self.bot, self._observed, self._tables = None, None, {}

    def _on_state(
        self, table_id: int, user_ids: tuple[int | None, ...], match: Match | CrazierMatch | None
    ) -> None:
        if match is None:
            self._tables.pop(table_id, None)
        else:
            self._tables[table_id] = (user_ids, match)

    def _service(self) -> TableService | None:
        if self.bot is None:
            return None
        return self.bot.service

    def hidden_from(self, viewer_id: int | None, channel_id: int | None = None) -> set[str]:
        """The cards held that ``viewer_id`` (None: everyone) may not see, at the tables of ``channel_id``
        (None: at every table)."""
        service = self._service()
        if service is None:
            return set()
        if service is not self._observed:
            self._observed, self._tables = service, {}
            service.observe(self._on_state)
        registry: Any = getattr(service, "_registry", None)
        hidden: set[str] = set()
        for table_id, (user_ids, match) in list(self._tables.items()):
            live = registry.get(table_id) if registry is not None else None
            if channel_id is not None and live is not None and live.record.channel_id != channel_id:
                continue  # another channel's table, with a deck of its own
            if isinstance(match, CrazierMatch):
                # Codes: what a crazier-abilities card shows as (its hands are never made public).
                for position, user_id in enumerate(user_ids):
                    if viewer_id is None or user_id != viewer_id:
                        hidden |= {c for c in match.round.hands[position] if c not in self.public_seen}
                continue
            rnd = match.round
            public = {card_label(parse_card(code)) for code in _public_codes(rnd.history)}
            for position, user_id in enumerate(user_ids):
                if viewer_id is not None and user_id == viewer_id:
                    continue
                for card in rnd.hand(position):
                    label = card_label(card)
                    if label not in public and label not in self.public_seen:
                        hidden.add(label)
        return hidden

    def __call__(self, message: FakeMessage, recipient: FakeUser | None) -> None:
        self.checked += 1
        text = message_text(message)
        shown = set(LABEL.findall(text))
        shown |= {card_label(parse_card(code)) for code in EMOJI_CARD.findall(text)}
        shown |= set(CRAZIER_CARD.findall(text))
        for component in message.iter_components():
            match = CUSTOM_ID_CARD.search(str(component.get("custom_id", "")))
            if match:
                shown.add(card_label(parse_card(match.group(1))))
            if ":play:" in str(component.get("custom_id", "")):  # card selects (house rules have others)
                for option in component.get("options", []) or []:
                    shown.add(card_label(parse_card(option["value"])))
        if recipient is None and "Your hand" in text:
            raise AssertionError(f"a hand was posted publicly: {text[:200]!r}")
        leaked = shown & self.hidden_from(recipient.id if recipient is not None else None, message.channel_id)
        if leaked:
            who = "everyone" if recipient is None else recipient.name
            raise AssertionError(f"hidden cards {sorted(leaked)} shown to {who}: {text[:300]!r}")
        if recipient is None:
            self.public_seen |= shown


def _public_codes(history: list[tuple[Any, ...]]) -> list[str]:
    codes: list[str] = []
    for entry in history:
        kind = entry[0]
        if kind in ("starter", "bury"):
            codes.append(str(entry[1]))
        elif kind == "play":
            codes.append(str(entry[2]))
    return codes


def message_text(message: FakeMessage) -> str:
    parts = [message.text()]
    for component in message.iter_components():
        parts.append(str(component.get("label") or ""))
        parts.append(str((component.get("emoji") or {}).get("name") or ""))
        for option in component.get("options", []) or []:
            parts.append(f"{option.get('label', '')} {option.get('description', '')}")
            parts.append(str((option.get("emoji") or {}).get("name") or ""))
    # The board picture's description names the target card.
    parts.extend(str(attachment.get("description") or "") for attachment in message.attachments)
    return "\n".join(parts)


# discord.py's names of the tasks that run an interaction's handler: a slash command, a view's item, a
# persistent (dynamic) item, and an on_interaction listener (the house rules' form).
HANDLER_TASKS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-dynamic-item-",
    "discord.py: interaction",
)


class World:
    """A running bot and the people around it."""

    def __init__(
        self, fake: FakeDiscord, tmp_path: Path, observer: PrivacyObserver, database_url: str
    ) -> None:
        self.fake = fake
        self.tmp_path = tmp_path
        self.database_url = database_url
        self.observer = observer
        self.guild = fake.create_guild("Cards")
        self.channel = fake.create_channel(self.guild, "eights")
        self.other_channel = fake.create_channel(self.guild, "general")
        self.alice = fake.create_user("alice")
        self.bob = fake.create_user("bob")
        self.carol = fake.create_user("carol")
        for user in (self.alice, self.bob, self.carol):
            fake.add_member(self.guild, user)
        self.bot: EightsBot | None = None
        self._stack: AsyncExitStack | None = None
        self.config_changes: dict[str, Any] = {}  # settings for the next start (e.g. a metrics port)

    # --- the bot --------------------------------------------------------------------------------------------

    def config(self) -> Config:
        return Config(
            token=Secret(self.fake.token),
            database_url=self.database_url,
            api_base_url=self.fake.api_base_url,
            gateway_url=self.fake.gateway_url,
            cpu_delay=0.0,
            public_interval=0.0,  # every line at once: the tests wait for what they check, not for spacing
            # The card art drawn once per test process (the session's folder), not by every test's bot:
            # drawing it takes seconds of CPU, and a round dealt meanwhile waits that long for its picture.
            **({"art_cache": self.tmp_path.parent / "card-art"} | self.config_changes),
        )

    async def start(self) -> EightsBot:
        bot = EightsBot(self.config(), **fast_bot_options())
        stack = AsyncExitStack()
        await stack.enter_async_context(running_bot(self.fake, bot, set_endpoints=False))
        self.bot, self._stack = bot, stack
        self.observer.bot = bot
        return bot

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
        self._stack = None
        self.observer.detach()

    async def restart(self) -> EightsBot:
        """Close the bot (as on SIGTERM) and start a new one on the same database."""
        await self.stop()
        return await self.start()

    @property
    def publisher(self) -> TablePublisher:
        assert self.bot is not None
        return self.bot.publisher

    @property
    def table_cogs(self) -> list[TableCog]:
        """The cogs of the tables feature (the deferral watchdog's delay is theirs)."""
        assert self.bot is not None
        return [cog for cog in self.bot.cogs.values() if isinstance(cog, TableCog)]

    @property
    def service(self) -> TableService:
        assert self.bot is not None
        return self.bot.service

    # --- acting ---------------------------------------------------------------------------------------------

    async def run(
        self, user: FakeUser, command: str, channel: FakeChannel | None = None, **options: Any
    ) -> FakeMessage:
        """Run ``/eights <command>`` and return the bot's answer once it is there."""
        handle = await self.fake.invoke(user, channel or self.channel, f"eights {command}", **options)
        return await handle.reply()

    async def table_id(self) -> int:
        table_id = await self.service.table_in_channel(self.channel.id)
        assert table_id is not None
        return table_id

    async def snapshot(self) -> TableSnapshot:
        return await self.service.snapshot(await self.table_id())

    def board(self) -> FakeMessage:
        """The table's board: the latest public message with an embed titled "Crazy Eights…"."""
        boards = [
            m
            for m in self.fake.channel_messages(self.channel)
            if m.embeds and str(m.embeds[0].get("title", "")).startswith("Crazy Eights")
        ]
        assert boards, "no board in the channel"
        return boards[-1]

    def public_texts(self) -> list[str]:
        return [m.content for m in self.fake.channel_messages(self.channel)]

    def last_hand(self, user: FakeUser) -> FakeMessage:
        hands = [m for m in self.fake.ephemeral_messages(user) if "Your hand" in m.content]
        assert hands, f"{user.name} has no hand message"
        return hands[-1]

    def busy(self, handlers: bool = True) -> bool:
        """Whether the bot still has work in flight: a timer's move (CPU delay 0), something to show, a
        request waiting for the global budget, the start-up check of restored boards (in the background,
        EightsBot._build_features), or (``handlers``) an interaction's handler still running."""
        names = [task.get_name() for task in asyncio.all_tasks()]
        checking = "eights-check-boards" in names
        # An interaction's handler still running (discord.py's task names): its answer may have reached the
        # fake before the handler's last steps (an /eights status deleting the board it replaced).
        handling = handlers and any(name.startswith(HANDLER_TASKS) for name in names)
        waiting = self.bot is not None and self.bot.budget.waiting > 0
        return self.service.busy() or self.publisher.busy() or waiting or checking or handling

    async def settle(self, timeout: float = 15.0, *, handlers: bool = True) -> None:
        """Wait until the bot has shown everything (CPU moves run at once with CPU delay 0). The timeout is
        generous: the suite runs in several workers on two cores, and a stuck bot still fails. ``handlers``
        False: an interaction's handler a test holds on purpose (a gate) is not waited for."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        quiet = 0
        while quiet < 3:
            await asyncio.sleep(0.002)
            quiet = 0 if self.busy(handlers) else quiet + 1
            if loop.time() > end:
                raise AssertionError("the bot did not settle")

    async def until(self, predicate: Callable[[], Awaitable[bool]], what: str, timeout: float = 15.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not await predicate():
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.002)

    def user_of(self, snapshot: TableSnapshot, position: int) -> FakeUser | None:
        seat = snapshot.seats[position]
        for user in (self.alice, self.bob, self.carol):
            if user.id == seat.user_id and not seat.is_cpu:
                return user
        return None

    async def human_to_act(self) -> FakeUser | None:
        """Wait until a person is to move (CPU seats move by themselves) and return them; None when the round
        is over."""

        async def ready() -> bool:
            table_id = await self.service.table_in_channel(self.channel.id)
            if table_id is None:
                return True
            snapshot = await self.service.snapshot(table_id)
            if snapshot.phase != "playing":
                return True
            return snapshot.to_act is not None and self.user_of(snapshot, snapshot.to_act) is not None

        await self.until(ready, "a person's turn or the end of the round")
        await self.settle()
        table_id = await self.service.table_in_channel(self.channel.id)
        if table_id is None:
            return None
        snapshot = await self.service.snapshot(table_id)
        if snapshot.phase != "playing" or snapshot.to_act is None:
            return None
        return self.user_of(snapshot, snapshot.to_act)

    async def hand_message(self, user: FakeUser) -> FakeMessage:
        """The user's current hand message, opening it with "My hand" when they have none yet."""
        hands = [m for m in self.fake.ephemeral_messages(user) if "Your hand" in m.content]
        table_id = await self.table_id()
        session = self.publisher.hands.session(table_id, user.id)
        if hands and session is not None and self.publisher.hand_is_fresh(table_id, user.id):
            return hands[-1]
        reply = await (await self.fake.click(user, self.board(), label="My hand")).reply()
        assert reply.ephemeral and "Your hand" in reply.content
        return reply

    async def play_by_buttons(self, user: FakeUser) -> str:
        """One decision through the hand message's controls: a suit when one must be named, else the first
        playable card, else Draw, else Pass. Returns what was done."""
        message = await self.hand_message(user)
        buttons = {b["label"]: b for b in message.buttons}
        suits = [b for b in message.buttons if ":suit:" in b["custom_id"]]
        if suits:
            handle = await self.fake.click(user, message, suits[0]["custom_id"])
            done = "suit"
        elif any(":play:" in b["custom_id"] for b in message.buttons):
            button = next(b for b in message.buttons if ":play:" in b["custom_id"])
            handle = await self.fake.click(user, message, button["custom_id"])
            done = "play"
        elif message.selects:
            select = message.selects[0]
            handle = await self.fake.select(
                user, message, select["custom_id"], [select["options"][0]["value"]]
            )
            done = "play"
        elif "Draw" in buttons:
            handle = await self.fake.click(user, message, label="Draw")
            done = "draw"
        elif "Pass" in buttons:
            handle = await self.fake.click(user, message, label="Pass")
            done = "pass"
        else:
            raise AssertionError(f"{user.name}'s hand offers nothing to do: {message.content!r}")
        reply = await handle.reply()
        assert reply.ephemeral
        return done

    async def play_round_by_buttons(self, max_moves: int = 400) -> int:
        """Play until the round is over, every person choosing by buttons. Returns the number of moves."""
        moves = 0
        while moves < max_moves:
            user = await self.human_to_act()
            if user is None:
                await self.settle()
                return moves
            await self.play_by_buttons(user)
            moves += 1
        raise AssertionError("the round did not end")


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        yield server
        server.assert_clean()


@pytest.fixture
async def world(fake: FakeDiscord, tmp_path: Path, backend_url: str) -> AsyncIterator[World]:
    observer = PrivacyObserver()
    fake.add_message_observer(observer)
    world = World(fake, tmp_path, observer, backend_url)
    await world.start()
    try:
        yield world
    finally:
        await world.stop()
