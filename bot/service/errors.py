"""The one error the service raises: a short plain sentence for a private reply."""

from __future__ import annotations

from bot.i18n import N_, _


class ServiceError(Exception):
    """A refused use case. ``message`` is a short plain sentence meant for a private (ephemeral) reply; it
    never holds a card from anyone's hand. ``code`` is the engine's number (901–907, 910+) for rule errors, or
    a short service code such as ``"not_seated"``, ``"expired"``, ``"stale"`` for everything else.
    ``table_id`` names the table concerned when there is one (e.g. the table already open in the channel)."""

    def __init__(self, code: str | int, message: str, *, table_id: int | None = None) -> None:
        # The shared messages below are catalogue entries: raised in an interaction, they are said in its
        # player's language (a message already written with ``_()`` is left as it is).
        message = _(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.table_id = table_id

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.message!r})"


# Messages shared by several use cases, so the UI and tests can compare against one spelling.
NO_LONGER_POSSIBLE = N_("That move is no longer possible.")
EXPIRED = N_("This button has expired.")
# Where a channel has no table, ``TableService.no_table`` decides what a person is told; this is its default.
NO_TABLE = N_("There is no open table in this channel. Open one with /eights new.")
REMOVED = N_("You were removed from this table.")
NOT_SEATED = N_("You are not seated at this table.")
TAKEN_OVER = N_("A CPU player has your seat; use /eights join to take it back.")


class DatabaseFault(Exception):
    """The database failed under a use case (the store's error, turned into the service's at its boundary by
    ``store_faults``): nothing of the use case was stored. ``damaged``: the database file itself is damaged
    (the message names it and what to do). ``unavailable``: the database cannot be used right now (a server
    restarting, connections cut, a file locked elsewhere, a full disk); the service logs the outage once and
    trying again once it is back is safe."""

    def __init__(
        self, message: str, *, damaged: bool = False, unavailable: bool = False, in_doubt: bool = False
    ) -> None:
        super().__init__(message)
        self.damaged = damaged
        self.unavailable = unavailable
        self.in_doubt = in_doubt  # the move may have been stored: the table shows it once it is known
