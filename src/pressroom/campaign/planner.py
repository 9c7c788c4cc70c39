"""The fan-out of a campaign: each post × platform × connection, with its exact API calls.

``plan`` is pure: it reads the campaign and a connection list (as returned by
``GET /api/connections/unified``) and posts nothing, so the pipeline, the CLI and the
tests share it. It reads the media files only to hash them, so the pipeline can upload
each content once.

Connection entries may be dicts or objects with ``id``, ``platform``, ``name`` and an
optional ``status``; an entry without ``status`` counts as active (the hosted service
may omit it). Inactive connections are skipped and reported, never posted to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pressroom.campaign.alts import sent_alts
from pressroom.campaign.fields import publish_body, takes_post_media, thumbnail_body
from pressroom.campaign.model import (
    Campaign,
    Content,
    Media,
    Post,
    Retries,
    Schedule,
    SelectBy,
    Selector,
    item_parts,
)
from pressroom.campaign.source import Path as FieldPath
from pressroom.platforms import RULES, THUMBNAIL_PATH, Platform
from pressroom.probe import SentKind

ACTIVE = "active"


@dataclass(frozen=True)
class Connection:
    id: str
    platform: str
    name: str
    active: bool = True

    @classmethod
    def of(cls, entry: Mapping[str, Any] | object) -> Connection:
        """From a unified-list entry (dict or model); no ``status`` means active."""

        def get(key: str) -> Any:
            if isinstance(entry, Mapping):
                return entry.get(key)
            return getattr(entry, key, None)

        status = get("status")
        return cls(
            id=str(get("id")),
            platform=str(get("platform")),
            name=str(get("name")),
            active=status is None or status == ACTIVE,
        )

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"


@dataclass(frozen=True)
class MediaUpload:
    """A file to upload before the posts that use it; same ``sha256``, same upload."""

    name: str
    path: Path
    filename: str
    content_type: str
    kind: SentKind
    size: int
    sha256: str
    folder: str | None

    def presign_body(self) -> dict[str, str]:
        """Body of ``POST /api/upload/presigned-url`` (the folder is resolved by the caller)."""
        return {"filename": self.filename, "contentType": self.content_type}


@dataclass(frozen=True)
class ThumbnailStep:
    """After a video_sharing publish: ``POST`` the thumbnail to the new video."""

    media: str

    def path(self, video_id: str) -> str:
        return THUMBNAIL_PATH.format(videoId=video_id)

    def body(self, file_ids: Mapping[str, str]) -> dict[str, Any]:
        return thumbnail_body(file_ids[self.media])


@dataclass(frozen=True)
class PlannedPost:
    """One publish call: a post's content for one platform, to one connection."""

    campaign: str
    post_id: str
    platform: Platform
    connection: Connection
    endpoint: str
    body: Mapping[str, Any]
    """The exact publish body, except ``fileId`` (known after upload): see ``publish_body``."""
    media: str | None
    thumbnail: ThumbnailStep | None
    carousel: tuple[str, ...] = ()
    """A carousel's media names in order (sent as ``fileIds``); empty for none."""
    thread_media: tuple[tuple[str, ...], ...] = ()
    """Each thread part's media names (sent as its ``fileIds``); empty for none."""
    alts: tuple[tuple[str, str], ...] = ()
    """(media name, alt text) of each file sent with its alt text (``fileAlts``)."""

    @property
    def parts(self) -> int:
        """The parts this call makes: the post, a carousel's items where the network
        gives them ids, a thread's later parts, a first comment."""
        return (
            1
            + item_parts(self.platform, len(self.carousel))
            + len(self.body.get("thread") or ())
            + ("firstComment" in self.body)
        )

    @property
    def needs(self) -> tuple[str, ...]:
        """Every media name this call waits for, in order: its file or its carousel's
        files, then a thumbnail."""
        names = [self.media] if self.media else [*self.carousel]
        if self.thumbnail is not None:
            names.append(self.thumbnail.media)
        names += [name for part in self.thread_media for name in part]
        return tuple(dict.fromkeys(names))

    @property
    def key(self) -> str:
        """Stable name of this target: campaign/post/platform/connection id."""
        return f"{self.campaign}/{self.post_id}/{self.platform.value}/{self.connection.id}"

    def publish_body(self, file_ids: Mapping[str, str]) -> dict[str, Any]:
        """The body to send, with ``fileId`` (or a carousel's ``fileIds``) from the
        uploads (media name → file id)."""
        body = with_thread_files(self.body, self.thread_media, lambda name: file_ids[name])
        body = with_alts(body, self.alts, lambda name: file_ids[name])
        if self.carousel:
            return publish_body_with_files(body, [file_ids[n] for n in self.carousel])
        if self.media is None:
            return body
        return publish_body_with_file(body, file_ids[self.media])

    def idempotency_key(self, edition: str) -> str:
        """The same for every retry and re-run of one edition; new for the next one."""
        digest = hashlib.sha256(f"{edition}\x00{self.key}".encode()).hexdigest()
        return f"pressroom-{digest[:48]}"


