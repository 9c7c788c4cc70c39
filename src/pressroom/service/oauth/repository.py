"""SQL for OAuth states."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pressroom.service.db.models import OAuthState


class OAuthStateRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def add(self, state: OAuthState) -> None:
        self.db.add(state)
        self.db.flush()

    def take(
        self, state_hash: str, account_id: str, platform: str, now: datetime
    ) -> OAuthState | None:
        """The state, marked used, if it is this account's, for this platform, unused and
        unexpired; None otherwise. One winner only: a replay finds it used."""
        result = self.db.execute(
            update(OAuthState)
            .where(
                OAuthState.state_hash == state_hash,
                OAuthState.account_id == account_id,
                OAuthState.platform == platform,
                OAuthState.used_at.is_(None),
                OAuthState.expires_at > now,
            )
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        )
        if getattr(result, "rowcount", 0) != 1:
            return None
        return self.db.get(OAuthState, state_hash)

    def peek(
        self, state_hash: str, account_id: str, platform: str, now: datetime
    ) -> OAuthState | None:
        """The state, left unused, if ``take`` would take it now; None otherwise."""
        return self.db.scalars(
            select(OAuthState).where(
                OAuthState.state_hash == state_hash,
                OAuthState.account_id == account_id,
                OAuthState.platform == platform,
                OAuthState.used_at.is_(None),
                OAuthState.expires_at > now,
            )
        ).one_or_none()
