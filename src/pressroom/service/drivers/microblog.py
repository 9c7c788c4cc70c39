"""microblog on X: the X API v2, connected with OAuth 2.0 (authorization code and PKCE).

Set ``PRESSROOM_MICROBLOG_CLIENT_ID`` and ``PRESSROOM_MICROBLOG_CLIENT_SECRET`` from an
X app with OAuth 2.0 on, type "Web App" (a confidential client: the token endpoint takes
HTTP Basic), and ``{PRESSROOM_BASE_URL}/oauth/callback/microblog`` as its callback.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://x.com/i/oauth2/authorize`` with ``tweet.read tweet.write
  users.read offline.access`` (offline.access is what brings a refresh token); code and
  refresh at ``POST https://api.x.com/2/oauth2/token``
  (https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token);
- profile: ``GET /2/users/me`` (https://docs.x.com/x-api/users/get-my-user);
- publish: ``POST /2/tweets`` with ``{"text": ...}``, answered 201 with ``data.id``
  (https://docs.x.com/x-api/posts/creation-of-a-post); text only, as the spec says; a
  thread's later part with ``reply.in_reply_to_tweet_id``, the part before it;
- rate limits: 429 with ``x-rate-limit-reset`` in epoch seconds
  (https://docs.x.com/fundamentals/rate-limits);
- look-up of an unknown outcome: ``GET /2/users/{id}/tweets`` since the send, matched on
  the text as X shows it (links come back as t.co links with the original in
  ``entities.urls``, ``&``, ``<`` and ``>`` HTML-escaped) and, for a thread's part, on
  the post it replies to (``expansions=referenced_posts``: its reference of type
  ``replied_to``)
  (https://docs.x.com/x-api/posts/get-posts-by-user);
- metrics: ``GET /2/tweets/{id}?tweet.fields=public_metrics`` (``fetch_metrics``), which
  needs ``tweet.read users.read``, already asked for at consent
  (https://docs.x.com/x-api/posts/get-post-by-id). Only ``public_metrics``: it carries
  ``impression_count`` since 2023, and ``non_public_metrics``/``organic_metrics`` are
  answered only for posts of the last 30 days (https://docs.x.com/x-api/fundamentals/metrics),
  so asking for them would turn every older post's figures into an error; a post X no
  longer has (deleted) answers 200 with an ``errors`` entry of type
  ``…/problems/resource-not-found`` and no ``data``: ``MetricsUnsupported``.

A 403 means one of three things (https://docs.x.com/x-api/fundamentals/response-codes-and-errors,
"Error types" and "403 Forbidden"), told apart by its problem body:

- the app is not enrolled for the endpoint: problem type ``…/problems/client-forbidden``
  with a ``reason`` (``client-not-enrolled``): the operator's X app must change, so it is
  ``NetworkMisconfigured``, whatever the post;
- the token lacks a scope the endpoint needs: a bare ``"detail": "Forbidden"`` with type
  ``about:blank``: reconnecting asks for the scopes again, so it is ``AccessRevoked``;
- X refuses this post and says why (``"You are not allowed to create a Tweet with
  duplicate content."``): a refused post naming ``text``, as is a 400 about the post.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers.answers import json_of, parse_time
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
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
from pressroom.service.drivers.oauth2 import code_challenge, consent_url, token_call
from pressroom.service.drivers.tokens import TokenSource

AUTHORIZE_URL = "https://x.com/i/oauth2/authorize"
TOKEN_URL = "https://api.x.com/2/oauth2/token"
API = "https://api.x.com/2"
SCOPES = ("tweet.read", "tweet.write", "users.read", "offline.access")
PUBLISH_SCOPES = ("tweet.read", "tweet.write", "users.read")
"""What ``POST /2/tweets`` requires of the token (its ``security`` in X's OpenAPI
description); ``offline.access`` only brings the refresh token."""
PROFILE_SCOPES = ("tweet.read", "users.read")
"""What ``GET /2/users/me`` requires (its ``security``): its answer shows them granted."""
LOOKUP_PAGES = 5
"""Pages of 100 posts read when looking a post up: far more than any account posts
while one outcome is unknown."""
CLOCK_SLACK = timedelta(minutes=2)
"""How far before our send time the look-up starts, for clocks that disagree."""
METRICS_REQUESTS_PER_HOUR = 1800
"""``GET /2/tweets/:id``: 450 requests per 15 minutes per app (900 per user), the app's
being the one a metrics round across every connection meets first.
Source: https://docs.x.com/x-api/fundamentals/rate-limits ("Tweets lookup")."""


