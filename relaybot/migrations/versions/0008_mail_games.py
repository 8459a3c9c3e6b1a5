"""mail_games: a mail linked to every game it is about (J19 export)

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_games",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=40), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("inbound_id", sa.Integer(), sa.ForeignKey("inbound.id"), nullable=True),
        sa.Column("outbox_id", sa.Integer(), sa.ForeignKey("outbox.id"), nullable=True),
    )
    op.create_index("ix_mail_games_game_id", "mail_games", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_mail_games_game_id", table_name="mail_games")
    op.drop_table("mail_games")
