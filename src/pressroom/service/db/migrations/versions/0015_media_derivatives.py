"""files fitted for a network: derived files, and derive jobs on the media queue

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "media_derivatives",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "file_id",
            sa.String(40),
            sa.ForeignKey(
                "files.id",
                ondelete="CASCADE",
                name="fk_media_derivatives_file_id_files",
            ),
            nullable=False,
        ),
        sa.Column("network", sa.String(32), nullable=False),
        sa.Column("profile", sa.String(60), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("content_type", sa.String(100), nullable=True),
        sa.Column("storage_key", sa.String(200), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=True),
        sa.Column("width", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        sa.Column("duration_seconds", sa.Float(), nullable=True),
        sa.Column("video_codec", sa.String(32), nullable=True),
        sa.Column("audio_codec", sa.String(32), nullable=True),
        sa.Column("frame_rate", sa.Float(), nullable=True),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_media_derivatives"),
        sa.UniqueConstraint("file_id", "profile", name="uq_media_derivatives_file_id_profile"),
    )
    # A job is now a kind of work on a file: the upload's processing, or one derived file
    # per network profile, so the key takes the kind and the profile too.
    old_key = sa.inspect(op.get_bind()).get_pk_constraint("media_jobs").get("name")
    with op.batch_alter_table("media_jobs", recreate="auto") as batch:
        batch.add_column(sa.Column("kind", sa.String(16), nullable=False, server_default="process"))
        batch.add_column(sa.Column("target", sa.String(60), nullable=False, server_default=""))
        if old_key:
            batch.drop_constraint(old_key, type_="primary")
        batch.create_primary_key("pk_media_jobs", ["file_id", "kind", "target"])


def downgrade() -> None:
    op.execute("DELETE FROM media_jobs WHERE kind <> 'process'")
    old_key = sa.inspect(op.get_bind()).get_pk_constraint("media_jobs").get("name")
    with op.batch_alter_table("media_jobs", recreate="auto") as batch:
        if old_key:
            batch.drop_constraint(old_key, type_="primary")
        batch.create_primary_key("pk_media_jobs", ["file_id"])
        batch.drop_column("target")
        batch.drop_column("kind")
    op.drop_table("media_derivatives")
