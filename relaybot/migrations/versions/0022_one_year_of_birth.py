"""One year of birth per member: the books' copy (memberships.born) merged into
members.born

Revision ID: 0022
Revises: 0020

Issue 30: the go salon (0017) and the books (0019) each kept a member's year of birth.
The member's own (members.born, ``member add/set --born``) is the one kept: where it is
empty, the books' value is copied into it; where both are set, the member's stays (it is
the one ``member set --born`` has written since). Then memberships.born is dropped.
Downgrading copies members.born back for the members in the books.
"""
import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(sa.text(
        "UPDATE members SET born = (SELECT ms.born FROM memberships ms"
        " WHERE ms.member_id = members.id)"
        " WHERE born IS NULL AND EXISTS (SELECT 1 FROM memberships ms"
        " WHERE ms.member_id = members.id AND ms.born IS NOT NULL)"))
    # SQLite cannot drop a column in place: batch mode copies the table
    with op.batch_alter_table("memberships") as batch:
        batch.drop_column("born")


def downgrade() -> None:
    with op.batch_alter_table("memberships") as batch:
        batch.add_column(sa.Column("born", sa.Integer(), nullable=True))
    op.execute(sa.text(
        "UPDATE memberships SET born = (SELECT m.born FROM members m"
        " WHERE m.id = memberships.member_id)"))
