"""The rating math against OpenSkill's Plackett–Luce update computed here by hand, from the formulas of Weng
and Lin (2011), Algorithm 4, with the model's default parameters — not by calling the code under test — and
against the ``openskill`` package's own ``PlackettLuce.rate`` (the bot computes the update itself, for speed:
it must give the package's values)."""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce

from bot.engine.ratings import OPENSKILL

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = MU / 300  # the dynamics factor: added to every sigma before the match
KAPPA = 0.0001


def plackett_luce(
    teams: list[list[tuple[float, float]]], ranks: list[int]
) -> list[list[tuple[float, float]]]:
    """Algorithm 4: each team's skill is its members' sum; a team's update is split among its members in
    proportion to their variances."""
    teams = [[(mu, math.sqrt(sigma**2 + TAU**2)) for mu, sigma in team] for team in teams]
    team_mu = [sum(mu for mu, _ in team) for team in teams]
    team_var = [sum(sigma**2 for _, sigma in team) for team in teams]
    c = math.sqrt(sum(var + BETA**2 for var in team_var))
    # For each q: the sum of exp(mu_i / c) over the teams that did not finish ahead of q, and how many share
    # q's place.
    sums = [
        sum(math.exp(team_mu[i] / c) for i in range(len(teams)) if ranks[i] >= ranks[q])
        for q in range(len(teams))
    ]
    shared = [sum(1 for r in ranks if r == ranks[q]) for q in range(len(teams))]
    result = []
    for i, team in enumerate(teams):
        omega = delta = 0.0
        for q in range(len(teams)):
            if ranks[q] > ranks[i]:
                continue
            quotient = math.exp(team_mu[i] / c) / sums[q]
            omega += ((1 if q == i else 0) - quotient) / shared[q]
            delta += quotient * (1 - quotient) / shared[q]
        gamma = math.sqrt(team_var[i]) / c
        omega *= team_var[i] / c
        delta *= gamma * team_var[i] / c**2
        result.append(
            [
                (
                    mu + sigma**2 / team_var[i] * omega,
                    sigma * math.sqrt(max(1 - sigma**2 / team_var[i] * delta, KAPPA)),
                )
                for mu, sigma in team
            ]
        )
    return result


def check(got: list[list[tuple[float, float]]], expected: list[list[tuple[float, float]]]) -> None:
    assert got == [[pytest.approx(pair, abs=1e-9) for pair in side] for side in expected]


def test_two_players_winner_gains_what_the_loser_loses() -> None:
    new = OPENSKILL.initial
    got = OPENSKILL.rate([[new], [new]], [1, 2])
    check(got, plackett_luce([[(MU, SIGMA)], [(MU, SIGMA)]], [1, 2]))
    # By hand, to check the formula above too: sigma² + tau² = 69.4514, c = √(2·(69.4514 + β² 17.3611)) =
    # 13.1767; the winner's omega = (1 − ½)·69.4514/c = 2.6354; delta = ¼·(8.3337/c)·69.4514/c² = 0.063246, so
    # sigma' = 8.3337·√(1 − 0.063246) = 8.0659.
    assert got[0][0][0] == pytest.approx(27.6354, abs=1e-4) and got[1][0][0] == pytest.approx(
        22.3646, abs=1e-4
    )
    assert got[0][0][1] == pytest.approx(8.0659, abs=1e-4)


def test_four_player_free_for_all_with_a_tie_for_second() -> None:
    before = [(30.0, 6.0), (25.0, SIGMA), (22.0, 4.0), (27.0, 7.5)]
    places = [1, 2, 2, 4]
    got = OPENSKILL.rate([[r] for r in before], places)
    check(got, plackett_luce([[r] for r in before], places))
    mus = [side[0][0] for side in got]
    # The tied two: the lower-rated one gains more (it did as well against a stronger opponent).
    assert mus[2] - before[2][0] > mus[1] - before[1][0]
    assert mus[3] < before[3][0] and mus[0] > before[0][0]


