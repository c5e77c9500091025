"""What one seat can know about the hidden cards, and deals of them consistent with it.

An `Observation` is built from the seat's view, the public history and the seat's own hand only — never from
another seat's cards or the stock's order — so anything decided from it is fair by construction.

Each opponent's hand is modelled as groups of card slots; every slot in a group carries the same set of cards
it cannot be (a bit mask over card ints). Cards held when an opponent drew for want of a play cannot be any
card that would have been playable then; cards drawn afterwards are unconstrained until the next evidence.
Not answering a pending draw by stacking says the same of the stacking cards. A card played by choice to
follow suit says the player held no higher card of that suit (the normal level sheds high cards first); a
human may not play so, and evidence a later play contradicts is dropped.

Beyond what rules out single cards, each opponent's choices (a card played by choice, a suit named) are kept
as `Evidence` when the hand they were made from can be rebuilt from a deal of its hand now: `surprises`
counts those the normal level would not have made with that deal. For normal players the true hands never
surprise (a test checks it), so deals that do are unlikely; the hard level weighs them down.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.engine import Card, Round, parse_card, parse_suit, rank_of, suit_of

from .knowledge import Knowledge, knowledge_of
from .partners import partner_next, threat

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
    epoch: int = 0  # how many times the player had taken cards when these came (-1: not known)


@dataclass
class Observation:
    seat: int
    num_seats: int
    hand: list[Card]
    hand_sizes: list[int]
    stock_size: int
    hidden: list[Card]  # sorted multiset of every card the seat cannot see
    groups: dict[int, list[SlotGroup]] = field(default_factory=dict)
    # Per opponent: its choices whose hand then can be rebuilt from a deal of its hand now (see `evidence`).
    evidence: dict[int, list[Evidence]] = field(default_factory=dict)
    _slots: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False, compare=False)

    def void_suits(self, other: int) -> list[int]:
        """Suits that every card of `other`'s hand is known not to be."""
        return void_suits(self.groups, other)

    def slot_order(self, other: int) -> list[tuple[int, int]]:
        """`other`'s card slots as (excluded, epoch), the most constrained first."""
        slots = self._slots.get(other)
        if slots is None:
            slots = self._slots[other] = sorted(
                ((g.excluded, g.epoch) for g in self.groups.get(other, []) for _ in range(g.count)),
                key=lambda slot: -slot[0].bit_count(),
            )
        return slots


@dataclass(frozen=True)
class Choice:
    """A choice an opponent made, as the normal level would judge it: a card played by choice (`suit` is the
    suit to follow) or a suit named after a wild (`card` is -1, `suit` the suit named). `start` indexes the
    cards the player played (the hand then held those from `start` on); `epoch` and `acquired` count the
    times it had taken cards, and the cards taken, by then."""

    card: Card
    suit: int
    target_rank: int
    start: int
    epoch: int
    acquired: int
    next_lacks: int
    next_size: int
    threat: int
    #: Partnership: the next player still in is the chooser's partner, in the direction of play / reversed
    #: (what decides whether an effect card would have hurt the partner).
    partner_next: bool = False
    partner_prev: bool = False


