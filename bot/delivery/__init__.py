"""Everything that leaves for Discord after a move, and how: the part of the bot that never decides the game,
only what to send, when, and within the budget.

- ``publisher``: a table's outcomes turned into board edits, public lines and hand refreshes (the lanes).
- ``feed``: one table's queue of what is still to show; ``board``: the board message (content, picture, view).
- ``hand_session``: the interaction a player's hand message can be edited through.
- ``answers``: answering an interaction (privately, publicly, in place) and the 3 s deferral watchdog.
- ``budget``: the global request budget every REST call passes through.
- ``endpoints``: where the REST API and the gateway are (Discord, a proxy, the fake).
- ``emojis``: the card emojis, uploaded to the application and named in messages.
"""
