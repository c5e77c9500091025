"""Reading a ruleset an earlier release stored: the rules its matches were played by.

README, *Replays*: a match is rebuilt from its deal and its move log, so matches stored before a change of
play must replay by the rule they were played by. Each game lists such changes as fields of its ruleset that
are not house rules, oldest change first, with the value meaning the rule before the change (``EARLIER_RULES``
of ``bot.engine.rules`` and of ``bot.engine.crazier.rules``). A ruleset this engine writes holds every one of
them; one an earlier release stored lacks the fields added after that release:

* a field it lacks that is older than one it holds reads as today's rule (the release that stored the newer
  field played by every older change);
* any other field it lacks reads as the rule before its change (``filled``): the release is taken to be older
  than every change it does not name. A release that played some of those changes before their fields were
  added (a build between the change and its field) is read by ``readings``, one more change at a time.

Pure functions over JSON, imported by both games' rules (so they import nothing of the engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _latest_held(data: Mapping[str, Any], earlier: Mapping[str, Any]) -> int:
    """The index in ``earlier`` of the newest change ``data`` names (-1: none)."""
    return max((i for i, key in enumerate(earlier) if key in data), default=-1)


def filled(data: Mapping[str, Any], earlier: Mapping[str, Any], today: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (a stored ruleset's JSON) with every field of ``earlier`` it lacks: today's value (``today``)
    for a change older than the newest it names, the value before the change (``earlier``) for the others."""
    latest = _latest_held(data, earlier)
    lacked = {
        key: today[key] if i < latest else before
        for i, (key, before) in enumerate(earlier.items())
        if key not in data
    }
    return {**lacked, **data}


def readings(
    data: Mapping[str, Any], earlier: Mapping[str, Any], today: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Every way of reading ``data`` that a release which stored it may have played by: ``filled``'s first
    (played before every change it does not name), then, for each of those changes oldest first, played
    after it too. A ruleset that names every change has one reading."""
    latest = _latest_held(data, earlier)
    unknown = [key for i, key in enumerate(earlier) if i > latest and key not in data]
    return [
        filled({**data, **{key: today[key] for key in unknown[:count]}}, earlier, today)
        for count in range(len(unknown) + 1)
    ]
