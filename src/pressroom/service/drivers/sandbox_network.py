"""What the real networks answer where the sandbox refuses as they would, read as their
drivers read them.

The sandbox does not invent refusals of its own. Each refusal below is the network's
documented answer (status and body, with the page it comes from), and it reaches the
caller through the same reading a real driver gives that answer: the shared HTTP layer
(``http.classify``: 401, 429, 5xx) and then the driver's own mapping (``meta.failure``,
X's ``refusal_of``, TikTok's ``data_of`` ...). So a post the sandbox refuses fails
through the API exactly as it would on the network: a grant without a scope turns the
connection inactive (or, for a Facebook Page, ``pages_permission_missing``), an
unaudited TikTok app posting publicly is a 400 naming ``privacyLevel``, a used-up daily
quota a 429 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.rules.model import PostsPerDay
from pressroom.service.drivers import (
    meta,
    meta_insights,
    microblog,
    open_microblog,
    professional_network,
    short_video,
    text_thread,
    video_sharing,
)
from pressroom.service.drivers.base import PlatformRateLimited
from pressroom.service.drivers.http import classify

Reading = Callable[[httpx.Response], Exception]
"""A real driver's reading of an answer its HTTP layer passed on."""


def _raised(reader: Callable[[httpx.Response], object]) -> Reading:
    """A reading that raises rather than returns (TikTok's ``data_of``), as one that returns."""

    def read(response: httpx.Response) -> Exception:
        try:
            reader(response)
        except Exception as exc:
            return exc
        raise AssertionError("the network's refusal was read as a success")

    return read


@dataclass(frozen=True)
class Answer:
    """One documented answer of a network, and how its real driver reads it."""

    status: int
    body: dict[str, Any]
    source: str
    """The page the answer is documented on (or, where the network's page shows no body,
    where its shape was seen; say so beside it)."""
    read: Reading | None = None
    """The driver's reading; None where the HTTP layer decides (a 401)."""

    def as_heard(self, platform: Platform) -> Exception:
        """What a real driver raises when its network gives this answer."""
        response = httpx.Response(
            self.status, json=self.body, request=httpx.Request("POST", "https://sandbox.invalid")
        )
        try:
            classify(platform, response, creates=False)
        except Exception as exc:
            return exc
        assert self.read is not None, f"{platform.value}: {self.status} needs its driver's reading"
        return self.read(response)


GRAPH_ERRORS = "https://developers.facebook.com/docs/graph-api/guides/error-handling"
GRAPH_PERMISSION = {
    "message": "(#10) Application does not have permission for this action",
    "type": "OAuthException",
    "code": 10,
    "fbtrace_id": "AsandboxTrace",
}

SCOPE_REFUSALS: dict[Platform, Answer] = {
    # X: a token without a scope the endpoint requires is a bare problem "Forbidden".
    Platform.MICROBLOG: Answer(
        403,
        {"title": "Forbidden", "type": "about:blank", "status": 403, "detail": "Forbidden"},
        "https://docs.x.com/x-api/fundamentals/response-codes-and-errors",
        microblog.refusal_of,
    ),
    Platform.VIDEO_SHARING: Answer(
        403,
        {
            "error": {
                "code": 403,
                "message": "Request had insufficient authentication scopes.",
                "errors": [
                    {
                        "message": "Insufficient Permission",
                        "domain": "global",
                        "reason": "insufficientPermissions",
                    }
                ],
                "status": "PERMISSION_DENIED",
            }
        },
        "https://developers.google.com/youtube/v3/docs/errors",
        lambda response: video_sharing.failure_of(response, sent=False),
    ),
    Platform.SHORT_VIDEO: Answer(
        401,
        {
            "error": {
                "code": "scope_not_authorized",
                "message": "The user did not authorize the scope required for completing this request.",
                "log_id": "sandbox",
            }
        },
        "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post",
    ),
    Platform.PHOTO_SHARING: Answer(
        400,
        {"error": GRAPH_PERMISSION},
        GRAPH_ERRORS,
        lambda response: meta.failure(response, "Instagram", sent=False, field="fileId"),
    ),
    Platform.PAGE_SOCIAL: Answer(
        400,
        {
            "error": {
                "message": "(#200) The user hasn't authorized the application to perform this action",
                "type": "OAuthException",
                "code": 200,
                "fbtrace_id": "AsandboxTrace",
            }
        },
        GRAPH_ERRORS,
        lambda response: meta.failure(
            response,
            "Facebook",
            sent=False,
            field="fileId",
            permission=error_codes.PAGES_PERMISSION,
        ),
    ),
    # Pinterest's page shows no body; this one is from pinterest/api-quickstart#97.
    Platform.PIN_BOARD: Answer(
        401,
        {
            "code": 3,
            "message": "Your token does not have sufficient permissions to perform this "
            "operation. Please ensure your token is authorized with the correct set of scopes.",
        },
        "https://github.com/pinterest/api-description/blob/main/v5/openapi.yaml",
    ),
    Platform.TEXT_THREAD: Answer(
        400,
        {"error": GRAPH_PERMISSION},
        "https://developers.facebook.com/docs/threads/troubleshooting",
        lambda response: meta.failure(response, "Threads", sent=False, field="text"),
    ),
    # LinkedIn's page gives the shape; this body is from linkedin-api-python-client#47.
    Platform.PROFESSIONAL_NETWORK: Answer(
        403,
        {
            "status": 403,
            "serviceErrorCode": 100,
            "code": "ACCESS_DENIED",
            "message": "Not enough permissions to access: posts.CREATE.NO_VERSION",
        },
        "https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling",
        lambda response: professional_network.refusal_of(response, version=""),
    ),
    # Bluesky: the PDS's auth verifier refuses a token without the scope a method needs.
    Platform.OPEN_MICROBLOG: Answer(
        400,
        {"error": "InvalidToken", "message": "Bad token scope"},
        "https://github.com/bluesky-social/atproto/blob/main/packages/pds/src/auth-verifier.ts",
        open_microblog.refusal_of,
    ),
}
"""Each network's answer to a call its token lacks a scope for."""

