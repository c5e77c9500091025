"""How old_engine_match.json was made (tooling, not a test): a match played by the engine of an earlier
release, for test_replays.py's replays after an upgrade. Run it with that release's engine first on the path
(``git archive`` writes it without touching the working tree), e.g. the release before commit 3a63368:

    mkdir /tmp/old3a && git archive 3a63368^ bot | tar -x -C /tmp/old3a
    cd /tmp && PYTHONPATH=/tmp/old3a /path/to/.venv/bin/python /path/to/make_old_engine_match.py 4 5 \
        > old_engine_match.json

It plays one match per seed in [first, last), three seats, seat 2 dealing, under classic with no reshuffle
and "a draw that cannot be made ends the round", a match of one round: each move is a random legal action,
a draw taken one time in five when one is offered (to run the stock out). It prints a JSON list, one object
per match: its seed, its ruleset as that release stored it, its engine actions in order (and
"start_next_round" between rounds), and its final match state as that release stored it. It imports only
what every release's engine has, so it runs on an earlier one."""

from __future__ import annotations

import json
import random
import sys

from bot.engine import Match, Ruleset


def play(seed: int) -> dict[str, object]:
    ruleset = Ruleset(reshuffle=False, empty_draw_ends_round=True, match_end="one-round", target=None)
    match = Match.new(ruleset, 3, seed=seed, dealer=2)
    rng = random.Random(seed)
    actions: list[dict[str, object]] = []
    while not match.over:
        if match.round_over:
            match.start_next_round()
            actions.append({"kind": "start_next_round"})
            continue
        legal = match.round.legal_actions(match.round.to_act)
        draws = [a for a in legal if a.to_json().get("kind") == "draw"]
        action = draws[0] if draws and rng.random() < 0.2 else rng.choice(legal)
        actions.append(action.to_json())
        match.apply(action)
    return {"seed": seed, "ruleset": ruleset.to_json(), "actions": actions, "final": match.to_json()}


if __name__ == "__main__":
    first, last = int(sys.argv[1]), int(sys.argv[2])
    print(json.dumps([play(seed) for seed in range(first, last)]))
