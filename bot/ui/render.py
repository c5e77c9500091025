"""Rendering: pure functions from the service's snapshots, events and hand views to Discord text and embeds.

Nothing here sends anything. Public renderings (the board, the turn lines, the final ranking) take only public
data — a ``TableSnapshot`` and public ``TableEvent``s — so a hand cannot leak into them by construction; the
hand is rendered by ``hand_content`` alone, for its owner's ephemeral message.

Cards are written as text with rank and suit symbol ("K♥ 10♠"), which screen readers read; with a
``CardFaces`` that has the bot's card emojis (``bot.ui.faces``), each card and suit also shows its emoji,
beside the text. Whatever would pass one of Discord's length limits with emojis is written as text instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

import discord

from bot.engine import PRESETS, card_label, parse_card, rule_options, rule_wording
from bot.engine.crazier import PRESET_NAME as CRAZIER
from bot.engine.errors import RulesetError
from bot.i18n import N_, _, current_locale, ngettext, pgettext
from bot.service.models import HandView, Outcome, SeatView, TableEvent, TableSnapshot
from bot.ui import crazier_text
from bot.ui.faces import TEXT, CardFaces, Note, note_text
from bot.ui.fitting import shorten_fields
from bot.ui.names import shown_name, visible_or_seat

MAX_CONTENT = 2000
MAX_FIELD = 1024
MAX_EMBED = 6000  # Discord: all of an embed's text together
MAX_LINES = 12  # public lines gathered into one channel message; older ones are summarised
RECENT_PLAYS = 6  # last plays shown on the board

COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_PLAYING = discord.Colour.green()
COLOUR_PAUSE = discord.Colour.gold()
COLOUR_OVER = discord.Colour.dark_grey()

HAND_BUTTON_HINT = N_("press **My hand** on the board to see your cards")


# --- cards and suits ----------------------------------------------------------------------------------------


def label(code: str) -> str:
    """ "KH" -> "K♥"."""
    return card_label(parse_card(code))


# --- names --------------------------------------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seat_name(snapshot: TableSnapshot, position: int | None) -> str:
    if position is None:
        return _("the referee")
    return shown_name(snapshot.name_at(position))


def scoring_sides(snapshot: TableSnapshot) -> list[tuple[int, ...]]:
    """Who scores together, as seat positions in seat order: a partnership's two sides (partners opposite:
    seats 1 and 3, 2 and 4), a Crazier Eights team game's two teams (seated alternately: 1, 3, 5 and 2, 4,
    6), else each seat alone. The members of a side hold its score, which is told once, under all their
    names (``side_names``)."""
    positions = sorted(seat.position for seat in snapshot.seats)
    if snapshot.side_ranking:
        sides = sorted(tuple(p for p in line.positions if p in positions) for line in snapshot.side_ranking)
        return [side for side in sides if side]
    if snapshot.partnership or snapshot.teams:
        sides = [tuple(p for p in positions if p % 2 == parity) for parity in (0, 1)]
        return [side for side in sides if side]
    return [(p,) for p in positions]


def side_names(snapshot: TableSnapshot, side: Sequence[int]) -> str:
    """A side's members by name, "alice & CPU 2" (escaped for Markdown)."""
    return " & ".join(shown_name(snapshot.name_at(p)) for p in side)


def _seat_tag(seat: SeatView) -> str:
    tags: list[str] = []
    if seat.is_host:
        tags.append(_("host"))
    if seat.taken_over:
        tags.append(
            _("CPU plays, {level}", level=cpu_level(seat.cpu_level)) if seat.cpu_level else _("CPU plays")
        )
    elif seat.is_cpu:
        tags.append(_("CPU, {level}", level=cpu_level(seat.cpu_level)) if seat.cpu_level else _("CPU"))
    return f" ({', '.join(tags)})" if tags else ""


#: The CPU levels' names (the service's values are English words).
CPU_LEVELS = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}


def cpu_level(level: str) -> str:
    return _(CPU_LEVELS[level]) if level in CPU_LEVELS else level


def cards_count(count: int) -> str:
    """ "1 card", "3 cards" in the current language."""
    return ngettext("{n} card", "{n} cards", count)


# --- events -------------------------------------------------------------------------------------------------


