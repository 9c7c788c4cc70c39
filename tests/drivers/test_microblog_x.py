"""The microblog driver against X's documented API v2 shapes (respx replays X's answers).

Each request is asserted as X documents it, and every answer the driver must handle is
replayed; ``assert_all_mocked`` fails a call nobody expected, ``assert_all_called`` a
call that never happened. Pages read 2026-11-25:

- OAuth 2.0 with PKCE: https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token
- Create a post: https://docs.x.com/x-api/posts/creation-of-a-post
- The signed-in user: https://docs.x.com/x-api/users/get-my-user
- A user's posts: https://docs.x.com/x-api/posts/get-posts-by-user
- Rate limits: https://docs.x.com/fundamentals/rate-limits
- Errors: https://docs.x.com/x-api/fundamentals/response-codes-and-errors

Every request is held to ``tests/drivers/contracts/x.py``: bodies to the official SDK's
models (``xdk``) with no unknown field at any depth, queries to the SDK's parameters, and
each endpoint's scopes (X's OpenAPI) to the ones the driver asks for at consent.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    MetricsDriver,
    MetricsUnsupported,
    NetworkMisconfigured,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import ScopeState, Standing
from pressroom.service.drivers.microblog import XDriver
from tests.drivers.contract import Contract, calls_read_as, held_to
from tests.drivers.contracts import x as documented

CLIENT_ID, CLIENT_SECRET = "x-client-id", "x-client-secret"
TOKEN = "x-user-access-token"
CALLBACK = "https://press.example/oauth/callback/microblog"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        assert connection_id == "conn_1"
        return TOKEN


@pytest.fixture
def x() -> Iterator[respx.MockRouter]:
    with respx.mock(
        base_url="https://api.x.com", assert_all_mocked=True, assert_all_called=True
    ) as router:
        yield router


@pytest.fixture
def driver() -> Iterator[XDriver]:
    http = NetworkClient(Platform.MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    yield XDriver(CLIENT_ID, CLIENT_SECRET, Tokens(), http)
    http.close()


def consented(driver: XDriver) -> frozenset[str]:
    """The scopes the driver asks for at consent: all a connection is ever granted."""
    url = driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v" * 64)
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split(" "))


@pytest.fixture(autouse=True)
def contract(x: respx.MockRouter, driver: XDriver) -> Iterator[Contract]:
    """Every request any test here makes is held to X's own description."""
    with held_to(x, documented.contract(consented(driver))) as held:
        yield held


def delivery(text: str = "Launch day: https://example.com/launch & more") -> Delivery:
    return Delivery(
        platform=Platform.MICROBLOG,
        account=Account("conn_1", "@pressroom_hq"),
        fields={"text": text},
        media=None,
        reference="post_1",
    )


def form_of(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


def test_the_consent_url_asks_for_posting_and_a_refresh_token_with_pkce(driver: XDriver) -> None:
    url = driver.authorization_url(redirect_uri=CALLBACK, state="st4te", code_verifier="v" * 64)
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://x.com/i/oauth2/authorize"
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    challenge = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 64).digest()).rstrip(b"=")
    assert query == {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": CALLBACK,
        "scope": "tweet.read tweet.write users.read offline.access",
        "state": "st4te",
        "code_challenge": challenge.decode(),
        "code_challenge_method": "S256",
    }
    assert "%20" in parts.query  # scopes separated by spaces, as the page's example shows


def test_the_code_is_exchanged_as_a_confidential_client(
    x: respx.MockRouter, driver: XDriver
) -> None:
    route = x.post("/2/oauth2/token").respond(
        200,
        json={
            "token_type": "bearer",
            "expires_in": 7200,
            "access_token": "new-access",
            "scope": "tweet.read tweet.write users.read offline.access",
            "refresh_token": "new-refresh",
        },
    )
    tokens = driver.exchange_code(code="the-code", redirect_uri=CALLBACK, code_verifier="v" * 64)
    assert (tokens.access_token, tokens.refresh_token) == ("new-access", "new-refresh")
    assert tokens.expires_at is not None
    request = route.calls.last.request
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {basic}"
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert form_of(request) == {
        "grant_type": "authorization_code",
        "code": "the-code",
        "redirect_uri": CALLBACK,
        "code_verifier": "v" * 64,
        "client_id": CLIENT_ID,
    }


