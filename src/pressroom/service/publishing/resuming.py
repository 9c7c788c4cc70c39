"""A thread under a held Idempotency-Key: which of its parts stand, before a retry goes on.

A retry with the key of a thread that did not finish (a later part refused, a part's
outcome unknown, the process killed mid-thread) first settles, in order, every part
still ``sending`` or ``unknown`` by asking the network (``find_delivery``: part 0 as the
post was sent, a later part by its text and the id it replied to, since its row was
written; a first comment by its text and the post it is on). A part found is recorded ``published`` and never sent again; the first one
not found is recorded ``failed``, and nothing after it was ever sent. Then:

- part 0 not found: nothing of the thread went out, and the retry sends it as new;
- every part stands: the record turns ``published`` and the retry gets its answer;
- else the retry continues the same record (``Resume``) from the first part that does
  not stand, replying to the last one that does (``threads.continue_thread``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pressroom.platforms import Platform
from pressroom.service.db.models import File, Post
from pressroom.service.db.session import transaction
from pressroom.service.db.writer import Tx, Unit, writes_for
from pressroom.service.drivers import base as driver
from pressroom.service.publishing import repository
from pressroom.service.publishing.repository import PostRepository
from pressroom.service.publishing.schemas import REQUESTS
from pressroom.service.publishing.service import answer_of, media_of, result_of
from pressroom.service.publishing.threads import (
    add_items,
    carousel_items,
    part_delivery,
    part_json,
    record_standing,
    stood_as,
)
from pressroom.statuses import PartKind, PartStatus, PostStatus

UNSETTLED = frozenset({PartStatus.SENDING.value, PartStatus.UNKNOWN.value})


@dataclass(frozen=True)
class Resume:
    """Continue the record ``post_id``: some of its parts stand, not all."""

    post_id: str


@dataclass(frozen=True)
class NotYet:
    """A part the network does not show yet, asked before its look-up window closed (the
    reconciler's pass): nothing recorded of it, asked again later."""


def settle_thread(
    sessions: sessionmaker[Session],
    sender: driver.PlatformDriver,
    post: Post,
    first: driver.Delivery,
    *,
    final: bool = True,
) -> dict[str, Any] | Resume | NotYet | None:
    """Settle the thread ``post`` sent as ``first``: its answer when every
    part stands, ``Resume`` when some do, None when part 0 is not on the network.
    With ``final`` false, a part not found is left as it was (``NotYet``) rather than
    recorded ``failed``: the network may not show it yet.
    Raises what the driver's look-up raises (``PlatformUnavailable``,
    ``LookupUnsupported``), having recorded the parts it found."""
    platform = Platform(post.platform)
    body = REQUESTS[platform].model_validate(post.request)
    with transaction(sessions, write=False) as db:
        rows = PostRepository(db).parts_of([post.id]).get(post.id, [])
    later = body.later_parts
    kinds = [PartKind.POST, *(part.kind for part in later)]
    stood: list[driver.Published] = []
    for row in rows:
        published = stood_as(row)
        if published is not None:
            stood.append(published)
            continue
        if row.status not in UNSETTLED:
            break
        index = row.index
        delivery = first
        if index > 0:
            part = later[index - 1]
            delivery = part_delivery(
                first, post.id, index, part, row.reply_to, _files(sessions, part.file_ids)
            )
        found = sender.find_delivery(delivery, row.created_at)
        if found is None and not final:
            return NotYet()
        items = carousel_items(found, body.item_parts) if index == 0 and found else ()
        _write(sessions, _part_found(post.id, index, found, list(items)))
        if found is None:
            break
        stood += [found, *items]
    if not stood:
        return None
    if len(stood) <= len(later):
        return Resume(post.id)
    answer = answer_of(result_of(platform, body, stood[0], post.id)) | {
        "parts": [
            part_json(i, kinds[i], PartStatus.PUBLISHED, p.platform_post_id, p.url)
            for i, p in enumerate(stood)
        ]
    }
    with transaction(sessions) as db:
        PostRepository(db).settle(
            post.id,
            post.status,
            status=PostStatus.PUBLISHED.value,
            platform_post_id=stood[0].platform_post_id,
            url=stood[0].url,
            published_at=stood[0].published_at,
            result=answer,
        )
    return answer


def _files(sessions: sessionmaker[Session], file_ids: tuple[str, ...]) -> tuple[driver.Media, ...]:
    """A part's files as the look-up matches them (the uploaded files, by id)."""
    if not file_ids:
        return ()
    with transaction(sessions, write=False) as db:
        found = [db.get(File, file_id) for file_id in file_ids]
        return tuple(media_of(file) for file in found if file is not None)


def _write(sessions: sessionmaker[Session], unit: Unit[None]) -> None:
    writes_for(sessions.kw["bind"]).run(unit)


def _part_found(
    post_id: str, index: int, found: driver.Published | None, items: list[driver.Published]
) -> Unit[None]:
    """The part as the look-up found it: published, or failed (it never went out); a
    carousel's part 0 with its ``items``, which stand with it."""

    def unit(tx: Tx) -> None:
        if found is None:
            repository.record_part(tx.link, post_id, index, status=PartStatus.FAILED.value)
            return
        record_standing(tx, post_id, index, found)
        add_items(tx, post_id, items)

    return unit
