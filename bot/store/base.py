"""The store's interface: what the rest of the bot may ask of persistence.

Every SQL statement lives behind this interface (``bot/store/sqlite.py`` and ``bot/store/postgres.py``), so
the service layer depends only on these records and methods. All times are Unix seconds (float). Ids of
Discord objects are ints. JSON documents are plain ``dict``/``list`` values; the store encodes them.

One game action is one ``commit_move`` call: the move log entry, the new state, the deadline, the seat rows,
the table status and (at the end of a round or a match) the results are written in one transaction, guarded by
the state's version number, so that a crash loses at most the move in flight and two racing moves cannot both
apply.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, Protocol

from bot.engine.ratings import OPENSKILL

if TYPE_CHECKING:
    from bot.shards import ShardSet

TableStatus = Literal["lobby", "playing", "finished", "abandoned"]
OPEN_STATUSES: tuple[TableStatus, ...] = ("lobby", "playing")
LeaderboardSort = Literal["wins", "winrate", "points"]


# A rating needs this many rated matches to be ranked on the rating leaderboard; fewer are listed apart.
# migrations/0009_ratings.sql's partial indexes (and their PostgreSQL twins) must say the same number.
RATED_TO_RANK: Final = 5
# The win-rate board lists the players with at least this many matches: the minimum the service uses, and
# the one the board's partial index holds (migrations/0015_board_indexes.sql and its twin say the same
# number). The store's calls take another minimum too, read without that index
# (``statements.played_at_least``).
WIN_RATE_MIN_MATCHES: Final = 5


class Rating(NamedTuple):
    """An OpenSkill rating: the skill's mean and its uncertainty. A plain (mu, sigma) pair to the rater, so
    that the service's rating module needs nothing from the store."""

    mu: float
    sigma: float

    @property
    def skill(self) -> float:
        """The conservative estimate the leaderboard shows and sorts by."""
        return self.mu - 3 * self.sigma


class Rater(Protocol):
    """The rating model (``bot.engine.ratings.OPENSKILL``) over (mu, sigma) pairs. Pure: the store calls it
    inside the transaction that records a match result, and in migration 0009's backfill."""

    @property
    def initial(self) -> tuple[float, float]:
        """A first match's rating before it is played."""
        ...

    def rate(
        self, sides: Sequence[Sequence[tuple[float, float]]], places: Sequence[int]
    ) -> list[list[tuple[float, float]]]:
        """The members' new ratings, in the shape of ``sides``; ``places`` has each side's place (1 = best,
        ties share a place)."""
        ...

    def rate_alone(
        self, ratings: Sequence[tuple[float, float]], places: Sequence[int]
    ) -> list[tuple[float, float]]:
        """``rate`` for sides of one member each (a free-for-all): ``ratings`` and the result one a side."""
        ...


def default_rater() -> Rater:
    """The OpenSkill model (``bot.engine.ratings``), for a store opened without another (the client, the CLI,
    tests).

    The math is pure (the engine's, one module that imports nothing else of the bot), the statements the
    store's: the store calls the model inside its transaction, which is what makes a match rated exactly
    once."""
    return OPENSKILL


class StoreError(Exception):
    """Base class of the store's own errors."""


class StoreUnavailableError(StoreError):
    """The database could not be reached or could not write (a server restarting, connections cut, a file
    locked by another process, a full disk). Nothing changed, unless the statement was a commit whose
    connection broke after it was sent: the server may have stored it (the service asks the database, see
    ``bot.service.registry``). Trying again once the database is back is safe."""


class StoreTimedOutError(StoreUnavailableError):
    """The server took the statement and did not answer in time (a server that stopped answering, a hung
    machine): it may still run the statement when it wakes."""


class StoreRefusedError(StoreUnavailableError):
    """No statement was sent: the database could not be reached or refused the connection (a server down or
    out of reach, not accepting connections, out of connection slots, starting up). Nothing changed, for
    certain: a commit refused so is not asked about."""


class CommitInDoubtError(StoreUnavailableError):
    """A commit whose connection broke and whose fate the database could not tell within seconds: it may
    have been stored (a server that stopped answering runs it when it wakes). Said to the player as such,
    not as "nothing changed"; the table is checked again once the database answers."""


