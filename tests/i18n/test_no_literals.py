"""No user-facing text written in the code: every sentence a player reads comes from the catalogue."""

from __future__ import annotations

from pathlib import Path

from tests.i18n.literals import literals_in, user_facing_literals


def test_no_user_facing_string_outside_the_catalogue() -> None:
    found = user_facing_literals()
    assert not found, "wrap these in _() / ngettext() / N_() (bot/i18n):\n" + "\n".join(map(str, found))


def test_the_scan_finds_a_literal_and_lets_catalogue_calls_logs_and_ids_pass(tmp_path: Path) -> None:
    # literals_in reports paths relative to the repository: the sample lives in a folder under it.
    root = Path(__file__).resolve().parents[2]
    sample = root / "tests" / "i18n" / "_sample_for_scan.py"
    sample.write_text(
        "import logging\n"
        "from bot.i18n import _\n"
        "log = logging.getLogger(__name__)\n"
        "def answer(who):\n"
        '    log.info("table %s: a line for the logs", who)\n'
        '    button = make(custom_id="e8:1:join now")\n'
        '    ok = _("{who} played a card", who=who)\n'
        '    return f"{who} has left the table" + ok\n'
    )
    try:
        found = [literal.text for literal in literals_in(sample)]
    finally:
        sample.unlink()
    assert found == [" has left the table"]
