"""When relaybot first ran with each secret_previous (its tokens' 30 days start then).

Revision ID: 0025
Revises: 0024
"""
import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "key_rotations",
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("key_rotations")
