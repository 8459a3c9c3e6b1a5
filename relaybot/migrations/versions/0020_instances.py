"""Several instances on one PostgreSQL: the ingest ledger's claims

Revision ID: 0020
Revises: 0019

Issue 31 (G2, G9): every IMAP message handled is claimed by a row keyed by mailbox,
folder, UIDVALIDITY and UID, inserted with ON CONFLICT DO NOTHING in the same transaction
as the mail's effects, so a second instance's claim fails cleanly and it skips the mail.
UIDVALIDITY and UID are unsigned 32-bit numbers: BIGINT holds them on PostgreSQL.
"""
import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inbound_claims",
        sa.Column("mailbox", sa.String(320), primary_key=True),
        sa.Column("folder", sa.String(255), primary_key=True),
        sa.Column("uidvalidity", sa.BigInteger(), primary_key=True),
        sa.Column("uid", sa.BigInteger(), primary_key=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("inbound_claims")
