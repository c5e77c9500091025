"""The `normal` CPU level: a sound heuristic, also the rollout policy of `hard`.

Calls its last card and catches others first; answers a pending draw by stacking when it can; otherwise
sheds high-value cards from its longest suit, prefers cards the next player is known to lack, keeps wilds
(and attack cards) for when nothing else fits or an opponent is close to going out, and names the suit it
holds most of. It never draws when it could play, except in a partnership to take a pending draw itself rather
than stack it onto its partner; it never makes its partner draw or miss a turn while another play exists.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine import Action, ActionKind, Card, Round

from .knowledge import Knowledge, knowledge_of
from .partners import HITS_PARTNER_PENALTY, hits_partner, spare_partner, threat

PLAY = ActionKind.PLAY
SUIT = ActionKind.SUIT
DRAW = ActionKind.DRAW
PASS = ActionKind.PASS
CALL_LAST = ActionKind.CALL_LAST
CATCH = ActionKind.CATCH


def next_seat(rnd: Round, seat: int) -> int:
    """The next seat still in the round (a partnership passes over players who are out)."""
    return rnd.next_in(seat)


def best_suit(
    hand: Sequence[Card], know: Knowledge, *, avoid_card: Card | None = None, bad_for_next: int = 0
) -> int:
    """The suit `hand` holds most of (wilds and `avoid_card` aside); value breaks ties, then a suit the next
    player lacks (`bad_for_next`: bit mask of suits), then the lowest suit number."""
    counts = [0, 0, 0, 0]
    values = [0, 0, 0, 0]
    skipped = False
    wild = know.wild_rank
    for card in hand:
        if card == avoid_card and not skipped:
            skipped = True
            continue
        if card >> 2 == wild:
            continue
        counts[card & 3] += 1
        values[card & 3] += know.values[card]
    best = 0
    best_key = (-1, -1, -1)
    for s in range(4):
        key = (counts[s] * 2 + (1 if bad_for_next >> s & 1 else 0), values[s], -s)
        if key > best_key:
            best, best_key = s, key
    return best


def choose(
    rnd: Round,
    seat: int,
    legal: Sequence[Action],
    rng: random.Random,
    know: Knowledge | None = None,
    next_lacks: int = 0,
) -> Action:
    """Pick an action from `legal` (non-empty); `next_lacks` is a bit mask of suits the next seat lacks.

    Uses only the seat's own hand and public state of `rnd`, so it is fair on the real round and cheap enough
    to be the rollout policy on a determinized one.
    """
    if len(legal) == 1:
        return legal[0]
    if know is None:
        know = knowledge_of(rnd.ruleset)
    if know.partnership:
        legal = spare_partner(rnd, seat, legal, know)
    plays: list[Action] = []
    suits: list[Action] = []
    draw: Action | None = None
    pass_: Action | None = None
    for action in legal:
        kind = action.kind
        if kind is PLAY:
            plays.append(action)
        elif kind is SUIT:
            suits.append(action)
        elif kind is DRAW:
            draw = action
        elif kind is PASS:
            pass_ = action
        elif kind is CALL_LAST or kind is CATCH:
            return action
    hand = rnd.hand(seat)
    if suits:
        want = best_suit(hand, know, bad_for_next=next_lacks)
        for action in suits:
            if action.suit == want:
                return action
        return suits[0]
    if len(plays) == 1:
        return plays[0]
    if plays:
        return _best_play(rnd, seat, hand, plays, rng, know, next_lacks)
    if draw is not None:
        return draw
    if pass_ is not None:
        return pass_
    return legal[0]


def play_score(
    card: Card,
    suit_counts: Sequence[int],
    next_lacks: int,
    next_size: int,
    threat: int,
    pending: bool,
    know: Knowledge,
    partner_hit: bool = False,
) -> float:
    """How much the normal level wants to play `card` (not a wild), tie-breaking noise aside; `suit_counts`
    counts the hand's cards per suit, wilds aside. The hard level's reading of opponents' choices uses it
    too, so both judge a choice alike. `partner_hit`: the card would make the seat's partner draw or miss a
    turn (scored below every other play)."""
    suit = card & 3
    # Shed from the longest suit (the suit stays ours), high values first.
    score = suit_counts[suit] * 3.0 + know.values[card] * 0.2
    if next_lacks >> suit & 1:
        score += 8.0  # the next player must draw (or spend a wild)
    if know.effects[card >> 2]:
        if partner_hit:
            return score + HITS_PARTNER_PENALTY
        # Attacks are worth more when an opponent is close to going out; otherwise keep them a while.
        if next_size <= 2 or threat <= 2:
            score += 6.0
        elif pending:
            score += 10.0  # answering a pending draw by stacking
        else:
            score -= 1.0
    return score


def _best_play(
    rnd: Round,
    seat: int,
    hand: list[Card],
    plays: list[Action],
    rng: random.Random,
    know: Knowledge,
    next_lacks: int,
) -> Action:
    wild = know.wild_rank
    sizes = rnd.hand_sizes
    count = len(sizes)
    next_size = sizes[next_seat(rnd, seat) if know.partnership else (seat + rnd.direction) % count]
    danger = threat(sizes, seat, know.partnership)
    suit_counts = [0, 0, 0, 0]
    for held in hand:
        if held >> 2 != wild:
            suit_counts[held & 3] += 1
    values = know.values
    pending = bool(rnd.pending_draw)
    best: Action | None = None
    best_score = -1e9
    for action in plays:
        card = action.card
        if card is None:
            continue
        rank = card >> 2
        if rank == wild and not know.wild_must_match:
            if len(hand) == 1:
                return action
            if action.suit is not None:
                want = best_suit(hand, know, avoid_card=card, bad_for_next=next_lacks)
                if action.suit != want:
                    continue
            # Last resort: only when nothing else fits (scored far below every other play).
            score = -1000.0 + values[card] * 0.01
        else:
            hit = know.partnership and hits_partner(rnd, seat, card, know)
            score = play_score(card, suit_counts, next_lacks, next_size, danger, pending, know, hit)
        score += rng.random() * 0.01
        if score > best_score:
            best, best_score = action, score
    assert best is not None or plays
    return best if best is not None else plays[0]