def test_a_refused_refresh_token_is_token_refused(x: respx.MockRouter, driver: XDriver) -> None:
    route = x.post("/2/oauth2/token").respond(
        400,
        json={
            "error": "invalid_request",
            "error_description": "Value passed for the token was invalid.",
        },
    )
    with pytest.raises(TokenRefused, match="invalid_request"):
        driver.refresh("old-refresh")
    assert form_of(route.calls.last.request) == {
        "grant_type": "refresh_token",
        "refresh_token": "old-refresh",
        "client_id": CLIENT_ID,
    }


def test_the_profile_is_the_handle_and_the_name(x: respx.MockRouter, driver: XDriver) -> None:
    route = x.get("/2/users/me").respond(
        200, json={"data": {"id": "2244994945", "name": "Pressroom HQ", "username": "pressroom_hq"}}
    )
    profile = driver.fetch_profile(TokenSet("access", None, None))
    assert (profile.name, profile.display_name) == ("@pressroom_hq", "Pressroom HQ")
    assert route.calls.last.request.headers["Authorization"] == "Bearer access"


def test_a_post_is_sent_as_text_and_answers_its_id_and_url(
    x: respx.MockRouter, driver: XDriver
) -> None:
    route = x.post("/2/tweets").respond(
        201,
        json={
            "data": {
                "id": "1445880548472328192",
                "text": "Launch day: https://t.co/abc123 &amp; more",
                "edit_history_tweet_ids": ["1445880548472328192"],
            }
        },
    )
    published = driver.publish(delivery())
    assert published.platform_post_id == "1445880548472328192"
    assert published.url == "https://x.com/pressroom_hq/status/1445880548472328192"
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == {"text": "Launch day: https://example.com/launch & more"}


def test_a_thread_part_is_sent_as_a_reply_to_the_part_before(
    x: respx.MockRouter, driver: XDriver
) -> None:
    route = x.post("/2/tweets").respond(
        201,
        json={
            "data": {
                "id": "1445880548472328193",
                "text": "And the second part.",
                "edit_history_tweet_ids": ["1445880548472328193"],
            }
        },
    )
    part = replace(delivery("And the second part."), reply_to="1445880548472328192")
    published = driver.publish(part)
    assert published.platform_post_id == "1445880548472328193"
    assert json.loads(route.calls.last.request.content) == {
        "text": "And the second part.",
        "reply": {"in_reply_to_tweet_id": "1445880548472328192"},
    }


def test_a_thread_part_is_found_by_its_text_and_the_post_it_replies_to(
    x: respx.MockRouter, driver: XDriver
) -> None:
    """The same words posted twice, once as a reply to another post: only the reply to
    the part before counts."""
    x.get("/2/users/me").respond(200, json={"data": {"id": "42", "name": "P", "username": "p"}})

    def post(post_id: str, replied_to: str | None) -> dict[str, object]:
        found: dict[str, object] = {
            "id": post_id,
            "text": "And the second part.",
            "created_at": "2026-11-25T12:00:02.000Z",
            "edit_history_tweet_ids": [post_id],
        }
        if replied_to is not None:
            found["referenced_tweets"] = [{"type": "replied_to", "id": replied_to}]
        return found

    timeline = x.get("/2/users/42/tweets").respond(
        200,
        json={
            "data": [post("7", None), post("8", "999"), post("9", "1445880548472328192")],
            "meta": {"result_count": 3},
        },
    )
    part = replace(delivery("And the second part."), reply_to="1445880548472328192")
    found = driver.find_delivery(part, SENT_AT)
    assert found is not None and found.platform_post_id == "9"
    assert timeline.calls.last.request.url.params["expansions"] == "referenced_posts"
    assert driver.find_delivery(delivery("And the second part."), SENT_AT) is not None
    assert driver.find_delivery(replace(part, reply_to="1"), SENT_AT) is None


