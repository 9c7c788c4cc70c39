"""SQL for post records and idempotency keys."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.orm import Session

from pressroom.service.db.models import IdempotencyRecord, Post, PostPart
from pressroom.service.db.prepared import Link, Prepared
from pressroom.service.media.pagination import Position
from pressroom.service.publishing import events
from pressroom.statuses import PartStatus, PostStatus

IN_PROGRESS = "in_progress"
COMPLETED = "completed"
HELD = "unknown"
"""The request ended without knowing whether its post went out: the key stays taken."""


class PostRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def add(self, post: Post) -> Post:
        self.db.add(post)
        self.db.flush()
        return post

    def get(self, account_id: str, record_id: str) -> Post | None:
        return self.db.scalar(
            select(Post).where(Post.id == record_id, Post.account_id == account_id)
        )

    def newest_first(
        self,
        account_id: str,
        *,
        limit: int,
        after: Position | None = None,
        before: Position | None = None,
        connection_id: str | None = None,
        platform: str | None = None,
        idempotency_key: str | None = None,
        statuses: Collection[str] | None = None,
        campaign: str | None = None,
        edition: str | None = None,
        flow_run_id: str | None = None,
    ) -> list[Post]:
        """A page of posts, newest first: older than ``after`` (the (created_at, id) of
        the last one seen), or the ``limit`` just newer than ``before`` (the first one
        seen), for a page back towards the newest."""
        query = select(Post).where(Post.account_id == account_id)
        for column, value in (
            (Post.connection_id, connection_id),
            (Post.platform, platform),
            (Post.idempotency_key, idempotency_key),
            (Post.campaign_name, campaign),
            (Post.campaign_edition, edition),
            (Post.campaign_flow_run_id, flow_run_id),
        ):
            if value is not None:
                query = query.where(column == value)
        if statuses is not None:
            query = query.where(Post.status.in_(list(statuses)))
        if after is not None:
            query = query.where(
                or_(
                    Post.created_at < after.created_at,
                    and_(Post.created_at == after.created_at, Post.id < after.id),
                )
            )
        if before is None:
            query = query.order_by(Post.created_at.desc(), Post.id.desc()).limit(limit)
            return list(self.db.scalars(query))
        query = query.where(
            or_(
                Post.created_at > before.created_at,
                and_(Post.created_at == before.created_at, Post.id > before.id),
            )
        )
        query = query.order_by(Post.created_at.asc(), Post.id.asc()).limit(limit)
        return list(reversed(list(self.db.scalars(query))))

    def published_video(self, account_id: str, video_id: str) -> Post | None:
        return self.db.scalar(
            select(Post).where(
                Post.account_id == account_id,
                Post.platform == "video_sharing",
                Post.platform_post_id == video_id,
                Post.status == "published",
            )
        )

    def unsettled_by_key(self, account_id: str, idempotency_key: str) -> list[Post]:
        """Attempts under a key whose outcome is not known, or not whole (a thread some
        of whose parts stand), newest first."""
        return list(
            self.db.scalars(
                select(Post)
                .where(
                    Post.account_id == account_id,
                    Post.idempotency_key == idempotency_key,
                    Post.status.in_(("unknown", "sending", "partial")),
                )
                .order_by(Post.created_at.desc())
            )
        )

    def unsettled(self, *, since: datetime, sending_before: datetime, limit: int) -> list[Post]:
        """Every account's attempts to look up: unknown ones, and ones still ``sending``
        long after any request could still be running, oldest first."""
        return list(
            self.db.scalars(
                select(Post)
                .where(
                    Post.created_at >= since,
                    or_(
                        Post.status == "unknown",
                        and_(Post.status == "sending", Post.created_at < sending_before),
                    ),
                )
                .order_by(Post.created_at)
                .limit(limit)
            )
        )

    def settle(self, post_id: str, expected_status: str, **values: Any) -> bool:
        """Change an attempt only if it is still in ``expected_status`` (and announce it)."""
        result = self.db.execute(
            update(Post)
            .where(Post.id == post_id, Post.status == expected_status)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        settled = bool(getattr(result, "rowcount", 0) == 1)
        if settled and "status" in values:
            self._announce(post_id, expected_status)
        return settled

    def parts_of(self, post_ids: list[str]) -> dict[str, list[PostPart]]:
        """The parts of each of these records, in order (none for a single post)."""
        if not post_ids:
            return {}
        found: dict[str, list[PostPart]] = {}
        for part in self.db.scalars(
            select(PostPart)
            .where(PostPart.post_id.in_(post_ids))
            .order_by(PostPart.post_id, PostPart.index)
        ):
            found.setdefault(part.post_id, []).append(part)
        return found

    def mark_interrupted(self, account_id: str, idempotency_key: str) -> None:
        """Attempts under a key whose request never finished: their outcome is unknown."""
        interrupted = list(
            self.db.scalars(
                select(Post.id).where(
                    Post.account_id == account_id,
                    Post.idempotency_key == idempotency_key,
                    Post.status == "sending",
                )
            )
        )
        for post_id in interrupted:
            self.settle(post_id, "sending", status="unknown")

    def _announce(self, post_id: str, was: str) -> None:
        post = self.db.scalar(
            select(Post).where(Post.id == post_id).execution_options(populate_existing=True)
        )
        if post is not None:
            events.announce(self.db, post, was)


class IdempotencyRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def get(self, account_id: str, key: str) -> IdempotencyRecord | None:
        return self.db.scalar(
            select(IdempotencyRecord).where(
                IdempotencyRecord.account_id == account_id, IdempotencyRecord.key == key
            )
        )

    def forget_expired(self, record_id: int, now: datetime) -> None:
        """Delete the key's row if it has expired, so the key can be taken anew."""
        self.db.execute(
            delete(IdempotencyRecord)
            .where(IdempotencyRecord.id == record_id, IdempotencyRecord.expires_at <= now)
            .execution_options(synchronize_session=False)
        )

    def hold(self, record_id: int) -> None:
        self.db.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.id == record_id, IdempotencyRecord.state == IN_PROGRESS)
            .values(state=HELD)
            .execution_options(synchronize_session=False)
        )

    def take_held(self, record_id: int, now: datetime, claimer: str | None) -> bool:
        """A held key becomes this request's claim again (one request wins the race)."""
        result = self.db.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.id == record_id, IdempotencyRecord.state == HELD)
            .values(state=IN_PROGRESS, created_at=now, claimed_by=claimer)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0) == 1)

    def settle_held(
        self, account_id: str, key: str, status: int | None, body: dict[str, Any] | None
    ) -> None:
        """Settle a held key from outside a request (the reconciler): store the answer
        the look-up found, or, with None, free the key."""
        where = (
            IdempotencyRecord.account_id == account_id,
            IdempotencyRecord.key == key,
            IdempotencyRecord.state == HELD,
        )
        if body is None:
            self.db.execute(
                delete(IdempotencyRecord).where(*where).execution_options(synchronize_session=False)
            )
        else:
            self.db.execute(
                update(IdempotencyRecord)
                .where(*where)
                .values(state=COMPLETED, response_status=status, response_body=body)
                .execution_options(synchronize_session=False)
            )


