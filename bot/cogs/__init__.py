"""The bot's Discord features, loaded by ``EightsBot.setup_hook`` through ``setup_all``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, cast

from discord.ext import commands

from bot.cogs.eights import EightsCog
from bot.delivery.publisher import DEFAULT_DEBOUNCE, TablePublisher
from bot.service import ServiceError, SystemClock, TableService
from bot.ui.controls import DYNAMIC_ITEMS
from bot.ui.standings import STANDINGS_DYNAMIC_ITEMS

if TYPE_CHECKING:
    from bot.client import EightsBot

log = logging.getLogger(__name__)

BOARD_CHECKS_IN_PARALLEL = 4


async def setup_all(bot: EightsBot) -> None:
    """Build the table service and its Discord publisher, add the /eights cog, register the persistent
    buttons, restore the open tables (before the bot answers anything) and check their boards.

    ``restore_tables`` False (one-shot commands such as ``sync``) leaves the tables alone."""
    cpu_delay = float(bot.config.cpu_delay)
    # A CPU's moves are batched for at most its delay: with none, each is shown as it comes. The spacing of
    # a table's public lines and board edits is the channel's rate limit, the configuration's own matter;
    # hands are refreshed at once.
    window = min(DEFAULT_DEBOUNCE, cpu_delay)
    publisher = TablePublisher(
        bot,
        gather_window=DEFAULT_DEBOUNCE,
        min_interval=bot.config.public_interval,
        budget=bot.budget,
        on_board_shown=bot.metrics.board_delay.observe,
        appearance=bot.appearance,
    )
    service = TableService(
        bot.store,
        clock=SystemClock(),
        cpu_delay=cpu_delay,
        listener=publisher,
        batch_window=window,
        shards=bot.owned_shards,
    )
    publisher.service = service
    bot.metrics.watch_publisher(publisher.backlog, publisher.behind)
    bot.metrics.watch_open_tables(service.open_table_count)
    # EightsBot is an AutoShardedBot: the same commands.Bot API, a sibling class for the type checker.
    await bot.add_cog(EightsCog(cast(commands.Bot, bot), service, publisher))
    bot.add_dynamic_items(*DYNAMIC_ITEMS, *STANDINGS_DYNAMIC_ITEMS)
    # Closers run last registered first: the service finishes its moves, then the publisher shows them.
    bot.closers.append(publisher.close)
    bot.closers.append(service.close)
    if bot.restore_tables:
        restored = await service.restore_all()
        if restored:
            # In the background: the bot answers at once, and the boards catch up within moments.
            task = asyncio.create_task(_check_boards(service, publisher), name="eights-check-boards")

            async def stop_checking() -> None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

            bot.closers.append(stop_checking)


async def _check_boards(service: TableService, publisher: TablePublisher) -> None:
    """Bring every restored table's board up to date, reposting the ones whose message was deleted."""
    gate = asyncio.Semaphore(BOARD_CHECKS_IN_PARALLEL)

    async def check(table_id: int) -> None:
        async with gate:
            try:
                snapshot = await service.snapshot(table_id)
                await publisher.check_board(snapshot)
            except ServiceError:
                return
            except Exception:
                log.exception("table %s: checking the board failed", table_id)

    await asyncio.gather(*(check(table_id) for table_id in service.open_table_ids()))
