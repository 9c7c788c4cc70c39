"""The professional_network driver against LinkedIn's documented shapes (respx replays them).

Pages read 2026-11-25:

- Authorization code flow: https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
- OpenID Connect userinfo: https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2
- Posts API: https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
- Little text format: https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format
- Versioning (LinkedIn-Version: YYYYMM): https://learn.microsoft.com/en-us/linkedin/marketing/versioning
- Sunset dates: https://learn.microsoft.com/en-us/linkedin/marketing/integrations/migrations

Every request is held to ``tests/drivers/contracts/linkedin.py`` (LinkedIn's documented
shapes, scopes against what the driver asks for at consent, and the ``LinkedIn-Version``
against the versions LinkedIn serves on the test's fixed day).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import Platform
from pressroom.service.drivers import inspection, linkedin_versions
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    MetricsDriver,
    MetricsUnsupported,
    NetworkMisconfigured,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.linkedin_versions import Standing
from pressroom.service.drivers.professional_network import LinkedInDriver, little_text
from pressroom.settings import NetworkSettings
from tests.drivers.contract import Contract, calls_read_as, held_to
from tests.drivers.contracts import linkedin as documented

CLIENT_ID, CLIENT_SECRET = "78abcdef", "linkedin-secret"
CALLBACK = "https://press.example/oauth/callback/professional_network"
URN = "urn:li:share:6844785523593134080"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
TODAY = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
"""The tests' fixed clock: the driver's and the contract's day."""
SHIPPED = str(NetworkSettings.model_fields["professional_network_api_version"].default)
"""The ``LinkedIn-Version`` pressroom sends unless the operator sets another."""
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


def make_driver(
    http: NetworkClient, *, version: str = SHIPPED, today: datetime = TODAY
) -> LinkedInDriver:
    return LinkedInDriver(
        CLIENT_ID, CLIENT_SECRET, Tokens(), http, api_version=version, clock=lambda: today
    )


@pytest.fixture
def http() -> Iterator[NetworkClient]:
    client = NetworkClient(Platform.PROFESSIONAL_NETWORK, timeout_seconds=5, backoff_seconds=0)
    yield client
    client.close()


@pytest.fixture
def driver(http: NetworkClient) -> LinkedInDriver:
    return make_driver(http)


def consented(driver: LinkedInDriver) -> frozenset[str]:
    """The scopes the driver asks for at consent: all a connection is ever granted."""
    url = driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split(" "))


@pytest.fixture(autouse=True)
def contract(linkedin: respx.MockRouter, driver: LinkedInDriver) -> Iterator[Contract]:
    """Every request any test here makes is held to LinkedIn's documented contract."""
    with held_to(linkedin, documented.contract(TODAY.date(), consented(driver))) as held:
        yield held


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
    assert request.headers["LinkedIn-Version"] == SHIPPED
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


COMMENTS = (
    "https://api.linkedin.com/rest/socialActions/urn%3Ali%3Ashare%3A6844785523593134080/comments"
)
COMMENT_URN = "urn:li:comment:(urn:li:activity:6844785523593134080,6844791203287937024)"


def comment(text: str = "Apply at acme.example/jobs") -> Delivery:
    """A first comment on the member's post ``URN``."""
    return Delivery(
        platform=Platform.PROFESSIONAL_NETWORK,
        account=Account("conn_1", "Ada Lovelace"),
        fields={"text": text},
        media=None,
        reference="post_1.1",
        comment_on=URN,
    )


