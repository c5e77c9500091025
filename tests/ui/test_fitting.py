"""Shortening an embed's fields to keep all its text within Discord's total (``bot.ui.fitting``), as the board
and a replay step do."""

from __future__ import annotations

import discord

from bot.ui.fitting import shorten_fields


def embed_of(description: str, *values: str) -> discord.Embed:
    embed = discord.Embed(description=description)
    for i, value in enumerate(values):
        embed.add_field(name=f"f{i}", value=value, inline=False)
    return embed


def values(embed: discord.Embed) -> list[str]:
    return [str(field.value) for field in embed.fields]


def test_fields_give_way_group_by_group_the_longest_first_whole_lines_at_a_time() -> None:
    """The first group gives way first; within a group the longest field first, its last lines dropped and
    "…" after the rest. The next group is touched only when the first cannot give more."""
    lines = [f"line {i:02}" for i in range(10)]  # 7 characters each, 79 with the line breaks
    embed = embed_of("to move", "\n".join(lines[:4]), "\n".join(lines), "\n".join(lines))
    limit = len(embed) - 20
    shorten_fields(embed, limit, [0, 1], [2])
    assert values(embed) == ["\n".join(lines[:4]), "\n".join([*lines[:7], "…"]), "\n".join(lines)]
    assert len(embed) <= limit


def test_the_last_plays_lose_their_oldest_lines_and_keep_the_newest_whole() -> None:
    """A field in ``newest_last`` (the last plays) loses its oldest lines, "…" before the rest, down to its
    newest line, which is never cut: the next group gives way instead."""
    plays = [f"play {i}: " + "x" * 40 for i in range(5)]  # 48 characters each
    embed = embed_of("to move", "\n".join(plays), "a" * 30 + "\n" + "b" * 30)
    shorten_fields(embed, len(embed) - 100, [0], [1], newest_last=[0])
    assert values(embed) == ["\n".join(["…", *plays[-2:]]), "a" * 30 + "\n" + "b" * 30]
    shorten_fields(embed, len(embed) - 60, [0], [1], newest_last=[0])
    assert values(embed) == ["…\n" + plays[-1], "a" * 30 + "\n…"]


def test_a_field_down_to_one_line_is_cut_and_the_rest_is_never_touched() -> None:
    """A field of one line too long is cut within it, "…" at its end (two characters at the least). Fields in
    no group and the description stay whole, even if the embed stays over the limit."""
    embed = embed_of("d" * 50, "x" * 40, "y" * 40)
    shorten_fields(embed, len(embed) - 10, [0])
    assert values(embed) == ["x" * 29 + "…", "y" * 40]
    shorten_fields(embed, 10, [0])
    assert values(embed) == ["x…", "y" * 40] and embed.description == "d" * 50


def test_every_field_of_a_group_drops_whole_lines_before_any_line_is_cut() -> None:
    """The longest field of a group is not cut down to part of its first line while another field of the
    group still has lines to drop: whole lines go first, from every field; a line is cut only after."""
    long_line = "L" * 200
    embed = embed_of("to move", long_line + "\n" + "x" * 10, "\n".join(f"line {i:02}" for i in range(20)))
    limit = len(embed) - 120
    shorten_fields(embed, limit, [0, 1])
    first, second = values(embed)
    assert first == long_line + "\n…"  # its first line whole
    assert second.endswith("\n…") and second.count("\n") > 1
    assert len(embed) <= limit
