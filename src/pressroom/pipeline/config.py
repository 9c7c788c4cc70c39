"""Knobs of a campaign run, from ``PRESSROOM_PIPELINE_*`` (the service address and key
come from ``PRESSROOM_BASE_URL`` / ``PRESSROOM_API_KEY``, read by the client).

The key is never a flow parameter: parameters are shown in the Prefect UI.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class PipelineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRESSROOM_PIPELINE_", extra="ignore")

    state_dir: Path = Path(".pressroom/pipeline")
    """Cached publish results (the exactly-once record) and the media memory."""
    results_dir: Path = Path("results")
    """One JSON-lines log per campaign, a row per post and run."""
    poll_seconds: float = Field(5.0, gt=0)
    """How often a video's readiness is polled."""
    ready_timeout_seconds: float = Field(900.0, gt=0)
    concurrency: int = Field(16, ge=1)
    """Requests in flight at once, all platforms together."""
    platform_concurrency: int = Field(4, ge=1)
    """Requests in flight at once to one platform."""

    @property
    def cache_dir(self) -> Path:
        return self.state_dir / "published"

    @property
    def media_memory_file(self) -> Path:
        return self.state_dir / "media-memory.json"
