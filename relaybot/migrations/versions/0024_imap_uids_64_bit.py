"""IMAP UIDs and UIDVALIDITY in 64-bit columns

Revision ID: 0024
Revises: 0023

An IMAP UID and a UIDVALIDITY are unsigned 32-bit numbers (RFC 3501 2.3.1.1): up to
4,294,967,295, over a signed 32-bit INTEGER's 2,147,483,647. SQLite's integers were always
64-bit, but on PostgreSQL a mailbox whose UIDVALIDITY is a timestamp past 2038 or whose
UIDs grew past 2^31 could not have been stored. inbound, inbound_failures and imap_state
now use BIGINT, as inbound_claims did from 0020. The downgrade narrows them again (it
fails on PostgreSQL if a value no longer fits, which is the point of the upgrade).
"""
import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_COLUMNS = (("inbound", ("uidvalidity", "uid")),
            ("inbound_failures", ("uidvalidity", "uid")),
            ("imap_state", ("uidvalidity",)))


def _retype(old: sa.types.TypeEngine, new: sa.types.TypeEngine) -> None:
    for table, columns in _COLUMNS:
        # batch mode: SQLite rebuilds the table (its ALTER cannot change a type); on
        # PostgreSQL it is a plain ALTER COLUMN ... TYPE
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(column, existing_type=old, type_=new,
                                   existing_nullable=False)


def upgrade() -> None:
    _retype(sa.Integer(), sa.BigInteger())


def downgrade() -> None:
    _retype(sa.BigInteger(), sa.Integer())
