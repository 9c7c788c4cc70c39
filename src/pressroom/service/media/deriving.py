"""The ``derive`` job: a file converted for one network profile, stored beside it.

The job reads the original (a local copy on S3), converts it in a bounded process of
its own (``media.bounds``: CPU time, memory, wall-clock time, and pixels checked before
decoding), checks the result against the profile's rules again, stores it under
``derived/{id}`` and records it ``ready`` with its facts. A conversion that cannot be
done, or that hits a bound, records the derived file ``failed`` with a reason naming
the bound or the rule; the worker goes on with the next job. A store that fails puts the
job back to be tried again later, as for processing.

Every outcome is a compare-and-swap on the derived file's ``pending`` status, so a job
run twice (a lease that ran out) records one outcome, and a file deleted meanwhile
keeps no derived bytes.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from pressroom.conversion import ConversionError, Converted, convert
from pressroom.platforms import MediaKind
from pressroom.rules import MediaFacts, check_media
from pressroom.rules.targets import Target, parse_profile, profile_target
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.media import states
from pressroom.service.media.bounds import Bounds, OutOfBounds, run_bounded
from pressroom.service.media.fitting import FAILED, PENDING, READY
from pressroom.service.media.jobs import Job
from pressroom.service.media.library import MediaLibrary
from pressroom.service.media.repository import DerivativeRepository, FileRepository
from pressroom.service.ops import metrics
from pressroom.service.storage import ObjectMissing, StorageError
from pressroom.service.storage.base import derived_key

log = logging.getLogger(__name__)

INTERNAL = "The file could not be converted because of an internal error."


@dataclass(frozen=True)
class _Source:
    derivative_id: str
    storage_key: str
    content_type: str
    kind: MediaKind
    width: int | None
    height: int | None


@dataclass(frozen=True)
class Made:
    converted: Converted
    storage_key: str


@dataclass(frozen=True)
class NotMade:
    reason: str


def derive(library: MediaLibrary, job: Job, stopping: threading.Event) -> bool:
    """Make the derived file of ``job``. False when stopped first (the job goes back);
    True once there is nothing left to do for it."""
    source = _source(library, job)
    if source is None:
        return True
    delay = library.settings.processing_delay_ms
    if delay and stopping.wait(delay / 1000):
        return False
    started = time.perf_counter()
    try:
        outcome = _make(library, job, source)
    except StorageError:
        raise  # put back and tried again later
    except Exception:
        log.exception("converting %s for %s failed unexpectedly", job.file_id, job.target)
        outcome = NotMade(INTERNAL)
    _record(library, source.derivative_id, outcome)
    metrics.CONVERSION_SECONDS.labels(READY if isinstance(outcome, Made) else FAILED).observe(
        time.perf_counter() - started
    )
    return True


def fail(library: MediaLibrary, job: Job, reason: str = INTERNAL) -> None:
    """Record the job's derived file failed (a worker's last resort)."""
    with transaction(library.sessions) as db:
        found = DerivativeRepository(db).get(job.file_id, job.target)
        if found is not None:
            DerivativeRepository(db).settle(
                found.id, PENDING, status=FAILED, failure_reason=reason, finished_at=utcnow()
            )


def _source(library: MediaLibrary, job: Job) -> _Source | None:
    with transaction(library.sessions, write=False) as db:
        derivative = DerivativeRepository(db).get(job.file_id, job.target)
        file = FileRepository(db).get(job.file_id)
        if derivative is None or derivative.status != PENDING:
            return None
        if file is None or file.status != states.READY:
            return None
        return _Source(
            derivative.id,
            file.storage_key,
            file.content_type,
            MediaKind(file.kind),
            file.width,
            file.height,
        )


def _make(library: MediaLibrary, job: Job, source: _Source) -> Made | NotMade:
    try:
        platform, subject, kind, fit = parse_profile(job.target)
    except ValueError:
        return NotMade(f"No network profile is called {job.target!r}.")
    target = profile_target(platform, kind, subject=subject, fit=fit)
    bounds = Bounds.of(library.settings)
    if source.width and source.height:
        too_big = bounds.pixel_reason(source.width, source.height)
        if too_big is not None:
            return NotMade(_sentence(too_big))
    storage = library.storage
    scratch = library.settings.data_dir / "media" / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        with (
            storage.local_copy(source.storage_key) as original,
            tempfile.TemporaryDirectory(prefix="derive-", dir=scratch) as folder,
        ):
            out = Path(folder) / "derived"
            converted = run_bounded(
                convert,
                original,
                source.content_type,
                target,
                out,
                bounds=bounds,
                workers=library.settings.processing_workers,
                warm="pressroom.conversion.warm",
            )
            problem = _still_broken(target, converted)
            if problem is not None:
                return NotMade(problem)
            key = derived_key(source.derivative_id)
            storage.put_file(key, out, converted.content_type)
    except ObjectMissing:
        return NotMade("The original's bytes are missing from storage.")
    except OutOfBounds as exc:
        return NotMade(_sentence(str(exc)))
    except ConversionError as exc:
        return NotMade(_sentence(str(exc)))
    except (OSError, ValueError, EOFError) as exc:
        # What the decoders raise for bytes they cannot read; their words may name the
        # machine's paths, so they go to the log only.
        log.info("converting %s for %s: %s", job.file_id, job.target, exc)
        return NotMade("The file could not be decoded for conversion.")
    return Made(converted, key)


def _still_broken(target: Target, converted: Converted) -> str | None:
    """Why the converted file would still be refused, or None when it meets the profile."""
    info = converted.info
    facts = MediaFacts(
        kind=info.kind,
        content_type=converted.content_type,
        size=converted.size,
        width=info.width,
        height=info.height,
        duration_seconds=info.duration_seconds,
        video_codec=info.video_codec,
        audio_codec=info.audio_codec,
        frame_rate=info.frame_rate,
    )
    verdict = check_media(target.platform, facts, subject=target.subject)
    broken = verdict.refused + verdict.needs_fitting
    if not broken:
        return None
    first = broken[0]
    return f"The converted file still breaks {first.rule.id}: {first.message}"


def _record(library: MediaLibrary, derivative_id: str, outcome: Made | NotMade) -> None:
    storage = library.storage
    key = derived_key(derivative_id)
    if isinstance(outcome, NotMade):
        with contextlib.suppress(StorageError):
            storage.delete(key)  # an earlier file of a profile made again
    now = utcnow()
    with transaction(library.sessions) as db:
        repo = DerivativeRepository(db)
        if isinstance(outcome, Made):
            converted, info = outcome.converted, outcome.converted.info
            moved = repo.settle(
                derivative_id,
                PENDING,
                status=READY,
                content_type=converted.content_type,
                storage_key=outcome.storage_key,
                size=converted.size,
                **info.facts(),
                failure_reason=None,
                finished_at=now,
            )
        else:
            moved = repo.settle(
                derivative_id,
                PENDING,
                status=FAILED,
                failure_reason=outcome.reason,
                finished_at=now,
            )
        gone = not moved and not repo.statuses([derivative_id])
    if gone and isinstance(outcome, Made):
        with contextlib.suppress(StorageError):
            storage.delete(key)  # the file was deleted while we worked
    if moved:
        log.info(
            "derived file %s is %s%s",
            derivative_id,
            READY if isinstance(outcome, Made) else FAILED,
            f": {outcome.reason}" if isinstance(outcome, NotMade) else "",
        )


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
