"""crazier-abilities as text: the public lines that tell every effect as it happens ("Ana played Death: Ben's
Castle is destroyed", "Angel of Hope: Ben draws a card", "Mordred: Cleo loses the game"), the board's fields
(the top card and the colour to follow, the draw pile, each player's cards in play with what they do) and
the private hand (each card with its name and ability, what may be done now, the choice waiting).

``bot.ui.render`` hands a table of this game here (its snapshot carries ``crazier``). Cards are written as
text (code, name, colours); with ``faces`` holding the bot's emojis (``CardFaces``), each card and colour also
shows its face or badge beside the text, which stays for screen readers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import discord

from bot.engine.crazier import DECK, card_label
from bot.engine.crazier.abilities import ABILITIES, CARD, PLAYER
from bot.engine.crazier.deck import COLOUR_NAMES, row_of
from bot.i18n import N_, _, ngettext
from bot.service.models import AbilityCard, HandView, Outcome, TableEvent, TableSnapshot
from bot.ui.crazier_picture import colour_code, discard_size
from bot.ui.faces import TEXT, CardFaces, Note, note_text
from bot.ui.names import shown_name

MAX_CONTENT = 2000
MAX_FIELD = 1024

#: Events that tell what a card played for its effect, or an ability, did: they continue its line.
_CONSEQUENCES = frozenset(
    {
        "destroyed",
        "took_control",
        "resurrected",
        "no_effect",
        "lost",
        "draw_prevented",
        "looked",
        "moved_to_bottom",
        "kept_on_top",
        "reshuffled",
    }
)
_CARDS = frozenset(DECK)
#: The beginning-of-turn abilities that ask their controller for a player or a card in play: their heading
#: alone says only that the choice is waiting.
_ASKING = frozenset(
    key
    for key, ability in ABILITIES.items()
    if ability.trigger is not None and ability.choice in (PLAYER, CARD)
)
_REASONS = {
    "out": N_("out of cards"),
    "impossible_draw": N_("no card could be drawn: fewest cards wins"),
    "last_standing": N_("the last player left"),
    "turn_cap": N_("the turn limit: fewest cards wins"),
}


def _name(snapshot: TableSnapshot, seat: object) -> str:
    if not isinstance(seat, int):
        return _("the table")
    return shown_name(snapshot.name_at(seat))


def _cards(count: int) -> str:
    return ngettext("{n} card", "{n} cards", count)


def _name_of(code: str) -> str:
    """The card's name in the current language ("Death")."""
    return _(row_of(code).name)


def _card(code: object, faces: CardFaces = TEXT) -> str:
    return faces.crazier_card(str(code), card_label(str(code)))


def _card_name(code: object, faces: CardFaces = TEXT) -> str:
    """A named card by its name alone ("Death"): the name says what it does; its colour does not matter."""
    row = row_of(str(code))
    return faces.crazier_card(str(code), _(row.name) if row.key is not None else card_label(str(code)))


def _colour(code: str, faces: CardFaces) -> str:
    """A colour by its code ("B"): "blue", with its badge beside it when ``faces`` has emojis."""
    return faces.crazier_colour(code, _(COLOUR_NAMES[code])) if code in COLOUR_NAMES else code


