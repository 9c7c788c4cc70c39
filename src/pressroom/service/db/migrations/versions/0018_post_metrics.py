"""metrics fetched back from the networks: snapshots per post, a post's standing, rounds

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# service.drivers.base.PostMetrics's fields when this revision was written.
WHEN = sa.DateTime(timezone=True)
_FIGURES = ("impressions", "views", "likes", "comments", "shares", "saves", "clicks")


def upgrade() -> None:
    op.create_table(
        "metric_snapshots",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "post_id", sa.String(40), sa.ForeignKey("posts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("part_index", sa.Integer(), nullable=False),
        sa.Column("taken_at", WHEN, nullable=False),
        *(sa.Column(name, sa.BigInteger(), nullable=True) for name in _FIGURES),
    )
    op.create_index(
        "ix_metric_snapshots_post_taken", "metric_snapshots", ["post_id", "part_index", "taken_at"]
    )
    op.create_table(
        "post_metrics_state",
        sa.Column(
            "post_id",
            sa.String(40),
            sa.ForeignKey("posts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("refreshed_at", WHEN, nullable=True),
        sa.Column("unavailable_reason", sa.Text(), nullable=True),
        sa.Column("unavailable_at", WHEN, nullable=True),
        sa.Column("unavailable_final", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_post_metrics_state_refreshed", "post_metrics_state", ["refreshed_at"])
    op.create_table(
        "metric_rounds",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "account_id",
            sa.String(40),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("filters", sa.JSON(), nullable=False),
        sa.Column("networks", sa.JSON(), nullable=False),
        sa.Column("started_at", WHEN, nullable=False),
        sa.Column("finished_at", WHEN, nullable=True),
    )
    op.create_index(
        "ix_metric_rounds_account_started", "metric_rounds", ["account_id", "started_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_metric_rounds_account_started", table_name="metric_rounds")
    op.drop_table("metric_rounds")
    op.drop_index("ix_post_metrics_state_refreshed", table_name="post_metrics_state")
    op.drop_table("post_metrics_state")
    op.drop_index("ix_metric_snapshots_post_taken", table_name="metric_snapshots")
    op.drop_table("metric_snapshots")
