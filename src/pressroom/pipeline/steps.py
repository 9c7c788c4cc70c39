"""One side effect each: what a Prefect task calls. Plain Python over ``pressroom.client``.

Exactly once, from the publish step's side: every call carries the post's deterministic
``Idempotency-Key``. When an attempt's outcome is unknown (the request went out, then a
timeout or a dropped connection, or a 5xx whose ``error.recordStatus`` is ``unknown``) it
is never simply sent again:

1. If the service keeps a post record (``find_post``), ask it: found means published;
   not found means nothing went out, and the retry is safe.
2. If it has no such record but has echoed ``Idempotency-Key`` on an earlier answer in
   this run, it will replay rather than repost, so the retry is safe.
3. Otherwise the row is ``unconfirmed``: a person checks the platform.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from threading import Lock
from typing import TypeVar

from pressroom.campaign import MediaUpload, PlannedPost
from pressroom.client import (
    APIError,
    Campaign,
    Client,
    FileStatus,
    NotFoundError,
    PressroomError,
    PublishResult,
    TransportError,
)
from pressroom.client.models import PUBLISH_REQUESTS, Part
from pressroom.pipeline import progress
from pressroom.pipeline.media_memory import MediaMemory
from pressroom.pipeline.outcomes import (
    ALREADY_PUBLISHED,
    Kind,
    PartRow,
    PublishFailed,
    ResultRow,
    Status,
)
from pressroom.pipeline.retrying import TransientFailure, is_transient, retry_after
from pressroom.pipeline.run_logs import RUN_LOG

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class IdempotencyEvidence:
    """Whether this service has shown that it honours ``Idempotency-Key`` (echoed it)."""

    honoured: bool = False
    _lock: Lock = field(default_factory=Lock, repr=False)

    def saw(self, result: PublishResult) -> None:
        if result.idempotency_honoured:
            with self._lock:
                self.honoured = True


LONG_WAIT_SECONDS = 10.0
"""A ``Retry-After`` wait this long is shown on the console, not only logged."""
MEDIA_WAIT_SECONDS = 900.0
"""How long a publish waits, by default, for its file to be converted for the network."""
FILE_NOT_READY = "file_not_ready"


def transient_or_final(
    error: PressroomError,
    what: str,
    *,
    platform: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Exception:
    """Turn a client error into a retry (after any ``Retry-After``) or a final failure."""
    if is_transient(error):
        if (wait := retry_after(error)) is not None:
            line = f"waiting {wait:.0f} s ({wait_reason(error, platform)})"
            if wait >= LONG_WAIT_SECONDS:
                log.warning("%s: %s", what, line)
                progress.notice(line)
            else:
                log.info("%s: %s", what, line)
            sleep(wait)
        return TransientFailure(f"{what}: {error}", cause=error)
    return error


def wait_reason(error: PressroomError, platform: str | None) -> str:
    by = f" by {platform}" if platform else ""
    if isinstance(error, APIError) and error.status == 429:
        return f"rate limited{by}"
    if platform and isinstance(error, APIError) and error.code == "platform_unavailable":
        return f"{platform} unavailable"
    return f"the service asked to retry later{by}"


# --- media -------------------------------------------------------------------------------


def resolve_folders(client: Client, names: set[str]) -> dict[str, str]:
    """Folder name → id, creating the folders that do not exist yet."""
    if not names:
        return {}
    existing = {folder.name: folder.id for folder in client.iter_folders()}
    for name in sorted(names - existing.keys()):
        existing[name] = client.create_folder(name=name).id
    return {name: existing[name] for name in names}


def find_uploaded(client: Client, sha256: str) -> str | None:
    """The fileId of a ready file of this account with this content, as the service knows
    it, or None.

    The service is the truth (``GET /api/upload/files?sha256=``, our extension), the local
    media memory only a cache: a run from another machine, or after the cache was lost,
    finds its media here. A service without the look-up answers nothing that matches (the
    client checks each entry), and an error leaves the decision to the memory.
    """
    try:
        found = client.find_files(sha256=sha256)
    except PressroomError as exc:
        log.info("cannot look media up by content (%s); using the local memory", exc)
        return None
    return found[0].file_id if found else None


def known_file_id(client: Client, sha256: str, memory: MediaMemory, what: str) -> str | None:
    """A fileId this content already has on the service: found there, or remembered here
    and still usable (checked with a status call; a failed file is forgotten)."""
    found = find_uploaded(client, sha256)
    if found is not None:
        memory.remember(sha256, found)
        return found
    for remembered in memory.recall(sha256):
        try:
            status = client.file_status(remembered)
        except NotFoundError:
            # Deleted, or another account's on this machine: skipped, not forgotten, so
            # that account still finds it (a content keeps only its newest few ids).
            continue
        except PressroomError as exc:
            raise transient_or_final(exc, f"checking {what}") from exc
        if status.status == "failed":
            memory.forget(sha256, remembered)
            continue
        return status.file_id
    return None


def upload_medium(
    client: Client, upload: MediaUpload, memory: MediaMemory, folder_id: str | None
) -> tuple[str, bool]:
    """Upload once per content, service and account: returns (fileId, reused)."""
    known = known_file_id(client, upload.sha256, memory, upload.name)
    if known is not None:
        log.info("%s: already uploaded as %s, not uploaded again", upload.name, known)
        return known, True
    started = time.monotonic()
    try:
        status = client.upload(
            upload.path,
            filename=upload.filename,
            content_type=upload.content_type,
            folder_id=folder_id,
            wait=False,
        )
    except PressroomError as exc:
        raise transient_or_final(exc, f"uploading {upload.name}") from exc
    memory.remember(upload.sha256, status.file_id)
    RUN_LOG.info(
        "%s: uploaded %s (%s, %d bytes) as %s in %.2f s",
        upload.name,
        upload.filename,
        upload.content_type,
        upload.size,
        status.file_id,
        time.monotonic() - started,
    )
    return status.file_id, False


def until_media_ready(
    send: Callable[[], T],
    what: str,
    *,
    wait_seconds: float,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``send()``, again after each 409 ``file_not_ready`` (the service is converting the
    file for the network, or still processing it) once its ``Retry-After`` has passed,
    for up to ``wait_seconds`` in all; past that the last answer is raised (transient: the
    task is retried)."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            return send()
        except APIError as exc:
            if exc.code != FILE_NOT_READY:
                raise
            pause = retry_after(exc) or 1.0
            if time.monotonic() + pause > deadline:
                raise
            log.info(
                "%s: the file is being made ready for the network; again in %.0f s", what, pause
            )
            sleep(pause)


def wait_ready(
    client: Client, name: str, file_id: str, *, poll_interval: float, timeout: float
) -> FileStatus:
    """Until the service has processed the file; a failure or time-out is final for its posts."""
    RUN_LOG.info(
        "%s: waiting for %s to be processed (a look every %.1f s, for up to %.0f s)",
        name,
        file_id,
        poll_interval,
        timeout,
    )
    started = time.monotonic()
    status = client.wait_until_ready(file_id, poll_interval=poll_interval, timeout=timeout)
    RUN_LOG.info("%s: ready after %.2f s", name, time.monotonic() - started)
    return status


# --- publishing --------------------------------------------------------------------------


def row_for(planned: PlannedPost, key: str, status: Status, **values: object) -> ResultRow:
    return ResultRow(
        post=planned.post_id,
        platform=planned.platform.value,
        connection=planned.connection.name,
        status=status,
        idempotency_key=key,
        **values,  # type: ignore[arg-type]
    )


def _what(planned: PlannedPost) -> str:
    return f"{planned.platform.value} · {planned.connection.name} · {planned.post_id}"


def _thumbnail_what(planned: PlannedPost) -> str:
    return f"thumbnail · {planned.connection.name} · {planned.post_id}"


def reported(step: Callable[[], ResultRow], what: str) -> ResultRow:
    """``step()``'s row, or the row its ``PublishFailed`` carries, said in the run's log
    (a ``TransientFailure`` is said by the retry that follows it)."""
    try:
        row = step()
    except PublishFailed as exc:
        RUN_LOG.info("%s: %s", what, exc.row.log_line)
        raise
    RUN_LOG.info("%s: %s", what, row.log_line)
    return row


def publish_post(
    client: Client,
    planned: PlannedPost,
    file_ids: Mapping[str, str],
    *,
    key: str,
    evidence: IdempotencyEvidence,
    attempt: int,
    started: float | None = None,
    media_wait: float = MEDIA_WAIT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    campaign: Campaign | None = None,
) -> ResultRow:
    """Publish one post × connection, its result said in the run's log (``_publish``),
    with ``campaign`` (``campaign_of``) as the body's ``campaign``."""
    return reported(
        lambda: _publish(
            client,
            planned,
            file_ids,
            key=key,
            evidence=evidence,
            attempt=attempt,
            started=started,
            media_wait=media_wait,
            sleep=sleep,
            campaign=campaign,
        ),
        _what(planned),
    )


