"""Files uploaded with messages and edits (multipart/form-data), as Discord takes them.

A request with files is ``multipart/form-data``: a ``payload_json`` part holding the JSON body, and one part
per file named ``files[n]``. The body's ``attachments`` array describes the uploads by index (``{"id": n,
"filename", "description"}``) and, in an edit, lists the message's existing attachments to keep by their
snowflake. Each upload becomes an attachment object (snowflake ``id``, ``filename``, ``description``,
``content_type``, ``size``, ``url``, ``proxy_url``, and ``width``/``height`` for images); its bytes are kept
and served at its ``url``.

Discord's rules, enforced (400 with code 50035 and recorded as a violation, or 413 for a file too large): at
most 10 files a message, each at most ``max_file_bytes`` (10 MiB, Discord's default upload limit), a
description of at most 1,024 characters, every ``attachments`` entry with an index naming an uploaded file,
and, for messages sent through a channel (not an interaction), the bot's Attach Files permission there.

For tests: ``fake.files.content(attachment)`` gives the bytes of an attachment object (from a message's
``attachments``).
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from aiohttp import BodyPartReader, web
from PIL import Image, UnidentifiedImageError

from .errors import FormError, field_error

if TYPE_CHECKING:
    from .model import FakeChannel
    from .server import FakeDiscord

MAX_FILES = 10
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_DESCRIPTION = 1024
ATTACH_FILES = 1 << 15


class Uploads:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.max_file_bytes = MAX_FILE_BYTES
        self._files: dict[int, bytes] = {}

    def content(self, attachment: dict[str, Any]) -> bytes:
        return self._files[int(attachment["id"])]

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/attachments/{attachment}/{filename}", self._serve)

    async def _serve(self, request: web.Request) -> web.Response:
        data = self._files.get(int(request.match_info["attachment"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    async def read_multipart(
        self, request: web.Request, channel: FakeChannel | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The JSON payload and the attachment objects of the files uploaded with it. ``channel``: the
        request goes through a channel route, where the bot needs Attach Files."""
        payload: dict[str, Any] = {}
        uploads: dict[str, tuple[str, bytes]] = {}  # index as sent ("0") -> (filename, bytes)
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "payload_json":
                payload = json.loads(await part.text())
                continue
            content = await part.read()
            name = part.name or ""
            index = name[len("files[") : -1] if name.startswith("files[") and name.endswith("]") else name
            uploads[index] = (part.filename or "", bytes(content))
        if not isinstance(payload, dict):
            raise FormError(400, 50035, "payload_json must be an object")
        if not uploads:
            return payload, []
        if channel is not None:
            guild = self.fake.guilds.get(channel.guild_id)
            if guild is not None and not guild.permissions_of(self.fake.bot_user.id) & ATTACH_FILES:
                raise FormError(403, 50013, "Missing Permissions (Attach Files)")
        if len(uploads) > MAX_FILES:
            raise field_error("files", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_FILES} or fewer in length.")
        described: dict[str, dict[str, Any]] = {}
        # An interaction callback nests the message in "data": its attachments are described there.
        body = payload["data"] if isinstance(payload.get("data"), dict) else payload
        for number, entry in enumerate(body.get("attachments") or []):
            if not isinstance(entry, dict) or "id" not in entry:
                raise field_error(f"attachments.{number}.id", "BASE_TYPE_REQUIRED", "This field is required")
            description = entry.get("description")
            if description is not None and (
                not isinstance(description, str) or len(description) > MAX_DESCRIPTION
            ):
                raise field_error(
                    f"attachments.{number}.description",
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_DESCRIPTION} or fewer in length.",
                )
            key = str(entry["id"])
            if len(key) < 15:  # an index names an upload; a snowflake names an attachment to keep
                if key not in uploads:
                    raise field_error(
                        f"attachments.{number}", "ATTACHMENT_NOT_FOUND", f"No file uploaded as files[{key}]"
                    )
                described[key] = entry
        attachments = []
        for index, (filename, content) in uploads.items():
            if len(content) > self.max_file_bytes:
                raise FormError(413, 40005, "Request entity too large")
            entry = described.get(index, {})
            filename = str(entry.get("filename") or filename)
            if not filename:
                raise field_error(f"files.{index}", "BASE_TYPE_REQUIRED", "A file needs a file name")
            attachments.append(self._attachment(filename, content, entry.get("description")))
        return payload, attachments

    def _attachment(self, filename: str, content: bytes, description: str | None) -> dict[str, Any]:
        attachment_id = self.fake.snowflake()
        self._files[attachment_id] = content
        url = f"{self.fake.base_url}/attachments/{attachment_id}/{filename}"
        attachment: dict[str, Any] = {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(content),
            "url": url,
            "proxy_url": url,
            "content_type": "application/octet-stream",
        }
        if description is not None:
            attachment["description"] = description
        try:
            with Image.open(io.BytesIO(content)) as image:
                attachment["width"], attachment["height"] = image.size
                attachment["content_type"] = Image.MIME.get(image.format or "", "application/octet-stream")
        except (UnidentifiedImageError, OSError):
            pass
        return attachment
