"""Exceptions that cross processes whole.

A campaign's tasks may run on Dask workers, and Prefect persists what a task raised: both
pickle the exception. Python's default pickling rebuilds an exception by calling its class
with ``self.args`` alone, which breaks an ``__init__`` with keyword-only or structured
arguments (``APIError(message, *, status=…)``): the other side then fails to unpickle, and
the task's failure is lost in a deserialisation error. A ``PortableError`` is rebuilt from
its ``args`` and attributes instead, without calling ``__init__`` again.
"""

from __future__ import annotations

from typing import Any, ClassVar


class PortableError(Exception):
    local_only: ClassVar[tuple[str, ...]] = ()
    """Attributes that stay in this process (an open HTTP response, say): None elsewhere."""

    def __reduce__(self) -> tuple[Any, ...]:
        state = {
            name: (None if name in self.local_only else value)
            for name, value in self.__dict__.items()
        }
        return (_rebuild, (type(self), self.args), state)


def _rebuild(kind: type[PortableError], args: tuple[Any, ...]) -> PortableError:
    error = kind.__new__(kind)
    error.args = args
    return error
