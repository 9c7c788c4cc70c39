"""The short_video driver against TikTok's documented Content Posting API (respx replays it;
every request of every test is held to TikTok's contract, typed models written from these
pages: ``tests/drivers/contracts/tiktok.py``).

Pages read 2026-11-25:

- Token management: https://developers.tiktok.com/doc/oauth-user-access-token-management
- Login Kit for Web: https://developers.tiktok.com/doc/login-kit-web
- User info: https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info
- Query creator info: https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
- Direct post: https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
- Media transfer (chunk rules): https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide
- Post status: https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status
- Video list: https://developers.tiktok.com/doc/tiktok-api-v2-video-list
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers import short_video
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MetricsDriver,
    MetricsUnsupported,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import ScopeState, Standing
from pressroom.service.drivers.short_video import MIN_CHUNK, TikTokDriver, chunk_plan
from tests.drivers.contract import Contract, calls_read_as, held_to
from tests.drivers.contracts import tiktok as tiktok_contract

API = "https://open.tiktokapis.com/v2"
CALLBACK = "https://press.example/oauth/callback/short_video"
UPLOAD_URL = "https://open-upload.tiktokapis.com/video/?upload_id=67890&upload_token=Xza123"
MB = 1024 * 1024
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def ok(data: dict[str, object]) -> dict[str, object]:
    return {"data": data, "error": {"code": "ok", "message": "", "log_id": "202611251200"}}


def failed(code: str, message: str = "") -> dict[str, object]:
    return {"error": {"code": code, "message": message, "log_id": "202611251200"}}


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "act.token"


class Stored:
    def __init__(self, size: int) -> None:
        self.data = bytes(i % 251 for i in range(size))
        self.reads: list[tuple[int, int]] = []

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        self.reads.append((start, stop))
        yield self.data[start:stop]

    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("the driver uploads; it hands TikTok no link")


@pytest.fixture
def tiktok() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_mocked=True, assert_all_called=True) as router:
        yield router


def consented() -> frozenset[str]:
    """The scopes the driver asks for on TikTok's consent page (comma-separated)."""
    driver, _, _ = make(1)
    url = driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split(","))


@pytest.fixture(autouse=True)
def held(tiktok: respx.MockRouter) -> Iterator[Contract]:
    """Every request of every test here is held to TikTok's contract, with the scopes
    the driver asks for at consent as what the account granted."""
    with held_to(tiktok, tiktok_contract.contract(consented())) as contract:
        yield contract


def make(size: int, **options: object) -> tuple[TikTokDriver, Stored, list[float]]:
    stored, slept = Stored(size), []
    http = NetworkClient(Platform.SHORT_VIDEO, timeout_seconds=5, backoff_seconds=0)
    driver = TikTokDriver(
        "awkey123",
        "tiktok-secret",
        Tokens(),
        http,
        stored,
        sleep=slept.append,
        poll_seconds=0.01,
        **options,  # type: ignore[arg-type]
    )
    return driver, stored, slept


def delivery(
    size: int, caption: str | None = "Behind the scenes #launch", **choices: object
) -> Delivery:
    """A post of ``size`` bytes; ``choices`` are the owner's (``privacyLevel`` SELF_ONLY
    unless given, ``allowComments`` ...), named as in the publish body."""
    fields: dict[str, object] = {"privacyLevel": "SELF_ONLY", **choices}
    if caption:
        fields["caption"] = caption
    return Delivery(
        platform=Platform.SHORT_VIDEO,
        account=Account("conn_1", "pressroomhq"),
        fields={k: v for k, v in fields.items() if v is not None},
        media=Media("file_1", MediaKind.VIDEO, "video/mp4", "files/file_1", 12.0, size),
        reference="post_1",
    )


CREATOR = {
    "creator_avatar_url": "https://p16.tiktokcdn.com/a.jpg",
    "creator_username": "pressroomhq",
    "creator_nickname": "Pressroom HQ",
    "privacy_level_options": ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
    "comment_disabled": False,
    "duet_disabled": False,
    "stitch_disabled": True,
    "max_video_post_duration_sec": 600,
}
"""creator_info's answer, as the Query Creator Info page shows it."""


