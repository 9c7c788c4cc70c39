"""The Bluesky driver's every XRPC call, held to the AT Protocol's published lexicons.

respx plays Bluesky (bsky.social, the PLC directory and a PDS) with answers shaped as
the lexicons say; each request the driver sends, and each answer replayed to it, is then
checked by the protocol's own validator (``@atproto/lexicon``) against the lexicons that
the pinned ``@atproto/api`` ships: the method's NSID exists, GET for a query and POST
for a procedure, the parameters, the JSON body, the post record itself, and the answer.
The tests against the local network (test_open_microblog_bluesky.py) show what the
network does; these show the driver asks it only what the protocol describes, on paths
a local network does not take (a 5xx, an expired session, a rate limit).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers import atproto
from pressroom.service.drivers.atproto import Session
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    Media,
    MetricsUnsupported,
    PlatformRateLimited,
    PlatformRefused,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.open_microblog import BlueskyDriver
from tests.support.atproto import LexiconCheck

SERVICE = "https://bsky.social"
PLC = "https://plc.directory"
PDS = "https://morel.us-east.host.bsky.network"
DID = "did:plc:z72i7hdynmk6r22z27h6tvur"
FRIEND = "did:plc:ewvi7nxzyoun6zhxrhs64oiz"
CID = "bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm"
BLOB_CID = "bafkreibabalobzn6cd366ukcsjycp4yymjymgfxcv6xczmlgpemzkz3cfa"
IMAGE = b"\x89PNG\r\n\x1a\n" + b"\x00" * 56


def _jwt(seconds: int) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    exp = int(datetime.now(UTC).timestamp()) + seconds
    return f"{part({'alg': 'ES256K'})}.{part({'sub': DID, 'exp': exp})}.c2ln"


class Tokens:
    def __init__(self) -> None:
        self.session = Session(PDS, DID, "pressroom.bsky.social", _jwt(7200))

    def access_token(self, connection_id: str) -> str:
        return self.session.dumps()


class Files:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("Bluesky takes uploads, not links")

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        yield IMAGE[start:stop]


@pytest.fixture
def bluesky() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as router:
        yield router


@pytest.fixture
def driver() -> BlueskyDriver:
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    return BlueskyDriver(SERVICE, PLC, Tokens(), http, Files())


def _answer(router: respx.MockRouter, method: str, base: str, nsid: str, **kw: Any) -> None:
    router.route(method=method, url__startswith=f"{base}/xrpc/{nsid}").respond(**kw)


def held_to_lexicons(router: respx.MockRouter, check: LexiconCheck) -> list[str]:
    """Every XRPC call the router saw, checked; the NSIDs called, in order."""
    calls = []
    for call in router.calls:
        request, response = call.request, call.response
        if not request.url.path.startswith("/xrpc/"):
            continue
        nsid = request.url.path.removeprefix("/xrpc/")
        encoding = request.headers.get("content-type", "").split(";")[0] or None
        body = json.loads(request.content) if encoding == "application/json" else None
        output = None
        answered_json = response is not None and response.headers.get(
            "content-type", ""
        ).startswith("application/json")
        if response is not None and response.status_code == 200 and answered_json:
            output = json.loads(response.content)
        calls.append(
            {
                "method": request.method,
                "nsid": nsid,
                "params": dict(request.url.params),
                "encoding": encoding,
                "input": body,
                "output": output,
            }
        )
    verdicts = check(calls)
    refused = [(c["nsid"], v) for c, v in zip(calls, verdicts, strict=True) if v is not None]
    assert refused == [], refused
    return [c["nsid"] for c in calls]


def _delivery(text: str, media: Media | None = None, **fields: object) -> Delivery:
    return Delivery(
        platform=Platform.OPEN_MICROBLOG,
        account=Account("conn_1", "@pressroom.bsky.social"),
        fields={"text": text, **fields},
        media=media,
        reference="post_0123456789abcdef01234567",
        created_at=datetime(2026, 11, 26, 12, 0, 0, 123000, tzinfo=UTC),
    )


def _record_answer(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    uri = f"at://{body['repo']}/{body['collection']}/{body['rkey']}"
    return httpx.Response(200, json={"uri": uri, "cid": CID})


def test_signing_in_resolves_the_handle_and_opens_a_session_at_its_pds(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    _answer(bluesky, "GET", SERVICE, "com.atproto.identity.resolveHandle", json={"did": DID})
    bluesky.get(f"{PLC}/{DID}").respond(
        json={
            "id": DID,
            "alsoKnownAs": ["at://pressroom.bsky.social"],
            "service": [
                {
                    "id": "#atproto_pds",
                    "type": "AtprotoPersonalDataServer",
                    "serviceEndpoint": PDS,
                }
            ],
        }
    )
    _answer(
        bluesky,
        "POST",
        PDS,
        "com.atproto.server.createSession",
        json={
            "accessJwt": _jwt(7200),
            "refreshJwt": _jwt(90 * 86400),
            "handle": "pressroom.bsky.social",
            "did": DID,
        },
    )
    _answer(
        bluesky,
        "GET",
        PDS,
        "com.atproto.repo.getRecord",
        json={
            "uri": f"at://{DID}/app.bsky.actor.profile/self",
            "cid": CID,
            "value": {"$type": "app.bsky.actor.profile", "displayName": "Pressroom"},
        },
    )
    tokens, profile = driver.sign_in("@pressroom.bsky.social", "abcd-efgh-ijkl-mnop")
    assert (profile.name, profile.display_name) == ("@pressroom.bsky.social", "Pressroom")
    assert Session.loads(tokens.access_token).pds == PDS
    assert tokens.expires_at is not None
    assert held_to_lexicons(bluesky, atproto_lexicons) == [
        "com.atproto.identity.resolveHandle",
        "com.atproto.server.createSession",
        "com.atproto.repo.getRecord",
    ]


def test_a_post_with_an_image_mention_link_and_tag_is_what_the_lexicons_accept(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    _answer(bluesky, "GET", PDS, "com.atproto.identity.resolveHandle", json={"did": FRIEND})
    _answer(
        bluesky,
        "POST",
        PDS,
        "com.atproto.repo.uploadBlob",
        json={
            "blob": {
                "$type": "blob",
                "ref": {"$link": BLOB_CID},
                "mimeType": "image/png",
                "size": len(IMAGE),
            }
        },
    )
    bluesky.post(f"{PDS}/xrpc/com.atproto.repo.createRecord").mock(side_effect=_record_answer)
    image = Media("file_1", MediaKind.IMAGE, "image/png", "k", size=len(IMAGE), width=4, height=3)
    published = driver.publish(
        _delivery("Hi @bsky.app, see https://pressroom.example/x #launch", image, altText="A dot")
    )
    assert published.platform_post_id.startswith(f"at://{DID}/app.bsky.feed.post/")
    assert held_to_lexicons(bluesky, atproto_lexicons) == [
        "com.atproto.identity.resolveHandle",
        "com.atproto.repo.uploadBlob",
        "com.atproto.repo.createRecord",
    ]
    upload = bluesky.calls[1].request
    assert upload.headers["content-type"] == "image/png" and upload.content == IMAGE


def test_a_5xx_after_sending_is_settled_by_reading_our_record_key(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    _answer(
        bluesky,
        "POST",
        PDS,
        "com.atproto.repo.createRecord",
        status_code=502,
        json={"error": "UpstreamFailure"},
    )

    def record_at(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        uri = f"at://{params['repo']}/{params['collection']}/{params['rkey']}"
        value = {"$type": "app.bsky.feed.post", "text": "x", "createdAt": "2026-11-26T12:00:00Z"}
        return httpx.Response(200, json={"uri": uri, "cid": CID, "value": value})

    bluesky.get(f"{PDS}/xrpc/com.atproto.repo.getRecord").mock(side_effect=record_at)
    delivery = _delivery("x")
    published = driver.publish(delivery)
    rkey = published.platform_post_id.rsplit("/", 1)[1]
    sent = json.loads(bluesky.calls[0].request.content)
    assert sent["rkey"] == rkey
    assert held_to_lexicons(bluesky, atproto_lexicons) == [
        "com.atproto.repo.createRecord",
        "com.atproto.repo.getRecord",
    ]
    # The look-up of an unknown outcome asks for the same key.
    assert driver.find_delivery(delivery, delivery.created_at or datetime.now(UTC)) == published


def test_the_parts_of_one_post_get_keys_apart_in_time_order() -> None:
    """A thread's parts share one creation time: the hash of each part's reference sets
    the clock id and the microseconds within the millisecond, so keys stay in time order
    by the millisecond and the parts' keys differ in about 20 bits, not 10."""
    moment = datetime(2026, 11, 26, 12, 0, 0, 123000, tzinfo=UTC)
    references = [f"post_1.{index}" for index in range(100)]
    keys = [atproto.tid(moment, reference) for reference in references]
    assert len(set(keys)) == len(keys)
    legacy_keys = {atproto.legacy_tid(moment, reference) for reference in references}
    assert len(legacy_keys) == 92, "with the clock id alone, 8 of these parts shared a key"
    later = atproto.tid(moment.replace(microsecond=124000), "post_1.0")
    assert max(keys) < later, "a later millisecond sorts after every key of this one"
    assert all(len(key) == atproto.TID_LENGTH for key in keys)
    # The key of earlier versions: whole milliseconds, the clock id from the hash alone.
    clock = int.from_bytes(hashlib.sha256(b"post_1.0").digest()[:8], "big") & 1023
    value = (int(moment.timestamp() * 1000) * 1000 << 10) | clock
    legacy = "".join(
        atproto.TID_ALPHABET[(value >> (5 * shift)) & 31] for shift in reversed(range(13))
    )
    assert atproto.legacy_tid(moment, "post_1.0") == legacy != keys[0]


