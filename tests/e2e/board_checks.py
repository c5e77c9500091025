"""The board embed and picture against the table's true state: what a player reading the board relies on."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image, ImageChops

from bot.engine import card_label, parse_card
from bot.ui.art.board import alt_text, compose_board
from tests.e2e.conftest import World


def picture_of(world: World) -> dict[str, Any] | None:
    pictures = [a for a in world.board().attachments if str(a.get("filename", "")).endswith(".png")]
    return pictures[0] if pictures else None


def fields_of(world: World) -> dict[str, str]:
    return {f["name"]: f["value"] for f in world.board().embeds[0].get("fields", [])}


async def board_disagreements(world: World) -> list[str]:
    """What the board (embed and picture) shows that the table's state does not say."""
    snapshot = await world.snapshot()
    wrong: list[str] = []
    fields = fields_of(world)
    if snapshot.phase == "playing":
        target = card_label(parse_card(snapshot.target_card or "")) if snapshot.target_card else "—"
        if target not in fields.get("Target", ""):
            wrong.append(f"Target field {fields.get('Target')!r}, state {target}")
        direction = "seat order" if snapshot.direction >= 0 else "reversed"
        if direction not in fields.get("Direction", ""):
            wrong.append(f"Direction field {fields.get('Direction')!r}, state {snapshot.direction}")
        if not fields.get("Stock", "").startswith(f"{snapshot.stock_size} card"):
            wrong.append(f"Stock field {fields.get('Stock')!r}, state {snapshot.stock_size}")
        pending = fields.get("Pending draw")
        if snapshot.pending_draw and (pending is None or not pending.startswith(f"{snapshot.pending_draw} ")):
            wrong.append(f"Pending draw {pending!r}, state {snapshot.pending_draw}")
        if not snapshot.pending_draw and pending is not None:
            wrong.append(f"Pending draw {pending!r} shown, state 0")
    seat_lines = fields.get("Seats", "").splitlines()
    for seat, line in zip(snapshot.seats, seat_lines, strict=False):
        if snapshot.phase in ("playing", "between_rounds") and f"{seat.card_count} card" not in line:
            wrong.append(f"seat {seat.position + 1}: {line!r}, state {seat.card_count} cards")
        marked = "▶" in line
        if marked != (snapshot.phase == "playing" and snapshot.to_act == seat.position):
            wrong.append(f"seat {seat.position + 1} turn marker: {line!r}, to_act {snapshot.to_act}")
    picture = picture_of(world)
    if snapshot.phase in ("playing", "between_rounds"):
        if picture is None:
            wrong.append("no picture")
        else:
            shown = Image.open(io.BytesIO(world.fake.files.content(picture))).convert("RGB")
            truth = compose_board(snapshot).convert("RGB")
            if ImageChops.difference(shown, truth).getbbox() is not None:
                wrong.append(
                    f"picture differs from the state's: {ImageChops.difference(shown, truth).getbbox()}"
                )
            if picture.get("description") != alt_text(snapshot):
                wrong.append(f"alt text {picture.get('description')!r} != {alt_text(snapshot)!r}")
    return wrong
