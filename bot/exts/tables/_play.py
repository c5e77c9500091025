"""Play's /eights commands: hand, play, draw, pass, last, catch and suit, with their autocompletes, and the
intent a game control (button or select) stands for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.delivery.answers import answer_privately
from bot.engine.errors import typed_shown
from bot.exts._group import MAX_TYPED
from bot.exts.autocomplete import quiet_autocomplete
from bot.exts.tables._base import TableCog
from bot.i18n import _, fold, typed_in
from bot.service import HandView, Intent, ServiceError, TableSnapshot
from bot.ui.controls import (
    CATCH,
    CHOOSE,
    COLOURS,
    CRAZIER_ACTIONS,
    DISCARD,
    DRAW,
    END_TURN,
    LAST,
    PASS,
    PLAY,
    SUIT,
    SUIT_CODES,
    Control,
    suit_label,
)
from bot.ui.names import plain_name


def _nobody_called(typed: str) -> str:
    """The refusal of a player name that no seat has: what was typed quoted as text, never as markup."""
    return _("No one called '{name}' sits at this table.", name=typed_shown(typed))


class PlayCog(TableCog, name="Eights play"):
    @app_commands.command(
        name="hand", description="Your hand, privately, with a control for every legal move."
    )
    async def hand(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.show_hand(interaction, table_id)

    @app_commands.command(name="play", description="Play a card from your hand.")
    @app_commands.describe(card="The card, e.g. KH, 10S, K♥", suit="The suit to name when the card is wild")
    async def play(
        self,
        interaction: discord.Interaction,
        card: app_commands.Range[str, None, MAX_TYPED],
        suit: app_commands.Range[str, None, MAX_TYPED] | None = None,
    ) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.play(card, suit))

    @play.autocomplete("card")
    @quiet_autocomplete
    async def play_card_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        choices = await self.service.legal_card_choices(interaction.channel_id, interaction.user.id, current)
        return [app_commands.Choice(name=choice.label, value=choice.value) for choice in choices[:25]]

    @play.autocomplete("suit")
    @quiet_autocomplete
    async def play_suit_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if await self._crazier_hand(interaction) is not None:
            typed = current.strip().lower()
            return [
                app_commands.Choice(name=f"{_(name)} {symbol}", value=code)
                for code, name, symbol in COLOURS
                if typed_in(typed, name) or typed_in(typed, _(name)) or typed == code.lower()
            ]
        return _suit_choices(current)

    async def _crazier_hand(self, interaction: discord.Interaction) -> HandView | None:
        """The user's hand at this channel's crazier-abilities table, or None (another game, no table, not
        seated). Raises DatabaseFault only when the channel's table, not held, can't be read from the database
        (an autocomplete answers it with no choices: ``quiet_autocomplete``)."""
        table_id = await self.service.table_in_channel(interaction.channel_id or 0)
        if table_id is None:
            return None
        try:
            hand = await self.service.hand(table_id, interaction.user.id)
        except ServiceError:
            return None
        return hand if hand.crazier is not None else None

    # --- crazier-abilities: a card played for its effect, a choice (/eights pass ends one's turn there) -----

    @app_commands.command(
        name="effect",
        description="crazier-abilities: play a card for its effect, or answer the choice your card asks.",
    )
    @app_commands.describe(
        card="The card, e.g. 9B, or your answer to a choice (the list shows what you may do now)",
        player="The player it chooses (Forbidden Knowledge)",
        target="The card in play it chooses (Death, Crown of Kings)",
    )
    async def effect(
        self,
        interaction: discord.Interaction,
        card: app_commands.Range[str, None, MAX_TYPED],
        player: app_commands.Range[str, None, MAX_TYPED] | None = None,
        target: app_commands.Range[str, None, MAX_TYPED] | None = None,
    ) -> None:
        table_id = await self.table_here(interaction)
        hand = await self._crazier_hand(interaction)
        if hand is not None and hand.crazier is not None and hand.crazier.choice is not None:
            # A choice waits (Discord allows 25 commands in the group: one command does both).
            await self.play_move(interaction, table_id, _choice_intent(hand, card, player, target))
            return
        position: int | None = None
        if player is not None:
            position = _seat_named(await self.service.snapshot(table_id), player)
            if position is None:
                await answer_privately(interaction, _nobody_called(player))
                return
        await self.play_move(interaction, table_id, Intent.effect(card, target=position, option=target))

    @effect.autocomplete("card")
    @quiet_autocomplete
    async def effect_card_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        hand = await self._crazier_hand(interaction)
        if hand is not None and hand.crazier is not None and hand.crazier.choice is not None:
            typed = current.strip().lower()
            return [
                app_commands.Choice(
                    name=plain_name(_("Choose: {option}", option=o.label)[:90]), value=o.value
                )
                for o in hand.crazier.choice.options
                if typed in o.label.lower()
            ][:25]
        choices = await self.service.crazier_choices(
            interaction.channel_id or 0, interaction.user.id, current, effect=True
        )
        return [app_commands.Choice(name=choice.label, value=choice.value) for choice in choices[:25]]

    @effect.autocomplete("player")
    @quiet_autocomplete
    async def effect_player_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The players the chosen card may choose (every player still in the game)."""
        return await self._effect_choices(
            interaction, current, "player", lambda o: (f"seat:{o.value}", plain_name(o.label[:90]))
        )

    @effect.autocomplete("target")
    @quiet_autocomplete
    async def effect_target_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The cards in play the user's cards may choose now."""
        return await self._effect_choices(interaction, current, "card", lambda o: (o.value, o.label[:100]))

    async def _effect_choices(
        self,
        interaction: discord.Interaction,
        current: str,
        kind: str,
        shown: Callable[[Any], tuple[str, str]],
    ) -> list[app_commands.Choice[str]]:
        """The options of kind ``kind`` ("player" or "card") the user's cards offer now, matching what was
        typed, each once (``shown`` gives its value and label)."""
        hand = await self._crazier_hand(interaction)
        if hand is None:
            return []
        typed = current.strip().lower()
        seen: dict[str, str] = {}
        for card in hand.crazier.cards if hand.crazier else ():
            if card.effect_choice == kind:
                for option in card.effect_options:
                    if typed in option.label.lower():
                        value, label = shown(option)
                        seen[value] = label
        return [app_commands.Choice(name=name, value=value) for value, name in seen.items()][:25]

    @app_commands.command(name="draw", description="Draw a card from the stock.")
    async def draw(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.draw())

    @app_commands.command(
        name="pass", description="Pass your turn, when the rules allow it (crazier-abilities: end your turn)."
    )
    async def pass_(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.pass_())

    @app_commands.command(name="last", description='Call "last card" when you are down to one card.')
    async def last(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.call_last())

    @app_commands.command(name="catch", description='Catch a player who did not call "last card" in time.')
    @app_commands.describe(player="Who to catch: the player's name (the list shows who can be caught now)")
    async def catch(
        self, interaction: discord.Interaction, player: app_commands.Range[str, None, MAX_TYPED]
    ) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.snapshot(table_id)
        position = _seat_named(snapshot, player)
        if position is None:
            await answer_privately(interaction, _nobody_called(player))
            return
        await self.play_move(interaction, table_id, Intent.catch(position))

    @catch.autocomplete("player")
    @quiet_autocomplete
    async def catch_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The players the user can catch now (none when there is no one to catch, or the user has no
        seat)."""
        table_id = await self.service.table_in_channel(interaction.channel_id or 0)
        if table_id is None:
            return []
        hand = await self.service.hand(table_id, interaction.user.id)
        typed = current.strip().lower()
        choices = []
        for position in hand.catch_targets:
            name = hand.snapshot.name_at(position)
            if typed in name.lower():
                choices.append(app_commands.Choice(name=plain_name(name[:90]), value=f"seat:{position}"))
        return choices[:25]

    @app_commands.command(name="suit", description="Name the suit to follow after playing a wild card.")
    @app_commands.describe(suit="Clubs, diamonds, hearts or spades (C, D, H, S, ♣ ♦ ♥ ♠)")
    async def suit(
        self, interaction: discord.Interaction, suit: app_commands.Range[str, None, MAX_TYPED]
    ) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.name_suit(suit))

    @suit.autocomplete("suit")
    @quiet_autocomplete
    async def suit_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _suit_choices(current)


def control_intent(control: Control, values: list[str]) -> Intent | None:
    action, arg = control.action, control.arg
    if action in CRAZIER_ACTIONS:
        return _crazier_intent(action, values)
    if action == PLAY:
        # A select carries the card as its value (its arg is the page); a button carries it as its arg.
        card = values[0] if values else arg
        return Intent.play(card) if card else None
    if action == DRAW:
        return Intent.draw()
    if action == PASS:
        return Intent.pass_()
    if action == SUIT:
        return Intent.name_suit(arg) if arg else None
    if action == LAST:
        return Intent.call_last()
    if action == CATCH:
        return Intent.catch(int(arg)) if arg and _is_number(arg) else None
    return None


def _is_number(text: str) -> bool:
    # ASCII digits only: str.isdigit() is also true of "²" and other digits int() refuses.
    return text.isascii() and text.isdigit()


def _crazier_intent(action: str, values: list[str]) -> Intent | None:
    """A crazier-abilities control: a select's value reads ``card``, ``card/colour`` (an 8 discarded),
    ``card/t<seat>`` or ``card/c<card>`` (an effect's choice); a choice's value is the answer itself."""
    if action == END_TURN:
        return Intent.end_turn()
    if not values:
        return None
    value = values[0]
    if action == CHOOSE:
        return Intent.choose(value)
    card, _, extra = value.partition("/")
    if action == DISCARD:
        return Intent.play(card, extra or None)
    if extra.startswith("t") and _is_number(extra[1:]):
        return Intent.effect(card, target=int(extra[1:]))
    if extra.startswith("c"):
        return Intent.effect(card, option=extra[1:])
    return Intent.effect(card) if not extra else None


def _choice_intent(hand: HandView, card: str, player: str | None, target: str | None) -> Intent:
    """What /eights effect means while one of the user's cards asks a choice: ``card`` is the answer (an
    option's value as the list gives it, or for a player the name, as /eights catch takes it). A card played
    with its player or target instead is an effect, which the service answers "Make the choice you are asked
    for first." (as it does a card of the hand typed as the answer)."""
    assert hand.crazier is not None and hand.crazier.choice is not None
    choice = hand.crazier.choice
    typed = card.strip()
    answer = typed.removeprefix("seat:")
    if answer.lower() in {option.value.lower() for option in choice.options}:
        return Intent.choose(answer)
    if choice.kind == "player":
        position = _seat_named(hand.snapshot, typed)
        if position is not None:
            return Intent.choose(str(position))
    if player is not None or target is not None:
        chosen = _seat_named(hand.snapshot, player) if player is not None else None
        return Intent.effect(typed, target=chosen, option=target)
    return Intent.choose(answer)


def _seat_named(snapshot: TableSnapshot, text: str) -> int | None:
    """The seat a typed name means: "seat:N" as the autocomplete gives it, else a player's name (in any case,
    an @ allowed)."""
    typed = text.strip().removeprefix("@").lower()
    number = typed.removeprefix("seat:")
    if number != typed and _is_number(number):
        position = int(number)
        return position if any(seat.position == position for seat in snapshot.seats) else None
    # Names compared as typed words are: any case, accents optional ("zoe" for Zoë, "Jose" for José).
    for seat in snapshot.seats:
        if seat.name.lower() == typed:
            return seat.position
    folded = fold(typed)
    found = [seat.position for seat in snapshot.seats if fold(seat.name) == folded]
    return found[0] if len(found) == 1 else None


def _suit_choices(current: str) -> list[app_commands.Choice[str]]:
    typed = current.strip().lower()
    return [
        app_commands.Choice(name=name, value=code)
        for name, code in ((suit_label(code), code) for code in SUIT_CODES)
        if typed_in(typed, name) or typed == code.lower()
    ]
