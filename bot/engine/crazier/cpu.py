"""CPU players for ``crazier-abilities`` at the three levels of ``bot.engine.cpu``: easy, normal, hard.

They decide from what their seat may know: ``normal`` reads only the seat's ``view`` (its hand, the public
table) and its legal moves; ``hard`` searches on a copy of the game in which every card hidden from the seat
(the other hands, the draw pile's order, the reshuffles' seed) is dealt again at random from the cards the
seat cannot see, so the search never peeks.

* easy: a random legal move (each distinct card or choice equally likely).
* normal: rules of thumb: a Potion before discarding, discard a matching card (an 8 last, naming the colour it
  holds most of), play an effect aimed at the opponent closest to winning, never against itself or a teammate,
  then end the turn. A choice that must make a player draw (Angel of Hope) goes to an opponent, however many
  cards it holds: first one who draws (the closest to winning), then one whose Castles cut the draw to
  nothing (as if nobody drew), and only then itself or a teammate (``_draw_tier``).
* hard: tries every legal move, finishes its turn after it as ``normal`` would, and keeps the move whose end
  of turn scores best (cards in hand against the opponents', the cards in play, the threats of King Arthur and
  Mordred). A move that makes a player draw is only looked at for the players ``normal`` would rank first
  (``_draw_tier``): the search's one random deal could make its own draw look better.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from bot.engine.crazier.actions import CARD as CARD_MOVE
from bot.engine.crazier.actions import DISCARD, EFFECT, END, KEEP, MOVE, ORDER, Move
from bot.engine.crazier.actions import PLAYER as PLAYER_MOVE
from bot.engine.crazier.deck import DECK, colours_of, is_wild, rank_of
from bot.engine.crazier.game import BEGIN, START, CrazierRound

LEVELS = ("easy", "normal", "hard")

#: What a card in play is worth to its controller (by rank), for choosing targets and scoring positions.
ASSET_VALUE = {"4": 2.0, "5": 5.0, "6": 3.0, "J": 4.0, "Q": 3.0, "K": 3.0}
#: Which effect ``normal`` plays first when several are possible (lower first).
EFFECT_ORDER = {"K": 0, "Q": 1, "5": 2, "J": 3, "6": 4, "4": 5, "2": 6, "10": 7, "9": 8, "7": 9, "3": 10}
#: How many cards the player a card's ability chooses draws (by rank): Forbidden Knowledge, Angel of Hope.
DRAWS = {"2": 2, "5": 1}


def choose_action(game: CrazierRound, seat: int, level: str, *, seed: int) -> Move:
    """The move ``level`` makes for ``seat``, which must be able to act. Deterministic for a given seed, but
    for ``hard`` on a machine so busy that it runs out of ``HARD_TIME_BUDGET`` before seeing every move."""
    if level not in LEVELS:
        raise ValueError(f"unknown CPU level {level!r}")
    legal = game.legal_actions(seat)
    if not legal:
        raise ValueError("the seat has no move")
    rng = random.Random(seed)
    if level == "easy":
        return _easy(legal, rng)
    if level == "normal":
        return normal_move(game.view(seat), legal)
    return _hard(game, seat, legal, rng)


def _easy(legal: list[Move], rng: random.Random) -> Move:
    groups: dict[tuple[Any, ...], list[Move]] = {}
    for m in legal:
        groups.setdefault((m.kind, m.card), []).append(m)
    return rng.choice(rng.choice(list(groups.values())))


# ================================================================================================ normal
def _team(view: dict[str, Any], seat: int, other: int) -> bool:
    return other == seat or (view["teams"] and other % 2 == seat % 2)


def _threat(view: dict[str, Any], other: int) -> float:
    """How close ``other`` is to winning, as the table shows it (fewer cards, more cards in play)."""
    return float(-view["hand_sizes"][other] + 0.5 * len(view["in_play"][other]))


def _card_worth(view: dict[str, Any], seat: int, card: str) -> float:
    """Positive for a card an opponent controls (worth removing), negative for one of our own."""
    owner = next(s for s, cards in enumerate(view["in_play"]) if card in cards)
    worth = ASSET_VALUE.get(rank_of(card), 1.0)
    if rank_of(card) == "K" and len(view["in_play"][owner]) >= 3:
        worth += 20.0
    return -worth if _team(view, seat, owner) else worth + 0.1 * _threat(view, owner)


def _castles(view: dict[str, Any], target: int) -> int:
    return sum(1 for c in view["in_play"][target] if rank_of(c) == "6")


def _player_worth(view: dict[str, Any], seat: int, target: int) -> float:
    """Making ``target`` draw: good against an opponent, the more the closer it is to winning (worth playing
    unless its hand is already large: ``_threat`` alone is below zero for nearly every opponent, and the card
    was never played); bad for oneself or a teammate. Whether to play a card for its effect; a choice among
    players ranks them by ``_draw_tier`` first (an opponent with a large hand scores below oneself here)."""
    if _team(view, seat, target):
        return -10.0
    return 10.0 + _threat(view, target) - 3.0 * _castles(view, target)


def _draw_tier(teammate: bool, castles: int, draws: int) -> int:
    """Where a player comes among those a card makes draw ``draws`` cards, for the chooser (higher first):
    2, an opponent who draws; 1, an opponent whose Castles cut the draw to nothing (as if nobody drew); 0,
    oneself or a teammate, who draws them all (a card in one's own hand, or a teammate's, is a step away from
    winning: fewest cards, empty hand). So an opponent always comes first, however many cards it holds."""
    if teammate:
        return 0
    return 2 if castles < draws else 1


def _player_rank(view: dict[str, Any], seat: int, target: int) -> tuple[int, float]:
    """How ``normal`` ranks ``target`` for its pending choice of a player who draws (Angel of Hope): its
    ``_draw_tier``, then its ``_player_worth`` (among opponents who draw, the one closest to winning)."""
    card = (view.get("choice") or {}).get("card")
    draws = DRAWS.get(rank_of(card), 1) if card else 1
    tier = _draw_tier(bool(_team(view, seat, target)), _castles(view, target), draws)
    return tier, _player_worth(view, seat, target)


def normal_move(view: dict[str, Any], legal: list[Move]) -> Move:
    seat = view["seat"]
    choice_moves = [m for m in legal if m.kind in (ORDER, PLAYER_MOVE, CARD_MOVE, KEEP, MOVE)]
    if choice_moves:
        return _normal_choice(view, seat, choice_moves)
    hand: list[str] = view["hand"]
    effects = [m for m in legal if m.kind == EFFECT]
    discards = [m for m in legal if m.kind == DISCARD]
    potion = next((m for m in effects if rank_of(m.card or "") == "3"), None)
    if potion is not None and len(discards) >= 1 and len(hand) >= 3:
        return potion
    if discards:
        return _normal_discard(hand, discards)
    best = _best_effect(view, seat, effects)
    if best is not None:
        return best
    return next(m for m in legal if m.kind == END)


def _normal_choice(view: dict[str, Any], seat: int, moves: list[Move]) -> Move:
    kind = moves[0].kind
    if kind == ORDER:
        # Destroying and deciding first: a Dragon may clear the way, King Arthur and Mordred were decided.
        return min(moves, key=lambda m: EFFECT_ORDER.get(rank_of(m.card or ""), 99))
    if kind == PLAYER_MOVE:
        return max(moves, key=lambda m: _player_rank(view, seat, m.target if m.target is not None else seat))
    if kind == CARD_MOVE:
        return max(moves, key=lambda m: _card_worth(view, seat, m.target_card or ""))
    seen = (view.get("choice") or {}).get("seen")
    keep = seen is not None and (is_wild(seen) or rank_of(seen) in ("K", "5", "J", "2", "3"))
    return next(m for m in moves if m.kind == (KEEP if keep else MOVE))


def _normal_discard(hand: list[str], discards: list[Move]) -> Move:
    plain = [m for m in discards if not is_wild(m.card or "")]
    if plain:
        # Shed the cards without an ability first (Aces), then the others.
        return min(plain, key=lambda m: (rank_of(m.card or "") != "A", hand.index(m.card or "")))
    counts = Counter(c for card in hand if not is_wild(card) for c in colours_of(card))
    return max(discards, key=lambda m: counts.get(m.colour or "", 0))


def _best_effect(view: dict[str, Any], seat: int, effects: list[Move]) -> Move | None:
    scored: list[tuple[float, int, Move]] = []
    for m in effects:
        rank = rank_of(m.card or "")
        worth = 1.0
        if m.target is not None:
            worth = _player_worth(view, seat, m.target)
        elif m.target_card is not None:
            worth = _card_worth(view, seat, m.target_card)
        if worth <= 0:
            continue
        scored.append((-worth, EFFECT_ORDER.get(rank, 99), m))
    if not scored:
        return None
    scored.sort(key=lambda t: (t[1], t[0]))
    return scored[0][2]


# ================================================================================================ hard
def determinized(game: CrazierRound, seat: int, rng: random.Random) -> CrazierRound:
    """A copy of the game where what ``seat`` cannot see is dealt again at random: the other hands and the
    draw pile from the cards it has not seen, and a new reshuffle seed. A card its own Elven Princess shows it
    stays on top."""
    data = game.to_json()
    seen_top = None
    ch = game.choice
    if ch is not None and ch["by"] == seat and ch["kind"] == "look" and game.draw:
        # A pending look's card is the top one: a teammate's draw that takes it meanwhile ends the choice.
        seen_top = ch["entry"][2].get("seen")
    known = set(game.hands[seat]) | set(game.discard) | {c for cs in game.in_play for c in cs}
    if seen_top is not None:
        known.add(seen_top)
    unseen = [c for c in DECK if c not in known]
    rng.shuffle(unseen)
    for s in range(game.n):
        if s != seat:
            k = len(game.hands[s])
            data["hands"][s], unseen = unseen[:k], unseen[k:]
    data["draw"] = unseen + ([seen_top] if seen_top is not None else [])
    if ch is not None and ch["by"] != seat and ch["kind"] == "look" and data["draw"]:
        # A teammate's look waits while this seat moves: the card it looks at is hidden from this seat, so
        # in the copy it is the copy's own top card.
        data["choice"]["entry"][2]["seen"] = data["draw"][-1]
    data["seed"] = rng.randrange(1 << 30)
    data["recent"] = []
    return CrazierRound.from_json(data)


def evaluate(game: CrazierRound, seat: int) -> float:
    """How good the position is for ``seat`` (and its team), from counts and the public table only."""
    if game.over:
        return 1000.0 if seat in game.winners else -1000.0
    view_team = [s for s in range(game.n) if game.alive[s] and game.team_of(s) == game.team_of(seat)]
    foes = [s for s in range(game.n) if game.alive[s] and game.team_of(s) != game.team_of(seat)]
    # The draw of a seat whose turn began but waits (for a choice) counts as made: positions compare
    # at the same point of the next turn.
    held = [
        len(game.hands[s]) + (1 if s in game.active and game.stage[s] in (START, BEGIN) else 0)
        for s in range(game.n)
    ]
    mine = min(held[s] for s in view_team)
    theirs = min(held[s] for s in foes)
    score = -10.0 * mine + 6.0 * theirs + 1.0 * sum(held[s] for s in foes) / len(foes)
    for s in range(game.n):
        if not game.alive[s]:
            continue
        sign = 1.0 if game.team_of(s) == game.team_of(seat) else -1.0
        cards = game.in_play[s]
        score += sign * sum(ASSET_VALUE.get(rank_of(c), 1.0) for c in cards)
        if any(rank_of(c) == "K" for c in cards):
            # Four cards win at the beginning of that player's next turn; three are one asset away.
            score += sign * (400.0 if len(cards) >= 4 else 10.0 * max(0, len(cards) - 2))
        if any(rank_of(c) == "Q" for c in cards):
            others = [o for o in range(game.n) if game.alive[o] and game.team_of(o) != game.team_of(s)]
            score += sign * 300.0 * sum(1 for o in others if len(game.hands[o]) >= 12)
    return score


def _finish_turn(game: CrazierRound, seat: int) -> None:
    """Play ``seat``'s decisions as ``normal`` until its turn leaves its hands (or the game ends)."""
    for _ in range(30):
        legal = game.legal_actions(seat)
        if game.over or not legal:
            return
        game.apply(normal_move(game.view(seat), legal))


