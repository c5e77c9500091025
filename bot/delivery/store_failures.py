"""How delivery logs a failed database write of its own (the board picture's record, the outbox's notes and
marks): a warning, except while the database is away — the service's outage says that once, with one line on
recovery, not a line for every board shown or line sent meanwhile."""

from __future__ import annotations

import logging

from bot.service.errors import DatabaseFault


def level_of(error: BaseException) -> int:
    return logging.DEBUG if isinstance(error, DatabaseFault) and error.unavailable else logging.WARNING
