"""The lobby's house rules: the host (or a manager) changes one option of the table's rules at a time before
the first deal; the engine validates the whole ruleset, and an impossible combination is refused with the
reason while the table keeps its rules. The rules live in the table's state document ("house_rules": the
options changed from the preset), so a restart keeps them. "Most players" also sets the seats of a table
opened with a number of seats (the state's "seats", read by ``capacity``)."""

from __future__ import annotations

from bot.engine import Ruleset, RulesetError, get_preset, rule_options, rule_wording
from bot.engine.crazier import CrazierRules
from bot.i18n import N_, _
from bot.service.errors import ServiceError
from bot.service.live import Work, capacity
from bot.service.models import Actor, HouseOption, Outcome
from bot.service.registry import TableRegistry
from bot.service.seats import check_host, may_host
from bot.service.views import house_option_view

NOT_LOBBY = N_("House rules can only be changed before the first deal.")


class HouseRuleUseCases:
    def __init__(self, registry: TableRegistry) -> None:
        self._registry = registry

    async def set_house_rule(self, table_id: int, actor: Actor, option: str, value: str) -> Outcome:
        """Change one option. Errors: "not_host", "not_lobby", "bad_option" (an unknown option, a value it
        does not take, an impossible combination, or rules that seat fewer players than are seated)."""

        def change(work: Work) -> None:
            check_host(work, actor)
            if work.phase != "lobby":
                raise ServiceError("not_lobby", NOT_LOBBY)
            current = _house_ruleset(work.live.ruleset)
            try:
                chosen = rule_options.option(option)
                new = rule_options.change(current, chosen.key, value)
            except RulesetError as exc:
                raise ServiceError(
                    "bad_option", _("That house rule can't be used: {exc}.", exc=exc)
                ) from None
            seated = len(work.seats)
            # "Most players" is the host's latest word on the table's seats: a table opened with a number
            # of seats seats as many as it now says (the board, Join and Add CPU agree), not the fewer.
            seats_chosen = work.live.record.options.get("seats_chosen") is not False
            follows = chosen.key == "max_players" and seats_chosen
            offered = new.max_seats if follows else capacity(work.live, new)
            if new.min_seats > offered:
                raise ServiceError(
                    "bad_option",
                    _(
                        "These rules need at least {min_seats} players; this table seats {seats}.",
                        min_seats=new.min_seats,
                        seats=offered,
                    ),
                )
            if seated > min(offered, new.max_seats):  # the table's seats under the new rules
                raise ServiceError(
                    "bad_option",
                    _(
                        "{seated} players are seated; these rules allow at most {max_seats}.",
                        seated=seated,
                        max_seats=min(offered, new.max_seats),
                    ),
                )
            work.ruleset = new
            work.doc["house_rules"] = rule_options.house_rules(new)
            if follows:
                work.doc["seats"] = new.max_players  # kept with the state: a restart keeps it (``capacity``)
            work.say(
                "house_rule",
                None,
                option=chosen.label,
                value=rule_options.current_value(new, chosen.key),
                text=rule_wording.describe(new, chosen.key),
            )

        return await self._registry.mutate(
            table_id, None, actor, {"kind": "house", "option": option, "value": value}, change
        )

    async def house_options(self, table_id: int, actor: Actor | None = None) -> list[HouseOption]:
        """Every option with its current value and the values to offer. With an ``actor``, only for one who
        may change them now ("not_host", "not_lobby"), so the panel is refused before anything is picked."""
        live = await self._registry.require(table_id, None)
        if actor is not None:
            if not may_host(live.doc, actor):
                raise ServiceError("not_host", _("Only the host (or a manager) can change the house rules."))
            if live.phase != "lobby":
                raise ServiceError("not_lobby", NOT_LOBBY)
        return [
            house_option_view(_house_ruleset(live.ruleset), option.key) for option in rule_options.OPTIONS
        ]

    async def house_option(self, table_id: int, option: str) -> HouseOption:
        """One option of the table ("bad_option" for an unknown one)."""
        live = await self._registry.require(table_id, None)
        try:
            return house_option_view(_house_ruleset(live.ruleset), option)
        except RulesetError as exc:
            raise ServiceError("bad_option", _("{exc}.", exc=exc)) from None

    def house_values(self, table_id: int | None, option: str, typed: str = "") -> list[tuple[str, str]]:
        """(value, label) to offer for ``option`` at the table (the classic rules without one), filtered by
        what was typed; empty for an unknown option."""
        live = self._registry.get(table_id) if table_id is not None else None
        ruleset = live.ruleset if live is not None else get_preset("classic")
        if not isinstance(ruleset, Ruleset):
            return []
        try:
            return rule_options.suggestions(option, typed, ruleset)
        except RulesetError:
            return []


def _house_ruleset(ruleset: Ruleset | CrazierRules) -> Ruleset:
    """The house options are the standard game's: crazier-abilities has none of them."""
    if not isinstance(ruleset, Ruleset):
        raise ServiceError("bad_option", _("This game has no house rules."))
    return ruleset
