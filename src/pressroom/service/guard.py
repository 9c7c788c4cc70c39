"""``RequestGuard``: what the service refuses before any route, parser or hash sees it.

- **Size.** A body over ``PRESSROOM_MAX_BODY_BYTES`` is answered ``413
  request_too_large`` as soon as its ``Content-Length`` says so, or as soon as that many
  bytes have streamed in without one; nothing more is read, so memory stays flat
  whatever a client sends. The presigned upload PUT has its own, larger limit
  (``PRESSROOM_MAX_UPLOAD_BYTES``) and is left alone here.
- **Depth.** JSON nested deeper than ``MAX_JSON_DEPTH`` is a ``400 validation_error``:
  no body of ours nests past 3, and Python's parser (and anything that re-serialises
  the body, such as the Idempotency-Key fingerprint) recurses once per level.
- **Encoding.** A JSON body must be UTF-8 (RFC 8259, section 8.1): bytes that are not
  (``ED A0 80``, an encoded surrogate, or ``FF``), or a NUL byte (UTF-16 and UTF-32 hold
  them), are a ``400 validation_error`` naming the field they are in. Python's parser
  would otherwise guess UTF-16, or let a surrogate through to be shown as U+FFFD.
- **Text that cannot be stored.** A lone UTF-16 surrogate (``"\\ud800"``, which JSON
  allows and no encoding can store) or a NUL character (which PostgreSQL refuses) in any
  string of the body, the query or the path is a ``400 validation_error`` naming the
  field. Accepting it used to publish the post and then break every read of it.
"""

from __future__ import annotations

import email.message
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pressroom import error_codes
from pressroom.service.errors import ServiceError, error_response

MAX_JSON_DEPTH = 32
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""A NUL, or a surrogate code point (only lone ones survive JSON decoding)."""

_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_ESCAPED_BYTE = re.compile("[\udc00-\udcff]")


class ClientGone(Exception):
    """The connection closed before the whole body arrived."""


class RequestGuard:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, exempt_prefixes: tuple[str, ...]):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.exempt_prefixes = exempt_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self.exempt_prefixes):
            await self.app(scope, receive, send)
            return
        try:
            check_path_and_query(scope["path"], scope.get("query_string", b""))
            if scope["method"] in _BODY_METHODS:
                body = await self._read_body(scope, receive)
                if _parsed_as_json(scope):
                    check_utf8(body)
                check_json_body(body)
                receive = _replay(body, receive)
        except ServiceError as refused:
            await error_response(refused)(scope, receive, send)
            return
        except ClientGone:
            return  # nobody is listening, and half a body must never reach a route
        await self.app(scope, receive, send)

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            raise self._too_large()
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # The client went away mid-body. Handing the route what arrived would let
                # a publish claim its Idempotency-Key for half a request.
                raise ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    def _too_large(self) -> ServiceError:
        return ServiceError(
            error_codes.REQUEST_TOO_LARGE,
            f"The request body is over the {self.max_body_bytes} byte limit "
            "(PRESSROOM_MAX_BODY_BYTES); nothing was read past it.",
        )


def check_path_and_query(path: str, query_string: bytes) -> None:
    if UNSTORABLE.search(path):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "The path contains a NUL character, which no id or name can hold.",
        )
    if not query_string:
        return
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if UNSTORABLE.search(name) or UNSTORABLE.search(value):
            raise _unstorable(name)


def check_utf8(body: bytes) -> None:
    """Refuse a JSON body that is not UTF-8, naming the field where the bad bytes are."""
    nul = body.find(b"\x00")
    try:
        body.decode("utf-8")
        undecodable = -1
    except UnicodeDecodeError as exc:
        undecodable = exc.start
    found = [at for at in (nul, undecodable) if at >= 0]
    if not found:
        return
    bad = min(found)
    field = _field_holding_bad_bytes(body)
    raise ServiceError(
        error_codes.VALIDATION_ERROR,
        f"{field or 'The body'} is not UTF-8: byte 0x{body[bad]:02X} at offset {bad} "
        f"{'is a NUL' if bad == nul else 'begins no UTF-8 character'}. A JSON body must be "
        "UTF-8 (RFC 8259); nothing was stored.",
        field=field,
    )


def _field_holding_bad_bytes(body: bytes) -> str | None:
    """The dotted path of the string holding the first undecodable byte, if the body is
    JSON around it (each such byte decodes to a lone surrogate U+DC80-U+DCFF here)."""
    try:
        document = json.loads(body.decode("utf-8", "surrogateescape").replace("\x00", "\udc00"))
    except ValueError:
        return None
    for field, text in strings_in(document):
        if _ESCAPED_BYTE.search(text):
            return _ESCAPED_BYTE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", field)
    return None


def check_json_body(body: bytes) -> None:
    """Refuse too-deep JSON and unstorable strings; anything else is the route's to judge."""
    # No deeper than it has opening brackets (strings' own only add to the count): the
    # usual body has a few, and is not walked (a regular expression over all of it).
    brackets = body.count(b"[") + body.count(b"{")
    if brackets > MAX_JSON_DEPTH and json_depth(body) > MAX_JSON_DEPTH:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep.",
        )
    if not _UNSTORABLE_ESCAPE.search(body):
        return  # the common case: no escape that could decode to an unstorable character
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return  # invalid JSON: the route's parser says so, with its own message
    for field, text in strings_in(document):
        if UNSTORABLE.search(text):
            raise _unstorable(field)


def json_depth(body: bytes) -> int:
    """How deep arrays and objects nest, strings skipped; cheap for any size."""
    if b"[" not in body and b"{" not in body:
        return 0
    depth = deepest = 0
    for bracket in _BRACKET.findall(_JSON_STRING.sub(b"", body)):
        if bracket in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def strings_in(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string of a decoded JSON document, keys included, with its dotted path."""
    if isinstance(value, str):
        yield path or "body", value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield child, key
            yield from strings_in(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_in(item, f"{path}.{index}" if path else str(index))


def repaired(value: Any) -> Any:
    """``value`` with every unstorable character replaced by U+FFFD, for reading back
    records stored before such text was refused."""
    if isinstance(value, str):
        return UNSTORABLE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {repaired(k): repaired(v) for k, v in value.items()}
    if isinstance(value, list):
        return [repaired(item) for item in value]
    return value


def _unstorable(field: str) -> ServiceError:
    shown = UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", field)
    return ServiceError(
        error_codes.VALIDATION_ERROR,
        f"{shown} contains a NUL character or a lone surrogate (such as \\ud800), which "
        "is not text that can be stored; send the characters themselves, or surrogate "
        "pairs that belong together.",
        field=shown,
    )


def _parsed_as_json(scope: Scope) -> bool:
    """Whether FastAPI parses this body as JSON: no Content-Type, ``application/json``
    or ``application/*+json``."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            if value == b"application/json":  # what clients send; parsing it costs more
                return True
            message = email.message.Message()
            message["content-type"] = value.decode("latin-1")
            subtype = message.get_content_subtype()
            return message.get_content_maintype() == "application" and (
                subtype == "json" or subtype.endswith("+json")
            )
    return True


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then listens on."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
