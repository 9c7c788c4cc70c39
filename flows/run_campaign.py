"""The ``run-campaign`` flow: a campaign file in, every post published exactly once.

Deployed once per campaign (``prefect.yaml``, ``pressroom serve``) with the campaign
file as its parameter; ``pressroom campaign run`` runs it directly. It stays thin: the
plan comes from ``pressroom.campaign``, every side effect is a task over
``pressroom.pipeline.steps``.

Order of work: the connections are fetched once; media are uploaded once per content
and polled until ready while text-only posts already go out; each post with media goes
out when its media is ready (a post whose media never gets ready fails alone); a
video_sharing thumbnail follows its video. Posts reach the task runner as their
platform has room (``pressroom.pipeline.feeding``), so the posts ready first never hold
every thread. The run ends Failed when any post failed.
"""

from __future__ import annotations

import asyncio
import queue
import sys
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

# Run from the checkout by file path (as Prefect's examples are): make `tasks` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefect import flow
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.objects import State
from prefect.futures import PrefectFuture
from prefect.runtime import deployment, flow_run
from prefect.states import Completed, Failed
from prefect.task_runners import TaskRunner
from prefect.utilities.asyncutils import run_coro_as_sync

from pressroom.campaign import Plan, PlannedPost, load, plan
from pressroom.campaign.validate import campaign_name
from pressroom.client import APIError, FileStatus
from pressroom.pipeline import outcomes, progress, steps
from pressroom.pipeline.feeding import Feed
from pressroom.pipeline.flow_parameters import plain_parameters
from pressroom.pipeline.outcomes import Kind, PublishFailed, ResultRow, Status
from pressroom.pipeline.prefect_liveness import Lease, settle_abandoned_runs
from pressroom.pipeline.progress import Stage
from pressroom.pipeline.retrying import TransientFailure, backoff_delays, jittered
from pressroom.pipeline.sealed import Sealed
from pressroom.pipeline.thread_pool import StartedThreadPoolTaskRunner
from tasks.common import settings
from tasks.media import resolve_folders, upload_medium, wait_ready
from tasks.publishing import (
    CLOCK,
    exactly_once,
    fetch_connections,
    publish_post,
    set_thumbnail,
)

MANUAL_EDITION = "manual"
_MEDIUM_READY = ""
"""Said on the flow's queue of news when a content's readiness wait has ended (a
platform's name when one of its posts has)."""


def current_edition(given: str | None) -> str:
    """An explicit edition wins; a deployment's run is the occurrence it was scheduled for
    (a retry of that flow run keeps its time, so it skips what the first try posted)."""
    if given:
        return given
    if deployment.id and flow_run.scheduled_start_time:
        return f"scheduled-{flow_run.scheduled_start_time.isoformat(timespec='minutes')}"
    return MANUAL_EDITION


def task_runner() -> TaskRunner[Any]:
    """Threads of this process, or the workers of a Dask cluster when
    ``PRESSROOM_PIPELINE_DASK_ADDRESS`` names its scheduler, for fan-outs larger than one
    machine. Twice ``PRESSROOM_PIPELINE_CONCURRENCY`` threads, of which that many talk to
    the service at once (``tasks.common.in_flight``): the others do Prefect's work of the
    tasks just finished or about to start meanwhile. A task lost with its worker is run
    again elsewhere;
    a publish run again is the same post under the same Idempotency-Key, so it is
    answered, never sent twice."""
    address = settings().dask_address
    if address:
        from prefect_dask.task_runners import DaskTaskRunner

        return DaskTaskRunner(address=address)
    return StartedThreadPoolTaskRunner(max_workers=_threads())


def _threads() -> int:
    """The thread pool's size, and so the most posts handed to it at once."""
    return 2 * settings().concurrency


def run_name() -> str:
    """``spring-launch · 2026-w48``: the campaign and edition, not a random name."""
    parameters = flow_run.parameters
    campaign = campaign_name(parameters.get("campaign_file", "campaign"))
    return f"{campaign} · {current_edition(parameters.get('edition'))}"