def describe_event(event: TableEvent, snapshot: TableSnapshot, faces: CardFaces = TEXT) -> str | None:
    """One public event in plain words, or None when it is not worth a line (turn changes, private events)."""
    if snapshot.crazier is not None and event.kind in crazier_text.OWN_KINDS:
        return crazier_text.describe(event, snapshot, faces)
    data = event.data
    who = seat_name(snapshot, event.seat)
    kind = event.kind
    if kind == "played":
        return _("{who} played {card}", who=who, card=faces.card(data["card"]))
    if kind == "suit_named":
        return _("{who} named {suit}", who=who, suit=faces.suit(data["suit"]))
    if kind == "starter":
        buried = data.get("buried") or []
        if buried:
            return _(
                "Starter card: {card} (buried: {buried})",
                card=faces.card(data["card"]),
                buried=faces.cards(buried),
            )
        return _("Starter card: {card}", card=faces.card(data["card"]))
    if kind == "drew":
        return ngettext("{who} drew {n} card", "{who} drew {n} cards", int(data.get("count", 1)), who=who)
    if kind == "passed":
        if data.get("forced"):
            return _("{who} could not play and passed", who=who)
        return _("{who} passed", who=who)
    if kind == "skipped":
        return _("{who} is skipped", who=who)
    if kind == "reversed":
        return _("Direction reversed")
    if kind == "draw_penalty":
        # The cards drawn: fewer than owed when the stock ran out.
        drawn = int(data.get("drawn", data.get("count", 0)))
        return ngettext("{who} takes {n} card owed", "{who} takes {n} cards owed", drawn, who=who)
    if kind == "reshuffled":
        return ngettext(
            "The discard pile was shuffled into the stock ({n} card)",
            "The discard pile was shuffled into the stock ({n} cards)",
            int(data.get("count", 0)),
        )
    if kind == "last_card_called":
        return _("{who}: Last card!", who=who)
    if kind == "last_card_caught":
        target = seat_name(snapshot, data.get("target"))
        return _(
            "{who} caught {target} without a last-card call: {target} draws {count}",
            who=who,
            target=target,
            count=int(data.get("count", 0)),
        )
    if kind == "went_out":
        return _("{who} is out of cards: their partner plays on", who=who)
    if kind == "house_rule":
        return _("House rule: {text}", text=_house_rule_text(data, snapshot))
    if kind == "round_over":
        winners = [seat_name(snapshot, seat) for seat in data.get("winners") or []]
        if not winners:
            return _("Round over")
        names = _(" and ").join(winners)
        reason = str(data.get("reason") or ("blocked" if data.get("blocked") else "out"))
        if reason != "out":
            # Nobody went out: everyone passed ("blocked"), the turn cap, or a draw that could not be made
            # ("no-draw"). The lowest hand wins, or the fewest cards with card-count scoring (RULESETS.md).
            rules = snapshot.ruleset or PRESETS.get(snapshot.preset)
            count = len(winners)
            if rules is not None and rules.scoring == "card-count":
                if reason == "no-draw":
                    return ngettext(
                        "Round over: no card could be drawn; {names} has the fewest cards",
                        "Round over: no card could be drawn; {names} have the fewest cards",
                        count,
                        names=names,
                    )
                if reason == "turn-cap":
                    return ngettext(
                        "Round over: the turn limit; {names} has the fewest cards",
                        "Round over: the turn limit; {names} have the fewest cards",
                        count,
                        names=names,
                    )
                return ngettext(
                    "Round over: blocked; {names} has the fewest cards",
                    "Round over: blocked; {names} have the fewest cards",
                    count,
                    names=names,
                )
            if reason == "no-draw":
                return ngettext(
                    "Round over: no card could be drawn; {names} has the lowest hand",
                    "Round over: no card could be drawn; {names} have the lowest hands",
                    count,
                    names=names,
                )
            if reason == "turn-cap":
                return ngettext(
                    "Round over: the turn limit; {names} has the lowest hand",
                    "Round over: the turn limit; {names} have the lowest hands",
                    count,
                    names=names,
                )
            return _("Round over: {names} blocked, lowest hand wins", names=names)
        # The card they went out with (events stored before it was recorded: the top of the discard, which
        # is that card until the next deal).
        card = data.get("card") or (snapshot.target_card if snapshot.phase != "playing" else None)
        if card:
            return _("Round over: {names} went out with {card}", names=names, card=faces.card(card))
        return _("Round over: {names} went out", names=names)
    # Service events.
    name = shown_name(str(data["name"])) if "name" in data else who
    if kind == "opened":
        preset = preset_name(str(data.get("preset", "classic")))
        return _("{name} opened a table ({preset})", name=name, preset=preset)
    if kind == "joined":
        return _("{name} joined", name=name)
    if kind == "rejoined":
        return _("{name} took their seat back", name=name)
    if kind == "left":
        return _("{name} left", name=name)
    if kind == "host_changed":
        return _("{name} is now the host", name=name)
    if kind == "cpu_added":
        return _(
            "{name} (CPU, {level}) sat down", name=name, level=cpu_level(str(data.get("level", "normal")))
        )
    if kind == "kicked":
        if event.seat is None:  # from the lobby: the seat is gone, nobody takes it
            return _("{name} was removed from the table", name=name)
        return _("{name} was removed; a CPU player takes the seat", name=name)
    if kind == "taken_over":
        if data.get("reason") == "kicked":
            return None  # the "kicked" line says it
        reason = str(data.get("reason", ""))
        if reason == "timeouts":
            return _("A CPU player now plays for {name} after timeouts", name=name)
        if reason == "left":
            return _("A CPU player now plays for {name} who left", name=name)
        return _("A CPU player now plays for {name}", name=name)
    if kind == "started":
        return _("The game has started")
    if kind == "round_started":
        return _("Round {number} dealt", number=data.get("round_number", snapshot.round_number))
    if kind == "auto_drew":
        return ngettext(
            "{who} had no card to play and drew {n} card",
            "{who} had no card to play and drew {n} cards",
            int(data.get("count", 1)),
            who=who,
        )
    if kind == "auto_passed":
        return _("{who} could not play or draw and passed", who=who)
    if kind == "timed_out":
        return _("{name} ran out of time", name=name)
    if kind == "round_result":
        scores, totals = list(data.get("scores") or []), list(data.get("totals") or [])
        # By side: a side's members hold its score, told once under their names ("alice & CPU 2 0 (0)").
        parts = []
        for side in scoring_sides(snapshot):
            first = side[0]
            if first < len(scores):
                total = totals[first] if first < len(totals) else "?"
                parts.append(f"{side_names(snapshot, side)} {scores[first]} ({total})")
        return _(
            "Round {number} scores (totals): {scores}",
            number=data.get("round_number", snapshot.round_number),
            scores=", ".join(parts),
        )
    if kind == "match_over":
        return _("The match is over")
    if kind == "closed":
        reason = str(data.get("reason", ""))
        closed = CLOSED_REASONS.get(reason)
        return _(closed) if closed else None
    return None


