"""Sizes of every container the running bot holds, for the leak tests (``test_leaks_e2e.py``): walks the bot,
its service, its publisher, its cogs and the ``bot.*`` modules' globals, recording ``len()`` of each dict,
set, list and deque reached, by the shortest path that reaches it."""

from __future__ import annotations

import collections
import sys
import types
from typing import Any

CONTAINERS = (dict, set, frozenset, list, collections.deque)


def _is_ours(obj: Any) -> bool:
    module = getattr(type(obj), "__module__", "") or ""
    return module.startswith("bot.") or module.startswith("discord.")


def sizes(root: Any, *, depth: int = 7) -> dict[str, int]:
    """Breadth first, so that each object is named by its shortest path."""
    out: dict[str, int] = {}
    seen: set[int] = set()
    queue: collections.deque[tuple[Any, str, int]] = collections.deque([(root, "bot", 0)])
    queue.append((root.service, "service", 1))
    queue.append((root.publisher, "publisher", 1))
    for name, cog in root.cogs.items():
        queue.append((cog, f"cog[{name}]", 1))
    for name, module in list(sys.modules.items()):
        if not name.startswith("bot"):
            continue
        for attr, value in list(vars(module).items()):
            if attr.startswith("__"):
                continue
            container = isinstance(value, CONTAINERS) and not attr.isupper()
            if container or (_is_ours(value) and not isinstance(value, type)):
                queue.append((value, f"{name}:{attr}", 1))
    while queue:
        obj, path, level = queue.popleft()
        if id(obj) in seen or level > depth:
            continue
        seen.add(id(obj))
        if isinstance(obj, CONTAINERS):
            out[path] = len(obj)
            continue
        if isinstance(obj, tuple):
            for index, item in enumerate(obj):
                queue.append((item, f"{path}[{index}]", level + 1))
            continue
        if isinstance(obj, types.ModuleType | type | types.FunctionType) or not _is_ours(obj):
            continue
        attrs: dict[str, Any] = {}
        if hasattr(obj, "__dict__"):
            attrs.update(vars(obj))
        for klass in type(obj).__mro__:
            for slot in getattr(klass, "__slots__", ()) or ():
                if isinstance(slot, str) and hasattr(obj, slot):
                    attrs[slot] = getattr(obj, slot)
        for name, value in attrs.items():
            queue.append((value, f"{path}.{name}", level + 1))
    return out


def grown(before: dict[str, int], after: dict[str, int], by: int) -> dict[str, tuple[int, int]]:
    """The containers that grew by ``by`` or more: path -> (size before, size after)."""
    return {
        path: (before.get(path, 0), size) for path, size in after.items() if size - before.get(path, 0) >= by
    }
