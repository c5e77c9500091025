"""The /metrics server (bot.metrics.MetricsServer) against what anyone who reaches its port may send: a storm
of scrapes, requests sent a byte at a time, malformed requests.

It runs on the bot's own event loop, so whatever it costs is paid by every interaction the bot must answer
within Discord's 3 seconds; README (*Running with Docker*) has it listen on ``0.0.0.0`` in a container,
reachable by every container on the same Docker network. (The exposition's content, and the bind address
and port refusals, are in tests/test_metrics.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import metrics as metrics_module
from bot.logging_setup import setup_logging
from bot.metrics import MAX_CONNECTIONS, BotMetrics
from tests.test_metrics import free_port, samples

ROOT = Path(__file__).resolve().parents[1]
SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture
def bot_log(request: pytest.FixtureRequest) -> Iterator[io.StringIO]:
    """The log as `python -m bot run` sets it up (LOG_FORMAT=text; LOG_LEVEL=INFO, or the level a test
    parametrizes ``bot_log`` with)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    setup_logging(getattr(request, "param", "INFO"), "text", stream=stream)
    yield stream
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


async def exchange(port: int, request: bytes, host: str = "127.0.0.1") -> bytes:
    """Sends ``request`` and reads the answer: its head, and the body its Content-Length gives (none for
    HEAD)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        length = next(
            (int(line[15:]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
        )
        if request.startswith(b"HEAD "):
            return head
        return head + await asyncio.wait_for(reader.readexactly(length), 5)
    finally:
        writer.close()


def status_line(answer: bytes) -> bytes:
    return answer.split(b"\r\n", 1)[0]


def status(answer: bytes) -> int:
    return int(status_line(answer).split(b" ")[1])


def body(answer: bytes) -> bytes:
    return answer.split(b"\r\n\r\n", 1)[1]


BAD_REQUESTS = {
    "over-long header": b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10_000 + b"\r\n\r\n",
    "header line without a colon": b"GET /metrics HTTP/1.1\r\nHost: x\r\nnot a header line\r\n\r\n",
    "malformed request line": b"GET /metrics\r\nHost: x\r\n\r\n",
    "not HTTP/1": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
}


@pytest.mark.parametrize("bot_log", ["INFO", "DEBUG"], indirect=True)
async def test_a_malformed_request_is_answered_400_with_at_most_one_debug_line(bot_log: io.StringIO) -> None:
    """Guide: "nobody ever sees a stack trace"; README: one warning per outage, "no traceback per attempt".
    Anyone who reaches the port (a port scanner, any container on the Docker network) may send an over-long
    header, a header line without a colon, a request line that is not HTTP/1. Each is answered 400; the log
    gets nothing at INFO, and at DEBUG one line per request that names the sender's address and what was
    wrong, never the sender's bytes (aiohttp's server logged each at ERROR with a multi-line traceback
    quoting them)."""
    metrics = BotMetrics()
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        answers = [await exchange(port, request) for request in BAD_REQUESTS.values()]
    finally:
        await metrics.stop_server()
    text = bot_log.getvalue()
    assert "Traceback" not in text and "aaaa" not in text and "not a header line" not in text, text[:2000]
    ours = ("serving Prometheus metrics", "asyncio: Using selector")  # the start-up's lines, the loop's
    lines = [line for line in text.splitlines() if not any(what in line for what in ours)]
    if logging.getLogger().level > logging.DEBUG:
        assert lines == []
    else:
        assert len(lines) == len(BAD_REQUESTS), lines
        assert all(" DEBUG " in line and "127.0.0.1" in line and "400" in line for line in lines), lines
    assert [status(answer) for answer in answers] == [400] * len(BAD_REQUESTS), answers


async def test_only_get_and_head_of_metrics_are_served() -> None:
    """``GET /metrics`` (with a query string too, as Prometheus may send, and over HTTP/1.0) answers 200 with
    the exposition and closes the connection; ``HEAD`` the same headers without the body; another path 404;
    another method on /metrics 405 with ``Allow: GET, HEAD``."""
    metrics = BotMetrics()
    metrics.watch_open_tables(lambda: 3)
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        for request in (SCRAPE, b"GET /metrics?name[]=x HTTP/1.0\r\n\r\n"):
            answer = await exchange(port, request)
            assert status(answer) == 200
            head = answer.split(b"\r\n\r\n", 1)[0].decode()
            assert "Content-Type: text/plain; version=" in head and "Connection: close" in head
            assert f"Content-Length: {len(body(answer))}" in head
            assert samples(body(answer).decode())[("eights_open_tables", ())] == 3
        headers_only = await exchange(port, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status(headers_only) == 200 and body(headers_only) == b""
        assert b"Content-Length: 0" not in headers_only
        assert status(await exchange(port, b"GET / HTTP/1.1\r\n\r\n")) == 404
        refused = await exchange(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
        assert status(refused) == 405 and b"Allow: GET, HEAD" in refused
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:  # one answer, then the end of the stream
            writer.write(SCRAPE)
            assert status(await asyncio.wait_for(reader.read(), 5)) == 200
        finally:
            writer.close()
    finally:
        await metrics.stop_server()


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6")
async def test_an_ipv6_address_is_served() -> None:
    """METRICS_ADDRESS may be an IPv6 address (``::1``, ``::``): the server listens on its family."""
    metrics = BotMetrics()
    port = free_port()
    try:
        await metrics.start_server("::1", port)
    except Exception as error:  # no IPv6 loopback in this container
        pytest.skip(f"::1 cannot be listened on: {error}")
    try:
        assert status(await exchange(port, SCRAPE, host="::1")) == 200
    finally:
        await metrics.stop_server()


async def test_an_expensive_exposition_is_made_at_most_once_a_second() -> None:
    """A storm of scrapes costs one exposition a second when making it is dear (hundreds of series): the
    scrapes within that second get the same one."""
    metrics = BotMetrics()
    made = 0

    def dear() -> bytes:
        nonlocal made
        made += 1
        working = time.thread_time() + 0.1
        while time.thread_time() < working:  # 0.1 s of the loop's work
            pass
        return b"eights_open_tables %d\n" % made

    metrics.scrape = dear  # type: ignore[method-assign]
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        answers = await asyncio.gather(*(exchange(port, SCRAPE) for _ in range(30)))
        assert made == 1 and {body(answer) for answer in answers} == {b"eights_open_tables 1\n"}
        await asyncio.sleep(1.1)
        assert body(await exchange(port, SCRAPE)) == b"eights_open_tables 2\n"
    finally:
        await metrics.stop_server()


async def test_scrapes_some_way_apart_see_the_figures_of_their_moment() -> None:
    """A cheap exposition is not held for a whole second: a scrape right after a game ends (an admin's curl,
    the end-to-end test) sees it ended."""
    metrics = BotMetrics()
    tables = [2]
    metrics.watch_open_tables(lambda: tables[0])
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        assert samples(body(await exchange(port, SCRAPE)).decode())[("eights_open_tables", ())] == 2
        tables[0] = 0
        await asyncio.sleep(0.2)
        assert samples(body(await exchange(port, SCRAPE)).decode())[("eights_open_tables", ())] == 0
    finally:
        await metrics.stop_server()


async def test_an_exposition_that_fails_answers_500_with_one_traceback_a_second(bot_log: io.StringIO) -> None:
    """A gauge whose reading raises is a bug of the bot's: the scrape is answered 500 and the error logged
    with its traceback, once for a burst of scrapes (not once per scrape), and tried again a second later."""
    metrics = BotMetrics()

    def broken() -> int:
        raise RuntimeError("the publisher's count is broken")

    metrics.watch_open_tables(broken)
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    try:
        answers = await asyncio.gather(*(exchange(port, SCRAPE) for _ in range(10)))
        assert {status(answer) for answer in answers} == {500}
        assert bot_log.getvalue().count("Traceback") == 1
        metrics.watch_open_tables(lambda: 1)
        await asyncio.sleep(1.1)
        assert samples(body(await exchange(port, SCRAPE)).decode())[("eights_open_tables", ())] == 1
    finally:
        await metrics.stop_server()
    assert bot_log.getvalue().count("Traceback") == 1


STORM_CLIENT = textwrap.dedent(
    """
    import asyncio, sys, time, aiohttp

    async def main(port, connections, seconds):
        done = 0
        end = time.monotonic() + seconds
        timeout = aiohttp.ClientTimeout(total=3)  # a scrape that waits longer is given up, and tried again
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            async def scraper():
                nonlocal done
                while time.monotonic() < end:
                    try:
                        async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                            await response.read()
                            done += 1
                    except (aiohttp.ClientError, asyncio.TimeoutError):
                        await asyncio.sleep(0.05)
            await asyncio.gather(*(scraper() for _ in range(connections)))
        print(done)

    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
    """
)


async def test_a_scrape_storm_does_not_stall_the_bots_event_loop() -> None:
    """Discord: an interaction must be answered within 3 s, and the metrics server runs on the bot's event
    loop. A client (another process, on loopback) keeps 1,000 scrapes of /metrics in flight for 4 s, on a bot
    with a few dozen route classes. The server serves ``MAX_CONNECTIONS`` at once, leaves the rest waiting in
    the kernel's queue, and makes the exposition again only once it is stale: the loop's other work goes on
    (a 10 ms sleep took 1.9 to 3.5 s with aiohttp's server, which served every connection at once and made
    the exposition for each)."""
    metrics = BotMetrics()
    for index in range(40):  # a few dozen route classes, as a bot that has played a while has
        metrics.request_done(f"GET /route{index}/{{id}}", index % 2 == 0, 200, 0.05)
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", STORM_CLIENT, str(port), "1000", "4", stdout=subprocess.PIPE, cwd=ROOT
    )
    worst = 0.0
    try:
        until = time.monotonic() + 5.5
        while time.monotonic() < until:
            started = time.monotonic()
            await asyncio.sleep(0.01)
            worst = max(worst, time.monotonic() - started - 0.01)
        out, _ = await asyncio.wait_for(client.communicate(), 30)
    finally:
        if client.returncode is None:
            client.kill()
            await client.wait()
        await metrics.stop_server()
    served = int(out.decode().strip() or 0)
    assert served > 0, "no scrape was served during the storm"
    assert worst < 1.0, f"the event loop stalled {worst:.2f} s while {served} scrapes were served"


async def test_connections_beyond_the_cap_wait_and_a_head_not_sent_in_time_is_cut(
    monkeypatch: pytest.MonkeyPatch, bot_log: io.StringIO
) -> None:
    """``MAX_CONNECTIONS`` clients that open a connection and send nothing hold every place; a scrape beyond
    them waits (unaccepted, in the kernel's queue) until they are cut at the head's deadline
    (``HEAD_SECONDS``, shortened here), then it is served. Cutting them logs nothing at INFO."""
    monkeypatch.setattr(metrics_module, "HEAD_SECONDS", 1.0)
    metrics = BotMetrics()
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(MAX_CONNECTIONS)]
    try:
        await asyncio.sleep(0.2)  # all accepted
        started = time.monotonic()
        answer = await exchange(port, SCRAPE)
        waited = time.monotonic() - started
        assert status(answer) == 200
        assert 0.6 < waited < 3, waited
        for reader, _writer in idle:  # cut: end of stream (or a reset) without an answer
            with contextlib.suppress(ConnectionResetError):
                assert await asyncio.wait_for(reader.read(), 1) == b""
    finally:
        for _reader, writer in idle:
            writer.close()
        await metrics.stop_server()
    assert bot_log.getvalue().count("\n") <= 1, bot_log.getvalue()  # "serving Prometheus metrics at ..."


SERVER = textwrap.dedent(
    """
    import asyncio, resource, socket, sys
    from bot.metrics import BotMetrics

    async def main(port):
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        metrics = BotMetrics()
        await metrics.start_server("127.0.0.1", port)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        # What the bot does all the time: open a connection (Discord's REST API, PostgreSQL, a new file).
        try:
            socket.socket().close()
            print("ok", flush=True)
        except OSError as error:
            print(f"refused: {error}", flush=True)
        await metrics.stop_server()

    asyncio.run(main(int(sys.argv[1])))
    """
)


async def test_slow_requests_cannot_use_up_the_bots_file_descriptors() -> None:
    """Slowloris; README: the metrics port is reachable from the container network (METRICS_ADDRESS=0.0.0.0).
    A client opens 300 connections and sends their request heads a byte a second for 10 s, to a bot whose
    process may hold 256 descriptors (small, so that the test stays small; the same would hold at any limit
    with more connections). The server holds ``MAX_CONNECTIONS`` of them at most, each cut at the head's
    deadline: the bot can still open sockets (Discord's API, PostgreSQL). (aiohttp's server accepted every
    one and kept it for its keep-alive timeout, 3,630 s: the bot could open nothing and play stopped.)"""
    port = free_port()
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SERVER,
        str(port),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    assert server.stdin is not None and server.stdout is not None
    writers: list[asyncio.StreamWriter] = []
    try:
        assert (await asyncio.wait_for(server.stdout.readline(), 30)).strip() == b"ready"
        # All at once: beyond the kernel's queue a connection waits for its SYN's retries, at no cost to
        # the bot; those not through after 3 s are dropped.
        opening = [asyncio.create_task(asyncio.open_connection("127.0.0.1", port)) for _ in range(300)]
        done, pending = await asyncio.wait(opening, timeout=3)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is None:
                _, writer = task.result()
                writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                writers.append(writer)
        assert len(writers) > MAX_CONNECTIONS
        until = time.monotonic() + 10
        while time.monotonic() < until:
            for writer in writers:
                if not writer.is_closing():
                    writer.write(b"a")
            await asyncio.sleep(1)
        server.stdin.write(b"probe\n")
        await server.stdin.drain()
        answer = (await asyncio.wait_for(server.stdout.readline(), 30)).decode().strip()
    finally:
        for writer in writers:
            writer.close()
        if server.returncode is None:
            server.kill()
        await server.wait()
    assert answer == "ok", f"after 300 slow requests to the metrics port, the bot's process: {answer}"


async def test_stopping_closes_the_connections_left_and_frees_the_port() -> None:
    """The bot stops the server as it shuts down: a connection still sending its request is closed at once,
    no task of the server is left, and the port can be listened on again."""
    metrics = BotMetrics()
    port = free_port()
    await metrics.start_server("127.0.0.1", port)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\n")
    await asyncio.sleep(0.1)
    await metrics.stop_server()
    try:
        with contextlib.suppress(ConnectionResetError):
            assert await asyncio.wait_for(reader.read(), 1) == b""
    finally:
        writer.close()
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    assert not [task for task in others if "metrics" in repr(task.get_coro())], others
    again = BotMetrics()
    await again.start_server("127.0.0.1", port)
    try:
        assert status(await exchange(port, SCRAPE)) == 200
    finally:
        await again.stop_server()