#: The kinds whose line depends only on the seat's name, the event's data, the faces and the language: a
#: board shows each event again at every move until it leaves the last plays, so its line is kept.
_MEMO_KINDS = frozenset(
    {
        "played",
        "suit_named",
        "drew",
        "passed",
        "skipped",
        "reversed",
        "draw_penalty",
        "last_card_called",
        "auto_drew",
        "auto_passed",
        "starter",
        "opened",
        "joined",
        "cpu_added",
        "started",
    }
)
_MEMO_MAX = 16384  # lines kept (a few per table in play); cleared at once when full
_described_lines: dict[tuple[Any, ...], tuple[CardFaces, str | None]] = {}


def _described(event: TableEvent, snapshot: TableSnapshot, faces: CardFaces) -> str | None:
    """``describe_event`` for a game without crazier abilities, its line kept for the events seen again."""
    if event.kind not in _MEMO_KINDS:
        return describe_event(event, snapshot, faces)
    name = None if event.seat is None else snapshot.name_at(event.seat)
    try:
        key = (event.kind, name, tuple(event.data.items()), id(faces), current_locale())
        kept = _described_lines.get(key)
    except TypeError:  # data that cannot be a key (a list): said anew
        return describe_event(event, snapshot, faces)
    if kept is not None and kept[0] is faces:  # the same faces, not others at a reused address
        return kept[1]
    line = describe_event(event, snapshot, faces)
    if len(_described_lines) >= _MEMO_MAX:
        _described_lines.clear()
    _described_lines[key] = (faces, line)
    return line


CLOSED_REASONS = {
    "ended": N_("The table was ended"),
    "lobby_expired": N_("The table closed: nobody started it in time"),
    "idle": N_("The table closed after a long idle time"),
    "empty": N_("The table closed: everyone left"),
    "channel_gone": N_("The table closed: its channel is gone"),
}


def _house_rule_text(data: Mapping[str, Any], snapshot: TableSnapshot) -> str:
    """A changed house rule in words, in the language in force: worded again from the option and its new
    value (the event's ``text`` is in the language of whoever changed it, not the table's)."""
    said = str(data.get("text", ""))
    if snapshot.ruleset is None or "option" not in data or "value" not in data:
        return said
    try:
        key = rule_options.option(str(data["option"])).key
        ruleset = rule_options.change(snapshot.ruleset, key, data["value"])
    except RulesetError:
        return said
    return rule_wording.describe(ruleset, key)


