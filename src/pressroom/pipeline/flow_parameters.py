"""A flow's parameters recorded as they are when they already are JSON.

Prefect records a flow run's parameters through FastAPI's ``jsonable_encoder``, which
it imports on the run's first call: 0.10 s of every ``pressroom campaign run`` (and
``pressroom demo``) went to importing FastAPI, before "Beginning flow run", for a
campaign file's path, an edition and a flag. A value of exactly the JSON types
(``str``, ``int``, ``float``, ``bool``, ``None``, and lists and dicts of them with
string keys; not a subclass such as an Enum member) comes out of that encoder as it
went in, so it is recorded as it is; anything else still goes through Prefect's own
encoding, FastAPI and all.

``Flow.with_options`` builds a new flow, which encodes as Prefect does again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from prefect import Flow

F = TypeVar("F", bound=Flow[Any, Any])

_SCALARS = (str, int, float, bool, type(None))


def is_json(value: object) -> bool:
    """Whether ``value`` is made of JSON types only (``jsonable_encoder`` keeps it)."""
    if type(value) in _SCALARS:  # exactly: an Enum member (a str too) is encoded apart
        return True
    if type(value) is list:
        return all(is_json(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and is_json(item) for key, item in value.items())
    return False


def plain_parameters(flow: F) -> F:
    """``flow``, recording JSON parameters without FastAPI (see the module's docstring)."""
    if flow.ismethod or flow.isclassmethod:
        return flow  # Prefect leaves the bound object out: its own encoding knows how
    encode: Callable[[dict[str, Any]], dict[str, Any]] = flow.serialize_parameters

    def serialize_parameters(parameters: dict[str, Any]) -> dict[str, Any]:
        if all(is_json(value) for value in parameters.values()):
            return dict(parameters)
        return encode(parameters)

    flow.serialize_parameters = serialize_parameters  # type: ignore[method-assign]
    return flow
