"""Every screen in every language within Discord's limits: the lobby, the board in each phase, the turn lines
and ranking, the hand and its controls (classic and crazier-abilities), every refusal, the rules help of
every preset, the standings, and the house-rules panel.

Each shipped catalogue is checked as it is, and so is a "long" language made from the template (every
message a third longer, as German and French often are), so that the limits hold by the renderers'
clipping and splitting, not by English being short."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import discord
import pytest

import bot.i18n
from bot.engine import PRESETS, EngineError, rule_options
from bot.engine.crazier import get_preset as crazier_preset
from bot.engine.crazier import rules_help as crazier_rules_help
from bot.engine.errors import ERROR_MESSAGES
from bot.engine.rules import rules_help
from bot.exts.tables._information import _parts
from bot.i18n import LOCALES_DIR, translations, use_locale
from bot.service import SeatView, TableEvent
from bot.service.models import CardDisplay, RankingLine
from bot.service.views import house_option_view
from bot.ui import render
from bot.ui.controls import board_view, hand_view
from bot.ui.house_panel import HouseValueModal, option_content, option_view, panel_content, panel_view
from bot.ui.standings import history_embed, leaderboard_embed, settings_embed, stats_embed
from tests.i18n.catalogues import shipped, template
from tests.i18n.fixtures import write_catalogue
from tests.ui import test_crazier as crazier_ui
from tests.ui import test_standings_render as standings_ui
from tests.ui.snapshots import hand, seat, snapshot

LONG = "long"
LONG_NAME = "Maximilian Alexander von Württemberg-Hohenzollern " * 2  # 100 characters, as Discord allows


def _longer(text: str) -> str:
    return text if not text.strip() else f"⟦{text} ·{'·' * (len(text) // 3)}⟧"


@pytest.fixture(params=[*shipped(), LONG])
def language(request: pytest.FixtureRequest, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A shipped language, or the long one (installed as German, from the template)."""
    locale = request.param
    if locale == LONG:
        folder = tmp_path / "locales"
        messages: dict[Any, Any] = {}
        for m in template():
            if not m.id or (m.context or "").startswith("slash"):
                continue
            key = (m.context, m.id) if m.context else m.id
            if isinstance(m.id, tuple):
                key = (m.context, m.id[0]) if m.context else m.id[0]
                messages[key] = tuple(_longer(f) for f in m.id)
            else:
                messages[key] = _longer(m.id)
        write_catalogue(folder, "de", messages)
        monkeypatch.setattr(bot.i18n, "LOCALES_DIR", folder)
        locale = "de"
    else:
        monkeypatch.setattr(bot.i18n, "LOCALES_DIR", LOCALES_DIR)
    translations.cache_clear()
    with use_locale(locale):
        yield locale
    translations.cache_clear()


def check_embed(embed: discord.Embed) -> None:
    assert len(embed) <= 6000
    assert len(embed.title or "") <= 256
    assert len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    for field in embed.fields:
        assert 0 < len(str(field.name)) <= 256, field.name
        assert 0 < len(str(field.value)) <= 1024, field.value
    assert len(embed.footer.text or "") <= 2048


def check_content(text: str | None) -> None:
    assert text is None or len(text) <= 2000, len(text or "")


def check_view(view: discord.ui.View | None) -> None:
    if view is None:
        return
    assert len(view.children) <= 25
    for item in view.children:
        if isinstance(item, discord.ui.Button):
            assert item.label is None or 0 < len(item.label) <= 80, item.label
        if isinstance(item, discord.ui.Select):
            assert len(item.placeholder or "") <= 150
            assert len(item.options) <= 25
            for option in item.options:
                assert 0 < len(option.label) <= 100, option.label
                assert len(option.description or "") <= 100, option.description


def _seats(count: int, **changes: Any) -> tuple[SeatView, ...]:
    return tuple(
        seat(p, f"{LONG_NAME[:90]} {p}", 1000 + p if p % 2 == 0 else None, to_act=p == 0, **changes)
        for p in range(count)
    )


