"""The page_social driver against the Facebook Graph API's documented shapes (respx).

Pages read 2026-11-25:

- Manual login flow: https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow
- Long-lived tokens: https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived
- Pages API, /me/accounts: https://developers.facebook.com/docs/pages-api/overview
- Page photos: https://developers.facebook.com/docs/graph-api/reference/page/photos/
- Video publishing and status: https://developers.facebook.com/docs/video-api/guides/publishing
- Video API overview (graph.facebook.com for videos): https://developers.facebook.com/docs/video-api/overview
- Paginated results: https://developers.facebook.com/docs/graph-api/results
- Error handling: https://developers.facebook.com/docs/graph-api/guides/error-handling

Every request is held to the Facebook contract (``tests/drivers/contracts/facebook.py``):
documented endpoints and parameters, the token as the ``access_token`` parameter in a
POST body (a read as a POST with ``method=GET``), the scopes asked for at consent.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers import page_social
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    Media,
    MetricsDriver,
    MetricsUnsupported,
    PermissionMissing,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import ScopeState, Standing
from pressroom.service.drivers.page_social import FacebookPagesDriver, GrantedPage
from tests.drivers.contract import calls_read_as, held_to
from tests.drivers.contracts import facebook as facebook_contract

GRAPH = "https://graph.facebook.com/v23.0"
CALLBACK = "https://press.example/oauth/callback/page_social"
LINK = "https://press.example/storage/files/file_1?expires=1&signature=s"
PAGE = "104836135573838"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "EAAPageToken"


class Links:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        return LINK

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError("Facebook fetches media by link")


def graph_error(code: int, message: str, **extra: object) -> dict[str, object]:
    return {
        "error": {
            "message": message,
            "type": "OAuthException",
            "code": code,
            "fbtrace_id": "AbC",
            **extra,
        }
    }


@pytest.fixture
def driver() -> Iterator[FacebookPagesDriver]:
    http = NetworkClient(Platform.PAGE_SOCIAL, timeout_seconds=5, backoff_seconds=0)
    yield FacebookPagesDriver(
        "4242", "app-secret", Tokens(), http, Links(), sleep=lambda _s: None, poll_seconds=0
    )
    http.close()


@pytest.fixture(autouse=True)
def facebook(driver: FacebookPagesDriver) -> Iterator[respx.MockRouter]:
    """Facebook, played by respx; every request is held to its contract at the end."""
    consent = urlsplit(
        driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    )
    asked = frozenset(parse_qs(consent.query)["scope"][0].split(","))
    with (
        respx.mock(assert_all_mocked=True, assert_all_called=True) as router,
        held_to(router, facebook_contract.contract(granted=asked)),
    ):
        yield router


def read(router: respx.MockRouter, path: str, **body: str) -> respx.Route:
    """A documented GET, which the driver sends as a POST with method=GET."""
    return router.post(f"{GRAPH}{path}", data__contains={"method": "GET", **body})


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


def delivery(
    kind: MediaKind = MediaKind.IMAGE, message: str | None = "Open day on Saturday"
) -> Delivery:
    content_type = "image/jpeg" if kind is MediaKind.IMAGE else "video/mp4"
    return Delivery(
        platform=Platform.PAGE_SOCIAL,
        account=Account("conn_1", "Acme Bakery"),
        fields={"message": message} if message else {},
        media=Media("file_1", kind, content_type, "files/file_1", None, 1000),
        reference="post_1",
    )


def page_id_route(facebook: respx.MockRouter) -> respx.Route:
    return read(facebook, "/me").respond(200, json={"id": PAGE})


def test_the_consent_asks_for_page_posting(driver: FacebookPagesDriver) -> None:
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://www.facebook.com/v23.0/dialog/oauth"
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "client_id": "4242",
        "redirect_uri": CALLBACK,
        "state": "st",
        "response_type": "code",
        "scope": "pages_show_list,pages_manage_posts,pages_read_engagement,"
        "pages_manage_engagement,read_insights",
    }


def test_the_code_becomes_a_long_lived_user_token(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    route = facebook.post(f"{GRAPH}/oauth/access_token")
    route.side_effect = [
        httpx.Response(
            200, json={"access_token": "EAAshort", "token_type": "bearer", "expires_in": 5183}
        ),
        httpx.Response(
            200, json={"access_token": "EAAlong", "token_type": "bearer", "expires_in": 5183944}
        ),
    ]
    tokens = driver.exchange_code(code="AQD", redirect_uri=CALLBACK, code_verifier="v")
    assert tokens.access_token == "EAAlong"
    # the secret, the code and the tokens travel in the body, never in the URL
    assert all(c.request.url.query == b"" for c in route.calls)
    first, second = (
        {k: v[0] for k, v in parse_qs(c.request.content.decode()).items()} for c in route.calls
    )
    assert first == {
        "client_id": "4242",
        "client_secret": "app-secret",
        "redirect_uri": CALLBACK,
        "code": "AQD",
    }
    assert second == {
        "grant_type": "fb_exchange_token",
        "client_id": "4242",
        "client_secret": "app-secret",
        "fb_exchange_token": "EAAshort",
    }


def test_a_refused_code_is_token_refused(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    facebook.post(f"{GRAPH}/oauth/access_token").respond(
        400, json=graph_error(100, "This authorization code has been used.", error_subcode=36009)
    )
    with pytest.raises(TokenRefused):
        driver.exchange_code(code="used", redirect_uri=CALLBACK, code_verifier="v")


def page(page_id: str, name: str, token: str) -> dict[str, object]:
    return {
        "access_token": token,
        "category": "Bakery",
        "name": name,
        "id": page_id,
        "tasks": ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE"],
    }


def test_every_granted_page_is_listed_across_pages_of_results(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    """/me/accounts is cursor-paged: the Pages after the first page of results count too."""
    accounts = read(facebook, "/me/accounts")
    accounts.side_effect = [
        httpx.Response(
            200,
            json={
                "data": [page(PAGE, "Acme Bakery", "EAAPage1"), page("2", "Acme Cafe", "EAAPage2")],
                "paging": {
                    "cursors": {"before": "QVFIUb", "after": "QVFIUa"},
                    "next": f"{GRAPH}/me/accounts?after=QVFIUa",
                },
            },
        ),
        httpx.Response(
            200,
            json={
                "data": [page("3", "Acme Deli", "EAAPage3")],
                "paging": {"cursors": {"before": "QVFIUc", "after": "QVFIUd"}},
            },
        ),
    ]
    pages = driver.granted_pages(TokenSet("EAAlong", None, None))
    assert [(p.id, p.name, p.token) for p in pages] == [
        (PAGE, "Acme Bakery", "EAAPage1"),
        ("2", "Acme Cafe", "EAAPage2"),
        ("3", "Acme Deli", "EAAPage3"),
    ]
    assert "EAAPage" not in repr(pages)
    first, second = (form(c.request) for c in accounts.calls)
    assert "after" not in first and second["after"] == "QVFIUa"
    assert first["access_token"] == second["access_token"] == "EAAlong"


@pytest.mark.parametrize(("granted", "permission"), [("granted", True), ("declined", False)])
def test_a_chosen_page_connects_with_its_own_token(
    facebook: respx.MockRouter, driver: FacebookPagesDriver, granted: str, permission: bool
) -> None:
    facebook.post(f"{GRAPH}/me/permissions").respond(
        200,
        json={
            "data": [
                {"permission": "pages_show_list", "status": "granted"},
                {"permission": "pages_manage_posts", "status": granted},
            ]
        },
    )
    chosen = GrantedPage("2", "Acme Cafe", "EAAPage2", ("CREATE_CONTENT",))
    profile = driver.page_profile(TokenSet("EAAlong", None, None), chosen)
    assert (profile.name, profile.page_kind, profile.pages_permission) == (
        "Acme Cafe",
        "page",
        permission,
    )
    assert profile.page_token == "EAAPage2"
    assert "EAAPage2" not in repr(profile)


def test_a_person_who_granted_no_page_connects_a_profile(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    read(facebook, "/me/accounts").respond(200, json={"data": []})
    read(facebook, "/me").respond(200, json={"id": "10158", "name": "Ada Baker"})
    profile = driver.fetch_profile(TokenSet("EAAlong", None, None))
    assert (profile.name, profile.page_kind, profile.page_token) == ("Ada Baker", "profile", None)


def test_a_photo_is_posted_from_a_signed_link(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    me = page_id_route(facebook)
    photos = facebook.post(f"{GRAPH}/{PAGE}/photos").respond(
        200, json={"id": "1223", "post_id": f"{PAGE}_5678"}
    )
    published = driver.publish(delivery())
    driver.publish(delivery(message=None))
    assert me.call_count == 1  # the Page id is read once
    assert published.platform_post_id == f"{PAGE}_5678"
    assert published.url == f"https://www.facebook.com/{PAGE}_5678"
    request = photos.calls[0].request
    assert "authorization" not in request.headers and request.url.query == b""
    assert form(request) == {
        "url": LINK,
        "published": "true",
        "message": "Open day on Saturday",
        "access_token": "EAAPageToken",
    }
    assert "message" not in parse_qs(photos.calls[1].request.content.decode())


def comment(text: str = "Menu: acme.example/menu") -> Delivery:
    """A first comment on the Page's post ``{PAGE}_5678``."""
    return Delivery(
        platform=Platform.PAGE_SOCIAL,
        account=Account("conn_1", "Acme Bakery"),
        fields={"text": text},
        media=None,
        reference="post_1.1",
        comment_on=f"{PAGE}_5678",
    )


