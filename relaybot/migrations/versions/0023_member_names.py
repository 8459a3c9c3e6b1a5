"""Members' names in parts: family, given and the name in Japanese script

Revision ID: 0023
Revises: 0022

Issue 26 item 2: each language writes a name its own way (core.names), so the one
"Family, Given" text is split: "Hayakawa, Satoru" is family "Hayakawa", given "Satoru";
a name without exactly one comma ("Ann Smith", "Odd, Name, Here") is kept whole as the
family name, shown as it was written. ``name_ja`` starts empty (``member set --name-ja``).
The downgrade joins the parts back into "Family, Given" (the Japanese-script name is lost).
"""
import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def _split(text: str) -> tuple[str, str]:
    # the rule of relaybot.core.names.split_name, frozen here: a migration does not follow
    # later changes to the code
    family, comma, given = text.partition(",")
    if not comma or "," in given or not family.strip() or not given.strip():
        return " ".join(text.split()), ""
    return " ".join(family.split()), " ".join(given.split())


def upgrade() -> None:
    # columns added and dropped in place (SQLite 3.35+, PostgreSQL): a batch rebuild of
    # ``members`` would trip the foreign keys of every table that points at it
    op.add_column("members", sa.Column("family", sa.String(200), nullable=False,
                                       server_default=""))
    op.add_column("members", sa.Column("given", sa.String(200), nullable=False,
                                       server_default=""))
    op.add_column("members", sa.Column("name_ja", sa.String(200), nullable=False,
                                       server_default=""))
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, name FROM members")).all()
    update = sa.text("UPDATE members SET family = :family, given = :given WHERE id = :id")
    for member_id, name in rows:
        family, given = _split(name or "")
        conn.execute(update, {"id": member_id, "family": family, "given": given})
    op.drop_column("members", "name")


def downgrade() -> None:
    op.add_column("members", sa.Column("name", sa.String(200), nullable=False,
                                       server_default=""))
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, family, given FROM members")).all()
    update = sa.text("UPDATE members SET name = :name WHERE id = :id")
    for member_id, family, given in rows:
        conn.execute(update, {"id": member_id,
                              "name": f"{family}, {given}" if given else family})
    op.drop_column("members", "name_ja")
    op.drop_column("members", "given")
    op.drop_column("members", "family")