def campaign_of(planned: PlannedPost, edition: str, flow_run_id: str | None) -> Campaign:
    """Where the post comes from, as its publish body's ``campaign``: the campaign's name,
    the edition, the post's id in the file and the flow run sending it. It is no part of
    the Idempotency-Key fingerprint, so a re-run's new flow run id still replays."""
    return Campaign(
        name=planned.campaign, edition=edition, post_id=planned.post_id, flow_run_id=flow_run_id
    )


def _publish(
    client: Client,
    planned: PlannedPost,
    file_ids: Mapping[str, str],
    *,
    key: str,
    evidence: IdempotencyEvidence,
    attempt: int,
    started: float | None,
    media_wait: float,
    sleep: Callable[[float], None],
    campaign: Campaign | None,
) -> ResultRow:
    """Publish one post × connection. Raises ``TransientFailure`` to be retried, or
    ``PublishFailed`` carrying the row of a final failure or an unconfirmed outcome.

    ``started`` is when the first attempt began (``time.monotonic()``), so a row's
    duration covers every attempt; by default, this one's start. While the service is
    making the file fit for the network (409 ``file_not_ready``), the same request is sent
    again after each ``Retry-After``, for up to ``media_wait`` seconds."""
    started = time.monotonic() if started is None else started
    request = PUBLISH_REQUESTS[planned.platform].model_validate(planned.publish_body(file_ids))
    if campaign is not None:
        request = request.model_copy(update={"campaign": campaign})
    what = _what(planned)

    def took() -> float:
        return round(time.monotonic() - started, 3)

    try:
        result = until_media_ready(
            lambda: client.publish_request(request, idempotency_key=key),
            what,
            wait_seconds=media_wait,
            sleep=sleep,
        )
    except TransportError as exc:
        if not exc.request_sent:
            raise TransientFailure(f"{what}: {exc}", cause=exc) from exc
        return _resolve_unknown(client, planned, key, evidence, exc, attempt, took())
    except APIError as exc:
        if exc.partial and not exc.transient:
            # A later part refused for good: the parts that stand are live. Not
            # retried in this run; a later run of the edition sends the same key and
            # the service resumes after them.
            raise PublishFailed(
                partial_row(planned, key, exc, attempts=attempt, took=took())
            ) from exc
        if record_status(exc) in ("unknown", "published"):
            # The platform got the request and may have the post: look, then decide.
            return _resolve_unknown(client, planned, key, evidence, exc, attempt, took())
        failure = transient_or_final(exc, what, platform=planned.platform.value, sleep=sleep)
        if isinstance(failure, TransientFailure):
            raise failure from exc
        raise PublishFailed(
            row_for(
                planned,
                key,
                Status.FAILED,
                error=_describe(exc),
                attempts=attempt,
                duration_seconds=took(),
            )
        ) from exc
    evidence.saw(result)
    if result.replayed and attempt == 1:
        # The service answered from its record on a first attempt: an earlier run (or one
        # beside this one) had published it, and nothing new went out. On a later attempt
        # the replay is usually of this run's own earlier attempt, which did publish it.
        return row_for(
            planned,
            key,
            Status.SKIPPED,
            reason=ALREADY_PUBLISHED,
            url=result.url,
            item_id=result.item_id,
            attempts=attempt,
            duration_seconds=took(),
            parts=part_rows(result.parts or []),
        )
    return row_for(
        planned,
        key,
        Status.PUBLISHED,
        url=result.url,
        item_id=result.item_id,
        attempts=attempt,
        duration_seconds=took(),
        parts=part_rows(result.parts or []),
    )


