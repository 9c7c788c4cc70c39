"""professional_network on LinkedIn: the versioned Posts API, members' own posts.

Set ``PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID`` and ``_CLIENT_SECRET`` from a LinkedIn
app with the products "Sign In with LinkedIn using OpenID Connect" and "Share on
LinkedIn", and ``{PRESSROOM_BASE_URL}/oauth/callback/professional_network`` among its
authorized redirect URLs. ``PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION`` is the
``LinkedIn-Version`` sent (YYYYMM). LinkedIn serves each version a year and then answers
it 426 ``NONEXISTENT_VERSION``; ``linkedin_versions`` says how pressroom warns before
that and refuses to send after it.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://www.linkedin.com/oauth/v2/authorization`` with ``openid profile
  w_member_social``; the code at ``POST https://www.linkedin.com/oauth/v2/accessToken``
  with the secret in the form
  (https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow).
  LinkedIn offers PKCE to native apps only, so ``state`` alone binds the callback. Access
  tokens last 60 days; most apps get no refresh token, so at expiry the connection turns
  inactive and asks to be reconnected, as the spec's state table says;
- profile: ``GET https://api.linkedin.com/v2/userinfo`` (OpenID Connect): ``sub`` makes
  the author URN ``urn:li:person:{sub}``
  (https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2);
- publish: ``POST https://api.linkedin.com/rest/posts`` with ``LinkedIn-Version`` and
  ``X-Restli-Protocol-Version: 2.0.0``; 201 with the post's URN in ``x-restli-id``
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api).
  A 426 is a version LinkedIn no longer serves: nothing was posted, and the operator's
  setting, not the post, must change (``NetworkMisconfigured``, never "maybe sent").
  ``commentary`` is in LinkedIn's "little text" format, whose reserved characters are
  escaped with a backslash so the text appears as written
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format);
- a MultiImage post (``Delivery.items``): each image's upload initialized (``POST
  /rest/images?action=initializeUpload`` with ``initializeUploadRequest.owner``, the
  member), its bytes PUT to the ``uploadUrl`` answered, then the post with
  ``content.multiImage.images`` (the images' URNs, in order); the items are the image
  URNs, at the post's page
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api,
  https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api);
- a document post (the body's ``format`` ``document``): the file's upload initialized
  (``POST /rest/documents?action=initializeUpload`` with the member as ``owner``), its
  bytes PUT to the ``uploadUrl`` answered, its ``status`` read until ``AVAILABLE``, then
  the post with ``content.media`` (the ``document`` URN and the body's
  ``documentTitle`` as ``title``)
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api);
- a first comment (``Delivery.comment_on``): ``POST
  /rest/socialActions/{shareUrn}/comments`` (the URN encoded in the path) with ``actor``
  (the member), ``object`` (the post) and ``message.text``, under the same
  ``w_member_social``, which covers commenting as the member; 201 with the comment's
  ``commentUrn``. Its URL is the post's: LinkedIn documents none for a comment
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api);
- look-up of an unknown outcome: ``GET /rest/posts?q=author`` needs ``r_member_social``,
  which LinkedIn grants to few apps. Without it LinkedIn answers 403 and the outcome stays
  unknown (``LookupUnsupported``): the post is never resent under its key. A comment
  whose outcome is unknown is not looked up at all: listing a post's comments needs the
  same restricted permission, so it stays unknown and is never resent;
- metrics: not available to this app, and ``fetch_metrics`` says so without a request
  (``MetricsUnsupported``). A member post's counts are in ``GET /rest/socialActions/{urn}``
  (``likesSummary``, ``commentsSummary``), which needs ``r_member_social``: "Restricted
  ... granted to select developers only"
  (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/network-update-social-actions);
  its impressions and reach are in ``GET /rest/memberCreatorPostAnalytics?q=entity``,
  which needs ``r_member_postAnalytics``, a permission of LinkedIn's Community Management
  API, a product LinkedIn vets apps for, which is not among the two products this app
  is set up with ("Share on LinkedIn", "Sign In with LinkedIn using OpenID Connect").
  Asking for either scope at consent would make LinkedIn refuse the consent itself
  (``unauthorized_scope_error``) for every app not granted it, so neither is asked for.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import httpx

from pressroom.platforms import Platform, PostFormat
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import linkedin_versions
from pressroom.service.drivers.answers import aware, json_of
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MediaSource,
    MetricsUnsupported,
    NetworkMisconfigured,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    Profile,
    Published,
    ThumbnailChange,
    ThumbnailSet,
    TokenSet,
    check_before_sending,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import (
    Finding,
    Inspection,
    Standing,
    quota_finding,
    scope_finding,
    scope_states,
)
from pressroom.service.drivers.oauth2 import consent_url, token_call
from pressroom.service.drivers.tokens import TokenSource

AUTHORIZE_URL = "https://www.linkedin.com/oauth/v2/authorization"
TOKEN_URL = "https://www.linkedin.com/oauth/v2/accessToken"
USERINFO_URL = "https://api.linkedin.com/v2/userinfo"
POSTS_URL = "https://api.linkedin.com/rest/posts"
IMAGES_URL = "https://api.linkedin.com/rest/images"
DOCUMENTS_URL = "https://api.linkedin.com/rest/documents"
"""The Documents API
(https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api)."""
DOCUMENT_WAITS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Seconds between reads of an uploaded document's ``status`` (about a minute in all):
LinkedIn processes a document after its upload and documents ``PROCESSING`` before
``AVAILABLE``; whether a post naming a document still processing is refused is not
said on its pages, so the post waits for ``AVAILABLE``."""
SOCIAL_ACTIONS_URL = "https://api.linkedin.com/rest/socialActions"
INTROSPECT_URL = "https://www.linkedin.com/oauth/v2/introspectToken"
"""Token introspection: a token's status and the scopes it was granted
(https://learn.microsoft.com/en-us/linkedin/shared/authentication/token-introspection)."""
SCOPES = ("openid", "profile", "w_member_social")
PUBLISH_SCOPES = SCOPES
"""All three: the author's URN comes from userinfo (``openid profile``), the post takes
``w_member_social`` (Posts API permissions table)."""
COMMENT_SCOPES = SCOPES
"""The same three: the actor's URN from userinfo, and ``w_member_social``, which the
Comments API's permissions table lists for commenting as the member."""
METRICS_REQUESTS_PER_HOUR = 0
"""No metrics requests are made (module docstring, "metrics"). LinkedIn publishes no
fixed figure to budget by in any case: each app's daily limits per endpoint are shown
only in its developer portal's Analytics tab
(https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits)."""
METRICS_UNAVAILABLE = (
    "LinkedIn gives a member post's figures only to apps granted r_member_social or "
    "r_member_postAnalytics, restricted permissions this app does not have"
)
CLOCK_SLACK = timedelta(minutes=2)

