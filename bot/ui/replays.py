"""How a replay looks on Discord: the step's embed (the board as it was, the step's public lines, the
viewer's own hand), its picture, the First / Back / Next / Last / Next round buttons, and the Replay select
under /eights history.

The controls are ``DynamicItem``s whose custom ids carry the match and the step they go to, so a replay
keeps turning after a restart; a click goes to the replays cog (``bot.ui.routing``). The replay is private
(ephemeral), so whoever clicks is the viewer: the custom ids carry no user.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import discord

from bot.engine.crazier import card_label as crazier_card_label
from bot.i18n import N_, _, ngettext
from bot.service.replays import RecentMatch, ReplayStep
from bot.service.standings import PastMatch
from bot.ui import routing
from bot.ui.faces import TEXT, CardFaces
from bot.ui.fitting import shorten_fields
from bot.ui.names import plain_name
from bot.ui.paging import page_row
from bot.ui.render import MAX_EMBED, board_embed, event_lines, preset_name
from bot.ui.standings import history_listing

REPLAYS_COG = "Eights replays"
FIELD_VALUE_LIMIT = 1024
SELECT_OPTIONS = 25  # Discord's limit
NOTHING_PUBLIC = N_("(nothing public happened)")


@runtime_checkable
class ReplaySteps(Protocol):
    async def on_replay_step(
        self, interaction: discord.Interaction[Any], table_id: int, step: int, *, new: bool
    ) -> None: ...


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _newest_lines(lines: list[str], limit: int) -> str:
    """The step's lines within a field, the last ones kept (the end of a move matters most)."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) + 1 > limit - 2:
            kept.append("…")
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(reversed(kept))


def replay_embed(step: ReplayStep, faces: CardFaces = TEXT) -> discord.Embed:
    """The board as it was after the step, with the step's public lines and the viewer's own hand, within
    Discord's 6,000 characters: too long, it is written without emojis, then without the board's last plays
    (the step's own lines tell the move; Back shows the ones before) and with its house rules in one field,
    then its longest fields are shortened, line by line."""
    for shown in (faces, TEXT) if faces.with_emojis else (TEXT,):
        embed = _replay_embed(step, shown, board_embed(step.snapshot, shown))
        if len(embed) <= MAX_EMBED:
            return embed
    board = board_embed(step.snapshot, TEXT, rules_fields=1)
    last_plays = _("Last plays")
    for index, field in reversed(list(enumerate(board.fields))):
        if field.name == last_plays:
            board.remove_field(index)
    count = len(board.fields)
    embed = _replay_embed(step, TEXT, board)
    # The board's longest fields first ("This step" went in first), the step's own and the viewer's hand last.
    shorten_fields(embed, MAX_EMBED, range(1, 1 + count), range(len(embed.fields)))
    return embed


def _replay_embed(step: ReplayStep, faces: CardFaces, embed: discord.Embed) -> discord.Embed:
    embed.title = _clip(
        _(
            "Replay of match #{table} · round {round} · step {step} of {steps}",
            table=step.table_id,
            round=step.round_number,
            step=step.index + 1,
            steps=step.count,
        ),
        256,
    )
    lines = event_lines(step.lines, step.snapshot, faces) or [_(NOTHING_PUBLIC)]
    embed.insert_field_at(0, name=_("This step"), value=_newest_lines(lines, FIELD_VALUE_LIMIT), inline=False)
    if step.hand is not None:
        embed.add_field(
            name=_("Your hand then ({count})", count=len(step.hand)),
            value=_hand_text(step, faces) if step.hand else _("no cards"),
            inline=False,
        )
    note = _only_you(step, faces)
    if note:
        embed.add_field(name=_("Only you saw then"), value=_clip(note, FIELD_VALUE_LIMIT), inline=False)
    embed.set_footer(text=_("Only you see this replay: your own hand, and what everyone saw at the time."))
    return embed


def _hand_text(step: ReplayStep, faces: CardFaces) -> str:
    """The viewer's cards within a field: with their emojis when they all fit, else as text (as the live
    hand), else as many as fit, whole, and how many more."""
    assert step.hand is not None
    crazier = step.snapshot.crazier is not None
    for shown in (faces, TEXT) if faces.with_emojis else (TEXT,):
        if crazier:  # crazier-abilities: its cards by code, name and colours, a line each
            text = "\n".join(_crazier_card(code, shown) for code in step.hand)
        else:
            text = shown.cards(list(step.hand))
        if len(text) <= FIELD_VALUE_LIMIT:
            return text
    parts = [_crazier_card(code, TEXT) if crazier else TEXT.card(code) for code in step.hand]
    separator = "\n" if crazier else " "
    for kept in range(len(parts) - 1, 0, -1):
        more = ngettext("… and {n} more card", "… and {n} more cards", len(parts) - kept)
        text = separator.join([*parts[:kept], more])
        if len(text) <= FIELD_VALUE_LIMIT:
            return text
    return _clip(parts[0], FIELD_VALUE_LIMIT)


