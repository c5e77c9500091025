"""crazier-abilities as text: the public lines that tell every effect as it happens ("Ana played Death: Ben's
Castle is destroyed", "Angel of Hope: Ben draws a card", "Mordred: Cleo loses the game"), the board's fields
(the top card and the colour to follow, the draw pile, each player's cards in play with what they do) and
the private hand (each card with its name and ability, what may be done now, the choice waiting).

``bot.ui.render`` hands a table of this game here (its snapshot carries ``crazier``). Cards are written as
text (code, name, colours); the faces are drawn elsewhere and come beside this text later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import discord

from bot.engine.crazier import DECK, card_label
from bot.engine.crazier.deck import COLOUR_NAMES, row_of
from bot.service.models import HandView, Outcome, TableEvent, TableSnapshot
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
_REASONS = {
    "out": "out of cards",
    "impossible_draw": "no card could be drawn: fewest cards wins",
    "last_standing": "the last player left",
    "turn_cap": "the turn limit: fewest cards wins",
}


def _name(snapshot: TableSnapshot, seat: object) -> str:
    if not isinstance(seat, int):
        return "the table"
    return shown_name(snapshot.name_at(seat))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _card(code: object) -> str:
    return card_label(str(code))


def _card_name(code: object) -> str:
    """A named card by its name alone ("Death"): the name says what it does; its colour does not matter."""
    row = row_of(str(code))
    return row.name if row.key is not None else card_label(str(code))


def describe(event: TableEvent, snapshot: TableSnapshot) -> str | None:
    """One engine event of this game in words (None: not worth a line, or not one of this game's)."""
    data, kind = event.data, event.kind
    who = _name(snapshot, event.seat)
    if kind == "starter":
        return f"Starter card: {_card(data['card'])}" + _follow(data.get("follow"))
    if kind == "ability":
        return row_of(str(data["card"])).name
    if kind == "drew":
        count = int(data.get("count", 1))
        if data.get("by") is None:
            return f"{who} drew {_plural(count, 'card')}"
        return f"{who} draws {'a card' if count == 1 else f'{count} cards'}"
    if kind == "draw_prevented":
        return f"{who} draws {_plural(int(data.get('count', 1)), 'card')} fewer (Castle)"
    if kind == "reshuffled":
        return f"the discard pile but its top card was shuffled into a new draw pile ({data.get('count', 0)})"
    if kind == "looked":
        return f"{who} looks at the top card of the draw pile"
    if kind == "moved_to_bottom":
        return f"{who} puts it on the bottom of the draw pile"
    if kind == "kept_on_top":
        return f"{who} leaves it on top"
    if kind == "discarded":
        colour = data.get("colour")
        named = f" and named {COLOUR_NAMES.get(str(colour), colour)}" if colour else ""
        return f"{who} discarded {_card(data['card'])}{named}"
    if kind == "played":
        into = " into play" if data.get("kind") == "asset" else ""
        return f"{who} played {_card_name(data['card'])}{into}"
    if kind == "destroyed":
        return f"{who}'s {_card_name(data['card'])} is destroyed"
    if kind == "took_control":
        return f"{who} takes control of {_name(snapshot, data.get('from'))}'s {_card_name(data['card'])}"
    if kind == "resurrected":
        return (
            f"{_card(data['moved'])} goes to the bottom of the draw pile; the top card is now "
            f"{_card(data['top'])}" + _follow([data["follow"]] if data.get("follow") else None)
        )
    if kind == "no_effect":
        return "nothing happens"
    if kind == "lost":
        return f"{who} loses the game"
    if kind == "game_over":
        winners = " and ".join(_name(snapshot, s) for s in data.get("winners") or []) or "nobody"
        reason = str(data.get("reason", ""))
        how = _REASONS.get(reason) or (row_of(reason).name if reason in DECK else reason)
        return f"Game over: {winners} {'wins' if len(data.get('winners') or []) == 1 else 'win'} ({how})"
    if kind == "round_started":
        return f"Game {data.get('round_number', snapshot.round_number)} dealt"
    return None


def _follow(colours: object) -> str:
    if isinstance(colours, str):
        colours = [colours]
    if not isinstance(colours, list | tuple) or not colours:
        return ""
    return " — colour to follow: " + "/".join(COLOUR_NAMES.get(str(c), str(c)) for c in colours)


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
) -> list[str]:
    """The events in words, an effect and what it did on one line ("Ana played Death: Ben's Castle is
    destroyed"). ``fallback(event, snapshot)`` tells the service's events."""
    lines: list[str] = []
    open_line: list[str] = []  # the effect or ability whose consequences are being told

    def close() -> None:
        if open_line:
            head, *rest = open_line
            lines.append(head + (": " + "; ".join(rest) if rest else ""))
            open_line.clear()

    for event in events:
        kind = event.kind
        if kind not in OWN_KINDS:
            close()
            line = fallback(event, snapshot)
            if line:
                lines.append(line)
            continue
        text = describe(event, snapshot)
        if kind in ("played", "ability"):
            close()
            if text:
                open_line.append(text)
            continue
        consequence = kind in _CONSEQUENCES or (kind == "drew" and event.data.get("by") is not None)
        if consequence and open_line:
            if text:
                open_line.append(text)
            continue
        close()
        if text:
            lines.append(text[0].upper() + text[1:])
    close()
    return lines


