"""The go salon keeps its points and ranks (seed 004)

Revision ID: 0017
Revises: 0016

Go points are provisional until the chair sets official ones (section 3), and a rank
moves only through the win-rate gates (section 2): member_ratings.rank keeps the rank
reached (NULL: the rank the points give), member_ratings.draws the jigo among the
counted games, member_ratings.told_td whether the TD was told that a provisional member
reached 10 counted games. The salon league's secretaries (section 6) skip members of
70 or more unless they serve: members.born (a year) and members.serves.

Go rows recorded no wins or losses before (their points counted alone): they are
backfilled from the go rating changes (+1 a win, -1 a loss, 0 with a jigo result), and
the count drops the free games the old code counted as 0-point games.

Both tables are pointed at by foreign keys, so the batches never rebuild them (see
0007): ADD COLUMN, and DROP COLUMN where SQLite has it (3.35); an older SQLite keeps the
columns on a downgrade, unused (nullable or with server defaults).
"""
import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def _can_drop_columns() -> bool:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return True
    return tuple(bind.dialect.server_version_info or ()) >= (3, 35, 0)


def upgrade() -> None:
    with op.batch_alter_table("member_ratings", recreate="never") as batch:
        batch.add_column(sa.Column("rank", sa.String(8), nullable=True))
        batch.add_column(sa.Column("draws", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("told_td", sa.Integer(), nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("members", recreate="never") as batch:
        batch.add_column(sa.Column("born", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("serves", sa.Integer(), nullable=False,
                                   server_default="0"))
    changes = ("SELECT COUNT(*) FROM rating_changes rc JOIN games g ON g.id = rc.game_id"
               " WHERE rc.member_id = member_ratings.member_id AND g.kind = 'go' AND ")
    op.execute(
        "UPDATE member_ratings SET"
        f" rb_wins = ({changes}rc.after > rc.before),"
        f" rb_losses = ({changes}rc.after < rc.before),"
        f" draws = ({changes}rc.after = rc.before AND g.result = 'jigo')"
        " WHERE kind = 'go'")
    op.execute("UPDATE member_ratings SET rated_games = rb_wins + rb_losses + draws"
               " WHERE kind = 'go'")


def downgrade() -> None:
    if not _can_drop_columns():
        return
    with op.batch_alter_table("members", recreate="never") as batch:
        batch.drop_column("serves")
        batch.drop_column("born")
    with op.batch_alter_table("member_ratings", recreate="never") as batch:
        batch.drop_column("told_td")
        batch.drop_column("draws")
        batch.drop_column("rank")