def test_a_duplicate_is_a_refused_text(x: respx.MockRouter, driver: XDriver) -> None:
    x.post("/2/tweets").respond(
        403,
        json={
            "detail": "You are not allowed to create a Tweet with duplicate content.",
            "type": "about:blank",
            "title": "Forbidden",
            "status": 403,
        },
    )
    with pytest.raises(PlatformRefused, match="duplicate content") as refused:
        driver.publish(delivery())
    assert refused.value.field == "text"


def test_a_403_for_an_app_x_has_not_enrolled_is_the_operators_to_fix(
    x: respx.MockRouter, driver: XDriver
) -> None:
    """client-forbidden refuses the app (its project or access level), not the text nor
    the person's token: no field to fix, no reconnect that helps."""
    x.post("/2/tweets").respond(
        403,
        headers={"content-type": "application/problem+json"},
        json={
            "client_id": "26924600",
            "detail": "When authenticating requests to the Twitter API v2 endpoints, you must "
            "use keys and tokens from a Twitter developer App that is attached to a Project. "
            "You can create a project via the developer portal.",
            "registration_url": "https://developer.twitter.com/en/docs/projects/overview",
            "title": "Client Forbidden",
            "required_enrollment": "Appropriate Level of API Access",
            "reason": "client-not-enrolled",
            "type": "https://api.twitter.com/2/problems/client-forbidden",
        },
    )
    with pytest.raises(NetworkMisconfigured) as refused:
        driver.publish(delivery())
    assert "client-not-enrolled" in str(refused.value)
    assert "PRESSROOM_MICROBLOG_CLIENT_ID" in str(refused.value)


def test_a_bare_403_is_a_token_without_the_scope_to_post(
    x: respx.MockRouter, driver: XDriver
) -> None:
    """X's answer to a token lacking ``tweet.write`` (plhery/node-twitter-api-v2#376,
    mironal/TwitterAPIKit#122): reconnecting asks for the scope again."""
    x.post("/2/tweets").respond(
        403,
        headers={"content-type": "application/problem+json"},
        json={"title": "Forbidden", "type": "about:blank", "status": 403, "detail": "Forbidden"},
    )
    with pytest.raises(AccessRevoked, match=r"tweet\.write"):
        driver.publish(delivery())


def test_a_rate_limit_waits_until_the_reset(x: respx.MockRouter, driver: XDriver) -> None:
    reset = int(datetime.now(UTC).timestamp()) + 600
    x.post("/2/tweets").respond(
        429,
        headers={
            "x-rate-limit-limit": "200",
            "x-rate-limit-remaining": "0",
            "x-rate-limit-reset": str(reset),
        },
        json={
            "title": "Too Many Requests",
            "detail": "Too Many Requests",
            "type": "about:blank",
            "status": 429,
        },
    )
    with pytest.raises(PlatformRateLimited) as limited:
        driver.publish(delivery())
    assert 590 <= limited.value.retry_after <= 600
    assert limited.value.sent is False


def test_a_revoked_token_is_access_revoked(x: respx.MockRouter, driver: XDriver) -> None:
    x.post("/2/tweets").respond(
        401,
        json={
            "title": "Unauthorized",
            "type": "about:blank",
            "status": 401,
            "detail": "Unauthorized",
        },
    )
    with pytest.raises(AccessRevoked):
        driver.publish(delivery())


def test_a_5xx_after_sending_may_have_published(x: respx.MockRouter, driver: XDriver) -> None:
    route = x.post("/2/tweets").respond(503, json={"title": "Service Unavailable"})
    with pytest.raises(PlatformUnavailable) as unavailable:
        driver.publish(delivery())
    assert unavailable.value.sent is True
    assert route.call_count == 1  # a post is never resent by the driver


