"""``pressroom drivers`` says which driver serves each label and what would change it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import respx
from sqlalchemy import select, text
from typer.testing import CliRunner

from pressroom.cli.main import app
from pressroom.platforms import Platform
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers import grants
from pressroom.service.oauth.vault import Vault
from pressroom.settings import get_settings
from tests.conftest import Service
from tests.drivers.contract import Contract, held_to
from tests.drivers.contracts import facebook as facebook_contract
from tests.drivers.contracts import instagram as instagram_contract
from tests.drivers.contracts import linkedin as linkedin_contract
from tests.drivers.contracts import pinterest as pinterest_contract
from tests.drivers.contracts import threads as threads_contract
from tests.drivers.contracts import tiktok as tiktok_contract
from tests.drivers.contracts import x as x_contract
from tests.drivers.contracts import youtube as youtube_contract

runner = CliRunner()


def rows(output: str) -> dict[str, str]:
    """Each label's table row, keyed by the label."""
    found = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 4 and cells[0] and cells[0] != "label":
            found[cells[0]] = " | ".join(cells[1:])
    return found


def introspected(router: respx.MockRouter, scope: str = "openid,profile,w_member_social") -> None:
    """LinkedIn's token introspection, answering an active token with ``scope``."""
    router.post("https://www.linkedin.com/oauth/v2/introspectToken").respond(
        200,
        json={
            "active": True,
            "client_id": "id",
            "authorized_at": 1764000000,
            "created_at": 1764000000,
            "status": "active",
            "expires_at": 1769000000,
            "scope": scope,
            "auth_type": "3L",
        },
    )


def consented(platform: Platform) -> frozenset[str]:
    """The scopes the label's real driver asks for at consent: all a grant can hold."""
    return frozenset(grants.CONSENT[platform])


def linkedin_held() -> Contract:
    """LinkedIn's contract with the versions it serves today (the CLI's driver sends
    its own LinkedIn-Version on today's clock)."""
    return linkedin_contract.contract(
        datetime.now(UTC).date(), consented(Platform.PROFESSIONAL_NETWORK)
    )


def test_every_label_is_sandbox_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MICROBLOG", "PIN_BOARD"):
        monkeypatch.delenv(f"PRESSROOM_{name}_CLIENT_ID", raising=False)
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert set(table) == {p.value for p in Platform}  # the spec's eight and open_microblog
    assert "PRESSROOM_OPEN_MICROBLOG_SERVICE_URL" in table["open_microblog"]
    assert all(row.startswith("sandbox") for row in table.values())
    assert "PRESSROOM_MICROBLOG_CLIENT_ID" in table["microblog"]
    assert "/oauth/callback/<label>" in done.output


def test_a_configured_label_names_its_network_and_the_others_stay_sandbox() -> None:
    env = {
        "COLUMNS": "200",
        "PRESSROOM_MICROBLOG_CLIENT_ID": "id",
        "PRESSROOM_MICROBLOG_CLIENT_SECRET": "secret",
        "PRESSROOM_PIN_BOARD_CLIENT_ID": "id",  # no secret: not configured
    }
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env=env)
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert table["microblog"].startswith("X (API v2) | set")
    assert table["pin_board"].startswith("sandbox | -")
    assert "PRESSROOM_PIN_BOARD_CLIENT_ID and _CLIENT_SECRET" in table["pin_board"]
    assert (
        table["text_thread"]
        == "sandbox | - | set PRESSROOM_TEXT_THREAD_CLIENT_ID and _CLIENT_SECRET to publish to Threads (Threads API)"
    )