def describe(event: TableEvent, snapshot: TableSnapshot, faces: CardFaces = TEXT) -> str | None:
    """One engine event of this game in words (None: not worth a line, or not one of this game's)."""
    data, kind = event.data, event.kind
    who = _name(snapshot, event.seat)
    if kind == "starter":
        return _("Starter card: {card}", card=_card(data["card"], faces)) + _follow(data.get("follow"), faces)
    if kind == "ability":
        return _name_of(str(data["card"]))
    if kind == "drew":
        count = int(data.get("count", 1))
        if data.get("by") is None:
            return ngettext("{who} drew {n} card", "{who} drew {n} cards", count, who=who)
        return ngettext("{who} draws a card", "{who} draws {n} cards", count, who=who)
    if kind == "draw_prevented":
        return ngettext(
            "{who} draws {n} card fewer (Castle)",
            "{who} draws {n} cards fewer (Castle)",
            int(data.get("count", 1)),
            who=who,
        )
    if kind == "reshuffled":
        return _(
            "the discard pile but its top card was shuffled into a new draw pile ({count})",
            count=data.get("count", 0),
        )
    if kind == "looked":
        return _("{who} looks at the top card of the draw pile", who=who)
    if kind == "moved_to_bottom":
        return _("{who} puts it on the bottom of the draw pile", who=who)
    if kind == "kept_on_top":
        return _("{who} leaves it on top", who=who)
    if kind == "discarded":
        colour = data.get("colour")
        card = _card(data["card"], faces)
        if colour:
            return _(
                "{who} discarded {card} and named {colour}",
                who=who,
                card=card,
                colour=_colour(str(colour), faces),
            )
        return _("{who} discarded {card}", who=who, card=card)
    if kind == "played":
        card = _card_name(data["card"], faces)
        if data.get("kind") == "asset":
            return _("{who} played {card} into play", who=who, card=card)
        return _("{who} played {card}", who=who, card=card)
    if kind == "destroyed":
        return _("{who}'s {card} is destroyed", who=who, card=_card_name(data["card"], faces))
    if kind == "took_control":
        whose = _name(snapshot, data.get("from"))
        return _(
            "{who} takes control of {whose}'s {card}",
            who=who,
            whose=whose,
            card=_card_name(data["card"], faces),
        )
    if kind == "resurrected":
        return _(
            "{moved} goes to the bottom of the draw pile; the top card is now {top}",
            moved=_card(data["moved"], faces),
            top=_card(data["top"], faces),
        ) + _follow([data["follow"]] if data.get("follow") else None, faces)
    if kind == "no_effect":
        return _("nothing happens")
    if kind == "lost":
        return _("{who} loses the game", who=who)
    if kind == "game_over":
        seats = data.get("winners") or []
        winners = _(" and ").join(_name(snapshot, s) for s in seats) or _("nobody")
        reason = str(data.get("reason", ""))
        why = _REASONS.get(reason)
        how = _(why) if why else (_name_of(reason) if reason in DECK else reason)
        return ngettext(
            "Game over: {winners} wins ({how})",
            "Game over: {winners} win ({how})",
            len(seats),
            winners=winners,
            how=how,
        )
    if kind == "round_started":
        return _("Game {number} dealt", number=data.get("round_number", snapshot.round_number))
    return None


def _follow(colours: object, faces: CardFaces = TEXT) -> str:
    if isinstance(colours, str):
        colours = [colours]
    if not isinstance(colours, list | tuple) or not colours:
        return ""
    return " " + _("— colour to follow: {colours}", colours="/".join(_colour(str(c), faces) for c in colours))


#: Events of this game that are the service's or the standard game's too, told by ``bot.ui.render``.
OWN_KINDS = frozenset(
    {
        "starter",
        "ability",
        "drew",
        "draw_prevented",
        "reshuffled",
        "looked",
        "moved_to_bottom",
        "kept_on_top",
        "discarded",
        "played",
        "destroyed",
        "took_control",
        "resurrected",
        "no_effect",
        "lost",
        "game_over",
        "round_started",
        "turn",
        "ordered",
        "turn_ended",
        "dealt",
        "drew_cards",
        "looked_card",
    }
)


def event_lines(
    events: Iterable[TableEvent],
    snapshot: TableSnapshot,
    fallback: Callable[[TableEvent, TableSnapshot], str | None],
    faces: CardFaces = TEXT,
) -> list[str]:
    """The events in words, an effect and what it did on one line ("Ana played Death: Ben's Castle is
    destroyed"). ``fallback(event, snapshot)`` tells the service's events.

    A beginning-of-turn ability that waits for its controller's choice (Devious Dragon, Angel of Hope) is told
    once it is answered, whoever answers (a person, a CPU, the referee) and whenever (in a later move, a later
    message): what it did names its card ("Devious Dragon: Ben's Castle is destroyed"), so its heading alone,
    with nothing done yet, is not told ("Devious Dragon" and later "Ben's Castle is destroyed" would say
    neither what is waiting nor why)."""
    lines: list[str] = []
    open_line: list[str] = []  # the effect or ability whose consequences are being told
    open_card = ""  # that line's card
    waiting = False  # whether that line is an ability's heading that waits for a choice

    def close() -> None:
        if open_line:
            head, *rest = open_line
            if rest or not waiting:
                lines.append(head + (": " + "; ".join(rest) if rest else ""))
            open_line.clear()

    def open_with(head: str, card: str, asks: bool) -> None:
        nonlocal open_card, waiting
        close()
        open_line.append(head)
        open_card, waiting = card, asks

    events = list(events)
    for index, event in enumerate(events):
        kind = event.kind
        if kind not in OWN_KINDS:
            close()
            line = fallback(event, snapshot)
            if line:
                lines.append(line)
            continue
        text = describe(event, snapshot, faces)
        if kind in ("played", "ability"):
            close()
            if text:
                card = str(event.data.get("card"))
                open_with(text, card, kind == "ability" and card in _CARDS and row_of(card).key in _ASKING)
            continue
        if _consequence(event, events[index + 1] if index + 1 < len(events) else None):
            source = _source(event)
            if source is not None and (not open_line or open_card != source):
                # What an ability did once its controller chose, told apart from its heading: its card's name
                # heads the line again.
                open_with(_name_of(source), source, False)
            if open_line:
                if text:
                    open_line.append(text)
                continue
        close()
        if text:
            lines.append(_sentence(text, snapshot))
    close()
    return lines


