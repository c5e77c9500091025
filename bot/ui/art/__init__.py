"""The bot's own pictures, drawn with Pillow: card faces, the card back and the suits (``cards``), the set of
application emojis made from them (``emoji_set``), the board picture (``board``) and a player's rating
over their last matches (``rating``).

Nothing here talks to Discord: these are pure functions from card codes, a public ``TableSnapshot`` or a list
of ratings to PNG bytes. Drawing is deterministic (vector shapes and the font bundled with Pillow itself,
never a system font), so the same input gives the same bytes on every machine with the same Pillow.
"""
