"""Properties over many random games, for every preset and every player count.

A plain seeded loop plays thousands of whole games cheaply (through ``step``); hypothesis drives the heavier
per-step checks (JSON, illegal actions, replay) on shorter stretches of play.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import ERROR_MESSAGES, PRESETS, Action, ActionKind, EngineError, Round, Ruleset
from bot.engine.round import full_deck

COMBOS = [(name, n) for name, rs in PRESETS.items() for n in range(rs.min_players, rs.max_players + 1)]
GAMES_PER_COMBO = 41  # 49 combinations: over 2,000 whole games
STEP_LIMIT = 100_000  # far above what the turn cap allows: a round that reaches it never ends


def all_cards(r: Round) -> Counter[int]:
    return Counter(r.hidden_cards(0) + r.hand(0) + r.discard)


def deck_of(r: Round) -> Counter[int]:
    return Counter(full_deck(r.ruleset.decks_for(r.num_seats)))


def choose(r: Round, rng: random.Random) -> Action:
    """Uniform over the seat to act's legal actions; now and then an out-of-turn action of another seat."""
    if rng.random() < 0.1:
        seat = rng.randrange(r.num_seats)
        others = r.legal_actions(seat)
        if others and seat != r.to_act:
            return rng.choice(others)
    return rng.choice(r.legal_actions())


def check_whole_round(rs: Ruleset, n: int, dealer: int, seed: int, rng: random.Random) -> Round:
    """Play a round with random actions to its end: a legal action is always there, every card is kept,
    the round ends, and its scores fit its scoring (by side in a partnership)."""
    r = Round.new(rs, n, dealer, seed=seed)
    deck = deck_of(r)
    steps = 0
    while not r.over:
        assert r.legal_actions(), f"{rs} {n}p seed {seed}: no legal action while the round is on"
        r.step(choose(r, rng))
        steps += 1
        assert steps < STEP_LIMIT, f"{rs} {n}p seed {seed} does not end"
        if steps % 97 == 0:
            assert all_cards(r) == deck
    assert all_cards(r) == deck
    assert sum(r.hand_sizes) + r.stock_size + len(r.discard) == sum(deck.values())
    scores = r.scores
    assert scores is not None and len(scores) == n and r.winners
    if rs.scoring == "payment":
        assert sum(scores) == 0
    else:
        assert all(s >= 0 for s in scores)
        assert all(scores[w] == min(scores) for w in r.winners)
    if not r.blocked:
        assert all(r.hand_sizes[w] == 0 for w in r.winners)
    if rs.partnership:
        assert scores[0] == scores[2] and scores[1] == scores[3]
        assert sorted(r.winners) in ([0, 2], [1, 3], [0, 1, 2, 3])
    return r


def test_thousands_of_random_games_keep_every_card_and_end() -> None:
    games = 0
    for name, n in COMBOS:
        rs = PRESETS[name]
        for g in range(GAMES_PER_COMBO):
            check_whole_round(rs, n, g % n, g * 7 + n, random.Random(g))
            games += 1
    assert games >= 2000


def candidates(r: Round, rng: random.Random, k: int) -> list[Action]:
    """Random actions, legal or not: plays of held and unheld cards, draws, passes, suits, calls, catches."""
    n = r.num_seats
    out: list[Action] = []
    for _ in range(k):
        seat = rng.randrange(n + 1) if rng.random() < 0.05 else rng.randrange(n)
        kind = rng.randrange(7)
        if kind == 0:
            own = r.hand(seat) if seat < n else []
            card = rng.choice(own) if own and rng.random() < 0.7 else rng.randrange(4, 56)
            out.append(Action.play(seat, card))
        elif kind == 1:
            own = r.hand(seat) if seat < n else []
            card = rng.choice(own) if own else rng.randrange(4, 56)
            out.append(Action.play(seat, card, rng.randrange(5)))
        elif kind == 2:
            out.append(Action.draw(seat))
        elif kind == 3:
            out.append(Action.pass_(seat))
        elif kind == 4:
            out.append(Action.name_suit(seat, rng.randrange(5)))
        elif kind == 5:
            out.append(Action.call_last(seat))
        else:
            out.append(Action.catch(seat, rng.randrange(n)))
    return out


def expected_legal(r: Round, a: Action) -> bool:
    if not 0 <= a.seat < r.num_seats:
        return False
    legal = r.legal_actions(a.seat)
    if a in legal:
        return True
    if a.kind is ActionKind.PLAY and a.suit is not None and a.card is not None:
        # The one-step form of a wild: legal when the two-step play is.
        return (
            0 <= a.suit <= 3 and a.card >> 2 == r.ruleset.wild_rank and Action.play(a.seat, a.card) in legal
        )
    return False


def without_recent(data: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if k != "recent"}