def event_lines(events: Iterable[TableEvent], snapshot: TableSnapshot, faces: CardFaces = TEXT) -> list[str]:
    """The events in words; a seat's successive draws become one line ("bob drew 3 cards"). Each draw is
    told once: cards owed by the line that says so ("carol takes 2 cards owed"), and draws the referee made
    for a player by its own line ("bob had no card to play and drew 1 card"), in the place of the draws,
    before what came of them (a pass)."""
    if snapshot.crazier is not None:
        return crazier_text.event_lines(events, snapshot, partial(describe_event, faces=faces), faces)
    events = list(events)
    lines: list[str] = []
    drawing: tuple[int | None, int] | None = None  # (seat, cards) of the draws not told yet
    told: set[int] = set()  # the referee's notes already told, by index

    def referee_note(after: int, seat: int | None) -> int | None:
        """The index of the referee's note on ``seat``'s draws, if one follows them in this batch."""
        for index in range(after + 1, len(events)):
            later = events[index]
            if later.seat == seat and later.kind == "auto_drew":
                return index
            if later.seat == seat and later.kind == "drew":
                return None  # a note further on is about those draws
        return None

    def tell_draws(at: int) -> None:
        nonlocal drawing
        if drawing is None:
            return
        note = referee_note(at - 1, drawing[0])
        if note is not None:
            told.add(note)
            line = _described(events[note], snapshot, faces)
            if line:
                lines.append(line)
        else:
            lines.append(
                ngettext(
                    "{who} drew {n} card",
                    "{who} drew {n} cards",
                    drawing[1],
                    who=seat_name(snapshot, drawing[0]),
                )
            )
        drawing = None

    for index, event in enumerate(events):
        if index in told:
            continue
        if event.kind == "drew":
            count = int(event.data.get("count", 1))
            if drawing is not None and drawing[0] == event.seat:
                drawing = (event.seat, drawing[1] + count)
            else:
                tell_draws(index)
                drawing = (event.seat, count)
            continue
        if drawing is not None and drawing[0] == event.seat and event.kind in ("draw_penalty", "auto_drew"):
            if event.kind == "draw_penalty":
                note = referee_note(index, event.seat)
                if note is not None:
                    told.add(note)  # the cards owed are the whole story
            drawing = None  # this event's line says them
        elif (
            drawing is not None
            and event.kind == "last_card_caught"
            and drawing[0] == event.data.get("target")
        ):
            drawing = None  # the catch's line says the cards its target draws
        tell_draws(index)
        line = _described(event, snapshot, faces)
        if line:
            lines.append(line)
    tell_draws(len(events))
    return lines


# --- the board ----------------------------------------------------------------------------------------------


def preset_name(preset: str) -> str:
    """A preset as the reader's Discord names it among /eights new's choices ("clásico", "klassisch")."""
    return pgettext("slash choice", preset)


def _title(snapshot: TableSnapshot) -> str:
    if snapshot.round_number:
        return _(
            "Crazy Eights — {preset} · round {number}",
            preset=preset_name(snapshot.preset),
            number=snapshot.round_number,
        )
    return _("Crazy Eights — {preset}", preset=preset_name(snapshot.preset))


def _seat_lines(snapshot: TableSnapshot) -> str:
    lines: list[str] = []
    for seat in snapshot.seats:
        marker = "▶ " if seat.to_act and snapshot.phase == "playing" else ""
        name = shown_name(visible_or_seat(seat.name, seat.position))  # an invisible name: "Seat N"
        parts = [f"`{seat.position + 1}` {marker}**{name}**{_seat_tag(seat)}"]
        if seat.card_count is not None and snapshot.phase in ("playing", "between_rounds"):
            parts.append(cards_count(seat.card_count))
        if snapshot.round_scores:
            parts.append(ngettext("{points} pt", "{points} pts", abs(seat.total), points=seat.total))
        lines.append(" — ".join(parts))
    return "\n".join(lines) or _("nobody yet")


def _target_text(snapshot: TableSnapshot, faces: CardFaces = TEXT) -> str:
    if snapshot.target_card is None:
        return "—"
    text = faces.card(snapshot.target_card)
    if snapshot.declared_suit:
        text = _("{card} — suit named: {suit}", card=text, suit=faces.suit(snapshot.declared_suit))
    return text


def _newest_within(lines: list[str], limit: int) -> str:
    """The newest lines that fit in ``limit`` characters (a line is never cut: it may hold emoji markup)."""
    kept: list[str] = []
    size = -1
    for line in reversed(lines):
        if size + 1 + len(line) > limit:
            break
        kept.append(line)
        size += 1 + len(line)
    return "\n".join(reversed(kept)) if kept else _clip(lines[-1], limit)


def _recent_lines(snapshot: TableSnapshot, faces: CardFaces = TEXT) -> str:
    lines = event_lines(snapshot.recent, snapshot, faces)[-RECENT_PLAYS:]
    return _newest_within(lines, MAX_FIELD) if lines else "—"


def _score_lines(snapshot: TableSnapshot) -> str:
    """The last round's score and the total of each seat, or by side when seats score together (a
    partnership's sides, a Crazier Eights team game's teams): once per side, under its members' names."""
    last = snapshot.round_scores[-1] if snapshot.round_scores else ()
    seats = {seat.position: seat for seat in snapshot.seats}
    lines = []
    for side in scoring_sides(snapshot):
        seat = seats[side[0]]
        round_score = last[seat.position] if seat.position < len(last) else seat.last_round_score
        score = "—" if round_score is None else str(round_score)
        name = side_names(snapshot, side)
        lines.append(
            _("**{name}**: {score} this round, {total} in total", name=name, score=score, total=seat.total)
        )
    return "\n".join(lines)


