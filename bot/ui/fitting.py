"""Fitting an embed within Discord's total for all of its text (6,000 characters) by shortening its fields,
whole lines at a time: the board (``bot.ui.render``) and a replay step (``bot.ui.replays``) give way so."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import discord

ELLIPSIS = "…"


def shorten_fields(
    embed: discord.Embed, limit: int, *groups: Iterable[int], newest_last: Collection[int] = ()
) -> None:
    """Shortens the embed's fields until all its text is within ``limit`` characters: the fields of each of
    ``groups`` (field indices) in turn, the longest of the group first, whole lines at a time (a line may
    hold an emoji's markup or a name's escaping). A shortened field says so with "…" where its lines went.
    A field loses its last lines, "…" after the rest, and down to one line, that line is cut; a field in
    ``newest_last`` (its lines oldest first, as the last plays) loses its oldest lines, "…" before the rest,
    and keeps its newest line whole. Fields in no group, the title, the description and the footer are
    left whole, even if the embed stays over ``limit``."""
    for group in groups:
        # Whole lines first, from every field of the group; a line is cut only when none has two left.
        for cut in (False, True):
            candidates = list(dict.fromkeys(group))
            while (excess := len(embed) - limit) > 0:
                lengths = {i: len(embed.fields[i].value or "") for i in candidates}
                if not lengths:
                    break
                index = max(lengths, key=lambda i: lengths[i])
                field = embed.fields[index]
                value = field.value or ""
                shorter = _shortened(value, len(value) - excess, oldest_first=index in newest_last, cut=cut)
                if len(shorter) >= len(value):  # as short as it goes
                    candidates.remove(index)
                    continue
                embed.set_field_at(index, name=field.name, value=shorter, inline=field.inline)


def _shortened(value: str, most: int, *, oldest_first: bool, cut: bool = True) -> str:
    """``value`` within ``most`` characters if it can be: its last lines dropped and "…" after the rest, down
    to one line cut ("x…" at the least; not ``cut``: whole); or (``oldest_first``) its first lines dropped
    and "…" before the rest, down to its last line, whole."""
    lines = value.split("\n")
    if oldest_first:
        lines = [line for line in reversed(lines) if line != ELLIPSIS] or [value]
    while len(lines) > 1 and len("\n".join(lines)) + 2 > most:
        lines.pop()
    if oldest_first:
        return "\n".join([ELLIPSIS, *reversed(lines)]) if len(lines) > 1 or lines[0] != value else value
    if len(lines) > 1 or len(lines[0]) + 2 <= most or not cut:
        # (Not ``cut``: down to its first line whole, as short as whole lines make it.)
        shorter = "\n".join([*lines, ELLIPSIS])
        return shorter if len(shorter) < len(value) else value
    return lines[0][: max(2, most) - 1] + ELLIPSIS if len(value) > 2 else value
