"""the dashboard: passwords, browser sessions, sign-in throttling and links, OAuth states,
encrypted platform tokens, and the sandbox's authorization server

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("api_key_last4", sa.String(4), nullable=True))
        batch.add_column(sa.Column("password_hash", sa.Text(), nullable=True))
    with op.batch_alter_table("connections") as batch:
        batch.add_column(sa.Column("access_token_enc", sa.Text(), nullable=True))
        batch.add_column(sa.Column("refresh_token_enc", sa.Text(), nullable=True))
        batch.add_column(sa.Column("access_expires_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "web_sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(40), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revealed_key", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name="fk_web_sessions_account_id_accounts",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_web_sessions"),
    )
    op.create_index("ix_web_sessions_account", "web_sessions", ["account_id"])
    op.create_table(
        "sign_in_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_sign_in_failures"),
    )
    op.create_index("ix_sign_in_failures_email_at", "sign_in_failures", ["email", "created_at"])
    op.create_index("ix_sign_in_failures_address_at", "sign_in_failures", ["address", "created_at"])
    op.create_table(
        "sign_in_links",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name="fk_sign_in_links_account_id_accounts",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sign_in_links"),
    )
    op.create_table(
        "oauth_states",
        sa.Column("state_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.String(40), nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("code_verifier_enc", sa.Text(), nullable=False),
        sa.Column("reconnect_id", sa.String(40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name="fk_oauth_states_account_id_accounts",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("state_hash", name="pk_oauth_states"),
    )
    op.create_table(
        "sandbox_grants",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("grant_id", sa.String(40), nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("client_id", sa.String(100), nullable=False),
        sa.Column("profile", sa.JSON(), nullable=False),
        sa.Column("redirect_uri", sa.String(500), nullable=True),
        sa.Column("code_challenge", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sandbox_grants"),
    )
    op.create_index("ix_sandbox_grants_grant", "sandbox_grants", ["grant_id"])


def downgrade() -> None:
    op.drop_index("ix_sandbox_grants_grant", table_name="sandbox_grants")
    op.drop_table("sandbox_grants")
    op.drop_table("oauth_states")
    op.drop_table("sign_in_links")
    op.drop_index("ix_sign_in_failures_address_at", table_name="sign_in_failures")
    op.drop_index("ix_sign_in_failures_email_at", table_name="sign_in_failures")
    op.drop_table("sign_in_failures")
    op.drop_index("ix_web_sessions_account", table_name="web_sessions")
    op.drop_table("web_sessions")
    with op.batch_alter_table("connections") as batch:
        batch.drop_column("access_expires_at")
        batch.drop_column("refresh_token_enc")
        batch.drop_column("access_token_enc")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("password_hash")
        batch.drop_column("api_key_last4")
