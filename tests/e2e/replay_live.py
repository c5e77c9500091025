"""Replays against the live match: the channel's lines and boards recorded during play, and each step's."""

from __future__ import annotations

import copy

from tests.e2e.conftest import World
from tests.e2e.replay_steps import step_lines
from tests.e2e.test_replays_e2e import replay
from tests.fakediscord import FakeMessage, FakeUser

NOTHING = "(nothing public happened)"


def channel_lines(world: World) -> list[str]:
    """Every line the channel's messages said (not the boards' embeds), turn lines left out."""
    lines: list[str] = []
    for message in world.fake.channel_messages(world.channel):
        for line in (message.content or "").splitlines():
            if line.startswith("▶") or not line.strip():
                continue
            lines.append(line)
    return lines


class Step:
    """One replay step as shown (copied: the replay's message is edited in place by the next click)."""

    def __init__(self, message: FakeMessage) -> None:
        self.title = str(message.embeds[0]["title"])
        self.lines = [line for line in step_lines(message) if line != NOTHING]
        self.fields = {str(f["name"]): str(f["value"]) for f in message.embeds[0].get("fields", [])}
        self.embed = copy.deepcopy(message.embeds[0])
        self.attachments = copy.deepcopy(message.attachments)


async def all_steps(world: World, viewer: FakeUser, table_id: int) -> list[Step]:
    message = await replay(world, viewer, table_id)
    steps = [Step(message)]
    count = int(str(message.embeds[0]["title"]).rsplit(" of ", 1)[1])
    for _ in range(count - 1):
        message = await (await world.fake.click(viewer, message, label="Next")).reply()
        steps.append(Step(message))
    return steps


def replay_lines(steps: list[Step]) -> list[str]:
    return [line for step in steps for line in step.lines]


async def play_out(
    world: World,
    *,
    timeout_every: int = 0,
    crazier: bool = False,
    max_moves: int = 3000,
    boards: BoardLog | None = None,
    start_at: int = 0,
) -> None:
    """Play the channel's match to its end: people by their hand's buttons, every ``timeout_every``-th
    person's turn left to run out (the turn timer fired), rounds started again at once."""
    from tests.e2e.race_steps import fire_turn_timeout
    from tests.e2e.test_crazier import click_move
    from tests.e2e.test_hand_messages_e2e import fire

    turns = 0
    for _ in range(max_moves):
        if await world.service.table_in_channel(world.channel.id) is None:
            return
        snap = await world.snapshot()
        if snap.phase == "between_rounds":
            await fire(world, "_on_pause_over")
            await world.settle()
            continue
        user = await world.human_to_act()
        if boards is not None and await world.service.table_in_channel(world.channel.id) is not None:
            await boards.capture(start_at)
        if user is None:
            await world.settle()
            continue
        turns += 1
        if timeout_every and turns % timeout_every == 0:
            await fire_turn_timeout(world)
        elif crazier:
            await click_move(world, user)
        else:
            await world.play_by_buttons(user)
        await world.settle()
    raise AssertionError("the match did not end")


def diff(live: list[str], replayed: list[str]) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(live, replayed, "channel", "replay", lineterm="", n=2))


# The board's fields a replay step shows in its own way (the step's own fields; the live timer).
OWN_FIELDS = ("This step", "Your hand then", "Only you saw then")


class BoardLog:
    """The live board as the channel showed it at chosen moments, by the replay step of that moment."""

    def __init__(self, world: World, table_id: int) -> None:
        self.world = world
        self.table_id = table_id
        self.boards: dict[int, dict[str, str]] = {}

    async def moves(self) -> int:
        from tests.e2e.test_replays_e2e import store_of

        return len(await store_of(self.world).moves(self.table_id))

    async def capture(self, start_at: int) -> int:
        """The live board now, as the step it is (``start_at``: the index of the match's "start" move)."""
        await self.world.settle()
        index = await self.moves() - start_at - 1
        board = self.world.board()
        self.boards[index] = board_fields(board.embeds[0])
        return index


def board_fields(embed: dict) -> dict[str, str]:
    return {
        str(f["name"]): str(f["value"])
        for f in embed.get("fields", [])
        if not str(f["name"]).startswith(OWN_FIELDS)
    }


async def start_index(world: World, table_id: int) -> int:
    from tests.e2e.test_replays_e2e import store_of

    moves = await store_of(world).moves(table_id)
    return next(i for i, m in enumerate(moves) if m.action.get("kind") == "start")