class ConflictError(StoreError):
    """The table's state version moved on since it was read: the move lost a race and nothing was written."""

    def __init__(self, table_id: int, expected_version: int, actual_version: int | None) -> None:
        super().__init__(
            f"table {table_id}: expected state version {expected_version}, found {actual_version}"
        )
        self.table_id = table_id
        self.expected_version = expected_version
        self.actual_version = actual_version


class TableExistsError(StoreError):
    """The channel already has an open (lobby or playing) table."""

    def __init__(self, channel_id: int, table_id: int) -> None:
        super().__init__(f"channel {channel_id} already has open table {table_id}")
        self.channel_id = channel_id
        self.table_id = table_id


class MigrationError(StoreError):
    """The database's schema cannot be used by this code (unknown migration, changed checksum, bad file)."""


RESTORE_HINT = "restore it from a backup, see README 'Backups'"


class DamagedDatabaseError(MigrationError):
    """The database file is not an SQLite database or is damaged (truncated, overwritten). Raised instead of
    the driver's own error wherever the store finds it (opening, migrating, any query); the store wrote
    nothing to the file. The message is one line for an admin: the file, what is wrong, what to do.

    ``problems`` (PostgreSQL, whose server is no file): what its check could not read, said instead."""

    def __init__(self, path: str, problems: str | None = None) -> None:
        if problems is None:
            message = f"the database file {path} is not an SQLite database or is damaged: {RESTORE_HINT}"
        else:
            message = f"the database {path} failed its check: {problems}"
        super().__init__(message)
        self.path = path


def first_problems(problems: list[str], limit: int = 200) -> str:
    """An integrity check's report on one line: SQLite's rows hold line breaks of their own, and a damaged
    file can give a hundred of them."""
    text = "; ".join(" ".join(problem.split()) for problem in problems[:3])
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    more = len(problems) - 3
    return f"{text} (and {more} more)" if more > 0 else text


async def require_sound(store: Store, shown: str) -> None:
    """Before a command writes to (or copies from) a database: DamagedDatabaseError naming it when its
    integrity check finds damage, which a write would only build on (a copy would carry it along). Slow on a
    big file (it reads every page): for the command line's occasional writes, not the bot's moves. ``shown``:
    the database's URL, its password masked. A database older than this bot's schema is sound: the command
    migrates it next."""
    problems = await store.integrity_check()
    if problems == ["ok"]:
        return
    # A PostgreSQL server is no file, let alone an SQLite one: its check names the tables it cannot read.
    sqlite = shown.lower().startswith("sqlite:")
    raise DamagedDatabaseError(shown, None if sqlite else first_problems(problems))


def terminate_store(store: Store) -> bool:
    """Drop the store's connections at once, without a word to a server that may not answer (a shutdown out
    of time): statements in flight fail, and what the server committed stays committed. A store with no
    connection to drop (SQLite's file, in this process) has no ``terminate``: False, and it is left as it
    is."""
    terminate: Callable[[], None] | None = getattr(store, "terminate", None)
    if terminate is None:
        return False
    terminate()
    return True


class MissingDatabaseError(StoreError):
    """The SQLite file to read from does not exist (and was not created)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"no database at {path}")
        self.path = path


class UnsupportedDatabaseError(StoreError):
    """The DATABASE_URL names a backend this build does not have, or is malformed. ``expected``, when set:
    what a right URL has instead, without any part of this one (for a ConfigError, which shows no value)."""

    def __init__(self, message: str, expected: str | None = None) -> None:
        super().__init__(message)
        self.expected = expected


@dataclass(frozen=True, slots=True)
class TableRecord:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: TableStatus
    ruleset: dict[str, Any]  # the engine's Ruleset.to_json()
    options: dict[str, Any]  # table options: target, auto_draw, next_round_pause, preset name, …
    turn_timeout: float  # seconds
    board_message_id: int | None
    created_at: float
    updated_at: float
    target: int | None = None  # the match's target score: options["target"] if set, else the ruleset's


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat at a table. ``user_id`` is None for a CPU seat; a person's seat taken over keeps its user_id."""

    position: int
    user_id: int | None
    display_name: str
    cpu_level: str | None = None  # "easy" | "normal" | "hard" for CPU seats and takeovers
    cpu_takeover: bool = False  # a CPU plays this person's seat (timeouts, leave, kick)
    joined_at: float = 0.0
    left_at: float | None = None


