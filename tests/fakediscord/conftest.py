from tests.fakediscord.harness import fake_discord, limited_fake_discord  # noqa: F401  (fixtures, for the fake's own tests)
