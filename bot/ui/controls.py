"""The table's buttons and selects: persistent components whose custom id carries everything they need.

A custom id reads ``e8:<table>:<round token>:<action>[:<arg>]`` for buttons and ``e8s:…`` for selects, e.g.
``e8:42:42.3.9f1c2a7b5e6d:play:KH`` or ``e8:42::join`` (the service's tokens, "42:3" on the board and
"42:3:9f1c2a7b5e6d" on a hand, are written with dots, as the colon separates the fields). Both classes are
``discord.ui.DynamicItem``s registered with ``bot.add_dynamic_items`` at start-up, so a button posted before a
restart still reaches the new process. The round token lets the service recognise a button of an old round
("This button has expired."); a hand's also names the situation it was shown in, so that the second press of
a double tap is refused ("That move is no longer possible.").

A click is handed to the cog registered under ``COG_NAME`` (``ControlHandler.on_control``); this module only
builds and parses components and lays them out within Discord's limits (5 rows, 5 buttons a row, 25 options a
select). Nothing a click raises leaves ``_dispatch`` (``contain_escaped``): discord.py would log the clicked
item's repr, whose label is a card of a private hand.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import aiohttp
import discord

from bot.engine import card_label, card_title, parse_card
from bot.engine.crazier import PRESET_NAME as CRAZIER
from bot.engine.crazier.deck import DECK as CRAZIER_DECK
from bot.engine.crazier.deck import card_label as crazier_label
from bot.engine.crazier.deck import row_of
from bot.i18n import N_, _, pgettext
from bot.service.models import HandView, TableSnapshot
from bot.ui import routing
from bot.ui.faces import TEXT, CardFaces
from bot.ui.names import plain_name

log = logging.getLogger(__name__)

COG_NAME = "Eights"
MAX_CUSTOM_ID = 100
SELECT_OPTIONS = 25
BUTTONS_PER_ROW = 5
MAX_BUTTON_LABEL = 80
MAX_PLACEHOLDER = 150
MAX_CARD_BUTTONS = 10  # up to two rows of card buttons; more playable cards go into selects
MAX_ROWS = 5  # action rows in a message

_FIELDS = r"(?P<table>\d+):(?P<token>[\w.-]*):(?P<action>[a-z]+)(?::(?P<arg>\w+))?"
BUTTON_TEMPLATE = re.compile(r"e8:" + _FIELDS)
SELECT_TEMPLATE = re.compile(r"e8s:" + _FIELDS)
# A form (modal) the bot opened: its submission is routed by this id (``modal_control``), not by a modal
# object kept in memory, so that a form opened before a restart is still answered after it.
MODAL_TEMPLATE = re.compile(r"e8m:" + _FIELDS)
MODAL_INPUT = "value"  # the custom id of a form's text input

# Board actions (public message) and hand actions (ephemeral message).
JOIN, LEAVE, CPU, START, HAND, NEXT = "join", "leave", "cpu", "start", "hand", "next"
PLAY, DRAW, PASS, SUIT, LAST, CATCH = "play", "draw", "pass", "suit", "last", "catch"
# crazier-abilities' hand: discard (a select: card, or card/colour for an 8), play for its effect (a select:
# card, card/t<seat> or card/c<card in play>), answer the choice waiting (a select), end the turn.
DISCARD, EFFECT, CHOOSE, END_TURN = "disc", "eff", "pick", "endt"
CRAZIER_ACTIONS = frozenset({DISCARD, EFFECT, CHOOSE, END_TURN})
COLOURS = (
    ("B", N_("blue"), "☾"),
    ("G", N_("green"), "☥"),
    ("O", N_("orange"), "☀"),
    ("P", N_("purple"), "👁"),
)
# House rules (lobby, private panel): open the panel, pick an option, pick a value, type a value.
HOUSE, HOUSE_OPTION, HOUSE_VALUE, HOUSE_TYPE = "house", "hopt", "hval", "htype"
HOUSE_ACTIONS = frozenset({HOUSE, HOUSE_OPTION, HOUSE_VALUE, HOUSE_TYPE})
SUIT_CODES = ("C", "D", "H", "S")


def cpu_seats(snapshot: TableSnapshot) -> int:
    """The table's CPU seats (not people's seats a CPU took over)."""
    return sum(1 for seat in snapshot.seats if seat.user_id is None)


def suit_label(code: str) -> str:
    """ "♣ Clubs" in the current language: the one wording (bot.ui.faces)."""
    return TEXT.suit(code)


@dataclass(frozen=True, slots=True)
class Control:
    """What a component asks for, read back from its custom id."""

    table_id: int
    token: str
    action: str
    arg: str | None = None

    def custom_id(self, *, select: bool = False, modal: bool = False) -> str:
        token = self.token.replace(":", ".")
        prefix = "e8m" if modal else "e8s" if select else "e8"
        text = f"{prefix}:{self.table_id}:{token}:{self.action}"
        if self.arg is not None:
            text += f":{self.arg}"
        template = MODAL_TEMPLATE if modal else SELECT_TEMPLATE if select else BUTTON_TEMPLATE
        if len(text) > MAX_CUSTOM_ID or not template.fullmatch(text):
            raise ValueError(f"not a valid control id: {text!r}")
        return text

    @classmethod
    def parse(cls, custom_id: str) -> Control | None:
        match = BUTTON_TEMPLATE.fullmatch(custom_id) or SELECT_TEMPLATE.fullmatch(custom_id)
        return cls.from_match(match) if match else None

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Control:
        return cls(int(match["table"]), match["token"].replace(".", ":"), match["action"], match["arg"])


def modal_control(interaction: discord.Interaction) -> tuple[Control, list[str]] | None:
    """A submitted form of the bot's (``e8m:…``): the control it carries and the text typed in it; None for
    any other interaction."""
    if interaction.type is not discord.InteractionType.modal_submit or not isinstance(interaction.data, dict):
        return None
    match = MODAL_TEMPLATE.fullmatch(str(interaction.data.get("custom_id", "")))
    if match is None:
        return None
    data: dict[str, Any] = dict(interaction.data)
    typed: list[str] = []
    rows: list[Any] = list(data.get("components") or [])
    for row in rows:
        # An action row holds its inputs in "components"; a label (Discord's newer layout) in "component".
        children = row.get("components") or ([row["component"]] if row.get("component") else [])
        typed.extend(
            str(child.get("value") or "") for child in children if child.get("custom_id") == MODAL_INPUT
        )
    return Control.from_match(match), typed


# Every custom id of the bot's components and forms begins with one of these: the table's (``e8:``, ``e8s:``,
# ``e8m:``) and the other features' (``eights-replay:``, ``eights-lb:``, ``eights-forget:`` ...).
OWN_PREFIXES = ("e8:", "e8s:", "e8m:", "eights-")


def unclaimed(interaction: discord.Interaction[Any]) -> bool:
    """A click or a form of the bot's (its custom id has one of ``OWN_PREFIXES``) that nothing will answer: a
    form that ``MODAL_TEMPLATE`` does not match, or a component whose id no registered ``DynamicItem``'s
    template matches (a tampered client's ``e8:1::JOIN``, ``e8:-1::join``, ``eights-forget:-1:no``).
    discord.py drops those silently, and the user would see "This interaction failed".

    The templates are those discord.py itself matches the id against (its view store), so that an id it
    hands to an item is never answered twice; if they cannot be read, nothing is taken as unclaimed."""
    data = interaction.data
    if not isinstance(data, dict):
        return False
    custom_id = str(data.get("custom_id", ""))
    if not custom_id.startswith(OWN_PREFIXES):
        return False
    if interaction.type is discord.InteractionType.modal_submit:
        return MODAL_TEMPLATE.fullmatch(custom_id) is None
    if interaction.type is not discord.InteractionType.component:
        return False
    store = getattr(getattr(interaction.client, "_connection", None), "_view_store", None)
    templates = getattr(store, "_dynamic_items", None)
    if not isinstance(templates, dict):
        return False
    return not any(isinstance(t, re.Pattern) and t.fullmatch(custom_id) for t in templates)


@runtime_checkable
class ControlHandler(Protocol):
    async def on_control(
        self, interaction: discord.Interaction, control: Control, values: list[str]
    ) -> None: ...


# An answer that did not reach Discord: Discord refused or failed it (``discord.HTTPException``), or the
# network did (aiohttp's errors, ServerDisconnectedError and ClientOSError among them, which discord.py raises
# as they are once its own retries are spent; a socket's OSError; a request that timed out, asyncio's
# TimeoutError, which is the builtin one).
ANSWER_FAILURES: tuple[type[Exception], ...] = (
    discord.HTTPException,
    aiohttp.ClientError,
    OSError,
    TimeoutError,
)
ESCAPED = N_("Something went wrong (ref {ref}).")


def error_reference() -> str:
    """The short reference an unexpected error is logged with and its user is shown."""
    return uuid.uuid4().hex[:8]


def failure_summary(error: BaseException) -> str:
    """An answer's failure in a few words, for a WARNING line without a traceback: Discord's status and error
    code, or the network error's kind and text (aiohttp's name the host, never what was being sent)."""
    if isinstance(error, discord.HTTPException):
        return f"{type(error).__name__} {error.status} ({error.code})"  # e.g. "HTTPException 503 (0)"
    text = str(error)
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


async def contain_escaped(interaction: discord.Interaction, where: str, handling: Awaitable[None]) -> None:
    """Await ``handling`` (a click's or a form's handler); whatever it raises stops here, as discord.py
    would log it with the item's repr (a hand's button or select names its card) and no reference.

    The handlers answer their own errors (``bot.exts._group``), so what reaches this is an answer that failed
    (``ANSWER_FAILURES``: Discord or the network gone), logged as a WARNING without a traceback (no bug of the
    bot's; the traceback would carry along the error being answered), or a bug, logged with a reference and
    its traceback and, if nothing was answered yet, the reference told to the user. ``where`` names the
    control's action, never its argument (a card). ``asyncio.CancelledError`` goes on."""
    try:
        await handling
    except Exception as error:
        ref = error_reference()
        if isinstance(error, ANSWER_FAILURES):
            log.warning(
                "interaction %s (%s) could not be answered (ref %s): %s",
                interaction.id,
                where,
                ref,
                failure_summary(error),
            )
            return
        log.error("unexpected error in %s (ref %s)", where, ref, exc_info=error)
        try:
            if not interaction.response.is_done():
                await interaction.response.send_message(_(ESCAPED, ref=ref), ephemeral=True)
        except Exception as failure:  # (nothing more to do: it must not reach discord.py either)
            log.warning("could not tell the user about error ref %s: %s", ref, failure_summary(failure))


async def _dispatch(
    item: discord.ui.Item[Any], interaction: discord.Interaction, control: Control, values: list[str]
) -> None:
    try:
        await contain_escaped(interaction, f"control {control.action}", _handle(interaction, control, values))
    finally:
        # discord.py rebuilt the clicked message's whole view to find this item (``View.from_message``);
        # nothing uses it once the callback is done.
        release(item.view)


async def _handle(interaction: discord.Interaction, control: Control, values: list[str]) -> None:
    found = await routing.handler(interaction, COG_NAME, ControlHandler)  # type: ignore[type-abstract]
    if found is not None:
        await found.on_control(interaction, control, values)


def release(view: object) -> None:
    """Let go of a view the bot is done with (anything else, None included, is left as it is): a view it
    sent (our components are persistent dynamic items, found by their custom ids, so the object is not
    needed after sending; discord.py would give a view sent in an ephemeral message a 15-minute timeout
    task, holding its buttons in memory that long), or the one discord.py rebuilt from a clicked message.
    Its items are let go too: a view and its items refer to each other, so every view (a hand's: about 25
    objects) waited for the cyclic garbage collector; without the cycle it is freed as soon as it is
    dropped."""
    if isinstance(view, discord.ui.View):
        view.stop()
        view.clear_items()


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    def __init__(self, button: discord.ui.Button[Any], control: Control) -> None:
        super().__init__(button)
        self.control = control

    @classmethod
    def make(
        cls,
        control: Control,
        label: str,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
        emoji: discord.PartialEmoji | None = None,
    ) -> TableButton:
        # Discord's limit, whatever a translation's length: 80 characters.
        label = label if len(label) <= MAX_BUTTON_LABEL else label[: MAX_BUTTON_LABEL - 1] + "…"
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=style, custom_id=control.custom_id(), row=row, emoji=emoji
        )
        return cls(button, control)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableButton:
        if not isinstance(item, discord.ui.Button):
            raise TypeError("a table button id on something that is not a button")
        return cls(item, Control.from_match(match))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _dispatch(self, interaction, self.control, [])


class TableSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE):
    def __init__(self, select: discord.ui.Select[Any], control: Control) -> None:
        super().__init__(select)
        self.control = control

    @classmethod
    def make(
        cls,
        control: Control,
        options: list[discord.SelectOption],
        *,
        placeholder: str,
        row: int | None = None,
    ) -> TableSelect:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=control.custom_id(select=True),
            options=options,
            placeholder=_clip(placeholder, MAX_PLACEHOLDER),
            row=row,
        )
        return cls(select, control)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableSelect:
        if not isinstance(item, discord.ui.Select):
            raise TypeError("a table select id on something that is not a select")
        return cls(item, Control.from_match(match))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _dispatch(self, interaction, self.control, list(self.item.values))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (TableButton, TableSelect)


# --- layouts ------------------------------------------------------------------------------------------------


def board_view(snapshot: TableSnapshot) -> discord.ui.View | None:
    """The board's buttons for the table's phase; None when the table is over (the buttons are removed)."""
    table, token = snapshot.table_id, snapshot.round_token
    green, grey, blue = (
        discord.ButtonStyle.success,
        discord.ButtonStyle.secondary,
        discord.ButtonStyle.primary,
    )
    buttons: list[TableButton] = []
    if snapshot.phase == "lobby":
        buttons = [
            TableButton.make(Control(table, "", JOIN), pgettext("button", "Join"), style=green),
            TableButton.make(Control(table, "", LEAVE), pgettext("button", "Leave"), style=grey),
            # The CPU players it was pressed beside: a double tap adds one, not two.
            TableButton.make(
                Control(table, "", CPU, str(cpu_seats(snapshot))), pgettext("button", "Add CPU"), style=blue
            ),
            TableButton.make(Control(table, "", START), pgettext("button", "Start"), style=green),
        ]
        if snapshot.preset != CRAZIER:  # (crazier-abilities has no house rules)
            buttons.append(
                TableButton.make(Control(table, "", HOUSE), pgettext("button", "House rules"), style=grey)
            )
    elif snapshot.phase == "playing":
        buttons = [TableButton.make(Control(table, token, HAND), pgettext("button", "My hand"), style=blue)]
        if any(seat.taken_over for seat in snapshot.seats):
            buttons.append(
                TableButton.make(
                    Control(table, "", JOIN), pgettext("button", "Take my seat back"), style=grey
                )
            )
        buttons.append(TableButton.make(Control(table, "", LEAVE), pgettext("button", "Leave"), style=grey))
    elif snapshot.phase == "between_rounds":
        buttons = [
            TableButton.make(Control(table, token, NEXT), pgettext("button", "Next round"), style=green),
            TableButton.make(Control(table, token, HAND), pgettext("button", "My hand"), style=blue),
        ]
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


