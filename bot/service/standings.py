"""Standings use cases: the leaderboard, a player's statistics and the server's recent matches (a server's
settings, card display switches and a user's forget are ``bot.service.server``'s).

Nothing here knows Discord: inputs are ids and plain values, outputs are this module's models (the store's
row types stop here: the Discord face renders ``BoardRow``, ``PlayerRecord``, ``PastMatch`` and
``Placing``), and a mistaken request raises ``ServiceError`` with a short sentence for a private reply.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, get_args

from bot.i18n import _, ngettext
from bot.service.errors import EXPIRED, ServiceError
from bot.service.faults import store_faults
from bot.service.views import house_words
from bot.store.base import (
    RATED_TO_RANK,
    WIN_RATE_MIN_MATCHES,
    MatchSummary,
    PlayerRating,
    RatingRow,
    Store,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

PAGE_SIZE: Final = 10
MIN_MATCHES_FOR_WIN_RATE: Final = WIN_RATE_MIN_MATCHES  # the board's index holds these players only
HISTORY_SIZE: Final = 10
SEARCHED_PER_SHOWN: Final = 4  # matches looked at per one listed, when some channels may not be listed
HISTORY_SEARCHED: Final = 400  # matches looked at, at most, for one answer of the history
RATING_HISTORY: Final = 20  # the rated matches /eights stats draws
LARGEST_ID: Final = 2**63 - 1  # Discord's ids and ours fit a signed 64-bit column
BoardSort = Literal["rating", "wins", "winrate", "points"]
LEADERBOARD_SORTS: Final[tuple[BoardSort, ...]] = get_args(BoardSort)


@dataclass(frozen=True, slots=True)
class _Record:
    """What the leaderboard and a player's statistics both show of a player."""

    user_id: int
    matches_played: int
    matches_won: int


@dataclass(frozen=True, slots=True)
class BoardRow(_Record):
    """One player's line on the leaderboard."""

    rank: int  # 1-based over the whole sorted board
    win_rate: float  # 0.0 – 1.0
    points: int  # ranking points: the number of opponents finished ahead of, summed over matches


@dataclass(frozen=True, slots=True)
class RatedRow:
    """A line of the rating board: a player, or a CPU level (``user_id`` None, ``cpu_level`` set)."""

    rank: int  # within its list: the ranked players, or those with fewer than RATED_TO_RANK matches
    user_id: int | None
    cpu_level: str | None
    display_name: str
    skill: float  # the conservative estimate mu − 3·sigma, what the board shows and sorts by
    mu: float
    sigma: float
    matches: int  # rated matches


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's rating in one guild (/eights stats, and their own line under the rating board)."""

    skill: float
    mu: float
    sigma: float
    matches: int
    rank: int | None  # among the guild's ranked ratings; None while fewer than RATED_TO_RANK matches
    ranked_count: int
    change: float  # of the skill, in the last rated match
    history: tuple[float, ...]  # the skill after each of the last rated matches, oldest first


def _rated_row(row: RatingRow) -> RatedRow:
    return RatedRow(
        rank=row.rank,
        user_id=row.user_id,
        cpu_level=row.cpu_level,
        display_name=row.display_name,
        skill=row.rating.skill,
        mu=row.rating.mu,
        sigma=row.rating.sigma,
        matches=row.matches,
    )


def _rating_record(rating: PlayerRating) -> RatingRecord:
    return RatingRecord(
        skill=rating.rating.skill,
        mu=rating.rating.mu,
        sigma=rating.rating.sigma,
        matches=rating.matches,
        rank=rating.rank,
        ranked_count=rating.ranked_count,
        change=rating.change,
        history=rating.history,
    )


@dataclass(frozen=True, slots=True)
class PlayerRecord(_Record):
    """A player's statistics in one guild (/eights stats)."""

    best_place: int | None
    rounds_played: int
    rounds_won: int
    round_points: int  # sum of the player's round scores, for the average
    points: int
    last_played_at: float | None
    favourite_preset: str | None
    rating: RatingRecord | None = None  # None: no rated match yet


