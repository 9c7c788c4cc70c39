"""a video's codecs and frame rate, as probed, for the networks' media rules

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("files") as batch:
        batch.add_column(sa.Column("video_codec", sa.String(32), nullable=True))
        batch.add_column(sa.Column("audio_codec", sa.String(32), nullable=True))
        batch.add_column(sa.Column("frame_rate", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("files") as batch:
        batch.drop_column("frame_rate")
        batch.drop_column("audio_codec")
        batch.drop_column("video_codec")