@plain_parameters
@flow(
    name="run-campaign",
    flow_run_name=run_name,
    task_runner=task_runner(),
)
def run_campaign(
    campaign_file: str, edition: str | None = None, dry_run: bool = False
) -> State[Any]:
    # This process holds the run (host, pid, a renewed lease) until it ends, and settles
    # earlier runs of the campaign whose process died, so none stays RUNNING for ever.
    run_id = UUID(str(flow_run.id))
    with Lease(run_id, settings().lease_seconds):
        for line in settle_abandoned_runs(campaign_file, current=run_id):
            print(line)
        return _run(campaign_file, edition, dry_run)


def _run(campaign_file: str, edition: str | None, dry_run: bool) -> State[Any]:
    campaign = load(Path(campaign_file))
    edition = current_edition(edition)
    fan_out = plan(campaign, fetch_connections())
    if dry_run:
        return _dry_run(fan_out, edition)

    rows = _publish_all(fan_out, edition)
    rows += [
        ResultRow(
            post=s.post_id,
            platform=s.platform.value,
            connection=s.connection.name if s.connection else "—",
            status=Status.SKIPPED,
            error=s.message,
            kind=Kind.NOT_POSTABLE,
        )
        for s in fan_out.skipped
    ]
    CLOCK.finish(str(flow_run.id or "local"))
    return _report(campaign.name, edition, rows)


def _publish_all(fan_out: Plan, edition: str) -> list[ResultRow]:
    retries = fan_out.retries
    delays = jittered(
        backoff_delays(retries.attempts, retries.backoff_seconds, retries.max_delay_seconds)
    )
    # One Task per run for all posts: each with_options builds a Task anew (and reads
    # the task's source), too slow to do per post; the task names each run itself.
    options: dict[str, Any] = {
        "retries": max(0, retries.attempts - 1),
        "retry_delay_seconds": delays or 0,
    }
    publishing = exactly_once(publish_post, **options)
    thumbnailing = exactly_once(set_thumbnail, **options)

    folder_names = sorted({u.folder for u in fan_out.uploads if u.folder})
    folders = resolve_folders(folder_names) if folder_names else {}
    # One upload and one readiness wait per content, whatever names it goes by.
    ready_by_hash: dict[str, PrefectFuture[FileStatus]] = {}
    ready: dict[str, PrefectFuture[FileStatus]] = {}
    for u in fan_out.uploads:
        if u.sha256 not in ready_by_hash:
            uploaded = upload_medium.submit(u, folders.get(u.folder or ""))
            uploaded.add_done_callback(lambda _: progress.advanced(Stage.UPLOAD))
            ready_by_hash[u.sha256] = wait_ready.submit(u.name, uploaded)  # type: ignore[call-overload]  # Prefect resolves futures given as inputs
            ready_by_hash[u.sha256].add_done_callback(lambda _: progress.advanced(Stage.READY))
        ready[u.name] = ready_by_hash[u.sha256]
    progress.planned(Stage.UPLOAD, len(ready_by_hash))
    progress.planned(Stage.READY, len(ready_by_hash))
    progress.planned(Stage.POST, len(fan_out.posts))

    rows: list[ResultRow] = []
    futures: dict[int, PrefectFuture[ResultRow]] = {}
    # Each post that ends, and each content that is ready, says so here; the flow's
    # thread hands out the next posts as room is made (pressroom.pipeline.feeding).
    news: queue.SimpleQueue[str] = queue.SimpleQueue()
    bounded = not settings().dask_address
    feed: Feed[tuple[PlannedPost, dict[str, str]]] = Feed(
        lambda entry: entry[0].platform.value,
        per_platform=2 * settings().platform_concurrency if bounded else None,
        total=_threads() if bounded else None,
    )

    def submit(planned: PlannedPost, file_ids: dict[str, str]) -> None:
        future = publishing.submit(
            Sealed(planned), Sealed(file_ids), planned.idempotency_key(edition), edition
        )
        future.add_done_callback(lambda _: progress.advanced(Stage.POST))
        future.add_done_callback(lambda _: news.put(planned.platform.value))
        futures[id(planned)] = future

    in_turn = round_robin(fan_out.posts)
    waiting = [p for p in in_turn if p.needs]
    for planned in in_turn:
        if not planned.needs:
            feed.add((planned, {}))
    for readiness in ready_by_hash.values():
        readiness.add_done_callback(lambda _: news.put(_MEDIUM_READY))

    contents_left = len(ready_by_hash)
    media_fed = False
    file_ids: dict[str, str] = {}
    while True:
        if contents_left == 0 and not media_fed:  # once, when every content has ended
            rows += _feed_media_posts(waiting, ready, file_ids, feed, edition)
            media_fed = True
        for planned, ids in feed.take():
            submit(planned, ids)
        if media_fed and not feed.out and not feed.waiting:
            break
        said = news.get()
        if said == _MEDIUM_READY:
            contents_left -= 1
        else:
            feed.finished(said)

    posts = [(p, futures[id(p)]) for p in in_turn if id(p) in futures]
    # As before the feed: the text posts' rows, then the media posts'.
    posts.sort(key=lambda entry: bool(entry[0].needs))
    thumbnails: list[tuple[PlannedPost, PrefectFuture[ResultRow]]] = []
    for (planned, _), ended in zip(posts, _ended([future for _, future in posts]), strict=True):
        row = _row_of(planned, ended, planned.idempotency_key(edition))
        rows.append(row)
        if planned.thumbnail and row.status in (Status.PUBLISHED, Status.SKIPPED) and row.item_id:
            thumbnails.append(
                (
                    planned,
                    thumbnailing.submit(
                        Sealed(planned),
                        row.item_id,
                        Sealed(file_ids),
                        planned.idempotency_key(edition) + "-thumbnail",
                    ),
                )
            )
    rows += [
        _row_of(planned, ended, planned.idempotency_key(edition) + "-thumbnail", thumbnail=True)
        for (planned, _), ended in zip(
            thumbnails, _ended([future for _, future in thumbnails]), strict=True
        )
    ]
    return rows


