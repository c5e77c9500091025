"""How a name someone chose (a display name, kept with their seat) is shown: as what it says, never as markup.

``shown_name`` is for markdown (message content, embeds): markdown is escaped, and every ``<…>`` markup (a
user, role or channel mention, a timestamp, an emoji) and ``@everyone`` are made inert, so that a member named
``<@123…>`` reads as that text and not as a mention of someone else; a URL in a name is not made a link (and
the markdown inside it is escaped as anywhere else).
``plain_name`` is for text that Discord does not read as markdown (button labels, select options, a
picture's alt text).

Both keep a name on one line (a line break or other control character becomes a space), and both isolate a
name holding right-to-left text or bidirectional controls (U+2068 FIRST STRONG ISOLATE …
U+2069 POP DIRECTIONAL ISOLATE): a right-to-left override in a name then reverses the name only, not the
rest of its line, and an Arabic or Hebrew name does not pull the numbers beside it into its run. Isolate
controls inside the name are removed before anything else: one of them would close the isolate early, and,
removed after the escaping, they would join again markup that the escaping never saw. A name without any of
that is shown exactly as typed, so it reads, copies and searches as the person wrote it.

``visible_or_seat`` puts the seat's words ("Seat 4") in place of a name with nothing to see or hear in it
(only spaces, zero-width characters, the Hangul filler U+3164 that Discord takes as an "invisible name"), as
the board picture's plate does: a seat's line then still says who it is, to the eye and to a screen reader.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import discord

from bot.engine.typed import ZERO_WIDTH_SPACE, isolate, one_line, without_isolates
from bot.i18n import _
from bot.service import FORGOTTEN_NAME

# "1. " at the start of a line is a numbered list in Discord's markdown, which escape_markdown leaves.
_LIST_NUMBER = re.compile(r"^(\d+)\.(?=\s)")


# Characters that show nothing on their own: spaces, line and paragraph separators, controls and format
# characters (zero-width space and joiners, word joiner, bidirectional controls, soft hyphen, tags...), and
# marks with no letter to sit on (variation selectors, the combining grapheme joiner).
_BLANK_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me"})
# Letters and symbols that are drawn blank: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the
# blank Braille pattern (U+2800), the usual ways to an "invisible" display name.
_BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


@functools.lru_cache(maxsize=4096)
def has_visible(text: str) -> bool:
    """Whether ``text`` has at least one character that shows (see ``_BLANK_CATEGORIES``)."""
    return any(
        char not in _BLANK_CHARACTERS and unicodedata.category(char) not in _BLANK_CATEGORIES for char in text
    )


def seat_words(position: int) -> str:
    """A seat in words, as a name is written in its place: "Seat 4" (``position`` 3), in the language in
    force."""
    words = _("seat {seat}", seat=position + 1)
    return words[:1].upper() + words[1:]


def visible_or_seat(name: str, position: int) -> str:
    """``name`` (as given: escape it with ``shown_name`` or ``plain_name`` as usual), or, when nothing of it
    would show (``has_visible``), the words of its seat at ``position`` ("Seat 4", in the language in force),
    as the board picture writes it."""
    return name if has_visible(name) else seat_words(position)


def plain_name(name: str) -> str:
    """A name for plain text (labels, options, alt text): on one line, isolated when needed (see the module
    docstring)."""
    return isolate(one_line(without_isolates(_unforgotten(name))))


def _unforgotten(name: str) -> str:
    """The words in place of a forgotten person's name in the reader's language (the store keeps them in
    English)."""
    return _("Deleted player") if name == FORGOTTEN_NAME else name


def shown_name(name: str) -> str:
    """A name for markdown: markdown escaped, mentions and other ``<…>`` markup made inert, isolated when
    needed."""
    return _shown_name(_unforgotten(name))


@functools.lru_cache(maxsize=4096)
def _shown_name(name: str) -> str:
    # Isolate controls go first: escaping must see the text Discord will read ("https:\u2066//" would be
    # "https://" once they were gone).
    text = one_line(without_isolates(name))
    # Markdown inside a URL escaped too: the URL is no link here (below), so its "**" would be bold.
    text = discord.utils.escape_mentions(discord.utils.escape_markdown(text, ignore_links=False))
    text = _LIST_NUMBER.sub(r"\1\\.", text)
    # Every Discord markup in text starts with "<" (<@id>, <@&id>, <#id>, <t:…>, <:emoji:id>, </cmd:id>).
    text = text.replace("<", "<" + ZERO_WIDTH_SPACE)
    # Discord makes a link of any "scheme://…" in text: a name is not a link to click on a public board.
    text = text.replace("://", ":" + ZERO_WIDTH_SPACE + "//")
    return isolate(text)