# The publish path's statements, prepared once (``db.prepared``): a publish runs them on
# every request, in the units of work of ``db.writer``.

_KEYS = IdempotencyRecord.__table__
_POSTS = Post.__table__

_PURGE_EXPIRED = Prepared(
    delete(IdempotencyRecord).where(
        _KEYS.c.account_id == bindparam("account_id"), _KEYS.c.expires_at < bindparam("now")
    )
)
_ADD_KEY = Prepared(
    insert(IdempotencyRecord)
    .values(
        {
            c: bindparam(c)
            for c in (
                "account_id",
                "key",
                "endpoint",
                "request_hash",
                "state",
                "response_status",
                "response_body",
                "created_at",
                "expires_at",
                "claimed_by",
            )
        }
    )
    .returning(_KEYS.c.id)
)
_KEY_TAKEN = Prepared(
    select(_KEYS.c.id).where(
        _KEYS.c.account_id == bindparam("account_id"), _KEYS.c.key == bindparam("key")
    )
)
_RUNNING = (_KEYS.c.id == bindparam("record_id"), _KEYS.c.state == IN_PROGRESS)
_COMPLETE_KEY = Prepared(
    update(IdempotencyRecord)
    .where(*_RUNNING)
    .values(state=COMPLETED, response_status=bindparam("status"), response_body=bindparam("body"))
)
_HOLD_KEY = Prepared(update(IdempotencyRecord).where(*_RUNNING).values(state=HELD))
_RELEASE_KEY = Prepared(delete(IdempotencyRecord).where(*_RUNNING))

