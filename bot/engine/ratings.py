"""Player ratings: OpenSkill's Plackett–Luce model (Weng and Lin 2011), made for free-for-all results with any
number of players and for teams, which fits a card table of 2 to 7 seats and partnerships.

The store calls ``rate`` inside the transaction that records a match result (so a match is rated exactly
once, with the ratings as they are at that moment) and from the migration that rates the matches played
before ratings existed; this module holds the math and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

# (mu, sigma): the store's ``Rating`` is this pair. Nothing of the bot is imported here, so that the store can
# use this module (``bot.store.base.default_rater``) without an import circle.
Pair = tuple[float, float]

# The package's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (the drift added before each match, so a
# rating never freezes); a new player's displayed skill mu − 3·sigma starts at 0.
MODEL = PlackettLuce()


class OpenSkill:
    """The store's ``Rater``: OpenSkill's Plackett–Luce model with its default parameters."""

    @property
    def initial(self) -> Pair:
        return (MODEL.mu, MODEL.sigma)

    def rate(self, sides: Sequence[Sequence[Pair]], places: Sequence[int]) -> list[list[Pair]]:
        """The members' new ratings after a match: ``sides`` holds each side's members' ratings, ``places``
        each side's place (1 = best; ties share a place)."""
        if len(sides) != len(places):
            raise ValueError("one place per side")
        if len(sides) < 2:
            return [[(mu, sigma) for mu, sigma in side] for side in sides]  # nobody to compare with
        teams = [[MODEL.create_rating([mu, sigma]) for mu, sigma in side] for side in sides]
        rated = MODEL.rate(teams, ranks=[float(place) for place in places])
        return [[(member.mu, member.sigma) for member in side] for side in rated]


OPENSKILL = OpenSkill()
