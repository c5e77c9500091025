"""Application emojis in the fake Discord, and the checks Discord makes on emojis in components.

Endpoints (as Discord's Emoji resource documents them): ``GET /applications/{app}/emojis`` answers
``{"items": [emoji, ...]}``; ``GET``, ``PATCH`` (name) and ``DELETE`` on ``/applications/{app}/emojis/{id}``;
``POST /applications/{app}/emojis`` with ``{"name", "image": "data:image/png;base64,..."}``.

Discord's limits, enforced: a name of 2–32 characters of ``[A-Za-z0-9_]``, unique among the app's emojis;
an image of PNG, JPEG, GIF, WebP or AVIF data, at most 256 KiB once decoded; at most 2,000 emojis per app.
A broken rule is answered 400 with Discord's error shape (``{"code": 50035, "message": "Invalid Form Body",
"errors": {"name": {"_errors": [{"code": ..., "message": ...}]}}}``, or 30008 for the count) and recorded as
a violation, as the bot should never send such a request.

A component's emoji (button or select option) must be ``{"name": "<unicode>"}`` or ``{"id", "name",
"animated"}`` naming an emoji that exists and belongs to this app; anything else is refused as Discord does.

For tests: ``fake.emojis.items`` (id → emoji JSON), ``fake.emojis.by_name(name)``, ``fake.emojis.images``
(id → PNG bytes), ``fake.emojis.created`` (every POST that succeeded), and ``fake.emojis.fail_creates``:
set it to an HTTP status (e.g. 500 or 403) to make every create fail, as during an outage.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .errors import FormError, field_error

if TYPE_CHECKING:
    from .server import FakeDiscord

MAX_APP_EMOJIS = 2000
MAX_EMOJI_BYTES = 256 * 1024
NAME = re.compile(r"^[A-Za-z0-9_]{2,32}$")
DATA_URI = re.compile(r"^data:(?P<mime>image/(?:png|jpeg|gif|webp|avif));base64,(?P<data>.+)$", re.S)
SIGNATURES = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
    "image/avif": (b"\x00\x00\x00",),
}
# Content of messages: custom emoji markup (<:name:id> or <a:name:id>).
CUSTOM_EMOJI_MARKUP = re.compile(r"<(?P<animated>a?):(?P<name>\w{2,32}):(?P<id>\d{15,21})>")
# ASCII letters and digits cannot be a Unicode emoji on their own (keycaps need U+20E3).
_ASCII_WORD = re.compile(r"[A-Za-z0-9]")


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


class AppEmojis:
    """The application's own emojis (see the module docstring)."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.items: dict[int, dict[str, Any]] = {}
        self.images: dict[int, bytes] = {}
        self.created: list[str] = []  # names, in the order they were created
        self.fail_creates: int | None = None

    # --- the test API ----------------------------------------------------------------------------------

    def by_name(self, name: str) -> dict[str, Any] | None:
        return next((emoji for emoji in self.items.values() if emoji["name"] == name), None)

    def names(self) -> set[str]:
        return {emoji["name"] for emoji in self.items.values()}

    def add(self, name: str, image: bytes = b"\x89PNG\r\n\x1a\n") -> dict[str, Any]:
        """Create an emoji as the app's owner would in the developer portal (no request, no checks)."""
        emoji_id = self.fake.snowflake()
        emoji = self._emoji(emoji_id, name)
        self.items[emoji_id] = emoji
        self.images[emoji_id] = image
        return emoji

    def unknown_in(self, text: str) -> list[str]:
        """Custom emoji markup in ``text`` naming no emoji of this app (Discord shows it as ``:name:``)."""
        return [
            match.group(0)
            for match in CUSTOM_EMOJI_MARKUP.finditer(text)
            if int(match["id"]) not in self.items or self.items[int(match["id"])]["name"] != match["name"]
        ]

    # --- REST ------------------------------------------------------------------------------------------

    def add_routes(self, router: web.UrlDispatcher, prefix: str) -> None:
        base = prefix + "/applications/{app}/emojis"
        router.add_get(base, self._list)
        router.add_post(base, self._create)
        router.add_get(base + "/{emoji}", self._get)
        router.add_patch(base + "/{emoji}", self._modify)
        router.add_delete(base + "/{emoji}", self._delete)

    @staticmethod
    async def _json_object(request: web.Request) -> dict[str, Any]:
        if request.headers.get("Content-Type", "") != "application/json":
            raise FormError(400, 50035, "body must be sent as application/json")
        try:
            body = json.loads(await request.text())
        except ValueError:
            raise FormError(400, 50109, "The request body contains invalid JSON.") from None
        if not isinstance(body, dict):
            raise FormError(400, 50035, "JSON body must be an object")
        return body

    def _check_app(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.fake.token}":
            raise FormError(401, 0, "401: Unauthorized", violation=False)
        if request.match_info["app"] != str(self.fake.application_id):
            raise FormError(403, 50001, "Missing Access: not this bot's application")

    def _find(self, request: web.Request) -> dict[str, Any]:
        self._check_app(request)
        try:
            emoji = self.items.get(int(request.match_info["emoji"]))
        except ValueError:
            emoji = None
        if emoji is None:
            raise FormError(404, 10014, "Unknown Emoji", violation=False)
        return emoji

    def _emoji(self, emoji_id: int, name: str) -> dict[str, Any]:
        return {
            "id": str(emoji_id),
            "name": name,
            "roles": [],
            "user": self.fake.bot_user.payload(),
            "require_colons": True,
            "managed": False,
            "animated": False,
            "available": True,
        }

    def _check_name(self, name: Any, *, exclude: int | None = None) -> str:
        if not isinstance(name, str):
            raise field_error("name", "BASE_TYPE_REQUIRED", "This field is required")
        if not 2 <= len(name) <= 32:
            raise field_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length.")
        if not NAME.fullmatch(name):
            raise field_error(
                "name", "STRING_TYPE_REGEX", "String value did not match validation regex (A-Za-z0-9_)."
            )
        if any(e["name"] == name for i, e in self.items.items() if i != exclude):
            raise field_error(
                "name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "An emoji with this name already exists."
            )
        return name

    @staticmethod
    def _decode_image(image: Any) -> bytes:
        if not isinstance(image, str):
            raise field_error("image", "BASE_TYPE_REQUIRED", "This field is required")
        match = DATA_URI.fullmatch(image)
        if match is None:
            raise field_error("image", "IMAGE_INVALID", "Invalid image data")
        try:
            data = base64.b64decode(match["data"], validate=True)
        except (binascii.Error, ValueError):
            raise field_error("image", "IMAGE_INVALID", "Invalid image data") from None
        if not data.startswith(SIGNATURES[match["mime"]]):
            raise field_error("image", "IMAGE_INVALID", "Invalid image data")
        if len(data) > MAX_EMOJI_BYTES:
            raise field_error("image", "BINARY_TYPE_MAX_SIZE", "File cannot be larger than 256.0 kb.")
        return data

    async def _list(self, request: web.Request) -> web.Response:
        self._check_app(request)
        return json_response({"items": list(self.items.values())})

    async def _get(self, request: web.Request) -> web.Response:
        return json_response(self._find(request))

    async def _create(self, request: web.Request) -> web.Response:
        self._check_app(request)
        if self.fail_creates is not None:
            status = self.fail_creates
            raise FormError(status, 0, f"{status}: emoji upload refused by the test", violation=False)
        body = await self._json_object(request)
        name = self._check_name(body.get("name"))
        data = self._decode_image(body.get("image"))
        if len(self.items) >= MAX_APP_EMOJIS:
            raise FormError(400, 30008, f"Maximum number of emojis reached ({MAX_APP_EMOJIS})")
        emoji = self.add(name, data)
        self.created.append(name)
        self.fake._notify()
        return json_response(emoji, 201)

    async def _modify(self, request: web.Request) -> web.Response:
        emoji = self._find(request)
        body = await self._json_object(request)
        if "name" in body:
            emoji["name"] = self._check_name(body["name"], exclude=int(emoji["id"]))
        return json_response(emoji)

    async def _delete(self, request: web.Request) -> web.Response:
        emoji = self._find(request)
        del self.items[int(emoji["id"])]
        self.images.pop(int(emoji["id"]), None)
        return web.Response(status=204)

    # --- emojis inside messages ------------------------------------------------------------------------

    def check_components(self, components: Any) -> list[FormError]:
        """Every emoji on a button or a select option must be valid: Discord refuses the message otherwise,
        naming the field (``components.0.components.1.emoji.id``)."""
        errors: list[FormError] = []

        def walk(items: Any, path: str) -> None:
            if not isinstance(items, list):
                return
            for index, item in enumerate(items):
                if not isinstance(item, dict):
                    continue
                here = f"{path}.{index}"
                if "emoji" in item:
                    errors.extend(self._check_emoji(item["emoji"], f"{here}.emoji"))
                for number, option in enumerate(item.get("options") or []):
                    if isinstance(option, dict) and "emoji" in option:
                        errors.extend(self._check_emoji(option["emoji"], f"{here}.options.{number}.emoji"))
                walk(item.get("components"), f"{here}.components")
                accessory = item.get("accessory")
                if isinstance(accessory, dict):
                    walk([accessory], f"{here}.accessory")

        walk(components, "components")
        return errors

    def _check_emoji(self, emoji: Any, where: str) -> list[FormError]:
        def invalid(field: str, why: str) -> list[FormError]:
            return [field_error(f"{where}.{field}" if field else where, "COMPONENT_INVALID_EMOJI", why)]

        if not isinstance(emoji, dict):
            return invalid("", "Invalid emoji: an emoji must be an object")
        emoji_id, name = emoji.get("id"), emoji.get("name")
        if emoji_id is None:
            if not isinstance(name, str) or not name or len(name) > 16 or _ASCII_WORD.search(name):
                return invalid("name", f"Invalid emoji: {name!r} is not a Unicode emoji")
            return []
        try:
            known = self.items.get(int(emoji_id))
        except (TypeError, ValueError):
            return invalid("id", f"Invalid emoji: {emoji_id!r} is not a snowflake")
        if known is None:
            return invalid("id", f"Invalid emoji: {emoji_id} is unknown or not this application's")
        if emoji.get("animated") not in (True, False, None):
            return invalid("animated", "Must be a boolean")
        return []
