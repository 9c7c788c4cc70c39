"""Campaign files: the pipeline's input, read, checked and fanned out without posting.

Contracts
- ``validate(file) -> Report`` never raises for anything in the file: it reports every
  error and warning at once, each as ``severity: file:line:column: field.path: message``
  (lines and columns from 1; paths dotted as the service's error ``field``,
  ``posts.0.microblog.text``). ``load(file)`` returns the ``Campaign`` or raises
  ``CampaignInvalid`` listing the errors. ``validate_files`` also refuses two campaigns
  with one name.
- ``plan(campaign, connections) -> Plan`` is pure: the connection list in (dicts or
  models with ``id``, ``platform``, ``name``, optional ``status``), the exact publish
  calls out. It never talks HTTP.
- ``preview.build(report)`` shows a validated file's posts as each network will (its
  counts, media, next runs and findings), also when the file has errors: it reads
  ``Report.draft``, the campaign as far as it could be read, never planned or run.
- Content rules come only from ``pressroom.platforms`` and media facts only from
  ``pressroom.probe``: no limit is written here.

Pitfalls
- Keep this package import-light: it runs as a pre-commit hook. No Prefect, FastAPI,
  SQLAlchemy, boto3 or httpx here (a test checks it in a fresh interpreter); PyAV is
  imported only when a video is probed.
- ``format.py`` is the file format and so the JSON Schema
  (``pipelines/campaign.schema.json``); change one, regenerate the other with
  ``pressroom campaign schema -o pipelines/campaign.schema.json``.

The format itself is documented for editors in ``docs/campaigns/writing.md``.
"""

from pressroom.campaign.issues import Issue, Severity
from pressroom.campaign.model import (
    Campaign,
    ConnectionRef,
    Content,
    Media,
    Post,
    Retries,
    Schedule,
    SelectBy,
    Selector,
)
from pressroom.campaign.planner import (
    Connection,
    MediaUpload,
    Plan,
    PlannedPost,
    Skipped,
    SkipReason,
    ThumbnailStep,
    plan,
)
from pressroom.campaign.schema import campaign_schema
from pressroom.campaign.validate import CampaignInvalid, Report, load, validate, validate_files

__all__ = [
    "Campaign",
    "CampaignInvalid",
    "Connection",
    "ConnectionRef",
    "Content",
    "Issue",
    "Media",
    "MediaUpload",
    "Plan",
    "PlannedPost",
    "Post",
    "Report",
    "Retries",
    "Schedule",
    "SelectBy",
    "Selector",
    "Severity",
    "SkipReason",
    "Skipped",
    "ThumbnailStep",
    "campaign_schema",
    "load",
    "plan",
    "validate",
    "validate_files",
]
