"""One game of ``crazier-abilities``: the state machine of the turn, the beginning-of-turn batch, and the end.

``legal_actions(seat)``, ``apply(move)`` returning events (``EngineError`` and nothing changed when illegal),
``view(seat)``, ``to_json``/``from_json`` with a format version, ``clone``. Piles are lists whose last item is
the top (``draw[-1]`` is drawn next, ``discard[-1]`` is the top card); "the bottom" is index 0.

The engine runs every step that asks nothing of anyone: the beginning-of-turn abilities without a choice, the
turn's draw, and the end of a turn with nothing left to do. It stops at the first choice (``choice``) or at
the players' own part of the turn (discard, effect, end), and resumes there after a JSON round trip. With
teams, a member whose beginning of turn and draw are done may discard, play and end while a teammate's
beginning-of-turn choice waits (decision 10): after each such move the choice is checked again, as when it
was asked. With teams, a member with nothing to do is ended by the engine only once no teammate has anything
left to do either (decision 10).

Events (``bot.engine.events.Event``; cards are codes; private ones carry ``visible_to``):
  dealt {cards} (private) · starter {card, follow} · turn {seats, turn} · ability {card, name} (a
  beginning-of-turn ability happens) · ordered {card} · drew {count, by} · drew_cards {cards} (private) ·
  draw_prevented {count, by} (Castle) · reshuffled {count} · looked {count} · looked_card {card} (private) ·
  moved_to_bottom {by} · kept_on_top {by} · discarded {card, colour} · played {card, name, kind, target} ·
  destroyed {card, by} · took_control {card, from} · resurrected {moved, top, follow} · no_effect {card} ·
  lost {reason, cards, in_play} · turn_ended {auto} · game_over {winners, scores, reason}. ``by`` is the card
  causing it (None: the turn's own draw); a ``lost`` or ``game_over`` reason is a card code (King Arthur,
  Mordred) or "out", "impossible_draw", "last_standing", "turn_cap".
"""

from __future__ import annotations

import random
from typing import Any

from bot.engine.crazier import primitives as p
from bot.engine.crazier.abilities import ABILITIES, CARD, LOOK, PLAYER
from bot.engine.crazier.actions import CARD as CARD_MOVE
from bot.engine.crazier.actions import CHOICE_KINDS, DISCARD, EFFECT, END, KEEP, MOVE, ORDER, Move
from bot.engine.crazier.actions import PLAYER as PLAYER_MOVE
from bot.engine.crazier.deck import COLOURS, DECK, colours_of, is_wild, rank_of, row_of
from bot.engine.crazier.rules import CrazierRules
from bot.engine.errors import EngineError
from bot.engine.events import Event, events_for
from bot.i18n import _

FORMAT_VERSION = 1
RECENT_EVENTS = 40
#: Stages of a seat taking a turn: its beginning-of-turn batch is not collected yet ("start"), is being
#: resolved ("begin"), its own part of the turn ("main"), ended ("done").
START, BEGIN, MAIN, DONE = "start", "begin", "main", "done"


