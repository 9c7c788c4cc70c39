"""Platform drivers: one per label behind one small interface (``base.PlatformDriver``).

Each label is served by its real network's driver (``REAL_DRIVERS``) when the operator
registered an app with that network (``PRESSROOM_<LABEL>_CLIENT_ID`` and
``_CLIENT_SECRET``, see ``settings.NetworkSettings``); every other label keeps the
sandbox, a faithful stand-in with latency and failure knobs.
``describe`` says which is which, for ``pressroom drivers`` and the dashboard, and
``version_warnings`` what an operator must change before a network stops serving the API
version pressroom is set to send (logged at start-up, shown by ``pressroom drivers``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import atproto_oauth, linkedin_versions
from pressroom.service.drivers.base import MediaSource, PlatformDriver
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.microblog import XDriver
from pressroom.service.drivers.open_microblog import BlueskyDriver
from pressroom.service.drivers.page_social import FacebookPagesDriver
from pressroom.service.drivers.photo_sharing import InstagramDriver
from pressroom.service.drivers.pin_board import PinterestDriver
from pressroom.service.drivers.professional_network import LinkedInDriver
from pressroom.service.drivers.sandbox import SandboxDriver, SandboxRandom
from pressroom.service.drivers.short_video import TikTokDriver
from pressroom.service.drivers.text_thread import ThreadsDriver
from pressroom.service.drivers.tokens import ConnectionTokens, TokenSource
from pressroom.service.drivers.video_sharing import YouTubeDriver
from pressroom.service.media.handover import MediaHandover
from pressroom.service.oauth.vault import Vault
from pressroom.service.storage.signing import load_secret
from pressroom.settings import NetworkSettings, Settings

Drivers = Mapping[Platform, PlatformDriver]


@dataclass(frozen=True)
class NetworkApp:
    """What a real driver is made from: the operator's app and the service's parts."""

    client_id: str
    client_secret: str
    tokens: TokenSource
    http: NetworkClient
    media: MediaSource
    settings: NetworkSettings
    secrets: tuple[bytes, ...] = ()
    """The service's secret, then its former ones (``PRESSROOM_OLD_SECRET_KEYS``): what a
    driver derives keys of its own from (Bluesky's OAuth client key)."""


RealDriverFactory = Callable[[NetworkApp], PlatformDriver]


@dataclass(frozen=True)
class RealNetwork:
    network: str
    """The network behind the label, as its users know it."""
    make: RealDriverFactory
    turned_on_by: str | None = None
    """The setting that turns the network on, where it is not an app's client id and
    secret (Bluesky needs no app)."""


REAL_DRIVERS: dict[Platform, RealNetwork] = {
    Platform.MICROBLOG: RealNetwork(
        "X (API v2)", lambda a: XDriver(a.client_id, a.client_secret, a.tokens, a.http)
    ),
    Platform.VIDEO_SHARING: RealNetwork(
        "YouTube (Data API v3)",
        lambda a: YouTubeDriver(a.client_id, a.client_secret, a.tokens, a.http, a.media),
    ),
    Platform.SHORT_VIDEO: RealNetwork(
        "TikTok (Content Posting API)",
        lambda a: TikTokDriver(a.client_id, a.client_secret, a.tokens, a.http, a.media),
    ),
    Platform.TEXT_THREAD: RealNetwork(
        "Threads (Threads API)",
        lambda a: ThreadsDriver(
            a.client_id,
            a.client_secret,
            a.tokens,
            a.http,
            media=a.media,
            container_wait_seconds=a.settings.meta_container_wait_seconds,
        ),
    ),
    Platform.PROFESSIONAL_NETWORK: RealNetwork(
        "LinkedIn (Posts API)",
        lambda a: LinkedInDriver(
            a.client_id,
            a.client_secret,
            a.tokens,
            a.http,
            api_version=a.settings.professional_network_api_version,
            media=a.media,
        ),
    ),
    Platform.PHOTO_SHARING: RealNetwork(
        "Instagram (API with Instagram Login)",
        lambda a: InstagramDriver(
            a.client_id,
            a.client_secret,
            a.tokens,
            a.http,
            a.media,
            version=a.settings.meta_graph_version,
            container_wait_seconds=a.settings.meta_container_wait_seconds,
        ),
    ),
    Platform.PAGE_SOCIAL: RealNetwork(
        "Facebook (Graph API, Pages)",
        lambda a: FacebookPagesDriver(
            a.client_id,
            a.client_secret,
            a.tokens,
            a.http,
            a.media,
            version=a.settings.meta_graph_version,
        ),
    ),
    Platform.PIN_BOARD: RealNetwork(
        "Pinterest (API v5)",
        lambda a: PinterestDriver(a.client_id, a.client_secret, a.tokens, a.http, a.media),
    ),
    Platform.OPEN_MICROBLOG: RealNetwork(
        "Bluesky (AT Protocol)",
        lambda a: BlueskyDriver(
            a.settings.open_microblog_service_url or "",
            a.settings.open_microblog_plc_url,
            a.tokens,
            a.http,
            a.media,
            client_keys=tuple(atproto_oauth.client_key(s) for s in a.secrets),
            appview=a.settings.open_microblog_appview,
        ),
        turned_on_by="PRESSROOM_OPEN_MICROBLOG_SERVICE_URL (https://bsky.social)",
    ),
}
"""The real network behind each label, and how its driver is made."""


@dataclass(frozen=True)
class DriverChoice:
    platform: Platform
    driver: str
    """``sandbox`` or the network's name."""
    configured: bool
    """Whether the operator set this label's client id and secret."""
    note: str
    warning: str | None = None
    """What the operator must change before the network stops taking posts, if anything."""


def version_warnings(networks: NetworkSettings, today: date) -> dict[Platform, str]:
    """Per configured label, the API version set that its network stops serving soon or
    already has (LinkedIn's ``LinkedIn-Version``, served a year)."""
    found: dict[Platform, str] = {}
    linkedin = Platform.PROFESSIONAL_NETWORK
    if networks.credentials(linkedin.value) is not None:
        check = linkedin_versions.check(networks.professional_network_api_version, today)
        if check.standing is not linkedin_versions.Standing.SERVED:
            found[linkedin] = check.message
    return found


def describe(settings: Settings, today: date | None = None) -> list[DriverChoice]:
    """Which driver serves each label, and why."""
    choices = []
    warnings = version_warnings(settings.networks, today or utcnow())
    for platform in Platform:
        real = REAL_DRIVERS[platform]
        if settings.networks.credentials(platform.value) is not None:
            choices.append(
                DriverChoice(
                    platform, real.network, True, "publishes for real", warnings.get(platform)
                )
            )
        else:
            setting = (
                real.turned_on_by
                or f"PRESSROOM_{platform.value.upper()}_CLIENT_ID and _CLIENT_SECRET"
            )
            hint = f"set {setting} to publish to {real.network}"
            choices.append(DriverChoice(platform, "sandbox", False, hint))
    return choices


def _secrets(settings: Settings, current: bytes) -> tuple[bytes, ...]:
    old = (k.strip().encode() for k in settings.old_secret_keys.split(",") if k.strip())
    return (current, *old)


def build_drivers(settings: Settings, sessions: sessionmaker[Session]) -> Drivers:
    """One driver per platform label: the real network's where configured, else sandbox."""
    knobs = settings.sandbox
    if knobs.platform_driver != "sandbox":
        raise ValueError(f"unknown platform driver {knobs.platform_driver!r}")
    rng = SandboxRandom(knobs.sandbox_seed)
    secret = load_secret(settings.secret_key, settings.data_dir)
    tokens = ConnectionTokens(sessions, Vault.from_settings(settings))
    media = MediaHandover(settings)
    drivers: dict[Platform, PlatformDriver] = {}
    for platform in Platform:
        credentials = settings.networks.credentials(platform.value)
        real = REAL_DRIVERS[platform]
        if credentials is not None:
            http = NetworkClient(
                platform, timeout_seconds=settings.networks.network_timeout_seconds
            )
            drivers[platform] = real.make(
                NetworkApp(
                    *credentials, tokens, http, media, settings.networks, _secrets(settings, secret)
                )
            )
        else:
            drivers[platform] = SandboxDriver(
                platform,
                knobs,
                sessions,
                rng,
                base_url=settings.public_base_url,
                secret=secret,
                tokens=tokens,
                container_wait_seconds=settings.networks.meta_container_wait_seconds,
            )
    return drivers


_drivers_lock = threading.Lock()


def drivers_of(app: FastAPI) -> Drivers:
    """The app's platform drivers, built on first use from its settings."""
    drivers: Drivers | None = getattr(app.state, "platform_drivers", None)
    if drivers is None:
        with _drivers_lock:
            drivers = getattr(app.state, "platform_drivers", None)
            if drivers is None:
                drivers = build_drivers(app.state.settings, app.state.session_factory)
                app.state.platform_drivers = drivers
    return drivers