def test_a_timeout_after_sending_may_have_published(x: respx.MockRouter, driver: XDriver) -> None:
    x.post("/2/tweets").mock(side_effect=httpx.ReadTimeout("timed out"))
    with pytest.raises(PlatformUnavailable) as unavailable:
        driver.publish(delivery())
    assert unavailable.value.sent is True


def test_a_connection_never_made_has_not_published(x: respx.MockRouter, driver: XDriver) -> None:
    x.post("/2/tweets").mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(PlatformUnavailable) as unavailable:
        driver.publish(delivery())
    assert unavailable.value.sent is False


def test_an_unknown_outcome_is_found_among_the_accounts_posts(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/users/me").respond(
        200, json={"data": {"id": "2244994945", "name": "Pressroom HQ", "username": "pressroom_hq"}}
    )
    timeline = x.get("/2/users/2244994945/tweets")
    timeline.side_effect = [
        httpx.Response(
            200,
            json={
                "data": [
                    {
                        "id": "1",
                        "text": "Something else",
                        "created_at": "2026-11-25T12:00:03.000Z",
                        "edit_history_tweet_ids": ["1"],
                    }
                ],
                "meta": {
                    "result_count": 1,
                    "newest_id": "1",
                    "oldest_id": "1",
                    "next_token": "page2",
                },
            },
        ),
        httpx.Response(
            200,
            json={
                "data": [
                    {
                        "id": "1445880548472328192",
                        "text": "Launch day: https://t.co/abc123 &amp; more",
                        "created_at": "2026-11-25T12:00:01.000Z",
                        "edit_history_tweet_ids": ["1445880548472328192"],
                        "entities": {
                            "urls": [
                                {
                                    "start": 12,
                                    "end": 35,
                                    "url": "https://t.co/abc123",
                                    "expanded_url": "https://example.com/launch",
                                    "display_url": "example.com/launch",
                                }
                            ]
                        },
                    }
                ],
                "meta": {
                    "result_count": 1,
                    "newest_id": "1445880548472328192",
                    "oldest_id": "1445880548472328192",
                },
            },
        ),
    ]
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None
    assert found.platform_post_id == "1445880548472328192"
    assert found.published_at == datetime(2026, 11, 25, 12, 0, 1, tzinfo=UTC)
    first, second = (call.request.url.params for call in timeline.calls)
    assert first["start_time"] == "2026-11-25T11:58:00Z"
    assert first["max_results"] == "100"
    assert set(first["tweet.fields"].split(",")) >= {"created_at", "entities"}
    assert "pagination_token" not in first and second["pagination_token"] == "page2"


