"""The bot's features, one package each (python-discord's layout: ``_cog.py`` and friends, ``setup()`` in
the package's ``__init__``): ``tables`` (opening, the lobby, play, house rules, the table's controls),
``standings`` (leaderboard, stats, history) and ``server`` (a server's settings, forgetting a member).

Every command is a subcommand of one ``/eights`` group (``_group.EightsGroup``), which answers the errors of
all of them; each feature's cogs own their commands and hang them on it (``_group.FeatureCog``). The parts
they use (the service, the standings service, the delivery part) are built and handed to them by
``bot.client.EightsBot.setup_hook``.
"""
