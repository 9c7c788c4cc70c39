"""Knobs of a campaign run, from ``PRESSROOM_PIPELINE_*`` (the service address and key
come from ``PRESSROOM_BASE_URL`` / ``PRESSROOM_API_KEY``, read by the client).

The key is never a flow parameter: parameters are shown in the Prefect UI.

Where the pipeline keeps its state (the exactly-once record of published posts and the
media memory): the user's state directory (``platformdirs``: ``~/.local/state/pressroom``
on Linux), or ``PRESSROOM_PIPELINE_STATE_DIR``; under it, one folder per service
address (see ``service_folder`` for accounts). Never relative to the working directory: a run from another directory, or a
scheduled run, finds what the last one did.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pressroom.pipeline.prefect_keep import DEFAULT_IDLE_SECONDS


def default_state_root() -> Path:
    from platformdirs import user_state_path

    return user_state_path("pressroom") / "pipeline"


class PipelineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRESSROOM_PIPELINE_", extra="ignore")

    state_dir: Path | None = None
    """Root of the pipeline's state; default: the user's state directory."""
    results_dir: Path = Path("results")
    """One JSON-lines log per campaign, a row per post and run."""
    poll_seconds: float = Field(5.0, gt=0)
    """How often a video's readiness is polled."""
    ready_timeout_seconds: float = Field(900.0, gt=0)
    """How long a file may take to be ready: processed after its upload, and converted
    for a network when a post needs it (the publish waits that long on 409
    ``file_not_ready`` before its task is retried)."""
    concurrency: int = Field(16, ge=1)
    """Requests in flight at once, all platforms together."""
    platform_concurrency: int = Field(4, ge=1)
    """Requests in flight at once to one platform."""
    dask_address: str | None = None
    """A ``dask.distributed`` scheduler (``tcp://host:8786``): the run's tasks go to its
    workers instead of threads of the flow's process (see ``task_runner``)."""
    prefect_idle_seconds: float = Field(DEFAULT_IDLE_SECONDS, ge=0, allow_inf_nan=False)
    """With no Prefect server named, how long the server a run starts waits for the next
    run before it stops (``pressroom prefect-stop`` stops it at once); 0: it stops with
    its run, as Prefect's ephemeral mode does. Read at a command's start."""
    lease_seconds: float = Field(60.0, gt=0)
    """A run renews its lease (its claim to be alive) a third of this often; a RUNNING
    run on another host whose lease ran out is marked Crashed by the next run."""

    @property
    def state_root(self) -> Path:
        return (self.state_dir or default_state_root()).expanduser().resolve()

    def state_for(self, base_url: str) -> ServiceState:
        return ServiceState(self.state_root / service_folder(base_url))


def service_folder(base_url: str) -> str:
    """``127.0.0.1-8000-1a2b3c4d``: the address, readable, with a hash to keep it unique.

    Accounts of one service share the folder, since the API names no stable account (a
    key's hash would change with every rotation, and the record with it). Nothing in it
    can cross accounts: the exactly-once record is keyed by idempotency keys, which name
    the account's own connection ids, and the media memory keeps each content's fileIds
    of every account, each checked with a status call (another account's is a 404).
    """
    address = base_url.rstrip("/")
    readable = re.sub(r"[^A-Za-z0-9.]+", "-", address.split("://", 1)[-1]).strip("-")
    url_hash = hashlib.sha256(address.encode()).hexdigest()[:8]
    return f"{readable or 'service'}-{url_hash}"


class ServiceState:
    """The state of one service address and account."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def cache_dir(self) -> Path:
        """The exactly-once record: publish results keyed by idempotency key."""
        return self.folder / "published"

    @property
    def media_memory_file(self) -> Path:
        return self.folder / "media-memory.json"
