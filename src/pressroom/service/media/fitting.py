"""Which bytes a post sends: the file itself, or the file fitted for the network.

On publish, a ready file that breaks a rule of the network's that conversion can meet (a
PNG where Instagram takes JPEG only, a GIF thumbnail for YouTube, a video at 15 frames a
second where TikTok takes 23 to 60) is sent as a derived file, made once for the
network's profile (``pressroom.rules.targets``) by a ``derive`` job (``media.deriving``):

- the first time, the publish asks for it (a ``media_derivatives`` row and its job,
  written in a transaction of their own once the request's has ended, so the refusal's
  rollback keeps them) and answers 409 ``file_not_ready`` with ``Retry-After``, the
  answer a file still processing gets: clients and the pipeline wait and send again;
- while it is being made, the same 409;
- once made, every post of the file to that profile sends it, and nothing is made again
  (a derived file that no longer meets the table, because a rule changed, is made anew);
- when it could not be made, 400 ``validation_error`` naming the rule it was for, its
  page, and why (the bound it hit, or what the converter could not do).

The original is never changed.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.platforms import MediaKind, Platform
from pressroom.probe import IMAGE_TYPES, VIDEO_TYPES
from pressroom.rules import Fit, MediaFacts, Subject, Violation, check_media
from pressroom.rules.targets import Target, target_for
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Derivative, File
from pressroom.service.db.session import transaction
from pressroom.service.errors import ServiceError
from pressroom.service.media import jobs
from pressroom.service.media.hooks import after_transaction
from pressroom.service.media.library import MediaLibrary, library_of
from pressroom.service.media.repository import DerivativeRepository
from pressroom.statuses import DerivativeState

log = logging.getLogger(__name__)

PENDING = DerivativeState.PENDING.value
READY = DerivativeState.READY.value
FAILED = DerivativeState.FAILED.value

IMAGE_RETRY_AFTER = 1
"""Seconds a publish is told to wait for an image being converted."""
VIDEO_SECONDS_PER_RETRY_SECOND = 4
"""A video is told to wait a second for every few seconds it lasts (at most a minute)."""
MAX_RETRY_AFTER = 60
ACCEPTED_EXTENSIONS = {
    content_type: extensions
    for content_type, (_, extensions) in {**IMAGE_TYPES, **VIDEO_TYPES}.items()
}


@dataclass(frozen=True)
class Sent:
    """What goes to the network: the file's bytes, or its derived file's, with the facts
    the network's rules are judged on."""

    file_id: str
    kind: MediaKind
    content_type: str
    storage_key: str
    size: int | None
    width: int | None
    height: int | None
    duration_seconds: float | None
    video_codec: str | None
    audio_codec: str | None
    frame_rate: float | None
    derivative_id: str | None = None
    """The derived file sent in the original's place, when there is one."""


def facts_of(row: File | Derivative, kind: MediaKind, content_type: str) -> MediaFacts:
    """What the media rules read of a file or a derived file."""
    return MediaFacts(
        kind=kind,
        content_type=content_type,
        size=row.size,
        width=row.width,
        height=row.height,
        duration_seconds=row.duration_seconds,
        video_codec=row.video_codec,
        audio_codec=row.audio_codec,
        frame_rate=row.frame_rate,
    )


