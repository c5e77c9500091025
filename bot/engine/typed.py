"""Text someone typed (or chose: a name), as the bot quotes it back: on one line, right-to-left text isolated,
and, in an error, inert.

Here rather than in ``bot.ui.names`` because the engine and the service word the errors that quote what was
typed ("'5x' is not a whole number"), and they import no Discord; the names use the same two first steps.

``isolate`` wraps a text holding right-to-left letters or bidirectional controls in U+2068 FIRST STRONG
ISOLATE … U+2069 POP DIRECTIONAL ISOLATE: a right-to-left override then reverses that text only, not the rest
of its line, and an Arabic or Hebrew text does not pull the numbers and quote marks beside it into its run.
"""

from __future__ import annotations

import functools
import re
import unicodedata

FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"
ZERO_WIDTH_SPACE = "\u200b"
TYPED_SHOWN = 40  # characters of what someone typed that an error quotes back

# Bidirectional classes that can reorder what is around them: right-to-left letters, Arabic digits, and the
# explicit embeddings, overrides and isolates.
_REORDERING = frozenset({"R", "AL", "AN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_ISOLATE_CONTROLS = re.compile("[\u2066-\u2069]")
# Line breaks and other control characters: a name stays on its line (a name "Round over\nEve" would
# otherwise print a line that reads as the bot's own).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
# Every character Discord's markdown gives a meaning to; a backslash before any of them shows it as typed.
_MARKDOWN = re.compile(r"([\\*_~|`>#\-\[\]()])")


def one_line(text: str) -> str:
    """``text`` with every run of line breaks and control characters made one space (none at its ends, so
    that what starts the name still starts the line: markup there is escaped as at any line's start)."""
    if _CONTROLS.search(text) is None:
        return text
    return _CONTROLS.sub(" ", text).strip(" ")


def without_isolates(text: str) -> str:
    """``text`` without isolate controls (U+2066 … U+2069), the first step, before any escaping: one of them
    left in would close the isolate ``isolate`` wraps the text in early, and removing them after the escaping
    would join again what they kept apart ("https:\u2066//", "@\u2066everyone"), unseen by it."""
    return _ISOLATE_CONTROLS.sub("", text)


@functools.lru_cache(maxsize=4096)  # every board and line writes each seat's name again: kept, not redone
def isolate(text: str) -> str:
    """``text`` as a bidirectional isolate when it holds anything that could reorder its surroundings. The
    text is wrapped as it is: its own isolate controls were removed first (``without_isolates``)."""
    if not any(unicodedata.bidirectional(char) in _REORDERING for char in text):
        return text
    return FIRST_STRONG_ISOLATE + text + POP_DIRECTIONAL_ISOLATE


def typed_shown(text: str) -> str:
    """What someone typed, as an error quotes it (between quote marks the message writes): at most
    ``TYPED_SHOWN`` characters, so that a long paste cannot make the answer longer than Discord takes (2,000
    characters); on one line; its markdown shown as typed, its mentions and links inert ("<@123>", "@everyone"
    and "https://" read as text, pinging no one); isolated when it holds right-to-left text."""
    text = one_line(without_isolates(text).strip())
    if len(text) > TYPED_SHOWN:
        text = text[: TYPED_SHOWN - 1] + "…"
    text = _MARKDOWN.sub(r"\\\1", text)
    text = text.replace("<", "<" + ZERO_WIDTH_SPACE).replace("@", "@" + ZERO_WIDTH_SPACE)
    return isolate(text.replace("://", ":" + ZERO_WIDTH_SPACE + "//"))
