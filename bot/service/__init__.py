"""The service layer: the table use cases, testable without Discord (see ``TableService``).

Inputs are ids, an ``Actor`` and an ``Intent``; outputs are ``Outcome`` / ``TableSnapshot`` / ``HandView``;
refusals are ``ServiceError`` with a short plain message for a private reply."""

from bot.service.clock import Clock, FakeClock, SystemClock, Timer
from bot.service.errors import EXPIRED, NO_LONGER_POSSIBLE, NO_TABLE, ServiceError
from bot.service.models import (
    CPU_LEVELS,
    Actor,
    CardChoice,
    HandCard,
    HandView,
    Intent,
    IntentKind,
    NullListener,
    Outcome,
    Phase,
    RankingLine,
    SeatView,
    TableEvent,
    TableListener,
    TableSnapshot,
)
from bot.service.tables import TableService

__all__ = [
    "CPU_LEVELS",
    "EXPIRED",
    "NO_LONGER_POSSIBLE",
    "NO_TABLE",
    "Actor",
    "CardChoice",
    "Clock",
    "FakeClock",
    "HandCard",
    "HandView",
    "Intent",
    "IntentKind",
    "NullListener",
    "Outcome",
    "Phase",
    "RankingLine",
    "SeatView",
    "ServiceError",
    "SystemClock",
    "TableEvent",
    "TableListener",
    "TableService",
    "TableSnapshot",
    "Timer",
]
