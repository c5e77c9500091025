"""README, *Configuration*: "`python -m bot check` shows what is in effect." The settings an admin sets in
.env must each show in `check`'s report with the value the bot will use."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import bot


def test_check_shows_the_move_log_retention_card_colours_and_art_cache_in_effect(tmp_path: Path) -> None:
    """Expected: `check` reports the retention (90 days), the card colours (classic) and the art cache
    folder the bot will use. Before, bot/cli.py cmd_check printed none of the three (the art cache only when
    it cannot be written), so an admin could not see whether retention is on."""
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=" + "x" * 59 + "\nMOVE_LOG_RETENTION_DAYS=90\nEIGHTS_CARD_COLOURS=classic\n"
        "EIGHTS_ART_CACHE=cache/cards\n"
    )
    (tmp_path / ".env").chmod(0o600)
    result = bot(tmp_path, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.lower().splitlines()
    assert any("90" in line and ("retention" in line or "move log" in line) for line in lines), result.stdout
    assert any("classic" in line for line in lines), result.stdout
    assert any("cache/cards" in line for line in lines), result.stdout
