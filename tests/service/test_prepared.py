"""``db.prepared``: Core statements compiled once, run on the driver's cursor, with the
same conversions SQLAlchemy makes, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import Engine, bindparam, insert, select, update

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, IdempotencyRecord
from pressroom.service.db.prepared import Link, Prepared
from pressroom.service.db.session import make_engine, make_session_factory, transaction

KEYS = IdempotencyRecord.__table__
CLAIM = Prepared(
    insert(KEYS)
    .values(
        account_id=bindparam("account_id"),
        key=bindparam("key"),
        endpoint="/api/v2/microblog/publish",
        request_hash=bindparam("digest"),
        state="in_progress",
        created_at=bindparam("now"),
        expires_at=bindparam("expires_at"),
        response_body=bindparam("body"),
    )
    .returning(KEYS.c.id)
)
FIND = Prepared(
    select(KEYS.c.id, KEYS.c.state, KEYS.c.expires_at, KEYS.c.response_body).where(
        KEYS.c.account_id == bindparam("account_id"), KEYS.c.key == bindparam("key")
    )
)
COMPLETE = Prepared(
    update(KEYS)
    .where(KEYS.c.id == bindparam("record_id"), KEYS.c.state == "in_progress")
    .values(state="completed")
)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    with transaction(make_session_factory(engine)) as db:
        now = utcnow()
        db.add(
            Account(
                id="acct_prepared",
                email="prepared@example.com",
                plan="business",
                api_key_hash="0" * 64,
                api_key_created_at=now,
                created_at=now,
            )
        )
    yield engine
    engine.dispose()


def test_parameters_and_results_convert_as_sqlalchemy_converts_them(engine: Engine) -> None:
    later = datetime(2031, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    body = {"success": True, "text": "été ✓", "nested": [1, None]}
    connection = engine.raw_connection()
    try:
        link = Link(connection.driver_connection, engine.dialect)
        record_id = link.scalar(
            CLAIM,
            account_id="acct_prepared",
            key="k-1",
            digest="d" * 64,
            now=utcnow(),
            expires_at=later.astimezone(timezone(timedelta(hours=2))),
            body=body,
        )
        assert isinstance(record_id, int)
        assert link.execute(COMPLETE, record_id=record_id) == 1
        assert link.execute(COMPLETE, record_id=record_id) == 0  # the literal is bound too
        found = link.first(FIND, account_id="acct_prepared", key="k-1")
        assert link.first(FIND, account_id="acct_prepared", key="none") is None
        connection.commit()
    finally:
        connection.close()
    assert found is not None
    assert (found.id, found.state, found.response_body) == (record_id, "completed", body)
    assert found.expires_at == later and found.expires_at.tzinfo is not None
    with engine.connect() as plain:  # what SQLAlchemy itself reads back
        row = plain.execute(select(KEYS).where(KEYS.c.id == record_id)).one()
    assert row.expires_at == later and row.response_body == body


def test_a_statement_that_changes_per_call_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="cannot expand"):
        Prepared(select(KEYS.c.id).where(KEYS.c.key.in_(bindparam("keys", expanding=True))))