def _ranking_lines(snapshot: TableSnapshot) -> str:
    if snapshot.side_ranking:  # a partnership: places and totals by side
        return "\n".join(
            _(
                "{place}. **{names}** — {points} pts",
                place=line.place,
                names=" & ".join(shown_name(n) for n in line.names),
                points=line.total,
            )
            for line in snapshot.side_ranking
        )
    return "\n".join(
        _(
            "{place}. **{names}** — {points} pts",
            place=line.place,
            names=shown_name(line.name),
            points=line.total,
        )
        for line in snapshot.ranking
    )


def sides_text(snapshot: TableSnapshot) -> str:
    """The partnership's two sides by seat (partners opposite: seats 1 and 3, 2 and 4)."""

    def side(first: int) -> str:
        names = [
            f"`{p + 1}` {shown_name(snapshot.name_at(p))}"
            if any(s.position == p for s in snapshot.seats)
            else _("`{seat}` (free)", seat=p + 1)
            for p in (first, first + 2)
        ]
        return " & ".join(names)

    return _("{side}  vs  {other}", side=side(0), other=side(1))


HOUSE_RULES_FIELDS = 3  # at most this many "House rules" fields; more rules than that point to /eights rules
RULES_POINTER = N_("… `/eights rules` shows them all")


def house_rules_fields(snapshot: TableSnapshot, most: int = HOUSE_RULES_FIELDS) -> list[tuple[str, str]]:
    """The house rules as (name, value) fields of at most 1,024 characters each, a rule never cut: "House
    rules", then "House rules (cont.)". Beyond ``most`` fields the last one ends with a pointer to /eights
    rules, which shows them all, so that no rule is dropped without saying so."""
    words = snapshot.house_rules_words()
    if not words:
        text = _("{preset} as it is (`/eights rules` explains it)", preset=preset_name(snapshot.preset))
        return [(_("House rules"), text)]
    values: list[list[str]] = [[]]
    for line in (_clip(f"• {w}", MAX_FIELD) for w in words):
        if values[-1] and len("\n".join([*values[-1], line])) > MAX_FIELD:
            values.append([])
        values[-1].append(line)
    if len(values) > most:
        values = values[:most]
        pointer = _(RULES_POINTER)
        while len(values[-1]) > 1 and len("\n".join([*values[-1], pointer])) > MAX_FIELD:
            values[-1].pop()
        if len(values[-1]) == 1:  # one long rule: cut, so that the pointer fits
            values[-1] = [_clip(values[-1][0], MAX_FIELD - len(pointer) - 1)]
        values[-1].append(pointer)
    names = [_("House rules")] + [_("House rules (cont.)")] * (len(values) - 1)
    return [(name, "\n".join(lines)) for name, lines in zip(names, values, strict=True)]


def _add_house_rules(embed: discord.Embed, snapshot: TableSnapshot, most: int) -> None:
    for name, value in house_rules_fields(snapshot, most):
        embed.add_field(name=name, value=value, inline=False)


