"""How the standings look on Discord: leaderboard, statistics, history and settings embeds, the leaderboard's
Previous/Next buttons and the confirmation buttons of /eights forget.

Players are shown as mentions (``<@id>``): an embed never pings, and a mention shows the member's current name
where the stored display name would be the one they had when they played. Seats without a user (CPU seats,
players who asked to be forgotten) show their stored name, escaped.

The buttons are ``DynamicItem``s whose custom ids carry everything they need, so they keep working after a
restart; a click goes to the cog that owns it (``bot.ui.routing``): the leaderboard's to the standings cog,
the forget confirmation's to the server cog.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Sequence
from typing import Any, Protocol, cast, runtime_checkable

import discord

from bot.service.models import CardDisplay
from bot.service.server import ServerSettings
from bot.service.standings import (
    LEADERBOARD_SORTS,
    BoardRow,
    BoardSort,
    LeaderboardPage,
    PastMatch,
    Placing,
    PlayerRecord,
    RatedRow,
    RatingRecord,
)
from bot.ui import routing
from bot.ui.art.rating import alt_text, rating_chart
from bot.ui.names import shown_name
from bot.ui.paging import page_row

SORT_LABELS: dict[BoardSort, str] = {
    "rating": "rating",
    "wins": "wins",
    "winrate": "win rate",
    "points": "points",
}
RATING_PICTURE = "rating.png"
COLOUR = discord.Colour.dark_green()

# Discord's embed limits.
FIELD_VALUE_LIMIT = 1024
DESCRIPTION_LIMIT = 4096


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def percent(rate: float) -> str:
    return f"{round(rate * 100)}%"


def duration(seconds: float) -> str:
    """90 -> '1 min 30 s', 3600 -> '1 h', 86400 -> '24 h'."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p) or "0 s"


def player_name(user_id: int | None, display_name: str) -> str:
    if user_id is not None:
        return f"<@{user_id}>"
    return shown_name(display_name) or "someone"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- leaderboard --------------------------------------------------------------------------------------------


def _row_figures(row: BoardRow, sort: BoardSort) -> str:
    played = f"{row.matches_played} played"
    if sort == "winrate":
        return f"**{percent(row.win_rate)}** · {row.matches_won} of {row.matches_played} won"
    if sort == "points":
        points = "point" if row.points == 1 else "points"
        return f"**{row.points}** {points} · {row.matches_won} won · {played}"
    wins = "win" if row.matches_won == 1 else "wins"
    return f"**{row.matches_won}** {wins} · {played} · {percent(row.win_rate)}"


