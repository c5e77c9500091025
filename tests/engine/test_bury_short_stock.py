"""A wild turned as starter under "bury it in the stock and turn the next card" (RULESETS.md, options table;
seeds 003, 004) when the stock left after the deal is short: the deal ends, with a plain starter if the stock
holds one."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

from bot.engine import Round, card_code, get_preset, parse_card
from tests.engine.support import deck_for


class _Hang(Exception):
    pass


@contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Turn an endless loop into a failure instead of hanging the test run."""

    def _on_alarm(_sig: int, _frame: object) -> None:
        raise _Hang(f"still running after {seconds} s: endless loop")

    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_buried_starter_wild_with_a_short_stock_still_deals() -> None:
    """RULESETS.md, options table, "starter is a wild: ... bury it in the stock and turn the next card
    (003, 004)", and "dealing when the deck is short": the hand size is an option ("any fixed number") and
    the engine accepts 7 hands of 7 from one deck (49 + starter + 2 left; /eights house decks:one
    hand_size:7). When the starter and the next card are both wild but a plain card is still in the stock,
    burying must end with a plain starter. Here `Round.new` never returns: each buried 8 is put back just
    under the top of a 2-card stock and turned again, forever (the bot's event loop hangs on the deal)."""
    rs = get_preset("party").replace(decks="one", hand_size=7)
    others = [c for c in range(4, 56) if c not in {parse_card(x) for x in ("8C", "8D", "KS")}]
    hands = [" ".join(card_code(c) for c in others[k * 7 : k * 7 + 7]) for k in range(7)]
    deck = deck_for(rs, hands, "8C", "8D")  # the stock, top first: 8C (turned), 8D, KS
    assert [deck[49], deck[50], deck[51]] == [parse_card("8C"), parse_card("8D"), parse_card("KS")]
    with _time_limit(5):
        r = Round.new(rs, 7, 6, deck=deck)
    assert r.target == parse_card("KS")
    assert r.target >> 2 != 8


def test_a_stock_of_wilds_only_keeps_the_wild_starter() -> None:
    """With nothing but wilds left in the stock there is no plain card to turn: the deal still ends, the wild
    kept as the starter (its suit to match), and nothing was buried."""
    rs = get_preset("party").replace(decks="one", hand_size=7)
    others = [c for c in range(4, 56) if c not in {parse_card(x) for x in ("8C", "8D", "8H")}]
    hands = [" ".join(card_code(c) for c in others[k * 7 : k * 7 + 7]) for k in range(7)]
    deck = deck_for(rs, hands, "8C", "8D 8H")
    with _time_limit(5):
        r = Round.new(rs, 7, 6, deck=deck)
    assert r.target == parse_card("8C")
    (starter,) = [e for e in r.start_events if e.kind == "starter"]
    assert starter.data == {"card": "8C", "buried": []}
