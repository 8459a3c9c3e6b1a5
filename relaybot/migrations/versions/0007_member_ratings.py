"""ratings per member and game kind: member_ratings, filled from the members' chess columns

Revision ID: 0007
Revises: 0006

Every member with a rating (or rated games) gets a "chess" row with the same rating,
provisional flag, game count and Rb record; members without one stay unrated (no row),
as before. Then the old columns leave ``members``.

The drop must not rebuild ``members``: an Alembic batch rebuild on SQLite copies the
table and drops the old one, and with foreign keys on (relaybot always turns them on)
that DROP TABLE fails as soon as a game, leave or event seat points at a member.
``PRAGMA foreign_keys=OFF`` is no help here, since SQLite ignores it inside the
transaction the upgrade already runs in. So the batch is told never to rebuild and the
columns go with ALTER TABLE ... DROP COLUMN, which SQLite has since 3.35 (none of them
is indexed, unique or a key, which that statement would refuse). An older SQLite keeps
the columns, unused: they are nullable or have server defaults, so inserts that omit
them still work.
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

OLD = ("rating", "rated_games", "provisional", "rb_opponents", "rb_wins", "rb_losses")


def _can_drop_columns() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return True
    return tuple(bind.dialect.server_version_info or ()) >= (3, 35, 0)


def upgrade() -> None:
    op.create_table(
        "member_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("provisional", sa.Integer(), server_default="1", nullable=False),
        sa.Column("rated_games", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rb_opponents", sa.JSON(), nullable=False),
        sa.Column("rb_wins", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rb_losses", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("member_id", "kind", name="uq_member_rating"),
    )
    # a rating was only ever written together with its games, so a NULL rating with
    # games cannot occur; COALESCE keeps the row valid should one exist anyway (R1: 1200)
    op.execute(
        "INSERT INTO member_ratings (member_id, kind, rating, provisional, rated_games,"
        " rb_opponents, rb_wins, rb_losses)"
        " SELECT id, 'chess', COALESCE(rating, 1200), provisional, rated_games, rb_opponents,"
        " rb_wins, rb_losses FROM members WHERE rating IS NOT NULL OR rated_games > 0")
    if _can_drop_columns():
        with op.batch_alter_table("members", recreate="never") as batch:
            for column in OLD:
                batch.drop_column(column)


def downgrade() -> None:
    if _can_drop_columns():
        with op.batch_alter_table("members", recreate="never") as batch:
            batch.add_column(sa.Column("rating", sa.Integer(), nullable=True))
            batch.add_column(sa.Column("rated_games", sa.Integer(), server_default="0",
                                       nullable=False))
            batch.add_column(sa.Column("provisional", sa.Integer(), server_default="1",
                                       nullable=False))
            batch.add_column(sa.Column("rb_opponents", sa.JSON(), server_default="[]",
                                       nullable=False))
            batch.add_column(sa.Column("rb_wins", sa.Integer(), server_default="0",
                                       nullable=False))
            batch.add_column(sa.Column("rb_losses", sa.Integer(), server_default="0",
                                       nullable=False))
    # only chess had columns before 0007; shogi and go ratings are lost on the way down
    for column in OLD:
        op.execute(
            f"UPDATE members SET {column} = (SELECT r.{column} FROM member_ratings r"
            f" WHERE r.member_id = members.id AND r.kind = 'chess')"
            f" WHERE id IN (SELECT member_id FROM member_ratings WHERE kind = 'chess')")
    op.drop_table("member_ratings")
