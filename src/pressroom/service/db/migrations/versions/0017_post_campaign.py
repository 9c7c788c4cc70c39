"""the campaign a post comes from (the publish body's ``campaign``), indexed for the filters

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

# publishing.campaign.MAX_CHARS when this revision was written.
_LENGTH = 200


def upgrade() -> None:
    with op.batch_alter_table("posts") as batch:
        for name in ("name", "edition", "post_id", "flow_run_id"):
            batch.add_column(sa.Column(f"campaign_{name}", sa.String(_LENGTH), nullable=True))
    op.create_index(
        "ix_posts_account_campaign",
        "posts",
        ["account_id", "campaign_name", "campaign_edition", "created_at"],
    )
    op.create_index(
        "ix_posts_account_edition", "posts", ["account_id", "campaign_edition", "created_at"]
    )
    op.create_index(
        "ix_posts_account_flow_run", "posts", ["account_id", "campaign_flow_run_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_posts_account_flow_run", table_name="posts")
    op.drop_index("ix_posts_account_edition", table_name="posts")
    op.drop_index("ix_posts_account_campaign", table_name="posts")
    with op.batch_alter_table("posts") as batch:
        for name in ("flow_run_id", "post_id", "edition", "name"):
            batch.drop_column(f"campaign_{name}")
