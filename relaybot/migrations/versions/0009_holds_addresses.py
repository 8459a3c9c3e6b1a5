"""holds (mail waiting for its sender's confirmation) and members' other addresses

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "member_addresses",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_member_addresses_member_id", "member_addresses", ["member_id"])
    op.create_table(
        "holds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("inbound_id", sa.Integer(), sa.ForeignKey("inbound.id"), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=True),
        sa.Column("td", sa.String(length=320), nullable=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("game_id", sa.String(length=40), nullable=True),
        sa.Column("token", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_holds_member_id", "holds", ["member_id"])
    op.create_index("ix_holds_token", "holds", ["token"])
    op.create_index("ix_holds_status", "holds", ["status"])


def downgrade() -> None:
    op.drop_table("holds")
    op.drop_index("ix_member_addresses_member_id", table_name="member_addresses")
    op.drop_table("member_addresses")
