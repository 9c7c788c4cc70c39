"""A thread: the first part sent as any post, then each later part as a reply to the one
before, each part recorded on its own (``post_parts``).

Each part is written ``sending`` before it is sent and changed once the network
answered, in units of work of its own, so what stands is known part by part. The post
record stays ``sending`` until every part is settled: then it turns ``published`` with
the answer (its ``parts`` beside the spec's fields, which describe part 0), and its one
webhook event carries the parts. A later part the network refuses leaves the post
``partial``: the answer is the refusal, with ``parts`` showing what stands. A later part
whose outcome is unknown (the network failed after receiving it) leaves the post
``unknown``. Either way the answer is kept under the Idempotency-Key, so a retry with it
never sends a part again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.db.writer import Tx
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError
from pressroom.service.publishing import events, repository
from pressroom.service.publishing.attempts import Attempt, published_unit
from pressroom.service.publishing.claims import end_in
from pressroom.service.publishing.context import PublishContext
from pressroom.service.publishing.schemas import PublishRequest
from pressroom.statuses import PartKind, PartStatus, PostStatus, RecordStatus

Send = Callable[[driver.Delivery], Awaitable[driver.Published]]
"""How a part reaches the network (``service._published`` on the post's driver)."""


def part_json(
    index: int, status: str, platform_post_id: str | None, url: str | None
) -> dict[str, Any]:
    """A part as the answer and ``GET /api/posts`` show it (``schemas.Part``)."""
    return {
        "index": index,
        "kind": (PartKind.POST if index == 0 else PartKind.REPLY).value,
        "platformPostId": platform_post_id,
        "url": url,
        "status": status,
    }


async def continue_thread(
    ctx: PublishContext,
    platform: Platform,
    body: PublishRequest,
    attempt: Attempt,
    first: driver.Delivery,
    published: driver.Published,
    answer: dict[str, Any],
    send: Send,
) -> dict[str, Any]:
    """Part 0 went out (``published``, answered as ``answer``): send the later parts,
    each replying to the one before; the answer with every part, or the ServiceError
    of the part that did not go out (with ``parts``)."""
    post_id = attempt.id
    parts = [part_json(0, PartStatus.PUBLISHED, published.platform_post_id, published.url)]
    previous = published
    for index, part in enumerate(body.thread_parts, start=1):
        reply_to = previous.platform_post_id
        await ctx.writes.run_async(
            _part_unit(post_id, index, reply_to, first=previous if index == 1 else None)
        )
        delivery = replace(
            first,
            fields={"text": part.text},
            media=None,
            reference=f"{post_id}.{index}",
            dedup_key=f"{first.dedup_key}.{index}" if first.dedup_key else None,
            reply_to=reply_to,
        )
        try:
            previous = await send(delivery)
        except Exception as exc:
            error, status = _part_error(platform, post_id, index, exc)
            parts.append(part_json(index, status, None, None))
            error.extra = {"parts": parts}
            await ctx.writes.run_async(_cut_short_unit(ctx, attempt, index, status, error))
            if ctx.claim is not None:
                ctx.claim.settled = True
            raise error from exc
        await ctx.writes.run_async(_stood_unit(post_id, index, previous))
        parts.append(
            part_json(index, PartStatus.PUBLISHED, previous.platform_post_id, previous.url)
        )
    answer = answer | {"parts": parts}
    await ctx.writes.run_async(published_unit(attempt, published, answer, ctx.claim))
    if ctx.claim is not None:
        ctx.claim.settled = True
    return answer


def _part_unit(
    post_id: str, index: int, reply_to: str | None, *, first: driver.Published | None
) -> Callable[[Tx], None]:
    """Part ``index`` is about to be sent; with ``first``, part 0 as it stands too."""

    def unit(tx: Tx) -> None:
        now = utcnow()
        if first is not None:
            repository.add_part(
                tx.link,
                post_id=post_id,
                index=0,
                kind=PartKind.POST.value,
                status=PartStatus.PUBLISHED.value,
                platform_post_id=first.platform_post_id,
                url=first.url,
                reply_to=None,
                created_at=now,
                published_at=first.published_at,
            )
        repository.add_part(
            tx.link,
            post_id=post_id,
            index=index,
            kind=PartKind.REPLY.value,
            status=PartStatus.SENDING.value,
            platform_post_id=None,
            url=None,
            reply_to=reply_to,
            created_at=now,
            published_at=None,
        )

    return unit


def _stood_unit(post_id: str, index: int, published: driver.Published) -> Callable[[Tx], None]:
    def unit(tx: Tx) -> None:
        repository.record_part(
            tx.link,
            post_id,
            index,
            status=PartStatus.PUBLISHED.value,
            platform_post_id=published.platform_post_id,
            url=published.url,
            published_at=published.published_at,
        )

    return unit


def _cut_short_unit(
    ctx: PublishContext, attempt: Attempt, index: int, status: str, error: ServiceError
) -> Callable[[Tx], None]:
    """A later part did not go out: the part, the post (``partial``, or ``unknown`` when
    the part may be live), its event, and the answer kept under the key."""
    post_status = PostStatus.UNKNOWN.value if status == PartStatus.UNKNOWN else PostStatus.PARTIAL
    result = error.body()
    outcome = replace(attempt, status=str(post_status), result=result)
    claim = ctx.claim

    def unit(tx: Tx) -> None:
        repository.record_part(tx.link, attempt.id, index, status=status)
        was = repository.record_outcome(
            tx.link,
            attempt.account_id,
            attempt.id,
            expected=attempt.status,
            status=str(post_status),
            result=result,
        )
        if was is not None:
            events.announce_in(tx.link, outcome, was)
        if claim is not None:
            end_in(tx.link, claim, error.status, result, utcnow())

    return unit


def _part_error(
    platform: Platform, post_id: str, index: int, exc: Exception
) -> tuple[ServiceError, str]:
    """The answer for part ``index`` that did not go out, and the part's status."""
    name = platform.value
    stands = f"Parts 0 to {index - 1} stand (record {post_id})"
    if isinstance(exc, driver.PlatformRateLimited):
        return ServiceError(
            error_codes.RATE_LIMITED,
            f"{name} refused part {index} of the thread for its rate limit; {stands}.",
            headers={"Retry-After": str(exc.retry_after)},
        ), PartStatus.FAILED
    if isinstance(exc, driver.PlatformUnavailable):
        status = PartStatus.UNKNOWN if exc.sent else PartStatus.FAILED
        return ServiceError(
            error_codes.PLATFORM_UNAVAILABLE,
            f"{name} failed on part {index} of the thread"
            + (" after receiving it, so it may be live" if exc.sent else "")
            + f"; {stands}.",
            headers={"Retry-After": str(exc.retry_after)},
            record_status=RecordStatus.UNKNOWN if exc.sent else RecordStatus.NOT_SENT,
        ), status
    if isinstance(exc, driver.PermissionMissing):
        return ServiceError(
            exc.code, f"{name} refused part {index} of the thread: {exc} {stands}."
        ), PartStatus.FAILED
    if isinstance(exc, driver.PlatformRefused):
        return ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{name} refused part {index} of the thread: {exc} {stands}.",
            field=f"thread[{index - 1}].text" if exc.field == "text" else exc.field,
            rule=exc.rule.id if exc.rule else None,
            doc_url=exc.rule.doc_url if exc.rule else None,
        ), PartStatus.FAILED
    if isinstance(exc, driver.AccessRevoked):
        return ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"{name} no longer accepts this connection's authorization ({exc}), so part "
            f"{index} of the thread was not published; {stands}.",
            field="connectionId",
        ), PartStatus.FAILED
    if isinstance(exc, driver.NetworkMisconfigured):
        return ServiceError(
            error_codes.PLATFORM_MISCONFIGURED,
            f"{name} cannot take posts from this service as it is set up: {exc}. Part "
            f"{index} of the thread was not published; {stands}.",
            record_status=RecordStatus.NOT_SENT,
        ), PartStatus.FAILED
    return ServiceError(
        error_codes.INTERNAL_ERROR,
        f"{name} did not answer part {index} of the thread, so it may be live; {stands}.",
        record_status=RecordStatus.UNKNOWN,
    ), PartStatus.UNKNOWN
