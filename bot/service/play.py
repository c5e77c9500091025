"""Play's use cases: a seated player's action (play, draw, pass, name a suit, call last card, catch) and
dealing the next round early. Each is one move along the registry's mutation path; the referee's automatic
draws that follow are settled there."""

from __future__ import annotations

from bot.engine import EngineError
from bot.i18n import _
from bot.service import crazier
from bot.service.errors import NO_LONGER_POSSIBLE, TAKEN_OVER, ServiceError
from bot.service.live import Work, game_number, player_position, position_of, round_token_at
from bot.service.models import Actor, Intent, Outcome
from bot.service.moves import apply_intent
from bot.service.registry import TableRegistry
from bot.service.settlement import deal_next
from bot.service.situation import split_token
from bot.service.snapshots import situation_of


class PlayUseCases:
    def __init__(self, registry: TableRegistry) -> None:
        self._registry = registry

    async def act(
        self, table_id: int, actor: Actor, intent: Intent, round_token: str | None = None
    ) -> Outcome:
        """A game action by a seated player: play (card, optional suit for a wild in the same step), draw,
        pass, suit, call last card, catch. ``round_token`` (from a button: ``HandView.round_token``) must be
        the current round's, else "This button has expired."; the situation it also carries must be the
        seat's current one, else "That move is no longer possible." (a double press: see
        ``bot.service.situation``). Typed commands pass None and act on the table as it is.

        Errors: engine errors with their code ("That card doesn't match the target. (907)"); "not_seated",
        "taken_over", "no_round" (lobby or between rounds), "expired", "stale" ("That move is no longer
        possible.": another move got in first, or the player's situation changed since the button was
        shown)."""
        round_token, situation = split_token(round_token)
        live = await self._registry.require(table_id, round_token)
        seen_version = live.version

        def change(work: Work) -> None:
            seated = position_of(work.seats, actor.user_id)
            if (
                situation is not None
                and seated is not None
                and not work.seats[seated].cpu_takeover
                and situation != situation_of(work.doc, work.game, seated)
            ):
                raise ServiceError("stale", NO_LONGER_POSSIBLE)
            if work.phase == "between_rounds":
                raise ServiceError("no_round", _("The round is over; the next one starts soon."))
            game = work.game
            if work.phase != "playing" or game is None or game.round.over:
                raise ServiceError("no_round", _("The game hasn't started yet."))
            position = player_position(work.seats, work.doc, actor.user_id)
            if work.seats[position].cpu_takeover:
                raise ServiceError("taken_over", TAKEN_OVER)
            try:
                if work.crazier is not None:
                    crazier.apply_intent(work, position, intent)
                else:
                    apply_intent(work, position, intent)
            except EngineError as exc:
                # A control offered only legal moves: refused now, the table moved on since it was shown.
                if work.live.version != seen_version or situation is not None:
                    raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
                raise ServiceError(
                    exc.code, _("{message} ({code})", message=exc.message, code=exc.code)
                ) from None
            work.doc["timeouts"][position] = 0
            work.doc["last_human_at"] = work.now

        action = {
            "kind": str(intent.kind),
            "card": intent.card,
            "suit": intent.suit,
            "target": intent.target,
            "option": intent.option,
        }
        return await self._registry.mutate(table_id, round_token, actor, action, change)

    async def next_round(self, table_id: int, actor: Actor, round_token: str | None = None) -> Outcome:
        """The "Next round" button (any seated player, between rounds): deal the next round now.
        Errors: "not_seated", "stale" (the round already started: a second press, or the pause ran out),
        "expired" (a button of an older round)."""

        def change(work: Work) -> None:
            position = player_position(work.seats, work.doc, actor.user_id)
            if work.phase != "between_rounds":
                raise ServiceError("stale", NO_LONGER_POSSIBLE)
            if work.seats[position].cpu_takeover:  # left, or timed out: a CPU plays for them now
                raise ServiceError("taken_over", TAKEN_OVER)
            work.doc["last_human_at"] = work.now
            deal_next(work)

        try:
            return await self._registry.mutate(table_id, round_token, actor, {"kind": "next_round"}, change)
        except ServiceError as error:
            live = self._registry.get(table_id)
            # The button of the round just over: the next round was dealt meanwhile.
            if (
                error.code == "expired"
                and live is not None
                and live.game is not None
                and round_token == round_token_at(table_id, game_number(live.game) - 1)
            ):
                raise ServiceError("stale", NO_LONGER_POSSIBLE) from None
            raise
