"""The generated parts of each network's page: the scopes its driver asks for at consent,
and what the sandbox refuses and answers as that network.

Both are read from the code that does it (the drivers' ``SCOPES``, ``PUBLISH_SCOPES`` and
``COMMENT_SCOPES`` gathered in ``grants``, with the drivers' own docstrings for why; the
sandbox's ``sandbox_network`` answers, the rule table's quotas, the sandbox's id shapes), so
a scope added to a driver (or a figure to its ``METRICS_SCOPES``) or a refusal added to
the sandbox shows on the page at the next
``python -m pressroom.docs``, and the staleness test fails until it does."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from pressroom import error_codes
from pressroom.docs.source import attribute_docstrings
from pressroom.platforms import Platform
from pressroom.rules.model import PostsPerDay
from pressroom.rules.table import NETWORKS, all_rules
from pressroom.service.drivers import (
    atproto_oauth,
    base,
    grants,
    microblog,
    open_microblog,
    page_social,
    photo_sharing,
    pin_board,
    professional_network,
    sandbox,
    sandbox_metrics,
    sandbox_network,
    short_video,
    text_thread,
    video_sharing,
)
from pressroom.service.drivers.shapes import SHAPES

DRIVERS: dict[Platform, ModuleType] = {
    Platform.MICROBLOG: microblog,
    Platform.VIDEO_SHARING: video_sharing,
    Platform.SHORT_VIDEO: short_video,
    Platform.PHOTO_SHARING: photo_sharing,
    Platform.PAGE_SOCIAL: page_social,
    Platform.PIN_BOARD: pin_board,
    Platform.TEXT_THREAD: text_thread,
    Platform.PROFESSIONAL_NETWORK: professional_network,
    Platform.OPEN_MICROBLOG: open_microblog,
}
"""Each label's real driver, whose module holds its scopes and says why it needs them."""

OTHER_USES: dict[tuple[Platform, str], str] = {
    (Platform.MICROBLOG, "offline.access"): "brings the refresh token (X's access tokens "
    "last two hours)",
    (Platform.VIDEO_SHARING, "https://www.googleapis.com/auth/youtube.readonly"): "reads the "
    "channel at connect and looks an unknown outcome up among its uploads",
    (Platform.SHORT_VIDEO, "user.info.basic"): "the account's `open_id` and display name "
    "at connect (`/v2/user/info/`)",
    (Platform.PIN_BOARD, "user_accounts:read"): "the account at connect and its type in "
    "`pressroom drivers check` (`/v5/user_account`)",
    (Platform.SHORT_VIDEO, "video.list"): "reads a published video's figures "
    "(`/v2/video/query/`) for its metrics",
    (Platform.PHOTO_SHARING, "instagram_business_manage_insights"): "reads a published "
    "post's insights (`/{ig-media-id}/insights`) for its metrics",
    (Platform.TEXT_THREAD, "threads_read_replies"): "looks a thread's later part whose "
    "outcome is unknown up among the replies of the part before (`/{threads-media-id}/replies`)",
    (Platform.TEXT_THREAD, "threads_manage_insights"): "reads a published post's insights "
    "(`/{threads-media-id}/insights`) for its metrics",
    (Platform.PAGE_SOCIAL, "read_insights"): "reads a published Page post's insights "
    "(`/{post-id}/insights`, `post_media_view`) for its impressions; a Page under 100 likes "
    "has none, and its posts' impressions are not counted",
}
"""Why a driver asks at consent for a scope that neither a post nor a first comment needs.
Every such scope must have its line here: the page cannot be written without one."""


def _short(scope: str) -> str:
    """Google's scopes are URLs; the page names them by their last part."""
    return scope.rsplit("/", 1)[-1]


def _source(platform: Platform) -> str:
    return f"`src/pressroom/service/drivers/{platform.value}.py`"


def scopes_lines(platform: Platform) -> list[str]:
    """The scopes ``platform``'s driver asks for at consent, each with what it serves."""
    asked = grants.CONSENT[platform]
    posting = set(grants.PUBLISHING[platform])
    commenting = set(grants.COMMENTING.get(platform, ()))
    rows = [
        f"Asked for at consent, in this order, by the driver ({_source(platform)}, `SCOPES`):",
        "",
        "| scope | a post needs it | a first comment needs it | why |",
        "|---|---|---|---|",
    ]
    for scope in asked:
        uses = []
        if scope in posting:
            uses.append("publishing")
        if scope in commenting:
            uses.append("a first comment")
        why = OTHER_USES.get((platform, scope))
        if not uses and why is None:
            raise LookupError(
                f"{platform.value} asks for {scope!r}, which neither publishing nor a "
                "comment needs: say why in pressroom.docs.networks_page.OTHER_USES"
            )
        rows.append(
            f"| `{_short(scope)}` | {'yes' if scope in posting else 'no'} "
            f"| {'yes' if scope in commenting else 'no' if platform in grants.COMMENTING else '-'} "
            f"| {why or ', '.join(uses)} |"
        )
    # reStructuredText's ``code`` is Markdown's `code`
    said = {
        name: " ".join(text.split()).replace("``", "`")
        for name, text in attribute_docstrings(DRIVERS[platform]).items()
    }
    notes = [
        (name, said[name])
        for name in ("SCOPES", "PUBLISH_SCOPES", "COMMENT_SCOPES")
        if name in said and (name != "COMMENT_SCOPES" or platform in grants.COMMENTING)
    ]
    if notes:
        rows.append("")
        rows.extend(f"- `{name}`: {text}" for name, text in notes)
    rows += [
        "",
        "A connection whose grant lacks one a post needs is refused as the network refuses "
        "it (see [What the sandbox models](#what-the-sandbox-models)); "
        f"`pressroom drivers check --platform {platform.value}` says which a real grant lacks.",
    ]
    return rows


