"""The table-service fixtures (the real store of each backend, fake clock, recording listener), shared by
every test module here; they are defined in support.py beside the helpers that use them."""

from tests.service.support import clock, recorder, service, store

__all__ = ["clock", "recorder", "service", "store"]
