"""The AST scan behind test_no_literals: string literals in the face and the service that read as words a
person would see, outside a catalogue call."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("bot/ui", "bot/exts", "bot/delivery", "bot/service")
#: Calls whose string arguments are catalogue entries.
CATALOGUE_CALLS = frozenset({"_", "N_", "ngettext", "pgettext", "npgettext"})
#: Calls whose strings are for developers, admins or machines, never shown to a player: logging (the logs stay
#: English), exceptions that are bugs or configuration errors (not refusals), string plumbing.
NOT_SHOWN_CALLS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "error",
        "exception",
        "critical",
        "log",  # logging
        "_log_failed",  # bot/delivery/board.py: a warning, or DEBUG while the database is away
        "ValueError",
        "TypeError",
        "RuntimeError",
        "KeyError",
        "AssertionError",
        "NotImplementedError",
        "ConfigError",
        "DatabaseFault",
        "_NotUploaded",
        "getLogger",
        "compile",
        "fullmatch",
        "match",
        "search",
        "sub",
        "split",
        "join",
        "startswith",
        "endswith",
        "replace",
        "strip",
        "removeprefix",
        "get",
        "pop",
        "getattr",
        "hasattr",
        "setdefault",
        "format",
        "encode",
        "get_cog",
        "add_listener",
        "create_task",
        "metric",
        "Counter",
        "Histogram",
        "Gauge",
        "Lock",
        "field",
        "TypeVar",
        "NewType",
        "cast",
        "isinstance",
    }
)
#: Keyword arguments that are identifiers, not words: custom ids, names of routes and files, URLs.
NOT_SHOWN_KEYWORDS = frozenset(
    {"custom_id", "template", "name", "filename", "url", "style", "value", "key", "code", "kind", "reason"}
)
# Words: two letters or more, then a space and a letter — "Join", "No", "42:3" or "e8:" are not sentences,
# and single words are caught where they are shown (button labels go through pgettext).
WORDS = re.compile(r"[A-Za-z]{2,}[^\s]*\s+[A-Za-z]")
#: Justified exceptions (path, the literal's start): each one is not shown to players.
ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {
        # Cog names: how the bot finds its own parts (routing), never shown.
        ("bot/ui/replays.py", "Eights replays"),
        ("bot/ui/standings.py", "Eights standings"),
        ("bot/ui/standings.py", "Eights server"),
        # The /eights group's description: a slash string, translated by the command tree's translator.
        ("bot/exts/_group.py", "Crazy Eights tables: one per channel"),
        # The message contexts of the slash strings (msgctxt, read by translators, never shown).
        ("bot/exts/translator.py", "slash "),
        # A log line's reason.
        ("bot/delivery/emojis.py", "Discord answered "),
        # An exception's message for the logs (a follow-up whose outcome is unknown), never shown to players.
        ("bot/delivery/budget.py", "lost its connection"),
        ("bot/delivery/budget.py", " : Discord may have taken it"),
        # The art's sample sheet (``python -m bot.ui.art.board``-style developer output), not a table.
        ("bot/ui/art/board.py", "+2 to draw"),
        ("bot/ui/art/board.py", "round 1 over stock 9"),
        ("bot/ui/art/board.py", "Sample name"),
        # The Crazier board's palette sample: words drawn to choose colours, never shown.
        ("bot/ui/art/crazier_board.py", "Sample name"),
        # The slash commands' own strings: the translator gets them from discord.py (bot.exts.translator).
        ("bot/exts/slash_strings.py", "A Discord name"),
        # Discord's own permission wording in a log line's hint.
        ("bot/client.py", " (invited without"),
        # A /eights settings choice named in a form the translator translates as a slash string.
        ("bot/exts/server/_cog.py", "Discord's server language"),
    }
)


@dataclass(frozen=True)
class Literal:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text!r}"


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _decorator_nodes(tree: ast.AST) -> set[int]:
    """Everything inside a decorator: the slash commands' names, descriptions and choices, which discord.py
    hands to the translator (``bot.exts.translator``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in node.decorator_list:
                out.update(id(n) for n in ast.walk(decorator))
    return out


def literals_in(path: Path) -> Iterator[Literal]:
    source = path.read_text()
    tree = ast.parse(source)
    skip = _docstrings(tree) | _decorator_nodes(tree)
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    relative = path.relative_to(ROOT).as_posix()

    def excused(node: ast.AST) -> bool:
        current: ast.AST | None = node
        while current is not None:
            if id(current) in skip:
                return True
            parent = parents.get(id(current))
            if isinstance(parent, ast.Call):
                name = _name(parent.func)
                if name in CATALOGUE_CALLS or name in NOT_SHOWN_CALLS:
                    return True
                # app_commands' own objects: translated by the command tree's translator.
                if name in ("Choice", "command", "describe", "Group", "rename"):
                    return True
            if isinstance(parent, ast.keyword) and parent.arg in NOT_SHOWN_KEYWORDS:
                return True
            if isinstance(parent, ast.Compare) or (
                isinstance(parent, ast.Subscript) and parent.slice is current
            ):
                return True
            if isinstance(parent, ast.Dict) and current in parent.keys:
                return True
            current = parent
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        else:
            continue
        if isinstance(parents.get(id(node)), ast.JoinedStr):
            continue
        if not WORDS.search(text) or excused(node):
            continue
        if any(relative == path_ and text.startswith(start) for path_, start in ALLOWED):
            continue
        yield Literal(relative, node.lineno, text)


def user_facing_literals() -> list[Literal]:
    found: list[Literal] = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found.extend(literals_in(path))
    return found
