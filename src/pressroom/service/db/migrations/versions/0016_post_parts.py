"""the parts of a post made of several (a thread's post and replies)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "post_parts",
        sa.Column(
            "post_id",
            sa.String(40),
            sa.ForeignKey("posts.id", ondelete="CASCADE", name="fk_post_parts_post_id_posts"),
            nullable=False,
        ),
        sa.Column("index", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("platform_post_id", sa.String(200), nullable=True),
        sa.Column("url", sa.String(500), nullable=True),
        sa.Column("reply_to", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("post_id", "index", name="pk_post_parts"),
    )


def downgrade() -> None:
    op.drop_table("post_parts")