def test_check_reads_each_connections_profile_with_its_stored_token(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``drivers check`` proves credentials, consent and vault end to end, posting nothing
    (X played by respx; run by hand against the real network)."""
    account = service.account()
    vault = Vault.from_settings(service.settings)
    tokens = {"@good": "token-good", "@gone": "token-gone"}
    ids = {}
    for name, token in tokens.items():
        ids[name] = account.connect("microblog", name)
        with transaction(service.sessions) as db:
            connection = db.get(Connection, ids[name])
            assert connection is not None
            connection.access_token_enc = vault.encrypt(token)
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_MICROBLOG_CLIENT_ID": "id",
        "PRESSROOM_MICROBLOG_CLIENT_SECRET": "secret",
    }

    def users_me(request: httpx.Request) -> httpx.Response:
        if request.headers["Authorization"] == "Bearer token-gone":
            return httpx.Response(401, json={"title": "Unauthorized", "status": 401})
        return httpx.Response(200, json={"data": {"id": "1", "name": "Good", "username": "good"}})

    get_settings.cache_clear()
    with (
        respx.mock(assert_all_called=True) as x,
        held_to(x, x_contract.contract(consented(Platform.MICROBLOG))),
    ):
        x.get("https://api.x.com/2/users/me").mock(side_effect=users_me)
        done = runner.invoke(app, ["drivers", "check", "--platform", "microblog"], env=env)
    get_settings.cache_clear()
    assert done.exit_code == 1, done.output
    assert f"{ids['@good']}  @good: ok, X (API v2) says '@good'" in done.output
    assert f"{ids['@gone']}  @gone: refused by X (API v2)" in done.output
    assert "token-" not in done.output


def test_check_refuses_a_label_on_the_sandbox() -> None:
    get_settings.cache_clear()
    done = runner.invoke(
        app, ["drivers", "check", "--platform", "pin_board"], env={"COLUMNS": "200"}
    )
    assert done.exit_code == 1
    assert "pin_board is on the sandbox" in done.output


def test_check_makes_a_draft_where_the_network_has_drafts(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LinkedIn drafts: ``--draft`` posts in ``DRAFT``, published to nobody."""
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
    }
    get_settings.cache_clear()
    with (
        respx.mock(assert_all_called=True) as linkedin,
        held_to(linkedin, linkedin_held()),
    ):
        introspected(linkedin)
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        drafted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
            201, headers={"x-restli-id": "urn:li:share:1"}
        )
        done = runner.invoke(
            app,
            [
                "drivers",
                "check",
                "--platform",
                "professional_network",
                "--draft",
                "pressroom check",
            ],
            env=env,
        )
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    assert "draft urn:li:share:1 made on LinkedIn (Posts API)" in done.output
    body = json.loads(drafted.calls.last.request.content)
    assert (body["lifecycleState"], body["commentary"]) == ("DRAFT", "pressroom check")
    shipped = drafted.calls.last.request.headers["LinkedIn-Version"]
    assert re.search(rf"^LinkedIn-Version {shipped} is \d+ months old; served$", done.output, re.M)


def test_a_linkedin_version_past_its_year_is_reported_and_fails_the_check(
    service: Service,
) -> None:
    """LinkedIn serves a version a year: ``drivers`` warns, ``drivers check`` says so and
    fails, and nothing is sent with it."""
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
        "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION": "202501",
    }
    get_settings.cache_clear()
    listed = runner.invoke(app, ["drivers"], env=env)
    with (
        respx.mock(assert_all_called=True) as linkedin,
        held_to(linkedin, linkedin_held()),
    ):
        introspected(linkedin)
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        done = runner.invoke(
            app,
            ["drivers", "check", "--platform", "professional_network", "--draft", "x"],
            env=env,
        )
    get_settings.cache_clear()
    assert listed.exit_code == 0, listed.output
    assert "warning: professional_network: LinkedIn-Version 202501 is" in listed.output
    assert done.exit_code == 1, done.output
    assert "warning: LinkedIn-Version 202501 is" in done.output
    assert "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION" in done.output
    assert "refused the draft" in done.output  # refused here: no POST reached LinkedIn


def linkedin_env(service: Service) -> dict[str, str]:
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    return {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
    }