def _events() -> list[TableEvent]:
    kinds = [
        ("played", 0, {"card": "KH"}),
        ("suit_named", 0, {"suit": "S"}),
        ("drew", 1, {"count": 3}),
        ("passed", 1, {"forced": True}),
        ("skipped", 2, {}),
        ("reversed", None, {}),
        ("draw_penalty", 3, {"count": 4}),
        ("reshuffled", None, {"count": 30}),
        ("last_card_called", 0, {}),
        ("last_card_caught", 1, {"target": 0, "count": 2}),
        ("went_out", 2, {}),
        ("house_rule", None, {"text": "Draw up to 3 cards, then you may pass"}),
        ("round_over", None, {"winners": [0, 2], "blocked": False}),
        ("timed_out", 3, {"name": LONG_NAME}),
        ("round_result", None, {"scores": [0, 12, 40, 7], "totals": [10, 52, 80, 17]}),
        ("closed", None, {"reason": "lobby_expired"}),
    ]
    return [TableEvent(kind, s, data, "engine") for kind, s, data in kinds * 3]


def test_the_lobby_and_the_board_in_every_phase(language: str) -> None:
    ruleset = replace(PRESETS["party"], draw_limit=3, after_draw="draw-up-to")
    seats = _seats(8)
    phases: list[dict[str, Any]] = [
        {"phase": "lobby", "status": "lobby", "round_number": 0, "deadline_kind": "lobby"},
        {"phase": "playing", "pending_draw": 4, "declared_suit": "H"},
        {
            "phase": "between_rounds",
            "round_scores": ((0, 12, 40, 7, 1, 2, 3, 4),) * 9,
            "deadline_kind": "pause",
        },
        {
            "phase": "finished",
            "status": "finished",
            "ranking": tuple(RankingLine(p + 1, p, LONG_NAME, 100 + p, None) for p in range(8)),
        },
        {"phase": "abandoned", "status": "abandoned"},
    ]
    for changes in phases:
        snap = snapshot(seats=seats, ruleset=ruleset, recent=tuple(_events()), max_seats=8, **changes)
        check_embed(render.board_embed(snap))
        check_view(board_view(snap))
        check_content(render.final_ranking_text(snap))
        check_content(render.scores_text(snap))
        line, _mention = render.turn_line(_events(), snap, hand_is_fresh=False)
        check_content(line)


def test_the_crazier_board_and_hand(language: str) -> None:
    match = crazier_ui.table(crazier_ui.HANDS, "9G", in_play=[["4B", "5B", "6B"], ["JB", "QB"], ["KB"]])
    snap = crazier_ui.snap_of(match)
    check_embed(render.board_embed(snap))
    for position in range(3):
        view = crazier_ui.hand_of(match, position)
        check_content(render.hand_content(view))
        check_view(hand_view(view))


def test_a_crazier_team_board_with_every_asset_in_play(language: str) -> None:
    """Six players with Discord's longest names (32 characters: markdown, escaped, or plain), at the table or
    gone with a CPU playing for them, all 24 assets in play, five long last plays or one: within the limits
    in every language (6,017 characters in German and 6,190 in the long language as written whole). Too
    long, the board drops whole lines (the oldest last plays, then the longest cards in play) and says so;
    who is to move and the seats stay whole."""
    for names in (crazier_ui.MARKUP_NAMES, crazier_ui.PLAIN_NAMES):
        for taken_over in (False, True):
            for recent in (crazier_ui.TEAM_PLAYS, crazier_ui.TEAM_PLAYS[:2]):
                snap = crazier_ui.team_board(names, taken_over=taken_over, recent=recent)
                board = render.board_embed(snap)
                check_embed(board)
                shortened = crazier_ui.shortened_fields(board, crazier_ui.unshortened(snap))
                assert bot.i18n._("Seats") not in shortened


