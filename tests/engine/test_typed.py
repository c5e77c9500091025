"""What someone typed, as an error quotes it back (bot.engine.typed.typed_shown): shown as typed in Discord's
markdown, pinging no one, right-to-left text isolated, on one line and short."""

from __future__ import annotations

from bot.engine.typed import FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE, TYPED_SHOWN, typed_shown


def test_markdown_is_escaped() -> None:
    assert typed_shown("**x** ||s|| `c` ~~t~~ _u_") == r"\*\*x\*\* \|\|s\|\| \`c\` \~\~t\~\~ \_u\_"


def test_mentions_and_links_are_inert() -> None:
    shown = typed_shown("<@123> @everyone https://x.y")
    assert "<@" not in shown and "@everyone" not in shown and "https://" not in shown
    # Shown as typed: Discord hides the zero-width spaces and the backslashes before punctuation.
    assert shown.replace("\u200b", "").replace("\\", "") == "<@123> @everyone https://x.y"


def test_an_isolate_control_does_not_hide_a_link() -> None:
    """An isolate control inside "://" is removed before the escaping, which then breaks the "://": the quote
    of "https:\\u2066//evil.example" is no link."""
    shown = typed_shown("https:\u2066//evil.example")
    assert "://" not in shown and "\u2066" not in shown


def test_right_to_left_text_is_isolated_and_lines_are_joined() -> None:
    assert typed_shown("אבג 5") == FIRST_STRONG_ISOLATE + "אבג 5" + POP_DIRECTIONAL_ISOLATE
    assert typed_shown("a\nb") == "a b"


def test_a_long_paste_is_cut() -> None:
    assert typed_shown("9" * 500) == "9" * (TYPED_SHOWN - 1) + "…"
