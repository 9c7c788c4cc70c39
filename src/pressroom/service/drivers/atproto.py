"""AT Protocol pieces the Bluesky driver is made of, each one of the protocol's own rules.

- **Record keys** (https://atproto.com/specs/tid): a post's key is a TID, 64 bits (top bit
  0, 53 bits of microseconds since 1970, 10 bits of clock id) written in base32-sortable,
  13 characters. pressroom derives its post's key from the post record (its creation time
  and a hash of its id), so every attempt at one record writes the same key and the PDS
  refuses a second record there: a retry after an unknown outcome cannot post twice.
- **Facets** (https://docs.bsky.app/docs/advanced-guides/post-richtext): links,
  mentions and hashtags are not parsed by Bluesky from the text; the client sends their
  spans as UTF-8 byte offsets. The patterns are those of ``@atproto/api``'s
  ``detectFacets``; a link must start with ``http://`` or ``https://`` (a bare domain
  needs the list of top-level domains, which pressroom does not keep).
- **Sessions**: what pressroom keeps for a connection (its PDS, DID, handle and tokens;
  for an OAuth grant also its DPoP key, token endpoint and client id) travels through
  the token vault as one JSON text, so the vault stays the only place that holds it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import regex

TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
TID_LENGTH = 13
_CLOCK_BITS = 10
_MICROS_BITS = 53


def tid(moment: datetime | None, reference: str) -> str:
    """The record key of the post ``reference`` made at ``moment``: the same for every
    attempt at it. Without a moment the 53 time bits come from the hash too (a valid,
    stable key, though not in time order).

    The parts of a thread share one creation time, so the hash tells them apart: it sets
    the 10-bit clock id and the microseconds within the record's millisecond (which the
    database does not keep anyway), about 20 bits. With the clock id alone two parts of a
    four-part thread shared a key about once in 170 threads, and the PDS, refusing the
    second record there, made it look published already."""
    digest = _digest(reference)
    if moment is None:
        return _tid_of((digest >> _CLOCK_BITS) & ((1 << _MICROS_BITS) - 1), digest)
    return _tid_of(_millis(moment) * 1000 + (digest >> _CLOCK_BITS) % 1000, digest)


def legacy_tid(moment: datetime, reference: str) -> str:
    """The key pressroom gave the same record before :func:`tid` used the microseconds
    (whole milliseconds, the clock id alone): a record sent under it before an upgrade is
    still found by the look-up of an unknown outcome, not sent again."""
    return _tid_of(_millis(moment) * 1000, _digest(reference))


def _digest(reference: str) -> int:
    return int.from_bytes(hashlib.sha256(reference.encode()).digest()[:8], "big")


def _millis(moment: datetime) -> int:
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    # Milliseconds: what every database keeps of the record's time, whole.
    return int(aware.timestamp() * 1000)


def _tid_of(micros: int, digest: int) -> str:
    value = ((micros & ((1 << _MICROS_BITS) - 1)) << _CLOCK_BITS) | (
        digest & ((1 << _CLOCK_BITS) - 1)
    )
    chars = []
    for _ in range(TID_LENGTH):
        chars.append(TID_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


# -- facets ---------------------------------------------------------------------------

_MENTION = regex.compile(r"(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)")
_LINK = regex.compile(r"(^|\s|\()(https?://\S+)", regex.IGNORECASE)
_SPACES = "\u00ad\u2060\u200a\u200b\u200c\u200d\u20e2"
_TAG = regex.compile(
    rf"(^|\s)[#＃]((?!\ufe0f)[^\s{_SPACES}]*[^\d\s\p{{P}}{_SPACES}]+[^\s{_SPACES}]*)?"
)
_TRAILING_PUNCTUATION = regex.compile(r"\p{P}+$")
_HANDLE = regex.compile(
    r"^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$"
)
MAX_TAG_GRAPHEMES = 64


@dataclass(frozen=True)
class Span:
    """A facet before mentions are resolved: ``kind`` is link, mention or tag; ``value``
    the URI, the handle or the tag; offsets in UTF-8 bytes, end exclusive."""

    kind: str
    value: str
    byte_start: int
    byte_end: int


def _bytes_before(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def spans(text: str) -> list[Span]:
    """The links, mentions and hashtags of a post's text, where Bluesky's own app finds them."""
    found: list[Span] = []
    for match in _MENTION.finditer(text):
        handle = match.group(3)
        if not _HANDLE.match(handle):
            continue
        start = match.start(2)
        end = match.end(3)
        found.append(Span("mention", handle, _bytes_before(text, start), _bytes_before(text, end)))
    for match in _LINK.finditer(text):
        uri = match.group(2)
        start, end = match.start(2), match.end(2)
        if uri[-1] in ".,;:!?":
            uri, end = uri[:-1], end - 1
        if uri.endswith(")") and "(" not in uri:
            uri, end = uri[:-1], end - 1
        found.append(Span("link", uri, _bytes_before(text, start), _bytes_before(text, end)))
    for match in _TAG.finditer(text):
        tag = match.group(2)
        if not tag:
            continue
        tag = _TRAILING_PUNCTUATION.sub("", tag.strip())
        if not tag or len(regex.findall(r"\X", tag)) > MAX_TAG_GRAPHEMES:
            continue
        start = match.start() + len(match.group(1))
        end = start + 1 + len(tag)
        found.append(Span("tag", tag, _bytes_before(text, start), _bytes_before(text, end)))
    return found


def facet(span: Span, did: str | None = None) -> dict[str, Any]:
    """The ``app.bsky.richtext.facet`` of a span; a mention needs its handle's DID."""
    if span.kind == "link":
        feature: dict[str, Any] = {"$type": "app.bsky.richtext.facet#link", "uri": span.value}
    elif span.kind == "mention":
        feature = {"$type": "app.bsky.richtext.facet#mention", "did": did}
    else:
        feature = {"$type": "app.bsky.richtext.facet#tag", "tag": span.value}
    return {
        "index": {"byteStart": span.byte_start, "byteEnd": span.byte_end},
        "features": [feature],
    }


