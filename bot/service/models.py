"""What goes into and comes out of the service: plain frozen dataclasses, no Discord types.

The Discord layer renders these; the service never formats a Discord message. Cards are given as canonical
codes (``"KH"``, ``"10S"``) and suits as codes (``"C" "D" "H" "S"``); the UI turns them into labels with
``bot.engine.card_label`` / ``suit_symbol`` or uses the labels given here."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

from bot.engine import Ruleset, match_end_text, rule_wording
from bot.i18n import _, current_locale


@functools.lru_cache(maxsize=1024)
def house_rules_words(ruleset: Ruleset, language: str) -> tuple[str, ...]:
    """What ``ruleset`` changes from its preset, in words, in ``language`` (the language in force, passed
    so that it is part of the key): worded once per ruleset and language, not at every board and snapshot
    (a board edit asked for it at every move)."""
    return tuple(rule_wording.differences(ruleset))


Phase = Literal["lobby", "playing", "between_rounds", "finished", "abandoned"]
CpuLevel = Literal["easy", "normal", "hard"]
CPU_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks. ``can_manage``: the member has Manage Channels or the guild's manager role (the cog computes
    it; ``TableService.manager_role_id(guild_id)`` says which role counts)."""

    user_id: int
    display_name: str
    can_manage: bool = False


class IntentKind(StrEnum):
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    SUIT = "suit"
    CALL_LAST = "call_last"
    CATCH = "catch"
    # crazier-abilities: play a card for its effect, end one's turn, answer a pending choice.
    EFFECT = "effect"
    END_TURN = "end_turn"
    CHOOSE = "choose"


@dataclass(frozen=True, slots=True)
class Intent:
    """A player's wish, as typed or clicked. ``card`` and ``suit`` are read liberally ("kh", "K♥", "10s",
    "ts", "hearts"); a card code from a button works too. ``suit`` with a play names the suit in the same step
    when the card is a wild. ``target`` is the seat position to catch (crazier-abilities: the player an
    effect chooses). ``option`` (crazier-abilities): the card in play an effect chooses, or the answer to a
    pending choice (a card code, a seat number, "keep" or "move"); with a discard ``suit`` names an 8's
    colour."""

    kind: IntentKind
    card: str | None = None
    suit: str | None = None
    target: int | None = None
    option: str | None = None

    @classmethod
    def play(cls, card: str, suit: str | None = None) -> Intent:
        return cls(IntentKind.PLAY, card=card, suit=suit)

    @classmethod
    def draw(cls) -> Intent:
        return cls(IntentKind.DRAW)

    @classmethod
    def pass_(cls) -> Intent:
        return cls(IntentKind.PASS)

    @classmethod
    def name_suit(cls, suit: str) -> Intent:
        return cls(IntentKind.SUIT, suit=suit)

    @classmethod
    def call_last(cls) -> Intent:
        return cls(IntentKind.CALL_LAST)

    @classmethod
    def catch(cls, target: int) -> Intent:
        return cls(IntentKind.CATCH, target=target)

    @classmethod
    def effect(cls, card: str, target: int | None = None, option: str | None = None) -> Intent:
        return cls(IntentKind.EFFECT, card=card, target=target, option=option)

    @classmethod
    def end_turn(cls) -> Intent:
        return cls(IntentKind.END_TURN)

    @classmethod
    def choose(cls, option: str) -> Intent:
        return cls(IntentKind.CHOOSE, option=option)


