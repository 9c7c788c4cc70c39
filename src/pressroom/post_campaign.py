"""The bound on a post's ``campaign`` values, one number for the service that refuses a
longer one and for ``pressroom campaign validate``, which names the line that would
fail every publish of a run (this module loads nothing, so the validator stays light)."""

from __future__ import annotations

MAX_CHARS = 200
"""The longest value of each of the four fields, in characters (code points, as JSON
Schema's ``maxLength`` and PostgreSQL's ``VARCHAR`` count them).

They are identifiers, not prose: a campaign's name is a slug, an edition is ``manual``
or ``scheduled-2026-11-26T10:00+00:00`` (32), a post's id a slug, a flow run id a UUID
(36). 200 leaves room for any a hand-written client makes, and keeps each indexed column
short; the columns are ``VARCHAR(200)``, so the database holds exactly what the API
accepted. A longer value is refused with 400 ``validation_error`` naming the field
(``campaign.name``)."""