_ADD_POST = Prepared(
    insert(Post).values(
        {
            c: bindparam(c)
            for c in (
                "id",
                "account_id",
                "connection_id",
                "platform",
                "file_id",
                "request",
                "result",
                "status",
                "idempotency_key",
                "created_at",
                "campaign_name",
                "campaign_edition",
                "campaign_post_id",
                "campaign_flow_run_id",
            )
        }
    )
)
_POST_STATUS = Prepared(
    select(_POSTS.c.status).where(
        _POSTS.c.id == bindparam("post_id"), _POSTS.c.account_id == bindparam("account_id")
    )
)
_FROM = (_POSTS.c.id == bindparam("post_id"), _POSTS.c.status == bindparam("was"))
"""A post record changed only from the status its writer read (param ``was``)."""
_RECORD_PUBLISHED = Prepared(
    update(Post)
    .where(*_FROM)
    .values(
        status=bindparam("status"),
        platform_post_id=bindparam("platform_post_id"),
        url=bindparam("url"),
        published_at=bindparam("published_at"),
        result=bindparam("result"),
    )
)
_RECORD_OUTCOME = Prepared(
    update(Post).where(*_FROM).values(status=bindparam("status"), result=bindparam("result"))
)


PURGE_EVERY = timedelta(minutes=1)
"""How often each process forgets an account's expired keys as it takes one. Every
claim did: a statement of a publish's twelve, for keys that lapse a week after use."""

_purged: dict[str, datetime] = {}
"""When this process last forgot each account's expired keys (``add_key``); a purge
rolled back with its unit is made a minute later."""


class KeyTaken(Exception):
    """The account already holds this Idempotency-Key (another request's, or an answer
    kept for it): the request gets the key's answer, not its own."""


def add_key(
    link: Link,
    *,
    account_id: str,
    key: str,
    endpoint: str,
    request_hash: str,
    now: datetime,
    expires_at: datetime,
    claimer: str | None,
    state: str = IN_PROGRESS,
    status: int | None = None,
    body: dict[str, Any] | None = None,
) -> int:
    """Take a key; ``KeyTaken`` when the account holds it. The unique constraint on
    (account, key) decides between racing requests, across threads, processes and hosts
    alike. The account's expired keys are forgotten first, once every ``PURGE_EVERY``
    in each process (a key found taken by an expired row is forgotten at once by the
    claim that found it: ``idempotency.KeyStore.inspect``)."""
    last = _purged.get(account_id)
    if last is None or not last <= now < last + PURGE_EVERY:
        link.execute(_PURGE_EXPIRED, account_id=account_id, now=now)
        _purged[account_id] = now
    try:
        record_id = link.scalar(
            _ADD_KEY,
            account_id=account_id,
            key=key,
            endpoint=endpoint,
            request_hash=request_hash,
            state=state,
            response_status=status,
            response_body=body,
            created_at=now,
            expires_at=expires_at,
            claimed_by=claimer,
        )
    except link.dialect.loaded_dbapi.IntegrityError as exc:
        raise KeyTaken(key) from exc
    return int(record_id)


def key_taken(link: Link, account_id: str, key: str) -> bool:
    return link.first(_KEY_TAKEN, account_id=account_id, key=key) is not None


def complete_key(link: Link, record_id: int, status: int, body: dict[str, Any]) -> None:
    link.execute(_COMPLETE_KEY, record_id=record_id, status=status, body=body)


def hold_key(link: Link, record_id: int) -> None:
    link.execute(_HOLD_KEY, record_id=record_id)


def release_key(link: Link, record_id: int) -> None:
    link.execute(_RELEASE_KEY, record_id=record_id)


def add_post(link: Link, **values: Any) -> None:
    """A post record: ``id``, ``account_id``, ``connection_id``, ``platform``,
    ``file_id``, ``request``, ``result``, ``status``, ``idempotency_key``, ``created_at``,
    and ``campaign_name``, ``campaign_edition``, ``campaign_post_id``,
    ``campaign_flow_run_id`` (None without a ``campaign``)."""
    link.execute(_ADD_POST, **values)


def post_status(link: Link, account_id: str, post_id: str) -> str | None:
    status: str | None = link.scalar(_POST_STATUS, account_id=account_id, post_id=post_id)
    return status


