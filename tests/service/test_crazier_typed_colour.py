"""A colour typed with a crazier-abilities discard that is not an 8 is refused (905) and changes nothing.

Only an 8 names a colour ("Wild: discard it on anything and name a colour"); the engine refuses a colour
named with any other discard (905, ``CrazierRound._check``), and the standard game's service passes that
refusal on ("A suit typed with a card that names none is refused by the engine (905), not dropped",
``bot.service.moves.apply_intent``). Before, at a crazier-abilities table ``/eights play card:9B
suit:green`` discarded 9B as if no colour had been typed (``bot.service.crazier.move_of`` dropped the colour
of every card that is not an 8): a player who believed green would follow saw blue stay. A last 8 still
names nothing (it ends the game; a colour typed with it is not asked for, and is dropped).
"""

from __future__ import annotations

from bot.i18n import use_locale
from bot.service import Intent, TableService
from tests.service.support import ALICE, BOB, open_with, refused
from tests.service.test_crazier import HANDS, hand, stack

PRESET = "crazier-abilities"


async def test_a_colour_typed_with_a_card_that_is_not_an_eight_is_refused_with_905(
    service: TableService,
) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, HANDS, "AB", first=0)  # Alice holds 9B, which matches AB
    before = await hand(service, table_id, ALICE)
    error = await refused(service.act(table_id, ALICE, Intent.play("9B", "green")), 905)
    # The standard game's words for 905, with its code, as every engine refusal is shown.
    assert error.message == "You can't choose a suit now. (905)"
    with use_locale("de"):
        error = await refused(service.act(table_id, ALICE, Intent.play("9B", "grün")), 905)
    assert error.message == "Du kannst dir jetzt keine Farbe wünschen. (905)"
    after = await hand(service, table_id, ALICE)
    assert after.cards == before.cards and after.crazier == before.crazier
    # Without a colour, the same discard is taken.
    await service.act(table_id, ALICE, Intent.play("9B"))
    board = (await service.snapshot(table_id)).crazier
    assert board is not None and board.top.code == "9B" and board.follow == ("blue",)


async def test_a_colour_typed_with_a_last_8_is_dropped_and_the_game_ends(service: TableService) -> None:
    table_id = await open_with(service, ALICE, BOB, preset=PRESET)
    stack(service, table_id, [HANDS[1], HANDS[0]], "AB", first=0)
    live = service._registry.get(table_id)
    assert live is not None and live.crazier is not None
    rnd = live.crazier.round
    # Alice holds only her 8: the rest of her hand goes under the draw pile.
    rnd.draw[:0] = [c for c in rnd.hands[0] if c != "8B"]
    rnd.hands[0][:] = ["8B"]
    live.snapshot_of = None
    outcome = await service.act(table_id, ALICE, Intent.play("8B", "orange"))
    assert [e.data["winners"] for e in outcome.public_events if e.kind == "game_over"] == [[0]]
