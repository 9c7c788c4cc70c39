"""The sandbox refuses what the network refuses, through the API, on both databases.

Each behaviour is tried just inside (published) and just outside (the network's refusal,
as the real driver reads it): a consent without a scope publishing needs, TikTok's
unaudited-app privacy rule and its owner's privacy choice, the daily quotas of the rule
table on a test clock, and the wait for a Meta media container. A consent without a
scope some figures need (the insights scopes, TikTok's ``video.list``) is read by a
metrics round as the network answers it: those figures null, or none at all.
"""

from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from pressroom.platforms import Platform
from pressroom.rules import rules_of
from pressroom.rules.model import PostsPerDay
from pressroom.service.admin import connect_through_sandbox
from pressroom.service.db.models import Account, Connection, SandboxDelivery
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of, grants, sandbox_oauth
from pressroom.service.drivers.sandbox import SandboxDriver
from pressroom.service.metrics.repository import FIGURES
from tests.conftest import AccountHandle, Service
from tests.service.test_metrics_api import finished, metrics_of, refresh
from tests.service.web.conftest import Browser, consent_fields, csrf_of
from tests.support.publish import (
    CONNECT_EXTRA,
    connect,
    deliveries,
    publish,
    twin_of,
    valid_body,
)

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


@pytest.fixture
def browser(service: Service) -> Browser:
    return Browser(service.client)


def signed_up(service: Service, browser: Browser) -> AccountHandle:
    """An account made on the dashboard, with its API key."""
    email = browser.sign_up()
    key = browser.api_key_shown()
    with transaction(service.sessions, write=False) as db:
        account_id = db.scalar(select(Account.id).where(Account.email == email))
    assert account_id is not None
    return AccountHandle(service, account_id, key)