def test_chunks_follow_tiktoks_rules() -> None:
    assert chunk_plan(3 * MB) == [(0, 3 * MB)]  # under 5 MB: one piece
    assert chunk_plan(7 * MB) == [(0, 7 * MB)]
    plan = chunk_plan(25 * MB + 123)
    assert plan == [(0, 10 * MB), (10 * MB, 25 * MB + 123)]  # the last takes the rest
    for size in (5 * MB, 64 * MB, 64 * MB + 1, 999 * MB + 7):
        chunks = chunk_plan(size)
        assert chunks[0][0] == 0 and chunks[-1][1] == size
        assert all(a[1] == b[0] for a, b in itertools.pairwise(chunks))
        sizes = [stop - start for start, stop in chunks]
        assert all(MIN_CHUNK <= s <= 64 * MB for s in sizes[:-1])
        assert MIN_CHUNK <= sizes[-1] <= 128 * MB
        assert len(chunks) == size // sizes[0] <= 1000


def test_the_consent_url_and_the_token_calls(tiktok: respx.MockRouter) -> None:
    driver, _, _ = make(1)
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://www.tiktok.com/v2/auth/authorize/"
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "client_key": "awkey123",
        "scope": "user.info.basic,video.publish,video.list",
        "response_type": "code",
        "redirect_uri": CALLBACK,
        "state": "st",
    }
    route = tiktok.post(f"{API}/oauth/token/")
    route.side_effect = [
        httpx.Response(
            200,
            json={
                "access_token": "act.new",
                "expires_in": 86400,
                "open_id": "afd97af1-b87b-48b9-ac98-410aghda5344",
                "refresh_expires_in": 31536000,
                "refresh_token": "rft.new",
                "scope": "user.info.basic,video.publish,video.list",
                "token_type": "Bearer",
            },
        ),
        httpx.Response(
            200,
            json={
                "error": "invalid_grant",
                "error_description": "Refresh token is invalid or expired.",
                "log_id": "x",
            },
        ),
    ]
    tokens = driver.exchange_code(code="c0de", redirect_uri=CALLBACK, code_verifier="v")
    assert (tokens.access_token, tokens.refresh_token) == ("act.new", "rft.new")
    with pytest.raises(TokenRefused, match="invalid_grant"):
        driver.refresh("rft.old")
    first = {k: v[0] for k, v in parse_qs(route.calls[0].request.content.decode()).items()}
    assert first == {
        "client_key": "awkey123",
        "client_secret": "tiktok-secret",
        "code": "c0de",
        "grant_type": "authorization_code",
        "redirect_uri": CALLBACK,
    }


def test_the_profile_is_the_creators_handle_without_user_info_profile(
    tiktok: respx.MockRouter,
) -> None:
    """``/v2/user/info/`` answers ``username`` only with ``user.info.profile``, a scope
    pressroom does not ask for (TikTok's answer without it is a 401
    ``scope_not_authorized``, and Connect failed): the handle comes from creator_info."""
    driver, _, _ = make(1)
    route = tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        200, json=ok(CREATOR | {"privacy_level_options": ["SELF_ONLY"]})
    )
    profile = driver.fetch_profile(TokenSet("act", None, None))
    assert (profile.name, profile.display_name) == ("pressroomhq", "Pressroom HQ")
    assert route.calls.last.request.headers["Authorization"] == "Bearer act"


def direct_post(tiktok: respx.MockRouter, privacy: list[str]) -> tuple[respx.Route, respx.Route]:
    creator = tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        200, json=ok(CREATOR | {"privacy_level_options": privacy})
    )
    init = tiktok.post(f"{API}/post/publish/video/init/").respond(
        200, json=ok({"publish_id": "v_pub_file~v2-1.123456789", "upload_url": UPLOAD_URL})
    )
    return creator, init