@dataclass(frozen=True, slots=True)
class TableEvent:
    """Something that happened at the table.

    Engine events keep the engine's kind and data (cards as codes), see the engine contract: "dealt"
    (private), "starter", "played", "suit_named", "drew", "drew_cards" (private), "passed", "turn", "skipped",
    "reversed", "draw_penalty", "reshuffled", "last_card_called", "last_card_caught", "round_over".

    Service events (``source == "service"``), data keys in brackets:
    "opened" [user_id, name, preset], "joined" [user_id, name], "rejoined" [user_id, name] (took a seat back
    from the CPU), "left" [user_id, name] (lobby: seat removed), "host_changed" [user_id, name], "cpu_added"
    [level, name], "kicked" [user_id, name], "taken_over" [user_id, name, reason: "timeouts" | "left" |
    "kicked", level], "started" [round_number, seats], "round_started" [round_number, dealer, round_token],
    "auto_drew" [count] (the referee drew for a player with no legal play), "auto_passed", "timed_out"
    [user_id, name, in_a_row, count drawn], "round_result" [round_number, scores, totals, winners],
    "next_round_at" [at: unix seconds], "match_over" [ranking: list of {place, position, name, total,
    user_id}], "closed" [reason: "ended" | "lobby_expired" | "idle" | "finished" | "empty" |
    "channel_gone"].
    Private service events: "taken_over" to the player whose seat a CPU took.

    ``seat`` is the seat position the event is about, when there is one."""

    kind: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    source: Literal["engine", "service"] = "service"


@dataclass(frozen=True, slots=True)
class SeatView:
    position: int
    user_id: int | None  # None for a CPU seat; a person's seat taken over keeps the person's id
    name: str
    is_host: bool
    is_cpu: bool  # a CPU plays this seat (a CPU seat, or a person's seat taken over)
    cpu_level: str | None
    taken_over: bool  # a person's seat played by a CPU (the person can take it back with join)
    card_count: int | None  # None before the first deal
    total: int  # match total so far
    last_round_score: int | None  # score of the last finished round
    to_act: bool
    timeouts_in_a_row: int


@dataclass(frozen=True, slots=True)
class RankingLine:
    place: int  # 1 = best; ties share a place
    position: int
    name: str
    total: int
    user_id: int | None


@dataclass(frozen=True, slots=True)
class SideLine:
    """A partnership side in the standings: its seats, their names, its total and place (ties share)."""

    place: int
    positions: tuple[int, ...]
    names: tuple[str, ...]
    total: int


