"""Hold every request a driver sends in the tests to its network's own description.

A driver test replays what we believe a network does; where the belief is wrong, the
suite is green and the real post fails. So each network has a ``Contract``: the endpoints
it documents, each with its method, host and path, the query and body it accepts (typed
models that forbid unknown fields, or checks built from the network's machine-readable
description), and the scopes it requires. A test module routes its respx mock through
``held_to`` and every request, answered or not, is checked against the contract, so a
misspelt field, a missing scope or an undocumented endpoint fails here and not on the
network. A request no route answers is checked as it is sent (respx never records it)
and, when the contract refuses it, fails with the contract's reason instead of respx's
bare "not mocked"; answered requests are checked when the block ends.

No contract may be derived from our own drivers: each endpoint names the page or the
machine-readable document it was written from (``source``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx
import respx
from respx.models import AllMockedAssertionError, ResolvedRoute

Check = Callable[[httpx.Request], None]
"""Raises AssertionError naming what in the request the network does not accept."""


@dataclass(frozen=True)
class Endpoint:
    """One documented endpoint of a network."""

    method: str
    host: str
    path: str
    """A regular expression matched against the whole path (``[^/]+`` for an id)."""
    source: str
    """The documentation page or machine-readable document this endpoint comes from."""
    check: Check | None = None
    """The checks of query and body; None accepts any (say why where it is used)."""
    scopes: frozenset[str] = frozenset()
    """Scopes the network requires of the token for this endpoint."""
    any_scope: frozenset[str] = frozenset()
    """Scopes of which one suffices (Google lists several per method, any of which
    authorizes it); empty when the endpoint names none."""

    def matches(self, request: httpx.Request) -> bool:
        return (
            request.method == self.method
            and request.url.host == self.host
            and re.fullmatch(self.path, request.url.path) is not None
        )


@dataclass
class Contract:
    network: str
    endpoints: tuple[Endpoint, ...]
    granted: frozenset[str] | None = None
    """Scopes the connection was granted; when set, each endpoint's scopes must be in it."""
    checked: list[httpx.Request] = field(default_factory=list)

    def endpoint_of(self, request: httpx.Request) -> Endpoint:
        found = [e for e in self.endpoints if e.matches(request)]
        assert found, (
            f"{self.network} documents no {request.method} {request.url.host}{request.url.path}"
        )
        return found[0]

    def check(self, request: httpx.Request) -> None:
        endpoint = self.endpoint_of(request)
        if self.granted is not None:
            missing = endpoint.scopes - self.granted
            assert not missing, (
                f"{request.method} {request.url.path} needs the scopes {sorted(missing)}, "
                f"which {self.network} did not grant ({endpoint.source})"
            )
            assert not endpoint.any_scope or endpoint.any_scope & self.granted, (
                f"{request.method} {request.url.path} needs one of the scopes "
                f"{sorted(endpoint.any_scope)}, and {self.network} granted none "
                f"({endpoint.source})"
            )
        if endpoint.check is not None:
            endpoint.check(request)
        self.checked.append(request)


@contextmanager
def held_to(router: respx.MockRouter, contract: Contract) -> Iterator[Contract]:
    """Check every request ``router`` saw against ``contract``: the answered ones when the
    block ends, the unanswered ones as they are sent.

    respx decides "not mocked" in ``router.resolver``, after every route (including those a
    test adds later) has declined, and records nothing; wrapping it is the one place such a
    request can be seen without changing which route answers which. A refusal stays
    respx's ``AllMockedAssertionError``, with the contract's reason for its message, and is
    raised again when the block ends in case the code under test caught it (a CLI runner or
    an app's error page does)."""
    resolver = router.resolver
    refused: list[str] = []

    @contextmanager
    def checking(request: httpx.Request) -> Iterator[ResolvedRoute]:
        try:
            with resolver(request) as resolved:
                yield resolved
        except AllMockedAssertionError as not_mocked:
            try:
                contract.check(request)
            except AssertionError as refusal:
                refused.append(str(refusal))
                raise AllMockedAssertionError(str(refusal)) from not_mocked
            raise

    router.resolver = checking  # type: ignore[method-assign]
    try:
        yield contract
    finally:
        router.resolver = resolver  # type: ignore[method-assign]
    assert not refused, refused[0]
    for call in router.calls:
        contract.check(call.request)


# Readers of a request's parts, for the checks.


def query(request: httpx.Request) -> dict[str, str]:
    """The query as a dict; a parameter given twice is a failure (no network here wants it)."""
    pairs = parse_qsl(request.url.query.decode(), keep_blank_values=True)
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names)), f"a query parameter is repeated: {names}"
    return dict(pairs)


def json_body(request: httpx.Request) -> Any:
    content_type = request.headers.get("content-type", "")
    assert content_type.startswith("application/json"), f"not a JSON body: {content_type!r}"
    return json.loads(request.content)


def form_body(request: httpx.Request) -> dict[str, str]:
    content_type = request.headers.get("content-type", "")
    assert content_type.startswith("application/x-www-form-urlencoded"), (
        f"not a form body: {content_type!r}"
    )
    pairs = parse_qsl(request.content.decode(), keep_blank_values=True)
    return dict(pairs)


def bearer(request: httpx.Request) -> str:
    value = request.headers.get("authorization", "")
    assert value.startswith("Bearer ") and len(value) > len("Bearer "), (
        "no bearer token in Authorization"
    )
    return value.removeprefix("Bearer ")


def calls_read_as(router: respx.MockRouter) -> set[tuple[str, str]]:
    """Each request ``router`` saw as its network reads it, ``(method, host + path)``: a
    POST with ``method=GET`` in its form (Meta's override) is the GET it stands for. A
    test lists the reads it expects, so any other call (a publish) fails it."""
    seen = set()
    for call in router.calls:
        request = call.request
        method = request.method
        if method == "POST" and request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            method = dict(parse_qsl(request.content.decode())).get("method", "POST").upper()
        seen.add((method, f"{request.url.host}{request.url.path}"))
    return seen