class SkipReason(StrEnum):
    INACTIVE = "inactive"
    """The connection exists but cannot post (expired token, lost parent account)."""
    NOT_FOUND = "not_found"
    """The name or id matches no connection of the platform: fix the campaign."""
    NO_CONNECTION = "no_connection"
    """The block asks for every active connection and the platform has none at all."""


@dataclass(frozen=True)
class Skipped:
    post_id: str
    platform: Platform
    reason: SkipReason
    message: str
    path: FieldPath
    """Where the selector was written, to point the editor at it."""
    connection: Connection | None = None


@dataclass(frozen=True)
class Plan:
    campaign: str
    schedule: Schedule | None
    retries: Retries
    uploads: tuple[MediaUpload, ...]
    """Media used by the planned posts and thumbnails, in first-use order."""
    posts: tuple[PlannedPost, ...]
    skipped: tuple[Skipped, ...] = field(default=())

    @property
    def unresolved(self) -> tuple[Skipped, ...]:
        """Selectors that match nothing: mistakes in the campaign, not passing states."""
        return tuple(s for s in self.skipped if s.reason is SkipReason.NOT_FOUND)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for ``pressroom campaign plan --json`` and run artifacts."""
        return {
            "campaign": self.campaign,
            "schedule": (
                {"cron": self.schedule.cron, "timezone": self.schedule.timezone}
                if self.schedule
                else None
            ),
            "retries": {
                "attempts": self.retries.attempts,
                "backoffSeconds": self.retries.backoff_seconds,
                "maxDelaySeconds": self.retries.max_delay_seconds,
            },
            "uploads": [
                {
                    "name": u.name,
                    "path": str(u.path),
                    "filename": u.filename,
                    "contentType": u.content_type,
                    "kind": u.kind.value,
                    "size": u.size,
                    "sha256": u.sha256,
                    "folder": u.folder,
                }
                for u in self.uploads
            ],
            "posts": [
                {
                    "key": p.key,
                    "post": p.post_id,
                    "platform": p.platform.value,
                    "connection": {"id": p.connection.id, "name": p.connection.name},
                    "endpoint": p.endpoint,
                    "body": dict(p.body),
                    "parts": p.parts,
                    "media": p.media,
                    "carousel": list(p.carousel),
                    "thumbnail": p.thumbnail.media if p.thumbnail else None,
                }
                for p in self.posts
            ],
            "skipped": [
                {
                    "post": s.post_id,
                    "platform": s.platform.value,
                    "reason": s.reason.value,
                    "message": s.message,
                    "connection": (
                        {"id": s.connection.id, "name": s.connection.name} if s.connection else None
                    ),
                }
                for s in self.skipped
            ],
        }


def with_thread_files(
    body: Mapping[str, Any], thread_media: Sequence[Sequence[str]], file_id: Callable[[str], str]
) -> dict[str, Any]:
    """The body with each thread part's ``fileIds`` (its media names as ``file_id`` gives
    them), beside the part's text."""
    result = dict(body)
    if any(thread_media):
        result["thread"] = [
            {**part, "fileIds": [file_id(n) for n in names]} if names else part
            for part, names in zip(body["thread"], thread_media, strict=True)
        ]
    return result


def with_alts(
    body: Mapping[str, Any], alts: Sequence[tuple[str, str]], file_id: Callable[[str], str]
) -> dict[str, Any]:
    """The body with ``fileAlts``: each described file's id (as ``file_id`` gives it)
    to its alt text."""
    result = dict(body)
    if alts:
        result["fileAlts"] = {file_id(name): text for name, text in alts}
    return result


def publish_body_with_file(body: Mapping[str, Any], file_id: str) -> dict[str, Any]:
    """Insert ``fileId`` after ``connectionId``, where the spec lists it."""
    result: dict[str, Any] = {}
    for name, value in body.items():
        result[name] = value
        if name == "connectionId":
            result["fileId"] = file_id
    return result


def publish_body_with_files(body: Mapping[str, Any], file_ids: Sequence[str]) -> dict[str, Any]:
    """Insert a carousel's ``fileIds`` after ``connectionId``, where ``fileId`` would be."""
    result: dict[str, Any] = {}
    for name, value in body.items():
        result[name] = value
        if name == "connectionId":
            result["fileIds"] = list(file_ids)
    return result


def plan(campaign: Campaign, connections: Iterable[Mapping[str, Any] | object]) -> Plan:
    """Fan the campaign out over the account's connections; posts nothing."""
    known = [Connection.of(entry) for entry in connections]
    planned: list[PlannedPost] = []
    skipped: list[Skipped] = []
    used_media: list[str] = []
    for post in campaign.posts:
        for content in post.contents:
            targets, misses = _resolve(post, content, known)
            skipped.extend(misses)
            for connection in targets:
                planned.append(_planned(campaign, post, content, connection))
                for name in planned[-1].needs:
                    if name not in used_media:
                        used_media.append(name)
    hashes = _Hashes()
    uploads = tuple(_upload(campaign.media[name], hashes) for name in used_media)
    return Plan(
        campaign=campaign.name,
        schedule=campaign.schedule,
        retries=campaign.retries,
        uploads=uploads,
        posts=tuple(planned),
        skipped=tuple(skipped),
    )


