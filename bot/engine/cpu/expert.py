"""The default policy of `hard` (before search): the normal heuristic plus what the seat inferred.

Where normal only knows the suits the next player showed it lacks, this policy estimates, for each play, the
chance that the next player holds nothing that fits afterwards (hypergeometric over the cards the seat cannot
see, with the next player's known voids taken out), and prefers plays that leave it stuck — or, when the next
player still in is its partner, plays the partner can follow; it never hurts its partner while another play is
left (`partners`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine import Action, ActionKind, Card, Round

from .inference import RANK_MASKS, SUIT_MASKS, SlotGroup
from .knowledge import Knowledge
from .partners import HITS_PARTNER_PENALTY, hits_partner, spare_partner, threat

STUCK_WEIGHT = 100.0
SUIT_WEIGHT = 3.0
VALUE_WEIGHT = 0.05  # for the win, values barely matter: a tie-break toward shedding high cards


@dataclass
class Beliefs:
    """What the seat knows about the next player's hand: its slot groups (count, cards excluded) and the
    hidden cards (counts per card int)."""

    next_size: int
    groups: list[tuple[int, int]]
    hidden_counts: list[int]
    #: The next player still in is the seat's partner: leaving them stuck is bad, not good.
    partner_next: bool = False


def beliefs(
    hidden: Sequence[Card],
    groups: dict[int, list[SlotGroup]],
    nxt: int,
    next_size: int,
    partner_next: bool = False,
) -> Beliefs:
    counts = [0] * 56
    for card in hidden:
        counts[card] += 1
    live = [(g.count, g.excluded) for g in groups.get(nxt, []) if g.count]
    if not live:
        live = [(next_size, 0)]
    return Beliefs(next_size, live, counts, partner_next)


def stuck_chance(b: Beliefs, fits: int) -> float:
    """The chance that none of the next player's cards is in `fits` (a card mask): each group of slots draws
    its cards at random from the hidden cards it allows (groups taken as independent)."""
    counts = b.hidden_counts
    chance = 1.0
    for size, excluded in b.groups:
        pool = 0
        matching = 0
        for card in range(4, 56):
            n = counts[card]
            if n and not excluded >> card & 1:
                pool += n
                if fits >> card & 1:
                    matching += n
        if matching == 0:
            continue
        for i in range(min(size, pool)):
            remaining = pool - i
            chance *= max(0.0, (remaining - matching) / remaining)
            if chance == 0.0:
                return 0.0
    return chance


def fits_mask(target: Card, suit: int, know: Knowledge) -> int:
    mask = SUIT_MASKS[suit] | RANK_MASKS[target >> 2]
    if know.wild_rank is not None and not know.wild_must_match:
        mask |= RANK_MASKS[know.wild_rank]
    return mask


def choose(
    rnd: Round,
    seat: int,
    legal: Sequence[Action],
    rng: random.Random,
    know: Knowledge,
    b: Beliefs,
) -> Action:
    hand = rnd.hand(seat)
    wild = know.wild_rank
    stuck_weight = -STUCK_WEIGHT if b.partner_next else STUCK_WEIGHT
    if know.partnership:
        legal = spare_partner(rnd, seat, legal, know)
    suits = [a for a in legal if a.kind is ActionKind.SUIT]
    if suits:
        counts = [0, 0, 0, 0]
        for held in hand:
            if held >> 2 != wild:
                counts[held & 3] += 1
        best_action = suits[0]
        best_score = -1e9
        for action in suits:
            s = action.suit
            assert s is not None
            fits = SUIT_MASKS[s] | (RANK_MASKS[wild] if wild is not None else 0)
            score = counts[s] * SUIT_WEIGHT + stuck_weight * stuck_chance(b, fits) + rng.random() * 0.01
            if score > best_score:
                best_action, best_score = action, score
        return best_action
    plays = [a for a in legal if a.kind is ActionKind.PLAY]
    if len(plays) < 2:
        from . import normal

        return normal.choose(rnd, seat, legal, rng, know)
    suit_counts = [0, 0, 0, 0]
    for held in hand:
        if held >> 2 != wild:
            suit_counts[held & 3] += 1
    sizes = rnd.hand_sizes
    danger = threat(sizes, seat, know.partnership)
    best_play = plays[0]
    best = -1e9
    for action in plays:
        card = action.card
        if card is None:
            continue
        rank = card >> 2
        if rank == wild and not know.wild_must_match:
            if len(hand) == 1:
                return action
            score = -1000.0 + know.values[card] * 0.01
        else:
            suit = card & 3
            score = suit_counts[suit] * SUIT_WEIGHT + know.values[card] * VALUE_WEIGHT
            score += stuck_weight * stuck_chance(b, fits_mask(card, suit, know))
            if know.partnership and hits_partner(rnd, seat, card, know):
                score += HITS_PARTNER_PENALTY
            elif know.effects[rank]:
                if b.next_size <= 2 or danger <= 2:
                    score += 6.0
                elif rnd.pending_draw:
                    score += 10.0
                else:
                    score -= 1.0
        score += rng.random() * 0.01
        if score > best:
            best_play, best = action, score
    return best_play
