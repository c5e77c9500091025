"""House rules in words: each option's value as a sentence players understand, and what a ruleset changes
from its preset ("Draw up to 3 cards, then you may pass"). The one place the board, the rules help, the
lobby's panel and the history take their wording from (``bot.engine.rule_options`` knows the options)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.engine.cards import RANK_CODES
from bot.engine.rule_options import OPTIONS, option
from bot.engine.rules import PRESETS, Ruleset
from bot.i18n import N_, _, ngettext

#: "Eights are wild": each rank's name in the plural, as a whole word (languages do not all add an "s").
_RANK_PLURALS = (
    "",
    N_("Aces"),
    N_("Twos"),
    N_("Threes"),
    N_("Fours"),
    N_("Fives"),
    N_("Sixes"),
    N_("Sevens"),
    N_("Eights"),
    N_("Nines"),
    N_("Tens"),
    N_("Jacks"),
    N_("Queens"),
    N_("Kings"),
)


def _plural(rank: int) -> str:
    return _(_RANK_PLURALS[rank])


def _ranks(ranks: tuple[int, ...]) -> str:
    names = [RANK_CODES[r] for r in ranks]
    if len(names) == 1:
        return names[0]
    return _("{ranks} and {last}", ranks=", ".join(names[:-1]), last=names[-1])


def draw_rule(rs: Ruleset) -> str:
    """How drawing works, in one sentence ("Draw up to 3 cards, then you may pass")."""
    n = rs.draw_limit
    ad = rs.after_draw
    if ad == "draw-up-to":
        assert n is not None
        return ngettext(
            "Draw up to one card, then you may pass", "Draw up to {n} cards, then you may pass", n
        )
    if ad == "turn-ends":
        return _("Draw one card and your turn ends")
    if n is None:
        amount = _("Draw until a card can be played")
    else:
        amount = ngettext("Draw one card", "Draw up to {n} cards", n)
    then = {
        "must-play-drawn": _("a playable card drawn when you had no play must be played"),
        "may-play-drawn": _("then play the drawn card or pass"),
        "may-play-any": _("then play any card or pass"),
    }[ad]
    return _("{amount}; {then}", amount=amount, then=then)


def _yes_no(yes: str, no: str) -> Callable[[Any], str]:
    return lambda v: yes if v else no


_SENTENCES: dict[str, Callable[[Ruleset], str]] = {
    "min_players": lambda rs: _("At least {min_players} players", min_players=rs.min_players),
    "max_players": lambda rs: _("At most {max_players} players", max_players=rs.max_players),
    "partnership": lambda rs: (
        _(
            "Partnership: four players, partners sit opposite; a side wins when both partners are out",
        )
        if rs.partnership
        else _("No partnership: everyone plays for themselves")
    ),
    "decks": lambda rs: {
        "one": _("One deck at any table size"),
        "two-above-5": _("Two decks above 5 players"),
        "two-above-2": _("Two decks above 2 players"),
    }[rs.decks],
    "hand_size": lambda rs: ngettext(
        "Deal {hand_size} card each", "Deal {hand_size} cards each", rs.hand_size, hand_size=rs.hand_size
    ),
    "hand_size_two": lambda rs: ngettext(
        "Deal {hand_size_two} card each with two players",
        "Deal {hand_size_two} cards each with two players",
        rs.hand_size_two,
        hand_size_two=rs.hand_size_two,
    ),
    "wild_rank": lambda rs: (
        _("No wild cards") if rs.wild_rank is None else _("{plural} are wild", plural=_plural(rs.wild_rank))
    ),
    "wild_must_match": lambda rs: _yes_no(
        _("A wild must match the top card"), _("A wild can be played on anything")
    )(rs.wild_must_match),
    "starter_wild": lambda rs: {
        "keep": _("A wild turned as the starter stays: match its suit"),
        "hearts": _("A wild turned as the starter means hearts are named"),
        "bury": _("A wild turned as the starter is buried and another card turned"),
    }[rs.starter_wild],
    "starter_effect": lambda rs: _yes_no(
        _("A special starter card works as if the dealer played it"),
        _("A special starter card has no effect"),
    )(rs.starter_effect),
    "draw_with_legal_play": lambda rs: _yes_no(
        _("You may draw even when you could play"), _("You may draw only when you cannot play")
    )(rs.draw_with_legal_play),
    "draw_limit": draw_rule,
    "after_draw": draw_rule,
    "draw_first": lambda rs: _yes_no(
        _("Every turn starts by drawing a card"), _("Turns do not start with a draw")
    )(rs.draw_first),
    "reshuffle": lambda rs: _yes_no(
        _("An empty stock is refilled from the discard pile"),
        _("No reshuffle: once the stock is empty, nobody draws"),
    )(rs.reshuffle),
    "empty_draw_ends_round": lambda rs: _yes_no(
        _("A draw that cannot be made ends the round"), _("A draw that cannot be made is a pass")
    )(rs.empty_draw_ends_round),
    "pass_anytime": lambda rs: _yes_no(_("You may pass at any time"), _("No passing at will"))(
        rs.pass_anytime
    ),
    "pass_when_no_draw": lambda rs: _yes_no(
        _("You may pass when nothing can be drawn"), _("Only a player who cannot play passes")
    )(rs.pass_when_no_draw),
    "skip_ranks": lambda rs: (
        _("{ranks} skip the next player", ranks=_ranks(rs.skip_ranks))
        if rs.skip_ranks
        else _("No skip cards")
    ),
    "reverse_ranks": lambda rs: (
        _("{ranks} reverse the direction", ranks=_ranks(rs.reverse_ranks))
        if rs.reverse_ranks
        else _("No reverse cards")
    ),
    "reverse_two_players": lambda rs: (
        _("With two players a reverse skips the other player")
        if rs.reverse_two_players == "skip"
        else _("With two players a reverse does nothing more")
    ),
    "draw_ranks": lambda rs: (
        "; ".join(
            _("{rank} makes the next player draw {n}", rank=RANK_CODES[r], n=n) for r, n in rs.draw_ranks
        )
        if rs.draw_ranks
        else _("No draw cards")
    ),
    "draw_caps": lambda rs: (
        _upper_first(
            "; ".join(
                ngettext(
                    "stacked {rank}s make at most {n} card owed",
                    "stacked {rank}s make at most {n} cards owed",
                    n,
                    rank=RANK_CODES[r],
                )
                for r, n in rs.draw_caps
            )
        )
        if rs.draw_caps
        else _("No cap on stacked draws")
    ),
    "answer_ranks": lambda rs: (
        _(
            "After {ranks} the next player must answer with the same rank or miss a turn",
            ranks=_ranks(rs.answer_ranks),
        )
        if rs.answer_ranks
        else _("No cards that must be answered")
    ),
    "stacking": lambda rs: _yes_no(
        _("A draw card can be answered with the same rank, adding to it"),
        _("No stacking: the next player draws and loses the turn"),
    )(rs.stacking),
    "wild_answers_draw": lambda rs: _yes_no(
        _("A wild cancels a pending draw"), _("A wild does not answer a draw")
    )(rs.wild_answers_draw),
    "same_rank_runs": lambda rs: _yes_no(
        _("After a play you may play more cards of the same rank"), _("One card a turn")
    )(rs.same_rank_runs),
    "last_card": lambda rs: _yes_no(_("Call your last card or be caught"), _("No last card call"))(
        rs.last_card
    ),
    "last_card_penalty": lambda rs: _(
        "Caught not calling your last card: draw {last_card_penalty}", last_card_penalty=rs.last_card_penalty
    ),
    "blocked_after": lambda rs: (
        _("The round is blocked when everyone passes in a row")
        if rs.blocked_after is None
        else ngettext(
            "The round is blocked after {blocked_after} pass in a row",
            "The round is blocked after {blocked_after} passes in a row",
            rs.blocked_after,
            blocked_after=rs.blocked_after,
        )
    ),
    "turn_cap": lambda rs: _("A round ends after {turn_cap} turns at most", turn_cap=rs.turn_cap),
    "scoring": lambda rs: {
        "penalty": _("Score the cards left in your hand; low wins"),
        "payment": _("The winner collects the value of the other hands"),
        "card-count": _("Score 1 point per card left; low wins"),
    }[rs.scoring],
    "card_values": lambda rs: (
        _("Cards: 8 = 50, K/Q/J = 10, A = 1")
        if rs.card_values == "volity"
        else _("Cards: A = 20, 2/4/J = 15, K/Q = 10")
    ),
    "match_end": lambda rs: {
        "passes-target": _("The match ends when a total passes the target"),
        "reaches-target": _("The match ends when a total reaches the target"),
        "rounds": ngettext(
            "The match is {rounds} round",
            "The match is {rounds} rounds",
            rs.rounds or 1,
            rounds=rs.rounds or 1,
        ),
        "one-round": _("The match is one round"),
    }[rs.match_end],
    "target": lambda rs: (
        ngettext("Target: {target} point", "Target: {target} points", rs.target, target=rs.target)
        if rs.target is not None
        else _("No target")
    ),
    "rounds": lambda rs: (
        ngettext("{rounds} round", "{rounds} rounds", rs.rounds, rounds=rs.rounds)
        if rs.rounds
        else _("No set number of rounds")
    ),
    "next_leader": lambda rs: (
        _("The player with the most points leads the next round")
        if rs.next_leader == "most-points"
        else _("Left of the dealer leads the next round")
    ),
}
assert set(_SENTENCES) == {o.key for o in OPTIONS}


def _upper_first(text: str) -> str:
    """``text`` starting with a capital, the rest as written (``str.capitalize`` lowers "A" and "K")."""
    return text[:1].upper() + text[1:]


def in_use(ruleset: Ruleset, key: str) -> bool:
    """Whether the option plays a part under the ruleset's way of ending the match: a set number of rounds
    only in a match of rounds, a target only in a match to a target."""
    if key == "rounds":
        return ruleset.match_end == "rounds"
    if key == "target":
        return ruleset.match_end in ("passes-target", "reaches-target")
    return True


def describe(ruleset: Ruleset, key: str) -> str:
    """The option's value in ``ruleset``, as a sentence players understand."""
    return _SENTENCES[option(key).key](ruleset)


def differences(ruleset: Ruleset) -> list[str]:
    """What the ruleset changes from its preset, one sentence per change (options that read as one, like
    the draw limit and what follows a draw, give one sentence), in the options' order."""
    base = PRESETS[ruleset.name]
    out: list[str] = []
    for o in OPTIONS:
        if getattr(ruleset, o.key) == getattr(base, o.key) or not in_use(ruleset, o.key):
            continue
        if o.key == "rounds" and ruleset.match_end != base.match_end:
            continue  # "The match is 3 rounds" says it
        sentence = describe(ruleset, o.key)
        if sentence not in out:
            out.append(sentence)
    return out
