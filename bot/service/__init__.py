"""The service layer: the table use cases, testable without Discord (see ``TableService``).

Inputs are ids, an ``Actor`` and an ``Intent``; outputs are ``Outcome`` / ``TableSnapshot`` / ``HandView``;
refusals are ``ServiceError(code, message)`` with a short plain message for a private reply.

At a glance (all async; ``table_id`` from ``require_table(channel_id)`` or from a button):

- lobby: ``open_table(guild_id, channel_id, actor, preset, target, seats, turn_timeout, *, auto_draw,
  next_round_pause)``, ``join``, ``leave``, ``add_cpu(table_id, actor, level)``, ``start``, ``end``,
  ``kick(table_id, actor, member_id)``, ``set_house_rule(table_id, actor, option, value)``,
  ``house_options(table_id)``, ``house_values(table_id, option, typed)``;
- play: ``act(table_id, actor, intent, round_token=None)`` (a button passes its hand's ``round_token``, which
  also names the situation it was shown in: a second press of it is refused), ``next_round(table_id, actor,
  round_token)``;
- reads (in memory): ``hand(table_id, user_id)``, ``legal_card_choices(channel_id, user_id, current)``,
  ``snapshot(table_id)``, ``scores(table_id)``, ``table_in_channel(channel_id)``, ``rules_text(preset,
  table_id)``, ``manager_role_id(guild_id)``, ``preset_names()``;
- wiring: ``set_board_message(table_id, message_id)``, ``restore_all()`` at start-up (it also starts the
  pruning of old move logs when ``move_log_retention`` is given), ``close()`` at shutdown; what happens on its
  own reaches ``TableListener.on_outcome``; ``store_outage()`` (is the database failing; its
  ``on_failed_commit`` takes the metrics counter); ``moves_pruned_at(table_id)`` (a match whose moves are
  gone);
- hooks for tests: ``seed_deals(seed)``, ``observe(observer)`` (every committed state held), ``busy()``.

Where things live: ``tables`` (the facade), ``registry`` (live tables, the mutation path), ``lobby``,
``play``, ``settlement``, ``scheduler``, ``snapshots``, ``outcomes``, ``moves`` (engine steps, the referee),
``seats``, ``live`` (the in-memory table and its stored document), ``standings`` (leaderboard, stats,
history), ``server`` (a server's settings, card display switches, forget), ``outage`` (the database failing:
one log line, failed commits counted), ``retention`` (old move logs pruned), ``models`` (what goes out),
``clock``, ``errors``, ``faults`` (store errors become ``DatabaseFault``), ``catalog`` (presets and house
options before any table).
"""

from bot.service.catalog import house_option_labels, house_value_suggestions, preset_names
from bot.service.clock import Clock, FakeClock, SystemClock, Timer
from bot.service.errors import EXPIRED, NO_LONGER_POSSIBLE, NO_TABLE, DatabaseFault, ServiceError
from bot.service.models import (
    CPU_LEVELS,
    Actor,
    CardChoice,
    HandCard,
    HandView,
    HouseOption,
    Intent,
    IntentKind,
    NullListener,
    Outcome,
    Phase,
    RankingLine,
    SeatView,
    SideLine,
    TableEvent,
    TableListener,
    TableSnapshot,
    UntoldLine,
)
from bot.service.tables import TableService

# The name the store writes in place of a forgotten person's (the face shows it in the reader's language).
from bot.store.rows import ANONYMOUS_NAME as FORGOTTEN_NAME

__all__ = [
    "CPU_LEVELS",
    "EXPIRED",
    "FORGOTTEN_NAME",
    "NO_LONGER_POSSIBLE",
    "NO_TABLE",
    "Actor",
    "CardChoice",
    "Clock",
    "DatabaseFault",
    "FakeClock",
    "HandCard",
    "HandView",
    "HouseOption",
    "Intent",
    "IntentKind",
    "NullListener",
    "Outcome",
    "Phase",
    "RankingLine",
    "SeatView",
    "ServiceError",
    "SideLine",
    "SystemClock",
    "TableEvent",
    "TableListener",
    "TableService",
    "TableSnapshot",
    "Timer",
    "UntoldLine",
    "house_option_labels",
    "house_value_suggestions",
    "preset_names",
]
