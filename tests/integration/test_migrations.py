"""Alembic: one head, and the game-neutral migration (0006) keeps a chess club's data."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from relaybot.store.db import MIGRATIONS, make_engine


def _alembic() -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def test_migrations_have_exactly_one_head() -> None:
    assert len(ScriptDirectory.from_config(_alembic()).get_heads()) == 1


def test_game_neutral_migration_keeps_games_and_moves(db_url: str) -> None:
    engine = make_engine(db_url)
    cfg = _alembic()
    t0 = datetime(2026, 1, 10, 9, tzinfo=UTC)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005")
        conn.execute(text(
            "INSERT INTO members (id, name, email, lang, tz, notation, letters, rated_games,"
            " provisional, rb_opponents, rb_wins, rb_losses, digest, bounces, created_at)"
            " VALUES (:id, :name, :email, 'en', 'UTC', 'san', 'en', 0, 1, '[]', 0, 0,"
            " 'weekly', 0, :t)"), [
                {"id": 1, "name": "White, W", "email": "w@x", "t": t0},
                {"id": 2, "name": "Black, B", "email": "b@x", "t": t0}])
        conn.execute(text(
            "INSERT INTO games (id, kind, round, white_id, black_id, time_control, conditionals,"
            " start_date, status, plies, ply_count, position, white_rating, black_rating,"
            " grace, leave_allowed, proposals, overrun, created_at, updated_at)"
            " VALUES ('g1', 'chess', '-', 1, 2, '10/30', 'binding', '2026-01-10', 'active',"
            " 'e2e4', 1, 'fen', 1650, 1500, 1, 1, '[]', 'report', :t, :t)"), {"t": t0})
        conn.execute(text(
            "INSERT INTO moves (game_id, ply, uci, san, keys, sent_at, auto)"
            " VALUES ('g1', 0, 'e2e4', 'e4', 'e4', :t, 0)"), {"t": t0})
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        game = conn.execute(text(
            "SELECT side0_id, side1_id, side0_rating, side1_rating FROM games")).one()
        move = conn.execute(text("SELECT canon, text FROM moves")).one()
        columns = {c["name"] for c in inspect(conn).get_columns("games")}
    assert tuple(game) == (1, 2, 1650, 1500)
    assert tuple(move) == ("e2e4", "e4")
    assert not columns & {"white_id", "black_id"}
    engine.dispose()