def _consequence(event: TableEvent, following: TableEvent | None) -> bool:
    """Whether ``event`` is something the effect or ability being told did. A reshuffle is only when what
    it made room for is: a draw a card caused, or a look (the turn's own draw reshuffles on its own)."""
    if event.kind == "drew":
        return event.data.get("by") is not None
    if event.kind == "reshuffled":
        return following is not None and (
            following.kind == "looked" or (following.kind == "drew" and following.data.get("by") is not None)
        )
    return event.kind in _CONSEQUENCES


def _source(event: TableEvent) -> str | None:
    """The card whose effect or ability ``event`` is part of, when the event names it (a draw, a destroyed
    card, a kept or moved card by its ``by``; nothing happening by its card; a loss by its reason)."""
    data = event.data
    code = (
        data.get("card")
        if event.kind == "no_effect"
        else data.get("reason" if event.kind == "lost" else "by")
    )
    return code if isinstance(code, str) and code in _CARDS else None


def _sentence(text: str, snapshot: TableSnapshot) -> str:
    """``text`` as a line of its own: a capital first letter, unless it begins with a player's name, which is
    shown as the player wrote it ("alice" stays "alice", and is not another player's "Alice")."""
    if any(text.startswith(_name(snapshot, seat.position)) for seat in snapshot.seats):
        return text
    return text[0].upper() + text[1:]


# --- the board ----------------------------------------------------------------------------------------------


def _top_text(snapshot: TableSnapshot, faces: CardFaces) -> str:
    """The top card and the colour(s) to follow ("AB (blue ☾/green ☥) — colour to follow: blue/green")."""
    board = snapshot.crazier
    assert board is not None
    follow = "/".join(_colour(colour_code(name) or name, faces) for name in board.follow)
    top = faces.crazier_card(board.top.code, card_label(board.top.code))
    return _("{card} — colour to follow: {colours}", card=top, colours=follow)


def _in_play_text(cards: tuple[AbilityCard, ...], faces: CardFaces) -> str:
    text = "\n".join(
        f"• {faces.crazier_card(c.code, f'**{_name_of(c.code)}**')} ({c.code}): {_(row_of(c.code).ability)}"
        for c in cards
    )
    # Too long with the emojis: text only, so that the clip never cuts an emoji's markup.
    return text if len(text) <= MAX_FIELD or not faces.with_emojis else _in_play_text(cards, TEXT)


def board_fields(embed: discord.Embed, snapshot: TableSnapshot, faces: CardFaces = TEXT) -> list[int]:
    """The game's fields while it is played: the top card and the colour to follow, the draw pile, and each
    player's cards in play with what they do. Returns the indices of the "In play" fields, which may lose
    their last lines when the whole board is too long for an embed (``render.board_embed``)."""
    board = snapshot.crazier
    assert board is not None
    in_play: list[int] = []
    embed.add_field(name=_("Top card"), value=_top_text(snapshot, faces), inline=True)
    embed.add_field(name=_("Draw pile"), value=_cards(snapshot.stock_size), inline=True)
    # As the picture shows it: the text board is all a player without the picture has.
    embed.add_field(name=_("Discard pile"), value=_cards(discard_size(snapshot)), inline=True)
    for seat in snapshot.seats:
        cards = board.in_play[seat.position] if seat.position < len(board.in_play) else ()
        alive = board.alive[seat.position] if seat.position < len(board.alive) else True
        if not cards and alive:
            continue
        name = shown_name(seat.name)[:200]
        if not alive:
            embed.add_field(name=f"{name}", value=_("out of this game (lost)"), inline=False)
            continue
        in_play.append(len(embed.fields))
        embed.add_field(
            name=_("In play — {name}", name=name),
            value=_clip(_in_play_text(cards, faces), MAX_FIELD),
            inline=False,
        )
    if board.teams:
        first = " & ".join(shown_name(s.name) for s in snapshot.seats if s.position % 2 == 0)
        second = " & ".join(shown_name(s.name) for s in snapshot.seats if s.position % 2 == 1)
        teams = _("{first} — against — {second}", first=first, second=second)
        embed.add_field(name=_("Teams"), value=_clip(teams, MAX_FIELD), inline=False)
    return in_play


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the private hand ---------------------------------------------------------------------------------------