def test_check_says_what_the_network_granted_and_what_it_means_for_publishing(
    service: Service,
) -> None:
    """A LinkedIn grant without ``w_member_social``: the table says the scope is missing
    and that the connection cannot publish; the JSON carries the same report; nothing
    is posted (no route but the reads is mocked) and the exit code is 1."""
    env = linkedin_env(service)
    get_settings.cache_clear()
    with (
        respx.mock(assert_all_called=True, assert_all_mocked=True) as linkedin,
        held_to(linkedin, linkedin_held()),
    ):
        introspected(linkedin, scope="openid,profile")
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        table = runner.invoke(
            app, ["drivers", "check", "--platform", "professional_network"], env=env
        )
        as_json = runner.invoke(
            app, ["drivers", "check", "--platform", "professional_network", "--json"], env=env
        )
        called = {(c.request.method, c.request.url.path) for c in linkedin.calls}
    get_settings.cache_clear()
    assert called == {("POST", "/oauth/v2/introspectToken"), ("GET", "/v2/userinfo")}
    assert table.exit_code == 1, table.output
    assert "ok, LinkedIn (Posts API) says 'Ada Lovelace'" in table.output
    assert re.search(r"scopes .*publishing needs w_member_social, not granted", table.output)
    assert "scopes openid=granted profile=granted w_member_social=missing" in table.output
    assert "cannot publish until each blocked line is dealt with" in table.output
    assert "AQV" not in table.output + as_json.output

    assert as_json.exit_code == 1, as_json.output
    [report] = json.loads(as_json.output)
    inspection = report["inspection"]
    assert inspection["scopes"] == {
        "openid": "granted",
        "profile": "granted",
        "w_member_social": "missing",
    }
    assert inspection["missingScopes"] == ["w_member_social"]
    assert (inspection["accountType"], inspection["canPublish"]) == ("member", False)
    assert inspection["scopesSource"] == "LinkedIn's token introspection"
    topics = {f["topic"]: f["standing"] for f in inspection["findings"]}
    assert topics == {
        "scopes": "blocked",
        "account type": "ok",
        "api version": "ok",
        "quota": "unknown",
    }


def test_check_reports_instagrams_quota_left_as_json(service: Service) -> None:
    """Instagram's ``content_publishing_limit`` is the quota line; nothing is posted."""
    account = service.account()
    connection_id = account.connect("photo_sharing", "acme.bakery", account_type="business")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("IGAA")
    env = {
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PHOTO_SHARING_CLIENT_ID": "id",
        "PRESSROOM_PHOTO_SHARING_CLIENT_SECRET": "secret",
    }
    graph = "https://graph.instagram.com/v23.0"
    get_settings.cache_clear()
    with (
        respx.mock(assert_all_called=True, assert_all_mocked=True) as instagram,
        held_to(instagram, instagram_contract.contract(consented(Platform.PHOTO_SHARING))),
    ):
        instagram.get(f"{graph}/me").respond(
            200, json={"user_id": "1784", "username": "acme.bakery", "account_type": "BUSINESS"}
        )
        instagram.get(f"{graph}/1784/content_publishing_limit").respond(
            200,
            json={
                "data": [
                    {"quota_usage": 40, "config": {"quota_total": 100, "quota_duration": 86400}}
                ]
            },
        )
        done = runner.invoke(
            app, ["drivers", "check", "--platform", "photo_sharing", "--json"], env=env
        )
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output  # nothing blocks publishing
    [report] = json.loads(done.output)
    inspection = report["inspection"]
    assert inspection["quota"] == {"used": 40, "total": 100, "windowSeconds": 86400, "left": 60}
    assert inspection["accountType"] == "business"
    assert inspection["canPublish"] is None  # Meta does not say whether the app is reviewed
    assert {f["topic"] for f in inspection["findings"]} == {
        "scopes",
        "account type",
        "audit",
        "quota",
    }


# --- drivers check --json against each network, replayed and held to its contract ------


@dataclass(frozen=True)
class Network:
    """A label's network as ``drivers check`` reads it: the answers to its read-only
    calls, the contract every request is held to, and what the report must say."""

    platform: Platform
    name: str
    replay: Callable[[respx.MockRouter], None]
    contract: Callable[[frozenset[str]], Contract]
    scopes: dict[str, str]
    account_type: str
    audit: str
    can_publish: bool | None
    extra: dict[str, str] = field(default_factory=dict)


def meta_read(router: respx.MockRouter, url: str, **body: str) -> respx.Route:
    """A Graph GET the driver sends as a POST with ``method=GET`` (the token off the URL)."""
    return router.post(url, data__contains={"method": "GET", **body})


