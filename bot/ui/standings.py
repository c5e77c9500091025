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

from bot import i18n
from bot.i18n import LANGUAGE_NAMES, N_, _, ngettext, pgettext
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
from bot.ui.render import cpu_level, preset_name

SORT_LABELS: dict[BoardSort, str] = {
    "rating": N_("rating"),
    "wins": N_("wins"),
    "winrate": N_("win rate"),
    "points": N_("points"),
}
RATING_PICTURE = "rating.png"
COLOUR = discord.Colour.dark_green()

# Discord's embed limits.
FIELD_VALUE_LIMIT = 1024
DESCRIPTION_LIMIT = 4096
EMBED_LIMIT = 6000


def ordinal(n: int) -> str:
    # English picks the suffix by the number; each form is a message, so a language may write all of them
    # alike ("{n}."), or as it writes them ("{n}er", "{n}e").
    if n == 1:
        return pgettext("ordinal", "1st")
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    if suffix == "st":
        return pgettext("ordinal", "{n}st", n=n)
    if suffix == "nd":
        return pgettext("ordinal", "{n}nd", n=n)
    if suffix == "rd":
        return pgettext("ordinal", "{n}rd", n=n)
    return pgettext("ordinal", "{n}th", n=n)


def percent(rate: float) -> str:
    return i18n.percent(rate)