def _card_option(code: str, *, wild: bool, copies: int, faces: CardFaces) -> discord.SelectOption:
    card = parse_card(code)
    name = card_title(card)
    if copies > 1:
        name += f" (×{copies})"
    description = _("Wild: name a suit after playing it") if wild else None
    return discord.SelectOption(label=name, value=code, description=description, emoji=faces.card_emoji(code))


def hand_view(hand: HandView, faces: CardFaces = TEXT) -> discord.ui.View | None:
    """The controls of one player's hand: one per legal action, within 5 rows.

    Layout: a suit picker when a suit must be named; otherwise the playable cards (as buttons up to ten, else
    as selects of 25), then Draw / Pass / Last card / Catch. Every distinct playable card gets a control, so a
    hand of any size stays playable (52 distinct cards at most: three selects). With ``faces`` holding the
    card emojis, each card and suit control shows its emoji beside the text label."""
    table, token = hand.table_id, hand.round_token
    rows: list[list[discord.ui.Item[Any]]] = []
    if hand.taken_over or hand.snapshot.phase != "playing":
        return None
    if hand.crazier is not None:
        return _crazier_hand_view(hand, faces)
    if hand.must_name_suit:
        rows.append(
            [
                TableButton.make(
                    Control(table, token, SUIT, code),
                    suit_label(code),
                    style=discord.ButtonStyle.primary,
                    emoji=faces.suit_emoji(code),
                )
                for code in SUIT_CODES
            ]
        )
    elif hand.your_turn:
        distinct: dict[str, tuple[bool, int]] = {}
        for card in hand.cards:
            if card.playable:
                wild, copies = distinct.get(card.code, (card.wild, 0))
                distinct[card.code] = (wild or card.wild, copies + 1)
        codes = list(distinct)
        if len(codes) <= MAX_CARD_BUTTONS:
            buttons: list[discord.ui.Item[Any]] = [
                TableButton.make(
                    Control(table, token, PLAY, code),
                    card_label(parse_card(code)),
                    style=discord.ButtonStyle.primary if distinct[code][0] else discord.ButtonStyle.success,
                    emoji=faces.card_emoji(code),
                )
                for code in codes
            ]
            rows.extend(buttons[i : i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW))
        else:
            for page, start in enumerate(range(0, len(codes), SELECT_OPTIONS)):
                chunk = codes[start : start + SELECT_OPTIONS]
                options = [
                    _card_option(code, wild=distinct[code][0], copies=distinct[code][1], faces=faces)
                    for code in chunk
                ]
                first, last = card_label(parse_card(chunk[0])), card_label(parse_card(chunk[-1]))
                placeholder = (
                    _("Play a card")
                    if len(codes) <= SELECT_OPTIONS
                    else _("Play a card ({first} – {last})", first=first, last=last)
                )
                rows.append(
                    [
                        TableSelect.make(
                            Control(table, token, PLAY, str(page)), options, placeholder=placeholder
                        )
                    ]
                )
    actions: list[discord.ui.Item[Any]] = []
    if hand.can_draw and not hand.must_name_suit:
        actions.append(TableButton.make(Control(table, token, DRAW), pgettext("button", "Draw")))
    if hand.can_pass and not hand.must_name_suit:
        actions.append(TableButton.make(Control(table, token, PASS), pgettext("button", "Pass")))
    if hand.can_call_last:
        actions.append(
            TableButton.make(
                Control(table, token, LAST),
                pgettext("button", "Last card!"),
                style=discord.ButtonStyle.danger,
            )
        )
    for position in hand.catch_targets:
        # Within the label's 80 characters, the isolate (if any) kept whole.
        name = plain_name(hand.snapshot.name_at(position)[:70])
        actions.append(
            TableButton.make(
                Control(table, token, CATCH, str(position)),
                pgettext("button", "Catch {name}", name=name),
                style=discord.ButtonStyle.danger,
            )
        )
    rows.extend(actions[i : i + BUTTONS_PER_ROW] for i in range(0, len(actions), BUTTONS_PER_ROW))
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(rows[:5]):
        for item in row:
            item.row = number
            view.add_item(item)
    return view


