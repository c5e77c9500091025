"""Stacked classic deals for end-to-end tests: the next round is dealt from a chosen deck."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import parse_card
from bot.engine.round import Round, full_deck


def deck_dealing(
    ruleset: Any,
    num_seats: int,
    dealer: int,
    hands: list[list[str]],
    starter: str,
    stock_top: list[str] | None = None,
) -> list[int]:
    """A deck (top first) that deals ``hands`` (by seat), turns ``starter``, then ``stock_top`` comes next."""
    size = ruleset.hand_size_for(num_seats)
    assert all(len(h) == size for h in hands), (size, [len(h) for h in hands])
    pool = full_deck(ruleset.decks_for(num_seats))
    order: list[int] = []

    def take(code: str) -> int:
        card = parse_card(code)
        pool.remove(card)
        return card

    for i in range(size):
        for k in range(1, num_seats + 1):
            order.append(take(hands[(dealer + k) % num_seats][i]))
    order.append(take(starter))
    order += [take(code) for code in stock_top or []]
    return order + pool


def stack_classic_deal(
    monkeypatch: pytest.MonkeyPatch,
    hands: list[list[str]],
    starter: str,
    *,
    leader: int = 0,
    stock_top: list[str] | None = None,
) -> None:
    """The next round dealt is ``hands`` with ``starter``; seat ``leader`` moves first."""
    original = Round.new.__func__  # type: ignore[attr-defined]
    used = [False]

    def new(
        cls: Any, ruleset: Any, num_seats: int, dealer: int, *, seed: Any = None, deck: Any = None, **kw: Any
    ) -> Any:
        if deck is None and not used[0]:
            used[0] = True
            deck = deck_dealing(ruleset, num_seats, dealer, hands, starter, stock_top)
            kw["leader"] = leader
        return original(cls, ruleset, num_seats, dealer, seed=seed, deck=deck, **kw)

    monkeypatch.setattr(Round, "new", classmethod(new))


def stack_rounds(
    monkeypatch: pytest.MonkeyPatch, deals: list[tuple[list[list[str]], str]]
) -> list[dict[str, Any]]:
    """Round k is dealt ``deals[k]`` (hands by seat, starter), its leader left as the match chooses (unlike
    ``stack_classic_deal``). Returns a log of (dealer, leader) per deal."""
    original = Round.new.__func__  # type: ignore[attr-defined]
    queue = list(deals)
    log: list[dict[str, Any]] = []

    def new(
        cls: Any, ruleset: Any, num_seats: int, dealer: int, *, seed: Any = None, deck: Any = None, **kw: Any
    ) -> Any:
        if deck is None and queue:
            hands, starter = queue.pop(0)
            deck = deck_dealing(ruleset, num_seats, dealer, hands, starter)
            log.append({"dealer": dealer, "leader": kw.get("leader")})
        return original(cls, ruleset, num_seats, dealer, seed=seed, deck=deck, **kw)

    monkeypatch.setattr(Round, "new", classmethod(new))
    return log


# Two one-card rounds at three seats: alice goes out with K♥ in round 1, bob with 7♥ in round 2.
ONE_CARD_ROUNDS = [([["KH"], ["8D"], ["QC"]], "9H"), ([["5S"], ["7H"], ["2C"]], "7C")]


async def first_round_won(world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """alice, bob and carol at a classic table dealt one card each (``ONE_CARD_ROUNDS``); alice goes out:
    round 1 is over, the pause before round 2 runs."""
    stack_rounds(monkeypatch, ONE_CARD_ROUNDS)
    board = await world.run(world.alice, "new", preset="classic", target=100)
    await (await world.fake.click(world.bob, board, label="Join")).callback()
    await (await world.fake.click(world.carol, board, label="Join")).callback()
    await world.run(world.alice, "house", option="hand_size", value="1")
    await world.run(world.alice, "start")
    await world.settle()
    assert await world.play_by_buttons(world.alice) == "play"
    await world.settle()