@dataclass(frozen=True, slots=True)
class HouseOption:
    """One house rule as the lobby's controls offer it: ``values`` are (value, label) pairs to pick from
    (at most 25); ``typed`` options also take a typed value (a number, ranks, rank:number pairs)."""

    key: str
    label: str
    help: str
    typed: bool
    current: str
    described: str  # the current value in words
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """Everything the public board shows. No hand contents."""

    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: Literal["lobby", "playing", "finished", "abandoned"]
    phase: Phase
    preset: str
    target_score: int | None  # the match's target total, when the ruleset has one
    max_seats: int  # the most seats the table offers
    turn_timeout: float
    auto_draw: bool
    next_round_pause: float
    seats: tuple[SeatView, ...]
    round_number: int  # 0 in the lobby
    round_token: str  # buttons carry it; a stale one is refused with "This button has expired."
    target_card: str | None  # code of the top of the discard
    declared_suit: str | None  # suit code, when a wild's suit is active
    direction: int  # +1 in seat order, -1 reversed
    pending_draw: int
    stock_size: int
    to_act: int | None  # seat position
    deadline: (
        float | None
    )  # Unix seconds: turn timeout, next-round pause end or lobby expiry (see deadline_kind)
    deadline_kind: Literal["turn", "pause", "lobby"] | None
    totals: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]  # one tuple per finished round
    recent: tuple[TableEvent, ...]  # the last few public events (plays etc.), oldest first
    ranking: tuple[RankingLine, ...]  # current standing (final ranking once the match is over)
    board_message_id: int | None
    has_last_card: bool = False  # the ruleset has "last card" (the hand shows Last card / Catch controls)
    last_card_open: int | None = None  # the seat whose uncalled last card may be caught now (Catch offered)
    house_rules: tuple[str, ...] = ()  # what the table's rules change from the preset, in words
    match_end: str = ""  # how the match ends, in words (``match_end_text``: "until a total passes 100; …")
    partnership: bool = False  # four players in two sides: seats 1 and 3, 2 and 4 (positions 0/2, 1/3)
    teams: bool = False  # crazier-abilities with teams: two teams seated alternately, 4 or 6 players
    side_ranking: tuple[SideLine, ...] = ()  # partnership: the standing by side, best first
    crazier: CrazierBoard | None = None  # crazier-abilities: what its board shows besides the seats
    #: The table's ruleset (None for crazier-abilities): the house rules and match end are worded from it
    #: when rendered, in the language of whoever reads them (``house_rules``/``match_end`` are English).
    ruleset: Ruleset | None = None
    #: The fewest seats with which Start deals (at least 2; the rules' minimum players, 4 in a partnership
    #: or a team game): the lobby asks for ``min_seats``–``max_seats``.
    min_seats: int = 2

    def house_rules_words(self) -> tuple[str, ...]:
        """What the table's rules change from the preset, in the language in force."""
        if self.ruleset is not None:
            return house_rules_words(self.ruleset, current_locale())
        return self.house_rules

    def match_end_words(self) -> str:
        """How the match ends, in the language in force."""
        if self.ruleset is not None:
            return match_end_text(self.ruleset)
        if self.crazier is not None and self.target_score is not None:
            return _("until a total passes {target}; lowest total wins", target=self.target_score)
        return self.match_end

    @property
    def open(self) -> bool:
        return self.status in ("lobby", "playing")

    def seat_of(self, user_id: int) -> SeatView | None:
        for seat in self.seats:
            if seat.user_id == user_id:
                return seat
        return None

    def positions_to_act(self) -> tuple[int, ...]:
        """Who may move now: ``to_act``, or with Crazier Eights teams every member who may (the one owing a
        choice first)."""
        if self.phase != "playing" or self.to_act is None:
            return ()
        if self.crazier is not None and self.crazier.acting:
            return tuple(self.crazier.acting)
        return (self.to_act,)

    def people_to_act(self) -> tuple[int, ...]:
        """The user ids of the people (not CPU seats) among ``positions_to_act``, in that order."""
        people = []
        for position in self.positions_to_act():
            seat = next((s for s in self.seats if s.position == position), None)
            if seat is not None and seat.user_id is not None and not seat.is_cpu:
                people.append(seat.user_id)
        return tuple(people)

    def name_at(self, position: int) -> str:
        """The name of the player in a seat, as given (not escaped for Markdown)."""
        for seat in self.seats:
            if seat.position == position:
                return seat.name
        return _("seat {seat}", seat=position + 1)


@dataclass(frozen=True, slots=True)
class AbilityCard:
    """A crazier-abilities card as text: code "9B", label "9B Death (blue ☾)", name "Death", its ability."""

    code: str
    label: str
    name: str
    ability: str


@dataclass(frozen=True, slots=True)
class CrazierBoard:
    """What a crazier-abilities board shows besides the seats: the top card and the colours to follow, the
    draw pile's size, each seat's cards in play, who is still in the game, who acts now."""

    top: AbilityCard
    follow: tuple[str, ...]  # colour names ("blue"), one or two (an Ace on top)
    draw_size: int
    in_play: tuple[tuple[AbilityCard, ...], ...]  # by seat position
    alive: tuple[bool, ...]
    acting: tuple[int, ...]  # seats that may act now (a team: several)
    teams: bool


@dataclass(frozen=True, slots=True)
class ChoiceOption:
    """One answer a select offers: ``value`` goes back in ``Intent.option`` (or ``target``)."""

    value: str
    label: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class HandAbilityCard:
    card: AbilityCard
    can_discard: bool  # a matching card, and a discard is left this turn
    needs_colour: bool  # an 8 that names a colour when discarded
    can_play: bool  # playable for its effect now (an event or asset with a valid choice)
    # The effect's choice: "player" or "card" with its options, or "" when it asks for nothing.
    effect_choice: str
    effect_options: tuple[ChoiceOption, ...]


@dataclass(frozen=True, slots=True)
class PendingChoice:
    """A beginning-of-turn ability waiting for this player: ``kind`` order | player | card | look."""

    kind: str
    prompt: str
    options: tuple[ChoiceOption, ...]


@dataclass(frozen=True, slots=True)
class CrazierHand:
    cards: tuple[HandAbilityCard, ...]
    can_end: bool
    choice: PendingChoice | None
    discards_left: int


