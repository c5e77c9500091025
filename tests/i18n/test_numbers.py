"""Numbers in the standings are written as the reader's language writes them (decimal comma, the space
before %), never "-0.0"."""

from __future__ import annotations

import pytest

from bot.i18n import use_locale
from bot.ui.standings import percent, signed, skill


@pytest.mark.parametrize(
    ("locale", "rating", "rate"),
    [
        ("en", "12.3", "46%"),
        ("de", "12,3", "46\u00a0%"),
        ("fr", "12,3", "46\u00a0%"),
        ("pt_BR", "12,3", "46%"),
    ],
)
def test_ratings_and_rates_are_written_as_the_language_writes_numbers(
    locale: str, rating: str, rate: str
) -> None:
    with use_locale(locale):
        assert skill(12.34) == rating
        assert percent(0.456) == rate
        assert signed(0.04) == skill(0.0) and not signed(-0.04).startswith("-")  # no "-0.0", no "+0.0"
        assert signed(1.25).startswith("+") and signed(-1.25).startswith("-")