# Seconds a hard decision may take, as the standard game's hard (bot.engine.cpu.hard: p99 target 50 ms). Most
# take 1-15 ms; a hand of 27 cards against six seats offered 183 moves, whose playouts took 73 ms in all.
HARD_TIME_BUDGET = 0.040


def _best_draw_targets(game: CrazierRound, seat: int, legal: list[Move]) -> list[Move]:
    """``legal`` without the moves making a player draw (Forbidden Knowledge played at them, an Angel of
    Hope's choice) whose player is in a lower ``_draw_tier`` than another the same card could choose."""
    if all(m.target is None for m in legal):
        return legal
    ch = game.choice
    source = ch["entry"][0] if ch is not None and ch["by"] == seat and ch["kind"] == PLAYER_MOVE else None
    tiers: dict[int, int] = {}
    best: dict[tuple[str, str | None], int] = {}
    for i, m in enumerate(legal):
        card = m.card if m.kind == EFFECT else source
        draws = DRAWS.get(rank_of(card), 0) if m.target is not None and card is not None else 0
        if draws:
            t = m.target
            assert t is not None
            tier = _draw_tier(game.team_of(t) == game.team_of(seat), game.fewer_draws(t), draws)
            tiers[i] = tier
            key = (m.kind, m.card)
            best[key] = max(best.get(key, tier), tier)
    return [m for i, m in enumerate(legal) if i not in tiers or tiers[i] == best[(m.kind, m.card)]]


def _hard(
    game: CrazierRound, seat: int, legal: list[Move], rng: random.Random, budget: float | None = None
) -> Move:
    budget = HARD_TIME_BUDGET if budget is None else budget  # read now: tests lift it
    legal = _best_draw_targets(game, seat, legal)
    if len(legal) == 1:
        return legal[0]
    started = time.perf_counter()
    base = determinized(game, seat, rng)
    best: tuple[float, int] | None = None
    best_move = legal[0]
    for i, move in enumerate(legal):
        if best is not None and time.perf_counter() - started > budget:
            break  # the best of the moves looked at so far
        if move.kind == DISCARD and is_wild(move.card or "") and move.colour is not None:
            rest = [c for c in game.hands[seat] if c != move.card and not is_wild(c)]
            if rest and move.colour not in {c for card in rest for c in colours_of(card)}:
                continue  # naming a colour it holds none of is never better
        sim = base.clone()
        sim.apply(move)
        _finish_turn(sim, seat)
        key = (evaluate(sim, seat), -i)
        if best is None or key > best:
            best, best_move = key, move
    return best_move
