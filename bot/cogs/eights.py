"""The /eights commands and the table's buttons: resolve who and where, call the service, render the answer.

Every refusal (``ServiceError``) is a short private answer and changes nothing public. Anything unexpected is
logged with a short reference the user sees; no traceback reaches Discord. Successful moves are shown by
``TablePublisher`` (board edit, public line, hand refreshes); the acting player gets their hand back at once,
privately: in place when they clicked a control of their hand, as a new ephemeral message when they typed.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import answers
from bot.cogs.answers import acknowledge, answer_privately, answer_publicly, update_in_place
from bot.cogs.publisher import TablePublisher
from bot.cogs.standings import StandingsCommands
from bot.engine import PRESETS
from bot.service import (
    EXPIRED,
    Actor,
    HandView,
    Intent,
    Outcome,
    ServiceError,
    TableEvent,
    TableService,
    TableSnapshot,
)
from bot.store import DamagedDatabaseError, StoreError
from bot.ui import render
from bot.ui.controls import (
    CATCH,
    COG_NAME,
    CPU,
    DRAW,
    HAND,
    JOIN,
    LAST,
    LEAVE,
    NEXT,
    PASS,
    PLAY,
    START,
    SUIT,
    Control,
    board_view,
    hand_view,
)

log = logging.getLogger(__name__)

REQUIRED_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("embed_links", "Embed Links"),
    ("read_message_history", "Read Message History"),
)
FINISHED_BUTTON = "This table has finished; this button has expired."
STORE_FAILED = "The bot could not save this, so nothing changed. Try again later."
NOT_IN_GUILD = "Tables can only be opened in a server channel."
# The commands of this cog (the standings commands of the mixin answer on their own).
GAME_COMMANDS = frozenset(
    {
        "new",
        "join",
        "leave",
        "cpu",
        "start",
        "end",
        "kick",
        "hand",
        "play",
        "last",
        "catch",
        "draw",
        "pass",
        "suit",
        "status",
        "scores",
        "rules",
    }
)
SUITS = (("♣ Clubs", "C"), ("♦ Diamonds", "D"), ("♥ Hearts", "H"), ("♠ Spades", "S"))


def error_reference() -> str:
    return uuid.uuid4().hex[:8]


async def answer_unexpected(interaction: discord.Interaction, error: BaseException, where: str) -> None:
    """Log an unexpected error with a reference, and give the user only the reference. A database that failed
    (e.g. a damaged file found mid-game) is said so: the move was not stored, and the service applies a move
    only once it is stored, so nothing of it happened."""
    ref = error_reference()
    text = f"Something went wrong (ref {ref})."
    if isinstance(error, DamagedDatabaseError):
        # The message names the file and what to do; a traceback would add nothing for the admin.
        log.error("database error in %s (ref %s): %s", where, ref, error)
        text = f"{STORE_FAILED} (ref {ref})"
    elif isinstance(error, StoreError):
        log.error("database error in %s (ref %s)", where, ref, exc_info=error)
        text = f"{STORE_FAILED} (ref {ref})"
    else:
        log.error("unexpected error in %s (ref %s)", where, ref, exc_info=error)
    try:
        await answer_privately(interaction, text)
    except discord.HTTPException:
        log.warning("could not tell the user about error ref %s", ref)


def _display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def _private_note(outcome: Outcome | None, user_id: int, lead: str | None = None) -> str | None:
    """What only this player learnt from their move ("You drew 7♣."), to show in their hand message."""
    parts = [lead] if lead else []
    if outcome is not None:
        drawn: list[str] = []
        for event in outcome.private_events.get(user_id, ()):
            if event.kind == "drew_cards":
                drawn.extend(event.data.get("cards") or [])
        if drawn:
            parts.append(f"You drew {render.cards_text(drawn)}.")
    return " ".join(parts) or None


def _played_note(events: Sequence[TableEvent], position: int | None) -> str | None:
    played = [e for e in events if e.kind == "played" and e.seat == position]
    if played:
        return "You played " + " ".join(render.label(e.data["card"]) for e in played) + "."
    return None


@app_commands.guild_only()
class EightsCog(StandingsCommands, commands.GroupCog, name=COG_NAME, group_name="eights"):
    """Crazy Eights tables: one per channel, hands private, plays public."""

    def __init__(self, bot: commands.Bot, service: TableService, publisher: TablePublisher) -> None:
        self.bot = bot
        self.service = service
        self.publisher = publisher
        self.defer_after = answers.DEFER_AFTER
        super().__init__()

    # --- helpers --------------------------------------------------------------------------------------------

    @staticmethod
    def actor(interaction: discord.Interaction, *, can_manage: bool = False) -> Actor:
        return Actor(interaction.user.id, _display_name(interaction.user), can_manage)

    async def manager_actor(self, interaction: discord.Interaction) -> Actor:
        """The actor, with ``can_manage`` from Manage Channels or the guild's manager role."""
        permissions = interaction.permissions
        can_manage = permissions.manage_channels or permissions.administrator
        if (
            not can_manage
            and interaction.guild_id is not None
            and isinstance(interaction.user, discord.Member)
        ):
            role_id = await self.service.manager_role_id(interaction.guild_id)
            can_manage = role_id is not None and any(role.id == role_id for role in interaction.user.roles)
        return self.actor(interaction, can_manage=can_manage)

    async def table_here(self, interaction: discord.Interaction) -> int:
        if interaction.channel_id is None:
            raise ServiceError("no_table", NOT_IN_GUILD)
        return await self.service.require_table(interaction.channel_id)

    async def show_hand(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None = None,
        in_place: bool = False,
        outcome: Outcome | None = None,
    ) -> None:
        """Answer with the player's hand: in place (the clicked hand message) or as a new ephemeral message;
        from now on that message is the one refreshed when the hand changes. Under the player's hand lock, so
        that a refresh of their hand waits until this message is the one it refreshes."""
        async with self.publisher.hand_lock(table_id, interaction.user.id):
            await self._show_hand(interaction, table_id, note=note, in_place=in_place, outcome=outcome)

    async def _show_hand(
        self,
        interaction: discord.Interaction,
        table_id: int,
        *,
        note: str | None,
        in_place: bool,
        outcome: Outcome | None,
    ) -> None:
        user_id = interaction.user.id
        hand: HandView | None
        try:
            hand = await self.service.hand(table_id, user_id)
        except ServiceError:
            if outcome is None:
                raise
            hand = None
        if hand is None:
            # The move ended the match (the table is closed): nothing to show but the news.
            text = "The match is over: see the final ranking in the channel."
            if outcome is not None and outcome.snapshot.status == "abandoned":
                text = "The table is closed."
            full = f"{note}\n{text}" if note else text
            if in_place:
                await update_in_place(interaction, full, None)
            else:
                await answer_privately(interaction, full)
            return
        content = render.hand_content(hand)
        view = hand_view(hand)
        shown = render.hand_content(hand, note=note) if note else content
        if in_place:
            await update_in_place(interaction, shown, view)
        else:
            if view is None:
                await answer_privately(interaction, shown)
            else:
                await answer_privately(interaction, shown, view=view)
            # The hand message shown before (if any) is updated in place too.
            await self.publisher.update_previous_hand(
                table_id, user_id, interaction, content, hand_view(hand)
            )
        self.publisher.remember_hand(table_id, user_id, interaction, content, view, hand)

    async def play_move(
        self,
        interaction: discord.Interaction,
        table_id: int,
        intent: Intent,
        *,
        round_token: str | None = None,
        in_place: bool = False,
    ) -> None:
        """A game move by the interaction's user; answers with the updated hand."""
        user_id = interaction.user.id
        # The move itself is not under the hand lock (only showing the hand is): two racing clicks must both
        # reach the service, which applies one and answers the other "That move is no longer possible."
        outcome = await self.service.act(table_id, self.actor(interaction), intent, round_token)
        # The answer below shows this player their hand: the publisher need not look at it again.
        self.publisher.publish(outcome, shown_to=user_id)
        seat = outcome.snapshot.seat_of(user_id)
        lead = _played_note(outcome.public_events, seat.position if seat else None)
        note = _private_note(outcome, user_id, lead)
        await self.show_hand(interaction, table_id, note=note, in_place=in_place, outcome=outcome)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every /eights game command is answered in time: deferred if its work runs late (``answers``)."""
        command = interaction.command
        if (
            interaction.type is discord.InteractionType.application_command
            and command is not None
            and command.name in GAME_COMMANDS
        ):
            answers.watch(interaction, update=False, after=self.defer_after)
        return True

    # --- errors ---------------------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_app_command_completion(self, interaction: discord.Interaction, command: object) -> None:
        answers.unwatch(interaction)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        try:
            await self._answer_error(interaction, error)
        finally:
            answers.unwatch(interaction)

    async def _answer_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original: BaseException = error
        if isinstance(error, app_commands.CommandInvokeError):
            original = error.original
        if isinstance(original, ServiceError):
            await answer_privately(interaction, original.message)
            return
        if isinstance(original, app_commands.TransformerError):
            await answer_privately(interaction, "I couldn't read one of the options.")
            return
        if isinstance(original, app_commands.CheckFailure):
            await answer_privately(interaction, "You can't use this command here.")
            return
        await answer_unexpected(
            interaction, original, f"/{interaction.command.qualified_name if interaction.command else '?'}"
        )

    # --- lobby ----------------------------------------------------------------------------------------------

    @app_commands.command(name="new", description="Open a Crazy Eights table in this channel.")
    @app_commands.describe(
        preset="The rules (default: the server's default, classic)",
        target="The match ends when a total passes this score",
        seats="How many seats, 2 to the ruleset's maximum",
        turn_timeout="Seconds a player has for a turn (15 to 86400)",
    )
    @app_commands.choices(preset=[app_commands.Choice(name=name, value=name) for name in PRESETS])
    async def new(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        target: app_commands.Range[int, 1, 100_000] | None = None,
        seats: app_commands.Range[int, 2, 8] | None = None,
        turn_timeout: app_commands.Range[int, 15, 86_400] | None = None,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await answer_privately(interaction, NOT_IN_GUILD)
            return
        app_permissions = interaction.app_permissions
        missing = [label for name, label in REQUIRED_PERMISSIONS if not getattr(app_permissions, name)]
        if missing:
            await answer_privately(
                interaction,
                "I can't run a table in this channel: I'm missing the permission"
                + ("s " if len(missing) > 1 else " ")
                + ", ".join(missing)
                + ".",
            )
            return
        try:
            outcome = await self.service.open_table(
                interaction.guild_id,
                interaction.channel_id,
                self.actor(interaction),
                preset=preset,
                target=target,
                seats=seats,
                turn_timeout=float(turn_timeout) if turn_timeout is not None else None,
            )
        except ServiceError as error:
            text = error.message
            if error.code == "table_exists" and error.table_id is not None:
                try:
                    board = self.publisher.board_id(await self.service.snapshot(error.table_id))
                except ServiceError:
                    board = None
                if board:
                    text += f" The table: https://discord.com/channels/{interaction.guild_id}/{interaction.channel_id}/{board}"
            await answer_privately(interaction, text)
            return
        snapshot = outcome.snapshot
        message_id = await answer_publicly(
            interaction, embed=render.board_embed(snapshot), view=board_view(snapshot)
        )
        if message_id is not None:
            await self.publisher.remember_board(snapshot.table_id, message_id)

    @app_commands.command(name="join", description="Take a seat at this channel's table.")
    async def join(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.join(table_id, self.actor(interaction))
        self.publisher.publish(outcome)
        if outcome.snapshot.phase == "lobby":
            await answer_privately(interaction, "You're seated. The host starts the game.")
        else:
            await self.show_hand(interaction, table_id, note="You took your seat back.")

    @app_commands.command(
        name="leave", description="Leave this channel's table (a CPU player takes over a game)."
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.leave(table_id, self.actor(interaction))
        self.publisher.publish(outcome)
        playing = outcome.snapshot.phase != "lobby" and outcome.snapshot.open
        await answer_privately(
            interaction,
            "You left. A CPU player plays your seat; /eights join takes it back."
            if playing
            else "You left the table.",
        )

    @app_commands.command(name="cpu", description="Add a CPU player (host).")
    @app_commands.describe(level="How well it plays (default: normal)")
    @app_commands.choices(
        level=[app_commands.Choice(name=name, value=name) for name in ("easy", "normal", "hard")]
    )
    async def cpu(self, interaction: discord.Interaction, level: str = "normal") -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.add_cpu(table_id, await self.manager_actor(interaction), level)
        self.publisher.publish(outcome)
        await answer_privately(interaction, f"A CPU player ({level}) sat down.")

    @app_commands.command(name="start", description="Deal the first round (host, at least two seats).")
    async def start(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self._start(interaction, table_id)

    async def _start(self, interaction: discord.Interaction, table_id: int) -> None:
        outcome = await self.service.start(table_id, await self.manager_actor(interaction))
        try:
            if outcome.snapshot.seat_of(interaction.user.id) is not None:
                await self.show_hand(interaction, table_id, note="The game has started.", outcome=outcome)
            else:
                await answer_privately(interaction, "The game has started.")
        finally:
            # After the host's hand is shown, so that the turn line knows it can be refreshed in place.
            self.publisher.publish(outcome)

    @app_commands.command(name="end", description="Abandon this channel's table (host or Manage Channels).")
    async def end(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.end(table_id, await self.manager_actor(interaction))
        self.publisher.publish(outcome)
        await answer_privately(interaction, "The table is closed.")

    @app_commands.command(name="kick", description="Remove a player; a CPU player takes the seat (host).")
    @app_commands.describe(member="The player to remove")
    async def kick(self, interaction: discord.Interaction, member: discord.Member) -> None:
        table_id = await self.table_here(interaction)
        outcome = await self.service.kick(table_id, await self.manager_actor(interaction), member.id)
        self.publisher.publish(outcome)
        await answer_privately(
            interaction, f"{discord.utils.escape_markdown(member.display_name)} was removed from the table."
        )

    # --- the game -------------------------------------------------------------------------------------------

    @app_commands.command(
        name="hand", description="Your hand, privately, with a control for every legal move."
    )
    async def hand(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.show_hand(interaction, table_id)

    @app_commands.command(name="play", description="Play a card from your hand.")
    @app_commands.describe(card="The card, e.g. KH, 10S, K♥", suit="The suit to name when the card is wild")
    async def play(self, interaction: discord.Interaction, card: str, suit: str | None = None) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.play(card, suit))

    @play.autocomplete("card")
    async def play_card_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        try:
            choices = await self.service.legal_card_choices(
                interaction.channel_id, interaction.user.id, current
            )
        except Exception:
            log.exception("card autocomplete failed")
            return []
        return [app_commands.Choice(name=choice.label, value=choice.value) for choice in choices[:25]]

    @play.autocomplete("suit")
    async def play_suit_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _suit_choices(current)

    @app_commands.command(name="draw", description="Draw a card from the stock.")
    async def draw(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.draw())

    @app_commands.command(name="pass", description="Pass your turn, when the rules allow it.")
    async def pass_(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.pass_())

    @app_commands.command(name="last", description='Call "last card" when you are down to one card.')
    async def last(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.call_last())

    @app_commands.command(name="catch", description='Catch a player who did not call "last card" in time.')
    @app_commands.describe(player="Who to catch: the player's name (the list shows who can be caught now)")
    async def catch(self, interaction: discord.Interaction, player: str) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.snapshot(table_id)
        position = _seat_named(snapshot, player)
        if position is None:
            await answer_privately(interaction, f"No one called {player.strip()[:40]!r} sits at this table.")
            return
        await self.play_move(interaction, table_id, Intent.catch(position))

    @catch.autocomplete("player")
    async def catch_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The players the user can catch now (none when there is no one to catch)."""
        table_id = await self.service.table_in_channel(interaction.channel_id or 0)
        if table_id is None:
            return []
        try:
            hand = await self.service.hand(table_id, interaction.user.id)
        except ServiceError:
            return []
        typed = current.strip().lower()
        choices = []
        for position in hand.catch_targets:
            name = hand.snapshot.name_at(position)
            if typed in name.lower():
                choices.append(app_commands.Choice(name=name[:100], value=f"seat:{position}"))
        return choices[:25]

    @app_commands.command(name="suit", description="Name the suit to follow after playing a wild card.")
    @app_commands.describe(suit="Clubs, diamonds, hearts or spades (C, D, H, S, ♣ ♦ ♥ ♠)")
    async def suit(self, interaction: discord.Interaction, suit: str) -> None:
        table_id = await self.table_here(interaction)
        await self.play_move(interaction, table_id, Intent.name_suit(suit))

    @suit.autocomplete("suit")
    async def suit_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _suit_choices(current)

    # --- information ----------------------------------------------------------------------------------------

    @app_commands.command(name="status", description="Show this channel's table again, at the bottom.")
    async def status(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.snapshot(table_id)
        old_board = self.publisher.board_id(snapshot)
        message_id = await answer_publicly(
            interaction, embed=render.board_embed(snapshot), view=board_view(snapshot)
        )
        if message_id is None:
            return
        await self.publisher.remember_board(table_id, message_id)
        if old_board is not None and old_board != message_id:
            # One board per table: the old one goes, its buttons would only repeat the new one's.
            old = self.bot.get_partial_messageable(snapshot.channel_id, guild_id=snapshot.guild_id)
            try:
                await old.get_partial_message(old_board).delete()
            except discord.HTTPException:
                log.debug("table %s: old board %s could not be deleted", table_id, old_board)

    @app_commands.command(name="scores", description="The scores of this channel's match so far, privately.")
    async def scores(self, interaction: discord.Interaction) -> None:
        table_id = await self.table_here(interaction)
        snapshot = await self.service.scores(table_id)
        await answer_privately(interaction, render.scores_text(snapshot))

    @app_commands.command(name="rules", description="The rules of this table, or of a preset, privately.")
    @app_commands.describe(preset="A preset's rules instead of this table's")
    @app_commands.choices(preset=[app_commands.Choice(name=name, value=name) for name in PRESETS])
    async def rules(self, interaction: discord.Interaction, preset: str | None = None) -> None:
        table_id = None
        if preset is None and interaction.channel_id is not None:
            table_id = await self.service.table_in_channel(interaction.channel_id)
        text = await self.service.rules_text(preset, table_id)
        await answer_privately(interaction, text[:2000])

    # --- buttons and selects --------------------------------------------------------------------------------

    async def on_control(self, interaction: discord.Interaction, control: Control, values: list[str]) -> None:
        """A click on a table's button or a choice in its select (``bot.ui.controls``)."""
        # Moves and board buttons change a message in place; the rest answer with a new private message.
        answers.watch(interaction, update=control.action not in (HAND, START, NEXT), after=self.defer_after)
        try:
            await self._control(interaction, control, values)
        except ServiceError as error:
            if error.code == "expired":
                message = EXPIRED
            elif error.code == "no_table":
                message = FINISHED_BUTTON
            else:
                message = error.message
            await answer_privately(interaction, message)
        except Exception as error:
            await answer_unexpected(interaction, error, f"control {control.action}")
        finally:
            answers.unwatch(interaction)

    async def _control(self, interaction: discord.Interaction, control: Control, values: list[str]) -> None:
        table_id, action, token = control.table_id, control.action, control.token or None
        if action == JOIN:
            outcome = await self.service.join(table_id, self.actor(interaction))
            self.publisher.publish(outcome)
            if outcome.snapshot.phase == "lobby":
                await acknowledge(interaction)
            else:
                await self.show_hand(interaction, table_id, note="You took your seat back.")
        elif action == LEAVE:
            outcome = await self.service.leave(table_id, self.actor(interaction))
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == CPU:
            outcome = await self.service.add_cpu(table_id, await self.manager_actor(interaction))
            self.publisher.publish(outcome)
            await acknowledge(interaction)
        elif action == START:
            await self._start(interaction, table_id)
        elif action == NEXT:
            outcome = await self.service.next_round(table_id, self.actor(interaction), token)
            self.publisher.publish(outcome)
            await self.show_hand(interaction, table_id, outcome=outcome)
        elif action == HAND:
            await self.show_hand(interaction, table_id)
        elif action in (PLAY, DRAW, PASS, SUIT, LAST, CATCH):
            intent = _intent(control, values)
            if intent is None:
                await answer_privately(interaction, "That control is not valid any more.")
                return
            await self.play_move(interaction, table_id, intent, round_token=token, in_place=True)
        else:
            await answer_privately(interaction, "That control is not valid any more.")


def _intent(control: Control, values: list[str]) -> Intent | None:
    action, arg = control.action, control.arg
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
        return Intent.catch(int(arg)) if arg and arg.isdigit() else None
    return None


def _seat_named(snapshot: TableSnapshot, text: str) -> int | None:
    """The seat a typed name means: "seat:N" as the autocomplete gives it, else a player's name (in any case,
    an @ allowed)."""
    typed = text.strip().removeprefix("@").lower()
    number = typed.removeprefix("seat:")
    if number != typed and number.isdigit():
        position = int(number)
        return position if any(seat.position == position for seat in snapshot.seats) else None
    for seat in snapshot.seats:
        if seat.name.lower() == typed:
            return seat.position
    return None


def _suit_choices(current: str) -> list[app_commands.Choice[str]]:
    typed = current.strip().lower()
    return [
        app_commands.Choice(name=name, value=code)
        for name, code in SUITS
        if not typed or typed in name.lower() or typed == code.lower()
    ]
