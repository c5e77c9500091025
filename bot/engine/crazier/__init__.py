"""Crazier Eights with its ability cards: the preset ``crazier-abilities`` (RULESETS.md; seed 001).

The package: ``deck`` (the 52 cards as data), ``abilities`` (one small function per ability), ``primitives``
(draw, destroy, take control, look, win, lose), ``game`` (the turn's state machine), ``match`` (games with
card-count points, teams), ``rules`` (the ruleset, its registry and rules help), ``actions`` (the moves),
``cpu`` (the CPU levels). The ``crazier`` core preset (``bot.engine.rules``) is untouched.

The preset is registered here (``PRESETS``), not in ``bot.engine.rules.PRESETS``, which the lobby, the rules
command and the server settings list: until the table side plays it, users cannot pick it.

Where the section and seed 001 are both silent, this engine decides (the rules help says the ones players
meet):
1. A card is played for its effect in one move that carries its choice (``Move.effect(seat, card, target=…)``
   or ``target_card=…``); ``legal_actions`` lists one move per valid choice, so an effect without one is not
   listed.
2. "Choose a player" (Forbidden Knowledge, Angel of Hope) offers every player still in the game, oneself too.
3. The order of one's beginning-of-turn abilities is chosen one at a time: the player picks which happens next
   (each time two or more of different ranks are waiting). Two of the same rank are the same ability: no
   choice.
4. A choice with a single option is taken by the engine (Devious Dragon alone in play destroys itself, as
   clarification 5 says); an ability whose choice has no option (nothing in play any more) does nothing.
5. Conditions (King Arthur's four cards, Mordred's twelve cards) are checked when the batch is collected, at
   the beginning of the turn; what they decided then happens even if things change before they resolve (§6, c.
   7).
6. Elven Princess with nothing that can be drawn even after the refill looks at nothing and does nothing. The
   looked-at card is shown only to its controller (a private event and that seat's view).
7. Castle reduces draws an opponent causes: Forbidden Knowledge played by an opponent, an opponent's Angel of
   Hope. One's own cards, a teammate's and the turn's draw are not reduced. Never below zero.
8. A player who loses scores the cards they held when they lost (their hand went to the discard pile); a
   winner scores 0, every other player one point per card in hand. A loss puts the hand, then the cards in
   play, on the bottom of the discard pile.
9. The game's draw pile is dealt from the shuffled deck: seven cards to each seat, then the starter. The first
   player of a match's first game is random (from the seed); after that, the most points (ties: the first such
   seat after the one whose turn the game ended on; with teams, that player's team leads).
10. Teams: seats alternate (seats 0, 2, 4 are one team; 1, 3, 5 the other). The members' beginnings of turn
    and draws happen one member at a time, clockwise from the team's first player (as drawing from one source,
    001 §8). A member whose own beginning and draw are done discards, plays and ends at any time, in any order
    with the others, even while a teammate's beginning-of-turn choice waits: ``acting`` is the seat owing the
    choice (its choice first, before any move of its own), then every member at their own part. After such a
    move the waiting choice is asked again as when it came (decision 4): with no option left (an Elven
    Princess whose card a draw took off the draw pile) the ability does nothing; with one, it is taken. The
    team's turn ends when every member has ended theirs and no beginning is left. A member with nothing to do
    is not ended for them while a teammate may still act (the teammate's discard may change the colour to
    follow, a card they put into play may give Death a target): they may end their part themselves (the only
    move offered), and once no member has anything left to do, every member still at their part is ended at
    once (rules stored before that, without ``idle_members_wait``, keep ending such a member at once). The
    team's first player moves one seat on every team turn: the next team's first player is its
    next living member clockwise after its own last first player, so after a member has lost it still goes
    round every living member (``CrazierRound.team_leads``). Games whose rules were stored before that
    (without ``rotating_team_leads``) keep the rule they were played by, the first living member of the
    other team after the current first player, so they go on and replay from their moves as played. A team
    wins with any member's win (empty hand, King Arthur, fewest cards); its members all score 0; the other
    team's members each score their team's total. Mordred, Castle and Crown of Kings count only the other
    team as opponents.
11. No card of this deck skips a turn or gives an extra one, so the section's "a skip or an extra turn
    concerns one player only" has nothing to apply to yet; the per-seat stages are where such a card would
    act.
12. The turn cap (1,000 turns by default) settles the game as an impossible draw (fewest cards wins).
13. A card played for its effect leaves the hand as it is played: a player who plays their last card has
    zero cards in hand and wins at once (detail 4: the game is over), before the card's effect. An event
    played so (Forbidden Knowledge, on oneself or on another) does nothing and goes to the bottom of the
    discard pile; an asset goes into play. Only Forbidden Knowledge changes a result this way. Rules stored
    before that (without ``last_effect_wins``) keep the rule their games were played by: the event did what
    it says first, then its player won if their hand was still empty.
14. Rules stored before a change of play keep the rule their games were played by (``rules.EARLIER_RULES``),
    so a game goes on, and a match replays from its moves, as it was played: besides decisions 10 and 13, a
    colour named with a last 8 (refused, 905, since ``last_eight_names_no_colour``) was taken and set the
    colour to follow as the game ended.
"""

from __future__ import annotations

from bot.engine.crazier.actions import Move
from bot.engine.crazier.deck import DECK, RANK_ROWS, card_label, colours_of, parse_card, parse_colour
from bot.engine.crazier.game import CrazierRound
from bot.engine.crazier.match import CrazierMatch
from bot.engine.crazier.rules import PRESET_NAME, PRESETS, CrazierRules, get_preset, rules_help

__all__ = [
    "DECK",
    "PRESETS",
    "PRESET_NAME",
    "RANK_ROWS",
    "CrazierMatch",
    "CrazierRound",
    "CrazierRules",
    "Move",
    "card_label",
    "colours_of",
    "get_preset",
    "parse_card",
    "parse_colour",
    "rules_help",
]
