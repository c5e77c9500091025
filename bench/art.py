"""Picture speed: drawing the card emojis and the board pictures, p50/p99 in milliseconds, and PNG sizes.

Boards are random but plausible (2 to 7 seats, random counts, targets, named suits, direction, stock), each
one different, so every board render is a real drawing (a cache miss); the cached path is measured apart.
Crazier Eights boards likewise (2 to 6 players, some in teams, 0 to 5 cards in play each, a player out now
and then, a named colour under an 8).
The board is drawn in a worker thread by the bot, so these times are spent off the event loop. Wall-clock
times depend on the machine's other load; the CPU time of the drawing thread is shown beside them.

``--first-start`` measures instead what the drawing costs the bot's event loop at a first start (no art
cached, no emoji on the application): the real EightsBot against the fake Discord in this process, drawing
its 113 emojis (in a worker thread) and uploading them, while a table is opened and started. A task sleeping
5 ms at a time records how late the event loop wakes it; printed: the worst and p99 lateness while the
emojis are drawn and uploaded (target: under 100 ms), and the time from Start to the board showing the round
(``--start-after 3``: the table opened 3 s after the bot is ready, once the shared parts of the board picture
are drawn; at once, the first board waits for them).

    .venv/bin/python bench/art.py [--boards 300] [--cards 3] [--crazier-boards 300]
    .venv/bin/python bench/art.py --first-start [--start-after 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from bot.engine.cards import STANDARD_DECK, card_code
from bot.engine.crazier.deck import COLOURS, DECK, row_of
from bot.service.models import SeatView, TableSnapshot
from bot.ui.art import png_bands
from bot.ui.art.board import (
    PNG_LEVEL,
    BoardPicture,
    BoardRenderer,
    compose_board,
    compose_framed,
    render_board,
)
from bot.ui.art.cards import png_bytes
from bot.ui.art.crazier_board import CrazierBoard, CrazierSeat, render_crazier_board
from bot.ui.art.crazier_board import forget as forget_crazier_rows
from bot.ui.art.emoji_set import all_keys, draw

NAMES = ("alice", "Bob", "CPU 1", "Zoë", "dave the destroyer", "李小龍", "eve", "mallory")


def random_board(rng: random.Random, table_id: int) -> TableSnapshot:
    count = rng.randint(2, 7)
    to_act = rng.randrange(count)
    seats = tuple(
        SeatView(
            position=i,
            user_id=None if i == 2 else 1000 + i,
            name=rng.choice(NAMES),
            is_host=i == 0,
            is_cpu=i == 2,
            cpu_level="normal" if i == 2 else None,
            taken_over=False,
            card_count=rng.randint(0, 25),
            total=0,
            last_round_score=None,
            to_act=i == to_act,
            timeouts_in_a_row=0,
        )
        for i in range(count)
    )
    target = card_code(rng.choice(STANDARD_DECK))
    return TableSnapshot(
        table_id=table_id,
        guild_id=1,
        channel_id=2,
        host_id=1000,
        status="playing",
        phase="playing",
        preset="classic",
        target_score=100,
        max_seats=7,
        turn_timeout=90.0,
        auto_draw=True,
        next_round_pause=10.0,
        seats=seats,
        round_number=rng.randint(1, 5),
        round_token=f"{table_id}:1",
        target_card=target,
        declared_suit=rng.choice("CDHS") if target.startswith("8") else None,
        direction=rng.choice((1, -1)),
        pending_draw=rng.choice((0, 0, 0, 2, 4)),
        stock_size=rng.randint(0, 40),
        to_act=to_act,
        deadline=None,
        deadline_kind=None,
        totals=(0,) * count,
        round_scores=(),
        recent=(),
        ranking=(),
        board_message_id=None,
    )


def next_board(rng: random.Random, board: TableSnapshot) -> TableSnapshot:
    """The board after a move at that table: the mover's count changes, the turn passes, a new target
    card, the stock may shrink; the rest (names, other seats, direction) stays as it was."""
    seats = list(board.seats)
    mover = board.to_act if board.to_act is not None else 0
    seat = seats[mover]
    count = max(1, (seat.card_count or 5) + rng.choice((-1, -1, 1)))
    seats[mover] = dataclasses.replace(seat, card_count=count, to_act=False)
    following = (mover + 1) % len(seats)
    seats[following] = dataclasses.replace(seats[following], to_act=True)
    target = card_code(rng.choice(STANDARD_DECK))
    return dataclasses.replace(
        board,
        seats=tuple(seats),
        to_act=following,
        target_card=target,
        declared_suit=rng.choice("CDHS") if target.startswith("8") else None,
        pending_draw=0,
        stock_size=max(0, board.stock_size - rng.choice((0, 0, 1))),
    )


ASSETS = tuple(card for card in DECK if row_of(card).kind == "asset")


def random_crazier_board(rng: random.Random) -> CrazierBoard:
    count = rng.randint(2, 6)
    teams = count >= 4 and rng.random() < 0.5
    to_act = rng.randrange(count)
    assets = list(ASSETS)
    rng.shuffle(assets)
    seats = []
    for i in range(count):
        in_play = tuple(assets.pop() for _ in range(min(len(assets), rng.choice((0, 0, 1, 1, 2, 3, 5)))))
        seats.append(
            CrazierSeat(
                position=i,
                name=rng.choice(NAMES),
                hand_size=rng.randint(0, 14),
                in_play=in_play,
                to_act=i == to_act or (teams and i % 2 == to_act % 2),
                out=i != to_act and rng.random() < 0.1,
                team=1 + i % 2 if teams else None,
            )
        )
    top = rng.choice(DECK)
    return CrazierBoard(
        top_card=top,
        draw_pile=rng.randint(0, 30),
        discard_pile=rng.randint(1, 30),
        seats=tuple(seats),
        named_colour=rng.choice(COLOURS) if top.startswith("8") else None,
        game_number=rng.randint(1, 4),
    )


def next_crazier_board(rng: random.Random, board: CrazierBoard) -> CrazierBoard:
    """The board after a move at that table: the mover's hand changes (a card discarded, drawn or put in
    play), the turn passes, a new top card, the piles change; the other players' rows stay as they were."""
    seats = list(board.seats)
    mover = next((i for i, seat in enumerate(seats) if seat.to_act), 0)
    seat = seats[mover]
    in_play = seat.in_play
    if rng.random() < 0.2 and len(in_play) < 4:
        in_play = (*in_play, rng.choice(ASSETS))
    hand = max(0, seat.hand_size + rng.choice((-1, -1, 1)))
    seats[mover] = dataclasses.replace(seat, hand_size=hand, in_play=in_play, to_act=False)
    following = (mover + 1) % len(seats)
    seats[following] = dataclasses.replace(seats[following], to_act=True)
    top = rng.choice(DECK)
    return dataclasses.replace(
        board,
        top_card=top,
        seats=tuple(seats),
        draw_pile=max(0, board.draw_pile - rng.choice((0, 1))),
        discard_pile=board.discard_pile + 1,
        named_colour=rng.choice(COLOURS) if top.startswith("8") else None,
    )


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99, ordered[-1]