@dataclass(frozen=True, slots=True)
class Placing:
    """Where one seat finished a match."""

    position: int  # seat position
    display_name: str
    user_id: int | None  # None for a CPU seat or a player who asked to be forgotten
    place: int  # 1 = winner; ties share a place
    total: int


@dataclass(frozen=True, slots=True)
class PastMatch:
    """A finished match in the guild's history."""

    ranking: tuple[Placing, ...]
    table_id: int
    channel_id: int
    preset: str
    finished_at: float
    rounds_played: int
    house_rules: tuple[str, ...] = ()  # what the match changed from its preset, in words
    #: The stored house rules the words come from: worded again by ``house_rules_words`` in the language of
    #: whoever reads them (the history is public: the server's language).
    stored_house_rules: Mapping[str, Any] | None = None

    def house_rules_words(self) -> tuple[str, ...]:
        if self.stored_house_rules is None:
            return self.house_rules
        return house_words(self.preset, dict(self.stored_house_rules))


_Model = TypeVar("_Model", bound="DataclassInstance")


def _model(cls: type[_Model], row: Any, **given: Any) -> _Model:
    """The service model ``cls`` of a store row: the row's fields of the same names, unless ``given``."""
    values = {
        f.name: given[f.name] if f.name in given else getattr(row, f.name) for f in dataclasses.fields(cls)
    }
    return cls(**values)


def _past_match(row: MatchSummary) -> PastMatch:
    return _model(
        PastMatch,
        row,
        ranking=tuple(_model(Placing, entry) for entry in row.ranking),
        house_rules=house_words(row.preset, row.house_rules),
        stored_house_rules=row.house_rules,
    )


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    guild_id: int
    sort: BoardSort
    page: int  # 1-based
    page_count: int
    player_count: int  # players on the whole board (for the win-rate sort: those with enough matches)
    rows: list[BoardRow]
    viewer_id: int  # the member whose own rank the page carries
    viewer: BoardRow | None  # the viewer's row wherever it is on the board; None when not on it
    min_matches: int  # applies to the win-rate sort only
    # The rating sort (``rows`` and ``viewer`` stay empty): the page of ranked ratings, the provisional ones
    # (fewer than ``rated_to_rank`` matches, listed apart and paged alike: this page's share of them, from
    # ``provisional_offset``) and the viewer's rating.
    rated: list[RatedRow] = field(default_factory=list)
    provisional: list[RatedRow] = field(default_factory=list)
    provisional_count: int = 0
    provisional_offset: int = 0
    viewer_rating: RatingRecord | None = None
    rated_to_rank: int = RATED_TO_RANK

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.page_count