def part_rows(parts: list[Part]) -> tuple[PartRow, ...]:
    return tuple(
        PartRow(part.index, part.status or "unknown", part.url, part.kind) for part in parts
    )


def partial_row(
    planned: PlannedPost, key: str, error: APIError, *, attempts: int, took: float
) -> ResultRow:
    """The row of a thread whose later part was refused: ``partial``, with its parts."""
    parts = part_rows(error.parts)
    return row_for(
        planned,
        key,
        Status.PARTIAL,
        url=parts[0].url if parts else None,
        error=_describe(error),
        attempts=attempts,
        duration_seconds=took,
        parts=parts,
    )


def record_status(error: APIError) -> str | None:
    """``error.recordStatus`` of a publish 5xx (``not_sent | unknown | published``): what
    the service knows of its record; None from a service that does not say."""
    body = error.body
    detail = body.get("error") if isinstance(body, dict) else None
    status = detail.get("recordStatus") if isinstance(detail, dict) else None
    return status if isinstance(status, str) else None


def _resolve_unknown(
    client: Client,
    planned: PlannedPost,
    key: str,
    evidence: IdempotencyEvidence,
    error: PressroomError,
    attempt: int,
    duration: float,
) -> ResultRow:
    what = _what(planned)
    try:
        found = client.find_post(
            idempotency_key=key, connection_id=planned.connection.id, platform=planned.platform
        )
    except NotFoundError:
        found = None
        can_look_up = False
    except PressroomError as exc:
        # The service is still unwell; the same question can be asked again next attempt.
        raise TransientFailure(f"{what}: outcome unknown and look-up failed: {exc}") from exc
    else:
        can_look_up = True
    if found is not None and found.status in (None, "published"):
        return row_for(
            planned,
            key,
            Status.PUBLISHED,
            url=found.url,
            item_id=found.record_id,
            attempts=attempt,
            duration_seconds=duration,
        )
    if can_look_up or evidence.honoured:
        raise TransientFailure(f"{what}: no answer ({error}); safe to resend with the same key")
    raise PublishFailed(
        row_for(
            planned,
            key,
            Status.UNCONFIRMED,
            error=f"sent, then {error}; the service cannot confirm it: check the platform "
            "before posting again",
            attempts=attempt,
            duration_seconds=duration,
        )
    )