def test_a_video_is_posted_in_chunks_and_awaited_until_published(tiktok: respx.MockRouter) -> None:
    size = 25 * MB + 123
    driver, stored, slept = make(size)
    creator, init = direct_post(tiktok, CREATOR["privacy_level_options"])
    put = tiktok.put(UPLOAD_URL)
    put.side_effect = [httpx.Response(206), httpx.Response(201)]
    status = tiktok.post(f"{API}/post/publish/status/fetch/")
    status.side_effect = [
        httpx.Response(200, json=ok({"status": "PROCESSING_UPLOAD", "uploaded_bytes": size})),
        httpx.Response(200, json=ok({"status": "PROCESSING_DOWNLOAD"})),
        httpx.Response(
            200,
            json=ok(
                {"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": [7312345678901234567]}
            ),
        ),
    ]
    published = driver.publish(
        delivery(size, privacyLevel="MUTUAL_FOLLOW_FRIENDS", allowComments=True)
    )
    assert published.platform_post_id == "7312345678901234567"
    assert published.extra["privacyLevel"] == "MUTUAL_FOLLOW_FRIENDS"
    assert published.url == "https://www.tiktok.com/@pressroomhq/video/7312345678901234567"
    assert creator.calls.last.request.headers["Authorization"] == "Bearer act.token"
    assert json.loads(init.calls.last.request.content) == {
        "post_info": {
            "privacy_level": "MUTUAL_FOLLOW_FRIENDS",
            "title": "Behind the scenes #launch",
            "disable_comment": False,  # the owner turned comments on
            "disable_duet": True,  # Duets and Stitches stay off, as TikTok's rules say
            "disable_stitch": True,
            "brand_content_toggle": False,
        },
        "source_info": {
            "source": "FILE_UPLOAD",
            "video_size": size,
            "chunk_size": 10 * MB,
            "total_chunk_count": 2,
        },
    }
    ranges = [
        (c.request.headers["Content-Range"], c.request.headers["Content-Type"]) for c in put.calls
    ]
    assert ranges == [
        (f"bytes 0-{10 * MB - 1}/{size}", "video/mp4"),
        (f"bytes {10 * MB}-{size - 1}/{size}", "video/mp4"),
    ]
    assert b"".join(c.request.content for c in put.calls) == stored.data
    assert max(stop - start for start, stop in stored.reads) < size  # never whole in memory
    assert [json.loads(c.request.content) for c in status.calls] == [
        {"publish_id": "v_pub_file~v2-1.123456789"}
    ] * 3
    assert len(slept) == 2


def test_a_video_under_5_mb_goes_in_one_piece(tiktok: respx.MockRouter) -> None:
    driver, _, _ = make(MB)
    _, init = direct_post(tiktok, ["FOLLOWER_OF_CREATOR", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"])
    tiktok.put(UPLOAD_URL).respond(201)
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": [1]})
    )
    driver.publish(delivery(MB, caption=None, privacyLevel="FOLLOWER_OF_CREATOR"))
    sent = json.loads(init.calls.last.request.content)
    assert sent["post_info"]["privacy_level"] == "FOLLOWER_OF_CREATOR"
    assert "title" not in sent["post_info"]
    assert sent["source_info"]["chunk_size"] == MB and sent["source_info"]["total_chunk_count"] == 1


@pytest.mark.parametrize(
    ("chosen", "said"),
    [(None, "needs privacyLevel"), ("FOLLOWER_OF_CREATOR", "does not offer FOLLOWER_OF_CREATOR")],
)
def test_the_privacy_level_is_the_owners_choice_never_the_drivers(
    tiktok: respx.MockRouter, chosen: str | None, said: str
) -> None:
    """TikTok: "Users must manually select the privacy status ... there should be no
    default value" (content sharing guidelines), among the account's options. The driver
    picked PUBLIC_TO_EVERYONE itself; now a post without the owner's choice, or with one
    the account does not offer, is refused before anything is sent."""
    driver, _, _ = make(MB)
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    with pytest.raises(PlatformRefused, match=said) as caught:
        driver.publish(delivery(MB, privacyLevel=chosen))
    assert caught.value.field == "privacyLevel"
    assert "PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY" in str(caught.value)


def test_an_interaction_the_accounts_settings_turn_off_cannot_be_allowed(
    tiktok: respx.MockRouter,
) -> None:
    """creator_info says the account's Stitch setting is "No one": TikTok's rules grey
    the choice out, so a post asking for Stitches is refused naming allowStitch."""
    driver, _, _ = make(MB)
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    with pytest.raises(PlatformRefused, match="Stitches") as caught:
        driver.publish(delivery(MB, allowComments=True, allowStitch=True))
    assert caught.value.field == "allowStitch"


def test_a_video_longer_than_the_creator_may_post_is_refused_before_its_bytes(
    tiktok: respx.MockRouter,
) -> None:
    """creator_info's max_video_post_duration_sec is each creator's own limit ("Developers
    should use this field to stop video posts that are too long"): the 12 s video goes
    to no account allowed 10 s, and nothing is initialised or uploaded."""
    driver, _, _ = make(MB)
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        200, json=ok(CREATOR | {"max_video_post_duration_sec": 10})
    )
    with pytest.raises(PlatformRefused, match="max_video_post_duration_sec") as caught:
        driver.publish(delivery(MB))
    assert caught.value.field == "fileId"
    assert "at most 10 s" in str(caught.value) and "lasts 12 s" in str(caught.value)