def test_a_post_the_account_does_not_have_is_not_found(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/users/me").respond(200, json={"data": {"id": "42", "name": "P", "username": "p"}})
    x.get("/2/users/42/tweets").respond(200, json={"meta": {"result_count": 0}})
    assert driver.find_delivery(delivery(), SENT_AT) is None


def test_a_look_up_x_cannot_answer_is_retried_then_said_unknown(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/users/me").respond(200, json={"data": {"id": "42", "name": "P", "username": "p"}})
    timeline = x.get("/2/users/42/tweets").respond(503)
    with pytest.raises(PlatformUnavailable):
        driver.find_delivery(delivery(), SENT_AT)
    assert timeline.call_count == 3  # reads are retried; posts never are


# --- drivers check: what X says, read without posting ----------------------------------


def test_inspect_reads_the_account_and_its_verification_posting_nothing(
    x: respx.MockRouter, driver: XDriver
) -> None:
    me = x.get("/2/users/me").respond(
        200,
        json={
            "data": {
                "id": "2244994945",
                "name": "pressroom",
                "username": "pressroom_hq",
                "verified": True,
                "verified_type": "business",
                "protected": False,
            }
        },
    )

    report = driver.inspect(Account("conn_1", "@pressroom_hq"))

    assert calls_read_as(x) == {("GET", "api.x.com/2/users/me")}
    fields = me.calls.last.request.url.params["user.fields"].split(",")
    assert {"verified", "verified_type", "protected"} <= set(fields)
    assert report.scopes == {
        "tweet.read": ScopeState.GRANTED,  # GET /2/users/me requires both
        "tweet.write": ScopeState.UNKNOWN,  # X says it only in the token answer
        "users.read": ScopeState.GRANTED,
        "offline.access": ScopeState.UNKNOWN,
    }
    assert (report.account, report.account_type, report.audit) == (
        "@pressroom_hq",
        "public",
        "verified_type business",
    )
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.UNKNOWN and "tweet.write" in lines["scopes"].meaning
    assert lines["verification"].says == "verified_type business"
    assert lines["app access"].standing is Standing.UNKNOWN


def test_inspect_of_a_protected_account_warns_and_a_scopeless_token_is_refused(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/users/me").mock(
        side_effect=[
            httpx.Response(
                200,
                json={"data": {"id": "1", "name": "p", "username": "p", "protected": True}},
            ),
            httpx.Response(
                403,
                json={
                    "title": "Forbidden",
                    "type": "about:blank",
                    "status": 403,
                    "detail": "Forbidden",
                },
            ),
        ]
    )
    report = driver.inspect(Account("conn_1", "@p"))
    assert (report.account_type, report.audit) == ("protected", "verified_type none")
    assert {f.topic: f.standing for f in report.findings}["account type"] is Standing.WARNING
    with pytest.raises(AccessRevoked):
        driver.inspect(Account("conn_1", "@p"))


# --- metrics (GET /2/tweets/{id}, https://docs.x.com/x-api/posts/get-post-by-id) ---


def test_metrics_are_the_posts_public_metrics(x: respx.MockRouter, driver: XDriver) -> None:
    read = x.get("/2/tweets/1460323737035677698").respond(
        200,
        json={
            "data": {
                "id": "1460323737035677698",
                "text": "Launch day",
                "edit_history_tweet_ids": ["1460323737035677698"],
                "public_metrics": {
                    "retweet_count": 3,
                    "reply_count": 2,
                    "like_count": 17,
                    "quote_count": 1,
                    "bookmark_count": 4,
                    "impression_count": 950,
                },
            }
        },
    )
    metrics = driver.fetch_metrics(Account("conn_1", "@pressroom_hq"), "1460323737035677698")
    assert metrics == PostMetrics(impressions=950, likes=17, comments=2, shares=4, saves=4)
    assert read.calls.last.request.url.params["tweet.fields"] == "public_metrics"
    assert read.calls.last.request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert isinstance(driver, MetricsDriver)


def test_metrics_of_a_revoked_token_are_access_revoked(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/tweets/1460323737035677698").respond(
        401, json={"title": "Unauthorized", "type": "about:blank", "status": 401}
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "@pressroom_hq"), "1460323737035677698")


def test_metrics_of_a_rate_limited_read_wait_for_the_reset(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/tweets/1460323737035677698").respond(
        429, headers={"x-rate-limit-reset": str(int(datetime.now(UTC).timestamp()) + 120)}
    )
    with pytest.raises(PlatformRateLimited) as limited:
        driver.fetch_metrics(Account("conn_1", "@pressroom_hq"), "1460323737035677698")
    assert 100 <= limited.value.retry_after <= 120


def test_metrics_of_a_post_deleted_on_x_are_unsupported(
    x: respx.MockRouter, driver: XDriver
) -> None:
    x.get("/2/tweets/1460323737035677698").respond(
        200,
        json={
            "errors": [
                {
                    "value": "1460323737035677698",
                    "detail": "Could not find tweet with id: [1460323737035677698].",
                    "title": "Not Found Error",
                    "resource_type": "tweet",
                    "parameter": "id",
                    "resource_id": "1460323737035677698",
                    "type": "https://api.twitter.com/2/problems/resource-not-found",
                }
            ]
        },
    )
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "@pressroom_hq"), "1460323737035677698")
