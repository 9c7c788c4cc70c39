"""Tasks that get the campaign's media onto the service and wait for them to be ready."""

from __future__ import annotations

from prefect import task

from pressroom.campaign import MediaUpload
from pressroom.client import FileStatus, PressroomError
from pressroom.pipeline import steps
from pressroom.pipeline.media_memory import MediaMemory
from pressroom.pipeline.retrying import TransientFailure, is_transient
from tasks.common import client, in_flight, retry_transient, service_state, settings


@task(
    name="resolve-folders",
    retries=3,
    retry_delay_seconds=[2, 5, 10],
    retry_condition_fn=retry_transient,
)
def resolve_folders(names: list[str]) -> dict[str, str]:
    """Folder name → id, creating missing folders."""
    try:
        with in_flight():
            return steps.resolve_folders(client(), set(names))
    except PressroomError as exc:
        raise steps.transient_or_final(exc, "resolving folders") from exc


@task(
    name="upload-media",
    task_run_name="upload · {upload.name}",
    retries=3,
    retry_delay_seconds=[2, 5, 10],
    retry_condition_fn=retry_transient,
)
def upload_medium(upload: MediaUpload, folder_id: str | None) -> str:
    """Upload once per content and service address; returns the fileId."""
    memory = MediaMemory(service_state().media_memory_file)
    with in_flight():
        file_id, _reused = steps.upload_medium(client(), upload, memory, folder_id)
    return file_id


@task(
    name="wait-ready",
    task_run_name="ready · {name}",
    retries=2,
    retry_delay_seconds=[5, 15],
    retry_condition_fn=retry_transient,
)
def wait_ready(name: str, file_id: str) -> FileStatus:
    """Poll until the service has processed the file (a failure is final for its posts)."""
    config = settings()
    try:
        with in_flight():
            return steps.wait_ready(
                client(),
                name,
                file_id,
                poll_interval=config.poll_seconds,
                timeout=config.ready_timeout_seconds,
            )
    except PressroomError as exc:
        if is_transient(exc):
            raise TransientFailure(f"{name}: {exc}", cause=exc) from exc
        raise
