"""Rating a finished match, once for both backends (the statements; the math is the service's ``Rater``).

``rate_match`` runs inside the transaction that records the match result, which inserts the result with its
``rated`` flag set (``ON CONFLICT DO NOTHING``: only the transaction that inserts it rates); the backfill
flips the flag instead. A killed process rolls back the result, the flag and the ratings together; a second
process or a retried commit finds the result recorded, or the flag set, and rates nothing. ``backfill`` rates
the recorded matches whose flag is unset, in the order they were played: the data step of migration 0009, in
that migration's transaction.

Who is rated: a seat's person (``user_id``; a seat the CPU took over is still its person's, unless the host
removed them: the service then records the seat as the CPU's), or a CPU seat's level (``cpu_level``), whose
rating is per level and guild; a level at several seats of one match takes the mean of their new ratings. A
seat with neither (a player who asked to be forgotten, in an old match) takes part as a new rating and is not
stored. A partnership match rates its two sides (seats 0 and 2, 1 and 3) as
teams. Each rating keeps the displayed skill after its last ``RECENT`` matches, for the picture in
/eights stats: a row, not a history table, so that a match's rating costs one write per player.

As in ``bot.store.forget``, the procedures are generators of ``Statement``s with :name parameters; each
backend runs them inside its transaction and sends back the rows of a query or the count of a change.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from functools import lru_cache
from typing import Any

from bot.store.base import RATED_TO_RANK, PlayerRating, Rater, Rating, RatingRow
from bot.store.forget import Statement
from bot.store.rows import dumps, loads
from bot.store.statements import params_of

# The migration whose data step is ``backfill``.
MIGRATION = 9
# The migration that moved people's ratings into player_stats (``folded``: a schema from this one on). The
# ratings table keeps the CPU levels'. ``backfill`` runs on 0009's schema, before the move, so it writes them
# all to the ratings table, which 0013 then carries over.
FOLDED_MIGRATION = 13
RECENT = 20  # skills kept per rating

# The people and CPU levels of a rating share one key: (user_id, cpu_level), with 0 and '' for "not one".
CPU_USER = 0
PERSON_LEVEL = ""

# The rating leaderboard's order: migration 0009's indexes term for term (the key makes it total).
ORDER_BY = "skill DESC, user_id, cpu_level"


def _statement(sql: str, *, rows: bool = False, **values: Any) -> Statement:
    return Statement(sql, params_of(sql, values), rows)


def seats_query(table_id: int) -> Statement:
    """The match's seats with their ratings as they are, in one query (a CPU seat's key is (0, its level)),
    on a schema where every rating is in ratings (before 0013): the backfill's read. A match result reads
    its seats' ratings with its own statements (``sqlite._rate``; PostgreSQL's ranking statement)."""
    return _statement(
        "SELECT m.guild_id, m.finished_at, m.house_rules, r.position, r.place, r.user_id, r.display_name, "
        "s.cpu_level, g.mu, g.sigma, g.matches, g.recent "
        "FROM match_results AS m JOIN match_rankings AS r ON r.table_id = m.table_id "
        "LEFT JOIN seats AS s ON s.table_id = r.table_id AND s.position = r.position "
        "LEFT JOIN ratings AS g ON g.user_id = COALESCE(r.user_id, :cpu) "
        "AND g.cpu_level = CASE WHEN r.user_id IS NULL THEN COALESCE(s.cpu_level, :person) ELSE :person END "
        "AND g.guild_id = m.guild_id "
        "WHERE m.table_id = :table ORDER BY r.position",
        rows=True,
        table=table_id,
        cpu=CPU_USER,
        person=PERSON_LEVEL,
    )


def rate_match(
    table_id: int,
    rater: Rater,
    *,
    claimed: bool = False,
    found: Sequence[Sequence[Any]] | None = None,
) -> Generator[Statement, Any, int]:
    """Rate the recorded match of ``table_id`` unless it is rated already; returns the ratings written.
    ``claimed``: the caller's transaction has just inserted the result with its flag set (the insert was the
    guard), so the flag is not flipped here. ``found``: the rows of ``seats_query``, read already in this
    transaction after the result was recorded (and, on PostgreSQL, after its lock was taken). Every rating is
    written to ratings: this is the backfill of migration 0009 and a schema migrated only to 0009-0012 (a
    test's); from 0013 on, the stores write people's ratings with their statistics (``new_ratings``)."""
    if not claimed:
        flipped = yield _statement(
            "UPDATE match_results SET rated = :yes WHERE table_id = :table AND rated = :no",
            table=table_id,
            yes=True,
            no=False,
        )
        if flipped != 1:
            return 0
    if found is None:
        found = yield seats_query(table_id)
    if not found:
        return 0
    new = new_ratings(rater, found)
    if not new:
        return 0
    values: dict[str, Any] = {"guild": found[0][0], "at": float(found[0][1])}
    for i, row in enumerate(new):
        values.update(zip(_row_names(i), row, strict=True))
    yield Statement(_upsert(tuple(range(len(new)))), values)
    return len(new)


def new_ratings(rater: Rater, found: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    """``rate_seats`` for the rows of ``seats_query`` (in position order)."""
    if not found:
        return []
    house_rules = found[0][2]
    if isinstance(house_rules, str | bytes):
        # Most matches are played without house rules: no JSON to parse for them.
        rules = loads(house_rules) if b"partnership" in _as_bytes(house_rules) else None
    else:
        rules = house_rules
    partnership = isinstance(rules, dict) and bool(rules.get("partnership"))
    return rate_seats(rater, [row[3:] for row in found], partnership)


def rate_seats(rater: Rater, seats: Sequence[Sequence[Any]], partnership: bool) -> list[tuple[Any, ...]]:
    """The ratings a match makes: ``seats`` in position order, each (position, place, user_id, name,
    cpu_level, mu, sigma, matches, recent) with the rating it holds (mu None: none yet). One row per rating
    key, (user_id, cpu_level, name, mu, sigma, skill, matches, change, recent as JSON); none when nobody is
    rated. This runs in every match result's transaction: plain tuples and lists, no object or dict per
    seat (each cost as much as a statement; bench/store.py's instructions per match)."""
    initial = rater.initial
    entries: list[tuple[Any, ...]] = []  # per seat: rating key (None: forgotten, not stored), name, held
    befores: list[tuple[float, float]] = []  # per seat: its rating before the match
    places: list[int] = []
    rated = False
    for _, place, user_id, name, cpu_level, mu, sigma, matches, recent in seats:
        if user_id is not None:
            key: tuple[int, str] | None = (int(user_id), PERSON_LEVEL)
        elif cpu_level:
            key, name = (CPU_USER, cpu_level), str(cpu_level)
        else:
            key = None
        rated = rated or key is not None
        places.append(place)
        if mu is None:
            befores.append(initial)
            entries.append((key, name, None))
        else:
            before = (float(mu), float(sigma))
            befores.append(before)
            entries.append((key, name, (int(matches), recent, before)))
    if not rated:
        return []
    if partnership:
        # Partners sit opposite: the sides are the even and the odd positions, rated as teams.
        sides = [[i for i, seat in enumerate(seats) if seat[0] % 2 == parity] for parity in (0, 1)]
        sides = [side for side in sides if side]
        rated_sides = rater.rate(
            [[befores[i] for i in side] for side in sides], [min(places[i] for i in side) for side in sides]
        )
        after: list[tuple[float, float]] = list(befores)
        for side, side_after in zip(sides, rated_sides, strict=True):
            for i, new in zip(side, side_after, strict=True):
                after[i] = new
    else:
        after = rater.rate_alone(befores, places)
    # A CPU level that holds several seats of the match takes their mean (each seat is one look at how that
    # level plays; together they count as one match of the level).
    pending: list[list[Any]] = []  # key, name, held, sum of mu, sum of sigma, seats
    index: dict[tuple[int, str], int] = {}
    for i, (key, name, held) in enumerate(entries):
        if key is None:
            continue
        mu, sigma = after[i]
        at = index.get(key)
        if at is None:
            index[key] = len(pending)
            pending.append([key, name, held, mu, sigma, 1])
        else:
            sums = pending[at]
            sums[3] += mu
            sums[4] += sigma
            sums[5] += 1
    first_skill = initial[0] - 3 * initial[1]
    written = []
    for key, name, held, mu, sigma, count in pending:
        if count > 1:
            mu, sigma = mu / count, sigma / count
        skill = mu - 3 * sigma
        if held is None:
            written.append(
                (key[0], key[1], name, mu, sigma, skill, 1, skill - first_skill, f"[{dumps(skill)}]")
            )
        else:
            matches, recent, before = held
            change = skill - (before[0] - 3 * before[1])
            written.append(
                (key[0], key[1], name, mu, sigma, skill, matches + 1, change, _pushed(recent, skill))
            )
    return written


def rate_people_alone(
    rater: Rater, held: Sequence[Sequence[Any]], places: Sequence[int]
) -> list[tuple[Any, ...]]:
    """``rate_seats`` for the usual match, a free-for-all of people each at one seat (no CPU seat, no
    partnership): ``held`` in position order, each person's (mu, sigma, matches, recent) as held (mu None:
    not rated yet); per person, in the same order, ``rate_seats``' row from the mu on (mu, sigma, skill,
    matches, change, recent as JSON), bit for bit (the same sums in the same order). Without the keys, names,
    and per-key sums that CPU levels and partnerships need (bench/store_instructions.py)."""
    initial = rater.initial
    befores = [initial if rating[0] is None else (float(rating[0]), float(rating[1])) for rating in held]
    after = rater.rate_alone(befores, places)
    first_skill = initial[0] - 3 * initial[1]
    written = []
    for i, rating in enumerate(held):
        mu, sigma = after[i]
        skill = mu - 3 * sigma
        if rating[0] is None:
            written.append((mu, sigma, skill, 1, skill - first_skill, f"[{dumps(skill)}]"))
        else:
            before = befores[i]
            change = skill - (before[0] - 3 * before[1])
            written.append((mu, sigma, skill, int(rating[2]) + 1, change, _pushed(rating[3], skill)))
    return written


def _pushed(recent: str, skill: float) -> str:
    """The JSON list of skills ``recent`` with ``skill`` added last and the last ``RECENT`` kept, edited as
    text: parsing and writing the list cost as much as the rating's math (bench/store.py). The list is as
    this module writes it, numbers only without spaces (anything else is parsed); the number is written as
    the JSON writer writes it."""
    commas = recent.count(",")
    if len(recent) < 3 or commas > RECENT - 1 or " " in recent:
        return dumps([*loads(recent)[1 - RECENT :], skill])
    if commas == RECENT - 1:  # full: the oldest goes
        return f"[{recent[recent.index(',') + 1 : -1]},{dumps(skill)}]"
    return f"{recent[:-1]},{dumps(skill)}]"


def _as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode()


def levels_write(guild_id: int, at: float, new: Sequence[tuple[Any, ...]]) -> Statement | None:
    """The CPU levels' rows of ``new_ratings`` written to ratings (None: no CPU level was rated), for a
    backend that writes the people's rows itself (SQLite: in the statistics' upsert)."""
    values: dict[str, Any] = {"guild": guild_id, "at": at}
    levels = []
    for i, row in enumerate(new):
        if row[0] == CPU_USER:
            values.update(zip(_row_names(i), row, strict=True))
            levels.append(i)
    return Statement(_upsert(tuple(levels)), values) if levels else None


def planned_writes(rater: Rater, found: Sequence[Sequence[Any]]) -> list[Statement]:
    """``rate_match``'s writes (none, one or two) for a match whose result was just inserted (the guard) and
    whose seats' rows (``seats_query``'s shape) are ``found``: for a backend that sends them inside a
    statement of its own (PostgreSQL: with the preset counts, to save a round trip). The writes take no
    answer, so they are gathered without running them."""
    steps = rate_match(0, rater, claimed=True, found=found)
    writes: list[Statement] = []
    try:
        while True:
            writes.append(steps.send(None))
    except StopIteration:
        return writes


_COLUMNS = ("user", "level", "name", "mu", "sigma", "skill", "matches", "change", "recent")


@lru_cache(maxsize=16)
def _row_names(i: int) -> tuple[str, ...]:
    """The parameter names of the upsert's i-th row."""
    return tuple(f"{column}{i}" for column in _COLUMNS)


@lru_cache(maxsize=64)
def _upsert(rows: tuple[int, ...]) -> str:
    """The ratings' upsert of the rows numbered ``rows`` (its text built once per shape)."""
    tuples = ", ".join(
        "(:{}, :{}, :guild, :{}, :{}, :{}, :{}, :{}, :{}, :{}, :at)".format(*_row_names(i)) for i in rows
    )
    return (
        "INSERT INTO ratings (user_id, cpu_level, guild_id, display_name, mu, sigma, skill, matches, "
        f"last_change, recent, rated_at) VALUES {tuples} "
        "ON CONFLICT (user_id, cpu_level, guild_id) DO UPDATE SET display_name = excluded.display_name, "
        "mu = excluded.mu, sigma = excluded.sigma, skill = excluded.skill, matches = excluded.matches, "
        "last_change = excluded.last_change, recent = excluded.recent, rated_at = excluded.rated_at"
    )


def backfill(rater: Rater) -> Generator[Statement, Any, int]:
    """Rate every recorded match that is not rated yet, in the order they were played (then by table id:
    two matches may end in the same second); returns how many were rated. Running it again rates none."""
    pending = yield _statement(
        "SELECT table_id FROM match_results WHERE rated = :no ORDER BY finished_at, table_id",
        rows=True,
        no=False,
    )
    rated = 0
    for (table_id,) in pending:
        if (yield from rate_match(int(table_id), rater)):
            rated += 1
    return rated


def listed(ranked: bool) -> str:
    """The condition of one of the two lists; a literal, so that the list's partial index applies."""
    return f"matches >= {RATED_TO_RANK}" if ranked else f"matches < {RATED_TO_RANK}"


def listed_people(ranked: bool) -> str:
    """``listed`` for the people's ratings in player_stats (rated_matches 0: not rated), as PostgreSQL's
    partial indexes on player_stats state it (migrations/postgres/0013)."""
    return (
        f"rated_matches >= {RATED_TO_RANK}" if ranked else f"rated_matches BETWEEN 1 AND {RATED_TO_RANK - 1}"
    )


# The rating board's statements (:name parameters, both dialects): the people's ratings (player_stats) and the
# CPU levels' (ratings) as one list, in ORDER_BY (a CPU level's user_id is 0, a person's cpu_level ''). Each
# list gives its first :upto (offset + limit) in that order, then the two are merged: PostgreSQL reads each
# in its ordered index (a plain UNION ALL under ORDER BY it sorts whole); SQLite sorts the guild's people,
# read by player_stats' primary key (no ordered index there: migrations/0013).
def board_query(ranked: bool) -> str:
    return (
        "SELECT * FROM (SELECT user_id, '' AS cpu_level, display_name, mu, sigma, rated_matches AS matches, "
        f"skill FROM player_stats WHERE guild_id = :guild AND {listed_people(ranked)} "
        "ORDER BY skill DESC, user_id LIMIT :upto) AS people "
        "UNION ALL SELECT * FROM (SELECT user_id, cpu_level, display_name, mu, sigma, matches, skill "
        f"FROM ratings WHERE guild_id = :guild AND {listed(ranked)} "
        f"ORDER BY {ORDER_BY} LIMIT :upto) AS levels "
        f"ORDER BY {ORDER_BY} LIMIT :limit OFFSET :offset"
    )


def board_params(guild_id: int, offset: int, limit: int) -> dict[str, int]:
    offset, limit = max(0, offset), max(0, limit)
    return {"guild": guild_id, "offset": offset, "limit": limit, "upto": offset + limit}


def board_size_query(ranked: bool) -> str:
    return (
        f"SELECT (SELECT COUNT(*) FROM player_stats WHERE guild_id = :guild AND {listed_people(ranked)}) "
        f"+ (SELECT COUNT(*) FROM ratings WHERE guild_id = :guild AND {listed(ranked)})"
    )


# A person's rating (NULL columns until their first rated match: rated_matches 0 is not a rating).
PLAYER_QUERY = (
    "SELECT mu, sigma, skill, rated_matches, last_change, recent FROM player_stats "
    "WHERE guild_id = :guild AND user_id = :user AND rated_matches >= 1"
)
# The ranked ratings ahead of a person's in ORDER_BY: those of a higher skill, and of the same skill a person
# of a smaller id or any CPU level (user_id 0). Range counts, each on its list's rows.
AHEAD_QUERY = (
    f"SELECT (SELECT COUNT(*) FROM player_stats WHERE guild_id = :guild AND {listed_people(True)} "
    "AND skill > :skill) "
    f"+ (SELECT COUNT(*) FROM player_stats WHERE guild_id = :guild AND {listed_people(True)} "
    "AND skill = :skill AND user_id < :user) "
    f"+ (SELECT COUNT(*) FROM ratings WHERE guild_id = :guild AND {listed(True)} AND skill >= :skill)"
)


def board_row(rank: int, row: Sequence[Any]) -> RatingRow:
    """A row of ``board_query`` at ``rank``."""
    user_id, cpu_level, name, mu, sigma, matches = row[:6]
    person = int(user_id) != CPU_USER
    return RatingRow(
        rank=rank,
        user_id=int(user_id) if person else None,
        cpu_level=None if person else str(cpu_level),
        display_name=str(name),
        rating=Rating(float(mu), float(sigma)),
        matches=int(matches),
    )


def player_rating(row: Sequence[Any], rank: int | None, ranked: int, history: int) -> PlayerRating:
    """A row of ``PLAYER_QUERY``, with the rating's rank and the number of ranked ratings."""
    mu, sigma, _, matches, change, recent = row
    skills = [float(value) for value in loads(recent)]
    return PlayerRating(
        rating=Rating(float(mu), float(sigma)),
        matches=int(matches),
        rank=rank,
        ranked_count=ranked,
        change=float(change),
        # Not skills[len - history:]: with fewer skills than asked, that start is negative and cuts the list.
        history=tuple(skills[-history:] if history > 0 else ()),
    )
