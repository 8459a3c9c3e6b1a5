"""A hold is bound to every game its mail names, and asks again only once; unproven
mail's effects counted per day

Revision ID: 0015
Revises: 0014

Issue 22: the one reading of a held mail names its games (address, subject tag, J17
labels); the hold lapses when an authenticated mail about any of them arrives
(holds.games, space-separated ids). A reply to a confirmation request that says neither
"confirm" nor "cancel" is answered once more, and only once (holds.asked_again). What a
mail that proved no sender causes is counted per address and day, and for the whole club
under the address "(unproven)" (reply_counts.unproven, item 6).
"""
import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("holds") as batch:
        batch.add_column(sa.Column("games", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("asked_again", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    with op.batch_alter_table("reply_counts") as batch:
        batch.add_column(sa.Column("unproven", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("reply_counts") as batch:
        batch.drop_column("unproven")
    with op.batch_alter_table("holds") as batch:
        batch.drop_column("asked_again")
        batch.drop_column("games")