def offline_body(
    content: Content, media: str | None, alts: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The publish body with placeholders for what only the API knows; a carousel's
    ``fileIds`` instead of ``media``'s ``fileId``; ``alts`` (media name to alt text) as
    ``fileAlts``."""
    body = publish_body(
        content.platform,
        content.fields,
        "<connection id>",
        thread=content.thread,
        first_comment=content.first_comment,
    )
    body = with_thread_files(body, content.thread_media, lambda name: f"<file id of {name}>")
    body = with_alts(body, list((alts or {}).items()), lambda name: f"<file id of {name}>")
    if content.carousel:
        return publish_body_with_files(body, [f"<file id of {n}>" for n in content.carousel])
    return publish_body_with_file(body, f"<file id of {media}>") if media else body


def _planned(
    campaign: Campaign, post: Post, content: Content, connection: Connection
) -> PlannedPost:
    rules = RULES[content.platform]
    return PlannedPost(
        campaign=campaign.name,
        post_id=post.id,
        platform=content.platform,
        connection=connection,
        endpoint=rules.publish_path,
        body=publish_body(
            content.platform,
            content.fields,
            connection.id,
            thread=content.thread,
            first_comment=content.first_comment,
        ),
        media=None
        if content.carousel or not takes_post_media(content.platform, content.fields)
        else post.media,
        thumbnail=ThumbnailStep(content.thumbnail) if content.thumbnail else None,
        carousel=content.carousel,
        thread_media=content.thread_media,
        alts=tuple(sent_alts(content, post.media, campaign.media).items()),
    )


def _resolve(
    post: Post, content: Content, known: list[Connection]
) -> tuple[list[Connection], list[Skipped]]:
    platform = content.platform
    mine = [c for c in known if c.platform == platform.value]
    selector: Selector = content.selector

    def skip(reason: SkipReason, message: str, path: FieldPath, conn: Connection | None) -> Skipped:
        return Skipped(post.id, platform, reason, message, path, conn)

    if selector.every_active:
        active = [c for c in mine if c.active]
        misses = [
            skip(
                SkipReason.INACTIVE,
                f"{c} is inactive: reconnect it in the dashboard",
                selector.path,
                c,
            )
            for c in mine
            if not c.active
        ]
        if not mine:
            misses.append(
                skip(
                    SkipReason.NO_CONNECTION,
                    f"the account has no {platform.value} connection: connect one in the dashboard",
                    selector.path,
                    None,
                )
            )
        return active, misses

    targets: list[Connection] = []
    misses = []
    for ref in selector.refs:
        found = _matching(ref.by, ref.value, mine)
        if not found:
            misses.append(
                skip(
                    SkipReason.NOT_FOUND,
                    _not_found(ref.by, ref.value, platform, mine, known),
                    ref.path,
                    None,
                )
            )
        for connection in found:
            if not connection.active:
                misses.append(
                    skip(
                        SkipReason.INACTIVE,
                        f"{connection} is inactive: reconnect it in the dashboard",
                        ref.path,
                        connection,
                    )
                )
            elif connection not in targets:
                targets.append(connection)
    return targets, misses


def _matching(by: SelectBy, value: str, mine: list[Connection]) -> list[Connection]:
    """Ids match exactly; names exactly, else ignoring case and a leading '@'."""
    if by is SelectBy.ID:
        return [c for c in mine if c.id == value]
    exact = [c for c in mine if c.name == value]
    return exact or [c for c in mine if _loose(c.name) == _loose(value)]


def _loose(name: str) -> str:
    return name.strip().removeprefix("@").casefold()


def _not_found(
    by: SelectBy, value: str, platform: Platform, mine: list[Connection], known: list[Connection]
) -> str:
    from pressroom.campaign.issues import did_you_mean

    elsewhere = [c.platform for c in known if getattr(c, by.value) == value]
    if elsewhere:
        return f"{by.value} '{value}' is a {elsewhere[0]} connection, not {platform.value}"
    candidates = [getattr(c, by.value) for c in mine]
    if not candidates:
        return f"no {platform.value} connection with {by.value} '{value}'; the account has none"
    return f"no {platform.value} connection with {by.value} '{value}'; {did_you_mean(value, candidates)}"


class _Hashes:
    """Hash each file once, even when several names point at it."""

    def __init__(self) -> None:
        self._done: dict[Path, str] = {}

    def of(self, path: Path) -> str:
        if path not in self._done:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1024 * 1024), b""):
                    digest.update(chunk)
            self._done[path] = digest.hexdigest()
        return self._done[path]


def _upload(media: Media, hashes: _Hashes) -> MediaUpload:
    return MediaUpload(
        name=media.name,
        path=media.path,
        filename=media.path.name,
        content_type=media.content_type,
        kind=media.kind,
        size=media.size,
        sha256=hashes.of(media.path),
        folder=media.folder,
    )
