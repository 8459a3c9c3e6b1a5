"""The shogi net league's seasons: seasons, their classes and players; a class's
starting order

Revision ID: 0016
Revises: 0015

Issue 24 (T3, seed 002 rules 1-8, 12, 18-20): a season has classes, each an event of
kind league with its secretary; every member of a season has a state (playing, a
mid-season rest, withdrawn, or resting all season) and a starting order that
first-timers share (event_players.start_order).
"""
import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("event_players") as batch:
        batch.add_column(sa.Column("start_order", sa.Integer(), nullable=True))
    op.create_table(
        "seasons",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=False),
        sa.Column("td", sa.String(320), nullable=True),
        sa.Column("previous_id", sa.Integer(), sa.ForeignKey("seasons.id"), nullable=True),
        sa.Column("rounding", sa.String(8), nullable=False, server_default="round"),
        sa.Column("first_timers", sa.JSON(), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reported_to", sa.Date(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "season_classes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("season_id", sa.Integer(), sa.ForeignKey("seasons.id"), nullable=False),
        sa.Column("letter", sa.String(4), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False),
        sa.Column("secretary", sa.String(320), nullable=True),
        sa.UniqueConstraint("season_id", "letter", name="uq_season_class"),
    )
    op.create_index("ix_season_classes_season_id", "season_classes", ["season_id"])
    op.create_table(
        "season_players",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("season_id", sa.Integer(), sa.ForeignKey("seasons.id"), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("letter", sa.String(4), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("band", sa.String(16), nullable=False),
        sa.Column("start_order", sa.Integer(), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("season_id", "member_id", name="uq_season_player"),
    )
    op.create_index("ix_season_players_season_id", "season_players", ["season_id"])
    op.create_index("ix_season_players_member_id", "season_players", ["member_id"])


def downgrade() -> None:
    op.drop_index("ix_season_players_member_id", table_name="season_players")
    op.drop_index("ix_season_players_season_id", table_name="season_players")
    op.drop_table("season_players")
    op.drop_index("ix_season_classes_season_id", table_name="season_classes")
    op.drop_table("season_classes")
    op.drop_table("seasons")
    with op.batch_alter_table("event_players") as batch:
        batch.drop_column("start_order")
