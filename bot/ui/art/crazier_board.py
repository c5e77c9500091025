"""The board picture of a ``crazier-abilities`` table, drawn from plain public data (``CrazierBoard``).

What it shows: at the top, the draw pile with its size, the top card large with its whole name, the colour (or
colours) the next discard must share, the discard pile's size and whose turn it is; below, one row per player
in seat order: the name (lit in gold while it is their turn; a team game names the team), the number of cards
in hand, and every card they control in play, each as a small face with its name written beside it.
``crazier_alt_text`` says the same in words, for screen readers.

The input holds no hand (only its size), so no hand can reach the picture. What does not change is drawn once:
the empty picture per number of players, each card's small and large face, the badges, the draw pile; a board
is those pasted together and its text written. ``CrazierBoard`` is frozen and hashable: equal boards are equal
pictures, which is what ``BoardRenderer`` caches by (``render_crazier_cached`` and ``render_crazier_async``:
an unchanged board is not drawn again, and a new one is drawn in the renderer's thread, off the event loop).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.engine.crazier.deck import COLOUR_NAMES, colours_of, rank_of, row_of
from bot.i18n import _, current_locale, ngettext, pgettext
from bot.ui.art.board import BoardPicture, BoardRenderer, drawable_name, fit_text
from bot.ui.art.cards import INK, SUPERSAMPLE, back_image, draw_centered_text, font, png_bytes
from bot.ui.art.crazier import SYMBOL_NAMES, colour_badge, crazier_card_image
from bot.ui.names import plain_name

WIDTH = 800
HEADER = 200  # the top band: piles, top card, colour to follow, whose turn
ROW = 62  # one player's row
MARGIN = 12
MAX_ALT_TEXT = 1024  # Discord's limit on an attachment's description

BACKGROUND = (43, 45, 49)
FELT = (27, 104, 68)
FELT_DARK = (20, 80, 52)
ROW_FILL = (54, 57, 63)
GOLD = (240, 178, 50)
PLATE = (22, 24, 27)
WHITE = (255, 255, 255)
MUTED = (150, 154, 160)

TOP_CARD = (110, 154)
PILE_CARD = (70, 98)
MINI_CARD = (30, 42)
HAND_BACK = (24, 34)
BADGE = 50

NAME_PLATE = (MARGIN, 196)  # x from, x to
HAND_AT = 206  # where the hand's back and count start
IN_PLAY_AT = 272  # where the cards in play start
CHIP_GAP = 8


@dataclass(frozen=True, slots=True)
class CrazierSeat:
    """One player as the board shows them: public facts only."""

    position: int  # the seat, from 0
    name: str
    hand_size: int
    in_play: tuple[str, ...] = ()  # the cards they control, canonical codes ("6G", "KB"), in play order
    to_act: bool = False  # it is their turn (in a team game, several players at once)
    out: bool = False  # lost: left the game
    won: bool = False
    team: int | None = None  # 1 or 2 in a team game


@dataclass(frozen=True, slots=True)
class CrazierBoard:
    """A ``crazier-abilities`` table, as the table side fills it from its snapshot."""

    top_card: str  # the discard pile's top card
    draw_pile: int
    discard_pile: int  # cards in the discard pile, the top card included
    seats: tuple[CrazierSeat, ...]
    named_colour: str | None = None  # the colour named for an 8 on top ("B", "G", "O", "P")
    game_number: int = 1
    game_over: bool = False

    @property
    def follow(self) -> tuple[str, ...]:
        """The colours the next discard may share with the top card (besides its rank, or an 8)."""
        if self.named_colour is not None:
            return (self.named_colour,)
        return colours_of(self.top_card)


def height_for(players: int) -> int:
    return HEADER + ROW * players + MARGIN


# --- parts drawn once ---------------------------------------------------------------------------------------


@functools.cache
def _face(card: str, width: int, height: int, detail: str) -> Image.Image:
    return crazier_card_image(card, width=width, height=height, detail="full" if detail == "full" else "mini")


@functools.cache
def _back(width: int, height: int) -> Image.Image:
    return back_image(width=width, height=height)


@functools.cache
def _badge(colour: str) -> Image.Image:
    return colour_badge(colour, size=BADGE)


@functools.cache
def _chip(card: str) -> Image.Image:
    """A card in play: its small face and its name, on a dark plate."""
    name = row_of(card).name
    text_width = round(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(name, font=font(14)))
    width = MINI_CARD[0] + text_width + 20
    chip = Image.new("RGBA", (width, MINI_CARD[1] + 6), (0, 0, 0, 0))
    draw = ImageDraw.Draw(chip)
    draw.rounded_rectangle((0, 0, width - 1, chip.height - 1), radius=8, fill=PLATE)
    face = _face(card, *MINI_CARD, "mini")
    chip.alpha_composite(face, (3, 3))
    draw.text((MINI_CARD[0] + 10, chip.height / 2), name, font=font(14), fill=WHITE, anchor="lm")
    return chip


@functools.cache
def _background(players: int) -> Image.Image:
    """The empty picture for ``players`` rows: the felt band and the rows' panels, drawn large and scaled."""
    s = SUPERSAMPLE
    height = height_for(players)
    image = Image.new("RGB", (WIDTH * s, height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (MARGIN * s, MARGIN * s, (WIDTH - MARGIN) * s, (HEADER - 8) * s),
        radius=18 * s,
        fill=FELT,
        outline=FELT_DARK,
        width=3 * s,
    )
    for i in range(players):
        top = HEADER + ROW * i
        draw.rounded_rectangle(
            (MARGIN * s, top * s, (WIDTH - MARGIN) * s, (top + ROW - 6) * s), radius=10 * s, fill=ROW_FILL
        )
    return image.resize((WIDTH, height), Image.Resampling.LANCZOS)


@functools.cache
def _pile(layers: int) -> Image.Image:
    back = _back(*PILE_CARD)
    pile = Image.new("RGBA", (PILE_CARD[0] + 8, PILE_CARD[1] + 8), (0, 0, 0, 0))
    for i in range(layers):
        pile.alpha_composite(back, (6 - 3 * i, 6 - 3 * i))
    return pile


# --- drawing ------------------------------------------------------------------------------------------------


def _paste(image: Image.Image, sprite: Image.Image, centre: tuple[float, float]) -> None:
    image.paste(sprite, (round(centre[0] - sprite.width / 2), round(centre[1] - sprite.height / 2)), sprite)


def _turn_text(board: CrazierBoard) -> str:
    if board.game_over:
        winners = [drawable_name(seat.name, seat.position) for seat in board.seats if seat.won]
        if winners:
            return pgettext("picture", "{names} won", names=" & ".join(winners))
        return pgettext("picture", "game over")
    acting = [drawable_name(seat.name, seat.position) for seat in board.seats if seat.to_act]
    return pgettext("picture", "turn: {names}", names=" & ".join(acting)) if acting else ""


def draw_crazier_board(board: CrazierBoard) -> Image.Image:
    seats = sorted(board.seats, key=lambda seat: seat.position)
    image = _background(len(seats)).copy()
    draw = ImageDraw.Draw(image)
    middle = (MARGIN + HEADER - 8) / 2
    # The draw pile (an empty outline when there is none) and its size.
    if board.draw_pile:
        _paste(image, _pile(min(3, (board.draw_pile + 9) // 10)), (92, middle - 8))
    else:
        w, h = PILE_CARD
        draw.rounded_rectangle(
            (92 - w / 2, middle - 8 - h / 2, 92 + w / 2, middle - 8 + h / 2),
            radius=8,
            outline=FELT_DARK,
            width=3,
        )
    draw_pile = pgettext("picture", "draw pile {count}", count=board.draw_pile)
    draw_centered_text(draw, draw_pile, (92, middle + 60), size=15, fill=WHITE, bold=0)
    # The top card, large, with the discard pile's size.
    _paste(image, _face(board.top_card, *TOP_CARD, "full"), (250, middle - 6))
    draw_centered_text(
        draw,
        pgettext("picture", "discard pile {count}", count=board.discard_pile),
        (250, middle + 82),
        size=13,
        fill=WHITE,
        bold=0,
    )
    # The colour(s) to follow.
    follow = board.follow
    for i, colour in enumerate(follow):
        offset = (i - (len(follow) - 1) / 2) * (BADGE + 6)
        _paste(image, _badge(colour), (380 + offset, middle - 16))
    label = _(" or ").join(_(COLOUR_NAMES[c]) for c in follow)
    draw_centered_text(draw, pgettext("picture", "follow"), (380, middle + 24), size=14, fill=WHITE, bold=0)
    draw_centered_text(draw, label, (380, middle + 42), size=15, fill=WHITE, bold=0)
    # Whose turn, or who won.
    turn = _turn_text(board)
    if turn:
        box = (470, middle - 20, WIDTH - MARGIN - 16, middle + 20)
        draw.rounded_rectangle(box, radius=10, fill=GOLD)
        text = fit_text(draw, turn, 17, box[2] - box[0] - 20)
        draw.text(((box[0] + box[2]) / 2, middle), text, font=font(17), fill=INK, anchor="mm")
    draw_centered_text(
        draw,
        pgettext("picture", "Crazier Eights · game {number}", number=board.game_number),
        (620, MARGIN + 24),
        size=14,
        fill=WHITE,
        bold=0,
    )
    for i, seat in enumerate(seats):
        _draw_row(
            image, draw, seat, HEADER + ROW * i + (ROW - 6) / 2, lit=seat.to_act and not board.game_over
        )
    return image


def _draw_row(
    image: Image.Image, draw: ImageDraw.ImageDraw, seat: CrazierSeat, y: float, *, lit: bool
) -> None:
    left, right = NAME_PLATE
    plate = (left + 6, y - 16, right, y + 16)
    if lit:
        draw.rounded_rectangle(plate, radius=8, fill=GOLD)
    ink = INK if lit else (MUTED if seat.out else WHITE)
    # The team, and the win (in gold), at the plate's right end.
    team_label = pgettext("picture", "team {team}", team=seat.team) if seat.team is not None else ""
    team = " ".join(word for word in (team_label, pgettext("picture", "won") if seat.won else "") if word)
    team_width = draw.textlength(team, font=font(12)) + 8 if team else 0
    name = fit_text(draw, drawable_name(seat.name, seat.position), 15, plate[2] - plate[0] - 16 - team_width)
    draw.text((plate[0] + 8, y), name, font=font(15), fill=ink, anchor="lm")
    if team:
        draw.text(
            (plate[2] - 6, y), team, font=font(12), fill=GOLD if seat.won and not lit else ink, anchor="rm"
        )
    # The hand: a card back and the count, or what became of the player.
    if seat.out:
        draw.text((HAND_AT, y), pgettext("picture", "out"), font=font(15), fill=MUTED, anchor="lm")
    else:
        _paste(image, _back(*HAND_BACK), (HAND_AT + HAND_BACK[0] / 2, y))
        draw.text(
            (HAND_AT + HAND_BACK[0] + 6, y), str(seat.hand_size), font=font(17), fill=WHITE, anchor="lm"
        )
    # The cards in play, as many as fit; the count of the rest.
    x = IN_PLAY_AT
    end = WIDTH - MARGIN - 8
    for shown, card in enumerate(seat.in_play):
        chip = _chip(card)
        rest = len(seat.in_play) - shown - 1
        room = end - (44 if rest else 0)
        if x + chip.width > room:
            draw.text((x, y), f"+{len(seat.in_play) - shown} more", font=font(14), fill=WHITE, anchor="lm")
            break
        image.paste(chip, (x, round(y - chip.height / 2)), chip)
        x += chip.width + CHIP_GAP


# --- in words -----------------------------------------------------------------------------------------------


def _cards(count: int) -> str:
    return ngettext("{n} card", "{n} cards", count)


def _colour_words(colour: str) -> str:
    return _("{colour} {symbol}", colour=_(COLOUR_NAMES[colour]), symbol=_(SYMBOL_NAMES[colour]))


def card_words(card: str) -> str:
    """A card for a screen reader: "Death, 9, blue moon"; "Ace, A, blue moon and green ankh"."""
    row = row_of(card)
    colours = _(" and ").join(_colour_words(c) for c in colours_of(card))
    extra = _(", wild") if rank_of(card) == "8" else ""
    return f"{_(row.name)}, {rank_of(card)}, {colours}{extra}"


def crazier_alt_text(board: CrazierBoard) -> str:
    """The picture in words (the attachment's description), in the language in force (the server's)."""
    parts = [_("Crazier Eights table, game {number}.", number=board.game_number)]
    if board.game_over:
        parts.append(_("The game is over."))
    parts.append(_("Top card: {card}.", card=card_words(board.top_card)))
    follow = _(" or ").join(_(COLOUR_NAMES[c]) for c in board.follow)
    parts.append(_("Colour to follow: {colours}.", colours=follow))
    parts.append(
        _(
            "Draw pile: {draw}. Discard pile: {discard}.",
            draw=_cards(board.draw_pile),
            discard=_cards(board.discard_pile),
        )
    )
    players = []
    for seat in sorted(board.seats, key=lambda seat: seat.position):
        text = f"{seat.position + 1}. {plain_name(seat.name)}"
        if seat.team is not None:
            text += " " + _("(team {team})", team=seat.team)
        text += _(", out") if seat.out else _(", {cards} in hand", cards=_cards(seat.hand_size))
        if seat.won:
            text += _(", won")
        if seat.to_act and not board.game_over:
            text += _(", to move")
        if seat.in_play:
            named = ", ".join(f"{_(row_of(card).name)} ({card})" for card in seat.in_play)
            text += _(", in play: {cards}", cards=named)
        players.append(text)
    parts.append(_("Players: {players}.", players="; ".join(players)))
    text = " ".join(parts)
    return text if len(text) <= MAX_ALT_TEXT else text[: MAX_ALT_TEXT - 1] + "…"


def crazier_board_key(board: CrazierBoard) -> tuple[str, str, CrazierBoard]:
    """The board, and the language of the picture's words (the language in force)."""
    return ("crazier", current_locale(), board)


def render_crazier_board(board: CrazierBoard) -> BoardPicture:
    """Draw now (no cache): the PNG, quantised as the standard board is (flat colours and text)."""
    image = draw_crazier_board(board).quantize(colors=255, method=Image.Quantize.FASTOCTREE)
    return BoardPicture(
        png=png_bytes(image, optimize=False, level=3),
        alt_text=crazier_alt_text(board),
        key=crazier_board_key(board),
    )


def render_crazier_cached(renderer: BoardRenderer, board: CrazierBoard) -> BoardPicture:
    """The picture from ``renderer``'s cache, drawn now when it is not there."""
    return renderer.picture(crazier_board_key(board), functools.partial(render_crazier_board, board))


async def render_crazier_async(renderer: BoardRenderer, board: CrazierBoard) -> BoardPicture:
    """The picture from ``renderer``'s cache, or drawn in its thread."""
    return await renderer.picture_async(
        crazier_board_key(board), functools.partial(render_crazier_board, board)
    )