def set_thumbnail(
    client: Client,
    planned: PlannedPost,
    video_id: str,
    file_ids: Mapping[str, str],
    *,
    key: str,
    attempt: int,
    started: float | None = None,
    media_wait: float = MEDIA_WAIT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> ResultRow:
    """Set a video's thumbnail, its result said in the run's log."""
    return reported(
        lambda: _set_thumbnail(
            client,
            planned,
            video_id,
            file_ids,
            key=key,
            attempt=attempt,
            started=started,
            media_wait=media_wait,
            sleep=sleep,
        ),
        _thumbnail_what(planned),
    )


def _set_thumbnail(
    client: Client,
    planned: PlannedPost,
    video_id: str,
    file_ids: Mapping[str, str],
    *,
    key: str,
    attempt: int,
    started: float | None,
    media_wait: float,
    sleep: Callable[[float], None],
) -> ResultRow:
    assert planned.thumbnail is not None
    started = time.monotonic() if started is None else started
    what = _thumbnail_what(planned)
    row = thumbnail_row(planned, key, Status.PUBLISHED, attempts=attempt)
    try:
        thumbnail_file_id = file_ids[planned.thumbnail.media]
        result = until_media_ready(
            lambda: client.set_video_thumbnail(
                video_id, thumbnail_file_id=thumbnail_file_id, idempotency_key=key
            ),
            what,
            wait_seconds=media_wait,
            sleep=sleep,
        )
    except TransportError as exc:
        # Setting a thumbnail twice sets the same picture: resending is harmless.
        raise TransientFailure(f"{what}: {exc}", cause=exc) from exc
    except APIError as exc:
        failure = transient_or_final(exc, what, platform=planned.platform.value, sleep=sleep)
        if isinstance(failure, TransientFailure):
            raise failure from exc
        raise PublishFailed(
            row.with_status(
                Status.FAILED,
                error=_describe(exc),
                duration_seconds=round(time.monotonic() - started, 3),
            )
        ) from exc
    replay = result.replayed and attempt == 1
    return row.with_status(
        Status.SKIPPED if replay else Status.PUBLISHED,
        reason=ALREADY_PUBLISHED if replay else None,
        url=result.thumbnail_url,
        duration_seconds=round(time.monotonic() - started, 3),
    )


def thumbnail_row(planned: PlannedPost, key: str, status: Status, **values: object) -> ResultRow:
    return ResultRow(
        post=f"{planned.post_id} (thumbnail)",
        platform=planned.platform.value,
        connection=planned.connection.name,
        status=status,
        idempotency_key=key,
        kind=Kind.THUMBNAIL,
        **values,  # type: ignore[arg-type]
    )


def _describe(error: APIError) -> str:
    code = f" {error.code}" if error.code else ""
    return f"{error.status}{code}: {error.message}"
