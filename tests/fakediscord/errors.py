"""Discord's error answers: ``{"code", "message"}``, with ``errors`` for a form error (code 50035) naming
each bad field: ``{"errors": {"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH", "message": ...}]}}}``."""

from __future__ import annotations

from typing import Any


class FormError(Exception):
    """Answer the current request with this Discord error; ``violation``: the bot should never have sent the
    request, so the test fails (the fake records it)."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
        *,
        violation: bool = True,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.violation = violation

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def field_error(path: str, code: str, message: str) -> FormError:
    """A form error for one field, ``path`` like ``name`` or ``components.0.components.1.emoji``."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path.split(".")):
        errors = {key: errors}
    return FormError(400, 50035, f"Invalid Form Body ({path}: {message})", errors)
