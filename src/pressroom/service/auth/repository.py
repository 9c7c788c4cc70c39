"""SQL for sessions, sign-in failures and sign-in links."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from pressroom.service.db.models import SignInFailure, SignInLink, WebSession


class AuthRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def add(self, row: WebSession | SignInFailure | SignInLink) -> None:
        self.db.add(row)
        self.db.flush()

    def session(self, token_hash: str) -> WebSession | None:
        return self.db.get(WebSession, token_hash)

    def revoke_sessions(self, account_id: str, now: datetime, *, keep: str | None = None) -> int:
        query = update(WebSession).where(
            WebSession.account_id == account_id, WebSession.revoked_at.is_(None)
        )
        if keep is not None:
            query = query.where(WebSession.token_hash != keep)
        result = self.db.execute(
            query.values(revoked_at=now).execution_options(synchronize_session=False)
        )
        return int(getattr(result, "rowcount", 0) or 0)

    def failure_times(
        self, since: datetime, *, address: str, email: str | None = None
    ) -> list[datetime]:
        """When the address failed since ``since``, oldest first: for one email, or for
        any."""
        query = select(SignInFailure.created_at).where(
            SignInFailure.address == address, SignInFailure.created_at > since
        )
        if email is not None:
            query = query.where(SignInFailure.email == email)
        return list(self.db.scalars(query.order_by(SignInFailure.created_at)))

    def forget_failures(self, *, email: str, address: str) -> None:
        self.db.execute(
            delete(SignInFailure).where(
                SignInFailure.email == email, SignInFailure.address == address
            )
        )

    def purge_failures(self, before: datetime) -> None:
        self.db.execute(delete(SignInFailure).where(SignInFailure.created_at <= before))

    def count_active_sessions(self, account_id: str, now: datetime) -> int:
        return (
            self.db.scalar(
                select(func.count())
                .select_from(WebSession)
                .where(
                    WebSession.account_id == account_id,
                    WebSession.revoked_at.is_(None),
                    WebSession.expires_at > now,
                )
            )
            or 0
        )

    def link(self, token_hash: str) -> SignInLink | None:
        return self.db.get(SignInLink, token_hash)

    def use_link(self, token_hash: str, now: datetime) -> bool:
        """Mark the link used if it still is unused and unexpired: one winner only."""
        result = self.db.execute(
            update(SignInLink)
            .where(
                SignInLink.token_hash == token_hash,
                SignInLink.used_at.is_(None),
                SignInLink.expires_at > now,
            )
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0) == 1)
