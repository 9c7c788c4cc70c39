"""The sandbox platforms' own record of what reached them: table ``sandbox_deliveries``.

It stands for looking at the platform itself, so it is written by the driver, apart
from the service's post records, and read by ``pressroom admin posts`` and the tests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import Session

from pressroom.service.db.models import SandboxDelivery
from pressroom.service.db.prepared import Link, Prepared, Row
from pressroom.service.schemas import iso_utc

_TABLE = SandboxDelivery.__table__
_BY_DEDUP_KEY = Prepared(
    select(_TABLE.c.platform_post_id, _TABLE.c.url, _TABLE.c.created_at, _TABLE.c.payload)
    .where(
        _TABLE.c.platform == bindparam("platform"),
        _TABLE.c.kind == "post",
        _TABLE.c.dedup_key == bindparam("dedup_key"),
        _TABLE.c.created_at >= bindparam("since"),
    )
    .order_by(_TABLE.c.id.desc())
)
_ADD = Prepared(
    insert(SandboxDelivery).values(
        {
            c: bindparam(c)
            for c in (
                "platform",
                "kind",
                "connection_id",
                "platform_post_id",
                "url",
                "payload",
                "created_at",
                "dedup_key",
            )
        }
    )
)


def earlier_post(link: Link, platform: str, dedup_key: str, since: datetime) -> Row | None:
    """The newest post delivered with this client token since ``since`` (one statement,
    in the driver's unit of work: ``SandboxDriver.publish``)."""
    return link.first(_BY_DEDUP_KEY, platform=platform, dedup_key=dedup_key, since=since)


def add_delivery(link: Link, **values: Any) -> None:
    """What ``DeliveryRepository.add`` records, on prepared statements."""
    link.execute(_ADD, **values)


class DeliveryRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def add(
        self,
        *,
        platform: str,
        kind: str,
        connection_id: str,
        platform_post_id: str,
        url: str,
        payload: dict[str, Any],
        created_at: datetime,
        dedup_key: str | None = None,
    ) -> SandboxDelivery:
        delivery = SandboxDelivery(
            platform=platform,
            kind=kind,
            connection_id=connection_id,
            platform_post_id=platform_post_id,
            url=url,
            payload=payload,
            created_at=created_at,
            dedup_key=dedup_key,
        )
        self.db.add(delivery)
        self.db.flush()
        return delivery

    def posts_since(
        self, platform: str, connection_id: str, since: datetime, *, kind: str = "post"
    ) -> list[SandboxDelivery]:
        """An account's posts (or, with ``kind="comment"``, its comments) on a platform
        since a moment, oldest first."""
        return list(
            self.db.scalars(
                select(SandboxDelivery)
                .where(
                    SandboxDelivery.platform == platform,
                    SandboxDelivery.kind == kind,
                    SandboxDelivery.connection_id == connection_id,
                    SandboxDelivery.created_at >= since,
                )
                .order_by(SandboxDelivery.id)
            )
        )

    def find_post(self, platform: str, platform_post_id: str) -> SandboxDelivery | None:
        """The post (or reply) the platform knows by this id, the first recorded."""
        return self.db.scalar(
            select(SandboxDelivery)
            .where(
                SandboxDelivery.platform == platform,
                SandboxDelivery.platform_post_id == platform_post_id,
            )
            .order_by(SandboxDelivery.id)
            .limit(1)
        )

    def count_posts_since(
        self, platform: str, connection_id: str, since: datetime
    ) -> tuple[int, datetime | None]:
        """How many posts an account made on a platform since a moment, and when the
        oldest of them was made (None when there is none)."""
        count, oldest = self.db.execute(
            select(func.count(SandboxDelivery.id), func.min(SandboxDelivery.created_at)).where(
                SandboxDelivery.platform == platform,
                SandboxDelivery.kind == "post",
                SandboxDelivery.connection_id == connection_id,
                SandboxDelivery.created_at >= since,
            )
        ).one()
        return int(count), oldest

    def newest_first(
        self,
        *,
        platform: str | None = None,
        connection_id: str | None = None,
        limit: int | None = None,
    ) -> list[SandboxDelivery]:
        query = select(SandboxDelivery).order_by(SandboxDelivery.id.desc())
        if platform is not None:
            query = query.where(SandboxDelivery.platform == platform)
        if connection_id is not None:
            query = query.where(SandboxDelivery.connection_id == connection_id)
        if limit is not None:
            query = query.limit(limit)
        return list(self.db.scalars(query))


def delivery_json(delivery: SandboxDelivery) -> dict[str, Any]:
    """A delivery as ``pressroom admin posts --json`` prints it."""
    payload = delivery.payload
    return {
        "id": delivery.id,
        "platform": delivery.platform,
        "kind": delivery.kind,
        "connectionId": delivery.connection_id,
        "platformPostId": delivery.platform_post_id,
        "url": delivery.url,
        "recordId": payload.get("reference"),
        "fields": payload.get("fields", {}),
        "media": payload.get("media"),
        "imageFileId": payload.get("imageFileId"),
        "createdAt": iso_utc(delivery.created_at),
    }


_WORDS = ("text", "title", "caption", "message", "description")


def delivery_line(delivery: SandboxDelivery) -> str:
    """One line per delivery for people: when, where, the id, the URL and the words."""
    fields: dict[str, Any] = delivery.payload.get("fields", {})
    words = next((str(fields[k]) for k in _WORDS if fields.get(k)), "")
    if len(words) > 60:
        words = words[:57] + "..."
    parts = [
        iso_utc(delivery.created_at),
        delivery.platform,
        delivery.kind,
        delivery.platform_post_id,
        delivery.url,
    ]
    return "  ".join(parts) + (f"  {words!r}" if words else "")