# --- the board ----------------------------------------------------------------------------------------------


def board_fields(embed: discord.Embed, snapshot: TableSnapshot) -> None:
    """The game's fields while it is played: the top card and the colour to follow, the draw pile, and each
    player's cards in play with what they do."""
    board = snapshot.crazier
    assert board is not None
    follow = "/".join(board.follow)
    embed.add_field(name="Top card", value=f"{board.top.label} — colour to follow: {follow}", inline=True)
    embed.add_field(name="Draw pile", value=_plural(snapshot.stock_size, "card"), inline=True)
    for seat in snapshot.seats:
        cards = board.in_play[seat.position] if seat.position < len(board.in_play) else ()
        alive = board.alive[seat.position] if seat.position < len(board.alive) else True
        if not cards and alive:
            continue
        name = shown_name(seat.name)[:200]
        if not alive:
            embed.add_field(name=f"{name}", value="out of this game (lost)", inline=False)
            continue
        text = "\n".join(f"• **{c.name}** ({c.code}): {c.ability}" for c in cards)
        embed.add_field(name=f"In play — {name}", value=_clip(text, MAX_FIELD), inline=False)
    if board.teams:
        first = " & ".join(shown_name(s.name) for s in snapshot.seats if s.position % 2 == 0)
        second = " & ".join(shown_name(s.name) for s in snapshot.seats if s.position % 2 == 1)
        embed.add_field(name="Teams", value=_clip(f"{first} — against — {second}", MAX_FIELD), inline=False)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the private hand ---------------------------------------------------------------------------------------


def hand_content(hand: HandView, note: str | None) -> str:
    """Every card with its name and what it does (✓ may be discarded now, ★ may be played for its effect),
    the top card, what is left to do this turn, and the choice waiting. Too long with the abilities, the
    cards are listed by name only (the selects' descriptions still carry each ability)."""
    full = _hand_content(hand, note, abilities=True)
    return (
        full if len(full) <= MAX_CONTENT else _clip(_hand_content(hand, note, abilities=False), MAX_CONTENT)
    )


def _hand_content(hand: HandView, note: str | None, *, abilities: bool) -> str:
    c, snapshot = hand.crazier, hand.snapshot
    assert c is not None
    lines: list[str] = [note] if note else []
    lines.append(
        f"**Your hand** ({_plural(len(c.cards), 'card')}):" if c.cards else "**Your hand** is empty."
    )
    for card in c.cards:
        marks = ("✓" if card.can_discard else "") + ("★" if card.can_play else "")
        text = f"• {marks + ' ' if marks else ''}{card.card.label}"
        if abilities:
            text += f" — {card.card.ability}"
        lines.append(text)
    board = snapshot.crazier
    if hand.taken_over:
        lines.append("A CPU player is playing your seat. Use /eights join to take it back.")
    elif snapshot.phase != "playing":
        lines.append(
            "The game is over." if snapshot.phase == "between_rounds" else "The game is not running."
        )
    elif c.choice is not None:
        lines.append(f"**Your choice:** {c.choice.prompt}")
    elif hand.your_turn and board is not None:
        lines.append(
            f"**Your turn.** Top card: {board.top.label} — colour to follow: {'/'.join(board.follow)}."
        )
        lines.append(
            "✓ discard (matching colour or rank, or an 8) · ★ play for its effect · then **End turn**."
            + (f" Discards left: {c.discards_left}." if c.discards_left > 1 else "")
        )
        if hand.deadline:
            lines.append(f"Turn ends <t:{int(hand.deadline)}:R>.")
    else:
        lines.append("Not your turn.")
    return "\n".join(lines)


def move_note(outcome: Outcome, user_id: int) -> str | None:
    """What only the mover learns: the cards they drew, and the card they looked at."""
    parts: list[str] = []
    drawn: list[str] = []
    for event in outcome.private_events.get(user_id, ()):
        if event.kind == "drew_cards":
            drawn.extend(str(code) for code in event.data.get("cards") or [])
        if event.kind == "looked_card" and event.data.get("card"):
            parts.append(f"The top card of the draw pile is {_card(event.data['card'])}.")
    if drawn:
        parts.insert(0, "You drew " + ", ".join(_card(code) for code in drawn) + ".")
    return " ".join(parts) or None