def _feed_media_posts(
    waiting: Sequence[PlannedPost],
    ready: dict[str, PrefectFuture[FileStatus]],
    file_ids: dict[str, str],
    feed: Feed[tuple[PlannedPost, dict[str, str]]],
    edition: str,
) -> list[ResultRow]:
    """Once every content has ended: each post whose media are ready goes to the feed
    (``file_ids`` filled in), each other fails alone; returns the failures' rows."""
    media_errors: dict[str, str] = {}
    for name, readiness in ready.items():
        readiness.wait()  # done already (see _ended)
        if readiness.state.is_completed():
            file_ids[name] = readiness.result().file_id
        else:
            media_errors[name] = str(readiness.state.result(raise_on_failure=False))
    failed: list[ResultRow] = []
    for planned in waiting:
        missing = [m for m in planned.needs if m not in file_ids]
        if not missing:
            feed.add((planned, file_ids))
            continue
        progress.advanced(Stage.POST)
        failed.append(
            ResultRow(
                post=planned.post_id,
                platform=planned.platform.value,
                connection=planned.connection.name,
                status=Status.FAILED,
                error=f"media {missing[0]!r} not ready: {media_errors[missing[0]]}",
                idempotency_key=planned.idempotency_key(edition),
            )
        )
    return failed


def round_robin(posts: Sequence[PlannedPost]) -> list[PlannedPost]:
    """One post per platform in turn: a task waiting for its platform's slot holds a worker
    thread, so submitting one platform's posts in a block would idle the others."""
    queues: dict[str, deque[PlannedPost]] = {}
    for planned in posts:
        queues.setdefault(planned.platform.value, deque()).append(planned)
    ordered: list[PlannedPost] = []
    while any(queues.values()):
        ordered += [queue.popleft() for queue in queues.values() if queue]
    return ordered


