"""sandbox deliveries remember the client's idempotency token

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sandbox_deliveries") as batch:
        batch.add_column(sa.Column("dedup_key", sa.String(length=300), nullable=True))
        batch.create_index("ix_sandbox_deliveries_dedup_key", ["platform", "dedup_key"])


def downgrade() -> None:
    with op.batch_alter_table("sandbox_deliveries") as batch:
        batch.drop_index("ix_sandbox_deliveries_dedup_key")
        batch.drop_column("dedup_key")