def board_embed(
    snapshot: TableSnapshot, faces: CardFaces = TEXT, *, rules_fields: int = HOUSE_RULES_FIELDS
) -> discord.Embed:
    """The public board: everything anyone at the table may know, and nothing else. ``faces``: the card
    emojis, when the server shows them (the target card, the named suit, the last plays). Too long for an
    embed, it is written without emojis, then with the house rules in one field (pointing to /eights rules
    for those it cannot hold), then its fields give way, whole lines at a time, each saying so with "…": the
    oldest of the last plays first (the newest stays whole), then the longest of the crazier cards in play,
    then any other field. Who is to move (the description) and the seats are never shortened."""
    embed = discord.Embed(title=_title(snapshot))
    in_play: list[int] = []
    phase = snapshot.phase
    host = seat_name(snapshot, next((s.position for s in snapshot.seats if s.is_host), None))
    if phase == "lobby":
        embed.colour = COLOUR_LOBBY
        if snapshot.partnership:
            embed.description = _(
                "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                " presses **Start** with exactly 4 seats (two sides of two). Before the start the host may"
                " change the **House rules**.",
                host=host,
            )
        elif snapshot.teams:  # crazier-abilities (no house rules)
            embed.description = _(
                "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                " presses **Start** with 4 or 6 seats (two teams seated alternately).",
                host=host,
            )
        elif snapshot.preset == CRAZIER:  # crazier-abilities: its rules have no house options
            embed.description = (
                _(
                    "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                    " presses **Start** with {low}–{seats} seats.",
                    host=host,
                    low=snapshot.min_seats,
                    seats=snapshot.max_seats,
                )
                if snapshot.min_seats < snapshot.max_seats
                else _(
                    "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                    " presses **Start** with {seats} seats.",
                    host=host,
                    seats=snapshot.max_seats,
                )
            )
        else:  # the seats Start deals with: from the rules' fewest (house rule or server default) up
            embed.description = (
                _(
                    "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                    " presses **Start** with {low}–{seats} seats. Before the start the host may change the"
                    " **House rules**.",
                    host=host,
                    low=snapshot.min_seats,
                    seats=snapshot.max_seats,
                )
                if snapshot.min_seats < snapshot.max_seats
                else _(
                    "Waiting for players: press **Join** to sit down. {host} (the host) adds CPU players and"
                    " presses **Start** with {seats} seats. Before the start the host may change the"
                    " **House rules**.",
                    host=host,
                    seats=snapshot.max_seats,
                )
            )
        if snapshot.deadline and snapshot.deadline_kind == "lobby":
            embed.description += "\n" + _(
                "The table closes {when} unless it starts.", when=f"<t:{int(snapshot.deadline)}:R>"
            )
        _add_house_rules(embed, snapshot, rules_fields)
    elif phase == "playing":
        embed.colour = COLOUR_PLAYING
        # With Crazier Eights teams several members may move at once: all are named.
        to_act = ", ".join(seat_name(snapshot, p) for p in snapshot.positions_to_act() or (snapshot.to_act,))
        embed.description = _("**{name}** to move.", name=to_act)
        if snapshot.deadline and snapshot.deadline_kind == "turn":
            embed.description += " " + _("Turn ends {when}.", when=f"<t:{int(snapshot.deadline)}:R>")
        if snapshot.crazier is not None:
            in_play = crazier_text.board_fields(embed, snapshot, faces)
        else:
            embed.add_field(name=_("Target"), value=_target_text(snapshot, faces), inline=True)
            embed.add_field(
                name=_("Direction"),
                value=_("seat order ↓") if snapshot.direction >= 0 else _("reversed ↑"),
                inline=True,
            )
            embed.add_field(name=_("Stock"), value=cards_count(snapshot.stock_size), inline=True)
        if snapshot.pending_draw:
            embed.add_field(name=_("Pending draw"), value=cards_count(snapshot.pending_draw), inline=True)
    elif phase == "between_rounds":
        embed.colour = COLOUR_PAUSE
        embed.description = _("Round {number} is over.", number=snapshot.round_number)
        if snapshot.deadline and snapshot.deadline_kind == "pause":
            embed.description += " " + _(
                "The next round starts {when}, or press **Next round**.",
                when=f"<t:{int(snapshot.deadline)}:R>",
            )
        embed.add_field(
            name=_("Round {number} scores", number=snapshot.round_number),
            value=_clip(_score_lines(snapshot), MAX_FIELD),
            inline=False,
        )
    elif phase == "finished":
        embed.colour = COLOUR_OVER
        embed.description = _("The match is over.")
        if snapshot.ranking:
            embed.add_field(
                name=_("Final ranking"), value=_clip(_ranking_lines(snapshot), MAX_FIELD), inline=False
            )
    else:
        embed.colour = COLOUR_OVER
        embed.description = _("This table was closed.")
    seats = len(embed.fields)
    embed.add_field(name=_("Seats"), value=_clip(_seat_lines(snapshot), MAX_FIELD), inline=False)
    if snapshot.partnership:
        embed.add_field(name=_("Partnership"), value=sides_text(snapshot), inline=False)
        if snapshot.side_ranking and phase in ("playing", "between_rounds"):
            embed.add_field(name=_("Sides"), value=_clip(_ranking_lines(snapshot), MAX_FIELD), inline=False)
    if snapshot.house_rules and phase != "lobby":
        _add_house_rules(embed, snapshot, rules_fields)
    if snapshot.match_end and phase != "lobby":
        embed.add_field(name=_("Match"), value=snapshot.match_end_words(), inline=True)
    last_plays: list[int] = []
    if phase in ("playing", "between_rounds"):
        last_plays.append(len(embed.fields))
        embed.add_field(name=_("Last plays"), value=_recent_lines(snapshot, faces), inline=False)
    embed.set_footer(
        text=_("Table {table} · /eights hand shows your cards privately", table=snapshot.table_id)
    )
    if len(embed) > MAX_EMBED:
        if faces.with_emojis:
            return board_embed(snapshot, TEXT, rules_fields=rules_fields)  # the emojis' markup: text only
        if rules_fields > 1:
            return board_embed(snapshot, TEXT, rules_fields=1)
        # Still too long (a crazier-abilities board has no house rules to fold): the oldest last plays go,
        # then the longest cards in play lose their last lines; any other field but the seats only after.
        rest = [i for i in range(len(embed.fields)) if i != seats]
        shorten_fields(embed, MAX_EMBED, last_plays, in_play, rest, newest_last=last_plays)
    return embed


# --- the public turn line -----------------------------------------------------------------------------------


