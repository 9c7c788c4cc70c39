"""leases of the periodic tasks, so one process runs each across replicas

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "periodic_leases",
        sa.Column("name", sa.String(60), primary_key=True),
        sa.Column("owner", sa.String(60), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("periodic_leases")
