"""pin_board on Pinterest: API v5, OAuth 2.0 authorization code, the image fetched by URL.

Set ``PRESSROOM_PIN_BOARD_CLIENT_ID`` (the app id) and ``PRESSROOM_PIN_BOARD_CLIENT_SECRET``
from a Pinterest app, with ``{PRESSROOM_BASE_URL}/oauth/callback/pin_board`` among its
redirect URIs.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://www.pinterest.com/oauth/`` with ``boards:read,boards:write,
  pins:read,pins:write,user_accounts:read`` (comma-separated): ``POST /v5/pins`` requires
  all four board and pin scopes (its ``security`` in Pinterest's API description,
  https://github.com/pinterest/api-description ``v5/openapi.yaml``, every version since
  5.11.0); a token without one is answered 401 and the connection would turn inactive;
- code and refresh at ``POST https://api.pinterest.com/v5/oauth/token`` with HTTP Basic
  client authentication
  (https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/).
  The code is exchanged with ``continuous_refresh=true``: apps made before 2025-09-25 must
  send it to get the continuous refresh token (60 days, renewed on each refresh), the
  legacy one being no longer supported (the description's ``/oauth/token``, 5.23.0); for
  later apps it is what they get anyway, and pressroom cannot tell which the operator has.
  Pinterest documents no PKCE, so the verifier stays ours; ``state`` still binds the
  callback to the person who started it;
- profile: ``GET /v5/user_account`` (username, account type)
  (https://developers.pinterest.com/docs/api/v5/user_account-get);
- publish: ``POST /v5/pins`` on the request's board with ``media_source`` of type
  ``image_url``: Pinterest downloads the image from a signed link that expires in an
  hour (``media.handover``), so no bytes pass through the driver
  (https://developers.pinterest.com/docs/api/v5/pins-create); the pin is answered 201 or,
  since API 5.18.0, 200 (both are listed in the description); a carousel Pin
  (``Delivery.items``) has ``media_source`` of type ``multiple_image_urls`` with one
  ``items`` entry per image, in order, each by its signed link
  (``PinMediaSourceImagesURL``, 2 to 5 items); Pinterest gives the items no ids, so the
  result has none;
- look-up of an unknown outcome: ``GET /v5/boards/{board_id}/pins``, a pin made since the
  send with the same title and description
  (https://developers.pinterest.com/docs/api/v5/boards-list_pins);
- metrics: ``GET /v5/pins/{pin_id}/analytics`` (``fetch_metrics``) with its required
  ``start_date``, ``end_date`` (at most 90 days back) and ``metric_types``; scopes
  ``boards:read`` and ``pins:read``, both asked for at consent already
  (https://developers.pinterest.com/docs/api/v5/pins-analytics; its ``security`` in the
  API description). A pin Pinterest no longer has is answered 404: ``MetricsUnsupported``.

Errors come as ``{"code": n, "message": "..."}``: a board Pinterest does not know, or the
account may not pin to, is a refused post naming ``boardId``; any other 400 is a refused
post in Pinterest's words (an image it could not fetch names ``fileId``).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import httpx

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers.answers import aware, json_of, parse_time
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    MediaSource,
    MetricsUnsupported,
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

AUTHORIZE_URL = "https://www.pinterest.com/oauth/"
TOKEN_URL = "https://api.pinterest.com/v5/oauth/token"
API = "https://api.pinterest.com/v5"
SCOPES = ("boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read")
PUBLISH_SCOPES = ("boards:read", "boards:write", "pins:read", "pins:write")
"""``POST /v5/pins`` requires the four board and pin scopes (its ``security``)."""
READS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("/user_account", ("user_accounts:read",)),
    ("/boards", ("boards:read",)),
    ("/pins", ("boards:read", "pins:read")),
)
"""The reads ``drivers check`` makes and the scopes each requires (their ``security``
in Pinterest's API description): one answered shows its scopes granted, one refused
401 while another answered shows one of them missing."""
CREATED = frozenset({200, 201})
"""What ``POST /v5/pins`` answers when it made the pin (201; 200 too since API 5.18.0)."""
LOOKUP_PAGES = 3
CLOCK_SLACK = timedelta(minutes=2)


METRICS_REQUESTS_PER_HOUR = 41
"""``GET /v5/pins/{pin_id}/analytics`` is in the ``org_analytics`` category: 1,000 requests
a day per app on Trial access (about 41 an hour), 300 a minute per user on Standard.
pressroom cannot tell the operator's tier, so the round keeps to Trial's.
Source: https://developers.pinterest.com/docs/reference/rate-limits/"""
ANALYTICS_DAYS = 90
"""How far back the analytics endpoints reach (start_date "within the last 90 days",
https://developers.pinterest.com/docs/api/v5/pins-analytics)."""
METRIC_TYPES = ("IMPRESSION", "SAVE", "PIN_CLICK")
"""The figures asked for: PIN_CLICK counts every click on the Pin, to content on or off
Pinterest (its "Pin clicks"), so it is ``clicks`` and OUTBOUND_CLICK (a part of it) is
not asked for."""


class PinterestDriver:
    platform = Platform.PIN_BOARD
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
    ) -> None:
        self.client_id = client_id
        self._client_secret = client_secret
        self.tokens = tokens
        self.http = http
        self.media = media

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": ",".join(SCOPES),
                "state": state,
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "continuous_refresh": "true",
        }
        return token_call(self.http, TOKEN_URL, form, basic_auth=self._basic)

    def refresh(self, refresh_token: str) -> TokenSet:
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token}
        return token_call(self.http, TOKEN_URL, form, basic_auth=self._basic)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        response = self.http.request("GET", f"{API}/user_account", token=tokens.access_token)
        if response.status_code != 200:
            raise _unavailable(response, "read the account")
        account = json_of(response)
        username = str(account["username"])
        return Profile(
            name=username,
            display_name=str(account.get("business_name") or username),
            account_type=str(account.get("account_type") or "").lower() or None,
        )

    def inspect(self, account: Account) -> Inspection:
        """Pinterest has no token introspection: the account (its type) and one item of
        its boards and of its pins are read, and each read shows the scopes it requires
        (``READS``); the write scopes show only when something is written."""
        token = self.tokens.access_token(account.connection_id)
        answers: dict[str, dict[str, Any] | None] = {}
        for path, _ in READS:
            params = {} if path == "/user_account" else {"page_size": "1"}
            try:
                response = self.http.request("GET", f"{API}{path}", token=token, params=params)
            except AccessRevoked:  # 401: this read's scope, or the token itself
                answers[path] = None
                continue
            if response.status_code != 200:
                raise _unavailable(response, f"read {path}")
            answers[path] = json_of(response)
        if not any(answers.values()):
            raise AccessRevoked("Pinterest refused the connection's token: reconnect it")
        granted = {s for path, needs in READS if answers[path] is not None for s in needs}
        missing = {
            s for path, needs in READS if answers[path] is None and len(needs) == 1 for s in needs
        }
        if answers["/boards"] is not None and answers["/pins"] is None:
            missing.add("pins:read")
        scopes = scope_states(SCOPES, granted=granted, missing=missing)
        source = "which of user_account, boards and pins answered"
        user = answers["/user_account"] or {}
        kind = str(user.get("account_type") or "").lower() or None
        return Inspection(
            network="Pinterest",
            account=str(user.get("username") or account.name),
            scopes=scopes,
            scopes_source=source,
            account_type=kind,
            audit="not readable with the account's token (the app's access tier)",
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    f"{kind} account" if kind else "not read (user_accounts:read missing)",
                    "pins are published from business and personal accounts alike",
                    Standing.OK if kind else Standing.UNKNOWN,
                ),
                Finding(
                    "audit",
                    "Pinterest does not tell an account's token the app's access tier "
                    "(trial or standard)",
                    "a trial app's limits are Pinterest's, shown in its developer portal",
                    Standing.UNKNOWN,
                ),
                quota_finding("Pinterest", None),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        token = self.tokens.access_token(delivery.account.connection_id)
        pin: dict[str, Any] = {
            "board_id": delivery.fields["boardId"],
            "media_source": self._media_source(delivery),
        }
        for ours, theirs in (("title", "title"), ("description", "description")):
            if delivery.fields.get(ours):
                pin[theirs] = delivery.fields[ours]
        if delivery.media is not None and delivery.media.alt_text is not None:
            # The Pin's ``alt_text`` (PinCreate, at most 500: the rule table's
            # pin_board.alt_text); a carousel Pin's images take none of their own.
            pin["alt_text"] = delivery.media.alt_text
        response = self.http.request("POST", f"{API}/pins", token=token, creates=True, json=pin)
        if response.status_code not in CREATED:
            raise _refusal(response)
        created = json_of(response)
        return Published(
            str(created["id"]),
            _pin_url(str(created["id"])),
            parse_time(created.get("created_at")) or utcnow(),
        )

    def _media_source(self, delivery: Delivery) -> dict[str, Any]:
        """One image by its link, or a carousel Pin's images (``multiple_image_urls``),
        in order: Pinterest fetches them and gives the items no ids of their own."""
        if delivery.items:
            return {
                "source_type": "multiple_image_urls",
                "items": [
                    {"url": self.media.url(item.file_id, item.storage_key, item.content_type)}
                    for item in delivery.items
                ],
            }
        media = delivery.media
        assert media is not None  # pin_board requires an image
        return {
            "source_type": "image_url",
            "url": self.media.url(media.file_id, media.storage_key, media.content_type),
        }

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        token = self.tokens.access_token(delivery.account.connection_id)
        board = str(delivery.fields["boardId"])
        since = aware(sent_at) - CLOCK_SLACK
        params: dict[str, str] = {"page_size": "100"}
        for _ in range(LOOKUP_PAGES):
            response = self.http.request(
                "GET", f"{API}/boards/{board}/pins", token=token, params=params
            )
            if response.status_code != 200:
                raise _unavailable(response, "list the board's pins")
            body = json_of(response)
            for pin in body.get("items") or []:
                made = parse_time(pin.get("created_at"))
                if made is not None and made >= since and _same_pin(pin, delivery.fields):
                    return Published(str(pin["id"]), _pin_url(str(pin["id"])), made)
            bookmark = body.get("bookmark")
            if not bookmark:
                return None
            params["bookmark"] = str(bookmark)
        return None

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("pins have no thumbnails")

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The Pin's lifetime figures where Pinterest gives them (most Pins), else the
        sum over the last 90 days: impressions, saves and Pin clicks. Pinterest counts
        no likes, comments, shares or views for a Pin here: those stay None."""
        token = self.tokens.access_token(account.connection_id)
        today = utcnow().date()
        response = self.http.request(
            "GET",
            f"{API}/pins/{platform_post_id}/analytics",
            token=token,
            params={
                "start_date": _day(today - timedelta(days=ANALYTICS_DAYS - 1)),
                "end_date": _day(today),
                "metric_types": ",".join(METRIC_TYPES),
            },
        )
        if response.status_code == 404:
            raise MetricsUnsupported(
                f"deleted on the network: Pinterest has no such Pin ({_message(response)})"
            )
        if response.status_code == 403:
            raise MetricsUnsupported(
                f"Pinterest gives this account no analytics for the Pin ({_message(response)})"
            )
        if response.status_code != 200:
            raise _unavailable(response, "read the Pin's analytics")
        figures = json_of(response).get("all") or {}
        lifetime = figures.get("lifetime_metrics") or figures.get("summary_metrics") or {}
        return PostMetrics(
            impressions=_figure(lifetime, "IMPRESSION"),
            saves=_figure(lifetime, "SAVE"),
            clicks=_figure(lifetime, "PIN_CLICK"),
        )

    @property
    def _basic(self) -> tuple[str, str]:
        return (self.client_id, self._client_secret)


def _same_pin(pin: dict[str, Any], fields: dict[str, Any]) -> bool:
    return all(
        (pin.get(name) or "") == (fields.get(name) or "") for name in ("title", "description")
    )


def _day(day: date) -> str:
    return day.isoformat()


def _figure(figures: dict[str, Any], name: str) -> int | None:
    value = figures.get(name)
    return int(value) if isinstance(value, int | float) else None


def _pin_url(pin_id: str) -> str:
    return f"https://www.pinterest.com/pin/{pin_id}/"


def _message(response: httpx.Response) -> str:
    return str(json_of(response).get("message") or f"HTTP {response.status_code}")


def _refusal(response: httpx.Response) -> Exception:
    status, message = response.status_code, _message(response)
    if status in (403, 404):
        return PlatformRefused(f"Pinterest answered: {message}", field="boardId")
    if status == 400:
        fetching = "image" in message.lower() or "media" in message.lower()
        return PlatformRefused(
            f"Pinterest answered: {message}", field="fileId" if fetching else None
        )
    return PlatformUnavailable(f"Pinterest answered {status}: {message}", retry_after=30, sent=True)


def _unavailable(response: httpx.Response, doing: str) -> PlatformUnavailable:
    return PlatformUnavailable(
        f"Pinterest could not {doing} ({response.status_code}: {_message(response)})",
        retry_after=60,
        sent=True,
    )
