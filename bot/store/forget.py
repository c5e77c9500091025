"""forget-user, once for both backends: a person's data-deletion request (``Store.forget_user``).

The person's statistics and ratings go, and every copy of their id and name at closed tables becomes
anonymous: seats, match rankings, the tables they opened, the move log's actor ids, and the JSON the store
keeps, which names people too (a table's state: its host, its kicked list, the recent events and the final
ranking; the move log: who joined, left, was kicked or taken over, who a private event went to). Open tables
are left alone, because the game in progress needs them (``open_tables_of_user`` lists them: those where the
person has a seat or acted, a lobby they left or were removed from included).

A closed table whose move log retention deleted (``MOVE_LOG_RETENTION_DAYS``) no longer tells who acted there,
yet its state may still name a person who holds no seat (a lobby they left, or were removed from): retention
keeps who acted in the moves it deletes in ``pruned_actors``, in the deleting transaction
(``prune_closed_moves``; migrations/0014_pruned_actors.sql), and forget finds such tables there, by the
person's id, then deletes the person's rows there.

``procedure`` is a generator of the statements, written once: each backend runs what it yields inside one
transaction and sends back the rows of a query (or the count of rows a change touched), so the SQL and the
order live here and only the driver calls differ.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from bot.store.rows import ANONYMOUS_NAME, dumps, loads
from bot.store.statements import CLOSED, OPEN, params_of

# While this meta row exists (only inside forget's own transaction) the move log's append-only trigger lets a
# move's action and events be rewritten: see migrations/0007_forget_everywhere.sql.
MARKER = "forget_user_running"

# JSON keys whose value is a person's id, in a table's state, a move's action and its events, and what
# replaces the forgotten person's: no one, or 0 for a table's host (as in game_tables.host_id) and for the
# person a private event was told to ("to"): None there would make it a public line (``Work.say`` logs
# "to": None), shown to everyone in the match's replay (bot.service.replays).
_ID_KEYS: dict[str, int | None] = {"user_id": None, "to": 0, "member": None, "host_id": 0}
# Keys of the name that goes with a "user_id" in the same object (an event about a person, a ranking line).
_NAME_KEYS = ("name", "display_name")
# Lists of people's ids.
_ID_LISTS = ("kicked",)

# The schema version that made ``pruned_actors``: a store migrated to an older one (a test making a database
# as an old bot would have) prunes without the note, which that migration then backfills from the tables'
# state.
PRUNED_ACTORS_MIGRATION = 14

# The open tables forget leaves alone that hold the person (``Store.open_tables_of_user``): a seat, or a move
# of theirs (a lobby they left or were removed from: no seat, but the table's state and moves name them;
# kicked and left people joined first, so their join move is there). Each by an index; :user.
OPEN_TABLES_OF_USER = (
    "SELECT s.table_id FROM seats AS s JOIN game_tables AS t ON t.id = s.table_id "
    f"WHERE s.user_id = :user AND t.{OPEN} "
    "UNION SELECT m.table_id FROM moves AS m JOIN game_tables AS t ON t.id = m.table_id "
    f"WHERE m.actor_id = :user AND t.{OPEN} "
    "ORDER BY 1"
)


@dataclass(frozen=True, slots=True)
class Statement:
    sql: str  # with :name parameters (``statements.numbered`` turns them into PostgreSQL's $1, $2 …)
    params: dict[str, Any] = field(default_factory=dict)
    rows: bool = False  # a query: send back its rows; otherwise the number of rows changed


def _statement(sql: str, *, rows: bool = False, **values: Any) -> Statement:
    return Statement(sql, params_of(sql, values), rows)


def procedure(user_id: int, guild_id: int | None) -> Generator[Statement, Any, int]:
    """forget-user's statements, in order; returns the number of rows deleted or anonymised.

    The closed tables the person was at are found first, through what still names them (the tables they
    opened, their seats, their moves, and retention's note of who acted in the moves it deleted: each by an
    index), before those are anonymised."""
    values: dict[str, Any] = {
        "user": user_id,
        "guild": guild_id,
        "anonymous": ANONYMOUS_NAME,
        "marker": MARKER,
    }
    in_guild = "" if guild_id is None else " AND guild_id = :guild"
    t_in_guild = "" if guild_id is None else " AND t.guild_id = :guild"
    yield _statement("INSERT INTO meta (key, value) VALUES (:marker, '')", **values)
    found = yield _statement(
        f"SELECT id FROM game_tables WHERE host_id = :user AND {CLOSED}{in_guild} "
        "UNION SELECT s.table_id FROM seats AS s JOIN game_tables AS t ON t.id = s.table_id "
        f"WHERE s.user_id = :user AND t.{CLOSED}{t_in_guild} "
        "UNION SELECT m.table_id FROM moves AS m JOIN game_tables AS t ON t.id = m.table_id "
        f"WHERE m.actor_id = :user AND t.{CLOSED}{t_in_guild} "
        "UNION SELECT p.table_id FROM pruned_actors AS p JOIN game_tables AS t ON t.id = p.table_id "
        f"WHERE p.user_id = :user AND t.{CLOSED}{t_in_guild}",
        rows=True,
        **values,
    )
    changed = 0
    for (table_id,) in found:
        changed += yield from _redact_rows(
            user_id,
            table_id,
            "SELECT table_id, state FROM game_state WHERE table_id = :table",
            "UPDATE game_state SET state = :json WHERE table_id = :table",
        )
        moves = yield _statement(
            "SELECT seq, action, events FROM moves WHERE table_id = :table", rows=True, table=table_id
        )
        for seq, action, events in moves:
            new_action, new_events = redacted(action, user_id), redacted(events, user_id)
            if new_action is not None or new_events is not None:
                changed += yield _statement(
                    "UPDATE moves SET action = :action, events = :events "
                    "WHERE table_id = :table AND seq = :seq",
                    action=action if new_action is None else new_action,
                    events=events if new_events is None else new_events,
                    table=table_id,
                    seq=seq,
                )
        # A closed table's last moves may not be told yet (the outbox): they are told without the person.
        changed += yield from _redact_rows(
            user_id,
            table_id,
            "SELECT version, events FROM move_outbox WHERE table_id = :table",
            "UPDATE move_outbox SET events = :json WHERE table_id = :table AND version = :key",
        )
    closed_table = (
        f"EXISTS (SELECT 1 FROM game_tables AS t WHERE t.id = {{}}.table_id AND t.{CLOSED}{t_in_guild})"
    )
    for sql in (
        f"DELETE FROM player_stats WHERE user_id = :user{in_guild}",
        f"DELETE FROM player_preset_counts WHERE user_id = :user{in_guild}",
        # Ratings go with the statistics (with the skills of the last matches they keep): a person's is in
        # their player_stats row since migration 0013, and in ratings on an older schema. Other players'
        # ratings stay as they are: what they won or lost against this person is theirs.
        f"DELETE FROM ratings WHERE user_id = :user AND cpu_level = ''{in_guild}",
        "UPDATE match_rankings SET user_id = NULL, display_name = :anonymous WHERE user_id = :user "
        "AND EXISTS (SELECT 1 FROM match_results AS r WHERE r.table_id = match_rankings.table_id"
        f"{in_guild})",
        "UPDATE moves SET actor_id = NULL WHERE actor_id = :user AND " + closed_table.format("moves"),
        f"UPDATE game_tables SET host_id = 0 WHERE host_id = :user AND {CLOSED}{in_guild}",
        "UPDATE seats SET user_id = NULL, display_name = :anonymous WHERE user_id = :user AND "
        + closed_table.format("seats"),
        "DELETE FROM pruned_actors WHERE user_id = :user AND " + closed_table.format("pruned_actors"),
    ):
        changed += yield _statement(sql, **values)
    yield _statement("DELETE FROM meta WHERE key = :marker", **values)
    return changed


def _redact_rows(user_id: int, table_id: int, select: str, update: str) -> Generator[Statement, Any, int]:
    """The rows of the table that ``select`` finds (a key, then JSON), each that names the person rewritten
    by ``update`` (:table, the row's :key, its new :json); returns the number of rows changed."""
    changed = 0
    found = yield _statement(select, rows=True, table=table_id)
    for key, text in found:
        new = redacted(text, user_id)
        if new is not None:
            changed += yield _statement(update, table=table_id, key=key, json=new)
    return changed


def redacted(text: str, user_id: int) -> str | None:
    """The JSON ``text`` without the person's id and name, or None when it holds neither."""
    value = loads(text)
    new = _redact(value, user_id)
    return None if new == value else dumps(new)


def _redact(value: Any, user_id: int) -> Any:
    if isinstance(value, list):
        return [_redact(item, user_id) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _redact(item, user_id) for key, item in value.items()}
    for key, replacement in _ID_KEYS.items():
        if out.get(key) == user_id:
            out[key] = replacement
    if value.get("user_id") == user_id:
        for key in _NAME_KEYS:
            if key in out:
                out[key] = ANONYMOUS_NAME
    for key in _ID_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [item for item in out[key] if item != user_id]
    return out
