from tests.fakediscord.harness import fake_discord  # noqa: F401  (the fixture, for the fake's own tests)
