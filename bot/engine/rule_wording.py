"""House rules in words: each option's value as a sentence players understand, and what a ruleset changes
from its preset ("Draw up to 3 cards, then you may pass"). The one place the board, the rules help, the
lobby's panel and the history take their wording from (``bot.engine.rule_options`` knows the options)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.engine.cards import RANK_CODES, RANK_NAMES
from bot.engine.rule_options import OPTIONS, option
from bot.engine.rules import PRESETS, Ruleset


def _cards(n: int) -> str:
    return "one card" if n == 1 else f"{n} cards"


def _plural(rank: int) -> str:
    name = RANK_NAMES[rank]
    return name + ("es" if name.endswith("x") else "s")


def _ranks(ranks: tuple[int, ...]) -> str:
    names = [RANK_CODES[r] for r in ranks]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def draw_rule(rs: Ruleset) -> str:
    """How drawing works, in one sentence ("Draw up to 3 cards, then you may pass")."""
    n = rs.draw_limit
    ad = rs.after_draw
    if ad == "draw-up-to":
        assert n is not None
        return f"Draw up to {_cards(n)}, then you may pass"
    if ad == "turn-ends":
        return "Draw one card and your turn ends"
    amount = (
        "draw until a card can be played"
        if n is None
        else f"draw {'one card' if n == 1 else f'up to {n} cards'}"
    )
    then = {
        "must-play-drawn": "a playable card drawn when you had no play must be played",
        "may-play-drawn": "then play the drawn card or pass",
        "may-play-any": "then play any card or pass",
    }[ad]
    return f"{amount[0].upper()}{amount[1:]}; {then}"


def _yes_no(yes: str, no: str) -> Callable[[Any], str]:
    return lambda v: yes if v else no


_SENTENCES: dict[str, Callable[[Ruleset], str]] = {
    "min_players": lambda rs: f"At least {rs.min_players} players",
    "max_players": lambda rs: f"At most {rs.max_players} players",
    "partnership": lambda rs: (
        "Partnership: four players, partners sit opposite; a side wins when both partners are out"
        if rs.partnership
        else "No partnership: everyone plays for themselves"
    ),
    "decks": lambda rs: {
        "one": "One deck at any table size",
        "two-above-5": "Two decks above 5 players",
        "two-above-2": "Two decks above 2 players",
    }[rs.decks],
    "hand_size": lambda rs: f"Deal {rs.hand_size} cards each",
    "hand_size_two": lambda rs: f"Deal {rs.hand_size_two} cards each with two players",
    "wild_rank": lambda rs: "No wild cards" if rs.wild_rank is None else f"{_plural(rs.wild_rank)} are wild",
    "wild_must_match": lambda rs: _yes_no(
        "A wild must match the top card", "A wild can be played on anything"
    )(rs.wild_must_match),
    "starter_wild": lambda rs: {
        "keep": "A wild turned as the starter stays: match its suit",
        "hearts": "A wild turned as the starter means hearts are named",
        "bury": "A wild turned as the starter is buried and another card turned",
    }[rs.starter_wild],
    "starter_effect": lambda rs: _yes_no(
        "A special starter card works as if the dealer played it", "A special starter card has no effect"
    )(rs.starter_effect),
    "draw_with_legal_play": lambda rs: _yes_no(
        "You may draw even when you could play", "You may draw only when you cannot play"
    )(rs.draw_with_legal_play),
    "draw_limit": draw_rule,
    "after_draw": draw_rule,
    "draw_first": lambda rs: _yes_no("Every turn starts by drawing a card", "Turns do not start with a draw")(
        rs.draw_first
    ),
    "reshuffle": lambda rs: _yes_no(
        "An empty stock is refilled from the discard pile",
        "No reshuffle: once the stock is empty, nobody draws",
    )(rs.reshuffle),
    "empty_draw_ends_round": lambda rs: _yes_no(
        "A draw that cannot be made ends the round", "A draw that cannot be made is a pass"
    )(rs.empty_draw_ends_round),
    "pass_anytime": lambda rs: _yes_no("You may pass at any time", "No passing at will")(rs.pass_anytime),
    "pass_when_no_draw": lambda rs: _yes_no(
        "You may pass when nothing can be drawn", "Only a player who cannot play passes"
    )(rs.pass_when_no_draw),
    "skip_ranks": lambda rs: (
        f"{_ranks(rs.skip_ranks)} skip the next player" if rs.skip_ranks else "No skip cards"
    ),
    "reverse_ranks": lambda rs: (
        f"{_ranks(rs.reverse_ranks)} reverse the direction" if rs.reverse_ranks else "No reverse cards"
    ),
    "reverse_two_players": lambda rs: (
        "With two players a reverse skips the other player"
        if rs.reverse_two_players == "skip"
        else "With two players a reverse does nothing more"
    ),
    "draw_ranks": lambda rs: (
        "; ".join(f"{RANK_CODES[r]} makes the next player draw {n}" for r, n in rs.draw_ranks)
        if rs.draw_ranks
        else "No draw cards"
    ),
    "draw_caps": lambda rs: (
        "; ".join(
            f"stacked {RANK_CODES[r]}s make at most {n} cards owed" for r, n in rs.draw_caps
        ).capitalize()
        if rs.draw_caps
        else "No cap on stacked draws"
    ),
    "answer_ranks": lambda rs: (
        f"After {_ranks(rs.answer_ranks)} the next player must answer with the same rank or miss a turn"
        if rs.answer_ranks
        else "No cards that must be answered"
    ),
    "stacking": lambda rs: _yes_no(
        "A draw card can be answered with the same rank, adding to it",
        "No stacking: the next player draws and loses the turn",
    )(rs.stacking),
    "wild_answers_draw": lambda rs: _yes_no("A wild cancels a pending draw", "A wild does not answer a draw")(
        rs.wild_answers_draw
    ),
    "same_rank_runs": lambda rs: _yes_no(
        "After a play you may play more cards of the same rank", "One card a turn"
    )(rs.same_rank_runs),
    "last_card": lambda rs: _yes_no("Call your last card or be caught", "No last card call")(rs.last_card),
    "last_card_penalty": lambda rs: f"Caught not calling your last card: draw {rs.last_card_penalty}",
    "blocked_after": lambda rs: (
        "The round is blocked when everyone passes in a row"
        if rs.blocked_after is None
        else f"The round is blocked after {rs.blocked_after} passes in a row"
    ),
    "turn_cap": lambda rs: f"A round ends after {rs.turn_cap} turns at most",
    "scoring": lambda rs: {
        "penalty": "Score the cards left in your hand; low wins",
        "payment": "The winner collects the value of the other hands",
        "card-count": "Score 1 point per card left; low wins",
    }[rs.scoring],
    "card_values": lambda rs: (
        "Cards: 8 = 50, K/Q/J = 10, A = 1"
        if rs.card_values == "volity"
        else "Cards: A = 20, 2/4/J = 15, K/Q = 10"
    ),
    "match_end": lambda rs: {
        "passes-target": "The match ends when a total passes the target",
        "reaches-target": "The match ends when a total reaches the target",
        "rounds": "The match is a number of rounds",
        "one-round": "The match is one round",
    }[rs.match_end],
    "target": lambda rs: f"Target: {rs.target} points",
    "rounds": lambda rs: f"{rs.rounds} rounds" if rs.rounds else "No set number of rounds",
    "next_leader": lambda rs: (
        "The player with the most points leads the next round"
        if rs.next_leader == "most-points"
        else "Left of the dealer leads the next round"
    ),
}
assert set(_SENTENCES) == {o.key for o in OPTIONS}


def describe(ruleset: Ruleset, key: str) -> str:
    """The option's value in ``ruleset``, as a sentence players understand."""
    return _SENTENCES[option(key).key](ruleset)


def differences(ruleset: Ruleset) -> list[str]:
    """What the ruleset changes from its preset, one sentence per change (options that read as one, like
    the draw limit and what follows a draw, give one sentence), in the options' order."""
    base = PRESETS[ruleset.name]
    out: list[str] = []
    for o in OPTIONS:
        if getattr(ruleset, o.key) == getattr(base, o.key):
            continue
        sentence = describe(ruleset, o.key)
        if sentence not in out:
            out.append(sentence)
    return out