UNAUDITED_CLIENT = Answer(
    403,
    {
        "error": {
            "code": "unaudited_client_can_only_post_to_private_accounts",
            "message": "Unaudited clients can only post to a private account. The publish "
            "attempt will be blocked when calling /publish/video/init/.",
            "log_id": "sandbox",
        }
    },
    "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post",
    _raised(lambda response: short_video.data_of(response, sent=False)),
)
"""TikTok's init answer to an app it has not audited posting other than privately."""

UNAUDITED_LEVEL = "SELF_ONLY"
"""The one privacy level an unaudited TikTok app may post with
(https://developers.tiktok.com/doc/content-sharing-guidelines)."""


def scope_refusal(platform: Platform) -> Exception:
    """What publishing on ``platform`` raises when the grant lacks a scope it needs."""
    return SCOPE_REFUSALS[platform].as_heard(platform)


METRICS_REFUSALS: dict[Platform, Answer] = {
    # Threads' insights edge answers a token without threads_manage_insights as any Graph
    # call without its permission (code 10), and its driver reads that as no figures, not
    # a revoked token (https://developers.facebook.com/docs/threads/insights).
    Platform.TEXT_THREAD: Answer(
        400,
        {"error": GRAPH_PERMISSION},
        "https://developers.facebook.com/docs/threads/troubleshooting",
        lambda response: meta_insights.metrics_failure(
            response, "Threads", permission=text_thread.INSIGHTS_SCOPE
        ),
    ),
    # TikTok's video query answers 401 scope_not_authorized without video.list; the
    # driver, finding the token still answers creator_info, reads it as no figures
    # (``short_video.metrics_scope_missing``).
    Platform.SHORT_VIDEO: Answer(
        401,
        SCOPE_REFUSALS[Platform.SHORT_VIDEO].body,
        "https://developers.tiktok.com/doc/tiktok-api-v2-video-query",
    ),
}
"""Each network's answer to a metrics read whose every figure needs a scope the grant
lacks (``grants.METRICS``); where only some figures need it, the read gives the others
and leaves those None, as the real driver does."""


def metrics_refusal(platform: Platform) -> Exception:
    """What a metrics read on ``platform`` raises when the grant lacks the scope every
    figure it reports needs: the network's answer, read as the real driver reads it."""
    heard = METRICS_REFUSALS[platform].as_heard(platform)
    if platform is Platform.SHORT_VIDEO:  # a 401: the HTTP layer's, then the driver's
        return short_video.metrics_scope_missing(heard)
    return heard


QUOTA_ANSWERS: dict[Platform, Callable[[meta.Quota], PlatformRateLimited]] = {
    Platform.PHOTO_SHARING: lambda quota: meta.quota_exhausted("Instagram", quota),
    Platform.TEXT_THREAD: lambda quota: meta.quota_exhausted("Threads", quota),
}
"""How each real driver answers a used-up daily quota it read from its network."""


def quota_refusal(
    platform: Platform, rule: PostsPerDay, used: int, oldest: datetime | None, now: datetime
) -> PlatformRateLimited:
    """The answer to a post over ``rule``'s quota: the real driver's where it has one,
    else a wait until the oldest post in the window leaves it."""
    answer = QUOTA_ANSWERS.get(platform)
    if answer is not None:
        return answer(meta.Quota(used, rule.limit))
    frees = (oldest or now) + timedelta(seconds=rule.window_seconds)
    return PlatformRateLimited(
        f"{rule.network} allows {rule.describe()}, and this account has made {used}: "
        "nothing was sent",
        retry_after=max(1, int((frees - now).total_seconds())),
    )