@dataclass(frozen=True, slots=True)
class GameState:
    table_id: int
    version: int  # +1 with every committed move; 0 when the table is created
    state: dict[str, Any]  # the service's whole live state of the table (lobby, match, timers) as JSON
    deadline: float | None  # when the current turn (or lobby, or pause) times out


@dataclass(frozen=True, slots=True)
class MoveRecord:
    table_id: int
    seq: int  # 1, 2, 3 … per table
    version: int  # the state version this move produced
    actor_id: int | None  # Discord user id, or None for the referee / a CPU seat
    action: dict[str, Any]
    events: list[dict[str, Any]]  # every event, private ones included: never shown to anyone else
    created_at: float


@dataclass(frozen=True, slots=True)
class RoundResult:
    round_number: int  # 1-based within the match
    scores: Sequence[int]  # per seat position
    winners: Sequence[int]  # seat positions that won the round (several in a tie of a blocked round)


@dataclass(frozen=True, slots=True)
class RankingEntry:
    position: int  # seat position
    user_id: int | None  # None for a CPU seat: CPU seats get no statistics
    display_name: str
    place: int  # 1 = winner; ties share a place
    total: int


@dataclass(frozen=True, slots=True)
class MatchResult:
    preset: str
    rounds_played: int
    ranking: Sequence[RankingEntry]
    round_wins: dict[int, int] = field(default_factory=dict)  # seat position -> rounds won in the match
    round_points: dict[int, int] = field(default_factory=dict)  # seat position -> sum of its round scores
    house_rules: dict[str, Any] = field(default_factory=dict)  # options changed from the preset
    teams: bool = False  # Crazier Eights' teams: the even and the odd seats are sides, as in a partnership

    @property
    def by_sides(self) -> bool:
        """Rated as two sides (the even and the odd seats): a partnership, or Crazier Eights' teams."""
        return self.teams or bool(self.house_rules.get("partnership"))


