"""Platform drivers: one per label behind one small interface (``base.PlatformDriver``).

``settings.sandbox.platform_driver`` chooses the family; ``sandbox`` (the default and,
for now, the only one) is a faithful stand-in with latency and failure knobs. A live
family would add a module here with the same calls (connect: ``authorization_url``,
``exchange_code``, ``fetch_profile``, ``refresh``; publish: ``publish``,
``set_thumbnail``, ``find_delivery``) and an entry in ``build_drivers``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from pressroom.platforms import Platform
from pressroom.service.drivers.base import PlatformDriver
from pressroom.service.drivers.sandbox import SandboxDriver, SandboxRandom
from pressroom.service.storage.signing import load_secret
from pressroom.settings import Settings

Drivers = Mapping[Platform, PlatformDriver]


def build_drivers(settings: Settings, sessions: sessionmaker[Session]) -> Drivers:
    """One driver per platform label, of the family the settings name."""
    knobs = settings.sandbox
    if knobs.platform_driver == "sandbox":
        rng = SandboxRandom(knobs.sandbox_seed)
        secret = load_secret(settings.secret_key, settings.data_dir)
        return {
            platform: SandboxDriver(
                platform, knobs, sessions, rng, base_url=settings.public_base_url, secret=secret
            )
            for platform in Platform
        }
    raise ValueError(f"unknown platform driver {knobs.platform_driver!r}")


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
