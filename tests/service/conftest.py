"""The table-service fixtures (the real store of each backend, fake clock, recording listener), shared by
every test module here; they are defined in support.py beside the helpers that use them."""

from tests.backends import any_store, backend_url, pg_database, pg_url
from tests.service.support import clock, recorder, service, store

__all__ = ["any_store", "backend_url", "clock", "pg_database", "pg_url", "recorder", "service", "store"]
