"""The pin_board driver against Pinterest API v5's documented shapes (respx replays them).

Pages read 2026-11-25:

- OAuth: https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/
- Token endpoint: https://developers.pinterest.com/docs/api/v5/oauth-token
- User account: https://developers.pinterest.com/docs/api/v5/user_account-get
- Create a pin: https://developers.pinterest.com/docs/api/v5/pins-create
- List a board's pins: https://developers.pinterest.com/docs/api/v5/boards-list_pins
- Errors ``{"code", "message"}`` and 429: https://developers.pinterest.com/docs/reference/error-codes/

Every request is held to ``tests/drivers/contracts/pinterest.py``: Pinterest's generated
client (``PinCreate``, its endpoints' parameters and validations, no unknown key) and
each operation's scopes from Pinterest's API description, against the ones the driver
asks for at consent.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
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
from pressroom.service.drivers.pin_board import PinterestDriver
from tests.drivers.contract import Contract, calls_read_as, held_to
from tests.drivers.contracts import pinterest as documented

CLIENT_ID, CLIENT_SECRET = "1484362", "pinterest-secret"
CALLBACK = "https://press.example/oauth/callback/pin_board"
LINK = "https://press.example/storage/files/file_1?expires=1&signature=abc"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "pina_token"


class Links:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []

    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        self.asked.append((file_id, storage_key, content_type))
        return LINK

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError("Pinterest fetches the image by link; no bytes pass through")


def pin(pin_id: str, created_at: str, **fields: object) -> dict[str, object]:
    """A pin as the docs' response example shapes it (the fields the driver reads, and kin)."""
    return {
        "id": pin_id,
        "created_at": created_at,
        "link": None,
        "title": None,
        "description": None,
        "alt_text": None,
        "board_id": "549755885175",
        "board_section_id": None,
        "board_owner": {"username": "pressroomhq"},
        "media": {"media_type": "image"},
        **fields,
    }


@pytest.fixture
def pinterest() -> Iterator[respx.MockRouter]:
    with respx.mock(
        base_url="https://api.pinterest.com/v5", assert_all_mocked=True, assert_all_called=True
    ) as router:
        yield router


@pytest.fixture
def links() -> Links:
    return Links()


@pytest.fixture
def driver(links: Links) -> Iterator[PinterestDriver]:
    http = NetworkClient(Platform.PIN_BOARD, timeout_seconds=5, backoff_seconds=0)
    yield PinterestDriver(CLIENT_ID, CLIENT_SECRET, Tokens(), http, links)
    http.close()


def consented(driver: PinterestDriver) -> frozenset[str]:
    """The scopes the driver asks for at consent: all a connection is ever granted."""
    url = driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split(","))


@pytest.fixture(autouse=True)
def contract(pinterest: respx.MockRouter, driver: PinterestDriver) -> Iterator[Contract]:
    """Every request any test here makes is held to Pinterest's own description."""
    with held_to(pinterest, documented.contract(consented(driver))) as held:
        yield held


def delivery(**fields: object) -> Delivery:
    return Delivery(
        platform=Platform.PIN_BOARD,
        account=Account("conn_1", "pressroomhq"),
        fields={"boardId": "549755885175", **fields},
        media=Media("file_1", MediaKind.IMAGE, "image/jpeg", "files/file_1"),
        reference="post_1",
    )


def test_the_consent_url_asks_for_pins_and_boards(driver: PinterestDriver) -> None:
    """``boards:write`` too: ``POST /v5/pins`` requires it (Pinterest's API description)."""
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://www.pinterest.com/oauth/"
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "client_id": CLIENT_ID,
        "redirect_uri": CALLBACK,
        "response_type": "code",
        "scope": "boards:read,boards:write,pins:read,pins:write,user_accounts:read",
        "state": "st",
    }
    assert documented.SCOPES["pins_create"] <= consented(driver)


