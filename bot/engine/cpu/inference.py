"""What one seat can know about the hidden cards, and deals of them consistent with it.

An `Observation` is built from the seat's view, the public history and the seat's own hand only — never from
another seat's cards or the stock's order — so anything decided from it is fair by construction.

Each opponent's hand is modelled as groups of card slots; every slot in a group carries the same set of cards
it cannot be (a bit mask over card ints). Cards held when an opponent drew for want of a play cannot be any
card that would have been playable then; cards drawn afterwards are unconstrained until the next evidence.
Not answering a pending draw by stacking says the same of the stacking cards. A card played by choice to
follow suit says the player held no higher card of that suit (the normal level sheds high cards first); a
human may not play so, and evidence a later play contradicts is dropped.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.engine import Card, Round, parse_card, parse_suit, rank_of, suit_of

from .knowledge import Knowledge, knowledge_of

ALL_CARDS: tuple[Card, ...] = tuple(rank * 4 + suit for rank in range(1, 14) for suit in range(4))


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def suit_mask(suit: int) -> int:
    return mask_of(rank * 4 + suit for rank in range(1, 14))


def rank_mask(rank: int) -> int:
    return mask_of(rank * 4 + suit for suit in range(4))


SUIT_MASKS: tuple[int, ...] = tuple(suit_mask(s) for s in range(4))
RANK_MASKS: tuple[int, ...] = tuple(rank_mask(r) if r else 0 for r in range(14))


@dataclass
class SlotGroup:
    """`count` cards of one opponent's hand that share the same exclusions."""

    count: int
    excluded: int = 0


@dataclass
class Observation:
    seat: int
    num_seats: int
    hand: list[Card]
    hand_sizes: list[int]
    stock_size: int
    hidden: list[Card]  # sorted multiset of every card the seat cannot see
    groups: dict[int, list[SlotGroup]] = field(default_factory=dict)

    def void_suits(self, other: int) -> list[int]:
        """Suits that every card of `other`'s hand is known not to be."""
        return void_suits(self.groups, other)


def _card(code: object) -> Card:
    return parse_card(str(code))


def _suit(code: object) -> int:
    if isinstance(code, int):
        return code
    return parse_suit(str(code))