def _said(body: dict[str, Any]) -> str:
    """The network's own words in a refusal: its reason or code, and its message."""
    error = body.get("error", body)
    if not isinstance(error, dict):
        return json.dumps(body)
    reasons = error.get("errors")
    code = (
        reasons[0].get("reason")
        if isinstance(reasons, list) and reasons
        else error.get("code", error.get("title"))
    )
    message = error.get("message", error.get("detail"))
    return f"`{code}`" + (f', "{message}"' if message and message != code else "")


def _heard(exc: Exception) -> str:
    """What the API answers when the driver raises ``exc``, as the publish path maps it."""
    if isinstance(exc, base.PlatformRateLimited):
        code = error_codes.RATE_LIMITED
    elif isinstance(exc, base.AccessRevoked):
        return (
            f"`{error_codes.CONNECTION_INACTIVE.status} {error_codes.CONNECTION_INACTIVE.code}`, "
            "and the connection turns inactive until it is reconnected"
        )
    elif isinstance(exc, base.PermissionMissing):
        code = exc.code
    elif isinstance(exc, base.PlatformRefused):
        named = f" naming `{exc.field}`" if exc.field else ""
        return f"`{error_codes.VALIDATION_ERROR.status} {error_codes.VALIDATION_ERROR.code}`{named}"
    else:
        raise TypeError(f"no answer written for {type(exc).__name__}")
    return f"`{code.status} {code.code}`"


_NOW = datetime(2026, 1, 1, tzinfo=UTC)
"""A fixed clock for the quota's example answer, so the page does not change by the hour."""


def _of(network: str) -> str:
    return f"{network}'" if network.endswith("s") else f"{network}'s"


