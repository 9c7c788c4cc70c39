"""every event is kept for the retention period, listed newest first per account

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The account's events, newest first (GET /api/events), replaces the account index;
    # the retention purge finds old events by time, and their deliveries by event.
    op.drop_index("ix_webhook_events_account_id", table_name="webhook_events")
    op.create_index(
        "ix_webhook_events_account_created",
        "webhook_events",
        ["account_id", "created_at", "id"],
    )
    op.create_index("ix_webhook_events_created_at", "webhook_events", ["created_at"])
    op.create_index("ix_webhook_deliveries_event_id", "webhook_deliveries", ["event_id"])


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_event_id", table_name="webhook_deliveries")
    op.drop_index("ix_webhook_events_created_at", table_name="webhook_events")
    op.drop_index("ix_webhook_events_account_created", table_name="webhook_events")
    op.create_index("ix_webhook_events_account_id", "webhook_events", ["account_id"])