def test_a_first_comment_goes_on_the_post_as_the_member(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    route = linkedin.post(COMMENTS).respond(
        201, json={"commentUrn": COMMENT_URN, "id": "6844791203287937024", "object": URN}
    )
    published = driver.publish(comment())
    assert (published.platform_post_id, published.url) == (
        COMMENT_URN,
        f"https://www.linkedin.com/feed/update/{URN}/",
    )
    request = route.calls.last.request
    assert request.headers["LinkedIn-Version"] == SHIPPED
    assert json.loads(request.content) == {
        "actor": "urn:li:person:782bbtaQ",
        "object": URN,
        "message": {"text": "Apply at acme.example/jobs"},
    }


def test_a_refused_comment_names_its_text_and_an_unknown_one_is_not_looked_up(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post(COMMENTS).respond(422, json={"message": "Invalid comment", "status": 422})
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(comment())
    assert refused.value.field == "text"
    with pytest.raises(LookupUnsupported):  # listing comments needs r_member_social
        driver.find_delivery(comment(), SENT_AT)


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
    linkedin: respx.MockRouter, driver: LinkedInDriver, contract: Contract
) -> None:
    # The driver asks knowing the token may lack r_member_social: LinkedIn's 403 is the
    # documented answer, so this one request is not held to the scopes.
    contract.granted = None
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
    linkedin: respx.MockRouter, driver: LinkedInDriver, contract: Contract
) -> None:
    assert contract.granted is not None
    contract.granted |= {"r_member_social"}  # an app LinkedIn granted the restricted read
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


# The version LinkedIn serves (https://learn.microsoft.com/en-us/linkedin/marketing/versioning:
# each version "supported and stable for a minimum of one year before sunset").

NONEXISTENT_VERSION = {
    "status": 426,
    "code": "NONEXISTENT_VERSION",
    "message": "Requested version 20251101 is not active",
}
"""LinkedIn's answer to a sunset version (its message writes YYYYMM as YYYYMM01)."""