@dataclass(frozen=True)
class Evidence:
    """A choice and how to rebuild the hand it was made from, given a deal of the hand now: the dealt cards of
    slot groups up to `choice.epoch`, plus `extra` (cards played since, none of them taken since)."""

    choice: Choice
    extra: tuple[Card, ...]


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
        self.shedding = shedding  # hard's model of normal players: also keeps their choices as evidence
        self.know = know
        # Every opponent's slot groups; for hard's model, the deciding seat's too: the normal players' view of
        # its voids, which their choices depend on (dropped when the replay ends).
        self.groups: dict[int, list[SlotGroup]] = {
            p: [SlotGroup(initial[p])] for p in range(num_seats) if shedding or p != seat
        }
        self.target: Card | None = None
        self.declared: int | None = None
        self.pending = False  # a draw penalty or an answer is owed
        self.last_play = -1  # the seat whose play was the last entry (a same-rank run continues)
        self.drew = -1  # the seat that drew since the last play (its play may be the forced drawn card)
        self.sizes = list(initial)
        self.direction = 1
        others = [p for p in range(num_seats) if p != seat]
        self.choices: dict[int, list[Choice]] = {p: [] for p in others}
        self.played: dict[int, list[Card]] = {p: [] for p in others}
        self.forced: dict[int, list[bool]] = {p: [] for p in others}  # per play: the card just drawn
        # per play: the latest slot group that could have held the card (it may have been taken then)
        self.origin: dict[int, list[int]] = {p: [] for p in others}
        self.epochs = [0] * num_seats
        self.acquired = [0] * num_seats

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
        self.sizes[player] += count
        if count > 0:
            self.epochs[player] += 1
            self.acquired[player] += count
        if player in self.groups and count > 0:
            self.groups[player].append(SlotGroup(count, excluded, self.epochs[player]))

    def record(self, player: int, card: Card, suit: int) -> None:
        n = len(self.sizes)
        partnership = self.know.partnership
        nxt = (player + self.direction) % n
        while partnership and self.sizes[nxt] == 0 and nxt != player:
            nxt = (nxt + self.direction) % n  # a player who is out is passed over
        ahead = partnership and partner_next(self.sizes, player, self.direction)
        behind = partnership and partner_next(self.sizes, player, -self.direction)
        lacks = 0
        if nxt in self.groups and not ahead:
            for s in void_suits(self.groups, nxt):
                lacks |= 1 << s
        danger = threat(self.sizes, player, partnership)
        rank = self.target >> 2 if self.target is not None else 0
        start = len(self.played[player])
        self.choices[player].append(
            Choice(
                card,
                suit,
                rank,
                start,
                self.epochs[player],
                self.acquired[player],
                lacks,
                self.sizes[nxt],
                danger,
                ahead,
                behind,
            )
        )

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
            if (
                self.shedding
                and player in self.choices
                and self.drew != player
                and not self.pending
                and self.last_play != player
                and self.target is not None
            ):
                follow = self.declared if self.declared is not None else suit_of(self.target)
                self.record(player, card, follow)
            self.sizes[player] -= 1
            if player in self.played:
                live = [g.epoch for g in self.groups[player] if g.count and not g.excluded >> card & 1]
                self.origin[player].append(max(live, default=1 << 30))
                self.played[player].append(card)
                self.forced[player].append(self.drew == player and self.know.drawn_card_played)
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
                and player != self.seat
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
            if self.shedding and entry[1] is not None and int(str(entry[1])) in self.choices:
                self.record(int(str(entry[1])), -1, self.declared)
        elif kind == "reverse":
            self.direction = int(str(entry[1]))
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
    return _replay(rnd, seat, shedding).groups


def _replay(rnd: Round, seat: int, shedding: bool) -> _Tracker:
    hand_sizes = rnd.hand_sizes
    num_seats = len(hand_sizes)
    history = rnd.history
    know = knowledge_of(rnd.ruleset)
    played, drawn = _count_history(history, num_seats)
    initial = [hand_sizes[p] + played[p] - drawn[p] for p in range(num_seats)]
    tracker = _Tracker(seat, num_seats, know, initial, shedding)
    for entry in history:
        tracker.feed(entry)
    tracker.groups.pop(seat, None)
    for p, player_groups in tracker.groups.items():
        _reconcile(player_groups, hand_sizes[p])
    return tracker