def replay_x(router: respx.MockRouter) -> None:
    router.get("https://api.x.com/2/users/me").respond(
        200,
        json={
            "data": {
                "id": "2244994945",
                "name": "pressroom",
                "username": "pressroom_hq",
                "verified_type": "business",
                "protected": False,
            }
        },
    )


def replay_youtube(router: respx.MockRouter) -> None:
    router.post("https://www.googleapis.com/oauth2/v2/tokeninfo").respond(
        200,
        json={
            "scope": " ".join(grants.CONSENT[Platform.VIDEO_SHARING]),
            "expires_in": 3412,
            "access_type": "offline",
        },
    )
    router.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200,
        json={
            "items": [
                {
                    "id": "UC1",
                    "snippet": {"title": "Pressroom", "customUrl": "@pressroom"},
                    "status": {"longUploadsStatus": "eligible", "madeForKids": False},
                }
            ]
        },
    )


def replay_tiktok(router: respx.MockRouter) -> None:
    tiktok_ok = {"code": "ok", "message": "", "log_id": "202611251200"}
    router.post("https://open.tiktokapis.com/v2/post/publish/creator_info/query/").respond(
        200,
        json={
            "data": {
                "creator_username": "pressroomhq",
                "creator_nickname": "Pressroom HQ",
                "privacy_level_options": ["FOLLOWER_OF_CREATOR", "SELF_ONLY"],
                "comment_disabled": False,
                "duet_disabled": False,
                "stitch_disabled": False,
                "max_video_post_duration_sec": 600,
            },
            "error": tiktok_ok,
        },
    )
    router.get("https://open.tiktokapis.com/v2/user/info/").respond(
        200,
        json={
            "data": {"user": {"open_id": "723f", "display_name": "Pressroom"}},
            "error": tiktok_ok,
        },
    )


def replay_instagram(router: respx.MockRouter) -> None:
    graph = "https://graph.instagram.com/v23.0"
    router.get(f"{graph}/me").respond(
        200, json={"user_id": "1784", "username": "acme.bakery", "account_type": "MEDIA_CREATOR"}
    )
    router.get(f"{graph}/1784/content_publishing_limit").respond(
        200,
        json={
            "data": [{"quota_usage": 3, "config": {"quota_total": 100, "quota_duration": 86400}}]
        },
    )


def replay_facebook(router: respx.MockRouter) -> None:
    graph, page = "https://graph.facebook.com/v23.0", "104836135573838"
    granted = list(grants.CONSENT[Platform.PAGE_SOCIAL])
    meta_read(router, f"{graph}/debug_token", input_token="stored-token").respond(
        200,
        json={
            "data": {
                "app_id": "id",
                "type": "PAGE",
                "application": "pressroom",
                "is_valid": True,
                "profile_id": page,
                "scopes": granted,
                "granular_scopes": [
                    {"scope": "pages_manage_posts", "target_ids": ["999"]},  # another Page
                ],
            }
        },
    )
    meta_read(router, f"{graph}/me").respond(200, json={"id": page, "name": "Acme Bakery"})


def replay_pinterest(router: respx.MockRouter) -> None:
    api = "https://api.pinterest.com/v5"
    router.get(f"{api}/user_account").respond(
        200, json={"account_type": "BUSINESS", "username": "pressroomhq"}
    )
    router.get(f"{api}/boards").respond(200, json={"items": [], "bookmark": None})
    router.get(f"{api}/pins").respond(200, json={"items": [], "bookmark": None})


def replay_threads(router: respx.MockRouter) -> None:
    api = "https://graph.threads.net/v1.0"
    meta_read(router, f"{api}/me").respond(
        200, json={"id": "2589", "username": "acme.bakery", "is_verified": False}
    )
    meta_read(router, f"{api}/2589/threads_publishing_limit").respond(
        200,
        json={
            "data": [{"quota_usage": 9, "config": {"quota_total": 250, "quota_duration": 86400}}]
        },
    )


def replay_linkedin(router: respx.MockRouter) -> None:
    introspected(router)
    router.get("https://api.linkedin.com/v2/userinfo").respond(
        200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
    )


def granted(platform: Platform) -> dict[str, str]:
    return dict.fromkeys(grants.CONSENT[platform], "granted")