@pytest.mark.parametrize("language", [LONG], indirect=True)
def test_a_crazier_board_whose_last_plays_stay_whole_shortens_its_longest_cards_in_play(
    language: str,
) -> None:
    """In the long language, six players named with 32 characters of markdown whom a CPU plays for, every
    asset in play and a single last play: the board is over 6,000 characters, and its one last play stays
    whole (the newest play is never cut). The longest "In play" field gives way instead: its last cards'
    lines go, "…" after the rest."""
    snap = crazier_ui.team_board(crazier_ui.MARKUP_NAMES, taken_over=True, recent=crazier_ui.TEAM_PLAYS[:2])
    whole = crazier_ui.unshortened(snap)
    board = render.board_embed(snap)
    assert len(whole) > 6000
    in_play = [f for f in whole.fields if str(f.value).startswith("• ")]
    assert len(in_play) == 6
    longest = max(in_play, key=lambda f: len(str(f.value)))
    assert crazier_ui.shortened_fields(board, whole) == [longest.name]
    check_embed(board)


def test_the_hand_and_its_controls(language: str) -> None:
    snap = snapshot(seats=_seats(4), pending_draw=6)
    codes = [
        f"{r}{s}" for s in "CDHS" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    ]
    for playable in (set(codes[:3]), set(codes)):
        shown = hand(codes, playable, snap, can_call_last=True, catch_targets=(1, 2, 3))
        check_content(render.hand_content(shown, note=_longer("You played K♥. You drew 7♣.")))
        check_view(hand_view(shown))
    suit = hand(codes[:5], set(), snap, must_name_suit=True)
    check_view(hand_view(suit))


def test_every_refusal(language: str) -> None:
    for code in ERROR_MESSAGES:
        check_content(EngineError(code).message)
    for message in template():
        if message.id and not isinstance(message.id, tuple):
            check_content(bot.i18n._(message.id))


def test_the_rules_help_of_every_preset(language: str) -> None:
    texts = [rules_help(preset) for preset in PRESETS.values()]
    texts += [crazier_rules_help(crazier_preset("crazier-abilities", teams=teams)) for teams in (False, True)]
    for text in texts:
        for part in _parts(text, 2000):  # how /eights rules sends it
            check_content(part)


def test_the_standings(language: str) -> None:
    check_embed(leaderboard_embed(standings_ui.board()))
    check_embed(leaderboard_embed(standings_ui.board(sort="winrate")))
    check_embed(leaderboard_embed(standings_ui.rating_board(standings_ui.rating(None))))
    check_embed(stats_embed(standings_ui.stats()))
    matches = [
        standings_ui.PastMatch(
            table_id=i,
            channel_id=77,
            preset="must-play",
            finished_at=1_700_000_000.0 + i,
            rounds_played=12,
            ranking=tuple(standings_ui.entry(p, None, LONG_NAME, p + 1, 1000 + p) for p in range(8)),
            house_rules=("Draw up to 3 cards, then you may pass",) * 5,
        )
        for i in range(10)
    ]
    check_embed(history_embed(matches))
    check_embed(settings_embed(standings_ui.SETTINGS, CardDisplay(language="de"), changed=True))


def test_the_house_rules_panel(language: str) -> None:
    ruleset = replace(PRESETS["classic"], draw_limit=3, after_draw="draw-up-to", stacking=True)
    options = [house_option_view(ruleset, o.key) for o in rule_options.OPTIONS]
    check_content(
        panel_content([_longer(line) for line in ("Draw up to 3 cards, then you may pass",) * 30], "classic")
    )
    check_view(panel_view(7, options))
    for option in options:
        check_content(option_content(option, note=_longer("That house rule can't be used.")))
        check_view(option_view(7, option))
        modal = HouseValueModal(7, option)
        assert len(modal.title) <= 45
