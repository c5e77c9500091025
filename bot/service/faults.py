"""The service's boundary for database failures: a store error that escapes a use case leaves as the service's
own ``DatabaseFault``, so that the face never needs to know the store (DESIGN.md's layers)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from bot.service.errors import DatabaseFault
from bot.store.base import CommitInDoubtError, DamagedDatabaseError, StoreError, StoreUnavailableError

ServiceClass = TypeVar("ServiceClass", bound=type)


def _translated(method: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Coroutine[Any, Any, Any]]:
    @functools.wraps(method)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except StoreError as error:
            raise DatabaseFault(
                str(error),
                damaged=isinstance(error, DamagedDatabaseError),
                unavailable=isinstance(error, StoreUnavailableError),
                in_doubt=isinstance(error, CommitInDoubtError),
            ) from error

    return call


def store_faults(cls: ServiceClass) -> ServiceClass:
    """Class decorator: every public coroutine method of ``cls`` turns a ``StoreError`` into ``DatabaseFault``
    (errors the use cases handle themselves, such as a lost version race, never reach it)."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(value):
            setattr(cls, name, _translated(value))
    return cls