def to_send(
    db: Session,
    file: File,
    platform: Platform,
    *,
    field: str,
    subject: Subject = Subject.MEDIA,
    fit: Fit | None = None,
) -> Sent:
    """The bytes a post of the ready ``file`` to ``platform`` sends. Raises 409 while a
    derived file is being made (asking for it the first time), 400 when it could not be."""
    kind = MediaKind(file.kind)
    original = Sent(
        file.id,
        kind,
        file.content_type,
        file.storage_key,
        file.size,
        file.width,
        file.height,
        file.duration_seconds,
        file.video_codec,
        file.audio_codec,
        file.frame_rate,
    )
    facts = facts_of(file, kind, file.content_type)
    target = target_for(platform, facts, subject=subject, fit=fit)
    if target is None:
        return original
    broken = check_media(platform, facts, subject=subject, fit=fit).needs_fitting
    derivative = DerivativeRepository(db).get(file.id, target.profile)
    if derivative is None:
        _ask_for(db, file.id, target, stale=None)
        raise _not_ready(file, target, field)
    if derivative.status == PENDING:
        raise _not_ready(file, target, field)
    if derivative.status == FAILED:
        raise _not_made(platform, file, derivative, broken[0], field)
    assert derivative.content_type is not None and derivative.storage_key is not None
    still = check_media(
        platform, facts_of(derivative, kind, derivative.content_type), subject=subject
    )
    if still.refused or still.needs_fitting:
        # Made under rules the table no longer holds: made again for today's.
        _ask_for(db, file.id, target, stale=derivative.id)
        raise _not_ready(file, target, field)
    return Sent(
        file.id,
        kind,
        derivative.content_type,
        derivative.storage_key,
        derivative.size,
        derivative.width,
        derivative.height,
        derivative.duration_seconds,
        derivative.video_codec,
        derivative.audio_codec,
        derivative.frame_rate,
        derivative_id=derivative.id,
    )


def derived_filename(filename: str, derivative: Derivative) -> str:
    """The original's name with the extension of what the derived file is:
    ``cover.png`` made JPEG is ``cover.jpg``."""
    extensions = ACCEPTED_EXTENSIONS.get(derivative.content_type or "")
    if not extensions:
        return filename
    stem = filename.rsplit(".", 1)[0] if "." in filename else filename
    return stem + extensions[0]


def retry_after(file: File) -> int:
    """How long to tell a publish to wait for a derived file of ``file``."""
    if file.kind != MediaKind.VIDEO or not file.duration_seconds:
        return IMAGE_RETRY_AFTER
    wait = math.ceil(file.duration_seconds / VIDEO_SECONDS_PER_RETRY_SECOND)
    return max(IMAGE_RETRY_AFTER, min(MAX_RETRY_AFTER, wait))


def _not_ready(file: File, target: Target, field: str) -> ServiceError:
    wait = retry_after(file)
    return ServiceError(
        error_codes.FILE_NOT_READY,
        f"File {file.id!r} is being converted for {target.platform.value} "
        f"({target.profile}); send the same request again in {wait} s.",
        field=field,
        headers={"Retry-After": str(wait)},
    )


def _not_made(
    platform: Platform, file: File, derivative: Derivative, violation: Violation, field: str
) -> ServiceError:
    rule = violation.rule
    return ServiceError(
        error_codes.VALIDATION_ERROR,
        f"{rule.network}, behind {platform.value}, would refuse file {file.id!r} as it is "
        f"({violation.message.rstrip('.')}), and it could not be converted for it: "
        f"{derivative.failure_reason} Nothing was sent.",
        field=field,
        rule=rule.id,
        doc_url=rule.doc_url,
    )


def _ask_for(db: Session, file_id: str, target: Target, *, stale: str | None) -> None:
    """Have the derived file made, in a unit of work of its own once ``db``'s has ended
    (the request's is about to roll back with its 409)."""
    library = library_of(db)
    if library is None:
        log.warning("no media library to make %s of %s", target.profile, file_id)
        return
    after_transaction(db, lambda: request(library, file_id, target, stale=stale))


def request(library: MediaLibrary, file_id: str, target: Target, *, stale: str | None) -> None:
    """A ``pending`` derived file of ``file_id`` for the target's profile, and its job
    (once: a second request finds it there); ``stale`` names a ready one to make again."""
    with transaction(library.sessions) as db:
        repo = DerivativeRepository(db)
        if stale is not None:
            if not repo.settle(stale, READY, status=PENDING, failure_reason=None):
                return
        elif not repo.add(
            Derivative(
                id=new_id("drv"),
                file_id=file_id,
                network=target.platform.value,
                profile=target.profile,
                status=PENDING,
                created_at=utcnow(),
            )
        ):
            return  # asked for already, or the file is gone
        jobs.enqueue(db, file_id, kind=jobs.DERIVE, target=target.profile)
    library.processor.wake()