def hand_content(hand: HandView, note: Note | None, faces: CardFaces = TEXT) -> str:
    """Every card with its name and what it does (✓ may be discarded now, ★ may be played for its effect),
    the top card, what is left to do this turn, and the choice waiting; with ``faces``, each card's emoji
    beside it. Too long, the emojis go first, then the abilities (the selects' descriptions still carry
    each ability), then the note counts the cards drawn instead of listing them."""
    tries = ((True, faces), (True, TEXT), (False, faces)) if faces.with_emojis else ((True, TEXT),)
    for abilities, shown in tries:
        content = _hand_content(hand, note_text(note, shown), abilities=abilities, faces=shown)
        if len(content) <= MAX_CONTENT:
            return content
    content = _hand_content(hand, note_text(note, TEXT), abilities=False, faces=TEXT)
    if len(content) <= MAX_CONTENT:
        return content
    brief = note_text(note, TEXT, brief=True)
    return _clip(_hand_content(hand, brief, abilities=False, faces=TEXT), MAX_CONTENT)


def _hand_content(hand: HandView, note: str | None, *, abilities: bool, faces: CardFaces) -> str:
    c, snapshot = hand.crazier, hand.snapshot
    assert c is not None
    lines: list[str] = [note] if note else []
    lines.append(
        ngettext("**Your hand** ({n} card):", "**Your hand** ({n} cards):", len(c.cards))
        if c.cards
        else _("**Your hand** is empty.")
    )
    for card in c.cards:
        marks = ("✓" if card.can_discard else "") + ("★" if card.can_play else "")
        shown = faces.crazier_card(card.card.code, card_label(card.card.code))
        text = f"• {marks + ' ' if marks else ''}{shown}"
        if abilities:
            text += f" — {_(row_of(card.card.code).ability)}"
        lines.append(text)
    board = snapshot.crazier
    if hand.taken_over:
        lines.append(_("A CPU player is playing your seat. Use /eights join to take it back."))
    elif snapshot.phase != "playing":
        lines.append(
            _("The game is over.") if snapshot.phase == "between_rounds" else _("The game is not running.")
        )
    elif board is not None and not board.alive[hand.position]:
        lines.append(_("You are out of this game; the next one deals you in again."))
    elif c.choice is not None:
        lines.append(_("**Your choice:** {prompt}", prompt=c.choice.prompt))
    elif hand.your_turn and board is not None:
        lines.append(_("**Your turn.** Top card: {top}.", top=_top_text(snapshot, faces)))
        how = _("✓ discard (matching colour or rank, or an 8) · ★ play for its effect · then **End turn**.")
        if c.discards_left > 1:
            how += " " + _("Discards left: {count}.", count=c.discards_left)
        lines.append(how)
        if hand.deadline:
            lines.append(_("Turn ends {when}.", when=f"<t:{int(hand.deadline)}:R>"))
    else:
        lines.append(_("Not your turn."))
    return "\n".join(lines)


def move_note(outcome: Outcome, user_id: int, faces: CardFaces = TEXT, brief: bool = False) -> str | None:
    """What only the mover learns: the cards they drew (``brief``: how many), and the card they looked at."""
    parts: list[str] = []
    drawn: list[str] = []
    for event in outcome.private_events.get(user_id, ()):
        if event.kind == "drew_cards":
            drawn.extend(str(code) for code in event.data.get("cards") or [])
        if event.kind == "looked_card" and event.data.get("card"):
            parts.append(_("The top card of the draw pile is {card}.", card=_card(event.data["card"], faces)))
    if drawn and brief:
        parts.insert(0, ngettext("You drew {n} card.", "You drew {n} cards.", len(drawn)))
    elif drawn:
        parts.insert(0, _("You drew {cards}.", cards=", ".join(_card(code, faces) for code in drawn)))
    return " ".join(parts) or None
