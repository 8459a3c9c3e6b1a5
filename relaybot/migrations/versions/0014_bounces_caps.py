"""VERP envelope senders looked up by address; replies and TD alerts counted per day

Revision ID: 0014
Revises: 0010

Issue 12 items 7 and 8: a delivery report is matched to the outbox row whose envelope
sender it came back to (an index on outbox.envelope_from); reply_counts counts, besides
error replies (count), every reply caused by an address's mail (replies) and the TD's
alerts (alerts).
"""
import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_outbox_envelope_from", "outbox", ["envelope_from"])
    with op.batch_alter_table("reply_counts") as batch:
        batch.add_column(sa.Column("replies", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("alerts", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("reply_counts") as batch:
        batch.drop_column("alerts")
        batch.drop_column("replies")
    op.drop_index("ix_outbox_envelope_from", table_name="outbox")