def _host(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[0]


def _answer(platform: Platform, answer: sandbox_network.Answer) -> str:
    return (
        f"{_of(NETWORKS[platform])} `{answer.status}` {_said(answer.body)} "
        f"([{_host(answer.source)}]({answer.source})), which the real driver, and so the "
        f"API, answers {_heard(answer.as_heard(platform))}"
    )


def _metrics_scope_lines(platform: Platform) -> list[str]:
    """What a metrics read gets from the sandbox when the consent withheld a scope some
    figures need (``grants.METRICS``)."""
    lines = []
    for scope, figures in grants.METRICS.get(platform, {}).items():
        names = [f"`{name}`" for name in figures]
        named = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        if sandbox_metrics.REPORTED[platform] <= set(figures):
            answer = sandbox_network.METRICS_REFUSALS[platform]
            lines.append(
                f"- **A grant without `{_short(scope)}`**, which every figure needs "
                f"({named}): a metrics read gets {_of(NETWORKS[platform])} `{answer.status}` "
                f"{_said(answer.body)} ([{_host(answer.source)}]({answer.source})), which the "
                "real driver reads as no figures: the post's metrics say `available: false` "
                "with the reason, and the connection still publishes."
            )
        else:
            lines.append(
                f"- **A grant without `{_short(scope)}`**: a post's {named} are not counted "
                "(null in its metrics) and its other figures are, as the real driver reads "
                "the network's refusal of that read; the connection still publishes."
            )
    return lines


def sandbox_lines(platform: Platform) -> list[str]:
    """What the sandbox refuses and answers as ``platform``'s network."""
    network = NETWORKS[platform]
    example = SHAPES[platform](random.Random(0), "Your Name", "connection")
    lines = [
        f"What the sandbox answers as {network}, from `src/pressroom/service/drivers/` "
        "(`sandbox.py`, `sandbox_network.py`, `shapes.py`) and the rule table; each refusal "
        "comes before it records anything:",
        "",
        f"- **Ids and URLs** shaped like {_of(network)}, under an `.example` host: a post's id "
        f"looks like `{example.post_id}`, its URL `{example.url}`.",
        "- **The rules** in the table above, named in the error's `rule` with their page.",
        f"- **A grant without a scope a post needs** "
        f"(`{'`, `'.join(_short(s) for s in grants.PUBLISHING[platform])}`): "
        f"{_answer(platform, sandbox_network.SCOPE_REFUSALS[platform])}.",
    ]
    if platform in grants.COMMENTING:
        lines.append(
            f"- **A first comment without its scopes** "
            f"(`{'`, `'.join(_short(s) for s in grants.COMMENTING[platform])}`): the same "
            "refusal, for the comment."
        )
    for rule in all_rules():
        if rule.platform is platform and isinstance(rule, PostsPerDay):
            retry = sandbox_network.quota_refusal(platform, rule, rule.limit, None, _NOW)
            lines.append(
                f"- **The daily quota**, {rule.describe()} (`{rule.id}`), counted per "
                "connection from the sandbox's own records of its posts (first comments "
                f"are not posts): the next post is {_heard(retry)} with "
                f"`Retry-After: {retry.retry_after}`, nothing sent."
            )
    lines.extend(_metrics_scope_lines(platform))
    if platform in sandbox.CONTAINERS:
        lines.append(
            "- **The media container**, ready `PRESSROOM_SANDBOX_CONTAINER_READY_MS` after it "
            "is made and waited for as the real driver waits (up to "
            "`PRESSROOM_META_CONTAINER_WAIT_SECONDS`); one still not ready then is "
            f"`{error_codes.PLATFORM_UNAVAILABLE.status} {error_codes.PLATFORM_UNAVAILABLE.code}`"
            ", nothing published."
        )
    if platform is Platform.SHORT_VIDEO:
        lines += [
            "- **The creator's settings**: every privacy level "
            f"(`{'`, `'.join(sandbox.CREATOR['privacy_level_options'])}`) and every "
            "interaction on; a post without the owner's `privacyLevel`, or with one the "
            "settings lack, is refused naming the field.",
            "- **An app TikTok has not audited**, with `PRESSROOM_SANDBOX_SHORT_VIDEO_AUDITED=0`:"
            f" a post with any level but `{sandbox_network.UNAUDITED_LEVEL}` gets "
            f"{_answer(platform, sandbox_network.UNAUDITED_CLIENT)}.",
        ]
    return lines


def oauth_lines() -> list[str]:
    """What Bluesky's OAuth needs of pressroom and of the account's server, read from
    ``atproto_oauth`` (the client pressroom is, and the server profile it checks)."""
    example_key = atproto_oauth.client_key(b"an example secret")
    on_https = atproto_oauth.client_of(
        "https://pressroom.example.com", open_microblog.SCOPES, (example_key,)
    )
    on_loopback = atproto_oauth.client_of("http://127.0.0.1:8000", open_microblog.SCOPES)
    document = json.dumps(atproto_oauth.client_metadata(on_https), indent=2).splitlines()
    return [
        "From `src/pressroom/service/drivers/atproto_oauth.py` "
        "([AT Protocol OAuth](https://atproto.com/specs/oauth)):",
        "",
        "- **No registration**: the client id is a URL the account's server reads. With "
        "`PRESSROOM_BASE_URL` on https, it is the client metadata document pressroom serves "
        f"at `{atproto_oauth.CLIENT_METADATA_PATH}` (for `https://pressroom.example.com`: "
        f"`{on_https.client_id}`). On a loopback address (`http://127.0.0.1:PORT` or "
        "`http://[::1]:PORT`, not `localhost`) pressroom is the spec's localhost client, "
        f"`{on_loopback.client_id}`. On any other address (plain http on a host name) no "
        "server can sign pressroom in, and Connect asks for an app password.",
        f"- **Redirect URI**: `{{PRESSROOM_BASE_URL}}{atproto_oauth.CALLBACK_PATH}`.",
        f"- **Scopes**: `{on_https.scope}` (the table above).",
        "- **A confidential client on https**: no client secret to register; each request "
        "to the authorization server carries a client assertion (`private_key_jwt`, "
        f"`{atproto_oauth.DPOP_ALG}`) signed with a key pressroom derives from its own secret "
        "(`PRESSROOM_SECRET_KEY` or the data dir's key file; keep a replaced one in "
        "`PRESSROOM_OLD_SECRET_KEYS`, or the grants made under it cannot be refreshed), "
        f"whose public half it serves at `{atproto_oauth.JWKS_PATH}`. The localhost client "
        "is a public one (`token_endpoint_auth_method: none`), whose grant the reference "
        "server ends two weeks after consent, against two years for a confidential "
        "client's.",
        "- **DPoP**: every token is bound to a key pressroom makes for the grant "
        f"(`{atproto_oauth.DPOP_ALG}`), kept encrypted in the token vault with the tokens.",
        "- **The account's server** names its authorization server "
        "(`/.well-known/oauth-protected-resource`), whose metadata "
        "(`/.well-known/oauth-authorization-server`) must name itself as the issuer and "
        "offer pushed authorization requests, PKCE `S256`, "
        f"`{atproto_oauth.DPOP_ALG}` DPoP proofs and the `atproto` scope; a server without "
        "them is connected with an app password instead.",
        "",
        "The client metadata document, as served (for `https://pressroom.example.com`):",
        "",
        "```json",
        *document,
        "```",
    ]