def test_a_video_tiktok_fails_is_refused_with_its_reason(tiktok: respx.MockRouter) -> None:
    driver, _, _ = make(MB)
    direct_post(tiktok, ["SELF_ONLY"])
    tiktok.put(UPLOAD_URL).respond(201)
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "FAILED", "fail_reason": "duration_check"})
    )
    with pytest.raises(PlatformRefused, match="duration_check") as caught:
        driver.publish(delivery(MB))
    assert caught.value.field == "fileId"


def test_a_video_still_processing_after_the_wait_is_an_unknown_outcome(
    tiktok: respx.MockRouter,
) -> None:
    driver, _, _ = make(MB, publish_wait_seconds=0.05)
    direct_post(tiktok, ["SELF_ONLY"])
    tiktok.put(UPLOAD_URL).respond(201)
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "PROCESSING_DOWNLOAD"})
    )
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery(MB))
    assert caught.value.sent is True
    assert caught.value.reference == "v_pub_file~v2-1.123456789"  # what the look-up asks for


def test_a_last_chunk_without_an_answer_keeps_the_publish_id(tiktok: respx.MockRouter) -> None:
    driver, _, _ = make(MB)
    direct_post(tiktok, ["SELF_ONLY"])
    tiktok.put(UPLOAD_URL).mock(side_effect=httpx.ReadTimeout("no answer"))
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery(MB))
    assert (caught.value.sent, caught.value.reference) == (True, "v_pub_file~v2-1.123456789")


def test_a_post_with_no_public_id_keeps_the_publish_id_and_links_the_profile(
    tiktok: respx.MockRouter,
) -> None:
    """Get Post Status: "post_id is returned only if the post is published for public
    viewership and has been approved by the TikTok moderation process". A private post
    (or one still in moderation) took the publish_id as its id and a /video/{publish_id}
    URL that leads nowhere; the publish_id stays the reference and the URL is the
    account's profile, and the answer says there is no public id yet."""
    driver, _, _ = make(MB)
    direct_post(tiktok, ["SELF_ONLY"])
    tiktok.put(UPLOAD_URL).respond(201)
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": []})
    )
    published = driver.publish(delivery(MB))
    assert published.platform_post_id == "v_pub_file~v2-1.123456789"
    assert published.url == "https://www.tiktok.com/@pressroomhq"
    assert published.extra == {
        "publishId": "v_pub_file~v2-1.123456789",
        "publiclyAvailable": False,
        "privacyLevel": "SELF_ONLY",
    }


@pytest.mark.parametrize(
    ("status", "code", "raised"),
    [
        (429, "rate_limit_exceeded", PlatformRateLimited),
        (200, "spam_risk_too_many_posts", PlatformRateLimited),  # creator_info: 200 on purpose
        (401, "access_token_invalid", AccessRevoked),
        (401, "scope_not_authorized", AccessRevoked),  # TikTok's status for it is 401
        (200, "reached_active_user_cap", PlatformRefused),
        (400, "invalid_params", PlatformRefused),
        (500, "internal_error", PlatformUnavailable),
    ],
)
def test_tiktoks_error_codes_become_the_services_failures(
    tiktok: respx.MockRouter, status: int, code: str, raised: type[Exception]
) -> None:
    driver, _, _ = make(MB)
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        status, json=failed(code, "refused")
    )
    with pytest.raises(raised) as caught:
        driver.publish(delivery(MB))
    if type(caught.value) is PlatformUnavailable:
        assert caught.value.sent is False  # nothing was uploaded yet


UNAUDITED = (
    "Unaudited clients can only post to a private account. The publish attempt will be "
    "blocked when calling /publish/video/init/."
)