def duration(seconds: float) -> str:
    """90 -> '1 min 30 s', 3600 -> '1 h', 86400 -> '24 h'."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [
        _("{n} h", n=hours) if hours else "",
        _("{n} min", n=minutes) if minutes else "",
        _("{n} s", n=secs) if secs else "",
    ]
    return " ".join(p for p in parts if p) or _("{n} s", n=0)


def player_name(user_id: int | None, display_name: str) -> str:
    if user_id is not None:
        return f"<@{user_id}>"
    return shown_name(display_name) or _("someone")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- leaderboard --------------------------------------------------------------------------------------------


def _row_figures(row: BoardRow, sort: BoardSort) -> str:
    played = _("{n} played", n=row.matches_played)
    if sort == "winrate":
        return _(
            "**{rate}** · {won} of {played} won",
            rate=percent(row.win_rate),
            won=row.matches_won,
            played=row.matches_played,
        )
    if sort == "points":
        return ngettext(
            "**{n}** point · {won} won · {played}",
            "**{n}** points · {won} won · {played}",
            row.points,
            won=row.matches_won,
            played=played,
        )
    return ngettext(
        "**{n}** win · {played} · {rate}",
        "**{n}** wins · {played} · {rate}",
        row.matches_won,
        played=played,
        rate=percent(row.win_rate),
    )


def skill(value: float) -> str:
    """A displayed rating, one decimal, as the language writes numbers; never "-0.0"."""
    return i18n.decimal(value)


def signed(change: float) -> str:
    text = skill(change)
    return f"+{text}" if round(change, 1) > 0 else text


def _rated_name(row: RatedRow) -> str:
    if row.cpu_level is not None:
        return _("CPU ({level})", level=cpu_level(row.cpu_level))
    return player_name(row.user_id, row.display_name)


def _rated_figures(row: RatedRow) -> str:
    matches = ngettext("{n} match", "{n} matches", row.matches)
    return f"**{skill(row.skill)}** · {matches}"


def _rating_embed(page: LeaderboardPage) -> discord.Embed:
    lines = [f"**{row.rank}.** {_rated_name(row)} — {_rated_figures(row)}" for row in page.rated]
    if not page.player_count:
        lines.append(_("Nobody has {count} rated matches yet.", count=page.rated_to_rank))
    if page.provisional:
        if lines:
            lines.append("")
        lines.append(_("**Provisional** (fewer than {count} rated matches)", count=page.rated_to_rank))
        lines += [f"{_rated_name(row)} — {_rated_figures(row)}" for row in page.provisional]
        more = page.provisional_count - page.provisional_offset - len(page.provisional)
        if more > 0:
            lines.append(_("… and {count} more", count=more))
    lines.append("")
    mine = page.viewer_rating
    if mine is None:
        lines.append(_("{who} has no rating in this server yet.", who=f"<@{page.viewer_id}>"))
    elif mine.rank is None:
        lines.append(
            _(
                "{who} — **{rating}**, provisional: {count} of {needed} rated matches",
                who=f"<@{page.viewer_id}>",
                rating=skill(mine.skill),
                count=mine.matches,
                needed=page.rated_to_rank,
            )
        )
    else:
        lines.append(
            _(
                "{who} is **{place}** of {count} — **{rating}**",
                who=f"<@{page.viewer_id}>",
                place=ordinal(mine.rank),
                count=mine.ranked_count,
                rating=skill(mine.skill),
            )
        )
    embed = discord.Embed(
        title=_("Crazy Eights leaderboard — by rating"),
        description=_clip("\n".join(lines), DESCRIPTION_LIMIT),
        colour=COLOUR,
    )
    embed.set_footer(
        text=ngettext(
            "Page {page} of {pages} · {n} ranked · rating = skill − 3 × uncertainty (OpenSkill), so"
            " it grows as"
            " results confirm it",
            "Page {page} of {pages} · {n} ranked · rating = skill − 3 × uncertainty (OpenSkill), so"
            " it grows as"
            " results confirm it",
            page.player_count,
            page=page.page,
            pages=page.page_count,
        )
    )
    return embed


def leaderboard_embed(page: LeaderboardPage) -> discord.Embed:
    if page.sort == "rating":
        return _rating_embed(page)
    lines = [f"**{row.rank}.** <@{row.user_id}> — {_row_figures(row, page.sort)}" for row in page.rows]
    lines.append("")
    if page.viewer is not None:
        lines.append(
            _(
                "{who} is **{place}** of {count} — {figures}",
                who=f"<@{page.viewer_id}>",
                place=ordinal(page.viewer.rank),
                count=page.player_count,
                figures=_row_figures(page.viewer, page.sort),
            )
        )
    elif page.sort == "winrate":
        lines.append(
            _(
                "{who} needs {count} finished matches to be ranked by win rate.",
                who=f"<@{page.viewer_id}>",
                count=page.min_matches,
            )
        )
    else:
        lines.append(_("{who} has not finished a match in this server yet.", who=f"<@{page.viewer_id}>"))
    embed = discord.Embed(
        title=_("Crazy Eights leaderboard — by {sort}", sort=_(SORT_LABELS[page.sort])),
        description=_clip("\n".join(lines), DESCRIPTION_LIMIT),
        colour=COLOUR,
    )
    if page.sort == "winrate":
        footer = ngettext(
            "Page {page} of {pages} · {n} player with at least {matches} matches",
            "Page {page} of {pages} · {n} players with at least {matches} matches",
            page.player_count,
            page=page.page,
            pages=page.page_count,
            matches=page.min_matches,
        )
    else:
        footer = ngettext(
            "Page {page} of {pages} · {n} player",
            "Page {page} of {pages} · {n} players",
            page.player_count,
            page=page.page,
            pages=page.page_count,
        )
    embed.set_footer(text=footer)
    return embed


LEADERBOARD_PREFIX = "eights-lb:"  # every page button's custom id
LEADERBOARD_TEMPLATE = (
    LEADERBOARD_PREFIX
    + r"(?P<guild>\d+):(?P<sort>"
    + "|".join(LEADERBOARD_SORTS)
    + r"):(?P<page>\d+):(?P<viewer>\d+)"
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


def is_leaderboard(message: discord.Message | None, pressed: str) -> bool:
    """Whether ``message`` is a leaderboard, which a page button may edit: it carries a page button besides
    the ``pressed`` one (Previous and Next differ by construction; a tampered client's component, sent on
    another message, comes alone)."""
    if message is None:
        return False
    return any(
        isinstance(child, discord.Button)
        and child.custom_id is not None
        and child.custom_id.startswith(LEADERBOARD_PREFIX)
        and child.custom_id != pressed
        for row in message.components
        if isinstance(row, discord.ActionRow)
        for child in row.children
    )


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
                custom_id=f"{LEADERBOARD_PREFIX}{guild_id}:{sort}:{page}:{viewer_id}",
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
        label = _("Previous") if move == "back" else _("Next")
        return LeaderboardPageButton(
            page.guild_id, page.sort, target, page.viewer_id, label=label, disabled=disabled
        )

    return page_row(page.page, 1, max(1, page.page_count), ("back", "next"), button)


# --- statistics and history ---------------------------------------------------------------------------------


def stats_embed(stats: PlayerRecord) -> discord.Embed:
    embed = discord.Embed(
        title=_("Crazy Eights statistics"),
        description=_("{who} in this server", who=f"<@{stats.user_id}>"),
        colour=COLOUR,
    )
    win_rate = stats.matches_won / stats.matches_played if stats.matches_played else 0.0
    embed.add_field(
        name=_("Matches"),
        value=_("{played} played · {won} won", played=stats.matches_played, won=stats.matches_won),
    )
    embed.add_field(name=_("Win rate"), value=percent(win_rate))
    embed.add_field(
        name=_("Rounds won"), value=_("{won} of {played}", won=stats.rounds_won, played=stats.rounds_played)
    )
    average = i18n.decimal(stats.round_points / stats.rounds_played) if stats.rounds_played else "—"
    embed.add_field(name=_("Average round score"), value=average)
    embed.add_field(name=_("Best finish"), value=ordinal(stats.best_place) if stats.best_place else "—")
    embed.add_field(
        name=_("Favourite preset"),
        value=preset_name(stats.favourite_preset) if stats.favourite_preset else "—",
    )
    last = f"<t:{int(stats.last_played_at)}:R>" if stats.last_played_at is not None else "—"
    embed.add_field(name=_("Last played"), value=last)
    embed.add_field(name=_("Ranking points"), value=str(stats.points))
    if stats.rating is not None:
        embed.add_field(name=_("Rating"), value=rating_line(stats.rating), inline=False)
        embed.set_image(url=f"attachment://{RATING_PICTURE}")
    return embed


def rating_line(rating: RatingRecord) -> str:
    matches = ngettext("{n} rated match", "{n} rated matches", rating.matches)
    place = (
        _("{place} of {count} in this server", place=ordinal(rating.rank), count=rating.ranked_count)
        if rating.rank is not None
        else _("provisional")
    )
    return (
        _(
            "**{rating}** · {place} · {change} in the last match · {matches}",
            rating=skill(rating.skill),
            place=place,
            change=signed(rating.change),
            matches=matches,
        )
        + "\n"
        + _("skill {mu} ± {sigma}", mu=i18n.decimal(rating.mu), sigma=i18n.decimal(rating.sigma))
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


# A house-rules line the history shortens (to keep more matches listed) keeps at least this much: its start
# still says which rules the table played by. Below it, the oldest matches give way instead.
HOUSE_RULES_SHORTEST = 60


def _history_field(match: PastMatch, rules_room: int | None) -> tuple[str, str]:
    """A match's field in /eights history: its name and value, the house-rules line within ``rules_room``
    characters (None: whole)."""
    rounds = ngettext("{n} round", "{n} rounds", match.rounds_played)
    ranking = " · ".join(_ranking_line(e) for e in sorted(match.ranking, key=lambda e: (e.place, e.position)))
    value = _("{when} in {channel}", when=f"<t:{int(match.finished_at)}:R>", channel=f"<#{match.channel_id}>")
    value += "\n" + ranking
    words = match.house_rules_words()
    if words:
        rules = _("House rules: {rules}", rules="; ".join(words))
        value += "\n" + (rules if rules_room is None else _clip(rules, rules_room))
    return f"{preset_name(match.preset)} · {rounds}", _clip(value, FIELD_VALUE_LIMIT)


def history_listing(matches: Sequence[PastMatch]) -> list[tuple[PastMatch, str, str]]:
    """The matches /eights history lists, newest first, each with its field's name and value: what both the
    list (``history_embed``) and the Replay select under it (``bot.ui.replays.history_view``) show, decided
    here once so that the select never offers a match the list does not show.

    All of an embed's text counts towards Discord's 6,000 characters. When the matches' fields pass it, the
    house-rules lines are shortened first (all to the same length, down to ``HOUSE_RULES_SHORTEST``): a
    match listed with its rules' start is worth more than one not listed at all. Only when that is not
    enough do the oldest matches give way (one is always listed)."""
    shown = list(matches[:25])  # Discord's limit on fields
    title = _("Recent Crazy Eights matches")

    def fields(rules_room: int | None) -> list[tuple[str, str]]:
        return [_history_field(match, rules_room) for match in shown]

    def fits(listed: list[tuple[str, str]]) -> bool:
        return len(title) + sum(len(name) + len(value) for name, value in listed) <= EMBED_LIMIT

    def listing(listed: list[tuple[str, str]]) -> list[tuple[PastMatch, str, str]]:
        return [(match, name, value) for match, (name, value) in zip(shown, listed, strict=False)]

    whole, shortest = fields(None), fields(HOUSE_RULES_SHORTEST)
    for count in range(len(shown), 0, -1):
        if fits(whole[:count]) or count == 1:
            return listing(whole[:count])
        if not fits(shortest[:count]):
            continue
        # The longest house-rules lines that let these matches fit (each shorter line is shorter text).
        low, high = HOUSE_RULES_SHORTEST, max(len(value) for _name, value in whole[:count])
        while low < high:
            middle = (low + high + 1) // 2
            if fits(fields(middle)[:count]):
                low = middle
            else:
                high = middle - 1
        return listing(fields(low)[:count])
    return []


def history_embed(matches: Sequence[PastMatch]) -> discord.Embed:
    """/eights history: the matches ``history_listing`` keeps, each a field."""
    embed = discord.Embed(title=_("Recent Crazy Eights matches"), colour=COLOUR)
    for _match, name, value in history_listing(matches):
        embed.add_field(name=name, value=value, inline=False)
    return embed


# --- settings -----------------------------------------------------------------------------------------------


def settings_embed(
    settings: ServerSettings, display: CardDisplay | None = None, *, changed: bool = False
) -> discord.Embed:
    embed = discord.Embed(
        title=_("Crazy Eights settings — saved") if changed else _("Crazy Eights settings"),
        colour=COLOUR,
    )
    embed.add_field(name=_("Default preset"), value=preset_name(settings.default_preset))
    embed.add_field(name=_("Default turn timeout"), value=duration(settings.default_turn_timeout))
    channels = (
        ", ".join(f"<#{c}>" for c in settings.allowed_channel_ids)
        if settings.allowed_channel_ids
        else _("any channel")
    )
    embed.add_field(name=_("Table channels"), value=_clip(channels, FIELD_VALUE_LIMIT), inline=False)
    role = (
        f"<@&{settings.manager_role_id}>"
        if settings.manager_role_id is not None
        else _("none (members with Manage Channels manage tables)")
    )
    embed.add_field(name=_("Table manager role"), value=role, inline=False)
    rules = "; ".join(settings.default_house_rules) or _("none: each preset as it is")
    if settings.default_preset_without:  # each table gets those its preset takes: say which the default lacks
        rules += "\n" + _(
            "Not at {preset} tables (the default preset): {rules}",
            preset=preset_name(settings.default_preset),
            rules="; ".join(settings.default_preset_without),
        )
    embed.add_field(name=_("House rules for new tables"), value=_clip(rules, FIELD_VALUE_LIMIT), inline=False)
    if display is not None:
        embed.add_field(name=_("Card emojis"), value=_("on") if display.card_emojis else _("off (text only)"))
        embed.add_field(
            name=_("Board picture"), value=_("on") if display.board_picture else _("off (text only)")
        )
        language = LANGUAGE_NAMES.get(display.language or "", _("the server's language in Discord"))
        embed.add_field(name=_("Language of the tables"), value=language)
    return embed


# --- /eights forget -----------------------------------------------------------------------------------------


FORGET_QUESTION = N_(
    "Delete your Crazy Eights statistics? This removes your wins, points and history **in every server** "
    "this bot is in, and shows you as a deleted player in past results. It cannot be undone. A match you "
    "are playing right now still counts when it ends."
)


FORGOTTEN = N_(
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
                label=_("Delete my statistics") if confirm else _("Keep them"),
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