NETWORKS = [
    Network(
        Platform.MICROBLOG,
        "@pressroom_hq",
        replay_x,
        x_contract.contract,
        # GET /2/users/me shows the two scopes it requires; X tells tweet.write only
        # when it issues the token.
        {
            "tweet.read": "granted",
            "tweet.write": "unknown",
            "users.read": "granted",
            "offline.access": "unknown",
        },
        "public",
        "verified_type business",
        None,
    ),
    Network(
        Platform.VIDEO_SHARING,
        "@pressroom",
        replay_youtube,
        youtube_contract.contract,
        granted(Platform.VIDEO_SHARING),
        "channel",
        "longUploadsStatus eligible",
        None,
    ),
    Network(
        Platform.SHORT_VIDEO,
        "pressroomhq",
        replay_tiktok,
        tiktok_contract.contract,
        # video.list (a video's figures) shows by no read drivers check makes.
        {**granted(Platform.SHORT_VIDEO), "video.list": "unknown"},
        "private",
        "not readable: TikTok has no API for an app's audit",
        None,
    ),
    Network(
        Platform.PHOTO_SHARING,
        "acme.bakery",
        replay_instagram,
        instagram_contract.contract,
        # No read shows the comments or insights scope (Instagram Login has no token
        # introspection).
        {
            **granted(Platform.PHOTO_SHARING),
            "instagram_business_manage_comments": "unknown",
            "instagram_business_manage_insights": "unknown",
        },
        "creator",
        "not readable with the account's token (Meta's App Review)",
        None,
        {"account_type": "creator"},
    ),
    Network(
        Platform.PAGE_SOCIAL,
        "Acme Bakery",
        replay_facebook,
        facebook_contract.contract,
        # granular_scopes narrow pages_manage_posts to another Page: not this one's.
        {**granted(Platform.PAGE_SOCIAL), "pages_manage_posts": "missing"},
        "page",
        "not readable with a Page's token (Meta's App Review)",
        False,
    ),
    Network(
        Platform.PIN_BOARD,
        "pressroomhq",
        replay_pinterest,
        pinterest_contract.contract,
        # The write scopes show only by writing.
        {
            **granted(Platform.PIN_BOARD),
            "boards:write": "unknown",
            "pins:write": "unknown",
        },
        "business",
        "not readable with the account's token (the app's access tier)",
        None,
    ),
    Network(
        Platform.TEXT_THREAD,
        "acme.bakery",
        replay_threads,
        threads_contract.contract,
        # threads_manage_insights (a post's figures) and threads_read_replies (a reply's
        # look-up) show by no read drivers check makes.
        {
            **granted(Platform.TEXT_THREAD),
            "threads_manage_insights": "unknown",
            "threads_read_replies": "unknown",
        },
        "profile",
        "is_verified false",
        None,
    ),
    Network(
        Platform.PROFESSIONAL_NETWORK,
        "Ada Lovelace",
        replay_linkedin,
        lambda asked: linkedin_held(),
        granted(Platform.PROFESSIONAL_NETWORK),
        "member",
        "not readable (the app's products are granted in LinkedIn's portal)",
        None,
    ),
]


def connected(service: Service, network: Network, token: str) -> dict[str, str]:
    """A connection of the network's label holding ``token``, and the environment of an
    operator with the label's credentials on the service's database."""
    account = service.account()
    if network.platform is Platform.TEXT_THREAD:  # made with its photo_sharing account
        account.connect("photo_sharing", network.name, account_type="business")
    else:
        account.connect(network.platform.value, network.name, **network.extra)
    with transaction(service.sessions) as db:
        [connection] = db.scalars(
            select(Connection).where(Connection.platform == network.platform.value)
        ).all()
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt(token)
    label = network.platform.value.upper()
    return {
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        f"PRESSROOM_{label}_CLIENT_ID": "id",
        f"PRESSROOM_{label}_CLIENT_SECRET": "secret",
    }


COMMAND = "pressroom-drivers-check"
"""The ``application_name`` the command's database sessions carry in the test, so
PostgreSQL can tell them from the service's own."""


def tagged(url: str) -> str:
    """The database URL with the command's sessions named, on PostgreSQL."""
    return f"{url}?application_name={COMMAND}" if url.startswith("postgresql") else url


