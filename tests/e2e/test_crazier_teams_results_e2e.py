"""A Crazier Eights team match is recorded and rated by team, as a partnership is: the losing team is
2nd (not 3rd behind two winners) in history and stats, and the sides are rated as teams."""

from __future__ import annotations

from bot.engine.ratings import OpenSkill
from bot.store import ratings
from tests.e2e.conftest import World
from tests.e2e.test_crazier import play_match, start_team_game_of_four
from tests.e2e.test_standings_e2e import store_of


async def test_a_crazier_team_match_rates_its_teams_as_teams(world: World) -> None:
    await start_team_game_of_four(world)
    await play_match(world, typed=set())
    store = store_of(world)
    (match,) = await store.recent_matches(world.guild.id)
    ranking = sorted(match.ranking, key=lambda e: e.position)
    seats = [
        (
            e.position,
            e.place,
            e.user_id,
            e.display_name,
            None if e.user_id else "easy",
            None,
            None,
            None,
            None,
        )
        for e in ranking
    ]
    as_teams = {row[0]: row[3:5] for row in ratings.rate_seats(OpenSkill(), seats, True) if row[0]}
    alone = {row[0]: row[3:5] for row in ratings.rate_seats(OpenSkill(), seats, False) if row[0]}
    stored = {}
    for e in ranking:
        if e.user_id:
            r = await store.player_rating(world.guild.id, e.user_id)
            assert r is not None
            stored[e.user_id] = (round(r.rating.mu, 6), round(r.rating.sigma, 6))
    rounded = lambda d: {k: (round(v[0], 6), round(v[1], 6)) for k, v in d.items()}  # noqa: E731
    assert rounded(as_teams) != rounded(alone)  # the two ways differ for this result
    assert stored == rounded(as_teams), f"stored {stored}; free-for-all would be {rounded(alone)}"


async def test_a_crazier_team_match_records_the_losing_team_second(world: World) -> None:
    """Two teams: the losing team finished 2nd (as partnerships record since migration 0006), not 3rd."""
    await start_team_game_of_four(world)
    await play_match(world, typed=set())
    store = store_of(world)
    (match,) = await store.recent_matches(world.guild.id)
    places = sorted({e.place for e in match.ranking})
    public = "\n".join(world.public_texts())
    final = public[public.find("Final ranking") :][:300]
    history = await world.run(world.bob, "history")
    value = history.embeds[0]["fields"][0]["value"]
    losers = [e for e in match.ranking if e.place != 1 and e.user_id]
    stats = await world.run(world.bob, "stats", member=world.fake.users[losers[0].user_id])
    best = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}["Best finish"]
    assert places == [1, 2], (
        f"recorded places {places}; history: {value!r}; Best finish: {best}; final lines: {final}"
    )
