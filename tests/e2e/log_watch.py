"""The log a player's hand must never reach (README, LOG_LEVEL: "At `DEBUG` too, no line holds a player's
hand").

A DEBUG log set up as ``python -m bot run`` sets it (LOG_LEVEL=DEBUG, LOG_FORMAT=json: the bot's
``setup_logging``, its filters and JSON formatter), whose every written line is checked, as it is written,
against the cards held privately at that moment (the e2e privacy observer's ``hidden_from(None)``: cards in
some player's hand that the round has not made public and no public message has shown).

A card is looked for in every form the bot or the engine writes one: the engine's code as a whole token
("KH", "10S", "9B", also inside the state's JSON and in emoji names "e8f2_KH" / "e8z1_z9B"), the label with
its suit symbol ("K♥"), and the English name ("King of Hearts")."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from bot.engine import parse_card
from bot.engine.cards import RANK_NAMES, SUIT_NAMES
from bot.logging_setup import setup_logging
from tests.e2e.conftest import World

SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CLASSIC_LABEL = re.compile(r"^(10|[2-9AJQK])([♣♦♥♠])$")


def forms_of(card: str) -> list[re.Pattern[str]]:
    """The patterns that name ``card`` (a classic label "K♥" or a crazier code "9B") in a log line."""
    found = CLASSIC_LABEL.match(card)
    if found:
        rank, symbol = found.groups()
        code = rank + SUIT_OF_SYMBOL[symbol]
        value = parse_card(code)
        name = f"{RANK_NAMES[value >> 2]} of {SUIT_NAMES[value & 3]}"
        return [
            re.compile(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])"),
            re.compile(rf"(?<![0-9A-Za-z]){re.escape(card)}"),
            re.compile(re.escape(name), re.IGNORECASE),
        ]
    # crazier-abilities: the code is the card ("9B"); its emoji key is "z9B".
    return [re.compile(rf"(?<![A-Za-z0-9])z?{re.escape(card)}(?![A-Za-z0-9])")]


@dataclass
class Leak:
    card: str
    line: dict[str, Any]
    where: str

    def __str__(self) -> str:
        return f"{self.card} in {self.where} of {self.line.get('logger')}: {str(self.line)[:400]}"


@dataclass
class LogWatch:
    world: World
    lines: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    # Cards known private across a restart (the observer forgets the old bot's tables while the new one
    # restores them; the game's state is unchanged meanwhile).
    sticky: set[str] = field(default_factory=set)
    _saved: tuple[list[logging.Handler], int] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def hidden(self) -> frozenset[str]:
        try:
            now = self.world.observer.hidden_from(None)
        except Exception:  # another thread (discord.py's heartbeat) while the loop changes the tables
            now = set()
        return frozenset(now | self.sticky)

    def install(self) -> None:
        root = logging.getLogger()
        self._saved = (list(root.handlers), root.level)
        watch = self

        class Stream(io.StringIO):
            def write(self, text: str) -> int:
                hidden = watch.hidden()
                with watch._lock:
                    for line in text.splitlines():
                        if line.strip():
                            watch.lines.append((line, hidden))
                return len(text)

        setup_logging("DEBUG", "json", secrets=self.world.config().secrets(), stream=Stream())
        self.world.observer.hidden_from(None)  # the observer follows the service's tables from now on
        restart = self.world.restart

        async def watched_restart() -> Any:
            # The restore path logs while the observer knows no table yet: what was private stays so.
            self.remember_hidden()
            try:
                return await restart()
            finally:
                self.world.observer.hidden_from(None)
                self.forget_sticky()

        self.world.restart = watched_restart  # type: ignore[method-assign]

    def uninstall(self) -> None:
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        if self._saved is not None:
            handlers, level = self._saved
            for handler in handlers:
                root.addHandler(handler)
            root.setLevel(level)

    def remember_hidden(self) -> None:
        """Before a restart: the cards held privately now stay private until the game moves again."""
        self.sticky = set(self.world.observer.hidden_from(None))

    def forget_sticky(self) -> None:
        self.sticky = set()

    def leaks(self) -> list[Leak]:
        found: list[Leak] = []
        cache: dict[str, list[re.Pattern[str]]] = {}
        for raw, hidden in self.lines:
            try:
                entry = json.loads(raw)
            except ValueError:
                entry = {"logger": "?", "message": raw}
            for key, value in entry.items():
                if key in ("time", "level", "logger"):
                    continue
                text = str(value)
                for card in hidden:
                    patterns = cache.setdefault(card, forms_of(card))
                    if any(p.search(text) for p in patterns):
                        found.append(Leak(card, entry, key))
        return found

    def saw_private_cards(self) -> int:
        """How many lines were written while some card was private (the check is not vacuous)."""
        return sum(1 for _line, hidden in self.lines if hidden)


def assert_no_leak(watch: LogWatch, minimum: int = 50) -> None:
    """No field of any line written names a card that was private when it was written; and at least
    ``minimum`` lines were written while some card was private (the check was not vacuous)."""
    assert watch.saw_private_cards() >= minimum, (
        "the check saw too few lines written while cards were private"
    )
    leaks = watch.leaks()
    assert not leaks, f"{len(leaks)} log fields name a private card, e.g.:\n" + "\n".join(
        str(leak) for leak in leaks[:5]
    )