def record_published(
    link: Link,
    account_id: str,
    post_id: str,
    *,
    expected: str,
    platform_post_id: str,
    url: str,
    published_at: datetime,
    result: dict[str, Any],
) -> str | None:
    """The record published with the platform's answer; the status it had (None: no
    such record). ``expected``, the status its publish wrote, saves reading it first."""
    return _change(
        link,
        _RECORD_PUBLISHED,
        account_id,
        post_id,
        expected,
        status=PostStatus.PUBLISHED.value,
        platform_post_id=platform_post_id,
        url=url,
        published_at=published_at,
        result=result,
    )


def record_outcome(
    link: Link,
    account_id: str,
    post_id: str,
    *,
    expected: str,
    status: str,
    result: dict[str, Any] | None,
) -> str | None:
    """The record's outcome (``failed`` or ``unknown``) and its result; the status it
    had, as ``record_published``."""
    return _change(
        link, _RECORD_OUTCOME, account_id, post_id, expected, status=status, result=result
    )


def _change(
    link: Link,
    statement: Prepared,
    account_id: str,
    post_id: str,
    expected: str,
    **values: Any,
) -> str | None:
    """Run ``statement`` on the record if its status is ``expected``, else on whatever
    status it has now (another process may have changed it: an abandoned claim makes
    it ``unknown``); the status it changed from."""
    was: str | None = expected
    while was is not None:
        if link.execute(statement, post_id=post_id, was=was, **values):
            return was
        was = post_status(link, account_id, post_id)
    return None


# A post's parts (a thread's post and replies): one row each, written before the part is
# sent (``sending``) and changed once the network answered.

_PARTS = PostPart.__table__
_ADD_PART = Prepared(
    insert(PostPart).values(
        {
            c: bindparam(c)
            for c in (
                "post_id",
                "index",
                "kind",
                "status",
                "platform_post_id",
                "url",
                "reply_to",
                "created_at",
                "published_at",
            )
        }
    )
)
_RECORD_PART = Prepared(
    update(PostPart)
    .where(_PARTS.c.post_id == bindparam("post_id"), _PARTS.c.index == bindparam("part"))
    .values(
        status=bindparam("status"),
        platform_post_id=bindparam("platform_post_id"),
        url=bindparam("url"),
        published_at=bindparam("published_at"),
    )
)
_RESEND_PART = Prepared(
    update(PostPart)
    .where(_PARTS.c.post_id == bindparam("post_id"), _PARTS.c.index == bindparam("part"))
    .values(
        status=bindparam("status"),
        reply_to=bindparam("reply_to"),
        created_at=bindparam("created_at"),
        platform_post_id=None,
        url=None,
        published_at=None,
    )
)
_PARTS_OF = Prepared(
    select(
        _PARTS.c.index,
        _PARTS.c.kind,
        _PARTS.c.status,
        _PARTS.c.platform_post_id,
        _PARTS.c.url,
        _PARTS.c.reply_to,
        _PARTS.c.created_at,
        _PARTS.c.published_at,
    )
    .where(_PARTS.c.post_id == bindparam("post_id"))
    .order_by(_PARTS.c.index)
)


def add_part(link: Link, **values: Any) -> None:
    """A part: ``post_id``, ``index``, ``kind``, ``status``, ``platform_post_id``, ``url``,
    ``reply_to``, ``created_at``, ``published_at``."""
    link.execute(_ADD_PART, **values)


def resend_part(
    link: Link, post_id: str, index: int, *, reply_to: str | None, created_at: datetime
) -> bool:
    """A part that did not go out is about to be sent again (``sending``); False when
    it has no row yet."""
    changed = link.execute(
        _RESEND_PART,
        post_id=post_id,
        part=index,
        status=PartStatus.SENDING.value,
        reply_to=reply_to,
        created_at=created_at,
    )
    return changed == 1


def record_part(
    link: Link,
    post_id: str,
    index: int,
    *,
    status: str,
    platform_post_id: str | None = None,
    url: str | None = None,
    published_at: datetime | None = None,
) -> None:
    link.execute(
        _RECORD_PART,
        post_id=post_id,
        part=index,
        status=status,
        platform_post_id=platform_post_id,
        url=url,
        published_at=published_at,
    )


def parts_of(link: Link, post_id: str) -> list[Any]:
    """The record's parts, in order (rows with the columns of ``PostPart``)."""
    return link.rows(_PARTS_OF, post_id=post_id)
