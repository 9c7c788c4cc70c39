"""The professional_network driver against LinkedIn's documented shapes (respx replays them).

Pages read 2026-11-25:

- Authorization code flow: https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
- OpenID Connect userinfo: https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
- Posts API: https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
- Little text format: https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format
- Versioning (LinkedIn-Version: YYYYMM): https://learn.microsoft.com/en-us/linkedin/marketing/versioning
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import respx

from pressroom.platforms import Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.professional_network import LinkedInDriver, little_text

CLIENT_ID, CLIENT_SECRET = "78abcdef", "linkedin-secret"
CALLBACK = "https://press.example/oauth/callback/professional_network"
URN = "urn:li:share:6844785523593134080"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
USERINFO = {
    "sub": "782bbtaQ",
    "name": "Ada Lovelace",
    "given_name": "Ada",
    "family_name": "Lovelace",
    "picture": "https://media.licdn.com/dms/image/ada.jpg",
    "locale": "en-US",
}


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "AQV-token"


@pytest.fixture
def linkedin() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_mocked=True, assert_all_called=True) as router:
        yield router


@pytest.fixture
def driver() -> Iterator[LinkedInDriver]:
    http = NetworkClient(Platform.PROFESSIONAL_NETWORK, timeout_seconds=5, backoff_seconds=0)
    yield LinkedInDriver(CLIENT_ID, CLIENT_SECRET, Tokens(), http, api_version="202511")
    http.close()


def delivery(text: str = "Hiring (remote) #python: see [jobs]") -> Delivery:
    return Delivery(
        platform=Platform.PROFESSIONAL_NETWORK,
        account=Account("conn_1", "Ada Lovelace"),
        fields={"text": text},
        media=None,
        reference="post_1",
    )


def test_little_text_escapes_every_reserved_character() -> None:
    assert little_text("a|b{c}d@e[f]g(h)i<j>k#l\\m*n_o~p") == (
        "a\\|b\\{c\\}d\\@e\\[f\\]g\\(h\\)i\\<j\\>k\\#l\\\\m\\*n\\_o\\~p"
    )
    assert little_text("plain words, 100% fine!") == "plain words, 100% fine!"


def test_the_consent_url_asks_for_sign_in_and_sharing(driver: LinkedInDriver) -> None:
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == AUTHORIZE
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": CALLBACK,
        "state": "st",
        "scope": "openid profile w_member_social",
    }


AUTHORIZE = "https://www.linkedin.com/oauth/v2/authorization"


def test_the_code_is_exchanged_with_the_secret_in_the_form(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    route = linkedin.post("https://www.linkedin.com/oauth/v2/accessToken").respond(
        200,
        json={
            "access_token": "AQV-new",
            "expires_in": 5183999,
            "scope": "openid,profile,w_member_social",
            "token_type": "Bearer",
            "id_token": "eyJ...",
        },
    )
    tokens = driver.exchange_code(code="c0de", redirect_uri=CALLBACK, code_verifier="v")
    assert tokens.access_token == "AQV-new" and tokens.refresh_token is None
    assert tokens.expires_at is not None
    assert (tokens.expires_at - datetime.now(UTC)).days >= 59  # 60-day tokens
    request = route.calls.last.request
    assert "Authorization" not in request.headers
    assert {k: v[0] for k, v in parse_qs(request.content.decode()).items()} == {
        "grant_type": "authorization_code",
        "code": "c0de",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "redirect_uri": CALLBACK,
    }


def test_a_refused_code_is_token_refused(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.post("https://www.linkedin.com/oauth/v2/accessToken").respond(
        400,
        json={
            "error": "invalid_request",
            "error_description": "Unable to retrieve access token: authorization code not found",
        },
    )
    with pytest.raises(TokenRefused, match="invalid_request"):
        driver.exchange_code(code="stale", redirect_uri=CALLBACK, code_verifier="v")


def test_the_profile_is_the_members_name(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    profile = driver.fetch_profile(TokenSet("AQV", None, None))
    assert (profile.name, profile.display_name) == ("Ada Lovelace", "Ada Lovelace")


def test_a_post_is_sent_versioned_as_the_member_with_escaped_text(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    me = linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    route = linkedin.post("https://api.linkedin.com/rest/posts").respond(
        201, headers={"x-restli-id": URN}
    )
    published = driver.publish(delivery())
    driver.publish(delivery("again"))
    assert me.call_count == 1  # the author URN is read once per connection
    assert published.platform_post_id == URN
    assert published.url == f"https://www.linkedin.com/feed/update/{URN}/"
    request = route.calls[0].request
    assert request.headers["Authorization"] == "Bearer AQV-token"
    assert request.headers["LinkedIn-Version"] == "202511"
    assert request.headers["X-Restli-Protocol-Version"] == "2.0.0"
    assert json.loads(request.content) == {
        "author": "urn:li:person:782bbtaQ",
        "commentary": "Hiring \\(remote\\) \\#python: see \\[jobs\\]",
        "visibility": "PUBLIC",
        "distribution": {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        },
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
    }


@pytest.mark.parametrize(
    ("status", "body", "raised"),
    [
        (
            422,
            {"message": "Content is a duplicate of urn:li:share:1", "status": 422},
            PlatformRefused,
        ),
        (400, {"message": "Invalid commentary", "status": 400}, PlatformRefused),
        (
            403,
            {
                "message": "Not enough permissions to access: partnerApiPostsExternal.CREATE",
                "status": 403,
            },
            AccessRevoked,
        ),
        (
            401,
            {"message": "Invalid access token", "serviceErrorCode": 65600, "status": 401},
            AccessRevoked,
        ),
        (
            429,
            {"message": "Resource level throttle limit exceeded", "status": 429},
            PlatformRateLimited,
        ),
        (500, {"message": "Internal Server Error", "status": 500}, PlatformUnavailable),
    ],
)
def test_what_linkedin_answers_becomes_the_services_failure(
    linkedin: respx.MockRouter,
    driver: LinkedInDriver,
    status: int,
    body: dict[str, object],
    raised: type[Exception],
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post("https://api.linkedin.com/rest/posts").respond(status, json=body)
    with pytest.raises(raised) as caught:
        driver.publish(delivery())
    if isinstance(caught.value, PlatformRefused):
        assert caught.value.field == "text"
    if type(caught.value) is PlatformUnavailable:
        assert caught.value.sent is True


def test_a_created_post_without_its_urn_is_an_unknown_outcome(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post("https://api.linkedin.com/rest/posts").respond(201)
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    assert caught.value.sent is True


def test_an_app_without_the_read_permission_cannot_look_posts_up(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    listing = linkedin.get("https://api.linkedin.com/rest/posts").respond(
        403,
        json={"message": "Not enough permissions to access: posts.FINDER-author", "status": 403},
    )
    with pytest.raises(LookupUnsupported):
        driver.find_delivery(delivery(), SENT_AT)
    params = listing.calls.last.request.url.params
    assert (params["q"], params["author"]) == ("author", "urn:li:person:782bbtaQ")


def test_with_the_read_permission_an_unknown_outcome_is_found(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    created = int(datetime(2026, 11, 25, 12, 0, 2, tzinfo=UTC).timestamp() * 1000)
    linkedin.get("https://api.linkedin.com/rest/posts").respond(
        200,
        json={
            "elements": [
                {
                    "id": URN,
                    "author": "urn:li:person:782bbtaQ",
                    "commentary": "Hiring \\(remote\\) \\#python: see \\[jobs\\]",
                    "createdAt": created,
                    "lifecycleState": "PUBLISHED",
                    "visibility": "PUBLIC",
                }
            ],
            "paging": {"start": 0, "count": 50, "links": []},
        },
    )
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None and found.platform_post_id == URN