def skill(value: float) -> str:
    """A displayed rating, one decimal; never "-0.0"."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def signed(change: float) -> str:
    text = skill(change)
    return text if text.startswith("-") or text == "0.0" else f"+{text}"


def _rated_name(row: RatedRow) -> str:
    if row.cpu_level is not None:
        return f"CPU ({row.cpu_level})"
    return player_name(row.user_id, row.display_name)


def _rated_figures(row: RatedRow) -> str:
    matches = "1 match" if row.matches == 1 else f"{row.matches} matches"
    return f"**{skill(row.skill)}** · {matches}"


def _rating_embed(page: LeaderboardPage) -> discord.Embed:
    lines = [f"**{row.rank}.** {_rated_name(row)} — {_rated_figures(row)}" for row in page.rated]
    if not page.rated:
        lines.append(f"Nobody has {page.rated_to_rank} rated matches yet.")
    if page.provisional:
        lines += ["", f"**Provisional** (fewer than {page.rated_to_rank} rated matches)"]
        lines += [f"{_rated_name(row)} — {_rated_figures(row)}" for row in page.provisional]
        more = page.provisional_count - len(page.provisional)
        if more > 0:
            lines.append(f"… and {more} more")
    lines.append("")
    mine = page.viewer_rating
    if mine is None:
        lines.append(f"<@{page.viewer_id}> has no rating in this server yet.")
    elif mine.rank is None:
        lines.append(
            f"<@{page.viewer_id}> — **{skill(mine.skill)}**, provisional: "
            f"{mine.matches} of {page.rated_to_rank} rated matches"
        )
    else:
        lines.append(
            f"<@{page.viewer_id}> is **{ordinal(mine.rank)}** of {mine.ranked_count} — "
            f"**{skill(mine.skill)}**"
        )
    embed = discord.Embed(
        title="Crazy Eights leaderboard — by rating",
        description=_clip("\n".join(lines), DESCRIPTION_LIMIT),
        colour=COLOUR,
    )
    players = "1 ranked" if page.player_count == 1 else f"{page.player_count} ranked"
    embed.set_footer(
        text=f"Page {page.page} of {page.page_count} · {players} · "
        "rating = skill − 3 × uncertainty (OpenSkill), so it grows as results confirm it"
    )
    return embed


def leaderboard_embed(page: LeaderboardPage) -> discord.Embed:
    if page.sort == "rating":
        return _rating_embed(page)
    lines = [f"**{row.rank}.** <@{row.user_id}> — {_row_figures(row, page.sort)}" for row in page.rows]
    lines.append("")
    if page.viewer is not None:
        lines.append(
            f"<@{page.viewer_id}> is **{ordinal(page.viewer.rank)}** of {page.player_count} — "
            f"{_row_figures(page.viewer, page.sort)}"
        )
    elif page.sort == "winrate":
        lines.append(
            f"<@{page.viewer_id}> needs {page.min_matches} finished matches to be ranked by win rate."
        )
    else:
        lines.append(f"<@{page.viewer_id}> has not finished a match in this server yet.")
    embed = discord.Embed(
        title=f"Crazy Eights leaderboard — by {SORT_LABELS[page.sort]}",
        description=_clip("\n".join(lines), DESCRIPTION_LIMIT),
        colour=COLOUR,
    )
    players = "1 player" if page.player_count == 1 else f"{page.player_count} players"
    footer = f"Page {page.page} of {page.page_count} · {players}"
    if page.sort == "winrate":
        footer += f" with at least {page.min_matches} matches"
    embed.set_footer(text=footer)
    return embed


LEADERBOARD_TEMPLATE = (
    r"eights-lb:(?P<guild>\d+):(?P<sort>" + "|".join(LEADERBOARD_SORTS) + r"):(?P<page>\d+):(?P<viewer>\d+)"
)


# The cogs that own the buttons below (``bot.exts.standings``, ``bot.exts.server``); see ``bot.ui.routing``.
STANDINGS_COG = "Eights standings"
SERVER_COG = "Eights server"


@runtime_checkable
class LeaderboardPages(Protocol):
    async def on_leaderboard_page(
        self, interaction: discord.Interaction[Any], guild_id: int, sort: BoardSort, page: int, viewer_id: int
    ) -> None: ...


@runtime_checkable
class ForgetAnswers(Protocol):
    async def on_forget_answer(
        self, interaction: discord.Interaction[Any], user_id: int, confirm: bool
    ) -> None: ...


class LeaderboardPageButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=LEADERBOARD_TEMPLATE):
    """Previous or Next under a leaderboard: edits that message in place to show ``page``.

    The custom id names the member who asked for the board, and the page keeps showing *their* rank whoever
    clicks. The message is public and shared: rewriting its rank line for each clicker would make it say
    something different to everyone else reading it, and a private reply on every click would bury the channel
    in "only you can see this" messages. A clicker who wants their own rank runs /eights leaderboard.
    """

    def __init__(
        self,
        guild_id: int,
        sort: BoardSort,
        page: int,
        viewer_id: int,
        *,
        label: str,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"eights-lb:{guild_id}:{sort}:{page}:{viewer_id}",
                disabled=disabled,
            )
        )
        self.guild_id = guild_id
        self.sort = sort
        self.page = page
        self.viewer_id = viewer_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> LeaderboardPageButton:
        label = getattr(item, "label", None) or "Page"
        sort = cast(BoardSort, match["sort"])
        return cls(int(match["guild"]), sort, int(match["page"]), int(match["viewer"]), label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        found = await routing.handler(interaction, STANDINGS_COG, LeaderboardPages)  # type: ignore[type-abstract]
        if found is not None:
            await found.on_leaderboard_page(interaction, self.guild_id, self.sort, self.page, self.viewer_id)


def leaderboard_view(page: LeaderboardPage) -> discord.ui.View:
    """Previous and Next. Their custom ids differ by construction (page - 1 and page + 1), as Discord
    requires; a button with nowhere to go is shown disabled."""

    def button(move: str, target: int, disabled: bool) -> LeaderboardPageButton:
        label = "Previous" if move == "back" else "Next"
        return LeaderboardPageButton(
            page.guild_id, page.sort, target, page.viewer_id, label=label, disabled=disabled
        )

    return page_row(page.page, 1, max(1, page.page_count), ("back", "next"), button)


# --- statistics and history ---------------------------------------------------------------------------------


def stats_embed(stats: PlayerRecord) -> discord.Embed:
    embed = discord.Embed(
        title="Crazy Eights statistics", description=f"<@{stats.user_id}> in this server", colour=COLOUR
    )
    win_rate = stats.matches_won / stats.matches_played if stats.matches_played else 0.0
    embed.add_field(name="Matches", value=f"{stats.matches_played} played · {stats.matches_won} won")
    embed.add_field(name="Win rate", value=percent(win_rate))
    embed.add_field(name="Rounds won", value=f"{stats.rounds_won} of {stats.rounds_played}")
    average = f"{stats.round_points / stats.rounds_played:.1f}" if stats.rounds_played else "—"
    embed.add_field(name="Average round score", value=average)
    embed.add_field(name="Best finish", value=ordinal(stats.best_place) if stats.best_place else "—")
    embed.add_field(name="Favourite preset", value=stats.favourite_preset or "—")
    last = f"<t:{int(stats.last_played_at)}:R>" if stats.last_played_at is not None else "—"
    embed.add_field(name="Last played", value=last)
    embed.add_field(name="Ranking points", value=str(stats.points))
    if stats.rating is not None:
        embed.add_field(name="Rating", value=rating_line(stats.rating), inline=False)
        embed.set_image(url=f"attachment://{RATING_PICTURE}")
    return embed


def rating_line(rating: RatingRecord) -> str:
    matches = "1 rated match" if rating.matches == 1 else f"{rating.matches} rated matches"
    place = (
        f"{ordinal(rating.rank)} of {rating.ranked_count} in this server"
        if rating.rank is not None
        else "provisional"
    )
    return (
        f"**{skill(rating.skill)}** · {place} · {signed(rating.change)} in the last match · {matches}\n"
        f"skill {rating.mu:.1f} ± {rating.sigma:.1f}"
    )


async def stats_picture(stats: PlayerRecord) -> discord.File | None:
    """The rating over the player's last rated matches (the embed's image), with its alt text; None before
    the first rated match. Drawn in a worker thread, as the board pictures are: Pillow holds the thread for
    milliseconds, which on the event loop would hold up every table of the process."""
    if stats.rating is None or not stats.rating.history:
        return None
    history = stats.rating.history
    png = await asyncio.to_thread(rating_chart, history)
    return discord.File(io.BytesIO(png), filename=RATING_PICTURE, description=alt_text(history))


def _ranking_line(entry: Placing) -> str:
    return f"{ordinal(entry.place)} {player_name(entry.user_id, entry.display_name)} ({entry.total})"


def history_embed(matches: Sequence[PastMatch]) -> discord.Embed:
    embed = discord.Embed(title="Recent Crazy Eights matches", colour=COLOUR)
    for match in matches[:25]:  # Discord's limit on fields
        rounds = "1 round" if match.rounds_played == 1 else f"{match.rounds_played} rounds"
        ranking = " · ".join(
            _ranking_line(e) for e in sorted(match.ranking, key=lambda e: (e.place, e.position))
        )
        value = f"<t:{int(match.finished_at)}:R> in <#{match.channel_id}>\n{ranking}"
        if match.house_rules:
            value += "\nHouse rules: " + "; ".join(match.house_rules)
        embed.add_field(
            name=f"{match.preset} · {rounds}", value=_clip(value, FIELD_VALUE_LIMIT), inline=False
        )
    return embed


# --- settings -----------------------------------------------------------------------------------------------


def settings_embed(
    settings: ServerSettings, display: CardDisplay | None = None, *, changed: bool = False
) -> discord.Embed:
    embed = discord.Embed(
        title="Crazy Eights settings" + (" — saved" if changed else ""),
        colour=COLOUR,
    )
    embed.add_field(name="Default preset", value=settings.default_preset)
    embed.add_field(name="Default turn timeout", value=duration(settings.default_turn_timeout))
    channels = (
        ", ".join(f"<#{c}>" for c in settings.allowed_channel_ids)
        if settings.allowed_channel_ids
        else "any channel"
    )
    embed.add_field(name="Table channels", value=_clip(channels, FIELD_VALUE_LIMIT), inline=False)
    role = (
        f"<@&{settings.manager_role_id}>"
        if settings.manager_role_id is not None
        else "none (members with Manage Channels manage tables)"
    )
    embed.add_field(name="Table manager role", value=role, inline=False)
    rules = settings.default_house_rules
    embed.add_field(
        name="House rules for new tables",
        value=_clip("; ".join(rules), FIELD_VALUE_LIMIT) if rules else "none: each preset as it is",
        inline=False,
    )
    if display is not None:
        embed.add_field(name="Card emojis", value="on" if display.card_emojis else "off (text only)")
        embed.add_field(name="Board picture", value="on" if display.board_picture else "off (text only)")
    return embed


# --- /eights forget -----------------------------------------------------------------------------------------


FORGET_QUESTION = (
    "Delete your Crazy Eights statistics? This removes your wins, points and history **in every server** "
    "this bot is in, and shows you as a deleted player in past results. It cannot be undone. A match you "
    "are playing right now still counts when it ends."
)


FORGOTTEN = (
    "Done: your Crazy Eights statistics are deleted in every server, and past results show you as a deleted "
    "player. Playing again starts new statistics."
)


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"eights-forget:(?P<user>\d+):(?P<choice>yes|no)",
):
    """Confirm or cancel /eights forget. A DynamicItem so that the question, once asked, can still be answered
    after the bot restarts."""

    def __init__(self, user_id: int, confirm: bool) -> None:
        super().__init__(
            discord.ui.Button(
                label="Delete my statistics" if confirm else "Keep them",
                style=discord.ButtonStyle.danger if confirm else discord.ButtonStyle.secondary,
                custom_id=f"eights-forget:{user_id}:{'yes' if confirm else 'no'}",
            )
        )
        self.user_id = user_id
        self.confirm = confirm

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ForgetButton:
        return cls(int(match["user"]), match["choice"] == "yes")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        found = await routing.handler(interaction, SERVER_COG, ForgetAnswers)  # type: ignore[type-abstract]
        if found is not None:
            await found.on_forget_answer(interaction, self.user_id, self.confirm)


def forget_view(user_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetButton(user_id, confirm=True))
    view.add_item(ForgetButton(user_id, confirm=False))
    return view


STANDINGS_DYNAMIC_ITEMS: list[type[discord.ui.DynamicItem[Any]]] = [LeaderboardPageButton, ForgetButton]
