"""Where discord.py reaches Discord's REST API and gateway.

Set by ``DISCORD_API_BASE_URL`` and ``DISCORD_GATEWAY_URL`` (both optional; Discord's own by default), for
deployments behind an HTTP proxy of Discord's API and for the end-to-end tests' fake Discord server.

discord.py has no option for this. What decides it, and how each is overridden here:

* REST: every request, interaction callbacks and webhooks included, is built from ``discord.http.Route.BASE``
  (a class attribute read whenever a ``Route`` is made). We set it.
* Gateway, plain ``Client``/``Bot`` and ``AutoShardedBot`` with a fixed ``shard_count``: they connect to
  ``DiscordWebSocket.DEFAULT_GATEWAY``. We set it. It is also where the client goes after an invalid
  session.
* Gateway, ``AutoShardedBot`` without ``shard_count``: it connects to the URL returned by
  ``GET /gateway/bot``. ``HTTPClient.get_bot_gateway`` is wrapped once so that, while an override is set,
  the URL it returns is the configured one (the shard count and session limits still come from the API).
* Resume: after READY the client resumes on READY's ``resume_gateway_url``, stored in
  ``DiscordWebSocket.gateway``. That attribute is turned into a property once, whose setter stores the
  configured URL instead while an override is set, so resumes (``Client.connect`` and ``Shard.reidentify``
  both read ``ws.gateway``) go there too.

The patches are installed on first use and are inert while no gateway override is set: ``apply_endpoints(None,
None)`` restores Discord's own endpoints completely.
"""

from __future__ import annotations

from typing import Any

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import HTTPClient, Route

from bot.config import url_problem

__all__ = [
    "API_BASE_URL_ENV",
    "DEFAULT_API_BASE_URL",
    "DEFAULT_GATEWAY_URL",
    "GATEWAY_URL_ENV",
    "apply_endpoints",
    "current_endpoints",
]

API_BASE_URL_ENV = "DISCORD_API_BASE_URL"
GATEWAY_URL_ENV = "DISCORD_GATEWAY_URL"

DEFAULT_API_BASE_URL: str = Route.BASE
DEFAULT_GATEWAY_URL: yarl.URL = DiscordWebSocket.DEFAULT_GATEWAY

# The configured gateway, or None for Discord's own. Read by the two patches below.
_gateway_override: yarl.URL | None = None
_patched = False


def _validated_api_base(url: str) -> str:
    problem = url_problem(url, ("http", "https"))
    if problem == "scheme":
        raise ValueError(f"{API_BASE_URL_ENV} must be an http(s) URL with a host, got {url!r}")
    if problem == "query":
        raise ValueError(f"{API_BASE_URL_ENV} must not have a query string or fragment, got {url!r}")
    # Route appends paths that start with "/", so the base must not end with one.
    return url.rstrip("/")


def _validated_gateway(url: str) -> yarl.URL:
    problem = url_problem(url, ("ws", "wss"))
    if problem == "scheme":
        raise ValueError(f"{GATEWAY_URL_ENV} must be a ws:// or wss:// URL with a host, got {url!r}")
    if problem == "query":
        # discord.py adds its own ?v=10&encoding=json&compress=... to this URL.
        raise ValueError(f"{GATEWAY_URL_ENV} must be given without a query string, got {url!r}")
    return yarl.URL(url)


def _install_patches() -> None:
    global _patched
    if _patched:
        return

    original_get_bot_gateway = HTTPClient.get_bot_gateway

    async def get_bot_gateway(self: HTTPClient) -> Any:
        shards, url, limits = await original_get_bot_gateway(self)
        if _gateway_override is not None:
            url = str(_gateway_override)
        return shards, url, limits

    def get_gateway(ws: DiscordWebSocket) -> yarl.URL:
        return ws.__dict__["_endpoints_gateway"]  # type: ignore[no-any-return]

    def set_gateway(ws: DiscordWebSocket, value: yarl.URL) -> None:
        ws.__dict__["_endpoints_gateway"] = _gateway_override if _gateway_override is not None else value

    HTTPClient.get_bot_gateway = get_bot_gateway  # type: ignore[method-assign]
    # A data descriptor on the class takes precedence over the instance attribute discord.py assigns.
    DiscordWebSocket.gateway = property(get_gateway, set_gateway)  # type: ignore[assignment]
    _patched = True


def apply_endpoints(api_base_url: str | None, gateway_url: str | None) -> None:
    """Point discord.py's REST calls and gateway connections at the given URLs (None: Discord's own).

    ``api_base_url`` includes the API version, e.g. ``http://127.0.0.1:8080/api/v10``; ``gateway_url`` has
    no query string, e.g. ``wss://gateway.example/``. Affects every client in the process; call before
    ``bot.start``.
    """
    global _gateway_override
    base = _validated_api_base(api_base_url) if api_base_url else DEFAULT_API_BASE_URL
    gateway = _validated_gateway(gateway_url) if gateway_url else None
    _install_patches()
    Route.BASE = base
    _gateway_override = gateway
    DiscordWebSocket.DEFAULT_GATEWAY = gateway if gateway is not None else DEFAULT_GATEWAY_URL


def current_endpoints() -> tuple[str, str]:
    """The REST base and gateway URL discord.py will use now."""
    return Route.BASE, str(DiscordWebSocket.DEFAULT_GATEWAY)
