"""grade bonus once, titles, finals, rating snapshots (issue 13 items 4, 7, 10)

Revision ID: 0010
Revises: 0009

* ``member_ratings.bonus_rating``: the rating the R3 introduction bonus was given for,
  once: at the introduction with an official rating, or when the rating became official
  (seed 000: 導入時および本レイティング認定時のレイティングに応じ一度だけ与える). NULL: not yet.
* ``member_titles``: seed 000's title points (日本チャンピオン 2000 each time; ICCF IM,
  SIM, GM 4000 each); ``event`` names the final a Japan champion title was won in.
* ``events.final``: a JCCA final (T1), so "50% or more in the last final" can be read.
* ``rating_changes.state_before`` / ``state_after``: each side's whole rating state
  around a rated game, so a TD's ``result`` correction can replay the games after it
  (R2: Rb and the provisional period depend on the order of the games).

Existing official ratings get their bonus rating back-filled the way the old code read
it: an official rating from the start (no provisional games recorded) from its first
rated game's rating, else the current one; one that became official by 20 games from the
rating after its 20th game.
"""
import json

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("member_ratings", sa.Column("bonus_rating", sa.Integer(), nullable=True))
    op.add_column("events", sa.Column("final", sa.Integer(), server_default="0",
                                      nullable=False))
    op.add_column("rating_changes", sa.Column("state_before", sa.JSON(), nullable=True))
    op.add_column("rating_changes", sa.Column("state_after", sa.JSON(), nullable=True))
    op.create_table(
        "member_titles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=32), nullable=False),
        sa.Column("event", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_member_titles_member_id", "member_titles", ["member_id"])
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, member_id, kind, rating, rb_opponents FROM member_ratings"
        " WHERE provisional = 0")).all()
    for row_id, member_id, kind, rating, opponents in rows:
        if isinstance(opponents, str):
            opponents = json.loads(opponents)
        afters = [a for a, in bind.execute(sa.text(
            "SELECT rc.after FROM rating_changes rc JOIN games g ON g.id = rc.game_id"
            " WHERE rc.member_id = :m AND g.kind = :k ORDER BY rc.at, rc.id"),
            {"m": member_id, "k": kind})]
        if opponents:  # it was provisional: official from its 20th game
            bonus = afters[19] if len(afters) >= 20 else rating
        else:
            first = bind.execute(sa.text(
                "SELECT rc.before FROM rating_changes rc JOIN games g ON g.id = rc.game_id"
                " WHERE rc.member_id = :m AND g.kind = :k ORDER BY rc.at, rc.id LIMIT 1"),
                {"m": member_id, "k": kind}).scalar()
            bonus = first if first is not None else rating
        bind.execute(sa.text("UPDATE member_ratings SET bonus_rating = :b WHERE id = :i"),
                     {"b": bonus, "i": row_id})


def downgrade() -> None:
    op.drop_index("ix_member_titles_member_id", table_name="member_titles")
    op.drop_table("member_titles")
    # never a rebuild (see 0007): event_players points at events, and SQLite refuses to
    # drop a table others point at while foreign keys are on
    with op.batch_alter_table("rating_changes", recreate="never") as batch:
        batch.drop_column("state_after")
        batch.drop_column("state_before")
    with op.batch_alter_table("events", recreate="never") as batch:
        batch.drop_column("final")
    with op.batch_alter_table("member_ratings", recreate="never") as batch:
        batch.drop_column("bonus_rating")
