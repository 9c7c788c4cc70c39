"""record each file's SHA-256, so a caller can find a file it uploaded before by content

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("files") as batch:
        batch.add_column(sa.Column("sha256", sa.String(64), nullable=True))
    op.create_index("ix_files_account_sha256", "files", ["account_id", "sha256"])


def downgrade() -> None:
    op.drop_index("ix_files_account_sha256", table_name="files")
    with op.batch_alter_table("files") as batch:
        batch.drop_column("sha256")
