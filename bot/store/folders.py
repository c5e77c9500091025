"""Why a folder cannot hold the files the bot creates (the SQLite database and its lock file, the card art's
cache), in the words every command uses: `check` says it before `run` meets it, and `run`, `migrate` and the
others say the same when creating the folder fails."""

from __future__ import annotations

import os
from pathlib import Path


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be created in ``folder`` (its first part that exists decides: run creates the rest),
    or None when they can."""
    existing = next((p for p in [folder, *folder.parents] if p.exists()), Path("."))
    if not existing.is_dir():
        return f"{existing.resolve()} is not a folder"
    if not os.access(existing, os.W_OK):
        return f"{existing.resolve()} is not writable"
    return None


def creation_failure(folder: Path, error: OSError) -> str:
    """Why creating ``folder`` (or a file in it) failed: what ``folder_problem`` finds ("data is not a
    folder", where the OSError only said "File exists"), else the error's own words."""
    return folder_problem(folder) or error.strerror or str(error)