def _crazier_card(code: str, faces: CardFaces) -> str:
    """A crazier-abilities card as its table writes it: its emoji (when the server shows them) and label."""
    return faces.crazier_card(code, crazier_card_label(code))


def _only_you(step: ReplayStep, faces: CardFaces = TEXT) -> str:
    """crazier-abilities: what only the viewer's seat learned in this step (the cards it drew, the card its
    Elven Princess looked at), as the table told them privately then."""
    if step.snapshot.crazier is None:
        return ""
    drawn: list[str] = []
    looked: list[str] = []
    for event in step.private:
        if event.kind == "drew_cards":
            drawn.extend(str(code) for code in event.data.get("cards") or [])
        elif event.kind == "looked_card" and event.data.get("card"):
            card = _crazier_card(str(event.data["card"]), faces)
            looked.append(_("The top card of the draw pile was {card}.", card=card))
    drew = ", ".join(_crazier_card(code, faces) for code in drawn)
    lines = [_("You drew {cards}.", cards=drew)] if drawn else []
    return "\n".join(lines + looked)


class ReplayButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"eights-replay:(?P<table>\d+):(?P<step>\d+):(?P<name>first|back|next|last|round)",
):
    """One of a replay's controls: shows step ``step`` of match ``table`` in the same message."""

    LABELS: ClassVar[dict[str, str]] = {
        "first": N_("First"),
        "back": N_("Back"),
        "next": N_("Next"),
        "last": N_("Last"),
        "round": N_("Next round"),
    }

    def __init__(self, table_id: int, step: int, name: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(self.LABELS[name]),
                style=discord.ButtonStyle.primary if name == "next" else discord.ButtonStyle.secondary,
                custom_id=f"eights-replay:{table_id}:{step}:{name}",
                disabled=disabled,
            )
        )
        self.table_id = table_id
        self.step = step

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReplayButton:
        return cls(int(match["table"]), int(match["step"]), match["name"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        found = await routing.handler(interaction, REPLAYS_COG, ReplaySteps)  # type: ignore[type-abstract]
        if found is not None:
            await found.on_replay_step(interaction, self.table_id, self.step, new=False)


def replay_view(step: ReplayStep) -> discord.ui.View:
    """First, Back, Next, Last and Next round; one with nowhere to go is disabled. The custom ids differ by
    their name even where two go to the same step, as Discord requires."""
    last = step.count - 1

    def button(move: str, target: int, disabled: bool) -> ReplayButton:
        # Kept within the replay: these custom ids name their move, so two may share a step.
        return ReplayButton(step.table_id, max(0, min(last, target)), move, disabled=disabled)

    view = page_row(step.index, 0, last, ("first", "back", "next", "last"), button)
    following = step.next_round_index
    view.add_item(
        ReplayButton(
            step.table_id, last if following is None else following, "round", disabled=following is None
        )
    )
    return view


class ReplaySelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"eights-replay-pick",
):
    """The Replay select under /eights history: an option a match; the choice opens its replay, privately."""

    def __init__(self, options: Sequence[discord.SelectOption] = ()) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id="eights-replay-pick",
                placeholder=_("Replay a match…"),
                options=list(options) or [discord.SelectOption(label="-", value="0")],
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReplaySelect:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values  # filled from the interaction by discord.py before the callback
        chosen = str(values[0]) if values else ""
        if not (chosen.isascii() and chosen.isdigit()):  # not "²", which int() refuses
            await interaction.response.send_message(_("Choose a match to replay."), ephemeral=True)
            return
        found = await routing.handler(interaction, REPLAYS_COG, ReplaySteps)  # type: ignore[type-abstract]
        if found is not None:
            await found.on_replay_step(interaction, int(chosen), 0, new=True)


def match_label(table_id: int, preset: str, names: Sequence[str]) -> str:
    """ "#12 classic: ana, ben", the preset as the reader's Discord names it. Names isolated: a right-to-left
    one would otherwise reorder the rest of the label."""
    shown = preset_name(preset)
    return _clip(f"#{table_id} {shown}: " + ", ".join(plain_name(name) for name in names), 100)


def history_view(matches: Sequence[PastMatch]) -> discord.ui.View:
    """The Replay select for the matches the history shows (at least one: an empty history is refused): those
    ``history_listing`` keeps, as ``history_embed`` lists them, never one the list left out to fit."""
    listed = [match for match, _name, _value in history_listing(matches)]
    options = [
        discord.SelectOption(
            label=match_label(
                m.table_id,
                m.preset,
                [p.display_name for p in sorted(m.ranking, key=lambda p: (p.place, p.position))],
            ),
            value=str(m.table_id),
        )
        for m in listed[:SELECT_OPTIONS]
    ]
    view = discord.ui.View(timeout=None)
    view.add_item(ReplaySelect(options))
    return view


def recent_choice_name(match: RecentMatch) -> str:
    return match_label(match.table_id, match.preset, match.names)


REPLAY_DYNAMIC_ITEMS: list[type[discord.ui.DynamicItem[Any]]] = [ReplayButton, ReplaySelect]