@pytest.mark.parametrize(
    ("code", "raised", "field"),
    [
        ("unaudited_client_can_only_post_to_private_accounts", PlatformRefused, "privacyLevel"),
        ("privacy_level_option_mismatch", PlatformRefused, "privacyLevel"),
        ("reached_active_user_cap", PlatformRefused, None),
        ("url_ownership_unverified", PlatformRefused, None),
        ("spam_risk_user_banned_from_posting", PlatformRefused, None),
        ("spam_risk_too_many_posts", PlatformRateLimited, None),
    ],
)
def test_what_init_refuses_is_final_or_a_daily_cap_as_tiktoks_table_says(
    tiktok: respx.MockRouter, code: str, raised: type[Exception], field: str | None
) -> None:
    """The direct-post reference's 403s: refusals for good (an unaudited app posting to
    a public account, a level not offered, the app's daily user cap, a ban), which were
    a retryable PlatformUnavailable; the account's daily cap is a rate limit with a
    long wait, and a ban no longer turns the connection inactive."""
    driver, _, _ = make(MB)
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    tiktok.post(f"{API}/post/publish/video/init/").respond(403, json=failed(code, UNAUDITED))
    with pytest.raises(raised) as caught:
        driver.publish(delivery(MB))
    assert type(caught.value) is raised
    assert UNAUDITED in str(caught.value)  # TikTok's own words
    if isinstance(caught.value, PlatformRefused):
        assert caught.value.field == field
    else:
        assert isinstance(caught.value, PlatformRateLimited)
        assert caught.value.retry_after >= 3600


@pytest.mark.parametrize(
    ("reason", "raised", "field"),
    [
        ("internal", PlatformUnavailable, None),
        ("duration_check_failed", PlatformRefused, "fileId"),
        ("spam_risk_text", PlatformRefused, "caption"),
        ("spam_risk", PlatformRefused, None),
        ("auth_removed", AccessRevoked, None),
        ("spam_risk_too_many_posts", PlatformRateLimited, None),
    ],
)
def test_a_failed_post_is_what_its_fail_reason_says(
    tiktok: respx.MockRouter, reason: str, raised: type[Exception], field: str | None
) -> None:
    """Get Post Status, fail_reason table: ``internal`` "is a retryable error" (nothing
    was published, so a resend is safe), the checks are refusals of the file or the
    caption, ``auth_removed`` a grant the creator took back."""
    driver, _, _ = make(MB)
    direct_post(tiktok, ["SELF_ONLY"])
    tiktok.put(UPLOAD_URL).respond(201)
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "FAILED", "fail_reason": reason})
    )
    with pytest.raises(raised) as caught:
        driver.publish(delivery(MB))
    assert type(caught.value) is raised
    if isinstance(caught.value, PlatformRefused):
        assert caught.value.field == field
    if type(caught.value) is PlatformUnavailable:
        assert caught.value.sent is False


def test_an_unknown_outcome_is_asked_of_tiktok_by_its_publish_id(
    tiktok: respx.MockRouter,
) -> None:
    """The look-up read /v2/video/list/, which lists public videos only, with titles cut
    at 150 characters: a private post or a long caption was never found. TikTok answers
    for the publish_id it gave."""
    driver, _, _ = make(MB)
    route = tiktok.post(f"{API}/post/publish/status/fetch/")
    route.side_effect = [
        httpx.Response(200, json=ok({"status": "PROCESSING_UPLOAD"})),
        httpx.Response(
            200, json=ok({"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": []})
        ),
        httpx.Response(200, json=ok({"status": "FAILED", "fail_reason": "internal"})),
        httpx.Response(400, json=failed("invalid_publish_id", "The publish_id does not exist")),
    ]
    attempt = replace(delivery(MB, caption="x" * 300), platform_reference="v_pub_file~v2-1.9")
    with pytest.raises(PlatformUnavailable):  # still processing: TikTok cannot say yet
        driver.find_delivery(attempt, SENT_AT)
    found = driver.find_delivery(attempt, SENT_AT)
    assert found is not None
    assert (found.platform_post_id, found.url) == (
        "v_pub_file~v2-1.9",
        "https://www.tiktok.com/@pressroomhq",
    )
    assert driver.find_delivery(attempt, SENT_AT) is None  # TikTok failed it: not published
    with pytest.raises(LookupUnsupported, match="does not exist"):
        driver.find_delivery(attempt, SENT_AT)
    assert [json.loads(c.request.content) for c in route.calls] == [
        {"publish_id": "v_pub_file~v2-1.9"}
    ] * 4
    with pytest.raises(LookupUnsupported, match="publish_id"):  # an attempt without one
        driver.find_delivery(delivery(MB), SENT_AT)


