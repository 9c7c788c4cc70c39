"""which process holds an in-progress Idempotency-Key claim, so a dead one's is given up

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as table:
        table.add_column(sa.Column("claimed_by", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as table:
        table.drop_column("claimed_by")