_RESERVED = re.compile(r"([\\|{}@\[\]()<>#*_~])")
"""Little text's reserved characters, backslash first so escapes are not doubled."""


def little_text(text: str) -> str:
    """``text`` as LinkedIn's commentary shows it verbatim."""
    return _RESERVED.sub(r"\\\1", text)


class LinkedInDriver:
    platform = Platform.PROFESSIONAL_NETWORK
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        *,
        api_version: str,
        media: MediaSource | None = None,
        clock: Callable[[], datetime] = utcnow,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client_id = client_id
        self._client_secret = client_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        """Where a MultiImage post's images are read from, to upload them."""
        self.api_version = api_version
        self._clock = clock
        self._sleep = sleep
        self._authors: dict[str, str] = {}
        """Connection id → author URN, read once per process from userinfo."""

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "state": state,
                "scope": " ".join(SCOPES),
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": self.client_id,
            "client_secret": self._client_secret,
            "redirect_uri": redirect_uri,
        }
        return token_call(self.http, TOKEN_URL, form)

    def refresh(self, refresh_token: str) -> TokenSet:
        form = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": self.client_id,
            "client_secret": self._client_secret,
        }
        return token_call(self.http, TOKEN_URL, form)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        me = self._userinfo(tokens.access_token)
        name = str(
            me.get("name") or " ".join(filter(None, [me.get("given_name"), me.get("family_name")]))
        )
        return Profile(name=name or str(me["sub"]), display_name=name)

    # --- publish ---------------------------------------------------------------
    def version_check(self) -> linkedin_versions.VersionCheck:
        """How the ``LinkedIn-Version`` sent stands today, for start-up and ``drivers check``."""
        return linkedin_versions.check(self.api_version, self._clock())

    def inspect(self, account: Account) -> Inspection:
        """The token's status and scopes from LinkedIn's introspection (the app's secret
        and the token in a POST body), the member from userinfo, and how the
        ``LinkedIn-Version`` sent stands."""
        token = self.tokens.access_token(account.connection_id)
        response = self.http.request(
            "POST",
            INTROSPECT_URL,
            data={
                "client_id": self.client_id,
                "client_secret": self._client_secret,
                "token": token,
            },
            read=True,
        )
        if response.status_code != 200:
            raise PlatformUnavailable(
                f"LinkedIn could not introspect the token ({response.status_code})",
                retry_after=60,
                sent=False,
            )
        found = json_of(response)
        if found.get("active") is not True:
            raise AccessRevoked(
                f"LinkedIn says the member's token is {found.get('status') or 'not active'}"
            )
        granted = {s.strip() for s in str(found.get("scope") or "").split(",") if s.strip()}
        scopes = scope_states(SCOPES, granted=granted, missing=set(SCOPES) - granted)
        source = "LinkedIn's token introspection"
        me = self._userinfo(token)
        version = self.version_check()
        standing = {
            linkedin_versions.Standing.SERVED: Standing.OK,
            linkedin_versions.Standing.AGEING: Standing.WARNING,
            linkedin_versions.Standing.UNSERVED: Standing.BLOCKED,
        }[version.standing]
        return Inspection(
            network="LinkedIn",
            account=str(me.get("name") or me.get("sub") or account.name),
            scopes=scopes,
            scopes_source=source,
            account_type="member",
            audit="not readable (the app's products are granted in LinkedIn's portal)",
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    "a member (urn:li:person)",
                    "posts go to the member's own feed; a company Page needs "
                    "w_organization_social, which pressroom does not ask for",
                    Standing.OK,
                ),
                Finding(
                    "api version",
                    version.message,
                    "LinkedIn serves each LinkedIn-Version a year; past it nothing is sent",
                    standing,
                ),
                quota_finding("LinkedIn", None),
            ),
        )

    def publish(self, delivery: Delivery) -> Published:
        self._require_served()
        check_before_sending(delivery)
        if delivery.comment_on is not None:
            return self._comment(delivery, delivery.comment_on)
        token = self.tokens.access_token(delivery.account.connection_id)
        post = self._post_body(delivery.account.connection_id, token, str(delivery.fields["text"]))
        images = [self._upload_image(delivery, token, i) for i in range(len(delivery.items))]
        if images:
            # Each image's ``altText`` (MultiImage API, "images": id and optional
            # altText,
            # https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api).
            post["content"] = {
                "multiImage": {
                    "images": [
                        {"id": urn} | _alt_text(item)
                        for urn, item in zip(images, delivery.items, strict=True)
                    ]
                }
            }
        if delivery.fields.get("format") == PostFormat.DOCUMENT:
            post["content"] = {"media": self._upload_document(delivery, token)}
        response = self.http.request(
            "POST", POSTS_URL, token=token, creates=True, headers=self._headers, json=post
        )
        urn = response.headers.get("x-restli-id")
        if response.status_code != 201 or not urn:
            raise refusal_of(response, self.api_version)
        now = utcnow()
        return Published(urn, _post_url(urn), now, items=_images(images, urn, now))

    def _upload_image(self, delivery: Delivery, token: str, index: int) -> str:
        """Item ``index`` of a MultiImage post: an upload initialized for the member
        (its ``image`` URN and ``uploadUrl``), then the bytes PUT there; its URN."""
        assert self.media is not None, "a MultiImage post needs the service's media"
        item = delivery.items[index]
        owner = self._author(delivery.account.connection_id, token)
        response = self.http.request(
            "POST",
            f"{IMAGES_URL}?action=initializeUpload",
            token=token,
            headers=self._headers,
            json={"initializeUploadRequest": {"owner": owner}},
        )
        if response.status_code != 200:
            raise _item_refusal(response, self.api_version, index)
        value = json_of(response).get("value") or {}
        upload_url, image = str(value.get("uploadUrl") or ""), str(value.get("image") or "")
        if not (upload_url and image):
            raise PlatformUnavailable(
                "LinkedIn did not say where to upload an image", retry_after=60, sent=False
            )
        assert item.size is not None  # every ready file has its size
        response = self.http.request(
            "PUT",
            upload_url,
            token=token,
            headers={"Content-Type": item.content_type},
            content=b"".join(self.media.read(item.storage_key, 0, item.size)),
        )
        if response.status_code not in (200, 201):
            raise _item_refusal(response, self.api_version, index)
        return image

    def _upload_document(self, delivery: Delivery, token: str) -> dict[str, str]:
        """A document post's file: its upload initialized for the member (``POST
        /rest/documents?action=initializeUpload``, answering the ``document`` URN and an
        ``uploadUrl``), the PDF's bytes PUT there, its ``status`` read until
        ``AVAILABLE``; the post's ``content.media``: the URN and the body's
        ``documentTitle`` (Documents API page; Posts API schema, "Media")."""
        assert self.media is not None, "a document post needs the service's media"
        document = delivery.media
        assert document is not None and document.size is not None
        owner = self._author(delivery.account.connection_id, token)
        response = self.http.request(
            "POST",
            f"{DOCUMENTS_URL}?action=initializeUpload",
            token=token,
            headers=self._headers,
            json={"initializeUploadRequest": {"owner": owner}},
        )
        if response.status_code != 200:
            raise _document_refusal(response, self.api_version)
        value = json_of(response).get("value") or {}
        upload_url, urn = str(value.get("uploadUrl") or ""), str(value.get("document") or "")
        if not (upload_url and urn):
            raise PlatformUnavailable(
                "LinkedIn did not say where to upload the document", retry_after=60, sent=False
            )
        response = self.http.request(
            "PUT",
            upload_url,
            token=token,
            headers={"Content-Type": document.content_type},
            content=b"".join(self.media.read(document.storage_key, 0, document.size)),
        )
        if response.status_code not in (200, 201):
            raise _document_refusal(response, self.api_version)
        self._await_document(token, urn)
        media = {"id": urn}
        if delivery.fields.get("documentTitle"):
            media["title"] = str(delivery.fields["documentTitle"])
        return media

    def _await_document(self, token: str, urn: str) -> None:
        for delay in DOCUMENT_WAITS:
            self._sleep(delay)
            response = self.http.request(
                "GET", f"{DOCUMENTS_URL}/{quote(urn, safe='')}", token=token, headers=self._headers
            )
            if response.status_code == 403:
                # The page's permission check for a member's document is that the caller
                # is its owner, which the uploader is; a 403 here says only that the
                # status cannot be read: the post itself will say whether LinkedIn takes
                # it, rather than a read turning the connection inactive.
                return
            if response.status_code != 200:
                raise _document_refusal(response, self.api_version)
            status = str(json_of(response).get("status") or "")
            if status == "AVAILABLE":
                return
            if status == "PROCESSING_FAILED":
                raise PlatformRefused("LinkedIn could not process the document", field="fileId")
        raise PlatformUnavailable(
            "LinkedIn is still processing the document; nothing was posted yet",
            retry_after=60,
            sent=False,
        )

    def _comment(self, delivery: Delivery, share_urn: str) -> Published:
        """A first comment, as the member, on their post ``share_urn``."""
        token = self.tokens.access_token(delivery.account.connection_id)
        comment = {
            "actor": self._author(delivery.account.connection_id, token),
            "object": share_urn,
            "message": {"text": str(delivery.fields["text"])},
        }
        response = self.http.request(
            "POST",
            f"{SOCIAL_ACTIONS_URL}/{quote(share_urn, safe='')}/comments",
            token=token,
            creates=True,
            headers=self._headers,
            json=comment,
        )
        if response.status_code != 201:
            raise refusal_of(response, self.api_version)
        urn = json_of(response).get("commentUrn") or response.headers.get("x-restli-id")
        if not urn:
            raise PlatformUnavailable(
                "LinkedIn took the comment but did not say its URN",
                retry_after=60,
                sent=True,
            )
        return Published(str(urn), _post_url(share_urn), utcnow())

    def _post_body(self, connection_id: str, token: str, text: str) -> dict[str, Any]:
        return {
            "author": self._author(connection_id, token),
            "commentary": little_text(text),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        }

    def draft_post(self, account: Account, text: str) -> str:
        """A post in ``DRAFT``: made, visible to nobody, for ``drivers check``."""
        self._require_served()
        token = self.tokens.access_token(account.connection_id)
        draft = {**self._post_body(account.connection_id, token, text), "lifecycleState": "DRAFT"}
        response = self.http.request(
            "POST", POSTS_URL, token=token, headers=self._headers, json=draft
        )
        urn = response.headers.get("x-restli-id")
        if response.status_code != 201 or not urn:
            raise refusal_of(response, self.api_version)
        return str(urn)

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        if delivery.comment_on is not None:
            raise LookupUnsupported(
                "LinkedIn lists a post's comments only to apps granted r_member_social"
            )
        try:
            self._require_served()
        except NetworkMisconfigured as exc:
            raise _cannot_tell_yet(str(exc)) from exc
        token = self.tokens.access_token(delivery.account.connection_id)
        author = self._author(delivery.account.connection_id, token)
        wanted = str(delivery.fields["text"]).strip()
        since = aware(sent_at) - CLOCK_SLACK
        response = self.http.request(
            "GET",
            f"{POSTS_URL}?q=author&author={quote(author, safe='')}&count=50&sortBy=CREATED",
            token=token,
            headers=self._headers,
        )
        if response.status_code == 403:
            raise LookupUnsupported(
                "LinkedIn lists a member's posts only to apps granted r_member_social"
            )
        if response.status_code == 426:
            raise _cannot_tell_yet(str(_unserved(response, self.api_version)))
        if response.status_code != 200:
            raise PlatformUnavailable(
                f"LinkedIn could not list the member's posts ({response.status_code})",
                retry_after=60,
                sent=True,
            )
        for post in json_of(response).get("elements") or []:
            made = datetime.fromtimestamp(int(post.get("createdAt", 0)) / 1000, UTC)
            if made >= since and _unescape(str(post.get("commentary", ""))).strip() == wanted:
                urn = str(post["id"])
                content = post.get("content") or {}
                images = [
                    str(image["id"])
                    for image in (content.get("multiImage") or {}).get("images") or []
                ]
                if len(images) != len(delivery.items):
                    continue  # another post with the same words
                return Published(urn, _post_url(urn), made, items=_images(images, urn, made))
        return None

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("professional_network posts have no thumbnails")

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """Not available: the reads need restricted permissions (module docstring), so a
        metrics round skips the post with the reason and sends nothing."""
        raise MetricsUnsupported(METRICS_UNAVAILABLE)

    # --- helpers ---------------------------------------------------------------
    def _require_served(self) -> None:
        """Refuse, before anything is sent, a version LinkedIn no longer promises to serve."""
        check = self.version_check()
        if check.standing is linkedin_versions.Standing.UNSERVED:
            raise NetworkMisconfigured(check.message)

    @property
    def _headers(self) -> dict[str, str]:
        return {"LinkedIn-Version": self.api_version, "X-Restli-Protocol-Version": "2.0.0"}

    def _author(self, connection_id: str, token: str) -> str:
        if connection_id not in self._authors:
            self._authors[connection_id] = f"urn:li:person:{self._userinfo(token)['sub']}"
        return self._authors[connection_id]

    def _userinfo(self, token: str) -> dict[str, Any]:
        response = self.http.request("GET", USERINFO_URL, token=token)
        if response.status_code == 403:
            raise AccessRevoked("LinkedIn refused to read the member's profile")
        if response.status_code != 200:
            raise PlatformUnavailable(
                f"LinkedIn could not read the member's profile ({response.status_code})",
                retry_after=60,
                sent=False,
            )
        return json_of(response)