class CrazierRound:
    """A game (one deal). Build with ``new``; every field is plain data (see ``to_json``)."""

    rules: CrazierRules
    n: int
    seed: int
    reshuffles: int
    hands: list[list[str]]
    draw: list[str]
    discard: list[str]
    in_play: list[list[str]]
    #: The colour to follow while an 8 is the top card (named, or its own when it was not discarded).
    follow: str | None
    alive: list[bool]
    lost_with: list[int | None]
    turn: int
    lead: int
    #: With teams under ``rules.rotating_team_leads``: each team's last first player (None until the team has
    #: led), from which its next one is found (decision 10). None otherwise (no teams, or rules stored
    #: before it, whose games keep the rule they were played by: ``_next_lead``).
    team_leads: list[int | None] | None
    active: list[int]
    stage: list[str]
    discards_left: list[int]
    effect_used: list[bool]
    #: The beginning-of-turn abilities waiting to happen: [card, controller, data], in order.
    batch: list[list[Any]]
    #: The choice the game waits for: {"kind": order|player|card|look, "by": seat, "entry": [card, controller,
    #: data] (not for order)}.
    choice: dict[str, Any] | None
    over: bool
    winners: list[int]
    scores: list[int] | None
    reason: str
    recent: list[Event]

    # ======================================================================================== setting up
    @classmethod
    def new(
        cls,
        rules: CrazierRules,
        n: int,
        *,
        seed: int,
        first: int | None = None,
        deck: list[str] | None = None,
    ) -> CrazierRound:
        """Deal a game. ``deck`` (top first) stacks the deal: seven cards to each seat in turn from seat 0,
        then the starter, then the draw pile from its top. ``first`` is who starts (random from the seed if
        None). The first turn's automatic steps have run; their events are ``start_events``. A seat count or
        first seat that is not an int (a bool, a float, a string) is refused as one out of range is (923)."""
        if type(n) is not int or not rules.allows_seats(n):
            raise EngineError(
                923,
                _(
                    "This game is for {min_seats}–{max_seats} players.",
                    min_seats=rules.min_seats,
                    max_seats=rules.max_seats,
                ),
            )
        if first is not None and (type(first) is not int or not 0 <= first < n):
            raise EngineError(923)
        rng = random.Random(seed)
        if deck is None:
            order = list(DECK)
            rng.shuffle(order)
        else:
            order = list(deck)
            if sorted(order) != sorted(DECK):
                raise ValueError("a stacked deck must hold the 52 cards once each")
        g = cls.__new__(cls)
        g.rules, g.n, g.seed, g.reshuffles = rules, n, seed, 0
        size = rules.hand_size
        g.hands = [[order[i * n + s] for i in range(size)] for s in range(n)]
        g.discard = [order[size * n]]
        g.draw = order[size * n + 1 :][::-1]
        g.in_play = [[] for _n in range(n)]
        g.follow = None
        g.uncover_top()
        g.alive = [True] * n
        g.lost_with = [None] * n
        g.turn = 0
        g.lead = rng.randrange(n) if first is None else first
        g.team_leads = [None, None] if rules.teams and rules.rotating_team_leads else None
        g.active, g.stage = [], [DONE] * n
        g.discards_left, g.effect_used = [0] * n, [False] * n
        g.batch, g.choice = [], None
        g.over, g.winners, g.scores, g.reason = False, [], None, ""
        g.recent = []
        ev = [Event("dealt", s, {"cards": list(g.hands[s])}, visible_to=s) for s in range(n)]
        ev.append(Event("starter", None, {"card": g.discard[-1], "follow": g.follow}))
        g._start_turn(g.lead, ev)
        g._advance(ev)
        g._remember(ev)
        g.start_events = ev
        return g

    start_events: list[Event]

    def rng_for(self, n: int) -> random.Random:
        """The n-th reshuffle's own generator, so a replay reshuffles the same way."""
        return random.Random(self.seed * 1_000_003 + n)

    # ======================================================================================== reading
    def clockwise(self, start: int) -> list[int]:
        return [(start + k) % self.n for k in range(self.n)]

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.rules.teams else seat

    def turn_seat(self) -> int:
        """The player taking the turn (with teams: the member beginning their turn, else the team's first)."""
        for seat in self.active:
            if self.stage[seat] in (START, BEGIN):
                return seat
        return self.active[0] if self.active else self.lead

    @property
    def to_act(self) -> int | None:
        """The first seat that can act now (with teams several may: see ``acting``)."""
        acting = self.acting
        return acting[0] if acting else None

    @property
    def acting(self) -> list[int]:
        """The seats that may move now: the seat owing the pending choice first (choice moves only), then
        every active seat at its own part of the turn (with teams, while a teammate's choice waits too)."""
        if self.over:
            return []
        by = self.choice["by"] if self.choice is not None else None
        out = [] if by is None else [by]
        return out + [s for s in self.active if self.stage[s] == MAIN and s != by]

    def top(self) -> str:
        return self.discard[-1]

    def colours_to_follow(self) -> tuple[str, ...]:
        return (self.follow,) if self.follow is not None else colours_of(self.discard[-1])

    def matches(self, card: str) -> bool:
        """A discard shares a colour with the top card (an 8 on top: the colour to follow), or its rank, or
        is an 8."""
        if is_wild(card):
            return True
        top = self.discard[-1]
        if is_wild(top):
            return self.follow in colours_of(card)
        if rank_of(card) == rank_of(top):
            return True
        return any(c in colours_of(top) for c in colours_of(card))

    def uncover_top(self) -> None:
        """An 8 that becomes the top card without being discarded sets its own colour (clarification 2)."""
        top = self.discard[-1]
        self.follow = top[-1] if is_wild(top) else None

    def fewer_draws(self, seat: int) -> int:
        """How many fewer cards an opponent makes ``seat`` draw: its Castles (substitution abilities)."""
        total = 0
        for card in self.in_play[seat]:
            key = row_of(card).key
            if key is not None:
                total += ABILITIES[key].fewer_draws
        return total

    # ======================================================================================== legal actions
    def legal_actions(self, seat: int | None = None) -> list[Move]:
        if self.over:
            return []
        if seat is None:
            out: list[Move] = []
            for s in self.acting:
                out += self.legal_actions(s)
            return out
        if self.choice is not None and self.choice["by"] == seat:
            return self._choice_moves()
        if seat not in self.active or self.stage[seat] != MAIN:
            return []
        return [*self._main_moves(seat), Move.end(seat)]

    def _main_moves(self, seat: int) -> list[Move]:
        moves: list[Move] = []
        hand = self.hands[seat]
        if self.discards_left[seat] > 0:
            for card in hand:
                if not self.matches(card):
                    continue
                if is_wild(card) and len(hand) > 1:
                    moves += [Move.discard(seat, card, c) for c in COLOURS]
                else:
                    moves.append(Move.discard(seat, card))
        if not self.effect_used[seat]:
            for card in hand:
                key = row_of(card).key
                if key is None:
                    continue
                choice, options = self._effect_choice(seat, card)
                for option in options:
                    moves.append(self._effect_move(seat, card, choice, option))
        return moves

    def _effect_choice(self, seat: int, card: str) -> tuple[str | None, list[Any]]:
        """What playing ``card`` for its effect asks (an event's choice and its options now). An asset asks
        nothing as it goes into play: its choices come when its ability happens."""
        row = row_of(card)
        if row.key is None:
            return None, []
        if row.kind == "asset":
            return None, [None]
        ability = ABILITIES[row.key]
        return ability.choice, ability.options(self, seat, {})

    @staticmethod
    def _effect_move(seat: int, card: str, choice: str | None, option: Any) -> Move:
        if choice == PLAYER:
            return Move.effect(seat, card, target=option)
        if choice == CARD:
            return Move.effect(seat, card, target_card=option)
        return Move.effect(seat, card)

    def _choice_moves(self) -> list[Move]:
        ch = self.choice
        assert ch is not None
        by = ch["by"]
        if ch["kind"] == ORDER:
            return [Move.order(by, card) for card in self._order_options()]
        options = self._entry_options(ch["entry"])
        if ch["kind"] == PLAYER:
            return [Move.player(by, s) for s in options]
        if ch["kind"] == CARD:
            return [Move.choose_card(by, c) for c in options]
        return [Move.keep(by), Move.move(by)]

    def _entry_options(self, entry: list[Any]) -> list[Any]:
        card, controller, data = entry
        key = row_of(card).key
        assert key is not None
        return ABILITIES[key].options(self, controller, data)

    def _order_options(self) -> list[str]:
        """The cards of the first controller's abilities at the head of the batch, in batch order."""
        first = self.batch[0][1]
        return [e[0] for e in self.batch if e[1] == first]

    # ======================================================================================== applying
    def apply(self, move: Move) -> list[Event]:
        self._check(move)
        ev: list[Event] = []
        self._do(move, ev)
        if move.kind not in CHOICE_KINDS:
            self._recheck_choice(ev)
        self._advance(ev)
        self._remember(ev)
        return ev

    def resume(self) -> list[Event]:
        """Run the steps that wait for nobody (a no-op on any state this engine produced, which always stops
        at a decision): for a position set up by hand, e.g. a turn at its "start" stage."""
        ev: list[Event] = []
        self._advance(ev)
        self._remember(ev)
        return ev

    def is_legal(self, move: Move) -> bool:
        try:
            self._check(move)
        except EngineError:
            return False
        return True

    def _check(self, m: Move) -> None:
        if self.over:
            raise EngineError(922)
        if not isinstance(m, Move) or m.kind not in (*CHOICE_KINDS, DISCARD, EFFECT, END):
            raise EngineError(924)
        if type(m.seat) is not int or not 0 <= m.seat < self.n:
            raise EngineError(923)
        if m.target is not None and type(m.target) is not int:
            # True and 1.0 equal 1: compared with the options they would pass as seat 1 (and the move's JSON,
            # logged for replays, would not read back).
            raise EngineError(923)
        if self.choice is not None and m.seat == self.choice["by"]:
            if m.kind not in CHOICE_KINDS:
                raise EngineError(935)
            if m not in self._choice_moves():
                raise EngineError(934)
            return
        if m.kind in CHOICE_KINDS:
            # Another seat's choice is not this seat's to answer; with none pending nothing is offered.
            raise EngineError(901 if self.choice is not None else 934)
        if m.seat not in self.active or self.stage[m.seat] != MAIN:
            raise EngineError(901)
        if m.kind == END:
            return
        if m.card not in DECK:
            raise EngineError(903)
        if m.card not in self.hands[m.seat]:
            raise EngineError(902)
        if m.kind == DISCARD:
            if self.discards_left[m.seat] <= 0:
                raise EngineError(930)
            if not self.matches(m.card):
                raise EngineError(907)
            if is_wild(m.card) and len(self.hands[m.seat]) > 1 and m.colour not in COLOURS:
                raise EngineError(936)
            if m.colour is not None and not is_wild(m.card):
                raise EngineError(905)  # only an 8 names a colour (seed 000: "you haven't just played an 8")
            if (
                m.colour is not None
                and len(self.hands[m.seat]) == 1
                and self.rules.last_eight_names_no_colour
            ):
                raise EngineError(905)  # a last 8 ends the game: there is nothing left to follow
            return
        key = row_of(m.card).key
        if key is None:
            raise EngineError(931)
        if self.effect_used[m.seat]:
            raise EngineError(932)
        choice, options = self._effect_choice(m.seat, m.card)
        if not options:
            raise EngineError(933)
        chosen = m.target if choice == PLAYER else m.target_card if choice == CARD else None
        if chosen not in options or m != self._effect_move(m.seat, m.card, choice, chosen):
            raise EngineError(934)

    def _do(self, m: Move, ev: list[Event]) -> None:
        seat = m.seat
        if m.kind in CHOICE_KINDS:
            self._answer(m, ev)
        elif m.kind == END:
            self.stage[seat] = DONE
            ev.append(Event("turn_ended", seat, {"auto": False}))
        elif m.kind == DISCARD:
            assert m.card is not None
            self.hands[seat].remove(m.card)
            self.discard.append(m.card)
            self.discards_left[seat] -= 1
            named = m.colour if is_wild(m.card) else None
            # An 8 discarded as the last card names nothing (the game is over): its own colour stands.
            self.follow = (named or m.card[-1]) if is_wild(m.card) else None
            ev.append(Event("discarded", seat, {"card": m.card, "colour": named}))
            self._out_if_empty(seat, ev)
        else:
            assert m.card is not None
            card = m.card
            row = row_of(card)
            assert row.key is not None
            ability = ABILITIES[row.key]
            self.hands[seat].remove(card)
            self.effect_used[seat] = True
            target = {PLAYER: m.target, CARD: m.target_card}.get(ability.choice or "")
            ev.append(
                Event("played", seat, {"card": card, "name": row.name, "kind": row.kind, "target": target})
            )
            if row.kind == "asset":
                self.in_play[seat].append(card)
            else:
                # A last card has left the hand as it is played: its player has won at once (detail 4, the
                # game is over) and the event does nothing (decision 13); under rules stored before that
                # (``last_effect_wins`` off) it did what it says first.
                if ability.resolve is not None and (self.hands[seat] or not self.rules.last_effect_wins):
                    ability.resolve(self, seat, card, target, {}, ev)
                # The event goes to the bottom of the discard pile after doing what it says.
                self.discard.insert(0, card)
            if not self.over:
                self._out_if_empty(seat, ev)

    def _answer(self, m: Move, ev: list[Event]) -> None:
        ch = self.choice
        assert ch is not None
        self.choice = None
        if m.kind == ORDER:
            i = next(i for i, e in enumerate(self.batch) if e[0] == m.card)
            entry = self.batch.pop(i)
            ev.append(Event("ordered", m.seat, {"card": m.card}))
            self._resolve_entry(entry, ev)
            return
        entry = ch["entry"]
        value = {PLAYER_MOVE: m.target, CARD_MOVE: m.target_card, KEEP: "keep", MOVE: "move"}[m.kind]
        self._finish_entry(entry, value, ev)

    def _out_if_empty(self, seat: int, ev: list[Event]) -> None:
        if not self.hands[seat] and self.alive[seat] and not self.over:
            self.finish([seat], "out", ev)

    # ======================================================================================== the turn
    def _start_turn(self, lead: int, ev: list[Event]) -> None:
        self.turn += 1
        self.lead = lead
        if self.team_leads is not None:
            self.team_leads[lead % 2] = lead
        if self.rules.teams:
            self.active = [s for s in self.clockwise(lead) if self.alive[s] and s % 2 == lead % 2]
        else:
            self.active = [lead]
        for s in range(self.n):
            self.stage[s] = START if s in self.active else DONE
            self.discards_left[s] = 1 if s in self.active else 0
            self.effect_used[s] = False
        ev.append(Event("turn", lead, {"seats": list(self.active), "turn": self.turn}))

    def _next_lead(self) -> int:
        """Who takes the next turn: the next living player clockwise; with teams, the first player of the
        other team's turn. That is the other team's next living member clockwise after its own last first
        player (the first living one after the current first player while it has not led yet), so the first
        player moves one seat on every team turn and goes round every living member, one who lost skipped
        (decision 10). Under rules stored before that (``team_leads`` None with teams) it is the first living
        member of the other team after the current first player, as those games were played: while everyone
        lives the two agree."""
        start, team = self.lead, None
        if self.rules.teams:
            team = 1 - self.lead % 2
            last = None if self.team_leads is None else self.team_leads[team]
            start = self.lead if last is None else last
        for k in range(1, self.n + 1):
            s = (start + k) % self.n
            if self.alive[s] and (team is None or s % 2 == team):
                return s
        return self.lead

    def _advance(self, ev: list[Event]) -> None:
        """Run every step that needs no one's decision, until a choice, a player's own part, or the end."""
        while not self.over and self.choice is None:
            seat = next((s for s in self.active if self.stage[s] in (START, BEGIN)), None)
            if seat is not None:
                self._begin_step(seat, ev)
                continue
            if self.rules.teams and self.rules.idle_members_wait:
                self._end_idle_members(ev)
            else:  # one player's turn; or, under rules stored before decision 10 said so, each member alone
                for s in self.active:
                    if self.stage[s] == MAIN and not self._main_moves(s):
                        self.stage[s] = DONE
                        ev.append(Event("turn_ended", s, {"auto": True}))
            if any(self.stage[s] == MAIN for s in self.active):
                return
            if self.turn >= self.rules.turn_cap:
                self.settle_fewest("turn_cap", ev)
                return
            self._start_turn(self._next_lead(), ev)

    def _end_idle_members(self, ev: list[Event]) -> None:
        """With teams, once every beginning is done and no choice waits: a member with nothing to do is ended
        only when no teammate has anything to do either, since a teammate's discard (a colour to follow) or
        card put into play (a target for Death) may still give them a move (decision 10). Until then they are
        offered only the end of their part; ``_advance`` checks again after every move."""
        at_main = [s for s in self.active if self.stage[s] == MAIN]
        if any(self._main_moves(s) for s in at_main):
            return
        for s in at_main:
            self.stage[s] = DONE
            ev.append(Event("turn_ended", s, {"auto": True}))

    def _begin_step(self, seat: int, ev: list[Event]) -> None:
        """One step of ``seat``'s beginning of turn: collect its batch, resolve one ability, or draw."""
        if self.stage[seat] == START:
            self.stage[seat] = BEGIN
            self.batch = self._collect(seat)
            return
        if self.batch:
            options = self._order_options()
            if len({rank_of(c) for c in options}) > 1:
                # "whoever is currently taking a turn decides what order they take effect in" (001 §6)
                self.choice = {"kind": ORDER, "by": seat}
                return
            self._resolve_entry(self.batch.pop(0), ev)
            return
        p.draw_cards(self, seat, 1, None, ev, None)
        if not self.over:
            self.stage[seat] = MAIN

    def _collect(self, seat: int) -> list[list[Any]]:
        """The abilities that happen as ``seat`` begins its turn: its own first, then the others' in turn
        order, each condition checked now."""
        batch: list[list[Any]] = []
        for controller in self.clockwise(seat):
            for card in self.in_play[controller]:
                key = row_of(card).key
                trigger = ABILITIES[key].trigger if key is not None else None
                if trigger is None:
                    continue
                data = trigger(self, controller, seat)
                if data is not None:
                    batch.append([card, controller, data])
        return batch

    def _resolve_entry(self, entry: list[Any], ev: list[Event]) -> None:
        card, controller, data = entry
        key = row_of(card).key
        assert key is not None
        ability = ABILITIES[key]
        ev.append(Event("ability", controller, {"card": card, "name": row_of(card).name}))
        if ability.choice == LOOK:
            data["seen"] = p.look_top(self, controller, ev)
        if ability.choice is None:
            self._finish_entry(entry, None, ev)
            return
        options = ability.options(self, controller, data)
        if not options:
            ev.append(Event("no_effect", controller, {"card": card}))
            return
        if len(options) == 1 and ability.choice != LOOK:
            self._finish_entry(entry, options[0], ev)  # "it must": a single option is taken
            return
        self.choice = {"kind": ability.choice, "by": controller, "entry": entry}

    def _recheck_choice(self, ev: list[Event]) -> None:
        """After a teammate's discard, effect or end while a choice waits: the choice as ``_begin_step`` and
        ``_resolve_entry`` would ask it now. An order whose abilities no longer differ is no longer asked
        (``_advance`` resolves them); an ability whose choice has no option left does nothing, one with a
        single option takes it (decision 4), otherwise the choice still waits (its options read anew)."""
        ch = self.choice
        if ch is None:
            return
        if ch["kind"] == ORDER:
            if not self.batch or len({rank_of(c) for c in self._order_options()}) < 2:
                self.choice = None
            return
        entry = ch["entry"]
        options = self._entry_options(entry)
        if len(options) > 1 or (options and ch["kind"] == LOOK):
            return
        self.choice = None
        if not options:
            ev.append(Event("no_effect", entry[1], {"card": entry[0]}))
            return
        self._finish_entry(entry, options[0], ev)

    def _finish_entry(self, entry: list[Any], value: Any, ev: list[Event]) -> None:
        card, controller, data = entry
        key = row_of(card).key
        assert key is not None
        resolve = ABILITIES[key].resolve
        if resolve is not None:
            resolve(self, controller, card, value, data, ev)

    # ======================================================================================== the end
    def impossible_draw(self, ev: list[Event]) -> None:
        """A card must be drawn and none can be: the game is over, fewest cards wins (seed 001 detail 2)."""
        self.settle_fewest("impossible_draw", ev)

    def settle_fewest(self, reason: str, ev: list[Event]) -> None:
        living = [s for s in range(self.n) if self.alive[s]]
        fewest = min(len(self.hands[s]) for s in living)
        self.finish([s for s in living if len(self.hands[s]) == fewest], reason, ev)

    def finish(self, winners: list[int], reason: str, ev: list[Event]) -> None:
        """The game is over: ``winners`` (with teams: their teams) score 0, every other player one point per
        card in hand (a player who lost: the cards held when they lost); with teams a team scores its members'
        total, for each member."""
        self.over = True
        self.choice = None
        self.reason = reason
        held = [len(self.hands[s]) if self.alive[s] else (self.lost_with[s] or 0) for s in range(self.n)]
        if self.rules.teams:
            teams = {s % 2 for s in winners}
            self.winners = [s for s in range(self.n) if s % 2 in teams]
            team_points = [sum(held[s] for s in range(self.n) if s % 2 == t) for t in (0, 1)]
            self.scores = [0 if s % 2 in teams else team_points[s % 2] for s in range(self.n)]
        else:
            self.winners = sorted(winners)
            self.scores = [0 if s in winners else held[s] for s in range(self.n)]
        for s in range(self.n):
            self.stage[s] = DONE
        ev.append(
            Event(
                "game_over",
                None,
                {"winners": list(self.winners), "scores": list(self.scores), "reason": reason},
            )
        )

    # ================================================================================ views and copies
    def all_cards(self) -> list[str]:
        """Every card of the game wherever it is (conservation: always the 52 cards once each)."""
        return (
            [c for h in self.hands for c in h]
            + self.draw
            + self.discard
            + [c for cs in self.in_play for c in cs]
        )

    def public_view(self) -> dict[str, Any]:
        ch = self.choice
        return {
            "ruleset": self.rules.name,
            "teams": self.rules.teams,
            "seats": self.n,
            "top": self.discard[-1],
            "follow": list(self.colours_to_follow()),
            "draw_size": len(self.draw),
            "discard_size": len(self.discard),
            "hand_sizes": [len(h) for h in self.hands],
            "in_play": [list(cs) for cs in self.in_play],
            "alive": list(self.alive),
            "turn": self.turn,
            "active": list(self.active),
            "stages": [self.stage[s] for s in range(self.n)],
            "discards_left": list(self.discards_left),
            "effect_used": list(self.effect_used),
            "batch": [[e[0], e[1]] for e in self.batch],
            "choice": None if ch is None else {"kind": ch["kind"], "by": ch["by"]},
            "over": self.over,
            "winners": list(self.winners),
            "scores": None if self.scores is None else list(self.scores),
            "reason": self.reason,
            "last_events": [e.to_json() for e in self.recent if e.visible_to is None],
        }

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view, its hand, its legal moves, its private events, and the card
        it is looking at when an Elven Princess of its own waits for its choice. ``seat`` must be one of the
        game's (an int in range: a negative index would be another seat's hand), else 923."""
        if type(seat) is not int or not 0 <= seat < self.n:
            raise EngineError(923)
        v = self.public_view()
        v["seat"] = seat
        v["hand"] = list(self.hands[seat])
        v["legal"] = [m.to_json() for m in self.legal_actions(seat)]
        v["last_events"] = [e.to_json() for e in events_for(self.recent, seat)]
        ch = self.choice
        if ch is not None and ch["by"] == seat and ch["kind"] != ORDER:
            v["choice"]["card"] = ch["entry"][0]
            if ch["kind"] == LOOK:
                v["choice"]["seen"] = ch["entry"][2].get("seen")
        return v

    def _remember(self, ev: list[Event]) -> None:
        self.recent = (self.recent + ev)[-RECENT_EVENTS:]

    def clone(self) -> CrazierRound:
        return CrazierRound.from_json(self.to_json())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "game": self.rules.name,
            "rules": self.rules.to_json(),
            "n": self.n,
            "seed": self.seed,
            "reshuffles": self.reshuffles,
            "hands": [list(h) for h in self.hands],
            "draw": list(self.draw),
            "discard": list(self.discard),
            "in_play": [list(c) for c in self.in_play],
            "follow": self.follow,
            "alive": list(self.alive),
            "lost_with": list(self.lost_with),
            "turn": self.turn,
            "lead": self.lead,
            **({} if self.team_leads is None else {"team_leads": list(self.team_leads)}),
            "active": list(self.active),
            "stage": list(self.stage),
            "discards_left": list(self.discards_left),
            "effect_used": list(self.effect_used),
            "batch": [[e[0], e[1], _copy(e[2])] for e in self.batch],
            "choice": _copy(self.choice),
            "over": self.over,
            "winners": list(self.winners),
            "scores": None if self.scores is None else list(self.scores),
            "reason": self.reason,
            "recent": [e.to_json() for e in self.recent],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CrazierRound:
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ValueError(f"unsupported crazier-abilities format (expected {FORMAT_VERSION})")
        g = cls.__new__(cls)
        g.rules = CrazierRules.from_json(data["rules"])
        g.n, g.seed, g.reshuffles = int(data["n"]), int(data["seed"]), int(data["reshuffles"])
        g.hands = [list(h) for h in data["hands"]]
        g.draw, g.discard = list(data["draw"]), list(data["discard"])
        g.in_play = [list(c) for c in data["in_play"]]
        g.follow = data["follow"]
        g.alive, g.lost_with = list(data["alive"]), list(data["lost_with"])
        g.turn, g.lead = int(data["turn"]), int(data["lead"])
        # Absent: a game without teams, or one whose rules predate it (its old rule goes on); or, under rules
        # that rotate the first player, a position set up by hand: its current first player is its team's.
        g.team_leads = None
        if g.rules.teams and g.rules.rotating_team_leads:
            leads = data.get("team_leads")
            if leads is None:
                leads = [None, None]
                leads[g.lead % 2] = g.lead
            g.team_leads = [None if s is None else int(s) for s in leads]
            if len(g.team_leads) != 2 or any(
                s is not None and not (0 <= s < g.n and s % 2 == t) for t, s in enumerate(g.team_leads)
            ):
                raise ValueError("the stored game's team_leads are not one seat (or none) per team")
        g.active, g.stage = list(data["active"]), list(data["stage"])
        g.discards_left, g.effect_used = list(data["discards_left"]), list(data["effect_used"])
        g.batch = [[e[0], e[1], _copy(e[2])] for e in data["batch"]]
        g.choice = _copy(data["choice"])
        g.over, g.winners = bool(data["over"]), list(data["winners"])
        g.scores = None if data["scores"] is None else list(data["scores"])
        g.reason = data["reason"]
        g.recent = [Event.from_json(e) for e in data["recent"]]
        g.start_events = []
        if sorted(g.all_cards()) != sorted(DECK):
            raise ValueError("the stored game does not hold the 52 cards once each")
        return g

    def __repr__(self) -> str:
        return f"<CrazierRound turn={self.turn} active={self.active} over={self.over}>"


def _copy(value: Any) -> Any:
    """A deep copy of plain JSON data (lists, dicts, scalars)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
