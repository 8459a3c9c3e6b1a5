"""The club's books: memberships, the pawn deposit, fees, tutorials, the ladder, prizes
and awards, the club's settings

Revision ID: 0019
Revises: 0017

Issue 30 (seed 000): new tables only; existing members stay outside the books until a
membership kind is set for them. A club that already has events starts its prizes and
its most-games award on the day of the upgrade (club settings prize_from, award_from), so
that no prize is credited for groups finished before the books were kept.
"""
from datetime import date

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memberships",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False,
                  unique=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("family_of_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=True),
        sa.Column("born", sa.Integer(), nullable=True),
        sa.Column("paid_until", sa.Date(), nullable=True),
        sa.Column("lapsed_told", sa.Date(), nullable=True),
        sa.Column("left_on", sa.Date(), nullable=True),
    )
    op.create_table(
        "pawn_entries",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pawns", sa.Integer(), nullable=False),
        sa.Column("yen", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("ref", sa.String(120), nullable=True),
        sa.UniqueConstraint("member_id", "ref", name="uq_pawn_ref"),
    )
    op.create_index("ix_pawn_entries_member_id", "pawn_entries", ["member_id"])
    op.create_table(
        "fee_payments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("what", sa.String(12), nullable=False),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=True),
        sa.Column("yen", sa.Integer(), nullable=False),
        sa.Column("pawns", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_fee_payments_member_id", "fee_payments", ["member_id"])
    op.create_table(
        "event_fees",
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("yen", sa.Integer(), nullable=False),
    )
    op.create_table(
        "tutorials",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("tutor_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("student_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
    )
    op.create_index("ix_tutorials_student_id", "tutorials", ["student_id"])
    op.create_table(
        "ladder_rungs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.UniqueConstraint("kind", "member_id", name="uq_ladder_rung"),
    )
    op.create_table(
        "ladder_challenges",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("challenger_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("defender_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "club_awards",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("what", sa.String(8), nullable=False),
        sa.Column("ref", sa.String(200), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("pawns", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("what", "ref", "member_id", name="uq_club_award"),
    )
    op.create_index("ix_club_awards_at", "club_awards", ["at"])
    settings = op.create_table(
        "club_settings",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(80), nullable=False),
    )
    if op.get_bind().execute(sa.text("SELECT count(*) FROM events")).scalar():
        today = date.today().isoformat()
        op.bulk_insert(settings, [{"name": "prize_from", "value": today},
                                  {"name": "award_from", "value": today}])


def downgrade() -> None:
    op.drop_table("club_settings")
    op.drop_index("ix_club_awards_at", "club_awards")
    op.drop_table("club_awards")
    op.drop_table("ladder_challenges")
    op.drop_table("ladder_rungs")
    op.drop_index("ix_tutorials_student_id", "tutorials")
    op.drop_table("tutorials")
    op.drop_table("event_fees")
    op.drop_index("ix_fee_payments_member_id", "fee_payments")
    op.drop_table("fee_payments")
    op.drop_index("ix_pawn_entries_member_id", "pawn_entries")
    op.drop_table("pawn_entries")
    op.drop_table("memberships")
