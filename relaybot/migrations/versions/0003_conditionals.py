"""conditional proposals (J16) and section labels (J17) on games

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("proposals", sa.JSON(), nullable=False,
                                      server_default="[]"))
        batch_op.add_column(sa.Column("proposals_by", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("label", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("label")
        batch_op.drop_column("proposals_by")
        batch_op.drop_column("proposals")