class _Tracker:
    """Replays the public history and keeps slot groups per opponent."""

    def __init__(
        self, seat: int, num_seats: int, know: Knowledge, initial: list[int], shedding: bool = False
    ) -> None:
        self.seat = seat
        self.shedding = shedding
        self.know = know
        self.groups: dict[int, list[SlotGroup]] = {
            p: [SlotGroup(initial[p])] for p in range(num_seats) if p != seat
        }
        self.target: Card | None = None
        self.declared: int | None = None
        self.pending = False  # a draw penalty or an answer is owed
        self.last_play = -1  # the seat whose play was the last entry (a same-rank run continues)
        self.drew = -1  # the seat that drew since the last play (its play may be the forced drawn card)

    def playable_mask(self) -> int:
        target = self.target
        if target is None:
            return 0
        suit = self.declared if self.declared is not None else suit_of(target)
        mask = SUIT_MASKS[suit]
        mask |= RANK_MASKS[rank_of(target)]
        wild = self.know.wild_rank
        if wild is not None and not self.know.wild_must_match:
            mask |= RANK_MASKS[wild]
        return mask

    def exclude(self, player: int, mask: int) -> None:
        for group in self.groups.get(player, []):
            group.excluded |= mask

    def add(self, player: int, count: int, excluded: int = 0) -> None:
        if player in self.groups and count > 0:
            self.groups[player].append(SlotGroup(count, excluded))

    def remove_played(self, player: int, card: Card) -> None:
        groups = self.groups.get(player)
        if not groups:
            return
        live = [g for g in groups if g.count > 0]
        if not live:
            return
        fits = [g for g in live if not g.excluded >> card & 1]
        if fits:
            # The most constrained group that allows the card: what remains is never over-constrained.
            best = max(fits, key=lambda g: g.excluded.bit_count())
        else:
            # The evidence was wrong (a voluntary draw): forget it for this player.
            for g in live:
                g.excluded = 0
            best = max(live, key=lambda g: g.count)
        best.count -= 1

    def draw(self, player: int, count: int) -> None:
        if player == self.seat or player not in self.groups:
            return
        self.pending = False  # a pending draw is paid by a "penalty" entry, never a "draw"
        if self.know.draw_means_unable and self.target is not None:
            self.exclude(player, self.playable_mask())
        self.add(player, count)

    def feed(self, entry: Sequence[object]) -> None:
        kind = entry[0]
        self._feed(kind, entry)
        self.last_play = int(str(entry[1])) if kind == "play" else -1
        if kind == "draw":
            self.drew = int(str(entry[1]))
        elif kind != "suit":
            self.drew = -1

    def _feed(self, kind: object, entry: Sequence[object]) -> None:
        if kind == "starter":
            self.target = _card(entry[1])
        elif kind == "play":
            player, card = int(str(entry[1])), _card(entry[2])
            if player != self.seat:
                self.remove_played(player, card)
                if (
                    self.know.wild_means_unable
                    and card >> 2 == self.know.wild_rank
                    and not self.pending
                    and self.last_play != player
                ):
                    # Wilds are kept for when nothing else fits: the rest of the hand did not fit either.
                    self.exclude(player, self.playable_mask() & ~RANK_MASKS[card >> 2])
                if (
                    self.shedding
                    and self.drew != player
                    and not self.pending
                    and self.last_play != player
                    and self.target is not None
                    and card >> 2 != self.know.wild_rank
                    and card & 3 == (self.declared if self.declared is not None else suit_of(self.target))
                ):
                    self.exclude(player, self.know.higher_in_suit[card])
            self.target = card
            self.declared = None
            self.pending = self.know.is_attack(card)
        elif kind == "suit":
            self.declared = _suit(entry[2])
        elif kind == "draw":
            self.draw(int(str(entry[1])), int(str(entry[2])))
        elif kind == "penalty":
            player, count = int(str(entry[1])), int(str(entry[2]))
            if self.pending and player in self.groups:
                self.exclude(player, self.know.answer_mask(self.target))
            self.pending = False
            self.add(player, count)
        elif kind == "pass":
            player = int(str(entry[1]))
            if self.pending:
                self.pending = False
            elif player in self.groups and self.know.pass_means_unable and self.target is not None:
                self.exclude(player, self.playable_mask())
        elif kind == "skip":
            self.pending = False  # a missed turn ends an answer the seat did not give
        elif kind == "catch":
            self.add(int(str(entry[2])), int(str(entry[3])))


def _count_history(history: Sequence[Sequence[object]], num_seats: int) -> tuple[list[int], list[int]]:
    played = [0] * num_seats
    drawn = [0] * num_seats
    for entry in history:
        kind = entry[0]
        if kind == "play":
            played[int(str(entry[1]))] += 1
        elif kind in ("draw", "penalty"):
            drawn[int(str(entry[1]))] += int(str(entry[2]))
        elif kind == "catch":
            drawn[int(str(entry[2]))] += int(str(entry[3]))
    return played, drawn


def opponent_groups(rnd: Round, seat: int, *, shedding: bool = False) -> dict[int, list[SlotGroup]]:
    """Per opponent, the slot groups of its hand as the public history tells them (sizes match the view).
    With `shedding` (hard's model of normal players), a card played by choice to follow suit also says the
    player held no card of that suit worth more (normal sheds the high ones first)."""
    hand_sizes = rnd.hand_sizes
    num_seats = len(hand_sizes)
    history = rnd.history
    know = knowledge_of(rnd.ruleset)
    played, drawn = _count_history(history, num_seats)
    initial = [hand_sizes[p] + played[p] - drawn[p] for p in range(num_seats)]
    tracker = _Tracker(seat, num_seats, know, initial, shedding)
    for entry in history:
        tracker.feed(entry)
    groups = tracker.groups
    for p, player_groups in groups.items():
        _reconcile(player_groups, hand_sizes[p])
    return groups