@store_faults
class StandingsService:
    """The standings use cases over one store. Holds no state of its own, so it is cheap to build."""

    def __init__(
        self,
        store: Store,
        *,
        page_size: int = PAGE_SIZE,
        min_matches_for_win_rate: int = MIN_MATCHES_FOR_WIN_RATE,
    ) -> None:
        self._store = store
        self._page_size = page_size
        self._min_matches = min_matches_for_win_rate

    @property
    def page_size(self) -> int:
        return self._page_size

    async def leaderboard(
        self,
        guild_id: int,
        *,
        viewer_id: int,
        sort: str | None = None,
        page: int = 1,
        clamp: bool = False,
    ) -> LeaderboardPage:
        """One page of the guild's board and the viewer's own row. No ``sort``: by rating once the guild has
        ratings, else by wins.

        A page past the end is a mistaken request (ServiceError) unless ``clamp``: a Previous/Next button
        pressed on an old message after the board shrank shows the last page instead. A statistics board
        makes at most three queries: the board's size, the page, and the viewer's rank only when the viewer is
        not on the page. The rating board at most five: the sizes of its two lists, the page of each list that
        reaches this page, and the viewer's rating with their rank (the ranked list is not counted again).
        Without ``sort``, the rating board's two sizes choose the board first (and the rating board pages by
        them, not counting them again).
        """
        if not (0 <= guild_id <= LARGEST_ID and 0 <= viewer_id <= LARGEST_ID):
            # Only a tampered page button names one: no database column holds such a number.
            raise ServiceError("expired", EXPIRED)
        sizes: tuple[int, int] | None = None
        if sort is None:
            sizes = await self._rating_sizes(guild_id)
            sort = "rating" if sum(sizes) else "wins"
        board_sort = _leaderboard_sort(sort)
        if page < 1:
            if not clamp:
                raise ServiceError("page-out-of-range", _("Pages start at 1."))
            page = 1
        if board_sort == "rating":
            return await self._rating_page(guild_id, viewer_id, page, clamp, sizes)
        player_count = await self._store.leaderboard_size(
            guild_id, sort=board_sort, min_matches=self._min_matches
        )
        if player_count == 0:
            if board_sort == "winrate":
                raise ServiceError(
                    "no-standings",
                    _(
                        "Nobody here has finished {min_matches} matches yet, so there is no win-rate board.",
                        min_matches=self._min_matches,
                    ),
                )
            raise ServiceError("no-standings", _("Nobody has finished a match in this server yet."))
        page_count = math.ceil(player_count / self._page_size)
        if page > page_count:
            if not clamp:
                raise ServiceError(
                    "page-out-of-range",
                    ngettext(
                        "The leaderboard has only {n} page.",
                        "The leaderboard has only {n} pages.",
                        page_count,
                    ),
                )
            page = page_count
        rows = await self._store.leaderboard(
            guild_id,
            sort=board_sort,
            offset=(page - 1) * self._page_size,
            limit=self._page_size,
            min_matches=self._min_matches,
        )
        viewer = next((row for row in rows if row.user_id == viewer_id), None)
        if viewer is None:
            viewer = await self._store.leaderboard_rank(
                guild_id, viewer_id, sort=board_sort, min_matches=self._min_matches
            )
        return LeaderboardPage(
            guild_id=guild_id,
            sort=board_sort,
            page=page,
            page_count=page_count,
            player_count=player_count,
            rows=[_model(BoardRow, row) for row in rows],
            viewer_id=viewer_id,
            viewer=_model(BoardRow, viewer) if viewer is not None else None,
            min_matches=self._min_matches,
        )

    async def _rating_sizes(self, guild_id: int) -> tuple[int, int]:
        """The rating board's two lists' sizes: the ranked ratings, the provisional ones."""
        ranked = await self._store.rating_board_size(guild_id)
        return ranked, await self._store.rating_board_size(guild_id, ranked=False)

    async def _rating_page(
        self, guild_id: int, viewer_id: int, page: int, clamp: bool, sizes: tuple[int, int] | None
    ) -> LeaderboardPage:
        """``sizes``: the lists' sizes when ``leaderboard`` has counted them already (to choose the sort)."""
        ranked, provisional_count = sizes if sizes is not None else await self._rating_sizes(guild_id)
        if ranked + provisional_count == 0:
            raise ServiceError(
                "no-standings", _("Nobody has a rating in this server yet: finish a match first.")
            )
        # Both lists are paged: every provisional player is on some page too, however many there are.
        page_count = max(1, math.ceil(max(ranked, provisional_count) / self._page_size))
        if page > page_count:
            if not clamp:
                raise ServiceError(
                    "page-out-of-range",
                    ngettext(
                        "The rating board has only {n} page.",
                        "The rating board has only {n} pages.",
                        page_count,
                    ),
                )
            page = page_count
        offset = (page - 1) * self._page_size
        # A list that ends before this page has no rows on it: not read.
        rated = (
            await self._store.rating_board(guild_id, offset=offset, limit=self._page_size)
            if offset < ranked
            else []
        )
        provisional = (
            await self._store.rating_board(guild_id, ranked=False, offset=offset, limit=self._page_size)
            if offset < provisional_count
            else []
        )
        mine = await self._store.player_rating(guild_id, viewer_id, history=0, ranked_count=ranked)
        return LeaderboardPage(
            guild_id=guild_id,
            sort="rating",
            page=page,
            page_count=page_count,
            player_count=ranked,
            rows=[],
            viewer_id=viewer_id,
            viewer=None,
            min_matches=RATED_TO_RANK,
            rated=[_rated_row(row) for row in rated],
            provisional=[_rated_row(row) for row in provisional],
            provisional_count=provisional_count,
            provisional_offset=offset,
            viewer_rating=None if mine is None else _rating_record(mine),
        )

    async def stats(self, guild_id: int, user_id: int, *, own: bool = True) -> PlayerRecord:
        """The player's statistics and rating in this guild; ``own`` only chooses the wording of the
        refusal."""
        stats = await self._store.player_stats(guild_id, user_id)
        if stats is None or stats.matches_played == 0:
            if own:
                raise ServiceError("no-stats", _("You haven't finished a match in this server yet."))
            raise ServiceError("no-stats", _("That member hasn't finished a match in this server yet."))
        rating = await self._store.player_rating(guild_id, user_id, history=RATING_HISTORY)
        return _model(PlayerRecord, stats, rating=None if rating is None else _rating_record(rating))

    async def history(
        self,
        guild_id: int,
        *,
        limit: int = HISTORY_SIZE,
        readable: Callable[[int], Awaitable[bool]] | None = None,
    ) -> list[PastMatch]:
        """The server's last finished matches; with ``readable`` (a channel id: may its matches be listed
        here), only those of such channels: read a page after another, newest first, until ``limit`` are
        found or the server's matches run out, looking at ``HISTORY_SEARCHED`` matches at most (one question
        per channel). Fewer found by then are listed as they are. None found among matches that did finish:
        the refusal says so without claiming that none finished, and without telling of the others (not how
        many, nor where: the answer is public, and those channels are not everyone's)."""
        if readable is None:
            matches = await self._store.recent_matches(guild_id, limit=limit)
        else:
            matches, searched = await self._readable_matches(guild_id, limit, readable)
            if not matches and searched:
                raise ServiceError(
                    "no-matches",
                    _(
                        "No match has finished recently in this channel or in a channel everyone in this "
                        "server can read."
                    ),
                )
        if not matches:
            raise ServiceError("no-matches", _("No match has finished in this server yet."))
        return [_past_match(match) for match in matches]

    async def _readable_matches(
        self, guild_id: int, limit: int, readable: Callable[[int], Awaitable[bool]]
    ) -> tuple[list[MatchSummary], int]:
        """The last ``limit`` matches of channels ``readable`` lets through, and how many were looked at."""
        found: list[MatchSummary] = []
        searched = 0
        before: tuple[float, int] | None = None
        verdicts: dict[int, bool] = {}  # channel id -> readable: asked once per answer
        while len(found) < limit and searched < HISTORY_SEARCHED:
            # The first page as before; each next one as many as were looked at so far (fewer round trips
            # when few matches pass), up to the bound.
            want = min(max(limit * SEARCHED_PER_SHOWN, searched), HISTORY_SEARCHED - searched)
            page = await self._store.recent_matches(guild_id, limit=want, before=before)
            searched += len(page)
            for match in page:
                allowed = verdicts.get(match.channel_id)
                if allowed is None:
                    allowed = verdicts[match.channel_id] = await readable(match.channel_id)
                if allowed:
                    found.append(match)
                    if len(found) == limit:
                        break
            if len(page) < want:
                break  # no match older than these
            before = (page[-1].finished_at, page[-1].table_id)
        return found, searched


def _leaderboard_sort(sort: str) -> BoardSort:
    for known in LEADERBOARD_SORTS:
        if sort == known:
            return known
    raise ServiceError("unknown-sort", _("Sort the leaderboard by rating, wins, win rate or points."))
