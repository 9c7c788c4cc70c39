"""Tasks that publish: fetch the connections once, post each planned post, set thumbnails.

A publish task's cache key is the post's idempotency key and its result is persisted,
so a retried, restarted or re-run flow of the same edition finds the post already done
(state ``Cached``) and sends nothing. The service's ``Idempotency-Key`` covers the one
gap the cache cannot: an attempt that failed after the platform took the post.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, ParamSpec, TypeVar

from prefect import Task, task
from prefect.cache_policies import CachePolicy
from prefect.context import TaskRunContext
from prefect.runtime import flow_run

from pressroom.campaign import PlannedPost
from pressroom.client import PressroomError
from pressroom.pipeline import steps
from pressroom.pipeline.attempts import Attempt, AttemptClock
from pressroom.pipeline.outcomes import ResultRow
from pressroom.pipeline.sealed import Sealed
from tasks.common import (
    client,
    held,
    in_flight,
    limit,
    retry_transient,
    service_state,
    settings,
)
from tasks.storage import StateFolder

_EVIDENCE = steps.IdempotencyEvidence()
P = ParamSpec("P")
R = TypeVar("R")
CLOCK = AttemptClock()
"""Attempts per flow run and key: a retried row reports all its attempts' time."""


def _evidence() -> steps.IdempotencyEvidence:
    """This process's evidence. The tasks reach their process's state through functions:
    on a Dask worker a task's body arrives pickled, and a function is sent by name (the
    worker's own module answers), where a lock-holding object could not be sent at all."""
    return _EVIDENCE


def _attempt(key: str) -> Attempt:
    return CLOCK.begin(str(flow_run.id or "local"), key)


def _slot(platform: str) -> threading.BoundedSemaphore:
    """At most ``platform_concurrency`` requests in flight to one platform."""
    return limit(f"platform {platform}", settings().platform_concurrency)


def by_idempotency_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """The cache key of a post: the same for every retry and re-run of one edition."""
    return str(parameters["key"])


@task(
    name="fetch-connections",
    retries=3,
    retry_delay_seconds=[2, 5, 10],
    retry_condition_fn=retry_transient,
)
def fetch_connections() -> list[dict[str, Any]]:
    """The account's connections, once per run (the call counts against the API quota)."""
    try:
        with in_flight():
            entries = client().list_connections(refresh=True)
    except PressroomError as exc:
        raise steps.transient_or_final(exc, "listing connections") from exc
    return [entry.model_dump(exclude_none=True) for entry in entries]


def exactly_once(task: Task[P, R], **options: Any) -> Task[P, R]:
    """``task`` (with ``options``) keeping its result under its idempotency key, in the
    pipeline's state dir, so a later run of the same edition finds it.

    Both the key and the result live in ``StateFolder``s resolved once (see
    ``tasks.storage``). Prefect's ``Task`` takes an unsaved block as result storage only
    after it is built (its constructor asks for a path or a block saved on the server),
    so the result folder is set on the task ``with_options`` returns; a path would give
    the same unsaved ``LocalFileSystem``, resolved on every access. The task returned
    must not go through ``with_options`` again: build it with every option here.

    No lock is taken across runs: Prefect's file locks never expire, so a run killed
    mid-publish would block every later run. Two runs at the same moment may both try a
    post; the service's Idempotency-Key (a database constraint) lets only one of them
    post, and the other gets the same answer.
    """
    store = service_state().cache_dir
    policy = CachePolicy.from_cache_key_fn(by_idempotency_key).configure(
        key_storage=StateFolder.at(store / "keys")
    )
    once = task.with_options(cache_policy=policy, **options)
    once.result_storage = StateFolder.at(store / "results")
    return once


@task(
    name="publish",
    # Named from the parameters in the worker thread, not by a with_options per submit:
    # each with_options builds a new Task and reads this module's source again
    # (inspect.getsource), which made submitting a fan-out slower than running it.
    task_run_name=(
        "{planned.value.platform.value} · {planned.value.connection.name} · {planned.value.post_id}"
    ),
    cache_policy=CachePolicy.from_cache_key_fn(by_idempotency_key),
    persist_result=True,
    cache_expiration=timedelta(days=7),
    retry_condition_fn=retry_transient,
)
def publish_post(
    planned: Sealed[PlannedPost], file_ids: Sealed[Mapping[str, str]], key: str, edition: str
) -> ResultRow:
    """The planned post and the media's file ids come ``Sealed`` (see there)."""
    post = planned.value
    attempt = _attempt(key)
    with held(_slot(post.platform.value), in_flight()) as pause:
        return steps.publish_post(
            client(),
            post,
            file_ids.value,
            key=key,
            evidence=_evidence(),
            attempt=attempt.number,
            started=attempt.first_started,
            media_wait=settings().ready_timeout_seconds,
            sleep=pause,
            campaign=steps.campaign_of(post, edition, flow_run.id),
        )


@task(
    name="set-thumbnail",
    task_run_name="thumbnail · {planned.value.connection.name} · {planned.value.post_id}",
    cache_policy=CachePolicy.from_cache_key_fn(by_idempotency_key),
    persist_result=True,
    cache_expiration=timedelta(days=7),
    retry_condition_fn=retry_transient,
)
def set_thumbnail(
    planned: Sealed[PlannedPost], video_id: str, file_ids: Sealed[Mapping[str, str]], key: str
) -> ResultRow:
    post = planned.value
    attempt = _attempt(key)
    with held(_slot(post.platform.value), in_flight()) as pause:
        return steps.set_thumbnail(
            client(),
            post,
            video_id,
            file_ids.value,
            key=key,
            attempt=attempt.number,
            started=attempt.first_started,
            media_wait=settings().ready_timeout_seconds,
            sleep=pause,
        )
