"""media processing as durable jobs, claimed under leases by any worker process

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "media_jobs",
        sa.Column(
            "file_id",
            sa.String(40),
            sa.ForeignKey("files.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(80), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_media_jobs_available", "media_jobs", ["available_at"])
    # Files a running service left processing get their job now, as every new one will.
    op.execute(
        "INSERT INTO media_jobs (file_id, available_at, attempts, created_at) "
        "SELECT id, CURRENT_TIMESTAMP, 0, CURRENT_TIMESTAMP FROM files "
        "WHERE status = 'processing'"
    )


def downgrade() -> None:
    op.drop_index("ix_media_jobs_available", table_name="media_jobs")
    op.drop_table("media_jobs")
