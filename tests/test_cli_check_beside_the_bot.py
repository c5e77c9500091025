"""`python -m bot check` run beside the bot it checks, as README's Docker section suggests
(`docker exec eights python -m bot check` on the running container).

The running bot holds its shards, so `run` with the same settings would be refused while it runs. check tells
the bot itself from another process by its heartbeat: named by the same shards, fresh, not stopped, written
from this host by a process alive here. Then it says that the shards are held by the bot running here, and
its verdict is "ready" (exit 0): the settings are the running bot's, nothing to stop. It said "another process
already runs every shard … stop it first" and "not ready", which told the admin to stop a healthy bot. Held
by anything else (another machine's bot, a process with no heartbeat), it is a problem as before (exit 1;
tests/postgres_shards/test_check_ignores_claims.py)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from bot.shards import ShardSet
from bot.store import open_store
from bot.store.claims import claim_shards
from tests.test_cli import TOKEN, bot
from tests.test_cli_backup_companions import migrated

REPO = Path(__file__).resolve().parents[1]


def test_check_beside_the_running_bot_says_so_and_is_ready(tmp_path: Path) -> None:
    """A process that holds every shard and beats as the bot does (its pid, this host): check prints that
    the shards are held by the bot running here, names its process, no PROBLEM, and exits 0. The same claim
    with a heartbeat from another host, one stopped cleanly, one too old, or one of a process that is gone:
    check cannot tell the holder is the bot here, and says run would be refused (exit 1), as before."""
    database = tmp_path / "eights.sqlite3"
    url = migrated(database)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import asyncio, os, socket, time\n"
            "from bot.shards import ShardSet\n"
            "from bot.store import open_store\n"
            "from bot.store.claims import claim_shards\n"
            "async def main():\n"
            f"    claim = await claim_shards({url!r}, ShardSet(None, None))\n"
            f"    store = await open_store({url!r})\n"
            "    here = socket.gethostname()\n"
            "    await store.write_heartbeat(time.time(), 'all', pid=os.getpid(), host=here)\n"
            "    print('ready', flush=True)\n"
            "    await asyncio.sleep(3600)\n"
            "asyncio.run(main())\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        checked = bot(tmp_path, "check", env={"DATABASE_URL": url, "DISCORD_TOKEN": TOKEN})
    finally:
        child.kill()
        child.wait()
    assert "PROBLEM" not in checked.stdout and "stop it first" not in checked.stdout, checked.stdout
    assert f"shards: held by the bot running here with these settings (process {child.pid}" in checked.stdout
    assert checked.stdout.strip().splitlines()[-1].startswith("ready: the bot runs here")
    assert checked.returncode == 0
    asyncio.run(_held_by_another(tmp_path, url))


async def _held_by_another(tmp_path: Path, url: str) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    here, now = socket.gethostname(), time.time()
    beats = [  # pid, host, when, stopped cleanly
        (os.getpid(), "another-machine", now, False),
        (os.getpid(), here, now - 600, False),
        (int(gone.stdout), here, now, False),
        (os.getpid(), here, now, True),
    ]
    running = await claim_shards(url, ShardSet(None, None))
    try:
        for pid, host, at, stopped in beats:
            store = await open_store(url)
            try:
                await store.write_heartbeat(at, "all", pid=pid, host=host)
                if stopped:
                    await store.mark_stopped("all", now)
            finally:
                await store.close()
            checked = await asyncio.to_thread(
                bot, tmp_path, "check", env={"DATABASE_URL": url, "DISCORD_TOKEN": TOKEN}
            )
            assert checked.returncode == 1, (pid, host, at, stopped, checked.stdout)
            assert "PROBLEM" in checked.stdout and "another process already runs" in checked.stdout
    finally:
        await running.release()