def turn_line(
    events: Sequence[TableEvent],
    snapshot: TableSnapshot,
    *,
    hand_is_fresh: bool,
    announce_turn: bool = True,
    faces: CardFaces = TEXT,
) -> tuple[str | None, int | tuple[int, ...] | None]:
    """The short public message for the moves gathered since the last one: the plays in words, then (when
    the turn passed) who moves next, mentioning that person (and, when their hand message can no longer be
    refreshed, pointing at "My hand"). Returns (content, or None when there is nothing to say; the user id to
    mention: one user id, or several when several people may move)."""
    lines = event_lines(events, snapshot, faces)
    if faces.with_emojis and len("\n".join(lines[-MAX_LINES:])) > MAX_CONTENT - 200:
        lines = event_lines(events, snapshot)  # too long with emojis: text only
    if len(lines) > MAX_LINES:
        earlier = len(lines) - MAX_LINES + 1
        lines = [ngettext("… {n} earlier move", "… {n} earlier moves", earlier), *lines[-(MAX_LINES - 1) :]]
    if not lines and not announce_turn:
        return None, None
    mention_id: int | tuple[int, ...] | None = None
    # Only a turn that passed is announced: after a wild, the player who names the suit is not called again.
    if announce_turn and snapshot.phase == "playing" and snapshot.to_act is not None:
        seat = next((s for s in snapshot.seats if s.position == snapshot.to_act), None)
        # Every person who may move (with Crazier Eights teams, several members at once; the first may be a
        # CPU owing a choice while a person plays their part).
        people = snapshot.people_to_act()
        if people:
            mention_id = people[0] if len(people) == 1 else people
            mention = ", ".join(f"<@{user_id}>" for user_id in people)
            if hand_is_fresh:
                lines.append(_("▶ {mention}, your turn.", mention=mention))
            else:
                lines.append(_("▶ {mention}, your turn ({hint}).", mention=mention, hint=_(HAND_BUTTON_HINT)))
        elif seat is not None:
            lines.append(_("▶ {name} to move.", name=seat_name(snapshot, snapshot.to_act)))
    if not lines:
        return None, None
    content = "\n".join(lines)
    if len(content) > MAX_CONTENT and mention_id is not None:
        # The mention is what must not be cut: the text before it is, at its end.
        turn = lines[-1]
        content = _clip("\n".join(lines[:-1]), MAX_CONTENT - len(turn) - 1) + "\n" + turn
    return _clip(content, MAX_CONTENT), mention_id


# --- the private hand ---------------------------------------------------------------------------------------


def hand_content(hand: HandView, *, note: Note | None = None, faces: CardFaces = TEXT) -> str:
    """The ephemeral hand message: every card (its emoji beside the text, with ``faces``), the playable ones
    marked, and what to do now. A hand too long to show with emojis is shown as text, the note too; still too
    long, the note counts the cards drawn instead of listing them."""
    if hand.crazier is not None:
        return crazier_text.hand_content(hand, note, faces)
    if faces.with_emojis:
        content = _hand_content(hand, note_text(note, faces), faces)
        if len(content) <= MAX_CONTENT:
            return content
    content = _hand_content(hand, note_text(note), TEXT)
    if len(content) <= MAX_CONTENT:
        return content
    return _clip(_hand_content(hand, note_text(note, brief=True), TEXT), MAX_CONTENT)


def _hand_content(hand: HandView, note: str | None, faces: CardFaces) -> str:
    snapshot = hand.snapshot
    lines: list[str] = []
    if note:
        lines.append(note)
    count = len(hand.cards)
    if count:
        shown = " ".join(_hand_card(c.code, c.label, c.playable, faces) for c in hand.cards)
        lines.append(
            ngettext(
                "**Your hand** ({n} card): {cards}", "**Your hand** ({n} cards): {cards}", count, cards=shown
            )
        )
    else:
        lines.append(_("**Your hand** is empty."))
    playable = [c for c in hand.cards if c.playable]
    if hand.taken_over:
        lines.append(_("A CPU player is playing your seat. Use /eights join to take it back."))
    elif snapshot.phase != "playing":
        lines.append(
            _("The round is over.") if snapshot.phase == "between_rounds" else _("The game is not running.")
        )
    elif hand.must_name_suit:
        lines.append(_("Name the suit to follow."))
    elif hand.your_turn:
        lines.append(_("**Your turn.** Target: {target}.", target=_target_text(snapshot, faces)))
        owed_told = False
        if hand.in_run:  # the run's draw, if any, is the next player's to answer
            lines.append(_("Play another card of the same rank, or pass."))
        elif hand.answer_rank:  # Switch's jack: the only plays are that rank's, and Pass misses the turn
            lines.append(_("You must answer with the same rank, or pass and miss your turn."))
        elif snapshot.pending_draw and playable:  # stacking, with an answer in hand
            lines.append(
                ngettext(
                    "You owe {n} card unless you can answer.",
                    "You owe {n} cards unless you can answer.",
                    snapshot.pending_draw,
                )
            )
        elif snapshot.pending_draw and hand.can_draw:  # no stacking (uno-lite), or no answer in hand
            lines.append(
                ngettext(
                    "You must draw the {n} card you owe; your turn then ends.",
                    "You must draw the {n} cards you owe; your turn then ends.",
                    snapshot.pending_draw,
                )
            )
            owed_told = True
        if playable:
            seen: list[str] = []
            for card in playable:
                text = _("{card} (wild)", card=card.label) if card.wild else card.label
                if text not in seen:
                    seen.append(text)
            lines.append(_("Playable now: {cards}", cards=", ".join(seen)))
        elif not owed_told:
            lines.append(_("No card to play: draw.") if hand.can_draw else _("No card to play: pass."))
        if hand.deadline:
            lines.append(_("Turn ends {when}.", when=f"<t:{int(hand.deadline)}:R>"))
    else:
        lines.append(_("Not your turn."))
    return "\n".join(lines)


