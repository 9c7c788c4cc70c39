"""LinkedIn's documented requests, for ``tests.drivers.contract``.

LinkedIn publishes no machine-readable description of the Posts API (no OpenAPI, no
schema package; ``linkedin-api-client`` on PyPI is a Rest.li client, not a schema), so
each endpoint has a typed model written from LinkedIn's pages (the constants below, on
learn.microsoft.com, read 2026-11-26), forbidding every field the page does not list;
each field names the page it comes from. The versioned endpoints also hold the
``LinkedIn-Version`` sent to the versions LinkedIn serves on the test's day.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tests.drivers.contract import Contract, Endpoint, bearer, form_body, json_body, query

_LEARN = "https://learn.microsoft.com/en-us/linkedin"
POSTS_API = f"{_LEARN}/marketing/community-management/shares/posts-api"
POST_SCHEMA = f"{_LEARN}/marketing/community-management/shares/post-api-schema"
COMMENTS_API = f"{_LEARN}/marketing/community-management/shares/comments-api"
IMAGES_API = f"{_LEARN}/marketing/community-management/shares/images-api"
MULTI_IMAGE_API = f"{_LEARN}/marketing/community-management/shares/multiimage-post-api"
DOCUMENTS_API = f"{_LEARN}/marketing/community-management/shares/documents-api"
VERSIONING = f"{_LEARN}/marketing/versioning"
MIGRATIONS = f"{_LEARN}/marketing/integrations/migrations"
RECENT_CHANGES = f"{_LEARN}/marketing/integrations/recent-changes"
AUTH_CODE_FLOW = f"{_LEARN}/shared/authentication/authorization-code-flow"
REFRESH_TOKENS = f"{_LEARN}/shared/authentication/programmatic-refresh-tokens"
SIGN_IN_V2 = f"{_LEARN}/consumer/integrations/self-serve/sign-in-with-linkedin-v2"
INTROSPECTION = f"{_LEARN}/shared/authentication/token-introspection"
SOCIAL_ACTIONS = f"{_LEARN}/marketing/community-management/shares/network-update-social-actions"
MEMBER_POST_ANALYTICS = f"{_LEARN}/marketing/community-management/members/post-statistics"
"""The Member Post Analytics API (``memberCreatorPostAnalytics``, 2025), scope
``r_member_postAnalytics`` of the Community Management API product: the page's exact
address is not confirmed here."""

SUNSETS = {
    "202510": date(2026, 10, 15),
    "202511": date(2026, 11, 16),
    "202601": date(2027, 1, 15),
    "202602": date(2027, 2, 15),
    "202603": date(2027, 3, 16),
}
"""Sunset dates the migrations page lists (MIGRATIONS, its "API Migration Status" table)."""
LATEST_DOCUMENTED = "202608"
"""RECENT_CHANGES names "August 2026 - Version 202608 (Latest)"."""
SERVED_MONTHS = 12
"""VERSIONING: "supported and stable for a minimum of one year before sunset"."""


class _Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Distribution(_Forbid):
    # POST_SCHEMA, "Distribution": where the post is distributed.
    feedDistribution: Literal["MAIN_FEED", "NONE"]  # POST_SCHEMA, required
    targetEntities: list[dict[str, Any]] | None = None  # POST_SCHEMA, optional
    thirdPartyDistributionChannels: list[str] | None = None  # POST_SCHEMA, optional


class MultiImageItem(_Forbid):
    id: str = Field(pattern=r"^urn:li:image:[^:\s]+$")  # MULTI_IMAGE_API: an image URN
    altText: str | None = None  # MULTI_IMAGE_API: optional


class MultiImage(_Forbid):
    # MULTI_IMAGE_API: "minimum of 2 images and maximum of 20 images".
    images: list[MultiImageItem] = Field(min_length=2, max_length=20)


class PostMedia(_Forbid):
    """``content.media`` (POST_SCHEMA, "Media"): one image, video or document."""

    # POST_SCHEMA: required, the media's URN; DOCUMENTS_API "Create a Document Post".
    id: str = Field(pattern=r"^urn:li:(image|video|document):[^:\s]+$")
    title: str | None = None  # POST_SCHEMA: optional; DOCUMENTS_API's example sets it
    altText: str | None = None  # POST_SCHEMA: optional


class PostContent(_Forbid):
    """``content`` of a post (POST_SCHEMA); the kinds pressroom sends are typed."""

    multiImage: MultiImage | None = None  # MULTI_IMAGE_API
    media: PostMedia | None = None  # POST_SCHEMA: one image, video or document
    article: dict[str, Any] | None = None  # POST_SCHEMA
    poll: dict[str, Any] | None = None  # POST_SCHEMA
    reference: dict[str, Any] | None = None  # POST_SCHEMA


class ImageUploadRequest(_Forbid):
    # IMAGES_API, "Initialize Image Upload": the owner, a person or organization URN.
    owner: str = Field(pattern=r"^urn:li:(person|organization):[^:\s]+$")
    mediaLibraryMetadata: dict[str, Any] | None = None  # IMAGES_API, optional


class ImageUpload(_Forbid):
    initializeUploadRequest: ImageUploadRequest  # IMAGES_API


class DocumentUploadRequest(_Forbid):
    # DOCUMENTS_API, "Initialize Document Upload": the owner, a person or organization.
    owner: str = Field(pattern=r"^urn:li:(person|organization):[^:\s]+$")


class DocumentUpload(_Forbid):
    initializeUploadRequest: DocumentUploadRequest  # DOCUMENTS_API


class PostCreate(_Forbid):
    """The body of ``POST /rest/posts`` (POSTS_API "Create a Post", fields per POST_SCHEMA)."""

    # POST_SCHEMA: "Person or Organization URN", create-only, required.
    author: str = Field(pattern=r"^urn:li:(person|organization):[^:\s]+$")
    # POST_SCHEMA: "little text" (reserved characters escaped), required.
    commentary: str
    # POST_SCHEMA: MemberNetworkVisibility, required.
    visibility: Literal["CONNECTIONS", "PUBLIC", "LOGGED_IN", "CONTAINER"]
    # POST_SCHEMA: required.
    distribution: Distribution
    # POST_SCHEMA: required; POSTS_API creates drafts with DRAFT.
    lifecycleState: Literal["DRAFT", "PUBLISHED", "PUBLISH_REQUESTED", "PUBLISH_FAILED"]
    # POST_SCHEMA: optional boolean.
    isReshareDisabledByAuthor: bool | None = None
    # POST_SCHEMA, optional: a MultiImage post's images (MULTI_IMAGE_API).
    content: PostContent | None = None
    container: str | None = None
    contentLandingPage: str | None = None
    contentCallToActionLabel: str | None = None
    reshareContext: dict[str, Any] | None = None
    adContext: dict[str, Any] | None = None


class PostsByAuthor(_Forbid):
    """The query of ``GET /rest/posts?q=author`` (POSTS_API "Find Posts by Authors")."""

    q: Literal["author"]
    author: str = Field(pattern=r"^urn:li:(person|organization):[^:\s]+$")
    # POSTS_API: count (max 100), start, sortBy LAST_MODIFIED (default) or CREATED.
    count: int = Field(ge=1, le=100)
    start: int | None = Field(None, ge=0)
    sortBy: Literal["LAST_MODIFIED", "CREATED"] | None = None
    viewContext: Literal["READER", "AUTHOR"] | None = None


class CommentMessage(_Forbid):
    text: str = Field(min_length=1)  # COMMENTS_API, "Create a Comment": message.text
    attributes: list[dict[str, Any]] | None = None  # COMMENTS_API: mentions in the text


class CommentCreate(_Forbid):
    """The body of ``POST /rest/socialActions/{shareUrn}/comments`` (COMMENTS_API,
    "Create a Comment")."""

    actor: str = Field(pattern=r"^urn:li:(person|organization):[^:\s]+$")  # COMMENTS_API
    object: str  # COMMENTS_API: the post commented on, as in the path
    message: CommentMessage  # COMMENTS_API
    parentComment: str | None = None  # COMMENTS_API: a reply to a comment only
    content: list[dict[str, Any]] | None = None  # COMMENTS_API: an image


class CodeExchange(_Forbid):
    # AUTH_CODE_FLOW, "Step 3: Exchange Authorization Code for an Access Token".
    grant_type: Literal["authorization_code"]
    code: str
    client_id: str
    client_secret: str
    redirect_uri: str


class RefreshExchange(_Forbid):
    # REFRESH_TOKENS, "Step 2: Exchanging a Refresh Token for a New Access Token".
    grant_type: Literal["refresh_token"]
    refresh_token: str
    client_id: str
    client_secret: str


def _valid(model: type[BaseModel], data: Any, where: str) -> None:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        raise AssertionError(f"{where} is not what LinkedIn documents: {exc}") from None


def _served(version: str, on: date) -> bool:
    """Whether LinkedIn serves ``version`` on ``on``: its listed sunset, or else the
    one-year minimum counted from its month."""
    if version > LATEST_DOCUMENTED:
        return False
    released = date(int(version[:4]), int(version[4:]), 1)
    if released > on:
        return False
    if version in SUNSETS:
        return on < SUNSETS[version]
    months = (on.year - released.year) * 12 + on.month - released.month
    return months < SERVED_MONTHS


def _versioned(on: date) -> Any:
    def check(request: httpx.Request) -> None:
        # POSTS_API: "All APIs require the request header LinkedIn-Version: {Version in
        # YYYYMM format}. All APIs require the request header X-Restli-Protocol-Version: 2.0.0"
        version = request.headers.get("LinkedIn-Version", "")
        assert re.fullmatch(r"\d{4}(0[1-9]|1[0-2])", version), (
            f"LinkedIn-Version {version!r} is not YYYYMM ({VERSIONING})"
        )
        assert _served(version, on), (
            f"LinkedIn does not serve LinkedIn-Version {version} on {on} ({MIGRATIONS})"
        )
        assert request.headers.get("X-Restli-Protocol-Version") == "2.0.0", (
            f"X-Restli-Protocol-Version must be 2.0.0 ({POSTS_API})"
        )
        bearer(request)

    return check


def _create_post(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        versioned(request)
        assert not query(request), "POST /rest/posts takes no query"
        _valid(PostCreate, json_body(request), "the post")

    return check


def _create_comment(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        versioned(request)
        assert not query(request), "creating a comment takes no query"
        body = json_body(request)
        _valid(CommentCreate, body, "the comment")
        raw = request.url.raw_path.decode()
        # COMMENTS_API: the URN in the path is URL-encoded, and is the body's object.
        assert "urn:li:" not in raw, f"the URN in {raw} is not URL-encoded ({COMMENTS_API})"
        target = request.url.path.split("/")[3]
        assert target == body["object"], (
            f"the path's URN {target} is not the comment's object {body['object']}"
        )

    return check


def _initialize_upload(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        versioned(request)
        assert query(request) == {"action": "initializeUpload"}, (
            f"an image upload is initialized with ?action=initializeUpload ({IMAGES_API})"
        )
        _valid(ImageUpload, json_body(request), "the image upload")

    return check


def _initialize_document(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        versioned(request)
        assert query(request) == {"action": "initializeUpload"}, (
            f"a document upload is initialized with ?action=initializeUpload ({DOCUMENTS_API})"
        )
        _valid(DocumentUpload, json_body(request), "the document upload")

    return check


def _read_document(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        # DOCUMENTS_API, "Get a Document": the URN, URL-encoded, in the path; no query.
        versioned(request)
        assert not query(request), f"reading a document takes no query ({DOCUMENTS_API})"
        assert "urn:li:" not in request.url.raw_path.decode(), (
            f"the document's URN in the path is URL-encoded ({DOCUMENTS_API})"
        )

    return check


def _upload_document(request: httpx.Request) -> None:
    # DOCUMENTS_API, "Upload the Document": the file PUT (``--upload-file``) to uploadUrl
    # with the bearer token.
    bearer(request)
    assert request.content, f"a document upload carries the file's bytes ({DOCUMENTS_API})"


def _upload_bytes(request: httpx.Request) -> None:
    # IMAGES_API, "Upload the Image": the bytes PUT to uploadUrl with the bearer token.
    bearer(request)
    assert request.content, f"an image upload carries the image's bytes ({IMAGES_API})"


def _find_posts(on: date) -> Any:
    versioned = _versioned(on)

    def check(request: httpx.Request) -> None:
        versioned(request)
        found = query(request)
        params: dict[str, Any] = {
            k: int(v) if k in ("count", "start") else v for k, v in found.items()
        }
        _valid(PostsByAuthor, params, "the posts finder's query")

    return check


def _userinfo(request: httpx.Request) -> None:
    assert not query(request), "userinfo takes no query"
    bearer(request)


def _token(request: httpx.Request) -> None:
    form = form_body(request)
    model = CodeExchange if form.get("grant_type") == "authorization_code" else RefreshExchange
    _valid(model, form, "the token request")
    assert "authorization" not in request.headers, (
        f"LinkedIn takes the secret in the form, not HTTP Basic ({AUTH_CODE_FLOW})"
    )


class Introspection(BaseModel):
    """``POST /oauth/v2/introspectToken``, a form body (INTROSPECTION, "Request Body")."""

    model_config = ConfigDict(extra="forbid")

    client_id: str = Field(min_length=1)  # INTROSPECTION: "Required. Application client id"
    client_secret: str = Field(min_length=1)  # INTROSPECTION: "Required."
    token: str = Field(min_length=1)  # INTROSPECTION: "Required. The string value of the token"


def _introspection(request: httpx.Request) -> None:
    assert request.headers.get("content-type", "").startswith(
        "application/x-www-form-urlencoded"
    ), f"introspection takes a form body ({INTROSPECTION})"
    assert not query(request), f"introspection's fields go in its body ({INTROSPECTION})"
    _valid(Introspection, form_body(request), "the introspection request")


def contract(on: date, granted: frozenset[str] | None) -> Contract:
    """LinkedIn as documented, with the versions it serves on ``on``."""
    return Contract(
        "LinkedIn",
        (
            Endpoint(
                "POST",
                "www.linkedin.com",
                "/oauth/v2/accessToken",
                f"{AUTH_CODE_FLOW}; {REFRESH_TOKENS}",
                _token,
            ),
            Endpoint(
                "POST",
                "www.linkedin.com",
                "/oauth/v2/introspectToken",
                INTROSPECTION,
                _introspection,
            ),
            Endpoint(
                "GET",
                "api.linkedin.com",
                "/v2/userinfo",
                SIGN_IN_V2,
                _userinfo,
                # SIGN_IN_V2, "Authenticating Members": openid, profile.
                frozenset({"openid", "profile"}),
            ),
            Endpoint(
                "POST",
                "api.linkedin.com",
                "/rest/posts",
                POSTS_API,
                _create_post(on),
                # POSTS_API, "Permissions": w_member_social posts as the member.
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "POST",
                "api.linkedin.com",
                r"/rest/socialActions/urn:li:(share|ugcPost):[0-9]+/comments",
                COMMENTS_API,
                _create_comment(on),
                # COMMENTS_API, "Permissions": w_member_social comments as the member.
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "POST",
                "api.linkedin.com",
                "/rest/images",
                IMAGES_API,
                _initialize_upload(on),
                # IMAGES_API, "Permissions": w_member_social for a member's images.
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "PUT",
                "www.linkedin.com",
                r"/dms-uploads/[^/]+/uploadedImage/[0-9]+",
                IMAGES_API,
                _upload_bytes,
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "POST",
                "api.linkedin.com",
                "/rest/documents",
                DOCUMENTS_API,
                _initialize_document(on),
                # DOCUMENTS_API, "Permissions": w_member_social for a member's documents.
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "GET",
                "api.linkedin.com",
                r"/rest/documents/urn:li:document:[^/]+",
                DOCUMENTS_API,
                _read_document(on),
                # DOCUMENTS_API: a member's document is read by its owner.
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "PUT",
                "www.linkedin.com",
                r"/dms-uploads/.+",  # DOCUMENTS_API: whatever uploadUrl LinkedIn answers
                DOCUMENTS_API,
                _upload_document,
                frozenset({"w_member_social"}),
            ),
            Endpoint(
                "GET",
                "api.linkedin.com",
                "/rest/posts",
                POSTS_API,
                _find_posts(on),
                # POSTS_API, "Permissions": r_member_social (restricted) reads them.
                frozenset({"r_member_social"}),
            ),
            Endpoint(
                "GET",
                "api.linkedin.com",
                r"/rest/socialActions/urn:li:(share|ugcPost):[0-9]+",
                SOCIAL_ACTIONS,
                # A post's likesSummary and commentsSummary; no query is documented for it.
                None,
                # SOCIAL_ACTIONS, "Permissions": r_member_social, "Restricted ... granted
                # to select developers only".
                frozenset({"r_member_social"}),
            ),
            Endpoint(
                "GET",
                "api.linkedin.com",
                "/rest/memberCreatorPostAnalytics",
                MEMBER_POST_ANALYTICS,
                None,
                frozenset({"r_member_postAnalytics"}),
            ),
        ),
        granted=granted,
    )
