"""Each interaction acted on once, however many times Discord delivers it.

Discord's gateway makes no exactly-once promise: an INTERACTION_CREATE may come again (a dispatch replayed
after a resume, a new session). The second copy has the same id and token; Discord takes one answer to it and
refuses the second (40060), but a bot that acted on both would have drawn two cards for one /eights draw.
The gateway's INTERACTION_CREATE parser is wrapped (discord.py's ``ConnectionState.parsers``, the table its
gateway dispatches from) so that an id seen lately is dropped before discord.py builds anything of it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

# Ids remembered: an interaction's token lives 15 minutes; at 1,000 busy tables that is about as many
# interactions as a few minutes bring, and a redelivery comes within moments of the first.
REMEMBERED = 65_536


def act_once(state: Any) -> None:
    """Make ``state`` (a discord.py ``ConnectionState``) drop an INTERACTION_CREATE whose id it has seen."""
    parse: Callable[[dict[str, Any]], None] = state.parsers["INTERACTION_CREATE"]
    seen: OrderedDict[str, None] = OrderedDict()

    def parse_once(data: dict[str, Any]) -> None:
        key = data.get("id")
        if key is not None:
            if key in seen:
                log.info("interaction %s delivered again by Discord: acted on once", key)
                return
            seen[key] = None
            if len(seen) > REMEMBERED:
                seen.popitem(last=False)
        parse(data)

    state.parsers["INTERACTION_CREATE"] = parse_once
