"""Changes to who sits where, shared by the lobby and the scheduler: the host check, freeing a lobby seat,
passing the host role on, and a CPU taking over a person's seat (left, kicked, or too many timeouts)."""

from __future__ import annotations

import dataclasses
from typing import Any

from bot.i18n import _
from bot.service.errors import ServiceError
from bot.service.live import TAKEOVER_LEVEL, Work, was_kicked
from bot.service.models import Actor

#: ``doc["host_id"]`` of a table with no host: its host was removed and nobody else plays a seat of their
#: own. The first person to take their seat back becomes host (``LobbyUseCases.join``); managers meanwhile.
NO_HOST = 0


def may_host(doc: dict[str, Any], actor: Actor) -> bool:
    """Whether the actor may do what the table's host does: the host, or one who can manage the channel.
    A member the table removed (``kicked``) is never its host."""
    if actor.can_manage:
        return True
    return actor.user_id == doc["host_id"] and not was_kicked(doc, actor.user_id)


def check_host(work: Work, actor: Actor) -> None:
    if not may_host(work.doc, actor):
        raise ServiceError(
            "not_host",
            _("Only the host or a manager (Manage Channels, or the server's manager role) can do that."),
        )


def remove_seat(work: Work, position: int) -> None:
    del work.seats[position]
    del work.doc["timeouts"][position]
    work.seats = [dataclasses.replace(seat, position=i) for i, seat in enumerate(work.seats)]
    work.seats_changed = True


def after_lobby_departure(work: Work, user_id: int) -> None:
    if not any(seat.user_id is not None for seat in work.seats):
        work.close("abandoned", "empty")
        return
    pass_host(work, user_id)


def pass_host(work: Work, leaving_id: int) -> None:
    """The host role goes to the first person still playing their own seat, when the host leaves. With
    nobody to go to, a host who left keeps it (they may come back); a host who was removed loses it: the
    table has no host (``NO_HOST``) until a person takes their seat back."""
    if work.doc["host_id"] != leaving_id:
        return
    for seat in work.seats:
        if seat.user_id is not None and seat.user_id != leaving_id and not seat.cpu_takeover:
            work.doc["host_id"] = seat.user_id
            work.say_seat("host_changed", seat)
            return
    if was_kicked(work.doc, leaving_id):
        work.doc["host_id"] = NO_HOST


def take_over(work: Work, position: int, reason: str) -> None:
    seat = work.seats[position]
    work.seats[position] = dataclasses.replace(
        seat, cpu_takeover=True, cpu_level=TAKEOVER_LEVEL, left_at=work.now
    )
    work.seats_changed = True
    work.say_seat("taken_over", seat, reason=reason, level=TAKEOVER_LEVEL)
    if seat.user_id is not None:
        work.tell(seat.user_id, "taken_over", position, reason=reason, level=TAKEOVER_LEVEL)
