"""Every committed play is told exactly once and in order, however the bot dies (issue 26).

The bot (tests/service/outbox_child.py: the table service and the real publisher over an SQLite file, its
channel a file) plays CPU matches in two channels and is SIGKILLed at random moments, again and again, and
also kills itself now and then right after Discord accepted a line and before it heard so. After the last
kill a bot finishes the matches left and tells what is still untold. Then each channel shows, in order,
exactly the plays of its tables' move logs: none lost (committed and never told), none told twice (told,
not marked, told again by the next process), none out of order."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import time
from pathlib import Path

from bot.engine import card_label, parse_card
from tests.zygote import ZygoteProcess

KILLS = 30
PLAYED = re.compile(r"^.+ played ((?:10|[2-9AJQK])[♣♦♥♠])$", re.MULTILINE)


class Zygote(ZygoteProcess):
    def __init__(self, db: Path, channel: Path, log: Path) -> None:
        super().__init__("tests.service.outbox_child", [str(db), str(channel)], log)
        self._held: list[list[str]] = []

    def _next(self, words: tuple[str, ...], pid: int | None) -> list[str]:
        """The next line starting with one of ``words`` (about ``pid``); a bot's lines may come before the
        zygote's ``pid`` line, so lines not wanted yet are kept."""
        for parts in self._held:
            if parts[0] in words and (pid is None or int(parts[1]) == pid):
                self._held.remove(parts)
                return parts
        while True:
            parts = self._read()
            if parts[0] in words and (pid is None or int(parts[1]) == pid):
                return parts
            self._held.append(parts)

    def expect(self, words: tuple[str, ...], pid: int) -> str:
        return self._next(words, pid)[0]

    def spawn(self, seed: int, mode: str) -> int:
        self._send(f"spawn {seed} {mode}")
        return int(self._next(("pid",), None)[1])

    def kill(self, pid: int) -> None:
        os.kill(pid, signal.SIGKILL)  # a bot that killed itself is a zombie until reaped: still there
        self._send(f"reap {pid}")
        self.expect(("dead",), pid)


def plays_told(channel_file: Path) -> dict[int, list[str]]:
    """Per channel, the plays its line messages tell, in the order Discord accepted them."""
    told: dict[int, list[str]] = {}
    for line in channel_file.read_text().splitlines():
        entry = json.loads(line)
        if entry["content"] and not entry["board"]:
            told.setdefault(entry["channel"], []).extend(PLAYED.findall(entry["content"]))
    return told


def plays_committed(db: Path) -> tuple[dict[int, list[str]], int]:
    """Per channel, the plays of its tables' move logs (public events), table after table; and how many
    matches finished."""
    conn = sqlite3.connect(db)
    try:
        committed: dict[int, list[str]] = {}
        tables = conn.execute("SELECT id, channel_id FROM game_tables ORDER BY id").fetchall()
        for table_id, channel_id in tables:
            plays = committed.setdefault(channel_id, [])
            logged = conn.execute("SELECT events FROM moves WHERE table_id = ? ORDER BY seq", (table_id,))
            for (events,) in logged:
                for event in json.loads(events):
                    if event["kind"] == "played" and event.get("to") is None and "to_seat" not in event:
                        plays.append(card_label(parse_card(event["data"]["card"])))
        finished = conn.execute("SELECT COUNT(*) FROM game_tables WHERE status = 'finished'").fetchone()[0]
        untold = conn.execute("SELECT COUNT(*) FROM move_outbox").fetchone()[0]
        assert untold == 0, f"{untold} moves still untold"
        return committed, int(finished)
    finally:
        conn.close()


def test_every_committed_play_is_told_exactly_once_in_order_through_kills(tmp_path: Path) -> None:
    db, channel = tmp_path / "bot.sqlite3", tmp_path / "channel.jsonl"
    log = tmp_path / "bots.log"
    rng = random.Random(2026)
    zygote = Zygote(db, channel, log)
    try:
        for life in range(KILLS):
            pid = zygote.spawn(life, "play")
            state = zygote.expect(("ready", "failed"), pid)
            assert state == "ready", log.read_text()[-3000:]
            time.sleep(rng.uniform(0.02, 0.3))
            zygote.kill(pid)
        pid = zygote.spawn(KILLS, "drain")
        assert zygote.expect(("ready", "failed"), pid) == "ready", log.read_text()[-3000:]
        assert zygote.expect(("drained", "failed"), pid) == "drained", log.read_text()[-3000:]
        zygote.kill(pid)
    finally:
        zygote.close()

    committed, finished = plays_committed(db)
    told = plays_told(channel)
    assert finished >= 4, "too few matches played to mean anything"
    for channel_id, plays in committed.items():
        assert len(plays) > 50
        shown = told.get(channel_id, [])
        assert shown == plays, f"channel {channel_id}: {len(shown)} plays told of {len(plays)}"
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    # The instant this is about was met: lines Discord had accepted were sent again, and not shown twice.
    assert text.count("nonce repeated") >= 3, text.count("nonce repeated")
    plays = sum(map(len, committed.values()))
    print(f"{finished} matches, {plays} plays, {text.count('nonce repeated')} lines sent again")