def test_the_contract_catches_a_wrong_request() -> None:
    """The contract is not a rubber stamp: a user/info field the consent gave no scope
    for, a misspelt or missing init field, or an endpoint TikTok does not document."""
    held = tiktok_contract.contract(consented())
    headers = {"Authorization": "Bearer act", "Content-Type": "application/json; charset=UTF-8"}
    profile = httpx.Request(
        "GET", f"{API}/user/info/?fields=open_id,username", headers={"Authorization": "Bearer a"}
    )
    with pytest.raises(AssertionError, match=r"user\.info\.profile"):
        held.check(profile)
    source = {"source": "FILE_UPLOAD", "video_size": MB, "chunk_size": MB, "total_chunk_count": 1}
    for post_info in (
        {"brand_content_toggle": False},  # no privacy_level
        {"privacy_level": "EVERYONE", "brand_content_toggle": False},
        {"privacy_level": "SELF_ONLY", "brand_content_toggle": False, "disable_comments": True},
    ):
        init = httpx.Request(
            "POST",
            f"{API}/post/publish/video/init/",
            headers=headers,
            json={"post_info": post_info, "source_info": source},
        )
        with pytest.raises(ValueError):  # pydantic's ValidationError
            held.check(init)
    with pytest.raises(AssertionError, match="documents no"):
        held.check(httpx.Request("POST", f"{API}/post/publish/inbox/video/init/", headers=headers))


# --- drivers check: what TikTok says, read without posting -----------------------------


def test_inspect_reads_the_creator_and_says_the_audit_cannot_be_read(
    tiktok: respx.MockRouter,
) -> None:
    creator = tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        200, json=ok({**CREATOR, "duet_disabled": True, "max_video_post_duration_sec": 300})
    )
    user = tiktok.get(f"{API}/user/info/").respond(
        200, json=ok({"user": {"open_id": "723f24d7", "display_name": "Pressroom HQ"}})
    )
    driver, _, _ = make(1)

    report = driver.inspect(Account("conn_1", "pressroomhq"))

    assert calls_read_as(tiktok) == {
        ("POST", "open.tiktokapis.com/v2/post/publish/creator_info/query/"),
        ("GET", "open.tiktokapis.com/v2/user/info/"),
    }
    assert creator.called and user.calls.last.request.url.params["fields"] == "open_id,display_name"
    assert report.scopes == {
        "user.info.basic": ScopeState.GRANTED,
        "video.publish": ScopeState.GRANTED,
        "video.list": ScopeState.UNKNOWN,  # asked for the metrics; no inspect read shows it
    }
    assert (report.account, report.account_type) == ("pressroomhq", "public")
    lines = {f.topic: f for f in report.findings}
    assert "PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY" in lines["account type"].meaning
    assert (lines["interactions"].says, lines["interactions"].standing) == (
        "turned off by the account: Duets, Stitches",
        Standing.WARNING,
    )
    assert lines["longest video"].says == "300 s (max_video_post_duration_sec)"
    audit = lines["audit"]
    assert audit.standing is Standing.UNKNOWN and "no API says" in audit.says
    assert "SELF_ONLY" in audit.meaning and "unaudited_client_can_only_post" in audit.meaning
    assert "this account is public" in audit.meaning
    assert report.audit == "not readable: TikTok has no API for an app's audit"


def test_inspect_sees_video_publish_missing_when_only_creator_info_is_refused(
    tiktok: respx.MockRouter,
) -> None:
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        401, json=failed("scope_not_authorized", "The user did not authorize the scope")
    )
    tiktok.get(f"{API}/user/info/").respond(
        200, json=ok({"user": {"open_id": "723f24d7", "display_name": "Pressroom HQ"}})
    )
    driver, _, _ = make(1)

    report = driver.inspect(Account("conn_1", "pressroomhq"))

    assert report.scopes["video.publish"] is ScopeState.MISSING
    assert report.missing == ("video.publish",)
    assert report.can_publish is False


# --- format: photo ------------------------------------------------------------------

PHOTO_LINK = "https://press.example/storage/files/{}?expires=1&signature=s"


class Links(Stored):
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        return PHOTO_LINK.format(file_id)


@pytest.fixture
def photo_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule table's rows for a photo post (which files, how many) are the table's,
    not this driver's, and the shared pre-send check does not read ``format`` yet: here
    it is set aside so these tests hold the driver's requests alone."""
    monkeypatch.setattr(short_video, "check_before_sending", lambda delivery: None)


def photo_driver() -> TikTokDriver:
    http = NetworkClient(Platform.SHORT_VIDEO, timeout_seconds=5, backoff_seconds=0)
    return TikTokDriver("awkey123", "tiktok-secret", Tokens(), http, Links(0), sleep=lambda _: None)