def _ended(futures: Sequence[PrefectFuture[ResultRow]]) -> list[tuple[State[Any], Any]]:
    """Each task run's final state and its result (or its exception), once all have ended.

    The results are read together: read one by one, each ``state.result()`` is a round
    trip to Prefect's event loop thread, 200 of them between a fan-out's last post and
    the run's end.
    """
    if not futures:
        return []
    states = []
    for future in futures:
        future.wait()  # a Dask future learns its final state here, not from the API
        states.append(future.state)

    async def results() -> list[Any]:
        return list(await asyncio.gather(*(s.aresult(raise_on_failure=False) for s in states)))

    return list(zip(states, run_coro_as_sync(results()) or [], strict=True))


def _row_of(
    planned: PlannedPost,
    ended: tuple[State[Any], Any],
    key: str,
    *,
    thumbnail: bool = False,
) -> ResultRow:
    """The row a publish task left: its result, its failure, or the earlier run's result."""
    state, result = ended
    if state.is_completed():
        row: ResultRow = result
        if state.name == "Cached":
            return row.with_status(
                Status.SKIPPED,
                reason=outcomes.ALREADY_PUBLISHED,
                error=None,
                attempts=0,
                duration_seconds=0.0,
            )
        return row
    error = result
    if isinstance(error, PublishFailed):
        return error.row
    gave_up = isinstance(error, TransientFailure)
    attempt = CLOCK.last(str(flow_run.id or "local"), key)
    attempts = attempt.number if attempt else 1
    cause = getattr(error, "cause", None)
    if gave_up and isinstance(cause, APIError) and cause.partial:
        # Its last answer left a thread with parts standing: it is partial, not failed.
        row = steps.partial_row(
            planned, key, cause, attempts=attempts, took=attempt.elapsed() if attempt else 0.0
        )
        return row.with_status(
            Status.PARTIAL, error=f"gave up after {attempts} attempts: {row.error}"
        )
    return ResultRow(
        post=f"{planned.post_id} (thumbnail)" if thumbnail else planned.post_id,
        platform=planned.platform.value,
        connection=planned.connection.name,
        status=Status.FAILED,
        error=f"gave up after {attempts} attempts: {error}" if gave_up else str(error),
        attempts=attempts,
        duration_seconds=attempt.elapsed() if attempt else 0.0,
        idempotency_key=key,
        kind=Kind.THUMBNAIL if thumbnail else Kind.POST,
    )


def _dry_run(fan_out: Plan, edition: str) -> State[Any]:
    table = [
        {
            "post": p.post_id,
            "platform": p.platform.value,
            "connection": p.connection.name,
            "media": p.media or ", ".join(p.carousel),
            "parts": p.parts,
            "idempotencyKey": p.idempotency_key(edition),
        }
        for p in fan_out.posts
    ]
    create_table_artifact(
        key=f"{_slug(fan_out.campaign)}-plan",
        table=table,
        description="What this run would publish (dry run: nothing sent).",
    )
    print(f"dry run of {fan_out.campaign} ({edition}): {len(table)} posts, nothing sent")
    for entry in table:
        print(f"  {entry['platform']} · {entry['connection']} · {entry['post']}")
    return Completed(message=f"dry run: {len(table)} posts planned", data=Sealed(table))


def _report(campaign: str, edition: str, rows: list[ResultRow]) -> State[Any]:
    config = settings()
    create_table_artifact(
        key=f"{_slug(campaign)}-results",
        table=[
            dict(zip(outcomes.ARTIFACT_COLUMNS, cells, strict=True))
            for cells in outcomes.table_rows(rows, with_key=True)
        ],
        description=f"Campaign {campaign}, edition {edition}",
    )
    create_markdown_artifact(
        key=f"{_slug(campaign)}-summary",
        markdown=outcomes.markdown_summary(campaign, edition, rows),
    )
    run_id = str(flow_run.id or "local")
    outcomes.append_jsonl(config.results_dir, campaign, run_id, rows)
    outcomes.report_table(f"{campaign} · {edition}", rows)
    # Sealed: Prefect would otherwise walk every row for futures as the flow ends.
    data = Sealed([row.to_json() for row in rows])
    summary = outcomes.summary_message(rows)
    if any(r.status in outcomes.NEEDS_ATTENTION for r in rows):
        return Failed(message=summary, data=data)
    return Completed(message=summary, data=data)


_slug = outcomes.artifact_slug
