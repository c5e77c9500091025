"""A server's house rules for new tables, when a table's preset refuses some of them: each table gets every
one its preset takes (``ServerSettings.default_house_rules``), the options the engine takes only together (a
match of rounds and its number; payment scoring and a match that reaches the target) included, whatever
order the store gives them back in."""

from __future__ import annotations

import pytest

from bot.service import TableService
from bot.service.server import ServerService
from bot.store import Store
from tests.service.support import ALICE, CHANNEL, GUILD


@pytest.mark.parametrize(
    ("rule", "value", "expected_end"),
    [
        ("rounds", "3", "rounds"),  # stored as match_end=rounds, rounds=3
        ("match_end", "reaches-target", "reaches-target"),  # stored as scoring=payment, match_end=...
    ],
)
async def test_coupled_server_rules_reach_a_preset_that_refuses_another_rule(
    service: TableService, store: Store, rule: str, value: str, expected_end: str
) -> None:
    """A server sets two house rules for new tables (Manage Server, /eights settings): 'a wild answers a
    pending draw' (fits classic, whose draws stack) and a match end (3 rounds; or reaches-target, which
    brings payment scoring with it). A table opened with uno-lite (draws do not stack) cannot take the
    first rule, but takes the match end: it should start with the match end the server chose (as the
    settings promise: 'each table gets every one its preset takes'), not a match to 100 points."""
    server = ServerService(store)
    await server.update_settings(GUILD, house_option="wild_answers_draw", house_value="on")
    shown = await server.update_settings(GUILD, house_option=rule, house_value=value)
    # (PostgreSQL gives the stored rules back in jsonb's key order, SQLite in the order they were set.)
    outcome = await service.open_table(GUILD, CHANNEL, ALICE, preset="uno-lite")
    ruleset = outcome.snapshot.ruleset
    assert ruleset is not None and ruleset.name == "uno-lite"
    assert not ruleset.wild_answers_draw  # refused by uno-lite: right
    assert ruleset.match_end == expected_end, (
        f"the server's {rule}={value} was dropped at a uno-lite table: it plays "
        f"{outcome.snapshot.match_end!r}; the settings showed {shown.default_house_rules}"
    )
    if expected_end == "rounds":
        assert ruleset.rounds == 3
    else:
        assert ruleset.scoring == "payment"
