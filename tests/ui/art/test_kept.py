"""The pictures' kept parts (bot.ui.art.kept): bounded, the least recently used out first, made once."""

from __future__ import annotations

from bot.ui.art.kept import Kept


def test_the_least_recently_used_goes_first() -> None:
    kept: Kept[str, int] = Kept(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "a" used: "b" is now the oldest
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    assert len(kept) == 2


def test_a_part_is_made_once_then_kept() -> None:
    kept: Kept[str, list[int]] = Kept(4)
    made: list[str] = []

    def make() -> list[int]:
        made.append("x")
        return [len(made)]

    first = kept.get_or_make("x", make)
    assert kept.get_or_make("x", make) is first
    assert made == ["x"]
    kept.clear()
    assert len(kept) == 0 and kept.get_or_make("x", make) == [2]
