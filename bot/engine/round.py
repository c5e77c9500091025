"""A round of Crazy Eights: one deal until someone goes out or the round is blocked.

A ``Round`` is a state machine over seats 0…n-1 (seat order is turn order; left of the dealer = dealer + 1):

* ``legal_actions(seat)`` lists what a seat may do now: for the seat to act (``to_act``) its plays, draw and
  pass, and for any seat its out-of-turn "last card" actions (call its own last card, catch another's).
* ``apply(action)`` validates, changes the state and returns the events (``EngineError`` and no change when
  illegal). ``step(action)`` is the fast path for search: no validation, no events.
* The engine passes for a seat that can do nothing (auto-pass, always on), so the game never waits on a forced
  pass. Auto-draw is the service's table option: while ``must_draw(seat)`` is true it may apply
  ``Action.draw(seat)`` for the player (the seat's only choice is drawing).

Turn phases: "turn" (nothing done yet), "drew" (drew at least one card this turn), "suit" (a wild was
played and a suit must be named before anything else), "run" (same-rank runs: play another card of that rank
or pass), "over".

Choices where RULESETS.md is silent (also in the rules help where players meet them):
* Legal actions list a wild in the two-step form (play, then name a suit); ``Action.play(seat, card, suit)``
  is accepted in one step. A wild that is the player's last card names no suit (it ends the round).
* Last card: a play that leaves one card lets its player call at once; others may catch once that turn ends
  (not while a suit is still to be named, nor in the middle of a same-rank run: a player going out with a run
  of their last cards never needed to call, seed 003). The window closes at the first in-turn action
  of a later turn (the engine's own auto-passes do not close it), or when called or caught. Only the caught
  seat's hand size counts: a seat that drew back above one card can no longer be caught.
* A pending draw is paid by the ``draw`` action: the seat draws everything owed (as far as the stock and a
  reshuffle allow; what cannot be drawn is forgiven) and the turn ends. Facing an answer rank (Switch jack)
  the seat plays that rank or passes (missing the turn); with no such card the engine skips it.
* A wild answering a pending draw (option) cancels it. Same-rank runs are not allowed after drawing (seed 003:
  "play ONE card afterwards"). Blocked round: a pass counts only if no card was drawn in that turn; skipped
  turns neither count nor break the count. A starter wild is buried in the middle of the stock.
* Penalty scoring in a blocked round: everyone scores their hand (lowest wins). Card-count scoring in a
  blocked round: the winners (fewest cards) score 0. Payment scoring is zero-sum: the winner collects each
  other hand's value and those players score minus it; blocked, each other player pays the difference from
  the lowest hand to each lowest seat.
* Partnership: a player who goes out with a wild names no suit (rule 6), though the round goes on: the next
  player still in follows the wild's own suit, as after a starter wild. The card's effect applies to the next
  player still in. A blocked round counts the passes of the players still in.
* "Draw up to N" (and passing while nothing can be drawn): a pass is allowed at the start of a turn too once
  nothing can be drawn, as in OpenSpiel's ``crazy_eights``.
* Reshuffles are deterministic: the n-th reshuffle of a round uses ``random.Random(seed * 1000003 + n)``.

``history`` is the public record of the round, JSON-able tuples in order:
  ("bury", card_code) · ("starter", card_code) · ("play", seat, card_code) · ("suit", seat, suit_code) ·
  ("draw", seat, 1) · ("penalty", seat, n_drawn) · ("pass", seat) · ("skip", seat) · ("reverse", direction) ·
  ("reshuffle", n_cards) · ("call", seat) · ("catch", seat, target, n_drawn) · ("out", seat) (partnership:
  the seat went out and is passed over) · ("over", reason)
("suit", None, "H") follows the starter when a starter wild means hearts. ("pass", seat) also ends a run.
It never holds a drawn card's identity.

Why one file, the longest of the bot: ``Round`` is one state machine whose rules (what is legal, what a move
does, when the turn, the last-card window and the round end) read and write the same few fields in both of
its paths, the checked ``apply`` and the unchecked ``step`` of the CPU's search, which must agree move for
move. Split by topic, each piece would reach into the others' private state, and ``step``'s speed (the
engine's 200k actions/s target) depends on that state staying plain attributes of one class.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from bot.engine.actions import (
    CALL_ACTIONS,
    CALL_LAST,
    CATCH,
    CATCH_ACTIONS,
    DRAW,
    DRAW_ACTIONS,
    PASS,
    PASS_ACTIONS,
    PLAY,
    PLAY_ACTIONS,
    SUIT,
    SUIT_ACTIONS,
    Action,
    ActionKind,
)
from bot.engine.cards import (
    CODES,
    HEARTS,
    STANDARD_DECK,
    SUIT_CODES,
    Card,
    Suit,
    card_from_code,
    is_card,
    parse_suit,
)
from bot.engine.errors import EngineError, RulesetError
from bot.engine.events import Event, events_for
from bot.engine.rules import Ruleset
from bot.i18n import _

FORMAT_VERSION = 1
#: How many recent events a round keeps for ``view`` ("what happened last").
RECENT_EVENTS = 40

P_TURN, P_DREW, P_SUIT, P_RUN, P_OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("turn", "drew", "suit", "run", "over")
AD_MUST, AD_DRAWN, AD_ANY, AD_END, AD_UPTO = 0, 1, 2, 3, 4
_AFTER_DRAW = {
    "must-play-drawn": AD_MUST,
    "may-play-drawn": AD_DRAWN,
    "may-play-any": AD_ANY,
    "turn-ends": AD_END,
    "draw-up-to": AD_UPTO,
}
_NO_LIMIT = 1 << 30
# Bit masks over card ints: the cards of a suit, the cards of a rank (rank 0: none).
_SUIT_MASKS = tuple(sum(1 << c for c in STANDARD_DECK if c & 3 == s) for s in range(4))
_RANK_MASKS = tuple(sum(1 << c for c in STANDARD_DECK if c >> 2 == r) for r in range(14))


class _Tables:
    """Per-ruleset tables the hot path reads (shared by every round and clone of that ruleset)."""

    __slots__ = (
        "ad",
        "answer",
        "blocked_after",
        "bury",
        "cap",
        "card_count",
        "draw_first",
        "draw_n",
        "dwlp",
        "edr",
        "hearts",
        "last_card",
        "lc_penalty",
        "limit",
        "owed_end",
        "partner",
        "pass_any",
        "pass_empty",
        "reshuffle",
        "rev2skip",
        "reverse",
        "rs",
        "runs",
        "scoring",
        "skip",
        "skip_pays",
        "special",
        "stacking",
        "starter_effect",
        "turn_cap",
        "values",
        "wad",
        "wild",
        "wild_free",
        "wild_mask",
    )

    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.wild = rs.wild_rank or 0
        # A wild that matches anything; 0 (no rank) when wilds must match or there are none.
        self.wild_free = 0 if rs.wild_must_match else self.wild
        self.wild_mask = _RANK_MASKS[self.wild_free]
        self.skip = [r in rs.skip_ranks for r in range(14)]
        self.reverse = [r in rs.reverse_ranks for r in range(14)]
        self.answer = [r in rs.answer_ranks for r in range(14)]
        draws = dict(rs.draw_ranks)
        caps = dict(rs.draw_caps)
        self.draw_n = [draws.get(r, 0) for r in range(14)]
        self.cap = [caps.get(r, _NO_LIMIT) for r in range(14)]
        self.special = [
            self.skip[r] or self.reverse[r] or self.answer[r] or self.draw_n[r] > 0 for r in range(14)
        ]
        self.stacking = rs.stacking
        self.wad = rs.wild_answers_draw
        self.runs = rs.same_rank_runs
        self.last_card = rs.last_card
        self.lc_penalty = rs.last_card_penalty
        self.limit = rs.draw_limit if rs.draw_limit is not None else _NO_LIMIT
        self.dwlp = rs.draw_with_legal_play
        self.ad = _AFTER_DRAW[rs.after_draw]
        self.draw_first = rs.draw_first
        self.reshuffle = rs.reshuffle
        self.edr = rs.empty_draw_ends_round
        # Rules kept for matches stored before a change of play (``rules.EARLIER_RULES``), read once here.
        self.owed_end = rs.owed_draw_ends_round
        self.skip_pays = rs.skipped_player_draws
        self.pass_any = rs.pass_anytime
        # Passing is allowed while nothing can be drawn ("draw up to N" allows it too, as OpenSpiel does).
        self.pass_empty = rs.pass_when_no_draw or self.ad == AD_UPTO
        self.partner = rs.partnership
        self.blocked_after = rs.blocked_after or 0
        self.turn_cap = rs.turn_cap
        self.rev2skip = rs.reverse_two_players == "skip"
        self.bury = rs.starter_wild == "bury"
        self.hearts = rs.starter_wild == "hearts"
        self.starter_effect = rs.starter_effect
        self.values = rs.value_table
        self.scoring = rs.scoring
        self.card_count = rs.scoring == "card-count"


_TABLES: dict[Ruleset, _Tables] = {}


def _tables(rs: Ruleset) -> _Tables:
    t = _TABLES.get(rs)
    if t is None:
        if len(_TABLES) > 256:  # custom rulesets are few; never let the cache grow without bound
            _TABLES.clear()
        t = _TABLES[rs] = _Tables(rs)
    return t


def full_deck(num_decks: int) -> list[Card]:
    """Every card of ``num_decks`` standard decks, in a fixed order."""
    return [c for c in STANDARD_DECK for _n in range(num_decks)]


class Round:
    """One deal. Build with ``Round.new`` or ``Round.from_json``."""

    __slots__ = (
        "_answer",
        "_blocked",
        "_cur",
        "_dealer",
        "_declared",
        "_direction",
        "_discard",
        "_drawn",
        "_dups",
        "_first",
        "_forced",
        "_hands",
        "_has_play",
        "_history",
        "_history_json",
        "_last_drawn",
        "_lc_seat",
        "_lc_turn",
        "_legal",
        "_n",
        "_out",
        "_passes",
        "_pending",
        "_pending_rank",
        "_phase",
        "_reason",
        "_recent",
        "_reshuffles",
        "_run_rank",
        "_scores",
        "_seed",
        "_skips",
        "_stock",
        "_t",
        "_turn",
        "_winners",
        "start_events",
    )

    _t: _Tables
    _n: int
    _dealer: int
    _first: int
    _seed: int
    _reshuffles: int
    _dups: bool
    _hands: list[list[Card]]
    _stock: list[Card]  # top card last
    _discard: list[Card]  # top card (the target) last
    _declared: int  # -1: none
    _direction: int
    _cur: int
    _phase: int
    _pending: int
    _pending_rank: int
    _answer: int  # rank the seat to act must answer with, 0: none
    _skips: int
    _drawn: int
    _forced: bool
    _last_drawn: int
    _run_rank: int
    _passes: int
    _turn: int
    _lc_seat: int  # seat whose uncalled last card may be caught, -1: none
    _lc_turn: int
    _out: int  # partnership: bit s set = seat s went out and is passed over
    _scores: list[int] | None
    _winners: list[int]
    _blocked: bool
    _reason: str
    _history: list[tuple[Any, ...]]
    # The JSON rows of ``_history`` built so far: every stored move writes the whole round, and the history
    # only grows, so each row is built once. Rows are never changed once built.
    _history_json: list[list[Any]]
    _recent: list[Event]
    _legal: list[Action]
    _has_play: bool
    #: Events of the deal (dealt hands, starter, first turn); not part of the saved state.
    start_events: list[Event]

    # ================================================================================ construction
    @classmethod
    def new(
        cls,
        ruleset: Ruleset,
        num_seats: int,
        dealer: int,
        *,
        seed: int | None = None,
        deck: list[Card] | None = None,
        leader: int | None = None,
    ) -> Round:
        """Deal a round. ``deck`` is the full deck order, top card (the first dealt) first; otherwise ``seed``
        shuffles deterministically (a fresh random seed when both are None). ``seed`` also seeds reshuffles.
        ``leader`` overrides who moves first (default: left of the dealer)."""
        rs = ruleset
        if not isinstance(num_seats, int) or not rs.allows_seats(num_seats):
            if rs.partnership:
                raise RulesetError(_("a partnership game is for exactly four players"))
            raise RulesetError(
                _(
                    "this ruleset is for {min_players}–{max_players} players",
                    min_players=rs.min_players,
                    max_players=rs.max_players,
                )
            )
        if not 0 <= dealer < num_seats:
            raise ValueError("dealer must be a seat")
        if leader is not None and not 0 <= leader < num_seats:
            raise ValueError("leader must be a seat")
        ndecks = rs.decks_for(num_seats)
        if deck is None:
            if seed is None:
                seed = secrets.randbits(48)
            order = full_deck(ndecks)
            random.Random(seed).shuffle(order)
        else:
            order = list(deck)
            if not all(is_card(c) for c in order) or sorted(order) != sorted(full_deck(ndecks)):
                raise ValueError(f"deck must hold every card of {ndecks} deck(s) exactly once per deck")
            if seed is None:
                seed = 0
        self = cls.__new__(cls)
        t = self._t = _tables(rs)
        n = self._n = num_seats
        self._dealer = dealer
        self._seed = seed
        self._reshuffles = 0
        self._dups = ndecks > 1
        stock = order[::-1]
        hands: list[list[Card]] = [[] for _n in range(n)]
        for _n in range(rs.hand_size_for(n)):
            for k in range(1, n + 1):
                hands[(dealer + k) % n].append(stock.pop())
        self._hands = hands
        self._stock = stock
        self._declared = -1
        self._direction = 1
        self._cur = -1
        self._phase = P_TURN
        self._pending = 0
        self._pending_rank = 0
        self._answer = 0
        self._skips = 0
        self._drawn = 0
        self._forced = False
        self._last_drawn = -1
        self._run_rank = 0
        self._passes = 0
        self._turn = 0
        self._lc_seat = -1
        self._lc_turn = 0
        self._out = 0
        self._scores = None
        self._winners = []
        self._blocked = False
        self._reason = ""
        self._history = []
        self._history_json = []
        self._legal = []
        self._has_play = False
        ev: list[Event] = [Event("dealt", s, {"cards": [CODES[c] for c in hands[s]]}, s) for s in range(n)]
        starter = stock.pop()
        buried: list[Card] = []
        if t.bury and starter >> 2 == t.wild:
            # Each wild goes to the middle of the stock. In a stock of two or three cards (a short deck under
            # a house hand size) the middle is just under the top, and two wilds would take turns there for
            # ever: once every wild has been buried, one turned again goes under the whole stock; a stock of
            # wilds only leaves the starter where it is.
            wilds = 1 + sum(1 for c in stock if c >> 2 == t.wild)
            if wilds <= len(stock):
                while starter >> 2 == t.wild:
                    stock.insert(0 if len(buried) >= wilds else len(stock) // 2, starter)
                    buried.append(starter)
                    self._history.append(("bury", CODES[starter]))
                    starter = stock.pop()
        self._discard = [starter]
        self._history.append(("starter", CODES[starter]))
        ev.append(Event("starter", None, {"card": CODES[starter], "buried": [CODES[c] for c in buried]}))
        if t.wild and starter >> 2 == t.wild and t.hearts:
            self._declared = HEARTS
            self._history.append(("suit", None, SUIT_CODES[HEARTS]))
            ev.append(Event("suit_named", None, {"suit": SUIT_CODES[HEARTS]}))
        first = (dealer + 1) % n if leader is None else leader
        self._first = first
        r = starter >> 2
        if t.starter_effect and t.special[r]:
            # As if the seat before the first player (the dealer, normally) had played it.
            self._cur = (first - 1) % n
            self._effects(r, ev)
            self._end_turn(ev)
        else:
            self._begin(first, ev)
        self._settle(ev)
        self._recent = ev[-RECENT_EVENTS:]
        self.start_events = ev
        return self

    def seed_rng(self, seed: int) -> None:
        """Reseed the reshuffles (e.g. per determinization in a search)."""
        self._seed = seed

    # ================================================================================ reading
    @property
    def ruleset(self) -> Ruleset:
        return self._t.rs

    @property
    def num_seats(self) -> int:
        return self._n

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def leader(self) -> int:
        """The seat that moved first."""
        return self._first

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def to_act(self) -> int | None:
        return None if self._phase == P_OVER else self._cur

    @property
    def over(self) -> bool:
        return self._phase == P_OVER

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def scores(self) -> list[int] | None:
        return None if self._scores is None else list(self._scores)

    @property
    def winners(self) -> list[int]:
        return list(self._winners)

    @property
    def blocked(self) -> bool:
        """The round ended without anyone going out (blocked, turn cap or an impossible draw)."""
        return self._blocked

    @property
    def end_reason(self) -> str:
        """ "out", "blocked", "turn-cap" or "no-draw" once over; "" before."""
        return self._reason

    def hand(self, seat: int) -> list[Card]:
        return list(self._hands[self._seat(seat)])

    def _seat(self, seat: int) -> int:
        """``seat`` if the round has it; else 923 (a negative index would be another seat's hand)."""
        if type(seat) is not int or not 0 <= seat < self._n:
            raise EngineError(923)
        return seat

    @property
    def hand_sizes(self) -> list[int]:
        return [len(h) for h in self._hands]

    @property
    def target(self) -> Card:
        return self._discard[-1]

    @property
    def discard(self) -> list[Card]:
        """The discard pile, bottom first (its last card is the target)."""
        return list(self._discard)

    @property
    def declared_suit(self) -> Suit | None:
        return None if self._declared < 0 else self._declared

    @property
    def effective_suit(self) -> Suit:
        """The suit to follow: the declared suit, else the target's."""
        return self._declared if self._declared >= 0 else self._discard[-1] & 3

    @property
    def direction(self) -> int:
        return self._direction

    @property
    def pending_draw(self) -> int:
        return self._pending

    @property
    def answer_rank(self) -> int | None:
        """The rank the seat to act must answer with (Switch jack), if any."""
        return self._answer or None

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def turn_number(self) -> int:
        return self._turn

    @property
    def cards_drawn_this_turn(self) -> int:
        return self._drawn

    @property
    def last_card_open(self) -> int | None:
        """The seat whose uncalled last card may be caught now, if any."""
        lc = self._lc_seat
        if lc >= 0 and len(self._hands[lc]) == 1 and self._turn != self._lc_turn and self._phase != P_OVER:
            return lc
        return None

    # -------------------------------------------------------------------------------- partnership
    @property
    def partnership(self) -> bool:
        return self._t.partner

    @property
    def out_seats(self) -> list[int]:
        """Seats that went out and are passed over (partnership only; the round goes on without them)."""
        return [s for s in range(self._n) if self._out >> s & 1]

    def is_out(self, seat: int) -> bool:
        return bool(self._out >> seat & 1)

    def partner_of(self, seat: int) -> int | None:
        """The seat opposite ``seat`` in a partnership (seats 0 and 2, 1 and 3); None without partnership."""
        return (seat + 2) % 4 if self._t.partner else None

    def side_of(self, seat: int) -> int:
        """The side a seat plays for: 0 (seats 0 and 2) or 1 (seats 1 and 3); without partnership, its own."""
        return seat & 1 if self._t.partner else seat

    def next_in(self, seat: int, direction: int | None = None) -> int:
        """The next seat after ``seat`` (in ``direction``, default the current one) still in the round."""
        d = self._direction if direction is None else direction
        s = (seat + d) % self._n
        out = self._out
        while out >> s & 1 and s != seat:
            s = (s + d) % self._n
        return s

    @property
    def history(self) -> list[tuple[Any, ...]]:
        return list(self._history)

    @property
    def recent_events(self) -> list[Event]:
        return list(self._recent)

    def hidden_cards(self, seat: int) -> list[Card]:
        """The multiset of cards ``seat`` cannot see: the other hands and the stock."""
        out: list[Card] = []
        for s, h in enumerate(self._hands):
            if s != seat:
                out.extend(h)
        out.extend(self._stock)
        return out

    def can_draw(self) -> bool:
        """A card can be drawn now (from the stock, or after a reshuffle)."""
        return bool(self._stock) or (self._t.reshuffle and len(self._discard) > 1)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """What ``seat`` (default: the seat to act) may do now, out-of-turn last card actions included."""
        if self._phase == P_OVER:
            return []
        if seat is None or seat == self._cur:
            acts = self._legal[:]
            seat = self._cur
        else:
            if not 0 <= seat < self._n:
                return []
            acts = []
        lc = self._lc_seat
        if lc >= 0 and len(self._hands[lc]) == 1:
            if seat == lc:
                acts.append(CALL_ACTIONS[seat])
            elif self._turn != self._lc_turn and not (self._t.partner and seat ^ lc == 2):
                acts.append(CATCH_ACTIONS[seat][lc])  # once the turn ended; nobody catches their partner
        return acts

    def must_draw(self, seat: int) -> bool:
        """True when ``seat`` is to act and drawing is its only choice (for the table's auto-draw option)."""
        if self._phase == P_OVER or seat != self._cur:
            return False
        legal = self._legal
        return len(legal) == 1 and legal[0].kind is DRAW

    # ================================================================================ acting
    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return the events it caused; raise ``EngineError`` (and change nothing)
        when it is illegal."""
        if isinstance(action, Action) and type(action.kind) is not ActionKind:
            try:  # a kind given as a plain string ("play") still names an action
                action = action._replace(kind=ActionKind(action.kind))
            except ValueError:
                raise EngineError(924) from None
        self._check(action)
        ev: list[Event] = []
        self._do(action, ev)
        recent = self._recent + ev
        self._recent = recent[-RECENT_EVENTS:]
        return ev

    def step(self, action: Action) -> None:
        """Apply an action known to be legal (from ``legal_actions``): no validation, no events."""
        self._do(action, None)

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action)
        except EngineError:
            return False
        return True

    # -------------------------------------------------------------------------------- validation
    def _check(self, action: Action) -> None:
        if not isinstance(action, Action) or not isinstance(action.kind, str):
            raise EngineError(924)
        if self._phase == P_OVER:
            raise EngineError(922)
        seat = action.seat
        if type(seat) is not int or not 0 <= seat < self._n:
            raise EngineError(923)
        kind = action.kind
        if kind is CALL_LAST:
            if not (self._lc_seat == seat and len(self._hands[seat]) == 1):
                raise EngineError(920)
            return
        if kind is CATCH:
            target = action.target
            lc = self._lc_seat
            if not (
                type(target) is int
                and lc >= 0
                and target == lc != seat
                and len(self._hands[lc]) == 1
                and self._turn != self._lc_turn
            ):
                raise EngineError(921)
            if self._t.partner and seat ^ target == 2:
                raise EngineError(927)
            return
        if seat != self._cur:
            raise EngineError(901)
        if kind is PLAY:
            card = action.card
            if not is_card(card):
                raise EngineError(903)
            assert card is not None
            suit = action.suit
            if suit is not None and not (type(suit) is int and 0 <= suit <= 3):
                raise EngineError(906)
            if PLAY_ACTIONS[seat][card] not in self._legal:
                raise EngineError(self._why_not_play(card))
            if suit is not None and card >> 2 != self._t.wild:
                raise EngineError(905)
        elif kind is SUIT:
            if self._phase != P_SUIT:
                raise EngineError(905)
            suit = action.suit
            if not (type(suit) is int and 0 <= suit <= 3):
                raise EngineError(906)
        elif kind is DRAW:
            if DRAW_ACTIONS[seat] not in self._legal:
                raise EngineError(self._why_not_draw())
        elif kind is PASS:
            if PASS_ACTIONS[seat] not in self._legal:
                raise EngineError(self._why_not_pass())
        else:
            raise EngineError(924)

    def _matches(self, card: Card) -> bool:
        top = self._discard[-1]
        s = self._declared if self._declared >= 0 else top & 3
        r = card >> 2
        return (card & 3) == s or r == top >> 2 or r == self._t.wild_free

    def _why_not_play(self, card: Card) -> int:
        t = self._t
        if self._phase == P_SUIT:
            return 913
        if card not in self._hands[self._cur]:
            return 902
        if self._phase == P_RUN:
            return 918
        if self._answer:
            return 919
        if self._pending:
            return 911
        if t.draw_first and not self._drawn:
            return 916
        if self._drawn and t.ad == AD_DRAWN and self._matches(card):
            return 917
        if self._drawn and t.ad == AD_MUST and self._forced and self._matches(self._last_drawn):
            return 910
        return 907

    def _why_not_draw(self) -> int:
        t = self._t
        if self._phase == P_SUIT:
            return 913
        if self._phase == P_RUN:
            return 918
        if self._answer:
            return 919
        if not self.can_draw():
            return 904
        if self._pending and self._has_play and not t.dwlp:
            return 925
        if self._drawn >= t.limit:
            return 912
        if t.ad == AD_MUST and self._forced and self._drawn:
            return 910
        if not t.dwlp and self._has_play:
            return 914
        return 912

    def _why_not_pass(self) -> int:
        if self._phase == P_SUIT:
            return 913
        if self._t.ad == AD_UPTO and not self._pending and self._phase != P_RUN and not self._answer:
            return 926
        return 915

    # -------------------------------------------------------------------------------- the state machine
    def _compute(self) -> list[Action]:
        """The in-turn legal actions of the seat to act (empty: it can do nothing and must pass)."""
        t = self._t
        seat = self._cur
        hand = self._hands[seat]
        ph = self._phase
        plays_of = PLAY_ACTIONS[seat]
        if ph == P_SUIT:
            return list(SUIT_ACTIONS[seat])
        if ph == P_RUN:
            rr = self._run_rank
            acts = [plays_of[c] for c in hand if c >> 2 == rr]
            if self._dups:
                acts = _dedupe(acts)
            acts.append(PASS_ACTIONS[seat])
            return acts
        if self._answer:
            ar = self._answer
            acts = [plays_of[c] for c in hand if c >> 2 == ar]
            if acts:
                if self._dups:
                    acts = _dedupe(acts)
                acts.append(PASS_ACTIONS[seat])
            return acts
        can_draw = bool(self._stock) or (t.reshuffle and len(self._discard) > 1)
        if self._pending:
            if t.stacking:
                pr = self._pending_rank
                w = t.wild if t.wad else -1
                acts = [plays_of[c] for c in hand if c >> 2 == pr or c >> 2 == w]
                if self._dups:
                    acts = _dedupe(acts)
            else:
                acts = []
            self._has_play = bool(acts)
            # Drawing only when unable holds here too: holding an answer, the player must play it (Switch).
            if can_draw and (t.dwlp or not acts):
                acts.append(DRAW_ACTIONS[seat])
            elif acts and not can_draw and (t.pass_any or t.pass_empty):
                acts.append(PASS_ACTIONS[seat])
            return acts
        top = self._discard[-1]
        s = self._declared
        if s < 0:
            s = top & 3
        # Bit c set = card c matches: the suit to follow, the target's rank, or a free wild.
        mask = _SUIT_MASKS[s] | _RANK_MASKS[top >> 2] | t.wild_mask
        acts = [plays_of[c] for c in hand if mask >> c & 1]
        if acts and self._dups:
            acts = _dedupe(acts)
        has_play = bool(acts)
        self._has_play = has_play  # whether a draw now is forced (no play in hand)
        drawn = self._drawn
        if t.draw_first and not drawn:
            return [DRAW_ACTIONS[seat]] if can_draw else []
        if drawn:
            ad = t.ad
            if ad == AD_DRAWN:
                ld = plays_of[self._last_drawn]
                acts = [ld] if ld in acts else []
            if (
                can_draw
                and drawn < t.limit
                and (t.dwlp or not has_play)
                and not (ad == AD_MUST and self._forced and has_play)
            ):
                acts.append(DRAW_ACTIONS[seat])
            if acts:
                if ad == AD_UPTO:  # pass once the limit is reached or nothing can be drawn
                    may_pass = drawn >= t.limit or not can_draw
                else:  # may-play-drawn / may-play-any allow a pass; must-play-drawn does not
                    may_pass = ad >= AD_DRAWN or (t.pass_empty and not can_draw)
                if may_pass or t.pass_any:
                    acts.append(PASS_ACTIONS[seat])
            return acts
        if can_draw and (t.dwlp or not has_play):
            acts.append(DRAW_ACTIONS[seat])
        if acts and (t.pass_any or (t.pass_empty and not can_draw)):
            acts.append(PASS_ACTIONS[seat])
        return acts

    def _settle(self, ev: list[Event] | None) -> None:
        """Recompute the seat to act's options; pass for it (auto-pass) while it can do nothing."""
        while self._phase != P_OVER:
            acts = self._compute()
            if acts:
                self._legal = acts
                return
            # Nothing to do: a missed turn (answer rank), the end of a run, an impossible draw, or a pass.
            if self._answer or self._phase == P_RUN:
                self._pass(self._cur, ev, True)
            elif self._t.edr and (not self._drawn or (self._t.owed_end and self._owes_draw())):
                self._finish(-1, "no-draw", ev)
            else:
                self._pass(self._cur, ev, True)
        self._legal = []

    def _owes_draw(self) -> bool:
        """Whether the seat, having drawn this turn, must draw again: must-play-drawn keeps drawing while
        nothing is playable, up to the draw limit (so with an empty stock that draw is the impossible one).
        Under a ruleset stored before that rule (``owed_draw_ends_round`` off) such a seat is passed."""
        t = self._t
        return t.ad == AD_MUST and not self._pending and self._drawn < t.limit and not self._has_play

    def _do(self, action: Action, ev: list[Event] | None) -> None:
        kind, seat, card, suit, target = action
        if kind is CALL_LAST:
            self._lc_seat = -1
            self._history.append(("call", seat))
            if ev is not None:
                ev.append(Event("last_card_called", seat))
            return
        if kind is CATCH:
            assert target is not None
            self._lc_seat = -1
            got = self._take(target, self._t.lc_penalty, ev)
            self._passes = 0
            self._history.append(("catch", seat, target, got))
            if ev is not None:
                ev.append(Event("last_card_caught", seat, {"target": target, "count": got}))
            self._settle(ev)
            return
        if self._lc_seat >= 0 and self._turn != self._lc_turn:
            self._lc_seat = -1  # the next player acted: too late to call or catch
        if kind is PLAY:
            assert card is not None
            self._play(seat, card, suit, ev)
        elif kind is DRAW:
            self._draw(seat, ev)
        elif kind is PASS:
            self._pass(seat, ev, False)
        else:
            assert suit is not None
            self._name(seat, suit, ev)
            self._after_card(self._discard[-1] >> 2, ev)
        if self._phase != P_OVER:  # the common case of _settle, inlined for the hot path
            acts = self._compute()
            if acts:
                self._legal = acts
                return
        self._settle(ev)

    def _play(self, seat: int, card: Card, suit: Suit | None, ev: list[Event] | None) -> None:
        t = self._t
        hand = self._hands[seat]
        hand.remove(card)
        self._discard.append(card)
        self._declared = -1
        self._passes = 0
        self._answer = 0
        self._history.append(("play", seat, CODES[card]))
        if ev is not None:
            ev.append(Event("played", seat, {"card": CODES[card]}))
        if t.last_card and len(hand) == 1:
            self._lc_seat = seat  # may call from now on; may be caught once this turn ends
            self._lc_turn = self._turn
        if not hand:
            if not t.partner or self._out >> (seat ^ 2) & 1:
                self._finish(seat, "out", ev)
                return
            # Partnership: out of the round, passed over from now on; the card still takes effect.
            self._out |= 1 << seat
            self._history.append(("out", seat))
            if ev is not None:
                ev.append(Event("went_out", seat))
        r = card >> 2
        if t.special[r]:
            self._effects(r, ev)
        elif self._pending:
            self._pending = 0  # a wild answered the pending draw: it is cancelled
            self._pending_rank = 0
        # Rule 6: no suit is named after a last card (in a partnership the round goes on: the next player
        # follows the wild's own suit, as with a starter wild); a suit sent along is ignored.
        if r == t.wild and hand:
            if suit is None:
                self._phase = P_SUIT
                return
            self._name(seat, suit, ev)
        self._after_card(r, ev)

    def _after_card(self, r: int, ev: list[Event] | None) -> None:
        if self._t.runs and not self._drawn:
            for c in self._hands[self._cur]:
                if c >> 2 == r:
                    self._phase = P_RUN
                    self._run_rank = r
                    return
        self._end_turn(ev)

    def _effects(self, r: int, ev: list[Event] | None) -> None:
        t = self._t
        if t.skip[r]:
            self._skips += 1
        if t.reverse[r]:
            self._direction = -self._direction
            if self._n == 2 and t.rev2skip:
                self._skips += 1
            self._history.append(("reverse", self._direction))
            if ev is not None:
                ev.append(Event("reversed", self._cur, {"direction": self._direction}))
        n = t.draw_n[r]
        if n:
            owed = self._pending + n if self._pending_rank == r else n
            cap = t.cap[r]
            self._pending = owed if owed < cap else cap
            self._pending_rank = r
        if t.answer[r]:
            self._answer = r

    def _name(self, seat: int, suit: Suit, ev: list[Event] | None) -> None:
        self._declared = suit
        self._history.append(("suit", seat, SUIT_CODES[suit]))
        if ev is not None:
            ev.append(Event("suit_named", seat, {"suit": SUIT_CODES[suit]}))

    def _draw(self, seat: int, ev: list[Event] | None) -> None:
        if self._pending:
            owed = self._pending
            got = self._take(seat, owed, ev)
            self._pending = 0
            self._pending_rank = 0
            self._passes = 0
            self._history.append(("penalty", seat, got))
            if ev is not None:
                ev.append(Event("draw_penalty", seat, {"count": owed, "drawn": got}))
            self._end_turn(ev)
            return
        forced = not self._has_play
        stock = self._stock
        if not stock:
            self._reshuffle(ev)
        card = stock.pop()
        self._hands[seat].append(card)
        self._drawn += 1
        self._forced = forced
        self._last_drawn = card
        self._passes = 0
        self._phase = P_DREW
        self._history.append(("draw", seat, 1))
        if ev is not None:
            ev.append(Event("drew", seat, {"count": 1}))
            ev.append(Event("drew_cards", seat, {"cards": [CODES[card]]}, seat))
        if self._t.ad == AD_END:
            self._end_turn(ev)

    def _take(self, seat: int, n: int, ev: list[Event] | None) -> int:
        """``seat`` draws up to ``n`` cards (reshuffling as needed); returns how many it got."""
        stock = self._stock
        got: list[Card] = []
        for _n in range(n):
            if not stock and not self._reshuffle(ev):
                break
            got.append(stock.pop())
        self._hands[seat].extend(got)
        if ev is not None and got:
            ev.append(Event("drew", seat, {"count": len(got)}))
            ev.append(Event("drew_cards", seat, {"cards": [CODES[c] for c in got]}, seat))
        return len(got)

    def _reshuffle(self, ev: list[Event] | None) -> bool:
        discard = self._discard
        if not self._t.reshuffle or len(discard) <= 1:
            return False
        cards = discard[:-1]
        del discard[:-1]
        random.Random(self._seed * 1000003 + self._reshuffles).shuffle(cards)
        self._reshuffles += 1
        self._stock.extend(cards)
        self._history.append(("reshuffle", len(cards)))
        if ev is not None:
            ev.append(Event("reshuffled", None, {"count": len(cards)}))
        return True

    def _pass(self, seat: int, ev: list[Event] | None, forced: bool) -> None:
        if self._phase == P_RUN:  # the end of a run: the turn had a play
            self._history.append(("pass", seat))
            if ev is not None:
                ev.append(Event("passed", seat, {"forced": forced}))
            self._end_turn(ev)
            return
        if self._answer:  # not answering the rank: the turn is missed
            self._answer = 0
            self._history.append(("skip", seat))
            if ev is not None:
                ev.append(Event("skipped", seat, {"reason": "answer"}))
            self._end_turn(ev)
            return
        self._pending = 0  # owed cards that cannot be drawn are forgiven
        self._pending_rank = 0
        self._passes = 0 if self._drawn else self._passes + 1
        self._history.append(("pass", seat))
        if ev is not None:
            ev.append(Event("passed", seat, {"forced": forced}))
        # Blocked after every player still in has passed in a row (or the ruleset's number of passes).
        if self._passes >= (self._t.blocked_after or self._n - self._out.bit_count()):
            self._finish(-1, "blocked", ev)
            return
        self._end_turn(ev)

    def _end_turn(self, ev: list[Event] | None) -> None:
        n = self._n
        d = self._direction
        s = (self._cur + d) % n
        out = self._out  # partnership: seats that went out are passed over, by skips too
        while out >> s & 1:
            s = (s + d) % n
        k = self._skips
        if k:
            self._skips = 0
            if self._pending and self._t.skip_pays:
                # A card that both skips and makes the next player draw (house rules: skip and draw on one
                # rank, or a two-player reverse that skips): the next player owes the cards and loses the
                # turn, so they draw them now, unable to answer, and are passed over. Under a ruleset stored
                # before that rule (``skipped_player_draws`` off) the skip goes first and the cards stay owed
                # by the seat it comes to.
                owed = self._pending
                got = self._take(s, owed, ev)
                self._pending = 0
                self._pending_rank = 0
                self._history.append(("penalty", s, got))
                if ev is not None:
                    ev.append(Event("draw_penalty", s, {"count": owed, "drawn": got}))
            for _n in range(k):
                self._history.append(("skip", s))
                if ev is not None:
                    ev.append(Event("skipped", s, {"reason": "skip"}))
                s = (s + d) % n
                while out >> s & 1:
                    s = (s + d) % n
        self._begin(s, ev)

    def _begin(self, seat: int, ev: list[Event] | None) -> None:
        self._cur = seat
        self._phase = P_TURN
        self._drawn = 0
        self._forced = False
        self._last_drawn = -1
        self._turn += 1
        if self._turn > self._t.turn_cap:
            self._finish(-1, "turn-cap", ev)
            return
        if ev is not None:
            ev.append(Event("turn", seat))

    def _finish(self, winner: int, reason: str, ev: list[Event] | None) -> None:
        t = self._t
        if t.card_count:
            vals = [len(h) for h in self._hands]
        else:
            vt = t.values
            vals = [sum(vt[c >> 2] for c in h) for h in self._hands]
        if t.partner:
            scores, winners, blocked = _settle_sides(vals, winner, t.scoring)
        else:
            scores, winners, blocked = _settle_seats(vals, winner, t.scoring)
        self._phase = P_OVER
        self._scores = scores
        self._winners = winners
        self._blocked = blocked
        self._reason = reason
        self._lc_seat = -1
        self._pending = 0
        self._pending_rank = 0
        self._answer = 0
        self._skips = 0
        self._legal = []
        self._history.append(("over", reason))
        if ev is not None:
            data: dict[str, Any] = {
                "scores": list(scores),
                "winners": list(winners),
                "blocked": blocked,
                "reason": reason,
            }
            if winner >= 0 and self._discard:
                data["card"] = CODES[self._discard[-1]]  # what they went out with (a board shows it later)
            ev.append(Event("round_over", None, data))

    # ================================================================================ views
    def public_view(self) -> dict[str, Any]:
        """What every seat (and a spectator) may see."""
        return {
            "seats": self._n,
            "dealer": self._dealer,
            "ruleset": self._t.rs.name,
            "target": CODES[self._discard[-1]],
            "declared_suit": None if self._declared < 0 else SUIT_CODES[self._declared],
            "direction": self._direction,
            "pending_draw": self._pending,
            "answer_rank": self._answer or None,
            "stock_size": len(self._stock),
            "discard_size": len(self._discard),
            "hand_sizes": [len(h) for h in self._hands],
            "to_act": self.to_act,
            "phase": PHASE_NAMES[self._phase],
            "turn_number": self._turn,
            "last_card_open": self.last_card_open,
            "partnership": self._t.partner,
            "out": self.out_seats,
            "over": self._phase == P_OVER,
            "scores": self.scores,
            "winners": list(self._winners),
            "blocked": self._blocked,
            "end_reason": self._reason,
            "last_events": [e.to_json() for e in self._recent if e.visible_to is None],
        }

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view, its own hand, its legal actions, its private events."""
        hand = self._hands[self._seat(seat)]
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = [CODES[c] for c in hand]
        v["legal"] = [a.to_json() for a in self.legal_actions(seat)]
        v["last_events"] = [e.to_json() for e in events_for(self._recent, seat)]
        return v

    # ================================================================================ copies and JSON
    def clone(self) -> Round:
        """An independent copy (cheap: lists of ints are copied, tables shared)."""
        r = Round.__new__(Round)
        r._t = self._t
        r._n = self._n
        r._dealer = self._dealer
        r._first = self._first
        r._seed = self._seed
        r._reshuffles = self._reshuffles
        r._dups = self._dups
        r._hands = [h[:] for h in self._hands]
        r._stock = self._stock[:]
        r._discard = self._discard[:]
        r._declared = self._declared
        r._direction = self._direction
        r._cur = self._cur
        r._phase = self._phase
        r._pending = self._pending
        r._pending_rank = self._pending_rank
        r._answer = self._answer
        r._skips = self._skips
        r._drawn = self._drawn
        r._forced = self._forced
        r._last_drawn = self._last_drawn
        r._run_rank = self._run_rank
        r._passes = self._passes
        r._turn = self._turn
        r._lc_seat = self._lc_seat
        r._lc_turn = self._lc_turn
        r._out = self._out
        r._scores = None if self._scores is None else self._scores[:]
        r._winners = self._winners[:]
        r._blocked = self._blocked
        r._reason = self._reason
        r._history = self._history[:]
        r._history_json = self._history_json[:]
        r._recent = self._recent[:]
        r._legal = self._legal  # never changed in place
        r._has_play = self._has_play
        r.start_events = []
        return r

    def with_hidden(self, seat: int, hands: dict[int, list[Card]], stock: list[Card]) -> Round:
        """A clone where every other seat's hand and the stock (top card first) are replaced by the given
        cards, of the same sizes: a determinization for search. A card another seat drew this turn is taken to
        be the last card of its new hand."""
        r = self.clone()
        for s in range(self._n):
            if s == seat:
                continue
            new = hands[s]
            if len(new) != len(self._hands[s]):
                raise ValueError(f"seat {s} holds {len(self._hands[s])} cards, not {len(new)}")
            r._hands[s] = list(new)
        if len(stock) != len(self._stock):
            raise ValueError(f"the stock holds {len(self._stock)} cards, not {len(stock)}")
        r._stock = list(reversed(stock))
        if r._phase != P_OVER:
            if r._cur != seat and r._drawn and r._hands[r._cur]:
                r._last_drawn = r._hands[r._cur][-1]
            r._settle(None)
        return r

    def to_json(self) -> dict[str, Any]:
        """The full state as plain JSON (cards as codes), with a format version."""
        return {
            "format": FORMAT_VERSION,
            "ruleset": self._t.rs.to_json(),
            "seats": self._n,
            "dealer": self._dealer,
            "leader": self._first,
            "seed": self._seed,
            "reshuffles": self._reshuffles,
            "hands": [[CODES[c] for c in h] for h in self._hands],
            "stock": [CODES[c] for c in reversed(self._stock)],
            "discard": [CODES[c] for c in self._discard],
            "declared": None if self._declared < 0 else SUIT_CODES[self._declared],
            "direction": self._direction,
            "to_act": self._cur,
            "phase": PHASE_NAMES[self._phase],
            "pending": self._pending,
            "pending_rank": self._pending_rank,
            "answer_rank": self._answer,
            "skips": self._skips,
            "drawn": self._drawn,
            "forced": self._forced,
            "last_drawn": None if self._last_drawn < 0 else CODES[self._last_drawn],
            "run_rank": self._run_rank,
            "passes": self._passes,
            "turn": self._turn,
            "last_card": None if self._lc_seat < 0 else [self._lc_seat, self._lc_turn],
            "out": self.out_seats,
            "scores": None if self._scores is None else list(self._scores),
            "winners": list(self._winners),
            "blocked": self._blocked,
            "reason": self._reason,
            "history": self._history_rows(),
            "recent": [e.to_json() for e in self._recent],
        }

    def _history_rows(self) -> list[list[Any]]:
        rows = self._history_json
        if len(rows) < len(self._history):
            rows.extend([list(h) for h in self._history[len(rows) :]])
        return rows[:]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Round:
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported round format (expected {FORMAT_VERSION})")
        rs = Ruleset.from_json(data["ruleset"])
        self = cls.__new__(cls)
        self._t = _tables(rs)
        n = self._n = int(data["seats"])
        self._dealer = int(data["dealer"])
        self._first = int(data["leader"])
        self._seed = int(data["seed"])
        self._reshuffles = int(data["reshuffles"])
        self._dups = rs.decks_for(n) > 1
        self._hands = [[card_from_code(c) for c in h] for h in data["hands"]]
        if len(self._hands) != n:
            raise ValueError("one hand per seat")
        self._stock = [card_from_code(c) for c in reversed(data["stock"])]
        self._discard = [card_from_code(c) for c in data["discard"]]
        self._declared = -1 if data["declared"] is None else parse_suit(data["declared"])
        self._direction = int(data["direction"])
        self._cur = int(data["to_act"])
        self._phase = PHASE_NAMES.index(data["phase"])
        self._pending = int(data["pending"])
        self._pending_rank = int(data["pending_rank"])
        self._answer = int(data["answer_rank"])
        self._skips = int(data["skips"])
        self._drawn = int(data["drawn"])
        self._forced = bool(data["forced"])
        self._last_drawn = -1 if data["last_drawn"] is None else card_from_code(data["last_drawn"])
        self._run_rank = int(data["run_rank"])
        self._passes = int(data["passes"])
        self._turn = int(data["turn"])
        lc = data["last_card"]
        self._lc_seat, self._lc_turn = (-1, 0) if lc is None else (int(lc[0]), int(lc[1]))
        self._out = 0
        for seat in data.get("out", ()):  # absent in rounds saved before partnership existed
            self._out |= 1 << int(seat)
        self._scores = None if data["scores"] is None else [int(s) for s in data["scores"]]
        self._winners = [int(s) for s in data["winners"]]
        self._blocked = bool(data["blocked"])
        self._reason = str(data["reason"])
        self._history = [tuple(h) for h in data["history"]]
        self._history_json = []
        self._recent = [Event.from_json(e) for e in data["recent"]]
        for e in self._recent:
            if (
                e.kind == "round_over"
                and e.data.get("reason") == "out"
                and "card" not in e.data
                and self._discard
            ):
                # Stored before round_over named the card its winner went out with (commit b2e0f40): read as
                # this engine writes it (the round's last play, the top of the discard pile), so a match an
                # earlier release stored compares equal with its replay.
                e.data["card"] = CODES[self._discard[-1]]
        self._has_play = False
        self._legal = []
        self.start_events = []
        if self._phase != P_OVER:
            self._legal = self._compute()
        return self

    def __repr__(self) -> str:
        return (
            f"<Round {self._t.rs.name} seats={self._n} turn={self._turn} to_act={self.to_act} "
            f"target={CODES[self._discard[-1]]} phase={PHASE_NAMES[self._phase]}>"
        )


def _settle_seats(vals: list[int], winner: int, scoring: str) -> tuple[list[int], list[int], bool]:
    """Round scores, winners and whether it was blocked, seat by seat (``winner`` -1: blocked)."""
    n = len(vals)
    if winner >= 0:
        winners = [winner]
        blocked = False
    else:
        low = min(vals)
        winners = [s for s in range(n) if vals[s] == low]
        blocked = True
    if scoring == "payment":
        low = vals[winners[0]]
        k = len(winners)
        scores = [-(v - low) * k for v in vals]
        gain = sum(v - low for v in vals)
        for s in winners:
            scores[s] = gain
    else:
        scores = list(vals)
        if blocked and scoring == "card-count":
            for s in winners:
                scores[s] = 0
    return scores, winners, blocked


def _settle_sides(vals: list[int], winner: int, scoring: str) -> tuple[list[int], list[int], bool]:
    """The same, by side (RULESETS.md, Partnership): side 0 is seats 0 and 2, side 1 seats 1 and 3. A side
    wins when both its players are out (``winner`` is the second), or when blocked its hands are worth less in
    total (equal totals: both sides win). Each seat scores its side's score. Penalty and card count: the
    losing side scores its hands' total (in points or cards), a winning side 0. Payment: the winning side
    collects the losing side's total minus its own (its own is 0 when it went out; blocked, the difference,
    as seed 004's blocked game pays the difference) and the losing side pays it (zero-sum)."""
    side = [vals[0] + vals[2], vals[1] + vals[3]]
    if winner >= 0:
        won = [winner & 1]
        blocked = False
    else:
        low = min(side)
        won = [k for k in (0, 1) if side[k] == low]
        blocked = True
    if len(won) == 2:
        side_scores = [0, 0]
    else:
        w = won[0]
        side_scores = [0, 0]
        if scoring == "payment":
            gain = side[1 - w] - side[w]
            side_scores[w] = gain
            side_scores[1 - w] = -gain
        else:
            side_scores[1 - w] = side[1 - w]
    scores = [side_scores[s & 1] for s in range(4)]
    winners = [s for s in range(4) if s & 1 in won]
    return scores, winners, blocked


def _dedupe(acts: list[Action]) -> list[Action]:
    """Drop repeated plays (two decks: a hand may hold the same card twice)."""
    out: list[Action] = []
    for a in acts:
        if a not in out:
            out.append(a)
    return out
