"""Gateway faults the fake can inject, as Discord's gateway shows them to a bot.

Each kind leaves the session resumable (but ``invalid_session``), so the client RESUMEs and the fake replays
every dispatch the client did not receive (RESUME carries the last sequence number it saw):

- ``close``: the fake closes the websocket with a close code (4000 "unknown error" by default), as Discord
  does when it restarts a gateway node;
- ``abrupt``: the TCP connection is cut without a close frame (code 1006 on the client's side);
- ``half_open``: the connection stays up but nothing flows: the fake stops acknowledging heartbeats and stops
  writing dispatches (they wait for the RESUME). The client notices only when its ``heartbeat_timeout``
  passes without a frame (discord.py's default is 60 s: tests pass a small one);
- ``reconnect``: an op 7 RECONNECT; the client closes and resumes;
- ``invalid_session``: an op 9 INVALID SESSION with ``d: false``: the session is gone, the RESUME would be
  refused, the client IDENTIFYs anew (what was dispatched meanwhile is lost, as on Discord).

``outages`` records each fault from its injection until the session is served again (a RESUMED or a READY),
so a bench can tell an interaction that could not reach the bot from one the bot failed to answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import FakeDiscord, GatewaySession

KINDS = ("close", "abrupt", "half_open", "reconnect", "invalid_session")


@dataclass
class Outage:
    kind: str
    shard_id: int
    start: float  # loop time
    end: float | None = None  # when the shard was served again

    def covers(self, moment: float, margin: float = 0.0) -> bool:
        """True when ``moment`` falls within the outage (or ``margin`` seconds before it began)."""
        return self.start - margin <= moment and (self.end is None or moment <= self.end)


class GatewayFaults:
    """Injects the faults above into a ``FakeDiscord``'s gateway sessions (``fake.faults``)."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.outages: list[Outage] = []
        self.injected: dict[str, int] = dict.fromkeys(KINDS, 0)

    async def inject(self, kind: str, shard_id: int | None = None, *, code: int = 4000) -> int:
        """Inject ``kind`` into the live sessions (of ``shard_id``, or all); returns how many were hit."""
        if kind not in KINDS:
            raise ValueError(f"unknown gateway fault {kind!r}; one of {KINDS}")
        hit = 0
        now = asyncio.get_running_loop().time()
        for session in list(self.fake.sessions.values()):
            if shard_id is not None and session.shard_id != shard_id:
                continue
            ws = session.ws
            if ws is None or ws.closed or session.invalid:
                continue
            hit += 1
            self.injected[kind] += 1
            self.outages.append(Outage(kind, session.shard_id, now))
            if kind == "close":
                session.ws = None
                await ws.close(code=code)
            elif kind == "abrupt":
                session.ws = None
                transport = self.fake.transport_of(ws)
                if isinstance(transport, asyncio.Transport):
                    transport.abort()
            elif kind == "half_open":
                session.half_open = True
            elif kind == "reconnect":
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps({"op": 7, "d": None}))
            else:  # invalid_session
                session.invalid = True
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps({"op": 9, "d": False}))
        return hit

    def served(self, session: GatewaySession) -> None:
        """The shard is served again (RESUMED or READY sent): close its open outages."""
        now = asyncio.get_running_loop().time()
        for outage in self.outages:
            if outage.end is None and outage.shard_id == session.shard_id:
                outage.end = now

    def during_outage(self, moment: float, margin: float = 0.0) -> bool:
        return any(outage.covers(moment, margin) for outage in self.outages)

    async def run(self, every: float, kinds: Iterable[str] = KINDS, *, stop: asyncio.Event) -> None:
        """Inject the ``kinds`` in turn, one every ``every`` seconds, until ``stop`` is set."""
        for kind in itertools.cycle(tuple(kinds)):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
            if stop.is_set():
                return
            await self.inject(kind)