def left_open(service: Service) -> int | None:
    """How many of the command's sessions PostgreSQL still holds (None on SQLite, which
    has no server to hold them)."""
    if not service.settings.database_url.startswith("postgresql"):
        return None
    with transaction(service.sessions, write=False) as db:
        return db.scalar(
            text(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND application_name = :name"
            ),
            {"name": COMMAND},
        )


@pytest.mark.parametrize("network", NETWORKS, ids=lambda n: n.platform.value)
def test_check_json_reports_scopes_account_type_and_audit_for_each_network(
    service: Service, network: Network
) -> None:
    """``drivers check --json``, run as an operator runs it, against each network replayed
    with every request held to the network's contract (its endpoints, parameters and
    the scopes asked for at consent): the report carries the scopes as the network
    shows them, the account's type and the audit or verification status; the exit code
    follows the verdict; the table says the same; the token is never printed."""
    env = connected(service, network, "stored-token")
    env["PRESSROOM_DATABASE_URL"] = tagged(env["PRESSROOM_DATABASE_URL"])
    get_settings.cache_clear()
    with (
        respx.mock(assert_all_called=True, assert_all_mocked=True) as router,
        held_to(router, network.contract(consented(network.platform))) as held,
    ):
        network.replay(router)
        check = ["drivers", "check", "--platform", network.platform.value]
        table = runner.invoke(app, check, env={"COLUMNS": "200", **env})
        done = runner.invoke(app, [*check, "--json"], env=env)
        sent = [call.request for call in router.calls]
    get_settings.cache_clear()
    assert left_open(service) in (None, 0)  # the command closed what it opened
    assert held.checked == sent and sent  # each request was held to the contract
    assert done.exit_code == (1 if network.can_publish is False else 0), done.output
    assert "stored-token" not in done.output
    [report] = json.loads(done.output)
    assert report["ok"] is True, report
    inspection = report["inspection"]
    assert inspection["scopes"] == network.scopes
    assert inspection["missingScopes"] == [
        s for s, state in network.scopes.items() if state == "missing"
    ]
    assert (inspection["accountType"], inspection["audit"]) == (
        network.account_type,
        network.audit,
    )
    assert inspection["canPublish"] is network.can_publish
    assert {"scopes", "quota"} <= {f["topic"] for f in inspection["findings"]}

    assert table.exit_code == done.exit_code, table.output
    head = f"{report['connectionId']}  {network.name}"
    scopes = " ".join(f"{s}={state}" for s, state in inspection["scopes"].items())
    assert f"{head}: scopes {scopes}\n" in table.output
    assert f"{head}: account type {network.account_type}; audit {network.audit}\n" in table.output
    assert "stored-token" not in table.output


NETWORKS_DOCS = Path(__file__).resolve().parents[2] / "docs" / "networks"


def table_after(text: str, heading: str) -> list[list[str]]:
    """The rows of the Markdown table that follows ``heading`` (header and rule left out)."""
    lines = text[text.index(heading) :].splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_the_docs_say_what_check_tells_and_what_the_sandbox_cannot_know() -> None:
    """The operator's two questions before going live: what ``drivers check`` tells for
    each label (a row per label, every column filled), and why a post the sandbox
    published could still fail on the network (credentials, review and audit, quotas
    the network counts, each with what to do and how ``drivers check`` helps)."""
    tells = table_after(
        (NETWORKS_DOCS / "index.md").read_text(encoding="utf-8"), "What each network tells:"
    )
    assert [row[0] for row in tells] == [p.value for p in Platform]
    assert all(len(row) == 5 and all(row) for row in tells), tells

    sandbox = (NETWORKS_DOCS / "sandbox.md").read_text(encoding="utf-8")
    unknowable = table_after(sandbox, "## What the sandbox cannot know")
    assert all(len(row) == 2 and all(row) for row in unknowable), unknowable
    reasons = " ".join(row[0] for row in unknowable)
    for reason in ("credentials", "audit", "App Review", "quota", "Page roles"):
        assert reason in reasons, reason
    assert "drivers check" in " ".join(row[1] for row in unknowable)