def _clip(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _option(
    value: str, label: str, description: str = "", emoji: discord.PartialEmoji | None = None
) -> discord.SelectOption:
    return discord.SelectOption(
        label=_clip(label), value=value, description=_clip(description) or None, emoji=emoji
    )


def _pages(options: list[discord.SelectOption]) -> int:
    return -(-len(options) // SELECT_OPTIONS)


def _selects(
    control: Control, options: list[discord.SelectOption], placeholder: str, pages: int, more: str = ""
) -> list[list[discord.ui.Item[Any]]]:
    """One select a row, 25 options each, at most ``pages`` of them; with several, each placeholder says
    which options it holds ("1–25 of 31"), and ``more`` is added to the last one's when options are left out
    (so that none is missing without a word)."""
    rows: list[list[discord.ui.Item[Any]]] = []
    shown = min(_pages(options), pages)
    for page in range(shown):
        start = page * SELECT_OPTIONS
        chunk = options[start : start + SELECT_OPTIONS]
        text = placeholder
        if shown > 1 or len(options) > len(chunk):
            span = _(
                "{first}–{last} of {count}", first=start + 1, last=start + len(chunk), count=len(options)
            )
            text = f"{placeholder} ({span})"
        if page == shown - 1 and start + len(chunk) < len(options) and more:
            text = f"{text} {more}"
        paged = Control(control.table_id, control.token, control.action, str(page))
        rows.append([TableSelect.make(paged, chunk, placeholder=text)])
    return rows


def _crazier_hand_view(hand: HandView, faces: CardFaces) -> discord.ui.View | None:
    """crazier-abilities: the choice waiting (a select), else a select of the cards to discard (an 8 once
    per colour it may name), a select of the cards to play for their effect (once per choice the effect
    offers: a player, a card in play), and End turn. Each option's description says what the card does;
    with ``faces`` holding the emojis, a card's option shows its face (an option has one emoji)."""
    c = hand.crazier
    assert c is not None
    table, token = hand.table_id, hand.round_token
    rows: list[list[discord.ui.Item[Any]]] = []
    if c.choice is not None:
        # A choice of cards (an order, a card in play) shows their faces; a choice of players, none.
        options = [
            # Labels hold players' names: isolated, as on the catch buttons.
            _option(o.value, plain_name(o.label), o.description, _crazier_emoji(o.value, faces))
            for o in c.choice.options
        ]
        rows += _selects(Control(table, token, CHOOSE), options, _clip(c.choice.prompt, 150), 1)
    elif hand.your_turn:
        discards: list[discord.SelectOption] = []
        effects: list[discord.SelectOption] = []
        for card in c.cards:
            # The card's words in the language in force (the service's view holds the English text).
            code = card.card.code
            label, ability, card_name = crazier_label(code), _(row_of(code).ability), _(row_of(code).name)
            emoji = faces.crazier_card_emoji(card.card.code)
            if card.can_discard and card.needs_colour:
                discards += [
                    _option(
                        f"{code}/{colour}",
                        _("{card}: name {colour}", card=label, colour=f"{_(name)} {symbol}"),
                        ability,
                        emoji,
                    )
                    for colour, name, symbol in COLOURS
                ]
            elif card.can_discard:
                discards.append(_option(code, label, ability, emoji))
            if not card.can_play:
                continue
            if card.effect_choice == "player":
                effects += [
                    _option(f"{code}/t{o.value}", f"{card_name} → {plain_name(o.label)}", ability, emoji)
                    for o in card.effect_options
                ]
            elif card.effect_choice == "card":
                effects += [
                    _option(f"{code}/c{o.value}", f"{card_name} → {plain_name(o.label)}", ability, emoji)
                    for o in card.effect_options
                ]
            else:
                effects.append(_option(code, f"{label}", ability, emoji))
        # Every discard gets an option: at most 42 (an Ace on top: sixteen for the four 8s, one per colour
        # they may name, and 26 matching cards), two selects; the effects have the rows left.
        rows += _selects(Control(table, token, DISCARD), discards, _("Discard a card"), MAX_ROWS)
        left = MAX_ROWS - len(rows) - (1 if c.can_end else 0)
        if _pages(effects) > left:
            effects = _one_event_a_rank(effects)
        rows += _selects(
            Control(table, token, EFFECT),
            effects,
            _("Play a card for its effect"),
            left,
            # Still too many (four Deaths and four Crowns of Kings before twenty cards in play): the
            # typed command plays any of them.
            _("(/eights effect for the others)"),
        )
        if c.can_end:
            rows.append(
                [
                    TableButton.make(
                        Control(table, token, END_TURN),
                        pgettext("button", "End turn"),
                        style=discord.ButtonStyle.danger,
                    )
                ]
            )
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(rows[:5]):
        for item in row:
            item.row = number
            view.add_item(item)
    return view


def _one_event_a_rank(effects: list[discord.SelectOption]) -> list[discord.SelectOption]:
    """The effects with one event of a rank for each choice ("Death → Ben's Castle" once, not once per
    Death held): events of a rank do the same whatever their colour, and go under the discard pile after,
    so which one is played changes nothing that matters. Assets (which stay in play) are kept apart."""
    seen: set[tuple[str, str]] = set()
    kept: list[discord.SelectOption] = []
    for option in effects:
        code, _slash, choice = option.value.partition("/")
        key = (row_of(code).rank, choice)
        if row_of(code).kind == "event":
            if key in seen:
                continue
            seen.add(key)
        kept.append(option)
    return kept


def _crazier_emoji(value: str, faces: CardFaces) -> discord.PartialEmoji | None:
    """The face of a choice's value when it is a card ("9B"); None for a player or "keep"/"move"."""
    return faces.crazier_card_emoji(value) if value in CRAZIER_DECK else None