# -- sessions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    """A connection's standing with its PDS, as the vault keeps it."""

    pds: str
    did: str
    handle: str
    token: str
    """The access JWT (or, in the refresh half, the refresh JWT)."""
    dpop_key: str | None = None
    """A session connected by OAuth: the private key (a JWK) its tokens are bound to,
    which signs a DPoP proof for every call (``atproto_oauth``); None for an
    app-password session, whose token is a plain bearer token."""
    token_endpoint: str | None = None
    """A session connected by OAuth: where its refresh token is spent."""
    client_id: str | None = None
    """A session connected by OAuth: the client it was granted to (refreshes name it)."""
    issuer: str | None = None
    """A session connected by OAuth: its authorization server (a client assertion's
    audience)."""
    client_kid: str | None = None
    """A session granted to pressroom as a confidential client: the client key that
    authenticates its refreshes."""

    @property
    def by_oauth(self) -> bool:
        return self.dpop_key is not None

    def dumps(self) -> str:
        kept = {name: value for name, value in asdict(self).items() if value is not None}
        return json.dumps(kept, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> Session:
        data = json.loads(text)

        def optional(name: str) -> str | None:
            value = data.get(name)
            return str(value) if value is not None else None

        return cls(
            str(data["pds"]),
            str(data["did"]),
            str(data["handle"]),
            str(data["token"]),
            optional("dpop_key"),
            optional("token_endpoint"),
            optional("client_id"),
            optional("issuer"),
            optional("client_kid"),
        )


def jwt_expiry(token: str) -> datetime | None:
    """When a JWT says it lapses (``exp``), read without checking its signature: the PDS
    checks it; pressroom only needs to know when to refresh."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), UTC)
    except (IndexError, ValueError, KeyError, TypeError):
        return None


def pds_of(did_document: dict[str, Any]) -> str | None:
    """The PDS endpoint a DID document names (its ``#atproto_pds`` service)."""
    for service in did_document.get("service") or []:
        if not isinstance(service, dict):
            continue
        if str(service.get("id", "")).endswith("#atproto_pds") and service.get("type") == (
            "AtprotoPersonalDataServer"
        ):
            endpoint = service.get("serviceEndpoint")
            return str(endpoint).rstrip("/") if isinstance(endpoint, str) else None
    return None


def rkey_of(uri: str) -> str:
    """The record key at the end of an ``at://`` URI."""
    return uri.rsplit("/", 1)[-1]
