"""Request and response models of the pressroom API.

Responses are lenient on purpose: unknown fields are kept (``extra="allow"``, readable as
attributes and in ``model_extra``), fields the hosted service may leave out are optional,
and identifiers arrive as strings even when the service sends numbers. Requests are
strict: a field a platform does not take is refused before anything is sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError
from pydantic.alias_generators import to_camel

from pressroom.platforms import RULES, Platform, PostFormat, rules_for
from pressroom.statuses import (
    ConnectionStatus,
    FileState,
    PartStatus,
    PostStatus,
    ShortVideoPrivacyLevel,
)

READY_STATUSES: frozenset[str] = frozenset({FileState.READY.value, "completed", "uploaded"})
"""File statuses that mean the file can be published: ours, and the hosted service's."""
FAILED_STATUSES: frozenset[str] = frozenset({FileState.FAILED.value, "error"})


def _id_to_str(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


Id = Annotated[str, BeforeValidator(_id_to_str)]
"""An identifier; numeric ids (as the hosted service sends for files) become strings."""


def _lenient_time(value: Any, handler: ValidatorFunctionWrapHandler) -> datetime | None:
    try:
        result: datetime | None = handler(value)
    except PydanticValidationError:
        return None
    return result


Timestamp = Annotated[datetime | None, WrapValidator(_lenient_time)]
"""An optional ISO 8601 time; one the client cannot read becomes None rather than an error."""


class Response(BaseModel):
    """Base of every response: camelCase on the wire, unknown fields kept."""

    model_config = ConfigDict(extra="allow", alias_generator=to_camel, populate_by_name=True)


class Request(BaseModel):
    """Base of every request body: camelCase on the wire, unknown fields refused."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- media ---------------------------------------------------------------------------


class PresignRequest(Request):
    filename: str
    content_type: str
    folder_id: str | None = None


class PresignedUpload(Response):
    file_id: Id
    upload_url: str
    expires_at: Timestamp = None


class DerivedFile(Response):
    """A file converted for one network (pressroom's extension)."""

    network: str | None = None
    profile: str | None = None
    status: str | None = None
    """``pending`` (a publish answers 409 ``file_not_ready`` meanwhile), ``ready`` or
    ``failed`` (``failure_reason`` says why)."""
    content_type: str | None = None
    size: int | None = None
    width: int | None = None
    height: int | None = None
    failure_reason: str | None = None


class FileStatus(Response):
    """A stored file: its processing status and, once probed, its media facts."""

    file_id: Id = Field(validation_alias=AliasChoices("fileId", "id", "file_id"))
    status: str | None = None
    """``pending_upload``, ``processing``, ``ready`` or ``failed`` (hosted: also
    ``completed`` and ``uploaded``, both meaning ready). Use ``is_ready``."""
    kind: str | None = None
    """``image`` or ``video``; ``document`` for a PDF (pressroom's extension), the file
    of a professional_network document post."""
    content_type: str | None = None
    size: int | None = None
    filename: str | None = None
    folder_id: Id | None = None
    created_at: Timestamp = None
    duration_seconds: float | None = None
    width: int | None = None
    height: int | None = None
    media_format: str | None = None
    """What probing found (pressroom): the image format, the video's container / codec,
    or a document's format and version (``PDF 1.7``)."""
    pages: int | None = None
    """A document's page count, once read (pressroom's extension); None for media."""
    failure_reason: str | None = None
    sha256: str | None = None
    """Hex SHA-256 of the bytes (pressroom's extension; the hosted service may omit it)."""
    derivatives: list[DerivedFile] = []
    """The file converted for networks that would refuse it as it is (pressroom's
    extension): one per network profile, made by the first post that needs it."""

    @property
    def is_ready(self) -> bool:
        return (self.status or "").lower() in READY_STATUSES

    @property
    def is_document(self) -> bool:
        """A PDF, which only a document post (``format="document"``) takes."""
        return self.kind == "document"

    @property
    def is_failed(self) -> bool:
        return (self.status or "").lower() in FAILED_STATUSES


class FilePage(Response):
    success: bool = True
    files: list[FileStatus] = []
    next_cursor: str | None = None


class MoveFileRequest(Request):
    folder_id: str | None

    def body(self) -> dict[str, Any]:
        # An explicit null takes the file out of its folder, so it is always sent.
        return self.model_dump(mode="json", by_alias=True)


class Deleted(Response):
    """The answer to a delete. The spec shows no shape, so only ``success`` is assumed;
    pressroom also names what went (``file_id`` or ``folder_id``, and ``deleted_files``
    for a folder). ``deleted`` is left untyped: pressroom sends true, the hosted service
    a count."""

    success: bool = True
    file_id: Id | None = None
    folder_id: Id | None = None
    deleted_files: int | None = None


# --- folders -------------------------------------------------------------------------


class FolderNameRequest(Request):
    name: str


class Folder(Response):
    id: Id = Field(validation_alias=AliasChoices("id", "folderId", "folder_id"))
    name: str
    created_at: Timestamp = None
    file_count: int | None = None


class FolderPage(Response):
    success: bool = True
    folders: list[Folder] = []
    next_cursor: str | None = None


# --- connections ---------------------------------------------------------------------


class Connection(Response):
    """An entry of the unified list; ``status`` is optional (the hosted service omits it)."""

    id: Id
    platform: str
    name: str
    status: str | None = None

    @property
    def is_active(self) -> bool:
        """An entry without a status counts as active."""
        return self.status is None or self.status == ConnectionStatus.ACTIVE


class MicroblogConnection(Response):
    connection_id: Id
    username: str
    display_name: str | None = None
    status: str | None = None
    connected_at: Timestamp = None


class MicroblogConnections(Response):
    success: bool = True
    connections: list[MicroblogConnection] = []


# --- publishing ----------------------------------------------------------------------


Fit = Literal["refuse", "pad", "crop"]
"""What a post may do to a picture whose shape the network does not take (pressroom's
extension): refuse (default), pad or crop a copy made for the network."""


class Campaign(Request):
    """Where a post comes from (pressroom's extension, the body's ``campaign``): kept on
    the post record, where ``list_posts`` finds it by ``campaign``, ``edition`` and
    ``flow_run_id``; no part of the Idempotency-Key fingerprint, so a re-run with a new
    ``flow_run_id`` under the same key gets the first answer. The service checks the
    values' lengths."""

    name: str
    edition: str | None = None
    post_id: str | None = None
    """The post's id in the campaign file."""
    flow_run_id: str | None = None
    """The Prefect flow run that sent it."""


class PublishRequest(Request):
    """A publish body; each platform's subclass names its endpoint through ``platform``."""

    platform_label: ClassVar[Platform]
    connection_id: str
    campaign: Campaign | None = None
    """pressroom's extension: where the post comes from (set by pressroom's pipeline)."""
    format: PostFormat | None = None
    """pressroom's extension: ``post`` (left out: the same), or a format the label offers
    (``story``, ``reel``, ``photo``, ``document``; ``pressroom.rules.formats``)."""

    @model_validator(mode="after")
    def _one_file_or_a_carousel(self) -> Self:
        """``file_id`` or ``file_ids`` where a label takes both, never both; a label
        whose posts carry media needs one of them, one whose media is optional (Bluesky)
        does not (checked here, before anything is sent)."""
        fields = type(self).model_fields
        if "file_ids" not in fields or "file_id" not in fields:
            return self
        one, many = getattr(self, "file_id", None), getattr(self, "file_ids", None)
        if one is not None and many is not None:
            raise ValueError("give file_id for one file or file_ids for a carousel, not both")
        rules = RULES[self.platform_label]
        if one is None and many is None and not (rules.text_only or rules.media_optional):
            raise ValueError("file_id is required (or file_ids, for a carousel)")
        return self

    @property
    def path(self) -> str:
        return RULES[self.platform_label].publish_path


class ThreadPart(Request):
    """One part of a thread after the first (pressroom's extension): its text."""

    text: str


class TextThreadPart(ThreadPart):
    """One part of a text_thread thread after the first: its text, and its files
    (pressroom's extension: one file, or several in order for a carousel). An
    open_microblog (Bluesky) thread's part takes it too: its one to four images."""

    file_ids: list[str] | None = None


class MicroblogPublish(PublishRequest):
    platform_label = Platform.MICROBLOG
    text: str
    thread: list[ThreadPart] | None = None
    """pressroom's extension: the parts after the first, each a reply to the one before."""


class VideoSharingPublish(PublishRequest):
    platform_label = Platform.VIDEO_SHARING
    file_id: str
    title: str
    description: str | None = None
    privacy_status: Literal["public", "unlisted", "private"] | None = None
    made_for_kids: bool | None = None
    """pressroom's extension: the owner's made-for-children declaration (left out: none)."""
    first_comment: str | None = None
    """pressroom's extension: a comment under the post, sent once the post stands."""
    fit: Fit | None = None


class ShortVideoPublish(PublishRequest):
    platform_label = Platform.SHORT_VIDEO
    platform: Literal["short_video"] = "short_video"
    file_id: str | None = None
    file_ids: list[str] | None = None
    """pressroom's extension: a photo post's images, in order (with ``format`` ``photo``)."""
    caption: str | None = None
    privacy_level: ShortVideoPrivacyLevel | None = None
    """pressroom's extension: TikTok's privacy level, the owner's choice (required there)."""
    allow_comments: bool | None = None
    allow_duet: bool | None = None
    allow_stitch: bool | None = None
    fit: Fit | None = None


class PhotoSharingPublish(PublishRequest):
    platform_label = Platform.PHOTO_SHARING
    file_id: str | None = None
    file_ids: list[str] | None = None
    """pressroom's extension: a carousel's files, in order (not with ``file_id``)."""
    caption: str | None = None
    first_comment: str | None = None
    """pressroom's extension: a comment under the post, sent once the post stands."""
    fit: Fit | None = None
    file_alts: dict[str, str] | None = None
    """pressroom's extension: alt text per file, each file id (of ``file_id``,
    ``file_ids`` or a thread part's) to its text, where the network takes it."""


class PageSocialPublish(PublishRequest):
    platform_label = Platform.PAGE_SOCIAL
    file_id: str | None = None
    file_ids: list[str] | None = None
    """pressroom's extension: a carousel's files, in order (not with ``file_id``)."""
    message: str | None = None
    first_comment: str | None = None
    """pressroom's extension: a comment under the post, sent once the post stands."""
    fit: Fit | None = None
    file_alts: dict[str, str] | None = None
    """pressroom's extension: alt text per file, each file id (of ``file_id``,
    ``file_ids`` or a thread part's) to its text, where the network takes it."""


class PinBoardPublish(PublishRequest):
    platform_label = Platform.PIN_BOARD
    file_id: str | None = None
    file_ids: list[str] | None = None
    """pressroom's extension: a carousel's files, in order (not with ``file_id``)."""
    board_id: str
    title: str | None = None
    description: str | None = None
    fit: Fit | None = None
    file_alts: dict[str, str] | None = None
    """pressroom's extension: alt text per file, each file id (of ``file_id``,
    ``file_ids`` or a thread part's) to its text, where the network takes it."""


class TextThreadPublish(PublishRequest):
    platform_label = Platform.TEXT_THREAD
    text: str
    file_ids: list[str] | None = None
    """pressroom's extension: a carousel's files, in order (not with ``file_id``)."""
    thread: list[TextThreadPart] | None = None
    """pressroom's extension: the parts after the first, each a reply to the one before."""
    file_alts: dict[str, str] | None = None
    """pressroom's extension: alt text per file, each file id (of ``file_id``,
    ``file_ids`` or a thread part's) to its text, where the network takes it."""


class ProfessionalNetworkPublish(PublishRequest):
    platform_label = Platform.PROFESSIONAL_NETWORK
    text: str
    file_id: str | None = None
    """pressroom's extension: a document post's PDF (with ``format`` ``document``)."""
    document_title: str | None = None
    """pressroom's extension: a document post's title (required with ``document``)."""
    file_ids: list[str] | None = None
    """pressroom's extension: a carousel's files, in order (not with ``file_id``)."""
    first_comment: str | None = None
    """pressroom's extension: a comment under the post, sent once the post stands."""
    file_alts: dict[str, str] | None = None
    """pressroom's extension: alt text per file, each file id (of ``file_id``,
    ``file_ids`` or a thread part's) to its text, where the network takes it."""


class OpenMicroblogPublish(PublishRequest):
    """pressroom's extension beside the spec's eight labels: a Bluesky post."""

    platform_label = Platform.OPEN_MICROBLOG
    text: str
    file_id: str | None = None
    alt_text: str | None = None
    file_ids: list[str] | None = None
    """Two to four images in one post, in order (not with ``file_id``)."""
    file_alts: dict[str, str] | None = None
    """Each file's alt text, by its id."""
    thread: list[TextThreadPart] | None = None
    """The parts after the first, each a reply to the one before, with its images."""


PUBLISH_REQUESTS: dict[Platform, type[PublishRequest]] = {
    model.platform_label: model
    for model in (
        MicroblogPublish,
        VideoSharingPublish,
        ShortVideoPublish,
        PhotoSharingPublish,
        PageSocialPublish,
        PinBoardPublish,
        TextThreadPublish,
        ProfessionalNetworkPublish,
        OpenMicroblogPublish,
    )
}


PublishField = str | bool | Sequence[str | ThreadPart] | Mapping[str, str] | Campaign | None
"""A publish field's value: text, a yes/no choice, a thread's parts (``thread``: texts,
or ``TextThreadPart`` with files), alt text per file (``file_alts``), or where the post
comes from (``campaign``)."""


def build_publish_request(
    platform: Platform | str, *, connection_id: str, **fields: PublishField
) -> PublishRequest:
    """The body for ``platform`` from snake_case fields; fields left None are not sent.
    ``thread`` is the texts of a thread's parts after the first (microblog, text_thread).

    Raises ``ValueError`` for an unknown platform, and pydantic's ``ValidationError`` (a
    ``ValueError`` too) for a field the platform does not take or a required one that is
    missing, before anything is sent.
    """
    model = PUBLISH_REQUESTS[rules_for(platform).platform]
    given: dict[str, Any] = {name: value for name, value in fields.items() if value is not None}
    thread = given.get("thread")
    if isinstance(thread, Sequence) and not isinstance(thread, str):
        given["thread"] = [
            {"text": part}
            if isinstance(part, str)
            else part.model_dump(exclude_none=True)
            if isinstance(part, ThreadPart)
            else part
            for part in thread
        ]
    return model.model_validate({"connection_id": connection_id, **given})


class ResponseMeta:
    """What the response headers said about idempotency, kept beside a result."""

    def __init__(self, headers: Mapping[str, str], idempotency_key: str | None) -> None:
        self.headers: dict[str, str] = {k.lower(): v for k, v in headers.items()}
        self.idempotency_key = idempotency_key

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id")

    @property
    def idempotency_honoured(self) -> bool | None:
        """None when no key was sent; else whether the service echoed it back."""
        if self.idempotency_key is None:
            return None
        return self.headers.get("idempotency-key") == self.idempotency_key

    @property
    def replayed(self) -> bool:
        return self.headers.get("idempotent-replayed", "").lower() == "true"


class WithMeta(Response):
    _meta: ResponseMeta | None = PrivateAttr(default=None)

    @property
    def idempotency_key(self) -> str | None:
        """The ``Idempotency-Key`` this request was sent with, if any."""
        return self._meta.idempotency_key if self._meta else None

    @property
    def idempotency_honoured(self) -> bool | None:
        """Whether the service echoed the ``Idempotency-Key`` back (None: none was sent).

        False means the service gives no sign it deduplicates: after an unknown outcome,
        look the post up before sending again.
        """
        return self._meta.idempotency_honoured if self._meta else None

    @property
    def replayed(self) -> bool:
        """True when the service answered ``Idempotent-Replayed: true``: nothing new was posted."""
        return self._meta.replayed if self._meta else False

    @property
    def response_headers(self) -> dict[str, str]:
        """The response headers, lower-cased."""
        return dict(self._meta.headers) if self._meta else {}


class Part(Response):
    """One part of a post made of several (pressroom's extension): a thread is its
    ``post`` then a ``reply`` per later part; a carousel its ``post`` then an ``item``
    per file (where the network names them); a first comment a ``comment``; in order."""

    index: int
    kind: str | None = None
    platform_post_id: Id | None = None
    url: str | None = None
    status: str | None = None
    """``published``, ``failed`` (refused: nothing of it is live) or ``unknown``."""

    @property
    def stands(self) -> bool:
        return self.status == PartStatus.PUBLISHED


class PublishResult(WithMeta):
    """The publish result of spec section 2; ``item_id`` is the platform's id whatever its name."""

    success: bool = True
    platform: str | None = None
    connection_id: Id | None = None
    status: str | None = None
    published_at: Timestamp = None
    url: str | None = None
    microblog_post_id: Id | None = None
    video_id: Id | None = None
    post_id: Id | None = None
    pin_id: Id | None = None
    privacy_status: str | None = None
    format: PostFormat | None = None
    """pressroom's extension: the format the body gave (None: a feed post)."""
    board_id: Id | None = None
    applied_privacy_status: str | None = None
    """video_sharing on pressroom: the privacy YouTube reports having applied."""
    applied_made_for_kids: bool | None = None
    publish_id: Id | None = None
    """short_video on pressroom: TikTok's ``publish_id``, the post's reference."""
    privacy_level: str | None = None
    publicly_available: bool | None = None
    """short_video on pressroom: False while TikTok gives no public post id (``post_id``
    is then the ``publish_id`` and ``url`` the profile)."""
    record_id: Id | None = None
    """pressroom's own record of the post (``GET /api/posts/{recordId}``); not on the hosted service."""
    parts: list[Part] | None = None
    """A thread's parts in order (pressroom's extension); None for a single post."""

    @property
    def item_id(self) -> str | None:
        """The created item's id: ``microblogPostId``, ``videoId``, ``postId`` or ``pinId``."""
        try:
            names = [RULES[Platform(self.platform or "")].id_field]
        except ValueError:
            names = sorted({rules.id_field for rules in RULES.values()})
        for name in names:
            value = getattr(self, _SNAKE_ID_FIELDS[name], None)
            if value is not None:
                return str(value)
        return None


_SNAKE_ID_FIELDS = {
    "microblogPostId": "microblog_post_id",
    "videoId": "video_id",
    "postId": "post_id",
    "pinId": "pin_id",
}


class ThumbnailRequest(Request):
    thumbnail_file_id: str


class ThumbnailResult(WithMeta):
    success: bool = True
    video_id: Id | None = None
    thumbnail_url: str | None = None
    status: str | None = None
    updated_at: Timestamp = None


class PostCampaign(Response):
    """A post record's ``campaign`` (pressroom's extension)."""

    name: str | None = None
    edition: str | None = None
    post_id: str | None = None
    flow_run_id: str | None = None


class Post(Response):
    """pressroom's record of one publish attempt (our extension, for read-back).

    ``status`` is ``published``, ``sending`` (still on its way), ``failed`` (it never
    reached the platform), ``unknown`` (the platform failed after receiving it: it
    may be live) or ``partial`` (a thread whose later part was refused).
    """

    record_id: Id = Field(validation_alias=AliasChoices("recordId", "id", "record_id"))
    platform: str | None = None
    connection_id: Id | None = None
    status: str | None = None
    url: str | None = None
    published_at: Timestamp = None
    created_at: Timestamp = None
    idempotency_key: str | None = None
    file_id: Id | None = None
    platform_post_id: Id | None = None
    """The platform's id of the item (what the publish result named ``videoId``, ...)."""
    request: dict[str, Any] | None = None
    """The publish body as sent."""
    result: dict[str, Any] | None = None
    """The answer given: the publish result, or the error body."""
    parts: list[Part] = []
    """A thread's parts in order (pressroom's extension); empty for a single post."""
    campaign: PostCampaign | None = None
    """Where the post comes from, as its publish body's ``campaign`` said."""
    format: PostFormat = PostFormat.POST
    """The post's format (pressroom's extension; ``post`` from a server that says none)."""

    @property
    def partial(self) -> bool:
        """A thread some of whose parts stand while the network refused a later one: a
        publish with the same Idempotency-Key resumes after the parts that stand."""
        return self.status == PostStatus.PARTIAL


class PostPage(Response):
    success: bool = True
    posts: list[Post] = []
    next_cursor: str | None = None


# --- metrics (pressroom's extension) --------------------------------------------------


class RefreshMetrics(Request):
    """Which published posts a metrics round asks about; every filter given must hold."""

    since_days: int | None = None
    record_ids: list[str] | None = None
    campaign: str | None = None


class NetworkRound(Response):
    refreshed: int = 0
    unavailable: int = 0
    failed: int = 0
    budget: int = 0
    asked: int = 0
    stopped: str | None = None


class MetricsRound(Response):
    """A metrics round the service runs (``running``, then ``done`` or ``failed``)."""

    round_id: Id
    status: str
    running_already: bool = False
    filters: dict[str, Any] = {}
    networks: dict[str, NetworkRound] = {}
    started_at: Timestamp = None
    finished_at: Timestamp = None

    @property
    def running(self) -> bool:
        return self.status == "running"


class Figures(Response):
    """What a network counts of a post; None where it does not count the figure."""

    impressions: int | None = None
    views: int | None = None
    likes: int | None = None
    comments: int | None = None
    shares: int | None = None
    saves: int | None = None
    clicks: int | None = None


class MetricSnapshot(Figures):
    taken_at: Timestamp = None
    part_index: int = 0


class PartMetrics(Response):
    """A part of a post counted on its own by its network (a thread's reply)."""

    index: int
    kind: str | None = None
    platform_post_id: str | None = None
    latest: MetricSnapshot | None = None
    series: list[MetricSnapshot] = []


class PostMetrics(Response):
    """A post's figures over time, or why its network gives none (``available``):
    ``latest`` and ``series`` are part 0's, ``parts`` a thread's replies, ``totals``
    their latest figures summed."""

    record_id: Id
    platform: str | None = None
    available: bool = True
    unavailable_reason: str | None = None
    refreshed_at: Timestamp = None
    latest: MetricSnapshot | None = None
    series: list[MetricSnapshot] = []
    parts: list[PartMetrics] = []
    totals: Figures | None = None


class NetworkTotals(Response):
    platform: str
    posts: int = 0
    totals: Figures = Figures()


class EditionTotals(Response):
    edition: str | None = None
    networks: list[NetworkTotals] = []


class CampaignMetrics(Response):
    """A campaign's figures, each post by its latest totals (a thread's replies
    included), per network and edition."""

    campaign: str
    posts: int = 0
    measured: int = 0
    networks: list[NetworkTotals] = []
    editions: list[EditionTotals] = []


# --- events and redelivery (pressroom's extension) ------------------------------------


class Event(Response):
    """Something that happened in the account, as its webhooks carry it; kept for the
    retention period whether or not an endpoint listened."""

    id: Id
    """The ``webhook-id`` of every delivery of it."""
    type: str
    created_at: Timestamp = None
    data: dict[str, Any] = {}


class EventPage(Response):
    success: bool = True
    events: list[Event] = []
    next_cursor: str | None = None


class WebhookDelivery(Response):
    """One event on its way to one endpoint, with its attempts so far."""

    id: Id
    event_id: Id
    event_type: str | None = None
    state: str | None = None
    """``pending``, ``delivered`` or ``failed`` (given up)."""
    attempts: list[dict[str, Any]] = []
    next_attempt_at: Timestamp = None
    created_at: Timestamp = None
    delivered_at: Timestamp = None


class Redelivered(Response):
    success: bool = True
    queued: int
    """Events queued to the endpoint again."""


# --- API key -------------------------------------------------------------------------


class ApiKey(Response):
    """The key is a ``SecretStr``: ``api_key.get_secret_value()`` reveals it, repr does not."""

    success: bool = True
    api_key: SecretStr
    created_at: Timestamp = None
