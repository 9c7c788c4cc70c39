"""A post made of parts: the first part sent as any post, then each later part (a
thread's reply to the part before, or a first comment on the post part 0 made), each
part recorded on its own (``post_parts``).

Each part is written ``sending`` before it is sent (part 0 with the post record itself)
and changed once the network answered, in units of work of its own, so what stands is
known part by part. The post record stays ``sending`` until every part is settled: then
it turns ``published`` with the answer (its ``parts`` beside the spec's fields, which
describe part 0), and its one webhook event carries the parts. A later part the network
refuses leaves the post ``partial``: the answer is the refusal, with ``parts`` showing
what stands. A later part whose outcome is unknown (the network failed after receiving
it) leaves the post ``unknown``.

Either way the Idempotency-Key stays held once part 0 stands: a retry with it looks up
the parts still ``sending`` or ``unknown`` (``resuming``), then continues the same record
from the first part that does not stand, replying to the last one that does, so no part
is sent twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.connections.service import access_revoked, require_publishable
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, Post, PostPart
from pressroom.service.db.session import transaction
from pressroom.service.db.writer import Tx
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError
from pressroom.service.publishing import events, repository
from pressroom.service.publishing.attempts import Attempt, published_unit
from pressroom.service.publishing.context import PublishContext
from pressroom.service.publishing.repository import PostRepository
from pressroom.service.publishing.schemas import LaterPart, PublishRequest
from pressroom.statuses import PartKind, PartStatus, PostStatus, RecordStatus

Send = Callable[[driver.Delivery], Awaitable[driver.Published]]
"""How a part reaches the network (``service._published`` on the post's driver)."""


def part_json(
    index: int, kind: str, status: str, platform_post_id: str | None, url: str | None
) -> dict[str, Any]:
    """A part as the answer and ``GET /api/posts`` show it (``schemas.Part``)."""
    return {
        "index": index,
        "kind": str(kind),
        "platformPostId": platform_post_id,
        "url": url,
        "status": status,
    }


@dataclass(frozen=True)
class Standing:
    """A thread's record as a retry continues it: the parts that stand, from part 0."""

    attempt: Attempt
    stood: list[driver.Published]


def standing(
    sessions: sessionmaker[Session],
    account: Account,
    platform: Platform,
    body: PublishRequest,
    post_id: str,
) -> Standing:
    """The record ``post_id`` and the parts of it that stand, its connection checked
    again (an inactive one is refused; the key stays held)."""
    with transaction(sessions, write=False) as db:
        connection = require_publishable(db, account, body.connection_id, platform)
        post = db.get(Post, post_id)
        assert post is not None and post.account_id == account.id
        parts = PostRepository(db).parts_of([post_id]).get(post_id, [])
        attempt = Attempt(
            post.id,
            post.account_id,
            post.platform,
            post.connection_id,
            post.idempotency_key,
            connection.name,
            None,
            status=post.status,
            result=post.result,
            threaded=True,
            created_at=post.created_at,
            campaign_name=post.campaign_name,
            campaign_edition=post.campaign_edition,
            campaign_post_id=post.campaign_post_id,
            campaign_flow_run_id=post.campaign_flow_run_id,
        )
    stood: list[driver.Published] = []
    for part in parts:
        published = stood_as(part)
        if published is None:
            break
        stood.append(published)
    assert stood, "a thread is resumed only once its part 0 stands"
    return Standing(attempt, stood)


def stood_as(part: PostPart) -> driver.Published | None:
    """A part that stands, as the network answered it; None for one that does not."""
    if part.status != PartStatus.PUBLISHED:
        return None
    assert part.platform_post_id and part.url and part.published_at
    return driver.Published(part.platform_post_id, part.url, part.published_at)


async def continue_thread(
    ctx: PublishContext,
    platform: Platform,
    body: PublishRequest,
    attempt: Attempt,
    first: driver.Delivery,
    stood: list[driver.Published],
    answer: dict[str, Any],
    send: Send,
    *,
    recorded: bool,
    part_files: Mapping[int, tuple[driver.Media, ...]] | None = None,
) -> dict[str, Any]:
    """The parts in ``stood`` went out (part 0 answered as ``answer``; ``recorded``:
    their rows say so already): send the later parts, a reply to the part before or a
    comment on part 0, each with its files in ``part_files`` (by part index); the answer
    with every part, or the ServiceError of the part that did not go out (with
    ``parts``)."""
    post_id = attempt.id
    claim = ctx.claim
    if claim is not None:
        claim.resume = post_id  # part 0 is live: from here on the key stays held
    later = body.later_parts
    kinds = [PartKind.POST, *(part.kind for part in later)]
    if len(stood) == 1 and later and later[0].kind == PartKind.ITEM:
        stood = [*stood, *carousel_items(stood[0], body.item_parts)]
        await ctx.writes.run_async(_items_unit(post_id, stood, first=not recorded))
        recorded = True
    parts = [
        part_json(i, kinds[i], PartStatus.PUBLISHED, p.platform_post_id, p.url)
        for i, p in enumerate(stood)
    ]
    # A reply follows the last part that is not a carousel's item (those went out with
    # part 0, inside it).
    previous = next(p for i, p in reversed(list(enumerate(stood))) if kinds[i] != PartKind.ITEM)
    for index in range(len(stood), len(later) + 1):
        part = later[index - 1]
        assert part.kind != PartKind.ITEM, "a carousel's items stand with part 0"
        target = (stood[0] if part.kind == PartKind.COMMENT else previous).platform_post_id
        first_stands = stood[0] if index == 1 and not recorded else None
        await ctx.writes.run_async(_part_unit(post_id, index, part, target, first=first_stands))
        files = (part_files or {}).get(index, ())
        delivery = part_delivery(first, post_id, index, part, target, files)
        try:
            previous = await send(delivery)
        except Exception as exc:
            if isinstance(exc, driver.AccessRevoked):
                await run_in_threadpool(_revoked, ctx.sessions, attempt.connection_id)
            error, status = _part_error(
                platform, post_id, index, part, exc, resumable=claim is not None
            )
            parts.append(part_json(index, part.kind, status, None, None))
            error.extra = {"parts": parts}
            await ctx.writes.run_async(_cut_short_unit(ctx, attempt, index, status, error))
            if claim is not None:
                claim.settled = True
            raise error from exc
        await ctx.writes.run_async(_stood_unit(post_id, index, previous))
        parts.append(
            part_json(
                index, part.kind, PartStatus.PUBLISHED, previous.platform_post_id, previous.url
            )
        )
    answer = answer | {"parts": parts}
    await ctx.writes.run_async(published_unit(attempt, stood[0], answer, claim))
    if claim is not None:
        claim.settled = True
    return answer


def carousel_items(first: driver.Published, count: int) -> tuple[driver.Published, ...]:
    """The ``count`` items of the carousel part 0 published, as its network named them:
    a driver of a network that gives items ids answers with every one
    (``Published.items``)."""
    if len(first.items) != count:
        raise RuntimeError(
            f"the network answered {len(first.items)} item ids for a carousel of {count}"
        )
    return first.items


def _items_unit(
    post_id: str, stood: list[driver.Published], *, first: bool
) -> Callable[[Tx], None]:
    """A carousel's items stand with part 0, in one unit (with ``first``, part 0 as it
    stands too): a retry never finds part 0 standing without them."""

    def unit(tx: Tx) -> None:
        if first:
            record_standing(tx, post_id, 0, stood[0])
        add_items(tx, post_id, stood[1:])

    return unit


def record_standing(tx: Tx, post_id: str, index: int, published: driver.Published) -> None:
    repository.record_part(
        tx.link,
        post_id,
        index,
        status=PartStatus.PUBLISHED.value,
        platform_post_id=published.platform_post_id,
        url=published.url,
        published_at=published.published_at,
    )


def add_items(tx: Tx, post_id: str, items: list[driver.Published]) -> None:
    """A carousel's items as parts 1 to n, standing."""
    now = utcnow()
    for index, item in enumerate(items, start=1):
        repository.add_part(
            tx.link,
            post_id=post_id,
            index=index,
            kind=PartKind.ITEM.value,
            status=PartStatus.PUBLISHED.value,
            platform_post_id=item.platform_post_id,
            url=item.url,
            reply_to=None,
            created_at=now,
            published_at=item.published_at,
        )


def part_delivery(
    first: driver.Delivery,
    post_id: str,
    index: int,
    part: LaterPart,
    target: str | None,
    files: tuple[driver.Media, ...] = (),
) -> driver.Delivery:
    """Part ``index`` as the network gets it: a reply to ``target`` (the part before),
    with its ``files`` (one as ``media``, several as a carousel's ``items``), or a
    comment on it (part 0's post)."""
    comment = part.kind == PartKind.COMMENT
    return replace(
        first,
        fields={"text": part.text},
        media=files[0] if len(files) == 1 else None,
        items=files if len(files) > 1 else (),
        reference=f"{post_id}.{index}",
        dedup_key=part_key(first.dedup_key, index),
        reply_to=None if comment else target,
        comment_on=target if comment else None,
    )


def part_key(dedup_key: str | None, index: int) -> str | None:
    """The client token part ``index`` is sent with: the post's, told apart per part."""
    if dedup_key is None or index == 0:
        return dedup_key
    return f"{dedup_key}.{index}"


def _revoked(sessions: sessionmaker[Session], connection_id: str) -> None:
    with transaction(sessions) as db:
        access_revoked(db, connection_id)


def _part_unit(
    post_id: str,
    index: int,
    part: LaterPart,
    reply_to: str | None,
    *,
    first: driver.Published | None,
) -> Callable[[Tx], None]:
    """Part ``index`` is about to be sent (again, when it did not go out before); with
    ``first``, part 0 as it stands too. ``reply_to``: the network's id of the post the
    part replies to or comments on."""

    def unit(tx: Tx) -> None:
        now = utcnow()
        if first is not None:
            repository.record_part(
                tx.link,
                post_id,
                0,
                status=PartStatus.PUBLISHED.value,
                platform_post_id=first.platform_post_id,
                url=first.url,
                published_at=first.published_at,
            )
        if repository.resend_part(tx.link, post_id, index, reply_to=reply_to, created_at=now):
            return
        repository.add_part(
            tx.link,
            post_id=post_id,
            index=index,
            kind=part.kind.value,
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
        record_standing(tx, post_id, index, published)

    return unit


def _cut_short_unit(
    ctx: PublishContext, attempt: Attempt, index: int, status: str, error: ServiceError
) -> Callable[[Tx], None]:
    """A later part did not go out: the part, the post (``partial``, or ``unknown`` when
    the part may be live), its event, and the key held for a retry to continue."""
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
        if claim is not None and claim.record_id is not None:
            repository.hold_key(tx.link, claim.record_id)  # a retry continues the thread

    return unit


def _part_field(later: LaterPart, field: str | None) -> str | None:
    """A part's refusal names the body's field: its text, or its files
    (``fileId``/``fileIds[j]`` of the part's delivery are ``thread[i].fileIds[j]``)."""
    if field == "text":
        return later.field
    if field is not None and later.file_ids and field.startswith(("fileId", "fileIds")):
        base = later.field.removesuffix(".text") + ".fileIds"
        return base + (field.removeprefix("fileIds") if field.startswith("fileIds[") else "[0]")
    return field


def _part_error(
    platform: Platform,
    post_id: str,
    index: int,
    later: LaterPart,
    exc: Exception,
    *,
    resumable: bool,
) -> tuple[ServiceError, str]:
    """The answer for part ``index`` that did not go out, and the part's status."""
    name = platform.value
    what = "the first comment" if later.kind == PartKind.COMMENT else f"part {index} of the thread"
    stands = (
        f"Parts 0 to {index - 1} stand (record {post_id})"
        if index > 1
        else f"The post stands (record {post_id})"
    )
    if resumable:
        stands += (
            ", and a retry with the same Idempotency-Key continues after "
            + ("them" if index > 1 else "it")
            + " without sending "
            + ("them" if index > 1 else "it")
            + " again"
        )
    if isinstance(exc, driver.PlatformRateLimited):
        return ServiceError(
            error_codes.RATE_LIMITED,
            f"{name} refused {what} for its rate limit; {stands}.",
            headers={"Retry-After": str(exc.retry_after)},
        ), PartStatus.FAILED
    if isinstance(exc, driver.PlatformUnavailable):
        status = PartStatus.UNKNOWN if exc.sent else PartStatus.FAILED
        return ServiceError(
            error_codes.PLATFORM_UNAVAILABLE,
            f"{name} failed on {what}"
            + (" after receiving it, so it may be live" if exc.sent else "")
            + f"; {stands}.",
            headers={"Retry-After": str(exc.retry_after)},
            record_status=RecordStatus.UNKNOWN if exc.sent else RecordStatus.NOT_SENT,
        ), status
    if isinstance(exc, driver.PermissionMissing):
        return ServiceError(exc.code, f"{name} refused {what}: {exc} {stands}."), PartStatus.FAILED
    if isinstance(exc, driver.PlatformRefused):
        return ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{name} refused {what}: {exc} {stands}.",
            field=_part_field(later, exc.field),
            rule=exc.rule.id if exc.rule else None,
            doc_url=exc.rule.doc_url if exc.rule else None,
        ), PartStatus.FAILED
    if isinstance(exc, driver.AccessRevoked):
        return ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"{name} no longer accepts this connection's authorization ({exc}), so {what} "
            "was not published and the connection is now inactive: "
            f"reconnect it in the dashboard. {stands}.",
            field="connectionId",
        ), PartStatus.FAILED
    if isinstance(exc, driver.NetworkMisconfigured):
        return ServiceError(
            exc.code,
            f"{name} cannot take posts from this service as it is set up: {exc}. "
            f"{what[0].upper()}{what[1:]} was not published; {stands}.",
            record_status=RecordStatus.NOT_SENT,
        ), PartStatus.FAILED
    return ServiceError(
        error_codes.INTERNAL_ERROR,
        f"{name} did not answer {what}, so it may be live; {stands}.",
        record_status=RecordStatus.UNKNOWN,
    ), PartStatus.UNKNOWN