def _record_of_text(text: str, *, legacy_only: bool = False) -> Any:
    """getRecord as the PDS answers it, with a record of ``text`` at every key (or only
    at the key earlier versions gave the record)."""
    delivery = _delivery(text)
    legacy = atproto.legacy_tid(delivery.created_at or datetime.now(UTC), delivery.reference)

    def record_at(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        if legacy_only and params["rkey"] != legacy:
            return httpx.Response(400, json={"error": "RecordNotFound", "message": "no record"})
        uri = f"at://{params['repo']}/{params['collection']}/{params['rkey']}"
        value = {"$type": "app.bsky.feed.post", "text": text, "createdAt": "2026-11-26T12:00:00Z"}
        return httpx.Response(200, json={"uri": uri, "cid": CID, "value": value})

    return record_at


def test_a_record_of_another_text_at_our_key_is_never_taken_for_ours(
    driver: BlueskyDriver, bluesky: respx.MockRouter
) -> None:
    """Two parts that drew one key: the PDS refuses the second record there, and the
    record it holds is the other part's. The refusal stands; nothing is called published."""
    _answer(
        bluesky,
        "POST",
        PDS,
        "com.atproto.repo.createRecord",
        status_code=400,
        json={"error": "InvalidRequest", "message": "Record already exists"},
    )
    bluesky.get(f"{PDS}/xrpc/com.atproto.repo.getRecord").mock(
        side_effect=_record_of_text("b: the other part")
    )
    delivery = _delivery("c: this part")
    with pytest.raises(PlatformRefused, match="Record already exists"):
        driver.publish(delivery)
    assert driver.find_delivery(delivery, datetime.now(UTC)) is None


def test_a_record_sent_under_the_key_of_earlier_versions_is_found_not_sent_again(
    driver: BlueskyDriver, bluesky: respx.MockRouter
) -> None:
    """An outcome left unknown before an upgrade is looked up at the key it was sent
    under, as well as at today's."""
    bluesky.get(f"{PDS}/xrpc/com.atproto.repo.getRecord").mock(
        side_effect=_record_of_text("x", legacy_only=True)
    )
    delivery = _delivery("x")
    found = driver.find_delivery(delivery, datetime.now(UTC))
    assert found is not None
    legacy = atproto.legacy_tid(delivery.created_at or datetime.now(UTC), delivery.reference)
    assert found.platform_post_id.endswith(f"/{legacy}")
    asked = [call.request.url.params["rkey"] for call in bluesky.calls]
    assert asked == [atproto.tid(delivery.created_at, delivery.reference), legacy]


def test_an_expired_session_and_a_rate_limit_are_told_apart(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    bluesky.get(f"{PDS}/xrpc/com.atproto.repo.getRecord").respond(
        400, json={"error": "RecordNotFound", "message": "Could not locate record"}
    )
    route = bluesky.post(f"{PDS}/xrpc/com.atproto.repo.createRecord")
    route.respond(400, json={"error": "ExpiredToken", "message": "Token has expired"})
    with pytest.raises(AccessRevoked):
        driver.publish(_delivery("x"))
    route.respond(
        429,
        headers={"ratelimit-reset": str(int(datetime.now(UTC).timestamp()) + 120)},
        json={"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"},
    )
    with pytest.raises(PlatformRateLimited) as limited:
        driver.publish(_delivery("x"))
    assert 100 <= limited.value.retry_after <= 121
    held_to_lexicons(bluesky, atproto_lexicons)


def test_refresh_and_delete_are_the_protocol_s_calls(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    _answer(
        bluesky,
        "POST",
        PDS,
        "com.atproto.server.refreshSession",
        json={
            "accessJwt": _jwt(7200),
            "refreshJwt": _jwt(90 * 86400),
            "handle": "pressroom.bsky.social",
            "did": DID,
        },
    )
    _answer(bluesky, "POST", PDS, "com.atproto.repo.deleteRecord", json={})
    held = Session(PDS, DID, "pressroom.bsky.social", _jwt(86400))
    renewed = driver.refresh(held.dumps())
    assert renewed.refresh_token is not None
    assert bluesky.calls[0].request.headers["authorization"] == f"Bearer {held.token}"
    driver.delete("conn_1", f"at://{DID}/app.bsky.feed.post/3lbsmoke2222a")
    assert held_to_lexicons(bluesky, atproto_lexicons) == [
        "com.atproto.server.refreshSession",
        "com.atproto.repo.deleteRecord",
    ]


def test_a_reply_with_images_and_a_link_card_are_records_the_lexicons_accept(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    """A thread's later part names its root and parent by strong reference (read from
    the parent's own record), several images go in one images embed each with its alt,
    and a text-only post's first link becomes an external card."""
    root = f"at://{DID}/app.bsky.feed.post/3lbroot22222a"
    parent = f"at://{DID}/app.bsky.feed.post/3lbparent222a"

    def record_at(request: httpx.Request) -> httpx.Response:
        uri = "at://{repo}/{collection}/{rkey}".format(**request.url.params)
        value: dict[str, Any] = {
            "$type": "app.bsky.feed.post",
            "text": "before",
            "createdAt": "2026-11-26T12:00:00.000Z",
        }
        if uri == parent:
            ref = {"uri": root, "cid": CID}
            value["reply"] = {"root": ref, "parent": ref}
        return httpx.Response(200, json={"uri": uri, "cid": CID, "value": value})

    bluesky.get(f"{PDS}/xrpc/com.atproto.repo.getRecord").mock(side_effect=record_at)
    blob = {"$type": "blob", "ref": {"$link": BLOB_CID}, "mimeType": "image/png", "size": 64}
    _answer(bluesky, "POST", PDS, "com.atproto.repo.uploadBlob", json={"blob": blob})
    created = bluesky.post(f"{PDS}/xrpc/com.atproto.repo.createRecord")
    created.mock(side_effect=_record_answer)
    alts = {0: "first", 2: "third"}  # the service puts each file's fileAlts on its Media
    images = tuple(
        Media(
            f"file_{n}",
            MediaKind.IMAGE,
            "image/png",
            "k",
            size=64,
            width=4,
            height=3,
            alt_text=alts.get(n),
        )
        for n in range(3)
    )
    reply = replace(
        _delivery("a reply with pictures"),
        items=images,
        reply_to=parent,
        reference="post_0123456789abcdef01234567.2",
    )
    driver.publish(reply)
    driver.publish(_delivery("read https://pressroom.example/notes today"))
    assert held_to_lexicons(bluesky, atproto_lexicons) == [
        "com.atproto.repo.getRecord",
        "com.atproto.repo.uploadBlob",
        "com.atproto.repo.uploadBlob",
        "com.atproto.repo.uploadBlob",
        "com.atproto.repo.createRecord",
        "com.atproto.repo.createRecord",
    ]
    first, second = (json.loads(call.request.content)["record"] for call in created.calls)
    assert first["reply"] == {
        "root": {"uri": root, "cid": CID},
        "parent": {"uri": parent, "cid": CID},
    }
    assert [image["alt"] for image in first["embed"]["images"]] == ["first", "", "third"]
    assert second["embed"]["external"]["uri"] == "https://pressroom.example/notes"


def test_metrics_are_read_through_the_pds_from_the_appview(
    driver: BlueskyDriver, bluesky: respx.MockRouter, atproto_lexicons: LexiconCheck
) -> None:
    uri = f"at://{DID}/app.bsky.feed.post/3lbsmoke2222a"
    post = {
        "uri": uri,
        "cid": CID,
        "author": {"did": DID, "handle": "pressroom.bsky.social"},
        "record": {"$type": "app.bsky.feed.post", "text": "x", "createdAt": "2026-11-26T12:00:00Z"},
        "indexedAt": "2026-11-26T12:00:01Z",
        "likeCount": 7,
        "repostCount": 2,
        "replyCount": 3,
        "quoteCount": 1,
    }
    _answer(bluesky, "GET", PDS, "app.bsky.feed.getPosts", json={"posts": [post]})
    figures = driver.fetch_metrics(Account("conn_1", "@pressroom.bsky.social"), uri)
    assert (figures.likes, figures.comments, figures.shares, figures.impressions) == (
        7,
        3,
        3,
        None,
    )
    asked = bluesky.calls[0].request
    assert asked.headers["atproto-proxy"] == "did:web:api.bsky.app#bsky_appview"
    assert held_to_lexicons(bluesky, atproto_lexicons) == ["app.bsky.feed.getPosts"]

    _answer(bluesky, "GET", PDS, "app.bsky.feed.getPosts", json={"posts": []})
    with pytest.raises(MetricsUnsupported):
        driver.fetch_metrics(Account("conn_1", "@pressroom.bsky.social"), uri)
