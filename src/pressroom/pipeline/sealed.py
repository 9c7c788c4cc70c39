"""Values Prefect hands on as they are, without looking inside.

Prefect walks a task run's arguments for futures and states two or three times (when it
is submitted, when its inputs are recorded, when they are resolved), and a flow's
return value once more when the flow ends, into every dataclass, model, dict, list and
tuple. For a planned post and its body that was 0.27 ms of CPU a publish, measured; for
the 200 result rows a fan-out run returns, 0.05-0.07 s of the flow's own thread between
its last post and its end. Nothing in them is ever a future.

Prefect's own ``quote`` and ``opaque`` skip the walk too, but they are tuples, and on
Dask a task's tuple argument arrives as a plain tuple (a worker's publish then failed to
name itself). ``Sealed`` is a plain object: Prefect does not walk into it, and it
pickles by its class's name to a Dask worker.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Sealed(Generic[T]):
    """``value``, handed on by Prefect unexamined."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Sealed({self.value!r})"


def unsealed(value: object) -> object:
    """The value inside a ``Sealed``; anything else as it is."""
    return value.value if isinstance(value, Sealed) else value