def _hand_card(code: str, text: str, playable: bool, faces: CardFaces) -> str:
    emoji = faces.card_emoji(code)
    shown = f"**{text}**" if playable else text
    return f"{emoji}{shown}" if emoji else shown


def move_note(outcome: Outcome, user_id: int, faces: CardFaces = TEXT, brief: bool = False) -> str | None:
    """What only the mover learns from their move, for their hand message: "You played 9♦. You drew 7♣."
    (``brief``: "You drew 60 cards.")."""
    if outcome.snapshot.crazier is not None:
        return crazier_text.move_note(outcome, user_id, faces, brief)
    seat = outcome.snapshot.seat_of(user_id)
    position = seat.position if seat else None
    parts: list[str] = []
    played = [e.data["card"] for e in outcome.public_events if e.kind == "played" and e.seat == position]
    if played:
        parts.append(_("You played {cards}.", cards=faces.cards(played)))
    drawn: list[str] = []
    for event in outcome.private_events.get(user_id, ()):
        if event.kind == "drew_cards":
            drawn.extend(event.data.get("cards") or [])
    if drawn and brief:
        parts.append(ngettext("You drew {n} card.", "You drew {n} cards.", len(drawn)))
    elif drawn:
        parts.append(_("You drew {cards}.", cards=faces.cards(drawn)))
    return " ".join(parts) or None


# --- scores and ranking -------------------------------------------------------------------------------------


def scores_text(snapshot: TableSnapshot) -> str:
    """Private /eights scores: each round's scores and the totals so far. Rounds that do not all fit in a
    message are left out from the oldest and counted in one line: the totals and latest rounds matter most."""
    if not snapshot.round_scores:
        return _("No round has been scored yet at this table.")
    # Who scores: each seat, or each side (a partnership's, a team game's teams): its members share its
    # score, told once under all their names.
    groups = scoring_sides(snapshot)
    labels = [side_names(snapshot, group) for group in groups]
    seats = {seat.position: seat for seat in snapshot.seats}
    head = _("**Scores — {preset}**", preset=preset_name(snapshot.preset))
    rounds = [
        _(
            "Round {number}: {scores}",
            number=number,
            scores=", ".join(
                f"{label} {scores[group[0]]}"
                for label, group in zip(labels, groups, strict=True)
                if group[0] < len(scores)
            ),
        )
        for number, scores in enumerate(snapshot.round_scores, start=1)
    ]
    totals = ", ".join(
        f"{label} {seats[group[0]].total}" for label, group in zip(labels, groups, strict=True)
    )
    tail = [_("Totals: {totals}", totals=totals)]
    if snapshot.match_end:
        tail.append(_("Match: {match}.", match=snapshot.match_end_words()))
    kept = len(rounds)
    while kept and len(_scores_lines(head, rounds, kept, tail)) > MAX_CONTENT:
        kept -= 1
    return _clip(_scores_lines(head, rounds, kept, tail), MAX_CONTENT)


def _scores_lines(head: str, rounds: list[str], kept: int, tail: list[str]) -> str:
    """The scores with only the ``kept`` latest rounds, the others counted in one line."""
    earlier = len(rounds) - kept
    left_out = [ngettext("… {n} earlier round", "… {n} earlier rounds", earlier)] if earlier else []
    return "\n".join([head, *left_out, *rounds[len(rounds) - kept :], *tail])


def final_ranking_text(snapshot: TableSnapshot, faces: CardFaces = TEXT) -> str:
    """The public message at the end of a match, naming every seat with its total (and the last card
    played, which ended the match)."""
    count = len(snapshot.round_scores)
    if snapshot.target_card and snapshot.crazier is None:
        head = ngettext(
            "**Final ranking** — table {table}, {preset}, {n} round; the last card: {card}",
            "**Final ranking** — table {table}, {preset}, {n} rounds; the last card: {card}",
            count,
            table=snapshot.table_id,
            preset=preset_name(snapshot.preset),
            card=faces.card(snapshot.target_card),
        )
    else:
        head = ngettext(
            "**Final ranking** — table {table}, {preset}, {n} round",
            "**Final ranking** — table {table}, {preset}, {n} rounds",
            count,
            table=snapshot.table_id,
            preset=preset_name(snapshot.preset),
        )
    return _clip(head + "\n" + _ranking_lines(snapshot), MAX_CONTENT)
