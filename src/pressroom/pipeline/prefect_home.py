"""Prefect's home and active profile as Prefect resolves them, read without importing
Prefect (its import takes about a second; these are needed before it is done)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path


def prefect_home() -> Path:
    """``PREFECT_HOME`` as Prefect resolves it when only the environment sets it."""
    return Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser()


def profile_settings() -> dict[str, str]:
    """The settings of the active Prefect profile (``.env`` and ``prefect.toml`` are left
    to Prefect itself)."""
    path = Path(os.environ.get("PREFECT_PROFILES_PATH") or prefect_home() / "profiles.toml")
    try:
        profiles = tomllib.loads(path.expanduser().read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active") or "ephemeral"
    settings = profiles.get("profiles", {}).get(active, {})
    return {str(name): str(value) for name, value in settings.items()}