@dataclass(frozen=True, slots=True)
class UntoldLine:
    """A line a process was sending when it stopped: it tells the moves of versions ``first``..``last``, and
    ``attempt`` is the delivery's own note of it (what it sent, how), written before it was sent. Discord
    may or may not have accepted it: the delivery finds out before telling anything newer."""

    first: int
    last: int
    attempt: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a use case, or of something that happened on its own (pushed to the listener).

    ``public_events``: what everyone may see, in order. ``private_events``: user id → events only that user
    may see (cards drawn, the deal, "taken_over"). Several automatic moves may be gathered into one Outcome;
    its snapshot is the table's state when it was delivered."""

    snapshot: TableSnapshot
    public_events: tuple[TableEvent, ...] = ()
    private_events: Mapping[int, tuple[TableEvent, ...]] = field(default_factory=dict)
    # The state version of the last committed move it tells (0: none, e.g. a table just opened): once its
    # public events are told, the store's outbox is marked up to it.
    version: int = 0
    # Only in what a restarted process tells of the moves its predecessor committed and did not tell: the
    # line that was being sent when it stopped, if any (told first, before ``public_events``).
    resumed: UntoldLine | None = None

    @property
    def table_id(self) -> int:
        return self.snapshot.table_id

    @property
    def closed(self) -> bool:
        return not self.snapshot.open


@dataclass(frozen=True, slots=True)
class HandCard:
    code: str  # "KH"
    label: str  # "K♥"
    name: str  # "King of Hearts"
    playable: bool  # a legal play now
    # A wild: the player names a suit with it, either in the same step (Intent.play(card, suit)) or right
    # after (the hand then shows ``must_name_suit``). Played as a last card, no suit is needed: a suit sent
    # along is ignored then.
    wild: bool


@dataclass(frozen=True, slots=True)
class HandView:
    """One player's private view: the hand sorted by suit then rank, and every control that is legal now."""

    table_id: int
    # What the hand's controls carry and ``act`` checks: ``table:round:situation`` (bot.service.situation).
    round_token: str
    position: int
    cards: tuple[HandCard, ...]
    your_turn: bool
    can_draw: bool
    can_pass: bool
    must_name_suit: bool  # the player played a wild and must now pick a suit (suit picker)
    can_call_last: bool
    catch_targets: tuple[int, ...]  # seat positions this player may catch now
    taken_over: bool  # a CPU plays this seat; join takes it back
    deadline: float | None  # the turn timeout, when it is this player's turn
    recent_private: tuple[TableEvent, ...]  # the player's own latest private events (e.g. cards just drawn)
    snapshot: TableSnapshot
    crazier: CrazierHand | None = None  # crazier-abilities: the hand's cards with abilities, the choices
    # In a same-rank run (house rule): more cards of that rank, or pass; a pending draw is the next player's.
    in_run: bool = False
    # Switch's jack: on this player's turn, the rank code ("J") they must answer with, or pass and miss the
    # turn; None otherwise.
    answer_rank: str | None = None


@dataclass(frozen=True, slots=True)
class CardDisplay:
    """How a server shows cards (``/eights settings``): the card emojis beside the text, the board picture
    attached to the board message. Both on unless the server turned them off. ``language``: the catalogue
    its public text (boards, lines, rankings, the lobby) is written in; None follows the server's language in
    Discord (an interaction's ``guild_locale``)."""

    card_emojis: bool = True
    board_picture: bool = True
    language: str | None = None


@dataclass(frozen=True, slots=True)
class CardChoice:
    """One autocomplete choice for /eights play: ``value`` is the card code to send back."""

    value: str
    label: str  # e.g. "K♥ King of Hearts"


class TableListener(Protocol):
    """Implemented by the Discord layer: outcomes that happen on their own (CPU moves, timeouts, the next
    round starting, lobby expiry, idle abandonment) are pushed here. Exceptions raised here are logged and
    ignored."""

    async def on_outcome(self, outcome: Outcome) -> None: ...


class NullListener:
    async def on_outcome(self, outcome: Outcome) -> None:
        return None