def _evidence(tracker: _Tracker) -> dict[int, list[Evidence]]:
    """The recorded choices whose hands can be rebuilt exactly under the slot-group model: every card taken
    since is either still held (in a later group) or was played at once as the card just drawn."""
    out: dict[int, list[Evidence]] = {}
    for p, records in tracker.choices.items():
        groups = tracker.groups.get(p, [])
        if any(g.epoch < 0 and g.count for g in groups):
            continue
        played = tracker.played[p]
        forced = tracker.forced[p]
        kept: list[Evidence] = []
        for rec in records:
            taken = tracker.acquired[p] - rec.acquired
            forced_since = sum(1 for i in range(rec.start, len(played)) if forced[i])
            held_since = sum(g.count for g in groups if g.epoch > rec.epoch)
            if taken != forced_since + held_since:
                continue
            if any(tracker.origin[p][i] > rec.epoch for i in range(rec.start, len(played)) if not forced[i]):
                continue  # a card played since may have been one taken since
            extra = tuple(played[i] for i in range(rec.start, len(played)) if not forced[i])
            kept.append(Evidence(rec, extra))
        if kept:
            out[p] = kept
    return out


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
    tracker = _replay(rnd, seat, True)
    return Observation(
        seat=seat,
        num_seats=len(hand_sizes),
        hand=sorted(rnd.hand(seat)),
        hand_sizes=hand_sizes,
        stock_size=int(view.get("stock_size", rnd.stock_size)),
        hidden=sorted(rnd.hidden_cards(seat)),
        groups=tracker.groups,
        evidence=_evidence(tracker),
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
        groups.append(SlotGroup(size - total, 0, -1))
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
    hands, stock, ok, _ = deal(obs, rng, tries=tries)
    return hands, stock, ok


def deal(
    obs: Observation, rng: random.Random, *, tries: int = 12
) -> tuple[dict[int, list[Card]], list[Card], bool, dict[int, list[int]]]:
    """`sample_hidden`, and per opponent the epoch of the slot group each dealt card filled."""
    slots: list[tuple[int, int, int, int]] = []  # (-constraint strength, seat, excluded, epoch)
    for p, groups in sorted(obs.groups.items()):
        for g in groups:
            slots.extend((-g.excluded.bit_count(), p, g.excluded, g.epoch) for _ in range(g.count))
    slots.sort(key=lambda s: s[0])
    for attempt in range(tries + 1):
        relaxed = attempt == tries
        pool = list(obs.hidden)
        rng.shuffle(pool)
        hands: dict[int, list[Card]] = {p: [] for p in obs.groups}
        epochs: dict[int, list[int]] = {p: [] for p in obs.groups}
        ok = True
        for _, p, excluded, epoch in slots:
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
            epochs[p].append(epoch)
            pool[pick] = pool[-1]
            pool.pop()
        if ok:
            return hands, pool, not relaxed, epochs
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


def surprises(
    obs: Observation, hands: dict[int, list[Card]], epochs: dict[int, list[int]], know: Knowledge
) -> int:
    """How many of the opponents' recorded choices the normal level would not have made with `hands`.

    A deal in which the opponents' own plays look like a shedding player's is likelier (the normal level's
    choices are known); a person or another level may play otherwise, so the search weighs a surprise down
    rather than ruling the deal out.
    """
    return sum(player_surprises(obs, p, hands[p], epochs[p], know) for p in obs.evidence)


def player_surprises(obs: Observation, p: int, now: list[Card], held: list[int], know: Knowledge) -> int:
    """`surprises` for one opponent, given its dealt hand `now` and each card's epoch `held`."""
    from .normal import best_suit, play_score

    wild = know.wild_rank
    count = 0
    for ev in obs.evidence.get(p, ()):
        rec = ev.choice
        hand = [card for card, epoch in zip(now, held, strict=True) if epoch <= rec.epoch]
        hand.extend(ev.extra)
        if rec.card < 0:
            if hand and best_suit(hand, know, bad_for_next=rec.next_lacks) != rec.suit:
                count += 1
            continue
        if rec.card >> 2 == wild and not know.wild_must_match:
            continue  # a wild: that nothing else fitted is a constraint already
        suit_counts = [0, 0, 0, 0]
        for card in hand:
            if card >> 2 != wild:
                suit_counts[card & 3] += 1
        best = -1e9
        mine = 0.0
        for card in hand:
            rank = card >> 2
            if rank == wild and not know.wild_must_match:
                continue
            suit = card & 3
            if suit != rec.suit and rank != rec.target_rank:
                continue
            hit = False
            if (
                know.partnership
                and know.effects[rank]
                and (rank in know.skip_ranks or rank in know.attack_ranks)
            ):
                hit = rec.partner_prev if rank in know.reverse_ranks else rec.partner_next
            score = play_score(card, suit_counts, rec.next_lacks, rec.next_size, rec.threat, False, know, hit)
            if card == rec.card:
                mine = score
            if score > best:
                best = score
        if mine < best - 0.011:
            count += 1
    return count


def redeal(
    obs: Observation,
    p: int,
    hands: dict[int, list[Card]],
    stock: list[Card],
    epochs: dict[int, list[int]],
    rng: random.Random,
) -> bool:
    """Deal opponent `p` a fresh hand from its cards and the stock's, honouring its slot groups (in place;
    the stock's order is left for the caller to shuffle); False, changing nothing, if they cannot be met."""
    pool = stock + hands[p]
    hand: list[Card] = []
    held: list[int] = []
    for excluded, epoch in obs.slot_order(p):
        pick = -1
        for _ in range(6):
            i = int(rng.random() * len(pool))
            if not excluded >> pool[i] & 1:
                pick = i
                break
        else:
            start = int(rng.random() * len(pool))
            for k in range(len(pool)):
                i = (start + k) % len(pool)
                if not excluded >> pool[i] & 1:
                    pick = i
                    break
        if pick < 0:
            return False
        hand.append(pool[pick])
        held.append(epoch)
        pool[pick] = pool[-1]
        pool.pop()
    hands[p] = hand
    epochs[p] = held
    stock[:] = pool
    return True