def photos(count: int = 2, **choices: object) -> Delivery:
    images = tuple(
        Media(f"file_{n}", MediaKind.IMAGE, "image/jpeg", f"files/file_{n}", None, 1000)
        for n in range(1, count + 1)
    )
    base = delivery(1, **choices)
    return replace(
        base,
        fields={**base.fields, "format": "photo"},
        media=images[0] if count == 1 else None,
        items=images if count > 1 else (),
    )


def photo_init(tiktok: respx.MockRouter, answer: httpx.Response) -> respx.Route:
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    init = tiktok.post(f"{API}/post/publish/content/init/")
    init.side_effect = [answer]
    return init


def test_a_photo_post_is_pulled_from_links_and_awaited_until_published(
    tiktok: respx.MockRouter,
    photo_rules: None,
) -> None:
    init = photo_init(tiktok, httpx.Response(200, json=ok({"publish_id": "p_pub_url~v2.1"})))
    status = tiktok.post(f"{API}/post/publish/status/fetch/")
    status.side_effect = [
        httpx.Response(200, json=ok({"status": "PROCESSING_DOWNLOAD"})),
        httpx.Response(
            200,
            json=ok(
                {"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": [7312345678901234599]}
            ),
        ),
    ]
    published = photo_driver().publish(
        photos(privacyLevel="PUBLIC_TO_EVERYONE", allowComments=True)
    )
    assert json.loads(init.calls.last.request.content) == {
        "media_type": "PHOTO",
        "post_mode": "DIRECT_POST",
        "post_info": {
            "privacy_level": "PUBLIC_TO_EVERYONE",
            "disable_comment": False,
            "brand_content_toggle": False,
            "description": "Behind the scenes #launch",
        },
        "source_info": {
            "source": "PULL_FROM_URL",
            "photo_images": [PHOTO_LINK.format("file_1"), PHOTO_LINK.format("file_2")],
            "photo_cover_index": 0,
        },
    }
    assert [json.loads(c.request.content) for c in status.calls] == [
        {"publish_id": "p_pub_url~v2.1"}
    ] * 2
    assert published.platform_post_id == "7312345678901234599"
    assert published.url == "https://www.tiktok.com/@pressroomhq/video/7312345678901234599"


def test_a_single_photo_post_takes_the_one_file(
    tiktok: respx.MockRouter, photo_rules: None
) -> None:
    init = photo_init(tiktok, httpx.Response(200, json=ok({"publish_id": "p_pub_url~v2.2"})))
    tiktok.post(f"{API}/post/publish/status/fetch/").respond(
        200, json=ok({"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": []})
    )
    published = photo_driver().publish(photos(1))
    sent = json.loads(init.calls.last.request.content)["source_info"]["photo_images"]
    assert sent == [PHOTO_LINK.format("file_1")]
    assert published.platform_post_id == "p_pub_url~v2.2"  # private: the publish_id


def test_a_photo_post_from_an_unverified_domain_is_the_operators_setting(
    tiktok: respx.MockRouter,
    photo_rules: None,
) -> None:
    from pressroom.service.drivers.base import NetworkMisconfigured

    photo_init(
        tiktok,
        httpx.Response(403, json=failed("url_ownership_unverified", "Please verify the URL")),
    )
    with pytest.raises(NetworkMisconfigured, match="verify the domain"):
        photo_driver().publish(photos())


def test_a_photo_post_allowing_duets_is_refused_before_anything_is_sent(
    tiktok: respx.MockRouter,
    photo_rules: None,
) -> None:
    with pytest.raises(PlatformRefused) as refused:
        photo_driver().publish(photos(allowDuet=True))
    assert refused.value.field == "allowDuet"


def test_a_photo_init_without_an_answer_is_an_unknown_outcome(
    tiktok: respx.MockRouter, photo_rules: None
) -> None:
    """The init starts the post (TikTok pulls the photos itself): a lost answer may
    mean a post, so it is never resent; with no publish_id it cannot be asked about."""
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    tiktok.post(f"{API}/post/publish/content/init/").mock(
        side_effect=httpx.ReadTimeout("no answer")
    )
    driver = photo_driver()
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(photos())
    assert caught.value.sent is True
    with pytest.raises(LookupUnsupported):
        driver.find_delivery(photos(), SENT_AT)


