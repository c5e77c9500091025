"""The lobby's House rules panel: a private message with the table's options in two selects; picking one
shows its values in a select (and, for a number or a list of ranks, a button that opens a modal to type
one). Built from the service's ``HouseOption`` views; the components are the table's persistent controls
(``bot.ui.controls``), so a panel opened before a restart still works."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.i18n import _, pgettext
from bot.service.models import HouseOption
from bot.ui.controls import (
    HOUSE,
    HOUSE_OPTION,
    HOUSE_TYPE,
    HOUSE_VALUE,
    MODAL_INPUT,
    SELECT_OPTIONS,
    Control,
    TableButton,
    TableSelect,
)
from bot.ui.render import preset_name

MAX_LABEL = 100
MAX_DESCRIPTION = 100
MAX_CONTENT = 2000


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def panel_content(differences: Sequence[str], preset: str) -> str:
    lines = [
        _(
            "**House rules** — {preset}. Pick an option to change it (host, before the first deal).",
            preset=preset_name(preset),
        )
    ]
    if differences:
        lines.append(_("Changed from the preset:"))
        lines.extend(f"• {line}" for line in differences)
    else:
        lines.append(_("Nothing is changed from the preset yet."))
    return _clip("\n".join(lines), MAX_CONTENT)


def panel_view(table_id: int, options: Sequence[HouseOption]) -> discord.ui.View:
    """Every option, in selects of up to 25 (their current values as descriptions)."""
    view = discord.ui.View(timeout=None)
    for page, start in enumerate(range(0, len(options), SELECT_OPTIONS)):
        chunk = options[start : start + SELECT_OPTIONS]
        choices = [
            discord.SelectOption(
                label=_clip(option.label, MAX_LABEL),
                value=option.key,
                description=_clip(_("Now: {value}", value=option.described), MAX_DESCRIPTION),
            )
            for option in chunk
        ]
        placeholder = _("Change a house rule ({first} – {last})", first=chunk[0].label, last=chunk[-1].label)
        view.add_item(
            TableSelect.make(
                Control(table_id, "", HOUSE_OPTION, str(page)),
                choices,
                placeholder=_clip(placeholder, 150),
                row=page,
            )
        )
    return view


def shown_value(option: HouseOption) -> str:
    """The option's current value as the player reads it: a choice by its label ("an", "zwei Decks …"), no
    number by the language's word for none, else the value typed ("3", "J 4", "2:2")."""
    if not option.typed:
        return next((label for code, label in option.values if code == option.current), option.current)
    return pgettext("house rule value", "none") if option.current == "none" else option.current


def option_content(option: HouseOption, note: str | None = None) -> str:
    lines = [
        f"**{option.label}** — {option.help}.",
        _("Now: **{value}** ({described}).", value=shown_value(option), described=option.described),
    ]
    if option.typed:
        lines.append(_("Pick a value below, or press **Type a value**."))
    if note:
        lines.insert(0, note)
    return _clip("\n".join(lines), MAX_CONTENT)


def option_view(table_id: int, option: HouseOption) -> discord.ui.View:
    """The option's values in a select (and a Type a value button for typed options), and Back."""
    view = discord.ui.View(timeout=None)
    choices = [
        discord.SelectOption(
            label=_clip(label, MAX_LABEL), value=code, default=code == option.current and not option.typed
        )
        for code, label in option.values[:SELECT_OPTIONS]
    ]
    view.add_item(
        TableSelect.make(
            Control(table_id, "", HOUSE_VALUE, option.key),
            choices,
            placeholder=_clip(_("{option}: pick a value", option=option.label), 150),
            row=0,
        )
    )
    if option.typed:
        view.add_item(
            TableButton.make(
                Control(table_id, "", HOUSE_TYPE, option.key),
                _("Type a value"),
                style=discord.ButtonStyle.primary,
                row=1,
            )
        )
    view.add_item(TableButton.make(Control(table_id, "", HOUSE), _("Back to all rules"), row=1))
    return view


class HouseValueModal(discord.ui.Modal):
    """A typed value for one option (a number, ranks such as "J 4", pairs such as "2:2 4:4").

    Its custom id carries the table and the option (``e8m:<table>::htype:<option>``) and its submission is
    handled from that id (``bot.ui.controls.modal_control``), like the table's buttons: discord.py keeps an
    opened modal only in the memory of the process that opened it, so a form submitted after a restart would
    reach nobody. The modal is stopped before it is sent, so that discord.py does not keep it at all."""

    def __init__(self, table_id: int, option: HouseOption) -> None:
        super().__init__(
            title=_clip(_("House rule: {option}", option=option.label), 45),
            timeout=None,
            custom_id=Control(table_id, "", HOUSE_TYPE, option.key).custom_id(modal=True),
        )
        examples = ", ".join(code for code, _label in option.values[:4])
        self.value: discord.ui.TextInput[HouseValueModal] = discord.ui.TextInput(
            label=_clip(option.label, 45),
            placeholder=_clip(
                _("Now {value}. For example: {examples}", value=shown_value(option), examples=examples), 100
            ),
            default=shown_value(option),  # read back in the player's language (rule_options.parse_value)
            max_length=100,
            custom_id=MODAL_INPUT,
        )
        self.add_item(self.value)
        self.stop()