def check_stretch(rs: Ruleset, n: int, seed: int, skip: int, steps: int) -> None:
    """Play ``skip`` actions, then check every step of the next ``steps``: the JSON round trip is exact, the
    fast path agrees with the validated one, random illegal actions raise a known code and change nothing,
    every legal action (of every seat) applies; finally replaying the seed gives the same state."""
    r = Round.new(rs, n, seed % n, seed=seed)
    fast = r.clone()
    rng = random.Random(seed)
    played: list[Action] = []
    # Play a while without checks to reach later positions too, then check every step for a stretch.
    for _ in range(skip):
        if r.over:
            break
        a = choose(r, rng)
        r.apply(a)
        fast.step(a)
        played.append(a)
    for _ in range(steps):
        if r.over:
            break
        before = r.to_json()
        back = Round.from_json(json.loads(json.dumps(before)))
        assert back.to_json() == before
        for s in range(n):
            assert back.legal_actions(s) == r.legal_actions(s)
        assert without_recent(fast.to_json()) == without_recent(before)
        assert all_cards(r) == deck_of(r)
        for a in candidates(r, rng, 8):
            if expected_legal(r, a):
                r.clone().apply(a)
                continue
            with pytest.raises(EngineError) as info:
                r.apply(a)
            assert info.value.code in ERROR_MESSAGES
            assert r.to_json() == before
        for s in range(n):
            for a in r.legal_actions(s):
                r.clone().apply(a)
        a = choose(r, rng)
        r.apply(a)
        fast.step(a)
        played.append(a)
    # Replaying the seed with the same actions gives the same state.
    again = Round.new(rs, n, seed % n, seed=seed)
    for a in played:
        again.apply(a)
    assert again.to_json() == r.to_json()


@settings(max_examples=50, deadline=None)
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 2**31), skip=st.integers(0, 120))
def test_every_step_is_exact_and_illegal_actions_change_nothing(
    combo: tuple[str, int], seed: int, skip: int
) -> None:
    check_stretch(PRESETS[combo[0]], combo[1], seed, skip, 60)


@pytest.mark.parametrize(("name", "n"), COMBOS)
def test_every_preset_and_player_count_step_by_step(name: str, n: int) -> None:
    check_stretch(PRESETS[name], n, seed=n * 1000 + len(name), skip=15, steps=25)


@settings(max_examples=40, deadline=None)
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 2**31))
def test_deck_order_replay_and_views(combo: tuple[str, int], seed: int) -> None:
    name, n = combo
    rs = PRESETS[name]
    rng = random.Random(seed)
    deck = full_deck(rs.decks_for(n))
    rng.shuffle(deck)
    r = Round.new(rs, n, 0, deck=deck, seed=seed)
    played: list[Action] = []
    events = list(r.start_events)
    for _ in range(80):
        if r.over:
            break
        a = choose(r, rng)
        events += r.apply(a)
        played.append(a)
        for s in range(n):
            v = r.view(s)
            assert v["hand"] == [c for c in json.loads(json.dumps(v["hand"]))]
            assert sorted(v["hand"]) == sorted(r.to_json()["hands"][s])
            assert all(e["visible_to"] in (None, s) for e in v["last_events"])
            assert "stock" not in v and "hands" not in v
            assert v["hand_sizes"] == r.hand_sizes
    again = Round.new(rs, n, 0, deck=deck, seed=seed)
    for a in played:
        again.apply(a)
    assert again.to_json() == r.to_json()
    # Hand sizes follow from the public events alone (dealt, played, drew).
    sizes = [0] * n
    for e in events:
        if e.kind == "dealt":
            sizes[e.seat] = len(e.data["cards"])
        elif e.kind == "played":
            sizes[e.seat] -= 1
        elif e.kind == "drew":
            sizes[e.seat] += e.data["count"]
    assert sizes == r.hand_sizes
    # The public history never names a drawn card.
    for entry in r.history:
        if entry[0] in ("draw", "penalty"):
            assert isinstance(entry[2], int)


@settings(max_examples=40, deadline=None)
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 2**31), skip=st.integers(0, 60))
def test_determinizations_keep_sizes_and_play_on(combo: tuple[str, int], seed: int, skip: int) -> None:
    name, n = combo
    r = Round.new(PRESETS[name], n, 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(skip):
        if r.over:
            return
        r.step(choose(r, rng))
    if r.over:
        return
    seat = r.to_act
    assert seat is not None
    hidden = r.hidden_cards(seat)
    rng.shuffle(hidden)
    hands: dict[int, list[int]] = {}
    for s in range(n):
        if s != seat:
            size = r.hand_sizes[s]
            hands[s], hidden = hidden[:size], hidden[size:]
    d = r.with_hidden(seat, hands, hidden)
    assert d.hand(seat) == r.hand(seat) and d.hand_sizes == r.hand_sizes
    assert all_cards(d) == all_cards(r)
    d.seed_rng(seed + 1)
    steps = 0
    while not d.over:
        d.step(choose(d, rng))
        steps += 1
        assert steps < STEP_LIMIT
    assert all_cards(d) == deck_of(d)