def test_a_first_comment_goes_on_the_post_as_the_page(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    made = facebook.post(f"{GRAPH}/{PAGE}_5678/comments").respond(200, json={"id": "5678_901"})
    read(facebook, "/5678_901").respond(
        200,
        json={
            "permalink_url": f"https://www.facebook.com/{PAGE}_5678?comment_id=901",
            "created_time": "2026-11-25T12:00:05+0000",
            "id": "5678_901",
        },
    )
    published = driver.publish(comment())
    assert (published.platform_post_id, published.url) == (
        "5678_901",
        f"https://www.facebook.com/{PAGE}_5678?comment_id=901",
    )
    assert form(made.calls.last.request) == {
        "message": "Menu: acme.example/menu",
        "access_token": "EAAPageToken",
    }


def test_a_comment_whose_answer_was_lost_is_found_among_the_posts_comments(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    listed = read(facebook, f"/{PAGE}_5678/comments").respond(
        200,
        json={
            "data": [
                {
                    "id": "5678_900",
                    "message": "Menu: acme.example/menu",
                    "created_time": "2026-11-20T12:00:05+0000",  # before the send: not it
                },
                {
                    "id": "5678_901",
                    "message": "Menu: acme.example/menu",
                    "created_time": "2026-11-25T12:00:05+0000",
                    "permalink_url": "https://www.facebook.com/c/901",
                },
            ]
        },
    )
    found = driver.find_delivery(comment(), datetime(2026, 11, 25, 12, 0, tzinfo=UTC))
    assert found is not None and (found.platform_post_id, found.url) == (
        "5678_901",
        "https://www.facebook.com/c/901",
    )
    assert form(listed.calls.last.request)["filter"] == "stream"


def test_a_video_is_posted_and_awaited_until_ready(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    videos = facebook.post(f"{GRAPH}/{PAGE}/videos").respond(200, json={"id": "987654"})
    status = read(facebook, "/987654")
    status.side_effect = [
        httpx.Response(
            200,
            json={
                "status": {
                    "video_status": "processing",
                    "processing_phase": {"status": "in_progress"},
                },
                "id": "987654",
            },
        ),
        httpx.Response(
            200,
            json={
                "status": {"video_status": "ready", "processing_phase": {"status": "complete"}},
                "id": "987654",
            },
        ),
    ]
    published = driver.publish(delivery(MediaKind.VIDEO))
    assert published.url == f"https://www.facebook.com/{PAGE}/videos/987654/"
    # graph.facebook.com: the Video API overview calls graph-video.facebook.com deprecated
    assert videos.calls.last.request.url.host == "graph.facebook.com"
    assert form(videos.calls.last.request) == {
        "file_url": LINK,
        "description": "Open day on Saturday",
        "access_token": "EAAPageToken",
    }
    assert form(status.calls.last.request)["fields"] == "status"


def test_a_video_facebook_cannot_process_is_refused_with_its_reason(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    facebook.post(f"{GRAPH}/{PAGE}/videos").respond(200, json={"id": "987654"})
    read(facebook, "/987654").respond(
        200,
        json={
            "status": {
                "video_status": "error",
                "processing_phase": {
                    "status": "error",
                    "errors": [{"code": 1363008, "message": "The video file is corrupt"}],
                },
            }
        },
    )
    with pytest.raises(PlatformRefused, match="corrupt"):
        driver.publish(delivery(MediaKind.VIDEO))


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (
            graph_error(
                190,
                "Error validating access token: The user has not authorized application 4242.",
                error_subcode=458,
            ),
            AccessRevoked,
        ),
        (graph_error(32, "Page request limit reached"), PlatformRateLimited),
        (
            graph_error(200, "(#200) The page does not have pages_manage_posts permission"),
            PermissionMissing,
        ),
        (graph_error(506, "Duplicate status message"), PlatformRefused),
        (
            graph_error(
                2,
                "An unexpected error has occurred. Please retry your request later.",
                is_transient=True,
            ),
            PlatformUnavailable,
        ),
    ],
)
def test_graph_errors_become_the_services_failures(
    facebook: respx.MockRouter,
    driver: FacebookPagesDriver,
    error: dict[str, object],
    raised: type[Exception],
) -> None:
    page_id_route(facebook)
    facebook.post(f"{GRAPH}/{PAGE}/photos").respond(400, json=error)
    with pytest.raises(raised) as caught:
        driver.publish(delivery())
    if isinstance(caught.value, PermissionMissing):
        assert caught.value.code.code == "pages_permission_missing"


def test_an_unknown_photo_is_found_among_the_pages_posts(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    posts = read(facebook, f"/{PAGE}/published_posts").respond(
        200,
        json={
            "data": [
                {
                    "id": f"{PAGE}_1",
                    "message": "Another",
                    "created_time": "2026-11-25T12:00:05+0000",
                },
                {
                    "id": f"{PAGE}_2",
                    "message": "Open day on Saturday",
                    "created_time": "2026-11-25T12:00:03+0000",
                },
            ]
        },
    )
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None and found.platform_post_id == f"{PAGE}_2"
    params = form(posts.calls.last.request)
    assert params["fields"] == "id,message,created_time"
    assert int(params["since"]) == int(SENT_AT.timestamp()) - 120


def test_an_unknown_video_is_looked_up_among_the_pages_videos(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    read(facebook, f"/{PAGE}/videos").respond(200, json={"data": []})
    assert driver.find_delivery(delivery(MediaKind.VIDEO), SENT_AT) is None


def test_a_draft_is_an_unpublished_page_post(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    """``drivers check --draft``: a post only the Page's admins see (published=false)."""
    page_id_route(facebook)
    feed = facebook.post(f"{GRAPH}/{PAGE}/feed").respond(200, json={"id": f"{PAGE}_777"})
    assert driver.draft_post(Account("conn_1", "Acme Bakery"), "pressroom check") == f"{PAGE}_777"
    assert form(feed.calls.last.request) == {
        "message": "pressroom check",
        "published": "false",
        "access_token": "EAAPageToken",
    }


def test_a_read_sent_as_a_post_is_retried_as_a_read(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    """A GET edge goes as POST method=GET: still a read, tried again on a 503."""
    accounts = read(facebook, "/me/accounts")
    accounts.side_effect = [
        httpx.Response(503),
        httpx.Response(200, json={"data": [page(PAGE, "Acme Bakery", "EAAPage1")]}),
    ]
    assert [p.name for p in driver.granted_pages(TokenSet("EAAlong", None, None))] == [
        "Acme Bakery"
    ]
    assert accounts.call_count == 2


# --- drivers check: what Facebook says, read without posting ---------------------------


def debugged(facebook: respx.MockRouter, **data: object) -> respx.Route:
    """``/debug_token`` for the Page's token, asked with the app's own token."""
    answer = {
        "app_id": "4242",
        "type": "PAGE",
        "application": "pressroom",
        "expires_at": 0,
        "is_valid": True,
        "issued_at": 1764000000,
        "profile_id": PAGE,
        "scopes": [
            "pages_show_list",
            "pages_manage_posts",
            "pages_read_engagement",
            "pages_manage_engagement",
            "read_insights",
        ],
        "granular_scopes": [
            {"scope": "pages_show_list", "target_ids": [PAGE]},
            {"scope": "pages_manage_posts", "target_ids": [PAGE]},
            {"scope": "pages_read_engagement", "target_ids": [PAGE]},
            {"scope": "pages_manage_engagement", "target_ids": [PAGE]},
        ],
        "user_id": "10158",
        **data,
    }
    return read(facebook, "/debug_token", input_token="EAAPageToken").respond(
        200, json={"data": answer}
    )


def test_inspect_reads_the_page_tokens_grant_with_the_apps_token_posting_nothing(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    debug = debugged(facebook)
    read(facebook, "/me").respond(200, json={"id": PAGE, "name": "Acme Bakery"})

    report = driver.inspect(Account("conn_1", "Acme Bakery"))

    assert calls_read_as(facebook) == {
        ("GET", "graph.facebook.com/v23.0/debug_token"),
        ("GET", "graph.facebook.com/v23.0/me"),
    }
    sent = form(debug.calls.last.request)
    assert sent["access_token"] == "4242|app-secret"  # the app's token, in the body
    assert "app-secret" not in str(debug.calls.last.request.url)
    assert report.scopes == {
        "pages_show_list": ScopeState.GRANTED,
        "pages_manage_posts": ScopeState.GRANTED,
        "pages_read_engagement": ScopeState.GRANTED,
        "pages_manage_engagement": ScopeState.GRANTED,
        "read_insights": ScopeState.GRANTED,
    }
    assert (report.account, report.account_type) == ("Acme Bakery", "page")
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.OK
    assert lines["account type"].standing is Standing.OK
    assert lines["audit"].standing is Standing.UNKNOWN
    assert lines["Page role"].standing is Standing.UNKNOWN


def test_inspect_sees_posting_granted_for_other_pages_only(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    """``pages_manage_posts`` granted, but for another Page (``granular_scopes``)."""
    debugged(
        facebook,
        granular_scopes=[
            {"scope": "pages_show_list", "target_ids": [PAGE]},
            {"scope": "pages_manage_posts", "target_ids": ["999"]},
            {"scope": "pages_read_engagement", "target_ids": [PAGE]},
            {"scope": "pages_manage_engagement", "target_ids": [PAGE]},
        ],
    )
    read(facebook, "/me").respond(200, json={"id": PAGE, "name": "Acme Bakery"})

    report = driver.inspect(Account("conn_1", "Acme Bakery"))

    assert report.missing == ("pages_manage_posts",)
    assert report.can_publish is False


def multi_photo(message: str | None = "Open day, in pictures") -> Delivery:
    return Delivery(
        platform=Platform.PAGE_SOCIAL,
        account=Account("conn_1", "Acme Bakery"),
        fields={"message": message} if message else {},
        media=None,
        reference="post_1",
        items=tuple(
            Media(f"file_{n}", MediaKind.IMAGE, "image/jpeg", f"files/file_{n}", None, 1000)
            for n in (1, 2, 3)
        ),
    )


def test_a_multi_photo_post_is_unpublished_photos_attached_to_one_post(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    photos = facebook.post(f"{GRAPH}/{PAGE}/photos")
    photos.side_effect = [httpx.Response(200, json={"id": p}) for p in ("701", "702", "703")]
    feed = facebook.post(f"{GRAPH}/{PAGE}/feed").respond(200, json={"id": f"{PAGE}_9001"})

    post = driver.publish(multi_photo())

    sent = [form(call.request) for call in photos.calls]
    assert [(p["url"], p["published"]) for p in sent] == [(LINK, "false")] * 3
    posted = form(feed.calls.last.request)
    assert posted["message"] == "Open day, in pictures"
    assert [posted[f"attached_media[{i}]"] for i in range(3)] == [
        '{"media_fbid":"701"}',
        '{"media_fbid":"702"}',
        '{"media_fbid":"703"}',
    ]
    assert (post.platform_post_id, post.url) == (
        f"{PAGE}_9001",
        f"https://www.facebook.com/{PAGE}_9001",
    )
    assert [(i.platform_post_id, i.url) for i in post.items] == [
        (p, f"https://www.facebook.com/photo/?fbid={p}") for p in ("701", "702", "703")
    ]


def test_the_contract_takes_attached_photos_only_from_unpublished_uploads() -> None:
    """A Page post's attached_media, and a photo story's photo, are photos uploaded with
    published=false before it; a published photo's id, or none uploaded, is refused."""
    token = {"access_token": "EAAPageToken"}

    def sent(held: Any, path: str, **body: str) -> None:
        held.check(httpx.Request("POST", f"{GRAPH}/{PAGE}/{path}", data={**token, **body}))

    attached = {f"attached_media[{i}]": f'{{"media_fbid":"70{i}"}}' for i in range(2)}
    held = facebook_contract.contract()
    sent(held, "photos", url=LINK, published="false")
    sent(held, "photos", url=LINK, published="false")
    sent(held, "feed", message="Open day", **attached)
    for uploads in ({"published": "true"}, {}):
        held = facebook_contract.contract()
        sent(held, "photos", url=LINK, published="false")
        sent(held, "photos", url=LINK, **uploads)  # published: not attachable
        with pytest.raises(AssertionError, match="published=false"):
            sent(held, "feed", message="Open day", **attached)
    with pytest.raises(AssertionError, match="published=false"):
        sent(facebook_contract.contract(), "photo_stories", photo_id="701")


def test_a_photo_facebook_refuses_names_its_place_and_posts_nothing(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    photos = facebook.post(f"{GRAPH}/{PAGE}/photos")
    photos.side_effect = [
        httpx.Response(200, json={"id": "701"}),
        httpx.Response(400, json=graph_error(324, "Missing or invalid image file")),
    ]
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(multi_photo())
    assert refused.value.field == "fileIds[1]"


def test_an_unknown_multi_photo_post_is_found_with_its_photos(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    read(facebook, f"/{PAGE}/published_posts").respond(
        200,
        json={
            "data": [
                {
                    "id": f"{PAGE}_9001",
                    "message": "Open day, in pictures",
                    "created_time": "2026-11-25T12:00:03+0000",
                }
            ]
        },
    )
    attachments = read(facebook, f"/{PAGE}_9001/attachments").respond(
        200,
        json={
            "data": [
                {
                    "type": "album",
                    "subattachments": {
                        "data": [
                            {"target": {"id": p}, "type": "photo"} for p in ("701", "702", "703")
                        ]
                    },
                }
            ]
        },
    )
    found = driver.find_delivery(multi_photo(), SENT_AT)
    assert found is not None and found.platform_post_id == f"{PAGE}_9001"
    assert [i.platform_post_id for i in found.items] == ["701", "702", "703"]
    assert form(attachments.calls.last.request)["fields"] == "subattachments"


# --- formats: reel and story ----------------------------------------------------------

REEL = "1234567890123456"
RUPLOAD = f"https://rupload.facebook.com/video-upload/v23.0/{REEL}"


def formatted(
    kind: MediaKind, post_format: str, message: str | None = "Open day on Saturday"
) -> Delivery:
    """``delivery`` with the body's ``format``; a story carries no text (the rule table
    refuses one before the driver is reached)."""
    base = delivery(kind, message)
    return Delivery(
        platform=base.platform,
        account=base.account,
        fields={**base.fields, "format": post_format},
        media=base.media,
        reference=base.reference,
    )


def session(facebook: respx.MockRouter, edge: str) -> tuple[respx.Route, respx.Route]:
    """An upload session opened on ``edge`` and the video fetched into it by Facebook."""
    start = facebook.post(f"{GRAPH}/{PAGE}/{edge}", data__contains={"upload_phase": "start"})
    start.respond(200, json={"video_id": REEL, "upload_url": RUPLOAD})
    upload = facebook.post(RUPLOAD).respond(200, json={"success": True})
    return start, upload


def test_a_reel_is_a_session_a_fetched_upload_and_a_published_finish(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    start, upload = session(facebook, "video_reels")
    finish = facebook.post(
        f"{GRAPH}/{PAGE}/video_reels", data__contains={"upload_phase": "finish"}
    ).respond(200, json={"success": True})
    status = read(facebook, f"/{REEL}")
    status.side_effect = [
        httpx.Response(200, json={"status": {"video_status": "processing"}, "id": REEL}),
        httpx.Response(200, json={"status": {"video_status": "ready"}, "id": REEL}),
    ]
    post = driver.publish(formatted(MediaKind.VIDEO, "reel"))
    assert form(start.calls.last.request) == {
        "upload_phase": "start",
        "access_token": "EAAPageToken",
    }
    sent = upload.calls.last.request
    assert sent.headers["Authorization"] == "OAuth EAAPageToken"
    assert sent.headers["file_url"] == LINK
    assert form(finish.calls.last.request) == {
        "upload_phase": "finish",
        "video_id": REEL,
        "video_state": "PUBLISHED",
        "description": "Open day on Saturday",
        "access_token": "EAAPageToken",
    }
    assert status.call_count == 2
    assert (post.platform_post_id, post.url) == (REEL, f"https://www.facebook.com/reel/{REEL}")


def test_a_reel_facebook_cannot_fetch_is_refused_naming_the_file_and_never_finished(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    facebook.post(f"{GRAPH}/{PAGE}/video_reels").respond(
        200, json={"video_id": REEL, "upload_url": RUPLOAD}
    )
    facebook.post(RUPLOAD).respond(
        400,
        json={
            "debug_info": {
                "retriable": False,
                "type": "ProcessingFailedError",
                "message": "Request processing failed",
            }
        },
    )
    with pytest.raises(PlatformRefused, match="Request processing failed") as caught:
        driver.publish(formatted(MediaKind.VIDEO, "reel"))
    assert caught.value.field == "fileId"
    assert [
        form(c.request)["upload_phase"]
        for c in facebook.calls
        if "video_reels" in str(c.request.url)
    ] == ["start"]


def test_a_reel_over_the_pages_daily_limit_is_a_rate_limit(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    session(facebook, "video_reels")
    facebook.post(f"{GRAPH}/{PAGE}/video_reels", data__contains={"upload_phase": "finish"}).respond(
        400, json=graph_error(4, "(#4) Application request limit reached")
    )
    with pytest.raises(PlatformRateLimited):
        driver.publish(formatted(MediaKind.VIDEO, "reel"))


def test_a_reel_whose_finish_went_unanswered_is_found_among_the_pages_reels(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    session(facebook, "video_reels")
    facebook.post(f"{GRAPH}/{PAGE}/video_reels", data__contains={"upload_phase": "finish"}).mock(
        side_effect=httpx.ReadTimeout("no answer")
    )
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(formatted(MediaKind.VIDEO, "reel"))
    assert caught.value.sent is True
    listed = read(facebook, f"/{PAGE}/video_reels").respond(
        200,
        json={
            "data": [
                {
                    "id": REEL,
                    "description": "Open day on Saturday",
                    "created_time": "2026-11-25T12:00:05+0000",
                }
            ]
        },
    )
    found = driver.find_delivery(formatted(MediaKind.VIDEO, "reel"), SENT_AT)
    assert found is not None and found.url == f"https://www.facebook.com/reel/{REEL}"
    assert form(listed.calls.last.request)["fields"] == "id,description,created_time"


def test_a_photo_story_is_an_unpublished_photo_then_a_photo_story(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    photo = facebook.post(f"{GRAPH}/{PAGE}/photos").respond(200, json={"id": "5550001"})
    story = facebook.post(f"{GRAPH}/{PAGE}/photo_stories").respond(
        200, json={"success": True, "post_id": "5550002"}
    )
    post = driver.publish(formatted(MediaKind.IMAGE, "story", None))
    assert form(photo.calls.last.request) == {
        "url": LINK,
        "published": "false",
        "access_token": "EAAPageToken",
    }
    assert form(story.calls.last.request) == {"photo_id": "5550001", "access_token": "EAAPageToken"}
    assert (post.platform_post_id, post.url) == ("5550002", "https://www.facebook.com/5550002")


def test_a_video_story_is_a_session_a_fetched_upload_and_a_finish(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    _start, upload = session(facebook, "video_stories")
    finish = facebook.post(
        f"{GRAPH}/{PAGE}/video_stories", data__contains={"upload_phase": "finish"}
    ).respond(200, json={"success": True, "post_id": "5550003"})
    post = driver.publish(formatted(MediaKind.VIDEO, "story", None))
    assert upload.calls.last.request.headers["file_url"] == LINK
    assert form(finish.calls.last.request) == {
        "upload_phase": "finish",
        "video_id": REEL,
        "access_token": "EAAPageToken",
    }
    assert post.platform_post_id == "5550003"


def test_a_story_without_the_pages_permission_is_the_pages_permission_missing(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    page_id_route(facebook)
    photo = facebook.post(f"{GRAPH}/{PAGE}/photos").respond(
        403, json=graph_error(200, "(#200) Requires pages_manage_posts permission")
    )
    with pytest.raises(PermissionMissing):
        driver.publish(formatted(MediaKind.IMAGE, "story", None))
    assert form(photo.calls.last.request)["published"] == "false"  # the story's photo


def test_a_story_whose_answer_was_lost_is_not_looked_up(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    from pressroom.service.drivers.base import LookupUnsupported

    page_id_route(facebook)
    with pytest.raises(LookupUnsupported, match="stories"):
        driver.find_delivery(formatted(MediaKind.IMAGE, "story", None), SENT_AT)


def test_the_contract_refuses_reel_and_story_calls_facebook_would_not_take() -> None:
    """A finish without its video_id or state, a start carrying the finish's fields, a
    story photo named by link, an upload with a Bearer token or no file_url."""
    held = facebook_contract.contract()
    for path, body in (
        (f"/{PAGE}/video_reels", {"upload_phase": "finish", "video_id": REEL}),
        (f"/{PAGE}/video_reels", {"upload_phase": "start", "description": "x"}),
        (f"/{PAGE}/photo_stories", {"url": LINK}),
        (f"/{PAGE}/video_stories", {"upload_phase": "start", "video_id": REEL}),
    ):
        request = httpx.Request(
            "POST", f"{GRAPH}{path}", data={**body, "access_token": "EAAPageToken"}
        )
        with pytest.raises(AssertionError):
            held.check(request)
    for headers in (
        {"Authorization": "Bearer EAAPageToken", "file_url": LINK},
        {"Authorization": "OAuth EAAPageToken"},
    ):
        with pytest.raises(AssertionError):
            held.check(httpx.Request("POST", RUPLOAD, headers=headers))


# --- metrics (GET /{post-id} with field expansion,
# https://developers.facebook.com/docs/graph-api/reference/post/) ---

POST = f"{PAGE}_122103418394567"
COUNTS = "reactions.limit(0).summary(total_count),comments.limit(0).summary(true)"


def test_metrics_are_the_posts_reactions_comments_and_shares(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    node = read(facebook, f"/{POST}").respond(
        200,
        json={
            "shares": {"count": 3},
            "reactions": {"data": [], "summary": {"total_count": 25, "viewer_reaction": "NONE"}},
            "comments": {
                "data": [],
                "summary": {"order": "ranked", "total_count": 4, "can_comment": True},
            },
            "id": POST,
        },
    )
    insights(facebook, 200, {"data": [VIEWS]})
    metrics = driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)
    assert metrics == PostMetrics(impressions=412, likes=25, comments=4, shares=3)
    assert form(node.calls.last.request)["fields"] == f"shares,{COUNTS}"
    assert isinstance(driver, MetricsDriver)


VIEWS = {
    "name": "post_media_view",
    "period": "lifetime",
    "values": [{"value": 412}],
    "title": "Lifetime Post Media Views",
    "description": "Lifetime: The number of times your post was on screen.",
    "id": f"{POST}/insights/post_media_view/lifetime",
}
"""An insights row as https://developers.facebook.com/docs/graph-api/reference/insights
shows them (its metric the post_impressions replacement the Pages API changelog names)."""


def insights(facebook: respx.MockRouter, status: int, answer: dict[str, object]) -> respx.Route:
    return read(facebook, f"/{POST}/insights", metric="post_media_view").respond(
        status, json=answer
    )


def counts(facebook: respx.MockRouter) -> None:
    read(facebook, f"/{POST}").respond(
        200,
        json={
            "reactions": {"data": [], "summary": {"total_count": 7}},
            "comments": {"data": [], "summary": {"total_count": 1}},
            "id": POST,
        },
    )


def test_a_page_under_100_likes_counts_no_impressions_and_keeps_the_rest(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    counts(facebook)
    insights(
        facebook,
        400,
        {
            "error": {
                "message": "Facebook Page insights are only available for Pages with at "
                "least 100 likes.",
                "type": "OAuthException",
                "code": 2874008,
            }
        },
    )
    metrics = driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)
    assert metrics == PostMetrics(impressions=None, likes=7, comments=1)


def test_a_grant_without_read_insights_counts_no_impressions(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    """A connection made before pressroom asked for read_insights keeps its other figures;
    those left None are the ones ``METRICS_SCOPES`` says the scope gives, the table the
    sandbox counts by."""
    counts(facebook)
    insights(
        facebook,
        403,
        {"error": {"message": "(#10) Requires read_insights permission", "code": 10}},
    )
    metrics = driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)
    assert metrics == PostMetrics(impressions=None, likes=7, comments=1)
    assert page_social.METRICS_SCOPES == {page_social.INSIGHTS_SCOPE: ("impressions",)}


def test_insights_over_the_rate_limit_fail_the_read(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    counts(facebook)
    insights(facebook, 400, {"error": {"message": "(#32) Page request limit reached", "code": 32}})
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)


def test_the_contract_refuses_the_deprecated_impressions_and_insights_without_the_scope() -> None:
    asked = {"method": "GET", "access_token": "EAAPageToken"}
    granted = frozenset(
        {"pages_show_list", "pages_manage_posts", "pages_read_engagement", "read_insights"}
    )
    held = facebook_contract.contract(granted=granted)
    held.check(
        httpx.Request(
            "POST", f"{GRAPH}/{POST}/insights", data={**asked, "metric": "post_media_view"}
        )
    )
    for metric in ("post_impressions", "post_impressions_unique", "post_views"):
        with pytest.raises(AssertionError):
            held.check(
                httpx.Request("POST", f"{GRAPH}/{POST}/insights", data={**asked, "metric": metric})
            )
    without = facebook_contract.contract(granted=granted - {"read_insights"})
    with pytest.raises(AssertionError):
        without.check(
            httpx.Request(
                "POST", f"{GRAPH}/{POST}/insights", data={**asked, "metric": "post_media_view"}
            )
        )


def test_metrics_of_a_video_ask_for_no_shares_and_count_none(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    node = read(facebook, "/1139400397532140").respond(
        200,
        json={
            "reactions": {"data": [], "summary": {"total_count": 2}},
            "comments": {"data": [], "summary": {"total_count": 0}},
            "id": "1139400397532140",
        },
    )
    metrics = driver.fetch_metrics(Account("conn_1", "Acme Bakery"), "1139400397532140")
    assert metrics == PostMetrics(likes=2, comments=0)
    assert form(node.calls.last.request)["fields"] == COUNTS


def test_metrics_of_a_refused_token_are_access_revoked(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    read(facebook, f"/{POST}").respond(
        400,
        json={
            "error": {
                "message": "Error validating access token: The session has been invalidated",
                "type": "OAuthException",
                "code": 190,
                "error_subcode": 460,
            }
        },
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)


def test_metrics_of_a_post_deleted_on_facebook_are_unsupported(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    read(facebook, f"/{POST}").respond(
        400,
        json={
            "error": {
                "message": f"Unsupported get request. Object with ID '{POST}' does not exist, "
                "cannot be loaded due to missing permissions, or does not support this "
                "operation.",
                "type": "GraphMethodException",
                "code": 100,
                "error_subcode": 33,
            }
        },
    )
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)


def test_metrics_over_the_pages_rate_limit_are_rate_limited(
    facebook: respx.MockRouter, driver: FacebookPagesDriver
) -> None:
    read(facebook, f"/{POST}").respond(
        400,
        json={"error": {"message": "(#32) Page request limit reached", "code": 32}},
    )
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_1", "Acme Bakery"), POST)
