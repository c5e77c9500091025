"""The situation a hand's controls were shown in, as a short token they carry (issue 13: a double press).

A click acts on the situation the player saw. The token is a digest of what this seat may do: its cards, its
in-turn legal actions, whether the round is live, and the turn when it is theirs. Under the table lock the
service compares it with the current one, so the second of two presses of Draw (the first drew a card: the
hand changed) is refused, while a hand message that another player's move did not change keeps working.

- Derived only from the stored state (the deal's seed, the match), so buttons shown before a restart still
  match after it.
- Out-of-turn actions (last card, catch) are left out on purpose: another player calling their last card takes
  a Catch away from this seat (its hand message is refreshed without the Catch), and that must not make this
  seat's Draw or Play stale. Those two actions are one-shot anyway: once applied they are no longer legal,
  which the service also answers "That move is no longer possible." for a click.
- Keyed with the table's secret seed, so the token says nothing about the hand to anyone who sees it.
"""

from __future__ import annotations

import hashlib

from bot.engine import ActionKind, Match

TOKEN_CHARS = 12  # hex digits: 48 bits; the custom id stays far inside Discord's 100 characters
_OUT_OF_TURN = (ActionKind.CALL_LAST, ActionKind.CATCH)


def situation_token(seed: int, match: Match, position: int, *, live: bool) -> str:
    """The token of what ``position`` may do now in ``match``; ``live``: the round is being played (not over,
    not between rounds)."""
    rnd = match.round
    own_turn = live and rnd.to_act == position
    actions = (
        sorted(
            (str(a.kind), -1 if a.card is None else a.card, -1 if a.suit is None else a.suit)
            for a in rnd.legal_actions(position)
            if a.kind not in _OUT_OF_TURN
        )
        if own_turn
        else []
    )
    seen = (
        match.round_number,
        position,
        live,
        rnd.turn_number if own_turn else -1,
        sorted(rnd.hand(position)),
        actions,
    )
    key = (seed % 2**64).to_bytes(8, "big")
    return hashlib.blake2b(repr(seen).encode(), key=key, digest_size=TOKEN_CHARS // 2).hexdigest()


def split_token(token: str | None) -> tuple[str | None, str | None]:
    """A control's token read back: (the round token ``table:round``, the situation or None). Buttons shown
    before situations existed carry the round token alone, and keep working as they did."""
    if token is None:
        return None, None
    table, sep, rest = token.partition(":")
    number, sep2, situation = rest.partition(":")
    if not sep or not sep2:
        return token, None
    return f"{table}:{number}", situation or None
