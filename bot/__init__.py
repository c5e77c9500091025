"""Crazy Eights for Discord."""

__version__ = "0.1.0"
