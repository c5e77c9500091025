"""Rating a finished match, once for both backends (the statements; the math is the service's ``Rater``).

``rate_match`` runs inside the transaction that records the match result, right after the result's row was
inserted (``ON CONFLICT DO NOTHING`` inserted it: the match is new), so a match is rated exactly once: a
killed process rolls back the result and the ratings together, a second process or a retried commit finds
the result recorded and rates nothing. ``backfill`` rates, in the order they were played, the stored matches
that have no rating yet: the data step of migration 0009, in that migration's transaction.

Who is rated: a seat's person (``user_id``; a seat the CPU took over is still its person's), or a CPU seat's
level (``cpu_level``), whose rating is per level and guild. A seat with neither (a player who asked to be
forgotten, in an old match) takes part as a new rating and is not stored. A partnership match rates its two
sides (seats 0 and 2, 1 and 3) as teams.

As in ``bot.store.forget``, the procedures are generators of ``Statement``s with :name parameters; each
backend runs them inside its transaction and sends back the rows of a query or the count of a change.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from bot.store.base import RATED_TO_RANK, Rater, Rating, RatingRow
from bot.store.forget import Statement
from bot.store.rows import loads, params_of

# The migration whose data step is ``backfill``.
MIGRATION = 9

# The rating leaderboard's order: migration 0009's indexes term for term (the key makes it total).
ORDER_BY = "skill DESC, user_id, cpu_level"
BOARD_COLUMNS = "user_id, cpu_level, display_name, mu, sigma, matches"

# The people and CPU levels of a rating share one key: (user_id, cpu_level), with 0 and '' for "not one".
CPU_USER = 0
PERSON_LEVEL = ""


@dataclass(frozen=True, slots=True)
class _Seat:
    position: int
    place: int
    key: tuple[int, str] | None  # None: a forgotten person, rated as new and not stored
    name: str


def _statement(sql: str, *, rows: bool = False, **values: Any) -> Statement:
    return Statement(sql, params_of(sql, values), rows)


def sides_of(positions: Sequence[int], partnership: bool) -> list[list[int]]:
    """The seat positions of each side: partners sit opposite (0 and 2, 1 and 3), or one side per seat."""
    if partnership:
        return [
            [p for p in positions if p % 2 == parity]
            for parity in (0, 1)
            if any(p % 2 == parity for p in positions)
        ]
    return [[p] for p in positions]


def rate_match(table_id: int, rater: Rater) -> Generator[Statement, Any, int]:
    """Rate the recorded match of ``table_id``; returns the number of ratings written."""
    found = yield _statement(
        "SELECT m.guild_id, m.finished_at, m.house_rules, r.position, r.place, r.user_id, r.display_name, "
        "s.cpu_level FROM match_results AS m JOIN match_rankings AS r ON r.table_id = m.table_id "
        "LEFT JOIN seats AS s ON s.table_id = r.table_id AND s.position = r.position "
        "WHERE m.table_id = :table ORDER BY r.position",
        rows=True,
        table=table_id,
    )
    if not found:
        return 0
    guild_id, finished_at, house_rules = found[0][0], float(found[0][1]), found[0][2]
    rules = loads(house_rules) if isinstance(house_rules, str | bytes) else house_rules
    partnership = isinstance(rules, dict) and bool(rules.get("partnership"))
    seats = {
        position: _Seat(position, place, _key(user_id, cpu_level), name)
        for _, _, _, position, place, user_id, name, cpu_level in found
    }
    keys = sorted({seat.key for seat in seats.values() if seat.key is not None})
    current: dict[tuple[int, str], tuple[Rating, int]] = {}
    if keys:
        ids = {f"u{i}": user for i, user in enumerate(sorted({user for user, _ in keys}))}
        held = yield _statement(
            "SELECT user_id, cpu_level, mu, sigma, matches FROM ratings WHERE guild_id = :guild "
            f"AND user_id IN ({', '.join(':' + name for name in ids)})",
            rows=True,
            guild=guild_id,
            **ids,
        )
        current = {
            (int(u), str(level)): (Rating(float(mu), float(sigma)), int(n)) for u, level, mu, sigma, n in held
        }
    sides = sides_of(sorted(seats), partnership)
    places = [min(seats[p].place for p in side) for side in sides]
    before = [[_held(current, seats[p].key, Rating(*rater.initial)) for p in side] for side in sides]
    after = [[Rating(*pair) for pair in side] for side in rater.rate(before, places)]
    # Each seat's new rating; a CPU level that holds several seats of the match takes their mean (each seat
    # is one look at how that level plays; together they count as one match of the level).
    seat_ratings: dict[tuple[int, str], list[Rating]] = {}
    for side, news in zip(sides, after, strict=True):
        for position, new in zip(side, news, strict=True):
            key = seats[position].key
            if key is not None:
                seat_ratings.setdefault(key, []).append(new)
    new_ratings = {
        key: Rating(sum(r.mu for r in found) / len(found), sum(r.sigma for r in found) / len(found))
        for key, found in seat_ratings.items()
    }
    named = {seat.key: seat.name for seat in seats.values() if seat.key is not None}
    updated = [
        {
            "user": key[0],
            "level": key[1],
            "name": named[key] if key[0] != CPU_USER else key[1],
            "mu": new.mu,
            "sigma": new.sigma,
            "skill": new.skill,
            "change": new.skill - _held(current, key, Rating(*rater.initial)).skill,
            "matches": current[key][1] + 1 if key in current else 1,
        }
        for key, new in new_ratings.items()
    ]
    history = [
        {"position": seat.position, **row}
        for seat in seats.values()
        for row in updated
        if seat.key == (row["user"], row["level"])
    ]
    if not history:
        return 0
    common: dict[str, Any] = {"table": table_id, "guild": guild_id, "at": finished_at}
    values: dict[str, Any] = {f"{name}{i}": row[name] for i, row in enumerate(history) for name in row}
    values.update({f"r{name}{i}": row[name] for i, row in enumerate(updated) for name in row})
    yield _statement(
        "INSERT INTO rating_history (table_id, position, guild_id, user_id, cpu_level, mu, sigma, skill, "
        "change, rated_at) VALUES "
        + ", ".join(
            f"(:table, :position{i}, :guild, :user{i}, :level{i}, :mu{i}, :sigma{i}, :skill{i}, "
            f":change{i}, :at)"
            for i in range(len(history))
        ),
        **common,
        **values,
    )
    yield _statement(
        "INSERT INTO ratings (guild_id, user_id, cpu_level, display_name, mu, sigma, skill, matches, "
        "last_change, rated_at) VALUES "
        + ", ".join(
            f"(:guild, :ruser{i}, :rlevel{i}, :rname{i}, :rmu{i}, :rsigma{i}, :rskill{i}, :rmatches{i}, "
            f":rchange{i}, :at)"
            for i in range(len(updated))
        )
        + " ON CONFLICT (guild_id, user_id, cpu_level) DO UPDATE SET display_name = excluded.display_name, "
        "mu = excluded.mu, sigma = excluded.sigma, skill = excluded.skill, matches = excluded.matches, "
        "last_change = excluded.last_change, rated_at = excluded.rated_at",
        **common,
        **values,
    )
    return len(history)


def backfill(rater: Rater) -> Generator[Statement, Any, int]:
    """Rate every recorded match that has no rating yet, in the order they were played; returns how many
    matches were rated. Running it again finds nothing left to rate."""
    pending = yield _statement(
        "SELECT table_id FROM match_results AS m "
        "WHERE NOT EXISTS (SELECT 1 FROM rating_history AS h WHERE h.table_id = m.table_id) "
        "ORDER BY finished_at, table_id",
        rows=True,
    )
    rated = 0
    for (table_id,) in pending:
        if (yield from rate_match(int(table_id), rater)):
            rated += 1
    return rated


def _key(user_id: int | None, cpu_level: str | None) -> tuple[int, str] | None:
    if user_id is not None:
        return (int(user_id), PERSON_LEVEL)
    if cpu_level:
        return (CPU_USER, str(cpu_level))
    return None


def _held(
    current: dict[tuple[int, str], tuple[Rating, int]], key: tuple[int, str] | None, initial: Rating
) -> Rating:
    if key is None or key not in current:
        return initial
    return current[key][0]


def listed(ranked: bool) -> str:
    """The condition of one of the two lists; a literal, so that the list's partial index applies."""
    return f"matches >= {RATED_TO_RANK}" if ranked else f"matches < {RATED_TO_RANK}"


def board_row(rank: int, row: Sequence[Any]) -> RatingRow:
    """A row of ``SELECT {BOARD_COLUMNS}`` at ``rank``."""
    user_id, cpu_level, name, mu, sigma, matches = row
    person = int(user_id) != CPU_USER
    return RatingRow(
        rank=rank,
        user_id=int(user_id) if person else None,
        cpu_level=None if person else str(cpu_level),
        display_name=str(name),
        rating=Rating(float(mu), float(sigma)),
        matches=int(matches),
    )