def test_a_version_linkedin_no_longer_serves_is_a_configuration_error_not_maybe_sent(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    """LinkedIn's 426 says the version is not served and nothing was posted: the
    operator's setting must change, so it is final, never a "maybe sent" to look up."""
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    sent = linkedin.post("https://api.linkedin.com/rest/posts").respond(
        426, json=NONEXISTENT_VERSION
    )
    with pytest.raises(NetworkMisconfigured) as refused:
        driver.publish(delivery())
    assert sent.call_count == 1
    message = str(refused.value)
    assert SHIPPED in message and "Requested version 20251101 is not active" in message
    assert linkedin_versions.SETTING in message and linkedin_versions.VERSIONING_URL in message
    with pytest.raises(NetworkMisconfigured):
        driver.draft_post(Account("conn_1", "Ada Lovelace"), "draft")


def test_a_look_up_answered_426_leaves_the_outcome_unknown(
    linkedin: respx.MockRouter, driver: LinkedInDriver, contract: Contract
) -> None:
    assert contract.granted is not None
    contract.granted |= {"r_member_social"}
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.get("https://api.linkedin.com/rest/posts").respond(426, json=NONEXISTENT_VERSION)
    with pytest.raises(PlatformUnavailable) as unsure:
        driver.find_delivery(delivery(), SENT_AT)
    assert unsure.value.sent is True and linkedin_versions.SETTING in str(unsure.value)


def test_the_version_sent_by_default_is_one_linkedin_serves(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    """202511 was sunset on 2026-11-16: sending it is what the contract refuses."""
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post("https://api.linkedin.com/rest/posts").respond(201, headers={"x-restli-id": URN})
    driver.publish(delivery())
    assert driver.version_check().standing is Standing.SERVED


def test_past_its_twelfth_month_a_version_is_refused_before_anything_is_sent(
    linkedin: respx.MockRouter, http: NetworkClient
) -> None:
    year_on = linkedin_versions.month_of(SHIPPED).replace(
        year=linkedin_versions.month_of(SHIPPED).year + 1
    )
    late = make_driver(http, today=datetime.combine(year_on, datetime.min.time(), UTC))
    with pytest.raises(NetworkMisconfigured) as refused:
        late.publish(delivery())
    with pytest.raises(NetworkMisconfigured):
        late.draft_post(Account("conn_1", "Ada Lovelace"), "draft")
    assert not linkedin.calls  # nothing reached LinkedIn
    assert linkedin_versions.SETTING in str(refused.value)
    assert f"{linkedin_versions.SERVED_MONTHS} months" in str(refused.value)


def test_an_outcome_is_not_looked_up_with_a_version_past_its_year(
    linkedin: respx.MockRouter, http: NetworkClient
) -> None:
    """The post may exist: the outcome stays unknown (and is asked again later), never
    "not found", until the operator sets a version LinkedIn serves."""
    late = make_driver(http, version="202510", today=TODAY)
    with pytest.raises(PlatformUnavailable) as unsure:
        late.find_delivery(delivery(), SENT_AT)
    assert unsure.value.sent is True
    assert linkedin_versions.SETTING in str(unsure.value)
    assert not linkedin.calls


@pytest.mark.parametrize(
    ("version", "today", "standing", "age"),
    [
        ("202608", date(2026, 11, 26), Standing.SERVED, 3),
        ("202608", date(2027, 6, 30), Standing.SERVED, 10),
        ("202608", date(2027, 7, 1), Standing.AGEING, 11),
        ("202608", date(2027, 7, 31), Standing.AGEING, 11),
        ("202608", date(2027, 8, 1), Standing.UNSERVED, 12),
        ("202511", date(2026, 11, 26), Standing.UNSERVED, 12),
        ("202612", date(2026, 11, 26), Standing.UNSERVED, -1),
    ],
)
def test_a_versions_age_is_counted_in_months_from_its_yyyymm(
    version: str, today: date, standing: Standing, age: int
) -> None:
    check = linkedin_versions.check(version, today)
    assert (check.standing, check.age_months) == (standing, age)
    if standing is not Standing.SERVED:
        assert linkedin_versions.SETTING in check.message


def test_an_ageing_version_still_posts(linkedin: respx.MockRouter, http: NetworkClient) -> None:
    """In the version's last promised month the driver warns (start-up, ``drivers
    check``) but still sends: LinkedIn serves it until its sunset."""
    ageing = make_driver(http, version="202601", today=datetime(2026, 12, 5, tzinfo=UTC))
    assert ageing.version_check().standing is Standing.AGEING
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post("https://api.linkedin.com/rest/posts").respond(201, headers={"x-restli-id": URN})
    assert ageing.publish(delivery()).platform_post_id == URN


def test_the_shipped_version_is_still_served_today() -> None:
    """On the real clock: when this fails, LinkedIn no longer promises the default and
    every install that keeps it refuses to post; set a newer default in settings.py."""
    check = linkedin_versions.check(SHIPPED, datetime.now(UTC).date())
    assert check.standing is not Standing.UNSERVED, check.message


# --- drivers check: what LinkedIn says, read without posting ---------------------------


def introspection(scope: str, **answer: object) -> dict[str, object]:
    """INTROSPECTION's sample response, for a three-legged token with ``scope``."""
    return {
        "active": True,
        "client_id": CLIENT_ID,
        "authorized_at": 1764000000,
        "created_at": 1764000000,
        "status": "active",
        "expires_at": 1769000000,
        "scope": scope,
        "auth_type": "3L",
        **answer,
    }


def test_inspect_reads_the_grant_by_introspection_posting_nothing(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    asked = linkedin.post("https://www.linkedin.com/oauth/v2/introspectToken").respond(
        200, json=introspection("openid,profile,w_member_social")
    )
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)

    report = driver.inspect(Account("conn_1", "Ada Lovelace"))

    assert calls_read_as(linkedin) == {
        ("POST", "www.linkedin.com/oauth/v2/introspectToken"),
        ("GET", "api.linkedin.com/v2/userinfo"),
    }
    sent = parse_qs(asked.calls.last.request.content.decode())
    assert sent == {
        "client_id": [CLIENT_ID],
        "client_secret": [CLIENT_SECRET],
        "token": ["AQV-token"],
    }
    assert report.scopes == {
        "openid": inspection.ScopeState.GRANTED,
        "profile": inspection.ScopeState.GRANTED,
        "w_member_social": inspection.ScopeState.GRANTED,
    }
    assert (report.account, report.account_type) == ("Ada Lovelace", "member")
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is inspection.Standing.OK
    assert lines["api version"].standing is inspection.Standing.OK
    assert lines["api version"].says == f"LinkedIn-Version {SHIPPED} is 3 months old; served"


def test_inspect_sees_posting_not_granted_and_a_revoked_token(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    linkedin.post("https://www.linkedin.com/oauth/v2/introspectToken").mock(
        side_effect=[
            httpx.Response(200, json=introspection("openid,profile")),
            httpx.Response(200, json=introspection("", active=False, status="revoked")),
        ]
    )
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)

    report = driver.inspect(Account("conn_1", "Ada Lovelace"))
    assert report.missing == ("w_member_social",)
    assert report.can_publish is False
    with pytest.raises(AccessRevoked, match="revoked"):
        driver.inspect(Account("conn_1", "Ada Lovelace"))


class Stored:
    """The service's stored files: each image's bytes, read back for the upload."""

    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("LinkedIn takes images as uploads, not links")

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        yield f"jpeg bytes of {storage_key}".encode()[start:stop]


def multi_image(text: str = "Our new office") -> Delivery:
    from dataclasses import replace

    from pressroom.platforms import MediaKind
    from pressroom.service.drivers.base import Media

    key = "files/file_{}"
    return replace(
        delivery(text),
        items=tuple(
            Media(f"file_{n}", MediaKind.IMAGE, "image/jpeg", key.format(n), None, 26)
            for n in (1, 2)
        ),
    )


UPLOAD = "https://www.linkedin.com/dms-uploads/C5522AQHn46pwH96hxQ/uploadedImage/0"


def test_a_multi_image_post_uploads_each_image_then_posts_them_in_order(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    driver.media = Stored()
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    initialized = linkedin.post("https://api.linkedin.com/rest/images")
    initialized.side_effect = [
        httpx.Response(
            200,
            json={
                "value": {
                    "uploadUrlExpiresAt": 1650567510704,
                    "uploadUrl": f"{UPLOAD}?ca=vector_feedshare&cn=uploads&m=AQ{n}&sync=0",
                    "image": f"urn:li:image:C4E10AQFoyyAjHPMQ{n}",
                }
            },
        )
        for n in (1, 2)
    ]
    uploaded = linkedin.put(UPLOAD).respond(201)
    posted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
        201, headers={"x-restli-id": URN}
    )

    post = driver.publish(multi_image())

    assert [json.loads(c.request.content) for c in initialized.calls] == [
        {"initializeUploadRequest": {"owner": "urn:li:person:782bbtaQ"}}
    ] * 2
    assert [c.request.url.params["action"] for c in initialized.calls] == ["initializeUpload"] * 2
    assert [c.request.content for c in uploaded.calls] == [
        b"jpeg bytes of files/file_1",
        b"jpeg bytes of files/file_2",
    ]
    assert [c.request.url.params["m"] for c in uploaded.calls] == ["AQ1", "AQ2"]
    body = json.loads(posted.calls.last.request.content)
    assert body["content"] == {
        "multiImage": {
            "images": [
                {"id": "urn:li:image:C4E10AQFoyyAjHPMQ1"},
                {"id": "urn:li:image:C4E10AQFoyyAjHPMQ2"},
            ]
        }
    }
    assert post.platform_post_id == URN
    assert [(i.platform_post_id, i.url) for i in post.items] == [
        ("urn:li:image:C4E10AQFoyyAjHPMQ1", post.url),
        ("urn:li:image:C4E10AQFoyyAjHPMQ2", post.url),
    ]


def test_an_image_linkedin_refuses_names_its_place_and_posts_nothing(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    driver.media = Stored()
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    linkedin.post("https://api.linkedin.com/rest/images").respond(
        200,
        json={"value": {"uploadUrl": f"{UPLOAD}?m=AQ1", "image": "urn:li:image:C4E10AQ1"}},
    )
    linkedin.put(UPLOAD).respond(400, json={"message": "Invalid image"})
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(multi_image())
    assert refused.value.field == "fileIds[0]"


# --- format: document ---------------------------------------------------------------

DOCUMENT = "urn:li:document:D5F10AQH4p3GpiIwq7Q"
DOCUMENT_UPLOAD = "https://www.linkedin.com/dms-uploads/sp/D5F10AQH4p3GpiIwq7Q/uploadedDocument/0"


class StoredPdf:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("LinkedIn takes documents as uploads, not links")

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        yield b"%PDF-1.7 deck"[start:stop]


def document(title: str | None = "Q3 report") -> Delivery:
    from dataclasses import replace

    from pressroom.probe import FileKind
    from pressroom.service.drivers.base import Media

    fields: dict[str, object] = {"text": "Our quarter", "format": "document"}
    if title is not None:
        fields["documentTitle"] = title
    pdf = Media("file_9", FileKind.DOCUMENT, "application/pdf", "files/file_9", None, 13, pages=2)
    return replace(delivery(), fields=fields, media=pdf)


def uploads_document(linkedin: respx.MockRouter, *statuses: str) -> tuple[respx.Route, ...]:
    """The member, the document's upload initialized and taken, its status reads."""
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    initialized = linkedin.post("https://api.linkedin.com/rest/documents").respond(
        200,
        json={
            "value": {
                "uploadUrlExpiresAt": 1650567510704,
                "uploadUrl": f"{DOCUMENT_UPLOAD}?ca=vector_feedshare&cn=uploads&m=AQ9",
                "document": DOCUMENT,
            }
        },
    )
    uploaded = linkedin.put(DOCUMENT_UPLOAD).respond(201)
    read = linkedin.get(f"https://api.linkedin.com/rest/documents/{DOCUMENT}")
    read.side_effect = [
        httpx.Response(200, json={"id": DOCUMENT, "owner": "urn:li:person:782bbtaQ", "status": s})
        for s in statuses
    ]
    return initialized, uploaded, read


def test_a_document_post_uploads_the_pdf_waits_for_it_and_posts_it_titled(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    driver.media = StoredPdf()
    slept: list[float] = []
    driver._sleep = slept.append
    initialized, uploaded, read = uploads_document(linkedin, "PROCESSING", "AVAILABLE")
    posted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
        201, headers={"x-restli-id": URN}
    )

    post = driver.publish(document())

    assert json.loads(initialized.calls.last.request.content) == {
        "initializeUploadRequest": {"owner": "urn:li:person:782bbtaQ"}
    }
    assert initialized.calls.last.request.url.params["action"] == "initializeUpload"
    assert uploaded.calls.last.request.content == b"%PDF-1.7 deck"
    assert read.call_count == 2 and len(slept) == 2  # posted once AVAILABLE
    body = json.loads(posted.calls.last.request.content)
    assert body["content"] == {"media": {"id": DOCUMENT, "title": "Q3 report"}}
    assert body["commentary"] == "Our quarter"
    assert (post.platform_post_id, post.url) == (
        URN,
        f"https://www.linkedin.com/feed/update/{URN}/",
    )


def test_a_document_linkedin_cannot_process_is_refused_naming_the_file_posting_nothing(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    driver.media = StoredPdf()
    driver._sleep = lambda _: None
    uploads_document(linkedin, "PROCESSING_FAILED")
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(document())
    assert refused.value.field == "fileId"
    assert not [c for c in linkedin.calls if c.request.url.path == "/rest/posts"]


def test_a_document_post_whose_answer_is_lost_is_an_unknown_outcome(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    driver.media = StoredPdf()
    driver._sleep = lambda _: None
    uploads_document(linkedin, "AVAILABLE")
    linkedin.post("https://api.linkedin.com/rest/posts").mock(
        side_effect=httpx.ReadTimeout("no answer")
    )
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(document(title=None))
    assert caught.value.sent is True


def test_the_contract_refuses_document_calls_linkedin_would_not_take() -> None:
    """A document post naming an image-less URN shape, an upload initialized without
    its owner, a document read without the version headers."""
    held = documented.contract(TODAY.date(), None)
    headers = {
        "Authorization": "Bearer AQV-token",
        "LinkedIn-Version": SHIPPED,
        "X-Restli-Protocol-Version": "2.0.0",
    }
    post = {
        "author": "urn:li:person:782bbtaQ",
        "commentary": "x",
        "visibility": "PUBLIC",
        "distribution": {"feedDistribution": "MAIN_FEED"},
        "lifecycleState": "PUBLISHED",
        "content": {"media": {"id": "D5F10AQH4p3GpiIwq7Q", "title": "Q3"}},
    }
    for request in (
        httpx.Request("POST", "https://api.linkedin.com/rest/posts", headers=headers, json=post),
        httpx.Request(
            "POST",
            "https://api.linkedin.com/rest/documents?action=initializeUpload",
            headers=headers,
            json={"initializeUploadRequest": {}},
        ),
        httpx.Request(
            "GET",
            "https://api.linkedin.com/rest/documents/urn%3Ali%3Adocument%3AD5F10",
            headers={"Authorization": "Bearer AQV-token"},
        ),
    ):
        with pytest.raises(AssertionError):
            held.check(request)


# --- metrics: not available to this app (professional_network's module docstring) ---


def test_metrics_are_unavailable_without_the_restricted_permissions_and_ask_nothing(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    with pytest.raises(MetricsUnsupported, match="r_member_social"):
        driver.fetch_metrics(Account("conn_1", "Ada"), "urn:li:share:7012345678901234567")
    assert not linkedin.calls
    assert isinstance(driver, MetricsDriver)


def test_the_reads_of_a_posts_figures_need_scopes_the_consent_does_not_ask_for(
    driver: LinkedInDriver,
) -> None:
    """Why metrics are unsupported: held to LinkedIn's contract with what this app asks
    for at consent, each documented read of a post's figures is refused for its scope."""
    held = documented.contract(TODAY.date(), consented(driver))
    for path in (
        "/rest/socialActions/urn:li:share:7012345678901234567",
        "/rest/memberCreatorPostAnalytics",
    ):
        with pytest.raises(AssertionError, match="needs the scopes"):
            held.check(httpx.Request("GET", f"https://api.linkedin.com{path}"))


# --- alt text (``content.multiImage.images[].altText``,
# https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api) ---


def test_each_image_of_a_multi_image_post_carries_its_alt_text(
    linkedin: respx.MockRouter, driver: LinkedInDriver
) -> None:
    from dataclasses import replace

    driver.media = Stored()
    linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json=USERINFO)
    initialized = linkedin.post("https://api.linkedin.com/rest/images")
    initialized.side_effect = [
        httpx.Response(
            200,
            json={
                "value": {
                    "uploadUrlExpiresAt": 1650567510704,
                    "uploadUrl": f"{UPLOAD}?ca=vector_feedshare&cn=uploads&m=AQ{n}&sync=0",
                    "image": f"urn:li:image:C4E10AQFoyyAjHPMQ{n}",
                }
            },
        )
        for n in (1, 2)
    ]
    linkedin.put(UPLOAD).respond(201)
    posted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
        201, headers={"x-restli-id": URN}
    )
    sent = multi_image()
    first, second = sent.items

    driver.publish(replace(sent, items=(first, replace(second, alt_text="The team at lunch"))))

    assert json.loads(posted.calls.last.request.content)["content"]["multiImage"]["images"] == [
        {"id": "urn:li:image:C4E10AQFoyyAjHPMQ1"},
        {"id": "urn:li:image:C4E10AQFoyyAjHPMQ2", "altText": "The team at lunch"},
    ]
