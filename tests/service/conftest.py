"""The table-service fixtures (real SQLite store on a temp file, fake clock, recording listener), shared by
every test module here; they are defined in support.py beside the helpers that use them."""

from tests.service.support import clock, recorder, service, store

__all__ = ["clock", "recorder", "service", "store"]
