"""The sandbox platforms' own record of what reached them: table ``sandbox_deliveries``.

It stands for looking at the platform itself, so it is written by the driver, apart
from the service's post records, and read by ``pressroom admin posts`` and the tests.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pressroom.service.db.models import SandboxDelivery


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
    ) -> SandboxDelivery:
        delivery = SandboxDelivery(
            platform=platform,
            kind=kind,
            connection_id=connection_id,
            platform_post_id=platform_post_id,
            url=url,
            payload=payload,
            created_at=created_at,
        )
        self.db.add(delivery)
        self.db.flush()
        return delivery

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
