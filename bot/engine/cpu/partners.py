"""What a CPU seat weighs in a partnership: whose turn a card hurts, and who counts as a threat.

Partners sit opposite (seats 0 and 2, 1 and 3). With all four players in, the next player is always an
opponent; once a player is out and passed over, the next player still in may be the partner, and a skip, a
draw card or an answer card would hurt the own side. Without partnership every function here gives what the
levels used before (the next seat, the smallest other hand), so their play there is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import Action, ActionKind, Card, Round

from .knowledge import Knowledge

#: Score a play that makes the partner draw or miss a turn: below every other play, wilds included (-1000).
HITS_PARTNER_PENALTY = -2000.0


def hits_partner(rnd: Round, seat: int, card: Card, know: Knowledge) -> bool:
    """Whether `seat` playing `card` now makes its partner draw or miss a turn (skip, draw card, answer)."""
    if not know.partnership:
        return False
    rank = card >> 2
    if not know.effects[rank] or rank == know.wild_rank:
        return False
    partner = (seat + 2) % 4
    if rnd.is_out(partner):
        return False
    direction = -rnd.direction if rank in know.reverse_ranks else rnd.direction
    if rank not in know.skip_ranks and rank not in know.attack_ranks:
        return False  # a plain reverse makes nobody miss a turn
    return rnd.next_in(seat, direction) == partner


def partner_next(sizes: Sequence[int], seat: int, direction: int) -> bool:
    """Whether the next player still in after `seat` (in `direction`) is its partner (four seats, sizes 0 =
    out): the tracker's reading of a past choice, where the round itself is gone."""
    if len(sizes) != 4:
        return False
    s = (seat + direction) % 4
    while sizes[s] == 0 and s != seat:
        s = (s + direction) % 4
    return s == (seat + 2) % 4


def threat(sizes: Sequence[int], seat: int, partnership: bool) -> int:
    """The smallest hand among `seat`'s opponents still in (everyone else, without partnership)."""
    if not partnership:
        return min(sizes[p] for p in range(len(sizes)) if p != seat)
    left = [sizes[p] for p in range(len(sizes)) if (p - seat) % 2 and sizes[p] > 0]
    return min(left) if left else 99


def spare_partner(rnd: Round, seat: int, legal: Sequence[Action], know: Knowledge) -> list[Action]:
    """`legal` without the plays that would make the partner draw or miss a turn, when another play is left
    (or, facing a pending draw, the draw: stacking onto the partner only makes the side owe more)."""
    legal = list(legal)
    if not know.partnership:
        return legal
    hurting = [
        a
        for a in legal
        if a.kind is ActionKind.PLAY and a.card is not None and hits_partner(rnd, seat, a.card, know)
    ]
    if not hurting:
        return legal
    kept = [a for a in legal if a not in hurting]
    if any(a.kind is ActionKind.PLAY for a in kept):
        return kept
    if rnd.pending_draw and any(a.kind is ActionKind.DRAW for a in kept):
        return kept
    return legal