def consent(browser: Browser, platform: str, name: str, withheld: str | None) -> list[str]:
    """Connect through the sandbox's consent page, unticking ``withheld``; the
    permissions the page asked for."""
    page = browser.client.get("/connections").text
    started = browser.client.post(
        f"/connections/connect/{platform}",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    shown = browser.client.get(started.headers["location"])
    fields = consent_fields(shown.text)
    asked = fields["granted"]
    assert isinstance(asked, list)
    if withheld is not None:
        assert withheld in asked, f"the consent page does not ask for {withheld}: {asked}"
        fields["granted"] = [scope for scope in asked if scope != withheld]
    done = browser.client.post(
        f"/sandbox/{platform}/oauth/authorize",
        data={**fields, "decision": "allow", "name": name},
        follow_redirects=True,
    )
    assert done.status_code == 200, done.text
    return asked


def connection_of(account: AccountHandle, platform: Platform) -> str:
    with transaction(account.service.sessions, write=False) as db:
        found = db.scalar(
            select(Connection.id).where(
                Connection.account_id == account.id, Connection.platform == platform.value
            )
        )
    assert found is not None
    return found


CONSENT_BOX = re.compile(
    r'<input type="checkbox" id="(granted-\d+)" name="granted" value="([^"]+)"[^>]*>'
    r'<label for="\1">([^<]*)</label> <span class="hint">\(<code>([^<]+)</code>\)</span>'
)


def test_the_consent_page_names_each_permission_in_words_with_its_scope_beside(
    service: Service, browser: Browser
) -> None:
    """Each box's label is the permission in plain words (what a screen reader says for
    it); the network's scope is shown beside the label, not read as part of it."""
    signed_up(service, browser)
    for platform, asked in sandbox_oauth.SCOPES.items():
        page = browser.client.get("/connections").text
        started = browser.client.post(
            f"/connections/connect/{platform.value}",
            data={"csrf_token": csrf_of(page)},
            follow_redirects=False,
        )
        shown = browser.client.get(started.headers["location"]).text
        boxes = [
            (scope, html.unescape(label), code)
            for _, scope, label, code in CONSENT_BOX.findall(shown)
        ]
        assert [scope for scope, _, _ in boxes] == list(asked), platform
        for scope, label, code in boxes:
            assert label == sandbox_oauth.SCOPE_WORDS.get(scope, scope).capitalize()
            assert code == scope


@dataclass(frozen=True)
class Withheld:
    platform: Platform
    consent_on: Platform
    scope: str
    status: int
    code: str


WITHHELD = [
    # X: POST /2/tweets needs tweet.write; X's bare 403 "Forbidden" → reconnect.
    Withheld(Platform.MICROBLOG, Platform.MICROBLOG, "tweet.write", 409, "connection_inactive"),
    # YouTube: insufficientPermissions → reconnect.
    Withheld(
        Platform.VIDEO_SHARING,
        Platform.VIDEO_SHARING,
        "https://www.googleapis.com/auth/youtube.upload",
        409,
        "connection_inactive",
    ),
    # TikTok: 401 scope_not_authorized → reconnect.
    Withheld(
        Platform.SHORT_VIDEO, Platform.SHORT_VIDEO, "video.publish", 409, "connection_inactive"
    ),
    # Instagram: Graph code 10 → reconnect.
    Withheld(
        Platform.PHOTO_SHARING,
        Platform.PHOTO_SHARING,
        "instagram_business_content_publish",
        409,
        "connection_inactive",
    ),
    # Facebook: Graph code 200 → the spec's pages_permission_missing.
    Withheld(
        Platform.PAGE_SOCIAL,
        Platform.PAGE_SOCIAL,
        "pages_read_engagement",
        403,
        "pages_permission_missing",
    ),
    # Pinterest: POST /v5/pins without boards:write is a 401 → reconnect.
    Withheld(Platform.PIN_BOARD, Platform.PIN_BOARD, "boards:write", 409, "connection_inactive"),
    # Threads (the twin shares its photo_sharing account's consent in the sandbox).
    Withheld(
        Platform.TEXT_THREAD,
        Platform.PHOTO_SHARING,
        "threads_content_publish",
        409,
        "connection_inactive",
    ),
    # LinkedIn: 403 ACCESS_DENIED → reconnect.
    Withheld(
        Platform.PROFESSIONAL_NETWORK,
        Platform.PROFESSIONAL_NETWORK,
        "w_member_social",
        409,
        "connection_inactive",
    ),
]


@pytest.mark.parametrize("case", WITHHELD, ids=lambda case: case.platform.value)
def test_a_consent_without_a_scope_publishing_needs_gets_the_networks_refusal(
    service: Service, browser: Browser, case: Withheld
) -> None:
    account = signed_up(service, browser)
    consent(browser, case.consent_on.value, "acme", withheld=case.scope)
    connection_id = connection_of(account, case.platform)
    body = valid_body(account, case.platform, connection_id=connection_id)

    refused = publish(account, case.platform, body)

    assert refused.status_code == case.status, refused.text
    error = refused.json()["error"]
    assert error["code"] == case.code
    assert deliveries(service) == []  # nothing reached the network
    if case.code == "connection_inactive":  # as on the network: reconnect it
        listed = account.get("/api/connections/unified").json()  # type: ignore[attr-defined]
        statuses = {c["id"]: c["status"] for c in listed}
        assert statuses[connection_id] == "inactive"


PUBLISHES_WITHOUT: dict[Platform, frozenset[str]] = {
    # X: offline.access only brings a refresh token; POST /2/tweets needs the other three.
    Platform.MICROBLOG: frozenset({"offline.access"}),
    # YouTube: videos.insert is authorized by youtube.upload (its discovery document).
    # youtube.force-ssl is for a first comment (commentThreads.insert) only.
    Platform.VIDEO_SHARING: frozenset(
        {
            "https://www.googleapis.com/auth/youtube.readonly",
            "https://www.googleapis.com/auth/youtube.force-ssl",
        }
    ),
    # TikTok: Direct Post needs video.publish; user.info.basic is for the profile,
    # video.list for a video's figures (video/query).
    Platform.SHORT_VIDEO: frozenset({"user.info.basic", "video.list"}),
    # Instagram's consent here also asks for its Threads twin's scopes; a post without a
    # first comment needs no comment scope, and the insights scopes are for metrics only.
    Platform.PHOTO_SHARING: frozenset(
        {
            "threads_basic",
            "threads_content_publish",
            "threads_manage_insights",
            "instagram_business_manage_comments",
            "instagram_business_manage_insights",
            "threads_read_replies",
        }
    ),
    # Facebook: pages_manage_engagement is for a first comment only, read_insights for
    # a post's impressions.
    Platform.PAGE_SOCIAL: frozenset({"pages_manage_engagement", "read_insights"}),
    # Pinterest: POST /v5/pins needs the board and pin scopes, not the account's.
    Platform.PIN_BOARD: frozenset({"user_accounts:read"}),
    Platform.TEXT_THREAD: frozenset(
        {
            "instagram_business_basic",
            "instagram_business_content_publish",
            "instagram_business_manage_comments",
            "instagram_business_manage_insights",
            "threads_manage_insights",
            "threads_read_replies",  # only for looking a reply up
        }
    ),
    Platform.PROFESSIONAL_NETWORK: frozenset(),
    # Bluesky: an app-password session holds both; every write needs transition:generic
    # and every session atproto (https://atproto.com/specs/oauth#authorization-scopes).
    Platform.OPEN_MICROBLOG: frozenset(),
}
"""The scopes a consent on each label can leave out and still publish there."""

EACH_SCOPE = [
    (platform, scope) for platform, asked in sandbox_oauth.SCOPES.items() for scope in asked
]


@pytest.mark.parametrize(
    ("consent_on", "scope"), EACH_SCOPE, ids=[f"{p.value}-{s}" for p, s in EACH_SCOPE]
)
def test_each_scope_withheld_refuses_exactly_the_posts_that_need_it(
    service: Service, consent_on: Platform, scope: str
) -> None:
    """``admin connect --withhold SCOPE`` for every scope each consent asks for: a post
    on a label whose publishing needs it gets that network's refusal, one that does not
    need it publishes (photo_sharing's consent also decides its text_thread twin's)."""
    email = f"{secrets.token_hex(4)}@example.com"
    account = service.account(email=email)
    connected = connect_through_sandbox(
        email,
        consent_on,
        name="acme",
        withheld=(scope,),
        settings=service.settings,
        **CONNECT_EXTRA.get(consent_on, {}),  # type: ignore[arg-type]
    )
    labels = [consent_on]
    if consent_on is Platform.PHOTO_SHARING:
        labels.append(Platform.TEXT_THREAD)
    # A refusal turns the token inactive, for the twin and its parent alike (they share
    # it): the post that should go is sent before the one that should be refused.
    labels.sort(key=lambda platform: scope not in PUBLISHES_WITHOUT[platform])
    for platform in labels:
        connection_id = connected if platform is consent_on else twin_of(account, connected)
        body = valid_body(account, platform, connection_id=connection_id)
        answer = publish(account, platform, body)
        if scope in PUBLISHES_WITHOUT[platform]:
            assert answer.status_code == 200, (platform, answer.text)
            continue
        refused = (
            (403, "pages_permission_missing")
            if platform is Platform.PAGE_SOCIAL
            else (
                409,
                "connection_inactive",
            )
        )
        assert (answer.status_code, answer.json()["error"]["code"]) == refused, (
            platform,
            answer.text,
        )
    published = {d.platform for d in deliveries(service)}
    assert published == {p.value for p in labels if scope in PUBLISHES_WITHOUT[p]}


@pytest.mark.parametrize("platform", list(Platform), ids=lambda p: p.value)
def test_a_consent_granting_what_the_network_asks_for_publishes(
    service: Service, browser: Browser, platform: Platform
) -> None:
    account = signed_up(service, browser)
    consent_on = Platform.PHOTO_SHARING if platform is Platform.TEXT_THREAD else platform
    asked = consent(browser, consent_on.value, "acme", withheld=None)
    if platform is Platform.PIN_BOARD:  # the real driver's scopes, boards:write among them
        assert asked == [
            "boards:read",
            "boards:write",
            "pins:read",
            "pins:write",
            "user_accounts:read",
        ]
    body = valid_body(account, platform, connection_id=connection_of(account, platform))

    published = publish(account, platform, body)

    assert published.status_code == 200, published.text
    assert len(deliveries(service)) == 1


# --- TikTok: the owner's privacy level, and an app TikTok has not audited --------------


def test_short_video_needs_the_owners_privacy_level_as_tiktok_does(service: Service) -> None:
    account = service.account()
    body = valid_body(account, Platform.SHORT_VIDEO)
    del body["privacyLevel"]
    refused = publish(account, Platform.SHORT_VIDEO, body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["field"] == "privacyLevel"
    assert "no default" in refused.json()["error"]["message"]

    chosen = publish(account, Platform.SHORT_VIDEO, {**body, "privacyLevel": "PUBLIC_TO_EVERYONE"})
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["privacyLevel"] == "PUBLIC_TO_EVERYONE"


def test_an_unaudited_short_video_app_may_post_self_only_and_nothing_else(
    service: Service,
) -> None:
    service.settings.sandbox.sandbox_short_video_audited = False
    account = service.account()
    body = valid_body(account, Platform.SHORT_VIDEO)

    for level in ("PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR"):
        refused = publish(account, Platform.SHORT_VIDEO, {**body, "privacyLevel": level})
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert (error["code"], error["field"]) == ("validation_error", "privacyLevel")
        assert "unaudited_client_can_only_post_to_private_accounts" in error["message"]
    assert deliveries(service) == []

    private = publish(account, Platform.SHORT_VIDEO, {**body, "privacyLevel": "SELF_ONLY"})
    assert private.status_code == 200, private.text
    assert private.json()["privacyLevel"] == "SELF_ONLY"
    assert len(deliveries(service)) == 1


# --- daily quotas, on a test clock -----------------------------------------------------


class Clock:
    """The sandbox network's clock, moved by hand and by the driver's waits."""

    def __init__(self, now: datetime) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)


def on_clock(service: Service, platform: Platform) -> tuple[SandboxDriver, Clock]:
    driver = drivers_of(service.client.app)[platform]  # type: ignore[arg-type]
    assert isinstance(driver, SandboxDriver)
    clock = Clock(NOW)
    driver.clock, driver.sleep = clock, clock.sleep
    return driver, clock


def earlier_posts(
    service: Service, platform: Platform, connection_id: str, times: list[datetime]
) -> None:
    """Posts the network already has for the connection, written as its own records."""
    with transaction(service.sessions) as db:
        for n, made in enumerate(times):
            db.add(
                SandboxDelivery(
                    platform=platform.value,
                    kind="post",
                    connection_id=connection_id,
                    platform_post_id=f"earlier-{n}",
                    url=f"https://{platform.value}.example/{n}",
                    payload={"fields": {}, "reference": f"earlier-{n}", "media": None},
                    created_at=made,
                )
            )


def quota(platform: Platform) -> PostsPerDay:
    (rule,) = [r for r in rules_of(platform) if isinstance(r, PostsPerDay)]
    return rule


@pytest.mark.parametrize(
    ("platform", "limit"), [(Platform.PHOTO_SHARING, 100), (Platform.TEXT_THREAD, 250)]
)
def test_the_daily_quota_publishes_the_last_post_and_refuses_the_next(
    service: Service, platform: Platform, limit: int
) -> None:
    rule = quota(platform)
    assert (rule.limit, rule.window_seconds) == (limit, 24 * 3600)  # the table's figures
    _, clock = on_clock(service, platform)
    account = service.account()
    connection_id = connect(account, platform)
    # The oldest post leaves the moving window first: an hour from now.
    times = [NOW - timedelta(hours=23)] + [NOW - timedelta(minutes=5)] * (limit - 2)
    earlier_posts(service, platform, connection_id, times)
    body = valid_body(account, platform, connection_id=connection_id)

    last = publish(account, platform, body)
    assert last.status_code == 200, last.text  # the limit-th post in 24 h

    over = publish(account, platform, body)
    assert over.status_code == 429, over.text  # one more: the network's limit
    assert over.json()["error"]["code"] == "rate_limited"
    assert int(over.headers["Retry-After"]) == 3600  # as the real driver answers

    clock.now += timedelta(hours=1, seconds=1)  # the oldest post has left the window
    freed = publish(account, platform, body)
    assert freed.status_code == 200, freed.text


def test_the_quota_counts_each_connection_on_its_own(service: Service) -> None:
    on_clock(service, Platform.PHOTO_SHARING)
    account = service.account()
    full = connect(account, Platform.PHOTO_SHARING)
    other = connect(account, Platform.PHOTO_SHARING)
    limit = quota(Platform.PHOTO_SHARING).limit
    earlier_posts(service, Platform.PHOTO_SHARING, full, [NOW - timedelta(hours=1)] * limit)
    refused = publish(
        account,
        Platform.PHOTO_SHARING,
        valid_body(account, Platform.PHOTO_SHARING, connection_id=full),
    )
    assert refused.status_code == 429
    published = publish(
        account,
        Platform.PHOTO_SHARING,
        valid_body(account, Platform.PHOTO_SHARING, connection_id=other),
    )
    assert published.status_code == 200, published.text


def test_a_load_rehearsal_may_lift_the_daily_quota(service: Service) -> None:
    """PRESSROOM_SANDBOX_DAILY_QUOTAS=false: a benchmark posting past a real account's day
    is not held for hours by the network's Retry-After; on again, the quota counts."""
    on_clock(service, Platform.PHOTO_SHARING)
    account = service.account()
    full = connect(account, Platform.PHOTO_SHARING)
    limit = quota(Platform.PHOTO_SHARING).limit
    earlier_posts(service, Platform.PHOTO_SHARING, full, [NOW - timedelta(hours=1)] * limit)
    body = valid_body(account, Platform.PHOTO_SHARING, connection_id=full)

    service.settings.sandbox.sandbox_daily_quotas = False
    lifted = publish(account, Platform.PHOTO_SHARING, body)
    assert lifted.status_code == 200, lifted.text

    service.settings.sandbox.sandbox_daily_quotas = True
    assert publish(account, Platform.PHOTO_SHARING, body).status_code == 429


# --- the media container of Instagram and Threads -------------------------------------


@pytest.mark.parametrize("platform", [Platform.PHOTO_SHARING, Platform.TEXT_THREAD])
def test_a_container_not_ready_is_waited_for_then_published(
    service: Service, platform: Platform
) -> None:
    service.settings.sandbox.sandbox_container_ready_ms = 5000
    _, clock = on_clock(service, platform)
    account = service.account()

    published = publish(account, platform, valid_body(account, platform))

    assert published.status_code == 200, published.text
    assert clock.slept == [1.0, 2.0, 4.0]  # read after 1, 3 and 7 s, as the real driver reads
    [delivery] = deliveries(service)
    assert delivery.created_at >= NOW + timedelta(seconds=5)  # published once it was ready


def test_a_container_still_not_ready_after_the_wait_is_never_published(service: Service) -> None:
    service.settings.sandbox.sandbox_container_ready_ms = 60_000
    driver, clock = on_clock(service, Platform.TEXT_THREAD)
    driver.container_wait_seconds = 10
    account = service.account()

    failed = publish(account, Platform.TEXT_THREAD, valid_body(account, Platform.TEXT_THREAD))

    assert failed.status_code == 503, failed.text
    assert failed.json()["error"]["recordStatus"] == "not_sent"
    assert sum(clock.slept) == 10
    assert deliveries(service) == []


def test_by_default_a_container_is_ready_at_once(service: Service) -> None:
    _, clock = on_clock(service, Platform.PHOTO_SHARING)
    account = service.account()
    published = publish(
        account, Platform.PHOTO_SHARING, valid_body(account, Platform.PHOTO_SHARING)
    )
    assert published.status_code == 200, published.text
    assert clock.slept == []


def test_the_demo_settings_keep_the_sandbox_fast() -> None:
    from pressroom.settings import SandboxSettings

    knobs = SandboxSettings()
    assert (knobs.sandbox_container_ready_ms, knobs.sandbox_short_video_audited) == (0, True)
    assert knobs.sandbox_daily_quotas  # a real network's day, unless a rehearsal lifts it


def test_the_quota_is_the_rule_tables(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    """One source: the sandbox reads ``posts_per_day`` from the table when it counts."""
    from dataclasses import replace

    from pressroom.rules import TABLE

    rules = TABLE[Platform.PHOTO_SHARING]
    lowered = tuple(replace(r, limit=2) if isinstance(r, PostsPerDay) else r for r in rules)
    monkeypatch.setitem(TABLE, Platform.PHOTO_SHARING, lowered)
    account = service.account()
    body = valid_body(account, Platform.PHOTO_SHARING)
    answers = [publish(account, Platform.PHOTO_SHARING, body).status_code for _ in range(3)]
    assert answers == [200, 200, 429]


def test_the_sandbox_reports_a_grant_as_drivers_check_reports_a_networks(
    service: Service, browser: Browser
) -> None:
    from pressroom.service.drivers.base import Account as Social
    from pressroom.service.drivers.inspection import ScopeState

    account = signed_up(service, browser)
    consent(browser, "pin_board", "acme", withheld="boards:write")
    connection_id = connection_of(account, Platform.PIN_BOARD)
    driver = drivers_of(service.client.app)[Platform.PIN_BOARD]  # type: ignore[arg-type]

    report = driver.inspect(Social(connection_id, "acme"))

    assert report.scopes["boards:write"] is ScopeState.MISSING
    assert report.scopes["pins:write"] is ScopeState.GRANTED
    assert report.can_publish is False


# --- Metrics: the figures a scope withheld at consent is needed for --------------------


@dataclass(frozen=True)
class MetricsWithheld:
    platform: Platform
    consent_on: Platform
    scope: str
    uncounted: frozenset[str]
    """The figures the network gives none of without the scope (null through the API)."""
    counted: frozenset[str]
    """The figures still read; empty: the network answers no figures at all."""


METRICS_WITHHELD = [
    # Facebook: impressions are the post's post_media_view insight, under read_insights;
    # reactions, comments and shares come from the post under pages_read_engagement.
    MetricsWithheld(
        Platform.PAGE_SOCIAL,
        Platform.PAGE_SOCIAL,
        "read_insights",
        frozenset({"impressions"}),
        frozenset({"likes", "comments", "shares"}),
    ),
    # Instagram: views (impressions), shares and saved from the insights edge; likes and
    # comments from the media object under the basic scope.
    MetricsWithheld(
        Platform.PHOTO_SHARING,
        Platform.PHOTO_SHARING,
        "instagram_business_manage_insights",
        frozenset({"impressions", "shares", "saves"}),
        frozenset({"likes", "comments"}),
    ),
    # Threads: every figure is an insight (the twin shares photo_sharing's consent).
    MetricsWithheld(
        Platform.TEXT_THREAD,
        Platform.PHOTO_SHARING,
        "threads_manage_insights",
        frozenset({"impressions", "likes", "comments", "shares"}),
        frozenset(),
    ),
    # TikTok: every figure comes from the video query, under video.list.
    MetricsWithheld(
        Platform.SHORT_VIDEO,
        Platform.SHORT_VIDEO,
        "video.list",
        frozenset({"views", "likes", "comments", "shares"}),
        frozenset(),
    ),
]


def test_the_metrics_cases_cover_every_scope_a_figure_needs() -> None:
    assert {(c.platform, c.scope): c.uncounted for c in METRICS_WITHHELD} == {
        (platform, scope): frozenset(figures)
        for platform, by_scope in grants.METRICS.items()
        for scope, figures in by_scope.items()
    }


@pytest.mark.parametrize("case", METRICS_WITHHELD, ids=lambda case: case.platform.value)
def test_a_consent_without_a_metrics_scope_counts_none_of_the_figures_it_gives(
    service: Service, browser: Browser, case: MetricsWithheld
) -> None:
    """The post publishes (publishing needs no metrics scope); a metrics round then reads
    it as the network answers such a grant: the figures the scope gives are null and
    the others counted, or, where it gives them all, no figures and the reason why."""
    account = signed_up(service, browser)
    consent(browser, case.consent_on.value, "acme", withheld=case.scope)
    connection_id = connection_of(account, case.platform)
    answer = publish(
        account, case.platform, valid_body(account, case.platform, connection_id=connection_id)
    )
    assert answer.status_code == 200, answer.text
    record_id = answer.json()["recordId"]

    finished(account, refresh(account)["roundId"])
    found = metrics_of(account, record_id)

    if not case.counted:
        assert found["available"] is False, found
        assert case.scope in found["unavailableReason"]
        assert found["latest"] is None
        return
    assert found["available"] is True, found
    latest = found["latest"]
    assert {name for name in case.uncounted if latest[name] is None} == case.uncounted, latest
    assert all(latest[name] is not None for name in case.counted), latest
    assert found["totals"] == {name: latest[name] for name in FIGURES}


def test_a_consent_granting_the_metrics_scopes_counts_every_figure(
    service: Service, browser: Browser
) -> None:
    """The same reads with nothing withheld: every figure the cases leave null is counted."""
    account = signed_up(service, browser)
    records = {}
    for consent_on in (Platform.PAGE_SOCIAL, Platform.PHOTO_SHARING, Platform.SHORT_VIDEO):
        consent(browser, consent_on.value, "acme", withheld=None)
    for case in METRICS_WITHHELD:
        body = valid_body(
            account, case.platform, connection_id=connection_of(account, case.platform)
        )
        answer = publish(account, case.platform, body)
        assert answer.status_code == 200, answer.text
        records[case] = answer.json()["recordId"]

    finished(account, refresh(account)["roundId"])

    for case, record_id in records.items():
        latest = metrics_of(account, record_id)["latest"]
        assert latest is not None, case
        assert all(latest[name] is not None for name in case.uncounted | case.counted), latest
