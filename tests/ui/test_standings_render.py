"""Rendering of the standings: what the embeds say and how the persistent buttons encode their state."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import threading
import time

import discord
import pytest
from PIL import Image

from bot.service.server import ServerSettings
from bot.service.standings import (
    BoardRow,
    LeaderboardPage,
    PastMatch,
    Placing,
    PlayerRecord,
    RatedRow,
    RatingRecord,
)
from bot.ui import standings as standings_ui
from bot.ui.art.rating import rating_chart
from bot.ui.replays import history_view
from bot.ui.standings import (
    HOUSE_RULES_SHORTEST,
    STANDINGS_DYNAMIC_ITEMS,
    ForgetButton,
    LeaderboardPageButton,
    duration,
    forget_view,
    history_embed,
    leaderboard_embed,
    leaderboard_view,
    ordinal,
    settings_embed,
    stats_embed,
    stats_picture,
)

GUILD = 111_111_111_111_111_111
VIEWER = 999_999_999_999_999_999
# A guild that never changed its settings.
SETTINGS = ServerSettings(
    guild_id=GUILD,
    default_preset="classic",
    default_turn_timeout=90.0,
    allowed_channel_ids=(),
    manager_role_id=None,
)


def row(rank: int, user_id: int, *, played: int = 10, won: int = 5, points: int = 7) -> BoardRow:
    return BoardRow(
        rank=rank,
        user_id=user_id,
        matches_played=played,
        matches_won=won,
        win_rate=won / played,
        points=points,
    )


def board(
    *,
    page: int = 1,
    page_count: int = 3,
    sort: str = "wins",
    rows: list[BoardRow] | None = None,
    viewer: BoardRow | None = None,
) -> LeaderboardPage:
    return LeaderboardPage(
        guild_id=GUILD,
        sort=sort,  # type: ignore[arg-type]
        page=page,
        page_count=page_count,
        player_count=page_count * 10 - 3,
        rows=rows if rows is not None else [row(i, 1000 + i) for i in range(1, 11)],
        viewer_id=VIEWER,
        viewer=viewer,
        min_matches=5,
    )


@pytest.mark.parametrize(
    ("n", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st")],
)
def test_ordinal(n: int, text: str) -> None:
    assert ordinal(n) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(15, "15 s"), (90, "1 min 30 s"), (3600, "1 h"), (86400, "24 h"), (3661, "1 h 1 min 1 s")],
)
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_leaderboard_lists_the_page_in_rank_order_with_mentions() -> None:
    rows = [row(11, 501, won=9), row(12, 502, won=8, played=9)]
    embed = leaderboard_embed(board(page=2, rows=rows))
    lines = (embed.description or "").splitlines()
    assert lines[0] == "**11.** <@501> — **9** wins · 10 played · 90%"
    assert lines[1] == "**12.** <@502> — **8** wins · 9 played · 89%"
    assert embed.footer.text == "Page 2 of 3 · 27 players"
    assert "wins" in (embed.title or "")


def test_leaderboard_shows_the_viewers_rank_when_they_are_off_the_page() -> None:
    embed = leaderboard_embed(board(viewer=row(23, VIEWER, won=1, played=4)))
    description = embed.description or ""
    assert f"<@{VIEWER}> is **23rd** of 27 — **1** win · 4 played · 25%" in description
    # The page itself is not changed by the viewer's line.
    assert description.count("<@") == 11


def test_leaderboard_says_when_the_viewer_is_not_on_the_board() -> None:
    wins = leaderboard_embed(board(viewer=None)).description or ""
    assert f"<@{VIEWER}> has not finished a match in this server yet." in wins
    rate = leaderboard_embed(board(viewer=None, sort="winrate"))
    assert f"<@{VIEWER}> needs 5 finished matches to be ranked by win rate." in (rate.description or "")
    assert rate.footer.text is not None and rate.footer.text.endswith("with at least 5 matches")


def test_leaderboard_figures_follow_the_sort() -> None:
    top = [row(1, 7, played=8, won=6, points=13)]
    rate = leaderboard_embed(board(sort="winrate", rows=top, page_count=1)).description or ""
    points = leaderboard_embed(board(sort="points", rows=top, page_count=1)).description or ""
    assert rate.startswith("**1.** <@7> — **75%** · 6 of 8 won")
    assert points.startswith("**1.** <@7> — **13** points · 6 won · 8 played")
    one = leaderboard_embed(board(sort="points", rows=[row(1, 7, played=1, won=0, points=1)], page_count=1))
    assert (one.description or "").startswith("**1.** <@7> — **1** point · 0 won · 1 played")


def test_leaderboard_buttons_carry_guild_sort_page_and_viewer() -> None:
    view = leaderboard_view(board(page=2, page_count=3, sort="points"))
    previous, following = view.children
    assert isinstance(previous, LeaderboardPageButton)
    assert isinstance(following, LeaderboardPageButton)
    assert previous.custom_id == f"eights-lb:{GUILD}:points:1:{VIEWER}"
    assert following.custom_id == f"eights-lb:{GUILD}:points:3:{VIEWER}"
    assert not previous.item.disabled and not following.item.disabled
    assert len(previous.custom_id) <= 100
    match = re.fullmatch(LeaderboardPageButton.__discord_ui_compiled_template__, following.custom_id)
    assert match is not None
    assert (match["guild"], match["sort"], match["page"], match["viewer"]) == (
        str(GUILD),
        "points",
        "3",
        str(VIEWER),
    )


@pytest.mark.parametrize(
    ("page", "page_count", "prev_off", "next_off"),
    [(1, 3, True, False), (3, 3, False, True), (1, 1, True, True)],
)
def test_leaderboard_buttons_are_disabled_at_the_ends(
    page: int, page_count: int, prev_off: bool, next_off: bool
) -> None:
    view = leaderboard_view(board(page=page, page_count=page_count))
    previous, following = view.children
    assert isinstance(previous, LeaderboardPageButton) and isinstance(following, LeaderboardPageButton)
    assert (previous.item.disabled, following.item.disabled) == (prev_off, next_off)
    assert previous.custom_id != following.custom_id  # Discord refuses duplicate custom ids in one message


async def test_leaderboard_button_is_rebuilt_from_its_custom_id() -> None:
    custom_id = f"eights-lb:{GUILD}:winrate:4:{VIEWER}"
    match = LeaderboardPageButton.__discord_ui_compiled_template__.fullmatch(custom_id)
    assert match is not None
    template_item = discord.ui.Button[discord.ui.View](label="Next", custom_id=custom_id)
    button = await LeaderboardPageButton.from_custom_id(None, template_item, match)  # type: ignore[arg-type]
    assert (button.guild_id, button.sort, button.page, button.viewer_id) == (GUILD, "winrate", 4, VIEWER)
    assert button.custom_id == custom_id
    assert button.item.label == "Next"


def test_unknown_sort_does_not_match_the_template() -> None:
    assert (
        LeaderboardPageButton.__discord_ui_compiled_template__.fullmatch(f"eights-lb:{GUILD}:x:1:{VIEWER}")
        is None
    )


def stats(**changes: object) -> PlayerRecord:
    values: dict[str, object] = dict(
        user_id=42,
        matches_played=8,
        matches_won=3,
        rounds_played=20,
        rounds_won=9,
        round_points=247,
        points=11,
        best_place=1,
        last_played_at=1_700_000_000.7,
        favourite_preset="switch",
    )
    values.update(changes)
    return PlayerRecord(**values)  # type: ignore[arg-type]


def fields(embed: discord.Embed) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}


def test_stats_show_every_figure_the_issue_asks_for() -> None:
    embed = stats_embed(stats())
    shown = fields(embed)
    assert "<@42>" in (embed.description or "")
    assert shown["Matches"] == "8 played · 3 won"
    assert shown["Win rate"] == "38%"
    assert shown["Rounds won"] == "9 of 20"
    assert shown["Average round score"] == "12.3"  # 247 / 20
    assert shown["Best finish"] == "1st"
    assert shown["Favourite preset"] == "switch"
    assert shown["Last played"] == "<t:1700000000:R>"


def test_stats_without_rounds_or_dates_show_dashes() -> None:
    quiet = stats(
        rounds_played=0,
        rounds_won=0,
        round_points=0,
        best_place=None,
        last_played_at=None,
        favourite_preset=None,
    )
    shown = fields(stats_embed(quiet))
    assert shown["Average round score"] == "—"
    assert shown["Best finish"] == "—"
    assert shown["Last played"] == "—"
    assert shown["Favourite preset"] == "—"


def entry(position: int, user_id: int | None, name: str, place: int, total: int) -> Placing:
    return Placing(position=position, user_id=user_id, display_name=name, place=place, total=total)


def test_history_lists_matches_with_their_rankings_in_place_order() -> None:
    match = PastMatch(
        table_id=5,
        channel_id=77,
        preset="classic",
        finished_at=1_700_000_123.0,
        rounds_played=3,
        ranking=(
            entry(0, 10, "Ann", 2, 40),
            entry(1, None, "CPU *hard*", 1, 12),
            entry(2, 11, "Bob", 2, 40),
        ),
    )
    embed = history_embed([match])
    (field,) = embed.fields
    assert field.name == "classic · 3 rounds"
    assert (
        field.value == "<t:1700000123:R> in <#77>\n1st CPU \\*hard\\* (12) · 2nd <@10> (40) · 2nd <@11> (40)"
    )


def test_history_of_ten_big_matches_fits_discords_embed_limits() -> None:
    long_name = "@everyone " + "x" * 40
    matches = [
        PastMatch(
            table_id=i,
            channel_id=77,
            preset="must-play",
            finished_at=1_700_000_000.0 + i,
            rounds_played=12,
            ranking=tuple(entry(p, None, long_name, p + 1, 1000 + p) for p in range(8)),
        )
        for i in range(10)
    ]
    embed = history_embed(matches)
    assert len(embed.fields) == 10
    assert len(embed) <= 6000
    assert all(len(str(f.value)) <= 1024 for f in embed.fields)
    assert "@everyone" not in str(
        embed.fields[0].value
    )  # escaped: a stored name never reaches anyone as a ping


# A server whose default house rules (/eights settings house_option) give every table a dozen.
DOZEN_HOUSE_RULES = (
    "Draw up to 3 cards, then you may pass",
    "Call your last card or be caught; 4 cards for a player caught",
    "After a play you may play more cards of the same rank",
    "Two decks above 2 players",
    "No reshuffle: a draw that cannot be made ends the round",
    "A 2 makes the next player draw 2; stacking up to 8",
    "A J skips the next player; a Q reverses the order of play",
    "An 8 must match the target like any other card",
    "A wild may answer a pending draw, which it cancels",
    "With two players a reverse also skips the other player",
    "Hands of 6 cards (8 with two players)",
    "The match is played over 5 rounds; most points lead the next round",
)


def busy_match(table_id: int, *, name: str | None = None, user_ids: bool = True) -> PastMatch:
    """An eight-seat party match with a dozen house rules, as a party server plays them: its players people
    (shown as mentions) or, without ``user_ids``, seats shown by their stored ``name``."""
    ranking = tuple(
        entry(
            p,
            100 + p if user_ids else None,
            name or f"Player{p}_{table_id}_".ljust(32, "x"),
            p + 1,
            10 * p,
        )
        for p in range(8)
    )
    return PastMatch(
        ranking=ranking,
        table_id=table_id,
        channel_id=555,
        preset="party",
        finished_at=1_700_000_000.0 + table_id,
        rounds_played=3,
        house_rules=DOZEN_HOUSE_RULES,
    )


def offered(view: discord.ui.View) -> list[str]:
    """The values of the Replay select's options: the matches' numbers."""
    (select,) = view.children
    return [option.value for option in select.item.options]  # type: ignore[attr-defined]


def test_the_replay_select_offers_only_the_matches_the_history_lists() -> None:
    """Ten matches too long for one embed even with their house rules shortened (eight seats whose stored
    names are all markdown, twice as long once escaped): the history keeps within Discord's 6,000
    characters by leaving out the oldest matches, and the Replay select under it offers exactly the matches
    it lists, newest first; never one the list left out (what it was, who played, when and where would not
    be shown for it)."""
    matches = [busy_match(table_id, name="*_" * 16, user_ids=False) for table_id in range(100, 90, -1)]
    embed = history_embed(matches)
    assert len(embed) <= 6000
    assert 1 <= len(embed.fields) < len(matches)
    listed = [str(m.table_id) for m in matches[: len(embed.fields)]]
    assert offered(history_view(matches)) == listed


def test_the_history_shortens_house_rules_before_leaving_matches_out() -> None:
    """Ten matches with a dozen house rules each pass 6,000 characters with their rules in full: the
    history shortens every house-rules line alike (each still says the rules it starts with, "…" after)
    rather than leave whole matches out, and lists all ten, each offered by the Replay select. A history
    that fits keeps its house rules whole."""
    matches = [busy_match(table_id) for table_id in range(100, 90, -1)]
    embed = history_embed(matches)
    assert len(embed) <= 6000
    assert len(embed.fields) == len(matches)
    rules = [str(field.value).splitlines()[-1] for field in embed.fields]
    assert all(line.startswith("House rules: Draw up to 3 cards") and line.endswith("…") for line in rules)
    assert all(len(line) >= HOUSE_RULES_SHORTEST for line in rules)
    assert len({len(line) for line in rules}) == 1, rules
    assert offered(history_view(matches)) == [str(m.table_id) for m in matches]

    (field,) = history_embed(matches[:1]).fields
    assert str(field.value).splitlines()[-1] == "House rules: " + "; ".join(DOZEN_HOUSE_RULES)


def test_settings_embed_shows_defaults_and_choices() -> None:
    default = fields(settings_embed(SETTINGS))
    assert default == {
        "Default preset": "classic",
        "Default turn timeout": "1 min 30 s",
        "Table channels": "any channel",
        "Table manager role": "none (members with Manage Channels manage tables)",
        "House rules for new tables": "none: each preset as it is",
    }
    chosen = settings_embed(
        ServerSettings(
            guild_id=GUILD,
            default_preset="party",
            default_turn_timeout=3600.0,
            allowed_channel_ids=(5, 6),
            manager_role_id=9,
            default_house_rules=("Partnership: four players", "One card a turn"),
        ),
        changed=True,
    )
    assert fields(chosen) == {
        "Default preset": "party",
        "Default turn timeout": "1 h",
        "Table channels": "<#5>, <#6>",
        "Table manager role": "<@&9>",
        "House rules for new tables": "Partnership: four players; One card a turn",
    }
    assert "saved" in (chosen.title or "")


def test_settings_embed_says_which_house_rules_the_default_presets_tables_start_without() -> None:
    """Each new table gets the server's house rules its preset takes: the answer lists them all, then those
    the default preset's tables start without, with the preset named as the reader's Discord names it."""
    settings = dataclasses.replace(
        SETTINGS,
        default_preset="must-play",
        default_house_rules=("Draw up to 3 cards", "No reshuffle"),
        default_preset_without=("Draw up to 3 cards (the draw limit must be one card)",),
    )
    assert fields(settings_embed(settings))["House rules for new tables"] == (
        "Draw up to 3 cards; No reshuffle\n"
        "Not at must-play tables (the default preset): Draw up to 3 cards (the draw limit must be one card)"
    )


def test_forget_buttons_name_the_user_and_the_choice() -> None:
    view = forget_view(VIEWER)
    confirm, cancel = view.children
    assert isinstance(confirm, ForgetButton) and isinstance(cancel, ForgetButton)
    assert confirm.custom_id == f"eights-forget:{VIEWER}:yes"
    assert cancel.custom_id == f"eights-forget:{VIEWER}:no"
    assert confirm.item.style is discord.ButtonStyle.danger


def test_dynamic_items_are_exported_for_registration() -> None:
    assert set(STANDINGS_DYNAMIC_ITEMS) == {LeaderboardPageButton, ForgetButton}
    assert all(issubclass(item, discord.ui.DynamicItem) for item in STANDINGS_DYNAMIC_ITEMS)


# --- ratings ------------------------------------------------------------------------------------------------


def rated(rank: int, user_id: int | None, skill: float, matches: int, level: str | None = None) -> RatedRow:
    return RatedRow(
        rank=rank,
        user_id=user_id,
        cpu_level=level,
        display_name=level or f"P{user_id}",
        skill=skill,
        mu=skill + 9.0,
        sigma=3.0,
        matches=matches,
    )


def rating(rank: int | None, history: tuple[float, ...] = (0.4, 1.7, 1.2), matches: int = 7) -> RatingRecord:
    return RatingRecord(
        skill=history[-1], mu=history[-1] + 9.0, sigma=3.0, matches=matches, rank=rank, ranked_count=12,
        change=history[-1] - history[-2] if len(history) > 1 else history[-1], history=history,
    )  # fmt: skip


def rating_board(viewer: RatingRecord | None) -> LeaderboardPage:
    return LeaderboardPage(
        guild_id=GUILD, sort="rating", page=1, page_count=2, player_count=12, rows=[], viewer_id=VIEWER,
        viewer=None, min_matches=5,
        rated=[rated(1, 1001, 14.25, 30), rated(2, None, 9.0, 12, "hard"), rated(3, 1003, -0.04, 6)],
        provisional=[rated(1, 1004, 2.5, 1)], provisional_count=3, viewer_rating=viewer,
    )  # fmt: skip


def test_rating_board_shows_skill_and_matches_and_lists_provisional_players_apart() -> None:
    embed = leaderboard_embed(rating_board(rating(4)))
    assert embed.title == "Crazy Eights leaderboard — by rating"
    assert (embed.description or "").splitlines() == [
        "**1.** <@1001> — **14.2** · 30 matches",
        "**2.** CPU (hard) — **9.0** · 12 matches",
        "**3.** <@1003> — **0.0** · 6 matches",  # never "-0.0"
        "",
        "**Provisional** (fewer than 5 rated matches)",
        "<@1004> — **2.5** · 1 match",
        "… and 2 more",
        "",
        f"<@{VIEWER}> is **4th** of 12 — **1.2**",
    ]
    assert (embed.footer.text or "").startswith("Page 1 of 2 · 12 ranked · rating = skill − 3 × uncertainty")


def test_a_later_rating_page_lists_its_share_of_the_provisional_players_and_counts_only_those_after() -> None:
    """Page 2 of a board whose ranked players all fit on page 1: no ranked line, no "Nobody has 5 rated
    matches yet" (there are ranked players, on page 1) and no blank line first; its provisional players, and
    "… and N more" counts only those on later pages."""
    page = dataclasses.replace(
        rating_board(rating(4)), page=2, page_count=3, rated=[], provisional=[rated(1, 1005, 1.5, 2)],
        provisional_count=23, provisional_offset=10,
    )  # fmt: skip
    lines = (leaderboard_embed(page).description or "").splitlines()
    assert lines[:3] == [
        "**Provisional** (fewer than 5 rated matches)",
        "<@1005> — **1.5** · 2 matches",
        "… and 12 more",
    ]
    last = dataclasses.replace(page, page=3, provisional_offset=22)
    assert "… and" not in (leaderboard_embed(last).description or "")


def test_rating_board_viewer_line_when_provisional_or_unrated() -> None:
    provisional = leaderboard_embed(rating_board(rating(None, (2.0,), matches=1)))
    assert (provisional.description or "").splitlines()[-1] == (
        f"<@{VIEWER}> — **2.0**, provisional: 1 of 5 rated matches"
    )
    unrated = leaderboard_embed(rating_board(None))
    assert (unrated.description or "").splitlines()[-1] == f"<@{VIEWER}> has no rating in this server yet."


def test_rating_board_buttons_keep_the_rating_sort() -> None:
    (_, after) = leaderboard_view(rating_board(None)).children
    assert isinstance(after, LeaderboardPageButton) and after.sort == "rating"
    assert after.custom_id == f"eights-lb:{GUILD}:rating:2:{VIEWER}"


async def test_stats_show_the_rating_rank_change_and_its_picture() -> None:
    record = stats(rating=rating(4))
    embed = stats_embed(record)
    assert fields(embed)["Rating"] == (
        "**1.2** · 4th of 12 in this server · -0.5 in the last match · 7 rated matches\nskill 10.2 ± 3.0"
    )
    assert embed.image.url == "attachment://rating.png"
    picture = await stats_picture(record)
    assert picture is not None and picture.filename == "rating.png"
    assert (
        picture.description
        == "Rating over the last 3 rated matches: from 0.4 to 1.2, lowest 0.4, highest 1.7."
    )
    data = picture.fp.read()
    assert data.startswith(b"\x89PNG")
    with Image.open(io.BytesIO(data)) as image:
        assert image.size == (480, 160)
    # A gain is signed, and a provisional rating says so; its picture's description gives the one point.
    one = await stats_picture(stats(rating=rating(None, (2.61,), matches=1)))
    assert one is not None and one.description == "Rating after 1 rated match: 2.6."
    first = stats_embed(stats(rating=rating(None, (2.61,), matches=1)))
    assert fields(first)["Rating"].startswith(
        "**2.6** · provisional · +2.6 in the last match · 1 rated match"
    )


async def test_stats_before_any_rated_match_have_no_rating_and_no_picture() -> None:
    record = stats()
    assert "Rating" not in fields(stats_embed(record)) and stats_embed(record).image.url is None
    assert await stats_picture(record) is None


async def test_the_rating_picture_is_drawn_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """/eights stats draws the chart in a worker thread: the loop keeps running while it is drawn."""
    loop_thread = threading.get_ident()
    drawn_in: list[int] = []

    def slow_chart(history: tuple[float, ...]) -> bytes:
        drawn_in.append(threading.get_ident())
        time.sleep(0.3)  # a slow drawing: on the loop, nothing else would run meanwhile
        return rating_chart(history)

    monkeypatch.setattr(standings_ui, "rating_chart", slow_chart)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    try:
        picture = await stats_picture(stats(rating=rating(4)))
    finally:
        ticker.cancel()
    assert picture is not None and picture.fp.read().startswith(b"\x89PNG")
    assert drawn_in and drawn_in[0] != loop_thread
    assert ticks >= 10  # the loop ran other work throughout the 0.3 s drawing


def test_the_rating_picture_is_the_same_for_the_same_history_and_differs_with_it() -> None:
    assert rating_chart((0.0, 1.5, 3.0)) == rating_chart((0.0, 1.5, 3.0))
    assert rating_chart((0.0, 1.5, 3.0)) != rating_chart((0.0, 3.0, 1.5))
    assert rating_chart((5.0,)).startswith(b"\x89PNG")  # one match: a single point
    with pytest.raises(ValueError):
        rating_chart(())