class XDriver:
    platform = Platform.MICROBLOG
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self, client_id: str, client_secret: str, tokens: TokenSource, http: NetworkClient
    ) -> None:
        self.client_id = client_id
        self._client_secret = client_secret
        self.tokens = tokens
        self.http = http

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "scope": " ".join(SCOPES),
                "state": state,
                "code_challenge": code_challenge(code_verifier),
                "code_challenge_method": "S256",
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": code_verifier,
            "client_id": self.client_id,
        }
        return token_call(self.http, TOKEN_URL, form, basic_auth=self._basic)

    def refresh(self, refresh_token: str) -> TokenSet:
        form = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": self.client_id,
        }
        return token_call(self.http, TOKEN_URL, form, basic_auth=self._basic)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        me = self._me(tokens.access_token)
        return Profile(name=f"@{me['username']}", display_name=str(me.get("name") or ""))

    def inspect(self, account: Account) -> Inspection:
        """``GET /2/users/me`` with the account's verification and protection. X has no
        token introspection: its answer shows the scopes it requires granted, and X says
        whether ``tweet.write`` was granted only in the token answer at connect."""
        token = self.tokens.access_token(account.connection_id)
        response = self.http.request(
            "GET",
            f"{API}/users/me",
            token=token,
            params={"user.fields": "verified,verified_type,protected"},
        )
        if response.status_code == 403:
            raise _forbidden(response)
        if response.status_code != 200:
            raise PlatformUnavailable(
                f"X could not read the account ({response.status_code}: {_problem(response)})",
                retry_after=60,
                sent=False,
            )
        me = json_of(response)["data"]
        scopes = scope_states(SCOPES, granted=PROFILE_SCOPES)
        source = "GET /2/users/me answered, which requires tweet.read and users.read"
        kind = str(me.get("verified_type") or ("blue" if me.get("verified") else "none"))
        protected = bool(me.get("protected"))
        return Inspection(
            network="X",
            account=f"@{me['username']}",
            scopes=scopes,
            scopes_source=source,
            account_type="protected" if protected else "public",
            audit=f"verified_type {kind}",
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    "protected" if protected else "public",
                    "posts are seen by the account's approved followers only"
                    if protected
                    else "posts are public",
                    Standing.WARNING if protected else Standing.OK,
                ),
                Finding(
                    "verification",
                    f"verified_type {kind}",
                    "pressroom posts within X's 280 weighted characters whatever the "
                    "account's verification",
                    Standing.OK,
                ),
                Finding(
                    "app access",
                    "X does not tell an app its access level (Free, Basic, Pro, ...)",
                    "how many posts the app may make follows it; over it, posts are "
                    "answered 429 rate_limited",
                    Standing.UNKNOWN,
                ),
                quota_finding("X", None),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        token = self.tokens.access_token(delivery.account.connection_id)
        post: dict[str, Any] = {"text": delivery.fields["text"]}
        if delivery.reply_to is not None:  # a thread's later part
            post["reply"] = {"in_reply_to_tweet_id": delivery.reply_to}
        response = self.http.request("POST", f"{API}/tweets", token=token, creates=True, json=post)
        if response.status_code != 201:
            raise refusal_of(response)
        post_id = str(json_of(response)["data"]["id"])
        return Published(post_id, _post_url(delivery.account.name, post_id), utcnow())

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        token = self.tokens.access_token(delivery.account.connection_id)
        user_id = self._me(token)["id"]
        wanted = _comparable(str(delivery.fields["text"]), [])
        params: dict[str, str] = {
            "start_time": _x_time(sent_at - CLOCK_SLACK),
            "max_results": "100",
            "tweet.fields": "created_at,entities",
            # X's OpenAPI (2.167) lists a post's references as an expansion, not a field.
            "expansions": "referenced_posts",
        }
        for _ in range(LOOKUP_PAGES):
            response = self.http.request(
                "GET", f"{API}/users/{user_id}/tweets", token=token, params=params
            )
            if response.status_code != 200:
                raise _cannot_tell(response)
            body = json_of(response)
            for post in body.get("data") or []:
                links = (post.get("entities") or {}).get("urls") or []
                if (
                    _comparable(str(post.get("text", "")), links) == wanted
                    and _replied_to(post) == delivery.reply_to
                ):
                    return Published(
                        str(post["id"]),
                        _post_url(delivery.account.name, str(post["id"])),
                        parse_time(post.get("created_at")) or sent_at,
                    )
            following = (body.get("meta") or {}).get("next_token")
            if not following:
                return None
            params["pagination_token"] = str(following)
        return None

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("microblog posts have no thumbnails")

    # --- metrics ---------------------------------------------------------------
    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The post's ``public_metrics`` (module docstring): impressions, likes, replies
        as comments, reposts and quotes as shares, bookmarks as saves; X counts no
        views of a text post and no clicks publicly, so those stay None."""
        token = self.tokens.access_token(account.connection_id)
        response = self.http.request(
            "GET",
            f"{API}/tweets/{platform_post_id}",
            token=token,
            params={"tweet.fields": "public_metrics"},
        )
        if response.status_code == 403:
            raise _forbidden(response)
        if response.status_code != 200:
            raise PlatformUnavailable(
                f"X could not read the post ({response.status_code}: {_problem(response)})",
                retry_after=60,
                sent=False,
            )
        body = json_of(response)
        post = body.get("data")
        if not isinstance(post, dict):
            errors = body.get("errors") or [{}]
            kind = str(errors[0].get("type") or "") if isinstance(errors[0], dict) else ""
            if kind.endswith("/resource-not-found"):
                raise MetricsUnsupported("deleted on the network: X no longer has the post")
            raise MetricsUnsupported(f"X shows this app no such post ({_problem(response)})")
        counts = post.get("public_metrics") or {}
        return PostMetrics(
            impressions=_count(counts, "impression_count"),
            likes=_count(counts, "like_count"),
            comments=_count(counts, "reply_count"),
            shares=_sum(_count(counts, "retweet_count"), _count(counts, "quote_count")),
            saves=_count(counts, "bookmark_count"),
        )

    # --- helpers ---------------------------------------------------------------
    @property
    def _basic(self) -> tuple[str, str]:
        return (self.client_id, self._client_secret)

    def _me(self, token: str) -> dict[str, Any]:
        response = self.http.request("GET", f"{API}/users/me", token=token)
        if response.status_code != 200:
            raise _cannot_tell(response)
        me: dict[str, Any] = json_of(response)["data"]
        return me


def _post_url(handle: str, post_id: str) -> str:
    return f"https://x.com/{handle.lstrip('@')}/status/{post_id}"


def _problem(response: httpx.Response) -> str:
    """X's words for a refusal: a problem ``detail``, or the first error's message."""
    body = json_of(response)
    if body.get("detail"):
        return str(body["detail"])
    errors = body.get("errors") or []
    if errors and isinstance(errors[0], dict):
        return str(errors[0].get("message") or errors[0].get("detail") or "")
    return f"HTTP {response.status_code}"


APP_ACCESS_PROBLEMS = ("/problems/client-forbidden", "/problems/unsupported-authentication")
"""Problem types that refuse the app or how it authenticates, not the post or the token."""


def refusal_of(response: httpx.Response) -> Exception:
    if response.status_code == 403:
        return _forbidden(response)
    if response.status_code in (400, 422):
        return PlatformRefused(f"X answered: {_problem(response)}", field="text")
    return PlatformUnavailable(
        f"X answered {response.status_code}: {_problem(response)}", retry_after=30, sent=True
    )


def _forbidden(response: httpx.Response) -> Exception:
    """What X's 403 refuses: the app, the token's scopes, or the post (module docstring)."""
    body = json_of(response)
    kind = str(body.get("type") or "")
    detail = _problem(response)
    if body.get("reason") or kind.endswith(APP_ACCESS_PROBLEMS):
        reason = str(body.get("reason") or kind.rsplit("/", 1)[-1])
        return NetworkMisconfigured(
            f"X does not let this app post ({reason}: {detail}); in the X developer console, "
            "give the app of PRESSROOM_MICROBLOG_CLIENT_ID the API access that posting needs"
        )
    if detail.strip().rstrip(".").lower() in ("forbidden", "http 403"):
        return AccessRevoked(
            "X refused the connection's token for posting (403 Forbidden): it lacks a scope "
            "posting needs (tweet.write), so reconnect it"
        )
    return PlatformRefused(f"X answered: {detail}", field="text")


def _count(counts: dict[str, Any], name: str) -> int | None:
    value = counts.get(name)
    return int(value) if isinstance(value, int) else None


def _sum(*values: int | None) -> int | None:
    """The figures X counts, added; None when it counts none of them."""
    counted = [value for value in values if value is not None]
    return sum(counted) if counted else None


def _cannot_tell(response: httpx.Response) -> PlatformUnavailable:
    return PlatformUnavailable(
        f"X could not list the account's posts ({response.status_code}: {_problem(response)})",
        retry_after=60,
        sent=True,
    )


def _comparable(text: str, links: list[dict[str, Any]]) -> str:
    """A post's text as we sent it: t.co links back to their originals, HTML unescaped."""
    for link in links:
        short, original = link.get("url"), link.get("expanded_url")
        if short and original:
            text = text.replace(str(short), str(original))
    return html.unescape(text).strip()


def _replied_to(post: dict[str, Any]) -> str | None:
    """The id of the post ``post`` replies to (its reference of type ``replied_to``:
    ``referenced_posts`` in X's OpenAPI 2.167, ``referenced_tweets`` in its pages and
    earlier versions), or None for a post of its own."""
    references = post.get("referenced_posts") or post.get("referenced_tweets") or []
    for reference in references:
        if reference.get("type") == "replied_to":
            return str(reference.get("id"))
    return None


def _x_time(moment: datetime) -> str:
    if moment.tzinfo is None:  # the database's times are UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
