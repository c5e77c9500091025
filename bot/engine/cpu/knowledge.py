"""What the CPU players need to know about a ruleset, in the shape their inner loops want (plain ints).

Computed once per ruleset and cached: the wild rank, card values, which ranks have an effect, and how strong
the evidence of a draw or a pass is under these rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from bot.engine import Card, Ruleset, card_value


@dataclass(frozen=True)
class Knowledge:
    wild_rank: int | None
    wild_must_match: bool
    values: tuple[int, ...]  # card int -> scoring value
    effects: tuple[int, ...]  # rank -> 1 if the rank has an effect (skip, reverse, draw, answer), else 0
    attack_ranks: frozenset[int]  # ranks that leave the next player owing (draw N, or an answer)
    draw_ranks: frozenset[int]  # ranks that make the next player owe cards
    skip_ranks: frozenset[int]
    reverse_ranks: frozenset[int]
    partnership: bool
    stacking: bool
    wild_answers_draw: bool
    has_last_card: bool
    draw_means_unable: bool  # a draw shows the player had no playable card (certain or strong evidence)
    pass_means_unable: bool
    wild_means_unable: bool  # a wild played shows nothing else fitted (strong evidence, not a rule)
    drawn_card_played: bool  # a play right after a draw is of the card drawn
    starter_wild_declares: int | None  # suit declared when the starter is a wild kept face up
    # card int -> mask of the cards a shedding player would have played before it when following suit: the
    # same suit, worth more, neither wild nor special (the normal level sheds high cards of the suit first)
    higher_in_suit: tuple[int, ...]

    def is_attack(self, card: Card) -> bool:
        return card >> 2 in self.attack_ranks

    def answer_mask(self, target: Card | None) -> int:
        """Cards that could have answered a pending draw on `target` (who drew instead lacked them)."""
        if target is None or not self.stacking:
            return 0
        mask = 0
        for suit in range(4):
            mask |= 1 << ((target >> 2) * 4 + suit)
        if self.wild_answers_draw and self.wild_rank is not None:
            for suit in range(4):
                mask |= 1 << (self.wild_rank * 4 + suit)
        return mask


@lru_cache(maxsize=64)
def _knowledge(ruleset: Ruleset) -> Knowledge:
    return _build(ruleset)


def knowledge_of(ruleset: Ruleset) -> Knowledge:
    return _knowledge(ruleset)


def _build(rs: Ruleset) -> Knowledge:
    values = tuple(card_value(c, rs) if c >= 4 else 0 for c in range(56))
    draw_ranks = {rank for rank, _ in rs.draw_ranks}
    special = draw_ranks | set(rs.skip_ranks) | set(rs.reverse_ranks) | set(rs.answer_ranks)
    # A pass says "no playable card" only where passing is never a choice: not with pass-anytime, not after a
    # draw that allows passing, not at the end of a same-rank run.
    pass_forced = (
        not rs.pass_anytime and not rs.same_rank_runs and rs.after_draw in ("must-play-drawn", "turn-ends")
    )
    effects = tuple(1 if r in special else 0 for r in range(14))
    return Knowledge(
        wild_rank=rs.wild_rank,
        wild_must_match=rs.wild_must_match,
        values=values,
        effects=effects,
        attack_ranks=frozenset(draw_ranks | set(rs.answer_ranks)),
        draw_ranks=frozenset(draw_ranks),
        skip_ranks=frozenset(rs.skip_ranks),
        reverse_ranks=frozenset(rs.reverse_ranks),
        partnership=rs.partnership,
        stacking=rs.stacking and bool(draw_ranks),
        wild_answers_draw=rs.wild_answers_draw,
        has_last_card=rs.has_last_card,
        # With a draw to start every turn, a draw says nothing; elsewhere it is certain (draw only when
        # unable) or strong evidence (a voluntary draw is allowed but rarely wise; contradicted evidence is
        # dropped).
        draw_means_unable=not rs.draw_first,
        pass_means_unable=pass_forced,
        wild_means_unable=rs.wild_rank is not None and not rs.wild_must_match,
        drawn_card_played=rs.after_draw != "may-play-any",
        starter_wild_declares=2 if rs.starter_wild == "hearts" else None,
        higher_in_suit=tuple(_higher_in_suit(c, rs.wild_rank, values, effects) for c in range(56)),
    )


def _higher_in_suit(
    card: Card, wild_rank: int | None, values: tuple[int, ...], effects: tuple[int, ...]
) -> int:
    if card < 4 or effects[card >> 2]:
        return 0
    suit = card & 3
    mask = 0
    for rank in range(1, 14):
        other = rank * 4 + suit
        if rank != wild_rank and not effects[rank] and values[other] > values[card]:
            mask |= 1 << other
    return mask