def test_the_contract_refuses_a_photo_init_tiktok_would_not_take() -> None:
    """The photo model is not a rubber stamp: a video's interaction flag, no privacy on
    a direct post, a cover outside the images, a link TikTok cannot pull."""
    held = tiktok_contract.contract(consented())
    headers = {"Authorization": "Bearer act", "Content-Type": "application/json; charset=UTF-8"}
    good_source = {
        "source": "PULL_FROM_URL",
        "photo_images": [PHOTO_LINK.format("a")],
        "photo_cover_index": 0,
    }
    for post_info, source in (
        ({"privacy_level": "SELF_ONLY", "disable_duet": True}, good_source),
        ({"disable_comment": True}, good_source),
        ({"privacy_level": "SELF_ONLY"}, {**good_source, "photo_cover_index": 1}),
        ({"privacy_level": "SELF_ONLY"}, {**good_source, "source": "FILE_UPLOAD"}),
        ({"privacy_level": "SELF_ONLY"}, {**good_source, "photo_images": ["files/a.jpg"]}),
    ):
        init = httpx.Request(
            "POST",
            f"{API}/post/publish/content/init/",
            headers=headers,
            json={
                "media_type": "PHOTO",
                "post_mode": "DIRECT_POST",
                "post_info": post_info,
                "source_info": source,
            },
        )
        with pytest.raises(ValueError):  # pydantic's ValidationError
            held.check(init)


# --- metrics (POST /v2/video/query/, https://developers.tiktok.com/doc/tiktok-api-v2-video-query) ---

VIDEO_ID = "7298765432109876543"


def test_metrics_are_the_videos_counts(tiktok: respx.MockRouter) -> None:
    query = tiktok.post(f"{API}/video/query/").respond(
        200,
        json=ok(
            {
                "videos": [
                    {
                        "id": VIDEO_ID,
                        "like_count": 120,
                        "comment_count": 8,
                        "share_count": 5,
                        "view_count": 4321,
                    }
                ]
            }
        ),
    )
    driver, _, _ = make(1)
    metrics = driver.fetch_metrics(Account("conn_1", "pressroomhq"), VIDEO_ID)
    assert metrics == PostMetrics(views=4321, likes=120, comments=8, shares=5)
    sent = query.calls.last.request
    assert sent.url.params["fields"] == "id,like_count,comment_count,share_count,view_count"
    assert json.loads(sent.content) == {"filters": {"video_ids": [VIDEO_ID]}}
    assert isinstance(driver, MetricsDriver)


def test_metrics_of_a_refused_token_are_access_revoked(tiktok: respx.MockRouter) -> None:
    tiktok.post(f"{API}/video/query/").respond(
        401, json=failed("access_token_invalid", "The access token is invalid or not found")
    )
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(
        401, json=failed("access_token_invalid", "The access token is invalid or not found")
    )
    driver, _, _ = make(1)
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), VIDEO_ID)


def test_metrics_without_video_list_granted_are_unsupported_not_revoked(
    tiktok: respx.MockRouter,
) -> None:
    """A connection made before video.list was asked for still posts: a metrics round
    must not turn it inactive."""
    tiktok.post(f"{API}/video/query/").respond(
        401, json=failed("scope_not_authorized", "The user did not authorize the scope")
    )
    tiktok.post(f"{API}/post/publish/creator_info/query/").respond(200, json=ok(CREATOR))
    driver, _, _ = make(1)
    with pytest.raises(MetricsUnsupported, match=r"video\.list"):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), VIDEO_ID)


def test_metrics_of_a_video_deleted_on_tiktok_are_unsupported(tiktok: respx.MockRouter) -> None:
    tiktok.post(f"{API}/video/query/").respond(200, json=ok({"videos": []}))
    driver, _, _ = make(1)
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), VIDEO_ID)


def test_metrics_of_a_post_known_by_its_publish_id_are_unsupported_unasked(
    tiktok: respx.MockRouter,
) -> None:
    driver, _, _ = make(1)
    with pytest.raises(MetricsUnsupported, match="publish_id"):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), "v_pub_file~v2-1.7298765432")
    assert not tiktok.calls


def test_metrics_of_a_rate_limited_query_are_rate_limited(tiktok: respx.MockRouter) -> None:
    tiktok.post(f"{API}/video/query/").respond(
        429, json=failed("rate_limit_exceeded", "API rate limit was exceeded")
    )
    driver, _, _ = make(1)
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), VIDEO_ID)