def report(what: str, samples: list[float], cpu: list[float]) -> None:
    p50, p99, worst = percentiles(samples)
    cpu50, cpu99, _ = percentiles(cpu)
    print(
        f"{what:<38} n={len(samples):>5}  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  max {worst:7.2f} ms"
        f"  (CPU p50 {cpu50:.2f} ms, p99 {cpu99:.2f} ms)"
    )


def timed(work: Callable[[], object], wall: list[float], cpu: list[float]) -> object:
    start, start_cpu = time.perf_counter(), time.thread_time()
    result = work()
    wall.append((time.perf_counter() - start) * 1000)
    cpu.append((time.thread_time() - start_cpu) * 1000)
    return result


async def first_start(start_after: float) -> None:
    """See the module docstring (``--first-start``); the table is opened ``start_after`` seconds after the
    bot is ready."""
    # Imported here: the drawing benchmarks need neither discord.py nor the fake (in tests/, beside bench/).
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bot.client import EightsBot
    from bot.config import Config, Secret
    from tests.fakediscord import FakeDiscord, fast_bot_options, running_bot

    loop = asyncio.get_running_loop()
    lateness: list[tuple[float, float]] = []  # (when, how late)

    async def probe() -> None:
        while True:
            before = loop.time()
            await asyncio.sleep(0.005)
            lateness.append((loop.time(), max(0.0, loop.time() - before - 0.005)))

    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord() as fake:
            guild = fake.create_guild("Cards")
            channel = fake.create_channel(guild, "eights")
            alice, bob = fake.create_user("alice"), fake.create_user("bob")
            for user in (alice, bob):
                fake.add_member(guild, user)
            config = Config(
                token=Secret(fake.token),
                database_url=f"sqlite:///{Path(folder) / 'eights.sqlite3'}",
                api_base_url=fake.api_base_url,
                gateway_url=fake.gateway_url,
                cpu_delay=0.0,
            )
            bot = EightsBot(config, emoji_pace=0.01, **fast_bot_options())
            watch = asyncio.create_task(probe())
            async with running_bot(fake, bot, set_endpoints=True):
                began = loop.time()
                await asyncio.sleep(start_after)
                new = await fake.invoke(alice, channel, "eights new", target=1000)
                board = await new.reply()
                await (await fake.click(bob, board, label="Join")).callback()
                clicked = loop.time()
                await (await fake.click(alice, board, label="Start")).callback()

                def round_shown() -> bool:
                    return any("round 1" in str(embed.get("title", "")) for embed in board.embeds)

                await fake.wait_for(round_shown, timeout=10, what="the board showing round 1")
                shown = loop.time()
                ready = await bot.card_emojis.wait()
                ended = loop.time()
            watch.cancel()
    during = sorted(lag for when, lag in lateness if began <= when <= ended)
    p99 = during[min(len(during) - 1, round(0.99 * (len(during) - 1)))]
    median = statistics.median(during)
    print(
        f"first start: emojis {'ready' if ready else 'NOT ready'} after {ended - began:.2f} s "
        f"({bot.card_emojis.uploaded} uploaded); event loop late by p50 {median * 1000:.1f} "
        f"ms, p99 {p99 * 1000:.1f} ms, worst {during[-1] * 1000:.1f} ms over {len(during)} wake-ups; "
        f"Start → board showing round 1: {(shown - clicked) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=300, help="distinct boards to draw")
    parser.add_argument("--cards", type=int, default=3, help="times each of the 113 emojis is drawn")
    parser.add_argument(
        "--crazier-boards", type=int, default=300, help="distinct Crazier Eights boards to draw"
    )
    parser.add_argument(
        "--first-start", action="store_true", help="the event loop's lateness while a first start draws"
    )
    parser.add_argument(
        "--start-after", type=float, default=0.0, help="--first-start: seconds before the table is opened"
    )
    args = parser.parse_args()
    if args.first_start:
        asyncio.run(first_start(args.start_after))
        return

    rng = random.Random(18)
    boards = [random_board(rng, i) for i in range(args.boards)]
    render_board(boards[0])  # warm the sprite caches (card faces, backs, the empty table)

    emoji_times: list[float] = []
    emoji_cpu: list[float] = []
    sizes: list[int] = []
    uncached = draw.__wrapped__  # draw() keeps what it drew: time the drawing itself
    for _ in range(args.cards):
        for key in all_keys():
            png = timed(lambda key=key: uncached(key), emoji_times, emoji_cpu)
            assert isinstance(png, bytes)
            sizes.append(len(png))
    report("emoji (cards, back, suits, colours)", emoji_times, emoji_cpu)
    print(f"{'':<38} PNG {min(sizes)}–{max(sizes)} bytes (Discord allows 262,144)")

    # The first pass meets new sprites (a name on its plate, a count, a fan) and draws them once; the second
    # draws the same boards again with every sprite drawn: what a long-running bot spends per picture.
    for what in ("board picture, sprites met first", "board picture, sprites drawn"):
        board_times: list[float] = []
        board_cpu: list[float] = []
        board_sizes: list[int] = []
        png_bands.forget()  # every band compressed (a board drawn again would find all of its bands)
        for board in boards:
            picture = timed(lambda board=board: render_board(board), board_times, board_cpu)
            assert isinstance(picture, BoardPicture)
            board_sizes.append(len(picture.png))
        report(what, board_times, board_cpu)
    print(f"{'':<38} PNG p50 {statistics.median(board_sizes):,.0f} bytes, max {max(board_sizes):,} bytes")
    # What the bot meets: each table's board again after a move (tables in turn, as their moves come), so
    # the bands a move left alone come from the PNG's band cache.
    tables = boards[:50]
    game_boards = []
    for _ in range(8):
        tables = [next_board(rng, board) for board in tables]
        game_boards.extend(tables)
    next_times: list[float] = []
    next_cpu: list[float] = []
    next_sizes: list[int] = []
    for board in game_boards:
        picture = timed(lambda board=board: render_board(board), next_times, next_cpu)
        assert isinstance(picture, BoardPicture)
        next_sizes.append(len(picture.png))
    report("board picture, the next after a move", next_times, next_cpu)
    print(f"{'':<38} PNG p50 {statistics.median(next_sizes):,.0f} bytes")
    game_images = [compose_board(board) for board in game_boards]
    framed_images = [compose_framed(board) for board in game_boards]
    for name, encode, encoded in (
        ("bands, framed, after a move (the bot's)", png_bands.framed_png, framed_images),
        ("Pillow, zlib level 1", functools.partial(png_bytes, optimize=False, level=1), game_images),
    ):
        png_bands.forget()
        for image in encoded[:50]:  # each table's first board: its bands met once
            encode(image)
        encode_times: list[float] = []
        encode_cpu: list[float] = []
        sizes = []
        for image in encoded[50:]:
            png = timed(lambda image=image, encode=encode: encode(image), encode_times, encode_cpu)
            assert isinstance(png, bytes)
            sizes.append(len(png))
        report(f"  of which PNG, {name}", encode_times, encode_cpu)
        print(f"{'':<38} PNG p50 {statistics.median(sizes):,.0f} bytes")
    compose_times: list[float] = []
    compose_cpu: list[float] = []
    images = [timed(lambda board=board: compose_board(board), compose_times, compose_cpu) for board in boards]
    report("  of which composing (palette pixels)", compose_times, compose_cpu)
    for level, strategy, name in (
        (PNG_LEVEL, None, "Pillow, zlib level 1"),
        (1, zlib.Z_RLE, "zlib level 1, Z_RLE"),
        (3, None, "zlib level 3"),
        (6, None, "zlib level 6"),
    ):
        encode_times = []
        encode_cpu = []
        sizes = []
        for image in images:
            assert isinstance(image, Image.Image)
            png = timed(
                lambda image=image, level=level, strategy=strategy: png_bytes(
                    image, optimize=False, level=level, strategy=strategy
                ),
                encode_times,
                encode_cpu,
            )
            assert isinstance(png, bytes)
            sizes.append(len(png))
        report(f"  of which PNG, {name}", encode_times, encode_cpu)
        print(f"{'':<38} PNG p50 {statistics.median(sizes):,.0f} bytes")

    crazier = [random_crazier_board(rng) for _ in range(args.crazier_boards)]
    # The first pass meets new parts (a face, a card in play, a number of players) and draws them once; the
    # second draws the same boards again with every part drawn but for the rows kept; the third is what the
    # bot meets: each table's board again after a move (the rows a move left alone are kept).
    crazier_tables = crazier[:50]
    crazier_games = []
    for _ in range(8):
        crazier_tables = [next_crazier_board(rng, board) for board in crazier_tables]
        crazier_games.extend(crazier_tables)
    png_bands.forget()
    forget_crazier_rows()
    for what, drawn in (
        ("crazier board, parts met first", crazier),
        ("crazier board, parts drawn", crazier),
        ("crazier board, the next after a move", crazier_games),
    ):
        crazier_times: list[float] = []
        crazier_cpu: list[float] = []
        crazier_sizes: list[int] = []
        for crazier_board in drawn:
            picture = timed(lambda b=crazier_board: render_crazier_board(b), crazier_times, crazier_cpu)
            assert isinstance(picture, BoardPicture)
            crazier_sizes.append(len(picture.png))
        report(what, crazier_times, crazier_cpu)
        sizes_said = (
            f"PNG p50 {statistics.median(crazier_sizes):,.0f} bytes, max {max(crazier_sizes):,} bytes"
        )
        print(f"{'':<38} {sizes_said}")

    renderer = BoardRenderer()
    for board in boards[:50]:
        renderer.render(board)
    hit_times: list[float] = []
    hit_cpu: list[float] = []
    for _ in range(20):
        for board in boards[:50]:
            timed(lambda board=board: renderer.render(board), hit_times, hit_cpu)
    report("board picture, unchanged (cache hit)", hit_times, hit_cpu)
    print(f"{'':<38} drawn {renderer.drawn} of {len(hit_times) + 50} requests")


if __name__ == "__main__":
    main()