def void_suits(groups: dict[int, list[SlotGroup]], other: int) -> list[int]:
    """Suits that every card of `other`'s hand is known not to be."""
    live = [g for g in groups.get(other, []) if g.count]
    if not live:
        return []
    return [s for s in range(4) if all(g.excluded & SUIT_MASKS[s] == SUIT_MASKS[s] for g in live)]


def observe(rnd: Round, seat: int) -> Observation:
    """Everything `seat` may know, from its view, the public history and its own hand."""
    view = rnd.view(seat)
    hand_sizes = view_hand_sizes(view, rnd)
    return Observation(
        seat=seat,
        num_seats=len(hand_sizes),
        hand=sorted(rnd.hand(seat)),
        hand_sizes=hand_sizes,
        stock_size=int(view.get("stock_size", rnd.stock_size)),
        hidden=sorted(rnd.hidden_cards(seat)),
        groups=opponent_groups(rnd, seat, shedding=True),
    )


def view_hand_sizes(view: dict[str, object], rnd: Round) -> list[int]:
    sizes = view.get("hand_sizes")
    if isinstance(sizes, list):
        return [int(n) for n in sizes]
    return list(rnd.hand_sizes)


def _reconcile(groups: list[SlotGroup], size: int) -> None:
    """Make the slot count equal the known hand size (history replay is a model, the count is a fact)."""
    groups[:] = [g for g in groups if g.count > 0]
    total = sum(g.count for g in groups)
    if total < size:
        groups.append(SlotGroup(size - total))
    while total > size:
        # Drop the least constrained slots first: keeps what we learned, never invents constraints.
        loosest = min(groups, key=lambda g: g.excluded.bit_count())
        take = min(loosest.count, total - size)
        loosest.count -= take
        total -= take
        groups[:] = [g for g in groups if g.count > 0]


def sample_hidden(
    obs: Observation, rng: random.Random, *, tries: int = 12
) -> tuple[dict[int, list[Card]], list[Card], bool]:
    """One deal of the hidden cards (opponents' hands and the stock, top first) consistent with `obs`, and
    whether it honours every constraint.

    Constrained dealing in random order: each slot takes a uniformly random card among the remaining cards it
    allows, most constrained slots first. If the constraints cannot be met (wrong evidence), they are dropped.
    """
    slots: list[tuple[int, int, int]] = []  # (-constraint strength, seat, excluded)
    for p, groups in sorted(obs.groups.items()):
        for g in groups:
            slots.extend((-g.excluded.bit_count(), p, g.excluded) for _ in range(g.count))
    slots.sort(key=lambda s: s[0])
    for attempt in range(tries + 1):
        relaxed = attempt == tries
        pool = list(obs.hidden)
        rng.shuffle(pool)
        hands: dict[int, list[Card]] = {p: [] for p in obs.groups}
        ok = True
        for _, p, excluded in slots:
            pick = -1
            if relaxed or not excluded:
                pick = len(pool) - 1 if pool else -1
            else:
                for i in range(len(pool) - 1, -1, -1):
                    if not excluded >> pool[i] & 1:
                        pick = i
                        break
            if pick < 0:
                ok = False
                break
            hands[p].append(pool[pick])
            pool[pick] = pool[-1]
            pool.pop()
        if ok:
            return hands, pool, not relaxed
    raise AssertionError("hidden cards do not cover the opponents' hands")  # sizes come from the same view


def consistent(obs: Observation, hands: dict[int, list[Card]]) -> bool:
    """True when some assignment of `hands` to slots respects every slot's exclusions (used by tests)."""
    for p, cards in hands.items():
        groups = obs.groups.get(p, [])
        if len(cards) != sum(g.count for g in groups):
            return False
        # Greedy by tightness is exact: one player's exclusions are nested (later evidence adds to all).
        remaining = sorted(cards)
        for g in sorted(groups, key=lambda g: -g.excluded.bit_count()):
            for _ in range(g.count):
                for i, card in enumerate(remaining):
                    if not g.excluded >> card & 1:
                        del remaining[i]
                        break
                else:
                    return False
    return True
