"""The board picture's input for a ``crazier-abilities`` table (``CrazierBoard``), filled from the table's
public snapshot: hand sizes, never a hand (the snapshot holds none).

The discard pile's size is not in the snapshot; every card of the 52 is always in exactly one place (draw
pile, a hand, in play, discard pile: the engine's conservation), so it is what the other three leave.
"""

from __future__ import annotations

from bot.engine.crazier.deck import COLOUR_NAMES, DECK, colours_of
from bot.service.models import TableSnapshot
from bot.ui.art.board import has_picture
from bot.ui.art.crazier_board import CrazierBoard, CrazierSeat

_COLOUR_CODES = {name: code for code, name in COLOUR_NAMES.items()}


def colour_code(name: str) -> str | None:
    """ "blue" -> "B" (the snapshot writes the colours to follow by name)."""
    return _COLOUR_CODES.get(name)


def discard_size(snapshot: TableSnapshot) -> int:
    """The discard pile's cards, its top card included: the deck less the draw pile and what the players
    hold (hands and cards in play). The snapshot of a crazier-abilities game only."""
    board = snapshot.crazier
    assert board is not None
    in_play = sum(len(cards) for cards in board.in_play)
    held = sum(seat.card_count or 0 for seat in snapshot.seats) + in_play
    return max(1, len(DECK) - board.draw_size - held)


def crazier_board_of(snapshot: TableSnapshot) -> CrazierBoard | None:
    """The picture's input, or None when the table is not of this game or has no game on it."""
    board = snapshot.crazier
    if board is None or not has_picture(snapshot):
        return None
    over = snapshot.phase != "playing"
    follow = tuple(code for code in (colour_code(name) for name in board.follow) if code is not None)
    top = board.top.code
    seats = []
    for seat in sorted(snapshot.seats, key=lambda seat: seat.position):
        position = seat.position
        alive = board.alive[position] if position < len(board.alive) else True
        in_play = board.in_play[position] if position < len(board.in_play) else ()
        # A game's winners score 0 for it (with teams, both members, out or not).
        won = over and seat.last_round_score == 0 and (alive or board.teams)
        seats.append(
            CrazierSeat(
                position=position,
                name=seat.name,
                hand_size=seat.card_count or 0,
                in_play=tuple(card.code for card in in_play),
                to_act=not over and seat.to_act,
                out=not alive,
                won=won,
                team=position % 2 + 1 if board.teams else None,
            )
        )
    return CrazierBoard(
        top_card=top,
        draw_pile=board.draw_size,
        discard_pile=discard_size(snapshot),
        seats=tuple(seats),
        # An 8 on top follows the colour named for it, which may not be its own.
        named_colour=follow[0] if len(follow) == 1 and follow != colours_of(top) else None,
        game_number=snapshot.round_number,
        game_over=over,
    )