def test_partnership_rates_the_sides_as_teams() -> None:
    sides = [[(28.0, 5.0), (24.0, 7.0)], [(26.0, 6.0), (25.0, SIGMA)]]
    got = OPENSKILL.rate(sides, [2, 1])
    check(got, plackett_luce(sides, [2, 1]))
    # Partners share their side's result, in proportion to how uncertain each one is.
    losses = [before[0] - after[0] for before, after in zip(sides[0], got[0], strict=True)]
    assert losses[1] > losses[0] > 0


def test_a_lone_side_learns_nothing() -> None:
    assert OPENSKILL.rate([[(20.0, 3.0)]], [1]) == [[(20.0, 3.0)]]


def package(sides: list[list[tuple[float, float]]], places: list[int]) -> list[list[tuple[float, float]]]:
    """The ``openskill`` package's own update, default model."""
    model = PlackettLuce()
    teams = [[model.create_rating([mu, sigma]) for mu, sigma in side] for side in sides]
    rated = model.rate(teams, ranks=[float(place) for place in places])
    return [[(member.mu, member.sigma) for member in side] for side in rated]


@pytest.mark.parametrize(
    ("sides", "places"),
    [
        pytest.param([[(MU, SIGMA)], [(MU, SIGMA)]], [1, 2], id="two players"),
        pytest.param([[(31.0, 2.5)], [(18.0, 7.9)]], [2, 1], id="two players, the favourite loses"),
        pytest.param(
            [[(30.0, 6.0)], [(25.0, SIGMA)], [(22.0, 4.0)], [(27.0, 7.5)]], [1, 2, 2, 4], id="four, a tie"
        ),
        pytest.param(
            [[(20.0, 3.0)], [(24.0, 5.0)], [(26.0, 1.0)], [(21.0, 8.0)]], [3, 1, 3, 2], id="tie last"
        ),
        pytest.param([[(28.0, 5.0), (24.0, 7.0)], [(26.0, 6.0), (25.0, SIGMA)]], [2, 1], id="partnership"),
        pytest.param([[(28.0, 5.0), (24.0, 7.0)], [(26.0, 6.0), (25.0, SIGMA)]], [1, 1], id="partners tie"),
    ],
)
def test_the_update_is_the_openskill_packages(
    sides: list[list[tuple[float, float]]], places: list[int]
) -> None:
    check(OPENSKILL.rate(sides, places), package(sides, places))


def test_a_free_for_all_of_any_size_and_ties_is_the_packages() -> None:
    """The free-for-all form (``rate_alone``: sums per place, not per pair of sides) on random matches of 2 to
    7 players, with ties anywhere and places that skip (1, 1, 3)."""
    rng = random.Random(27)
    for _ in range(200):
        count = rng.randint(2, 7)
        sides = [[(rng.uniform(5.0, 45.0), rng.uniform(0.5, 9.0))] for _ in range(count)]
        places = sorted(rng.randint(1, count) for _ in range(count))
        rng.shuffle(places)
        check(OPENSKILL.rate(sides, places), package(sides, places))
        alone = OPENSKILL.rate_alone([side[0] for side in sides], places)
        assert [[pair] for pair in alone] == OPENSKILL.rate(sides, places)


def test_teams_of_one_to_three_with_ties_are_the_packages() -> None:
    """Every shape of side the bot rates (a person, a partnership, a crazier team of three), in matches of 2
    to 7 sides with ties and places that skip, is updated as the package does."""
    rng = random.Random(1)
    for _ in range(300):
        count = rng.randint(2, 7)
        sizes = [rng.choice([1, 2, 3]) for _ in range(count)]
        sides = [[(rng.uniform(5.0, 45.0), rng.uniform(0.5, 9.0)) for _ in range(size)] for size in sizes]
        places = [rng.randint(1, count) for _ in range(count)]
        check(OPENSKILL.rate(sides, places), package(sides, places))