def _images(urns: list[str], post_urn: str, at: datetime) -> tuple[Published, ...]:
    """A MultiImage post's images as its items: their URNs, at the post's page (LinkedIn
    gives an image no page of its own)."""
    return tuple(Published(urn, _post_url(post_urn), at) for urn in urns)


def _post_url(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}/"


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _unserved(response: httpx.Response, version: str) -> NetworkMisconfigured:
    """LinkedIn's 426: the version sent is not served (``NONEXISTENT_VERSION``, its
    message reading "Requested version 20251101 is not active") and nothing was done."""
    body = json_of(response)
    said = str(body.get("message") or body.get("code") or "HTTP 426")
    return NetworkMisconfigured(
        f"LinkedIn does not serve LinkedIn-Version {version} ({said}): set "
        f"{linkedin_versions.SETTING} to a version it serves (the latest is listed at "
        f"{linkedin_versions.VERSIONING_URL})"
    )


def _cannot_tell_yet(why: str) -> PlatformUnavailable:
    """A look-up the version stops: the outcome stays unknown until the setting changes."""
    return PlatformUnavailable(
        f"LinkedIn cannot be asked about the post: {why}", retry_after=3600, sent=True
    )


def _item_refusal(response: httpx.Response, version: str, index: int) -> Exception:
    """An image's upload refused or failed: nothing is posted yet (the post comes after
    every image), and a refusal names the image's place."""
    error = refusal_of(response, version)
    if isinstance(error, PlatformRefused):
        error.field = f"fileIds[{index}]"
    if isinstance(error, PlatformUnavailable) and error.sent:
        return PlatformUnavailable(str(error), retry_after=error.retry_after, sent=False)
    return error


def _document_refusal(response: httpx.Response, version: str) -> Exception:
    """The document's upload refused or failed: nothing is posted yet (the post comes
    after it), and a refusal names the file."""
    error = refusal_of(response, version)
    if isinstance(error, PlatformRefused):
        error.field = "fileId"
    if isinstance(error, PlatformUnavailable) and error.sent:
        return PlatformUnavailable(str(error), retry_after=error.retry_after, sent=False)
    return error


def refusal_of(response: httpx.Response, version: str) -> Exception:
    status = response.status_code
    message = str(json_of(response).get("message") or f"HTTP {status}")
    if status == 426:
        return _unserved(response, version)
    if status == 403:
        return AccessRevoked(f"LinkedIn refused to post for this member: {message}")
    if status in (400, 409, 422):
        return PlatformRefused(f"LinkedIn answered: {message}", field="text")
    return PlatformUnavailable(f"LinkedIn answered {status}: {message}", retry_after=30, sent=True)


def _alt_text(image: Media) -> dict[str, str]:
    return {"altText": image.alt_text} if image.alt_text is not None else {}
