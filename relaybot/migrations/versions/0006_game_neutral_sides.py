"""game-neutral schema: sides 0/1 instead of white/black, a move's canonical form and text

Revision ID: 0006
Revises: 0005

Data is kept. Columns are renamed in place with ALTER TABLE ... RENAME COLUMN (SQLite
3.25+ and PostgreSQL): a batch rebuild of ``games`` would trip the foreign keys of the
rows that point at it. SQLite does not enforce VARCHAR lengths, so only PostgreSQL
needs the wider types.
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

RENAMES = (("games", "white_id", "side0_id"), ("games", "black_id", "side1_id"),
           ("games", "white_rating", "side0_rating"), ("games", "black_rating", "side1_rating"),
           ("moves", "uci", "canon"), ("moves", "san", "text"))
WIDER = (("games", "result", 8, 16), ("moves", "canon", 16, 32), ("moves", "text", 16, 64))


def _rename(pairs: tuple[tuple[str, str, str], ...]) -> None:
    for table, old, new in pairs:
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")


def upgrade() -> None:
    _rename(RENAMES)
    if op.get_bind().dialect.name != "sqlite":
        for table, column, old_len, new_len in WIDER:
            op.alter_column(table, column, type_=sa.String(length=new_len),
                            existing_type=sa.String(length=old_len))


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        for table, column, old_len, new_len in WIDER:
            op.alter_column(table, column, type_=sa.String(length=old_len),
                            existing_type=sa.String(length=new_len))
    _rename(tuple((table, new, old) for table, old, new in RENAMES))
