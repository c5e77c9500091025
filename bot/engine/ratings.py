"""Player ratings: OpenSkill's Plackett–Luce model (Weng and Lin 2011, Algorithm 4), made for free-for-all
results with any number of players and for teams, which fits a card table of 2 to 7 seats and partnerships.

The store calls ``rate`` inside the transaction that records a match result (so a match is rated exactly
once, with the ratings as they are at that moment) and from the migration that rates the matches played
before ratings existed; this module holds the math and nothing else.

The update is computed here rather than by ``openskill``'s ``PlackettLuce.rate``: that call deep-copies its
input and makes a uuid per rating, and cost more than the rest of recording a match result (bench/store.py).
The parameters are the package's defaults, read from it, and tests/engine/test_ratings.py checks this code
against the package's own results (two players, four with a tie, a partnership).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from openskill.models import PlackettLuce

# (mu, sigma): the store's ``Rating`` is this pair. Nothing of the bot is imported here, so that the store can
# use this module (``bot.store.base.default_rater``) without an import circle.
Pair = tuple[float, float]

# The package's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (the drift added before each match, so a
# rating never freezes), kappa 0.0001 (the floor of a sigma's shrink factor); a new player's displayed skill
# mu − 3·sigma starts at 0.
MODEL = PlackettLuce()


class OpenSkill:
    """The store's ``Rater``: OpenSkill's Plackett–Luce model with its default parameters."""

    def __init__(self, model: PlackettLuce = MODEL) -> None:
        self._initial = (float(model.mu), float(model.sigma))
        self._beta_squared = float(model.beta) ** 2
        self._tau_squared = float(model.tau) ** 2
        self._kappa = float(model.kappa)

    @property
    def initial(self) -> Pair:
        return self._initial

    def rate(self, sides: Sequence[Sequence[Pair]], places: Sequence[int]) -> list[list[Pair]]:
        """The members' new ratings after a match: ``sides`` holds each side's members' ratings, ``places``
        each side's place (1 = best; ties share a place)."""
        if len(sides) != len(places):
            raise ValueError("one place per side")
        if len(sides) < 2:
            return [[(mu, sigma) for mu, sigma in side] for side in sides]  # nobody to compare with
        if all(len(side) == 1 for side in sides):
            return [[pair] for pair in self.rate_alone([side[0] for side in sides], places)]
        tau_squared = self._tau_squared
        # Each member's variance after the drift; a side's skill is its members' sum. (Plain loops: this runs
        # in every match result's transaction.)
        variances = [[sigma * sigma + tau_squared for _, sigma in side] for side in sides]
        side_var = [sum(side) for side in variances]
        c = math.sqrt(sum(side_var) + self._beta_squared * len(sides))
        strength = [math.exp(sum([mu for mu, _ in side]) / c) for side in sides]
        # For each side q: the strengths of the sides not placed ahead of q, and how many share q's place.
        behind: list[float] = []
        shared: list[int] = []
        for place_q in places:
            total, ties = 0.0, 0
            for place_i, strength_i in zip(places, strength, strict=True):
                if place_i >= place_q:
                    total += strength_i
                    if place_i == place_q:
                        ties += 1
            behind.append(total)
            shared.append(ties)
        kappa = self._kappa
        result = []
        for i, side in enumerate(sides):
            omega = delta = 0.0
            place_i = places[i]
            for q, place_q in enumerate(places):
                if place_q <= place_i:
                    share = strength[i] / behind[q]
                    omega += ((1.0 if q == i else 0.0) - share) / shared[q]
                    delta += share * (1.0 - share) / shared[q]
            var = side_var[i]
            omega *= var / c
            delta *= math.sqrt(var) / c * var / (c * c)  # gamma = the side's sigma / c
            # The side's update is split among its members in proportion to their variances.
            result.append(
                [
                    (
                        mu + member_var / var * omega,
                        math.sqrt(member_var) * math.sqrt(max(1.0 - member_var / var * delta, kappa)),
                    )
                    for (mu, _), member_var in zip(side, variances[i], strict=True)
                ]
            )
        return result

    def rate_alone(self, ratings: Sequence[Pair], places: Sequence[int]) -> list[Pair]:
        """``rate`` for sides of one member each (every free-for-all match), one rating a side. The same
        update, summed per place rather than per pair of sides (``rate``'s lists and pairs cost most of a
        match result's rating; bench/store.py's instructions per match): a side's sums run over the places
        at or ahead of its own, so one pass over the places gives every side's."""
        if len(ratings) != len(places):
            raise ValueError("one place per side")
        if len(ratings) < 2:
            return list(ratings)  # nobody to compare with
        sqrt = math.sqrt
        tau_squared = self._tau_squared
        variances = [sigma * sigma + tau_squared for _, sigma in ratings]
        c = sqrt(sum(variances) + self._beta_squared * len(ratings))
        strength = [math.exp(mu / c) for mu, _ in ratings]
        # By place (1 = best): the strength of the sides placed there, then of those there or behind (B);
        # how many sides share it (k).
        last = max(places)
        behind = [0.0] * (last + 1)
        ties = [0] * (last + 1)
        for i, place in enumerate(places):
            behind[place] += strength[i]
            ties[place] += 1
        total = 0.0
        for place in range(last, 0, -1):
            total += behind[place]
            behind[place] = total
        # For a side i at place p, over the sides q placed at or ahead of p: omega = 1/k_i - s_i * sum(1/(Bk))
        # and delta = sum(share * (1 - share) / k), share = s_i / B; a place's k sides add 1/B and 1/B².
        first = [0.0] * (last + 1)
        second = [0.0] * (last + 1)
        one = two = 0.0
        for place in range(1, last + 1):
            if ties[place]:
                one += 1.0 / behind[place]
                two += 1.0 / (behind[place] * behind[place])
            first[place], second[place] = one, two
        kappa = self._kappa
        c_cubed = c * c * c
        result = []
        for i, (mu, _) in enumerate(ratings):
            place, strength_i, var = places[i], strength[i], variances[i]
            omega = (1.0 / ties[place] - strength_i * first[place]) * var / c
            delta = strength_i * (first[place] - strength_i * second[place]) * sqrt(var) * var / c_cubed
            result.append((mu + omega, sqrt(var) * sqrt(max(1.0 - delta, kappa))))
        return result


OPENSKILL = OpenSkill()
