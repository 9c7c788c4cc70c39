"""SQL for accounts and their monthly usage."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.base import manager_of_class

from pressroom.service.db.models import Account
from pressroom.service.db.prepared import Link, Prepared

_ACCOUNTS = manager_of_class(Account)
_BY_KEY_HASH = Prepared(
    select(Account.__table__).where(Account.__table__.c.api_key_hash == bindparam("key_hash"))
)


def account_by_key_hash(link: Link, key_hash: str) -> Account | None:
    """The key's account by one indexed read, on the driver's connection (``db.reads``).

    The object is detached, as an account loaded by a session that has closed: the
    same attributes, and a route's session writes it back by primary key if asked to.
    """
    row = link.first(_BY_KEY_HASH, key_hash=key_hash)
    if row is None:
        return None
    # Made as a load makes it (the values set, no change recorded), not through the
    # constructor, whose per-attribute events cost more than the read itself.
    account: Account = _ACCOUNTS.new_instance()
    account.__dict__.update(row._asdict())
    make_transient_to_detached(account)
    return account


class AccountRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def get_by_key_hash(self, key_hash: str) -> Account | None:
        return self.db.scalar(select(Account).where(Account.api_key_hash == key_hash))

    def get_by_email(self, email: str) -> Account | None:
        return self.db.scalar(select(Account).where(Account.email == email))

    def get_by_email_any_case(self, email: str) -> Account | None:
        """A case-insensitive look-up (a scan: used only when the exact one missed)."""
        return self.db.scalar(
            select(Account).where(func.lower(Account.email) == email.lower()).limit(1)
        )

    def get(self, account_id: str) -> Account | None:
        return self.db.get(Account, account_id)

    def add(self, account: Account) -> Account:
        self.db.add(account)
        self.db.flush()
        return account

    def swap_key(
        self, account_id: str, old_hash: str, new_hash: str, now: datetime, last4: str | None = None
    ) -> bool:
        """Replace the key only if it is still ``old_hash``; False when another rotation won."""
        result = self.db.execute(
            update(Account)
            .where(Account.id == account_id, Account.api_key_hash == old_hash)
            .values(api_key_hash=new_hash, api_key_created_at=now, api_key_last4=last4)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0) == 1)