def test_the_code_is_exchanged_with_basic_auth(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    route = pinterest.post("/oauth/token").respond(
        200,
        json={
            "access_token": "pina_new",
            "refresh_token": "pinr_new",
            "response_type": "authorization_code",
            "token_type": "bearer",
            "expires_in": 2592000,
            "refresh_token_expires_in": 31536000,
            "scope": "boards:read,boards:write,pins:read,pins:write,user_accounts:read",
        },
    )
    tokens = driver.exchange_code(code="c0de", redirect_uri=CALLBACK, code_verifier="v")
    assert (tokens.access_token, tokens.refresh_token) == ("pina_new", "pinr_new")
    request = route.calls.last.request
    basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {basic}"
    assert {k: v[0] for k, v in parse_qs(request.content.decode()).items()} == {
        "grant_type": "authorization_code",
        "code": "c0de",
        "redirect_uri": CALLBACK,
        "continuous_refresh": "true",  # apps made before 2025-09-25 must send it
    }


def test_a_refused_refresh_is_token_refused(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.post("/oauth/token").respond(
        400, json={"code": 1, "message": "Invalid refresh token"}
    )
    with pytest.raises(TokenRefused):
        driver.refresh("pinr_old")


def test_the_profile_is_the_username_and_account_type(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/user_account").respond(
        200,
        json={
            "account_type": "BUSINESS",
            "profile_image": "https://i.pinimg.com/p.jpg",
            "website_url": "https://press.example",
            "username": "pressroomhq",
            "business_name": "Pressroom HQ",
        },
    )
    profile = driver.fetch_profile(TokenSet("pina", None, None))
    assert (profile.name, profile.display_name, profile.account_type) == (
        "pressroomhq",
        "Pressroom HQ",
        "business",
    )


def test_a_pin_takes_its_image_by_a_signed_link(
    pinterest: respx.MockRouter, driver: PinterestDriver, links: Links
) -> None:
    route = pinterest.post("/pins").respond(
        201,
        json=pin("813744226420795884", "2026-11-25T12:00:02", title="Spring", description="New"),
    )
    published = driver.publish(delivery(title="Spring", description="New"))
    assert published.platform_post_id == "813744226420795884"
    assert published.url == "https://www.pinterest.com/pin/813744226420795884/"
    assert links.asked == [("file_1", "files/file_1", "image/jpeg")]
    request = route.calls.last.request
    assert request.headers["Authorization"] == "Bearer pina_token"
    assert json.loads(request.content) == {
        "board_id": "549755885175",
        "media_source": {"source_type": "image_url", "url": LINK},
        "title": "Spring",
        "description": "New",
    }


def test_a_pin_answered_200_is_published(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    """Pinterest's description lists 200 beside 201 for ``POST /v5/pins`` since 5.18.0:
    the pin exists, so it is published, never a "maybe sent" to look up."""
    pinterest.post("/pins").respond(
        200, json=pin("813744226420795884", "2026-11-25T12:00:02", title="Spring")
    )
    published = driver.publish(delivery(title="Spring"))
    assert published.platform_post_id == "813744226420795884"


def test_a_pin_without_title_or_description_sends_neither(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    route = pinterest.post("/pins").respond(201, json=pin("1", "2026-11-25T12:00:02"))
    driver.publish(delivery())
    assert set(json.loads(route.calls.last.request.content)) == {"board_id", "media_source"}


@pytest.mark.parametrize(
    ("status", "message", "field"),
    [
        (404, "Board not found.", "boardId"),
        (403, "You are not permitted to access that resource.", "boardId"),
        (400, "Sorry we could not fetch the image.", "fileId"),
        (400, "Invalid parameters.", None),
    ],
)
def test_what_pinterest_refuses_names_the_field(
    pinterest: respx.MockRouter,
    driver: PinterestDriver,
    status: int,
    message: str,
    field: str | None,
) -> None:
    pinterest.post("/pins").respond(status, json={"code": 2, "message": message})
    with pytest.raises(PlatformRefused, match=message) as refused:
        driver.publish(delivery())
    assert refused.value.field == field


def test_rate_limit_revoked_token_and_outage(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    route = pinterest.post("/pins")
    route.side_effect = [
        httpx.Response(429, json={"code": 8, "message": "You have exceeded your rate limit."}),
        httpx.Response(401, json={"code": 2, "message": "Authentication failed."}),
        httpx.Response(500, json={"code": 1, "message": "Something went wrong."}),
    ]
    with pytest.raises(PlatformRateLimited):
        driver.publish(delivery())
    with pytest.raises(AccessRevoked):
        driver.publish(delivery())
    with pytest.raises(PlatformUnavailable) as outage:
        driver.publish(delivery())
    assert outage.value.sent is True and route.call_count == 3


def test_an_unknown_outcome_is_found_on_the_board(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    listing = pinterest.get("/boards/549755885175/pins")
    listing.side_effect = [
        httpx.Response(
            200,
            json={
                "items": [
                    pin("1", "2026-11-25T12:00:05", title="Other", description="New"),
                    pin("2", "2026-11-20T09:00:00", title="Spring", description="New"),
                ],
                "bookmark": "b2",
            },
        ),
        httpx.Response(
            200,
            json={
                "items": [pin("3", "2026-11-25T12:00:01", title="Spring", description="New")],
                "bookmark": None,
            },
        ),
    ]
    found = driver.find_delivery(delivery(title="Spring", description="New"), SENT_AT)
    assert found is not None and found.platform_post_id == "3"
    first, second = (call.request.url.params for call in listing.calls)
    assert first["page_size"] == "100" and "bookmark" not in first
    assert second["bookmark"] == "b2"


def test_a_pin_the_board_does_not_have_is_not_found(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/boards/549755885175/pins").respond(200, json={"items": [], "bookmark": None})
    assert driver.find_delivery(delivery(title="Spring"), SENT_AT) is None


def test_a_description_over_pinterests_800_code_points_never_reaches_pinterest(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    """``PinCreate``'s description is at most 800 code points: a description of 800
    (400 letters with a combining accent, two code points each) is sent and meets the
    contract; one more is refused naming the field and the rule, and nothing is sent.
    Were it sent, the contract would refuse the body the mock recorded."""
    route = pinterest.post("/pins").respond(201, json=pin("1", "2026-11-25T12:00:02"))
    longest = "e\u0301" * 400
    driver.publish(delivery(description=longest))
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(delivery(description=longest + "a"))
    assert refused.value.field == "description"
    assert refused.value.rule is not None
    assert refused.value.rule.id == "pin_board.description_length"
    assert route.call_count == 1


def test_the_contract_holds_a_pin_to_pinterests_limits() -> None:
    """What the generated client's ``PinCreate`` refuses (a description over 800, a board
    id that is not digits, a field it does not have) fails any test that sends it; the
    limits themselves are checked before sending by the rule table, not by the driver."""
    ok = {"board_id": "549755885175", "media_source": {"source_type": "image_url", "url": LINK}}
    documented.check_pin({**ok, "description": "d" * 800})
    for wrong in (
        {**ok, "description": "d" * 801},
        {**ok, "board_id": "board-1"},
        {**ok, "alt": "a photo"},
        {**ok, "media_source": {"source_type": "image_base64", "url": LINK}},
    ):
        with pytest.raises(AssertionError):
            documented.check_pin(wrong)


# --- drivers check: what Pinterest says, read without posting --------------------------

NO_SCOPE = {
    "code": 3,
    "message": "Your token does not have sufficient permissions to perform this operation.",
}


def test_inspect_reads_the_account_and_shows_the_read_scopes_posting_nothing(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/user_account").respond(
        200, json={"account_type": "BUSINESS", "username": "pressroomhq"}
    )
    boards = pinterest.get("/boards").respond(200, json={"items": [], "bookmark": None})
    pinterest.get("/pins").respond(200, json={"items": [], "bookmark": None})

    report = driver.inspect(Account("conn_1", "pressroomhq"))

    assert calls_read_as(pinterest) == {
        ("GET", "api.pinterest.com/v5/user_account"),
        ("GET", "api.pinterest.com/v5/boards"),
        ("GET", "api.pinterest.com/v5/pins"),
    }
    assert boards.calls.last.request.url.params["page_size"] == "1"
    assert report.scopes == {
        "boards:read": ScopeState.GRANTED,
        "boards:write": ScopeState.UNKNOWN,  # shown only by writing
        "pins:read": ScopeState.GRANTED,
        "pins:write": ScopeState.UNKNOWN,
        "user_accounts:read": ScopeState.GRANTED,
    }
    assert (report.account, report.account_type) == ("pressroomhq", "business")
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.UNKNOWN
    assert "boards:write pins:write" in lines["scopes"].meaning
    assert lines["audit"].standing is Standing.UNKNOWN


def test_inspect_sees_a_read_scope_missing_by_its_401(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/user_account").respond(200, json={"account_type": "PINNER", "username": "p"})
    pinterest.get("/boards").respond(200, json={"items": []})
    pinterest.get("/pins").respond(401, json=NO_SCOPE)

    report = driver.inspect(Account("conn_1", "p"))

    assert report.scopes["pins:read"] is ScopeState.MISSING
    assert report.can_publish is False


def test_inspect_with_a_refused_token_says_so(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    for path in ("/user_account", "/boards", "/pins"):
        pinterest.get(path).respond(401, json={"code": 2, "message": "Authentication failed."})
    with pytest.raises(AccessRevoked):
        driver.inspect(Account("conn_1", "p"))


def carousel_delivery(count: int = 3, **fields: object) -> Delivery:
    from dataclasses import replace

    return replace(
        delivery(**fields),
        media=None,
        items=tuple(
            Media(f"file_{n}", MediaKind.IMAGE, "image/jpeg", f"files/file_{n}")
            for n in range(1, count + 1)
        ),
    )


def test_a_carousel_pin_takes_its_images_by_signed_links_in_order(
    pinterest: respx.MockRouter, driver: PinterestDriver, links: Links
) -> None:
    route = pinterest.post("/pins").respond(
        201, json=pin("813744226420795999", "2026-11-25T12:00:02", title="Spring")
    )
    published = driver.publish(carousel_delivery(title="Spring"))
    assert published.platform_post_id == "813744226420795999"
    assert published.items == ()  # Pinterest gives a carousel's items no ids
    assert links.asked == [(f"file_{n}", f"files/file_{n}", "image/jpeg") for n in (1, 2, 3)]
    assert json.loads(route.calls.last.request.content) == {
        "board_id": "549755885175",
        "media_source": {
            "source_type": "multiple_image_urls",
            "items": [{"url": LINK}, {"url": LINK}, {"url": LINK}],
        },
        "title": "Spring",
    }


def test_the_contract_holds_a_carousel_pin_to_pinterests_two_to_five_images() -> None:
    from tests.drivers.contracts.pinterest import check_pin

    source = {"source_type": "multiple_image_urls", "items": [{"url": LINK}] * 6}
    with pytest.raises(AssertionError, match="carousel"):
        check_pin({"board_id": "549755885175", "media_source": source})
    check_pin({"board_id": "549755885175", "media_source": source | {"items": [{"url": LINK}] * 5}})


# --- metrics (GET /v5/pins/{pin_id}/analytics,
# https://developers.pinterest.com/docs/api/v5/pins-analytics) ---


def test_metrics_are_the_pins_lifetime_analytics(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    read = pinterest.get("/pins/813744226420795884/analytics").respond(
        200,
        json={
            "all": {
                "daily_metrics": [
                    {
                        "data_status": "READY",
                        "date": "2026-11-24",
                        "metrics": {"IMPRESSION": 40, "SAVE": 2, "PIN_CLICK": 5},
                    }
                ],
                "summary_metrics": {"IMPRESSION": 40.0, "SAVE": 2.0, "PIN_CLICK": 5.0},
                "lifetime_metrics": {"IMPRESSION": 1210, "SAVE": 31, "PIN_CLICK": 77},
            }
        },
    )
    metrics = driver.fetch_metrics(Account("conn_1", "pressroomhq"), "813744226420795884")
    assert metrics == PostMetrics(impressions=1210, saves=31, clicks=77)
    sent = read.calls.last.request.url.params
    assert sent["metric_types"] == "IMPRESSION,SAVE,PIN_CLICK"
    assert read.calls.last.request.headers["Authorization"] == "Bearer pina_token"
    assert isinstance(driver, MetricsDriver)


def test_metrics_without_lifetime_figures_are_the_last_90_days(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/pins/813744226420795884/analytics").respond(
        200,
        json={"all": {"summary_metrics": {"IMPRESSION": 40.0, "SAVE": 2.0}, "daily_metrics": []}},
    )
    metrics = driver.fetch_metrics(Account("conn_1", "pressroomhq"), "813744226420795884")
    assert metrics == PostMetrics(impressions=40, saves=2)


def test_metrics_of_a_refused_token_are_access_revoked(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/pins/813744226420795884/analytics").respond(
        401, json={"code": 2, "message": "Authentication failed."}
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), "813744226420795884")


def test_metrics_of_a_pin_deleted_on_pinterest_are_unsupported(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/pins/813744226420795884/analytics").respond(
        404, json={"code": 50, "message": "Pin not found."}
    )
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), "813744226420795884")


def test_metrics_of_a_rate_limited_read_are_rate_limited(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    pinterest.get("/pins/813744226420795884/analytics").respond(
        429, json={"code": 8, "message": "Rate limit exceeded."}, headers={"Retry-After": "60"}
    )
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_1", "pressroomhq"), "813744226420795884")


# --- alt text (``PinCreate.alt_text``, at most 500) ---


def test_a_pins_alt_text_is_its_alt_text(
    pinterest: respx.MockRouter, driver: PinterestDriver
) -> None:
    from dataclasses import replace

    route = pinterest.post("/pins").respond(
        201, json=pin("813744226420795884", "2026-11-25T12:00:02")
    )
    sent = delivery()
    assert sent.media is not None
    driver.publish(replace(sent, media=replace(sent.media, alt_text="A tulip field")))
    assert json.loads(route.calls.last.request.content)["alt_text"] == "A tulip field"


def test_alt_text_over_500_or_on_a_carousel_pin_never_reaches_pinterest(
    driver: PinterestDriver,
) -> None:
    from dataclasses import replace

    sent = delivery()
    assert sent.media is not None
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(replace(sent, media=replace(sent.media, alt_text="a" * 501)))
    assert refused.value.field == "fileAlts.file_1"
    assert refused.value.rule is not None and refused.value.rule.id == "pin_board.alt_text"
    carousel = carousel_delivery(2)
    first, second = carousel.items
    with pytest.raises(PlatformRefused, match="carousel"):
        driver.publish(replace(carousel, items=(replace(first, alt_text="one"), second)))


def test_the_contract_holds_alt_text_to_pinterests_500() -> None:
    from tests.drivers.contracts.pinterest import check_pin

    source = {"source_type": "image_url", "url": LINK}
    with pytest.raises(AssertionError, match="alt_text"):
        check_pin({"board_id": "549755885175", "media_source": source, "alt_text": "a" * 501})
    check_pin({"board_id": "549755885175", "media_source": source, "alt_text": "a" * 500})