@dataclass(frozen=True, slots=True)
class MoveCommit:
    """One game action as ``Store.commit_move`` writes it: the move log entry, the new state and deadline,
    and what else the action changed (``None``: unchanged)."""

    table_id: int
    expected_version: int  # the state version the move was computed from
    actor_id: int | None  # Discord user id, or None for the referee / a CPU seat
    action: dict[str, Any]
    events: Sequence[dict[str, Any]]
    new_state: dict[str, Any]
    deadline: float | None
    now: float
    seats: Sequence[SeatRecord] | None = None  # the complete seat list
    status: TableStatus | None = None
    round_result: RoundResult | None = None
    match_result: MatchResult | None = None
    # What the channel must be told of this move (its public events, maybe none): written to the outbox in
    # the move's transaction, so that a move committed just before the process dies is still told. None:
    # no outbox row (callers that announce nothing: tests of the store, tools).
    told: Sequence[dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A committed move the channel has not been told yet (``Store.untold``)."""

    table_id: int
    version: int  # the state version the move produced
    events: list[dict[str, Any]]  # its public events, as ``MoveCommit.told`` gave them
    created_at: float
    attempt: dict[str, Any] | None  # the delivery's note of a line being sent for it (``note_telling``)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int  # 1-based over the whole sorted board
    user_id: int
    display_name: str
    matches_played: int
    matches_won: int
    win_rate: float  # 0.0 – 1.0
    points: int  # ranking points: the number of opponents finished ahead of, summed over matches


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One line of the rating leaderboard: a person, or a CPU level (``user_id`` None, ``cpu_level`` set)."""

    rank: int  # 1-based within its list (ranked, or the provisional list of fewer than RATED_TO_RANK)
    user_id: int | None
    cpu_level: str | None
    display_name: str
    rating: Rating
    matches: int  # rated matches


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A person's rating in one guild, for /eights stats."""

    rating: Rating
    matches: int
    rank: int | None  # among the guild's ranked ratings (people and CPU levels); None while provisional
    ranked_count: int  # how many ratings are ranked in the guild
    change: float  # the change of the displayed skill in the last rated match
    history: tuple[float, ...]  # the displayed skill after each of the last rated matches, oldest first


@dataclass(frozen=True, slots=True)
class PlayerStats:
    guild_id: int
    user_id: int
    display_name: str
    matches_played: int
    matches_won: int
    rounds_played: int
    rounds_won: int
    round_points: int  # sum of the player's round scores, for the average
    points: int
    best_place: int | None
    last_place: int | None
    last_played_at: float | None
    favourite_preset: str | None


@dataclass(frozen=True, slots=True)
class MatchSummary:
    table_id: int
    guild_id: int
    channel_id: int
    preset: str
    finished_at: float
    rounds_played: int
    ranking: list[RankingEntry]
    house_rules: dict[str, Any] = field(default_factory=dict)  # options changed from the preset


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    default_preset: str = "classic"
    default_turn_timeout: float = 90.0
    allowed_channel_ids: tuple[int, ...] = ()  # empty: any channel
    manager_role_id: int | None = None
    default_house_rules: dict[str, Any] = field(default_factory=dict)  # for new tables of the default preset


#: A change of a guild's settings (``Store.change_guild_settings``): from its settings and the value of one
#: meta key (None: no value) as they are, what they become.
GuildSettingsChange = Callable[[GuildSettings, str | None], tuple[GuildSettings, str | None]]


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """One process's sign of life: ``process`` names the shards it runs ("all", or e.g. "0,2/4")."""

    process: str
    beat_at: float
    pid: int | None = None
    host: str | None = None
    stopped_at: float | None = None  # a clean stop, until the process beats again


# copy-db: (table name, column names, rows) written inside the target's one transaction.
BulkWriter = Callable[[str, Sequence[str], Sequence[Sequence[Any]]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class OpenTable:
    table: TableRecord
    seats: list[SeatRecord]
    state: GameState


class Store(Protocol):
    """What the bot needs from persistence. Implemented by ``bot.store.sqlite.SqliteStore`` and
    ``bot.store.postgres.PostgresStore``; ``tests/store`` runs the same tests against both."""

    async def close(self) -> None: ...

    # --- schema and operations -------------------------------------------------------------------------
    # How many migrations this store's last ``migrate`` applied itself, counted under the runner's lock
    # (0 before it, and when another process applied them while this one waited): what `migrate` reports.
    migrations_applied: int

    async def migrate(self) -> int:
        """Apply pending migrations; return the schema version. Raises MigrationError."""
        ...

    async def schema_version(self) -> int: ...

    async def backup(self, path: str) -> None:
        """A consistent copy of the whole database at ``path`` while the bot runs (SQLite; PostgreSQL raises
        StoreError saying how to use pg_dump)."""
        ...

    async def get_meta(self, key: str) -> str | None: ...

    async def set_meta(self, key: str, value: str) -> None: ...

    async def delete_meta(self, key: str) -> None: ...

    async def write_heartbeat(
        self, now: float, process: str = "all", *, pid: int | None = None, host: str | None = None
    ) -> None:
        """Record that the process running the shards ``process`` names is alive at ``now``."""
        ...

    async def read_heartbeat(self, process: str = "all") -> float | None:
        """That process's last heartbeat, or None if never written."""
        ...

    async def heartbeat(self, process: str) -> Heartbeat | None:
        """That process's heartbeat row (its last beat, and whether it stopped cleanly since), or None."""
        ...

    async def mark_stopped(self, process: str, now: float) -> None:
        """Record that the process stopped cleanly: ``health`` fails at once. Its next beat clears it."""
        ...

    async def heartbeats(self) -> list[Heartbeat]:
        """Every process's last heartbeat, oldest first."""
        ...

    async def integrity_check(self) -> list[str]:
        """The database's own consistency check; ``["ok"]`` when sound."""
        ...

    async def check_writable(self) -> None:
        """StoreUnavailableError when this process could not write now, as ``migrate`` finds at start-up
        (another process holds SQLite's write lock past the busy timeout; a read-only PostgreSQL server or
        session). Writes nothing: for ``check``."""
        ...

    async def forget_user(self, user_id: int, guild_id: int | None = None) -> int:
        """Delete the user's statistics (in one guild, or everywhere) and every copy of their id and name at
        closed tables: seats, rankings, hosts, the move log and the stored state (``bot.store.forget``).
        Returns the number of rows changed. Open (lobby or playing) tables are left alone, because the live
        game still needs them: see ``open_tables_of_user``."""
        ...

    async def open_tables_of_user(self, user_id: int) -> list[int]:
        """Ids of the open tables that hold the user, which ``forget_user`` leaves alone: where they have a
        seat, or acted (a lobby they left or were removed from: the table's state and moves name them)."""
        ...

    # --- copy-db -----------------------------------------------------------------------------------------
    async def row_counts(self) -> dict[str, int]:
        """The number of rows of every data table (``bot.store.statements.DATA_TABLES``)."""
        ...

    def export_rows(self, table: str, batch: int = 2000) -> AsyncIterator[tuple[list[str], list[Any]]]:
        """The rows of one data table as (column names, a batch of rows), in batches."""
        ...

    def bulk_writer(self) -> AbstractAsyncContextManager[BulkWriter]:
        """One transaction that inserts rows as they are; it commits on leaving the block without error."""
        ...

    # --- tables ------------------------------------------------------------------------------------------
    async def create_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host: SeatRecord,
        ruleset: dict[str, Any],
        options: dict[str, Any],
        turn_timeout: float,
        state: dict[str, Any],
        deadline: float | None,
        now: float,
    ) -> TableRecord:
        """Open a table with the host in seat 0 and state version 0. Raises TableExistsError."""
        ...

    async def get_table(self, table_id: int) -> TableRecord | None: ...

    async def open_table_in_channel(self, channel_id: int) -> TableRecord | None: ...

    async def list_seats(self, table_id: int) -> list[SeatRecord]: ...

    async def get_state(self, table_id: int) -> GameState | None: ...

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[OpenTable]:
        """Every open table, or only those of the guilds on ``shards`` (a shard process's own)."""
        ...

    async def set_board_message(self, table_id: int, message_id: int | None, now: float) -> None:
        """Remember the public board's message id (not a game move: no version change)."""
        ...

    async def mark_held(self, table_ids: Sequence[int], now: float) -> None:
        """A process stopping: the open tables of ``table_ids`` were held (their timers running) until
        ``now``, written as their ``updated_at`` (not a game move: no version change). Their next restore
        reads it as when the bot was last up with them: the idle rule counts the time before it, not the
        time after."""
        ...

    async def commit_move(self, move: MoveCommit) -> int:
        """Append the move, store the new state, deadline and (when given) the seats, status and results, all
        in one transaction. Returns the new version. Raises ConflictError when the stored version is not
        ``move.expected_version`` (nothing is written). ``move.seats``, when given, is the complete seat list.
        A match result is recorded, and statistics and ratings updated (``bot.store.ratings``), exactly once
        per table: a match result for a table that already has one is silently skipped (the move itself still
        commits); likewise a round result for a round number already recorded. So a caller repeating itself
        after a crash cannot double-count."""
        ...

    async def moves(self, table_id: int) -> list[MoveRecord]: ...

    # --- the outbox: what the channel must still be told ----------------------------------------------

    async def untold(self, shards: ShardSet | None = None) -> list[OutboxRow]:
        """Every outbox row (of the guilds on ``shards``), by table then version: the moves committed and
        not yet told."""
        ...

    async def note_telling(self, table_id: int, first: int, last: int, attempt: dict[str, Any]) -> None:
        """A line telling the table's moves ``first``..``last`` is about to be sent: rows before ``first``
        are told (deleted), and ``attempt`` is noted on the rows it tells, in one transaction."""
        ...

    async def mark_told(self, told: Mapping[int, int]) -> None:
        """Table id -> version: the table's moves up to that version are told (their rows deleted), all
        tables in one transaction."""
        ...

    async def drop_untold(self, created_before: float) -> int:
        """Delete outbox rows older than ``created_before`` of tables no longer open (news too old to tell);
        returns how many."""
        ...

    # --- retention of closed tables' move logs ---------------------------------------------------------

    async def prune_closed_moves(self, closed_before: float, limit: int, now: float) -> int:
        """Delete at most ``limit`` moves of tables closed (finished or abandoned) before ``closed_before``,
        the oldest tables first, in one short transaction; a table whose log is then empty is marked pruned
        at ``now``. Who acted in the deleted moves is kept (``pruned_actors``), so that ``forget_user``
        still finds the table. Returns the moves deleted (0: nothing is left to prune). Open tables' logs,
        results, rankings and statistics are never touched."""
        ...

    async def moves_pruned_at(self, table_id: int) -> float | None:
        """When the table's move log was deleted by retention; None while it is kept (or no such table)."""
        ...

    async def reclaim_space(self) -> None:
        """Give the space freed by pruning back to the file system where the backend needs asking (SQLite's
        incremental vacuum; PostgreSQL's autovacuum does it by itself)."""
        ...

    # --- standings ---------------------------------------------------------------------------------------
    async def leaderboard(
        self,
        guild_id: int,
        *,
        sort: LeaderboardSort = "wins",
        offset: int = 0,
        limit: int = 10,
        min_matches: int = WIN_RATE_MIN_MATCHES,
    ) -> list[LeaderboardRow]:
        """``min_matches`` applies to the win-rate sort only."""
        ...

    async def leaderboard_size(
        self, guild_id: int, *, sort: LeaderboardSort = "wins", min_matches: int = WIN_RATE_MIN_MATCHES
    ) -> int: ...

    async def leaderboard_rank(
        self,
        guild_id: int,
        user_id: int,
        *,
        sort: LeaderboardSort = "wins",
        min_matches: int = WIN_RATE_MIN_MATCHES,
    ) -> LeaderboardRow | None:
        """The user's own row with its rank, wherever it is on the board."""
        ...

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None: ...

    async def rating_board(
        self, guild_id: int, *, ranked: bool = True, offset: int = 0, limit: int = 10
    ) -> list[RatingRow]:
        """A page of the guild's ratings by displayed skill: the ranked ones (at least RATED_TO_RANK rated
        matches), or with ``ranked`` False the provisional ones."""
        ...

    async def rating_board_size(self, guild_id: int, *, ranked: bool = True) -> int: ...

    async def player_rating(
        self, guild_id: int, user_id: int, *, history: int = 20, ranked_count: int | None = None
    ) -> PlayerRating | None:
        """The person's rating with its rank and its last ``history`` values; None when never rated.
        ``ranked_count``: the number of ranked ratings, when the caller has just counted them (the rating
        board's page): not counted again."""
        ...

    async def recent_matches(
        self, guild_id: int, *, limit: int = 10, before: tuple[float, int] | None = None
    ) -> list[MatchSummary]:
        """The guild's last finished matches, newest first (by finish time, then table id); with ``before``
        (the finish time and table id of a match), those that come after it in that order: the next page."""
        ...

    async def round_results(self, table_id: int) -> list[RoundResult]: ...

    async def match_ranking(self, table_id: int) -> list[RankingEntry]:
        """The recorded final ranking of the table's match, best first; empty when none."""
        ...

    # --- guild settings ----------------------------------------------------------------------------------
    async def get_guild_settings(self, guild_id: int) -> GuildSettings: ...

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        """Write the settings whole, whatever they were (seeding, copying; a change of what is there is
        ``change_guild_settings``)."""
        ...

    async def change_guild_settings(
        self, guild_id: int, meta_key: str, change: GuildSettingsChange
    ) -> tuple[GuildSettings, str | None]:
        """Read the guild's settings and the value of ``meta_key`` (None: none), and save what ``change``
        makes of them (a value of None: the key deleted), in one write transaction that holds the guild's
        settings from the read to the commit (SQLite: the write lock; PostgreSQL: the guild's row, locked FOR
        UPDATE, inserted first when missing): a concurrent change of them waits, then reads what this one
        saved, so that no change is lost. Returns the settings and value as saved.

        ``change`` runs inside the transaction (SQLite: on the store's thread, in a copy of the caller's
        context), so it must be quick and touch no store; whatever it raises rolls everything back and reaches
        the caller. Nothing is written when it changes nothing."""
        ...
