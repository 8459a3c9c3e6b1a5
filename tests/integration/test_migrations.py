"""Alembic: one head, the game-neutral migration (0006) keeps a chess club's data, and
ratings per member and game (0007) keep every member's rating."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from relaybot.store.db import (
    MIGRATIONS,
    head_revision,
    make_engine,
    migrate,
    stamped_revisions,
)


def _alembic() -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def test_migrations_have_exactly_one_head() -> None:
    assert len(ScriptDirectory.from_config(_alembic()).get_heads()) == 1


def test_the_head_read_from_the_files_is_alembics() -> None:
    """``migrate`` skips Alembic on a database at this revision (issue 29): it must be the
    head Alembic itself finds."""
    assert head_revision() == ScriptDirectory.from_config(_alembic()).get_current_head()


def test_migrate_upgrades_an_older_database_and_then_leaves_it_be(db_url: str) -> None:
    """A database one revision behind is upgraded by ``migrate`` (the shortcut for an
    up-to-date database must not skip it); a second ``migrate`` changes nothing."""
    engine = make_engine(db_url)
    script = ScriptDirectory.from_config(_alembic())
    head = script.get_current_head()
    assert head is not None
    previous = script.get_revision(head).down_revision
    assert isinstance(previous, str)
    cfg = _alembic()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, previous)
    assert stamped_revisions(engine) == {previous}
    migrate(engine)
    assert stamped_revisions(engine) == {head}
    tables = set(inspect(engine).get_table_names())
    migrate(engine)
    assert stamped_revisions(engine) == {head}
    assert set(inspect(engine).get_table_names()) == tables
    engine.dispose()


def test_migrate_makes_a_new_database(db_url: str) -> None:
    engine = make_engine(db_url)
    assert stamped_revisions(engine) == set()
    migrate(engine)
    assert stamped_revisions(engine) == {head_revision()}
    assert inspect(engine).has_table("games")
    engine.dispose()


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


def test_member_ratings_migration_keeps_every_rating_as_chess(db_url: str) -> None:
    """0006 -> 0007 (R1, R2): each member's rating, provisional flag, games and Rb record
    become a "chess" row of member_ratings, a member without a rating stays unrated (no
    row), the old columns leave members, and this works with SQLite's foreign keys on
    while games, rating changes and leaves point at the members."""
    engine = make_engine(db_url)  # SQLite: PRAGMA foreign_keys=ON, as relaybot runs it
    cfg = _alembic()
    t0 = datetime(2026, 1, 10, 9, tzinfo=UTC)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
        conn.execute(text(
            "INSERT INTO members (id, name, email, lang, tz, rating, notation, letters,"
            " rated_games, provisional, rb_opponents, rb_wins, rb_losses, digest, bounces,"
            " created_at) VALUES (:id, :name, :email, 'en', 'UTC', :rating, 'san', 'en',"
            " :games, :prov, :opps, :wins, :losses, 'weekly', 0, :t)"), [
                {"id": 1, "name": "Hayakawa, S", "email": "h@x", "rating": 1850, "games": 42,
                 "prov": 0, "opps": "[]", "wins": 0, "losses": 0, "t": t0},
                {"id": 2, "name": "Horie, T", "email": "o@x", "rating": 1262, "games": 5,
                 "prov": 1, "opps": "[1850, 1200, 1300, 1250, 1400]", "wins": 3,
                 "losses": 1, "t": t0},
                {"id": 3, "name": "New, N", "email": "n@x", "rating": None, "games": 0,
                 "prov": 1, "opps": "[]", "wins": 0, "losses": 0, "t": t0}])
        conn.execute(text(
            "INSERT INTO games (id, kind, round, side0_id, side1_id, time_control, conditionals,"
            " start_date, status, plies, ply_count, position, side0_rating, side1_rating,"
            " grace, leave_allowed, proposals, overrun, created_at, updated_at)"
            " VALUES ('g1', 'chess', '-', 1, 2, '10/30', 'binding', '2026-01-10', 'finished',"
            " 'e2e4 e7e5', 2, 'fen', 1850, 1262, 1, 1, '[]', 'report', :t, :t)"), {"t": t0})
        conn.execute(text(
            "INSERT INTO rating_changes (game_id, member_id, before, after, at)"
            " VALUES ('g1', 2, 1240, 1262, :t)"), {"t": t0})
        conn.execute(text(
            "INSERT INTO leaves (member_id, first, last, status, extra_days, announced_at)"
            " VALUES (3, '2026-02-01', '2026-02-03', 'active', 0, :t)"), {"t": t0})
    with engine.begin() as conn:  # the upgrade an operator's `relaybot init` runs
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT member_id, kind, rating, provisional, rated_games, rb_opponents, rb_wins,"
            " rb_losses FROM member_ratings ORDER BY member_id")).all()
        columns = {c["name"] for c in inspect(conn).get_columns("members")}
        members = conn.execute(text("SELECT count(*) FROM members")).scalar()
        if db_url.startswith("sqlite"):
            assert conn.execute(text("PRAGMA foreign_key_check")).all() == []
    parsed = [(*row[:5], json.loads(row[5]) if isinstance(row[5], str) else row[5], *row[6:])
              for row in rows]
    assert parsed == [
        (1, "chess", 1850, 0, 42, [], 0, 0),  # official stays official (R2: no Rb for it)
        (2, "chess", 1262, 1, 5, [1850, 1200, 1300, 1250, 1400], 3, 1),  # Rb record kept
    ]
    assert members == 3  # member 3 had no rating: still a member, unrated (no row)
    assert not columns & {"rating", "rated_games", "provisional", "rb_opponents", "rb_wins",
                          "rb_losses"}
    engine.dispose()


def test_member_ratings_migration_downgrades_to_the_chess_columns(db_url: str) -> None:
    """0007 -> 0006 puts the chess rows back into the members' columns (R1, R2)."""
    engine = make_engine(db_url)
    cfg = _alembic()
    t0 = datetime(2026, 1, 10, 9, tzinfo=UTC)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0007")
        conn.execute(text(
            "INSERT INTO members (id, name, email, lang, tz, notation, letters, digest,"
            " bounces, created_at) VALUES (1, 'A, B', 'a@x', 'en', 'UTC', 'san', 'en',"
            " 'weekly', 0, :t), (2, 'C, D', 'c@x', 'en', 'UTC', 'san', 'en', 'weekly', 0,"
            " :t)"), {"t": t0})
        conn.execute(text(
            "INSERT INTO member_ratings (member_id, kind, rating, provisional, rated_games,"
            " rb_opponents, rb_wins, rb_losses) VALUES (1, 'chess', 1700, 0, 30, '[]', 0, 0),"
            " (1, 'shogi', 1400, 1, 2, '[1300, 1350]', 1, 1)"))
        command.downgrade(cfg, "0006")
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT id, rating, provisional, rated_games FROM members ORDER BY id")).all()
        assert not inspect(conn).has_table("member_ratings")
    assert [tuple(r) for r in rows] == [(1, 1700, 0, 30), (2, None, 1, 0)]
    engine.dispose()


def test_member_ratings_schema_matches_the_models(db_url: str) -> None:
    """The tables 0007 touches are exactly what models.py declares (no autogenerate diff)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.db import migrate
    from relaybot.store.models import Base

    engine = make_engine(db_url)
    migrate(engine)
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    touched = [d for d in diffs if "members" in repr(d) or "member_ratings" in repr(d)]
    assert touched == []
    engine.dispose()


def test_r3_bonus_migration_backfills_official_ratings_and_downgrades(db_url: str) -> None:
    """0008 -> 0010 (R3): an official rating from the start gets the bonus for its first
    rated game's rating; one made official by 20 games for the rating after the 20th;
    a provisional one none. The new tables and columns match models.py, and the
    downgrade removes them with foreign keys on (event_players points at events)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.models import Base

    engine = make_engine(db_url)
    cfg = _alembic()
    t0 = datetime(2026, 1, 10, 9, tzinfo=UTC)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0008")
        conn.execute(text(
            "INSERT INTO members (id, name, email, lang, tz, notation, letters, digest,"
            " bounces, created_at) VALUES " + ", ".join(
                f"({i}, 'M, {i}', 'm{i}@x', 'en', 'UTC', 'san', 'en', 'weekly', 0, :t)"
                for i in (1, 2, 3, 4))), {"t": t0})
        conn.execute(text(
            "INSERT INTO member_ratings (member_id, kind, rating, provisional, rated_games,"
            " rb_opponents, rb_wins, rb_losses) VALUES (1, 'chess', 1880, 0, 21, '[]', 0, 0),"
            " (2, 'chess', 1500, 0, 21, '[1200]', 0, 0), (3, 'chess', 1300, 1, 21, '[1200]',"
            " 0, 0)"))
        conn.execute(text(
            "INSERT INTO events (id, name, kind, time_control, conditionals, start_date,"
            " tiebreaks, created_at) VALUES (1, 'E', 'group', '10/30', 'binding',"
            " '2026-01-10', 'sb', :t)"), {"t": t0})
        conn.execute(text("INSERT INTO event_players (event_id, member_id, seat)"
                          " VALUES (1, 1, 1)"))
        for n in range(21):
            conn.execute(text(
                "INSERT INTO games (id, kind, round, side0_id, side1_id, time_control,"
                " conditionals, start_date, status, plies, ply_count, position, grace,"
                " leave_allowed, proposals, overrun, created_at, updated_at) VALUES"
                " (:id, 'chess', '-', 1, 2, '10/30', 'binding', '2026-01-10', 'finished', '',"
                " 2, 'fen', 1, 1, '[]', 'report', :t, :t)"), {"id": f"g{n}", "t": t0})
            conn.execute(text(
                "INSERT INTO rating_changes (game_id, member_id, before, after, at) VALUES"
                " (:g, 1, :b1, :a1, :t), (:g, 2, :b2, :a2, :t)"),
                {"g": f"g{n}", "b1": 1900 - n, "a1": 1899 - n, "b2": 1200 + n,
                 "a2": 1201 + n, "t": datetime(2026, 2, 1 + n, tzinfo=UTC)})
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        bonus = dict(conn.execute(text(
            "SELECT member_id, bonus_rating FROM member_ratings")).all())
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert bonus == {1: 1900, 2: 1220, 3: None}
    touched = [d for d in diffs if any(t in repr(d) for t in (
        "member_titles", "rating_changes", "'events'", "member_ratings"))]
    assert touched == []
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0008")
    with engine.connect() as conn:
        assert not inspect(conn).has_table("member_titles")
        assert "final" not in {c["name"] for c in inspect(conn).get_columns("events")}
        assert conn.execute(text("SELECT count(*) FROM event_players")).scalar() == 1
    engine.dispose()


def test_t3_seasons_migration_matches_the_models_and_downgrades(db_url: str) -> None:
    """0016 (T3, issue 24): the season tables and event_players.start_order are what
    models.py declares, and 0016 downgrades to 0015 cleanly."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.db import migrate
    from relaybot.store.models import Base

    engine = make_engine(db_url)
    migrate(engine)
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    touched = [d for d in diffs if "season" in repr(d) or "event_players" in repr(d)]
    assert touched == []
    cfg = _alembic()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0015")
    assert "seasons" not in inspect(engine).get_table_names()
def test_r4_go_salon_migration_backfills_the_record_from_the_changes(db_url: str) -> None:
    """R4, seed 004 section 2 (0017): go rows get their wins, losses and jigo from the go
    rating changes; a free game the old code counted (a 0-point change, not jigo) leaves
    the count; chess rows are untouched."""
    engine = make_engine(db_url)
    cfg = _alembic()
    t0 = datetime(2026, 1, 10, 9, tzinfo=UTC)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0015")
        conn.execute(text(
            "INSERT INTO members (id, name, email, lang, tz, notation, letters, digest,"
            " bounces, created_at) VALUES (:id, :name, :email, 'ja', 'Asia/Tokyo', 'san',"
            " 'en', 'weekly', 0, :t)"), [
                {"id": 1, "name": "Kuro, K", "email": "k@x", "t": t0},
                {"id": 2, "name": "Shiro, S", "email": "s@x", "t": t0}])
        conn.execute(text(
            "INSERT INTO member_ratings (member_id, kind, rating, provisional, rated_games,"
            " rb_opponents, rb_wins, rb_losses) VALUES (1, 'go', 101, 0, 4, '[]', 0, 0),"
            " (1, 'chess', 1500, 0, 2, '[]', 1, 1)"))
        for n, (result, before, after) in enumerate(
                (("B+R", 100, 101), ("W+3.5", 101, 100), ("jigo", 100, 100),
                 ("B+R", 100, 100), ("B+2.5", 100, 101))):
            conn.execute(text(
                "INSERT INTO games (id, kind, round, side0_id, side1_id, time_control,"
                " conditionals, start_date, status, result, plies, ply_count, position,"
                " grace, leave_allowed, proposals, overrun, created_at, updated_at)"
                " VALUES (:id, 'go', '-', 1, 2, '10/30', 'binding', '2026-01-10',"
                " 'finished', :r, '', 2, '', 1, 1, '[]', 'report', :t, :t)"),
                {"id": f"g{n}", "r": result, "t": t0})
            conn.execute(text(
                "INSERT INTO rating_changes (game_id, member_id, before, after, at)"
                " VALUES (:g, 1, :b, :a, :t)"), {"g": f"g{n}", "b": before, "a": after,
                                                  "t": t0})
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        go = conn.execute(text("SELECT rated_games, rb_wins, rb_losses, draws, rank"
                               " FROM member_ratings WHERE kind = 'go'")).one()
        chess = conn.execute(text("SELECT rated_games, rb_wins, rb_losses, draws"
                                  " FROM member_ratings WHERE kind = 'chess'")).one()
    assert tuple(go) == (4, 2, 1, 1, None)
    assert tuple(chess) == (2, 1, 1, 0)
    engine.dispose()


BOOKS_TABLES = ("memberships", "pawn_entries", "fee_payments", "event_fees", "tutorials",
                "ladder_rungs", "ladder_challenges", "club_awards", "club_settings")


def test_books_migration_matches_the_models_keeps_members_and_downgrades(db_url: str) -> None:
    """0019 (issue 30, seed 000): the books' tables are what models.py declares, an
    existing member stays (outside the books), and 0019 downgrades to 0016 cleanly."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.models import Base

    engine = make_engine(db_url)
    cfg = _alembic()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0016")
        conn.execute(text("INSERT INTO members (name, email, lang, tz, notation, letters, "
                          "digest, bounces, created_at) VALUES ('Hayakawa, Satoru', "
                          "'h@example.jp', 'ja', 'Asia/Tokyo', 'san', 'en', 'weekly', 0, "
                          "'2007-01-01 00:00:00')"))
        conn.execute(text("INSERT INTO events (name, kind, time_control, conditionals, "
                          "start_date, tiebreaks, final, created_at) VALUES ('Prelim 1', "
                          "'group', '10/30', 'binding', '2007-04-01', 'sb', 0, "
                          "'2007-04-01 00:00:00')"))
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert conn.execute(text("SELECT count(*) FROM members")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM memberships")).scalar() == 0
        # a club with events: no prize for the groups played before the books were kept
        assert dict(conn.execute(text("SELECT name, value FROM club_settings")).all()) == {
            "prize_from": date.today().isoformat(), "award_from": date.today().isoformat()}
    touched = [d for d in diffs if any(t in repr(d) for t in BOOKS_TABLES)]
    assert touched == []
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0016")
    assert not set(BOOKS_TABLES) & set(inspect(engine).get_table_names())
    engine.dispose()


def test_books_one_year_of_birth_migration_merges_born_and_downgrades(db_url: str) -> None:
    """0022 (issue 30): ジュニア会員 (18歳の年度末まで) and the go salon (seed 004) read one
    year of birth: the books' copy fills an empty members.born, a member's own stays, the
    column goes; downgrading copies it back."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.models import Base

    engine = make_engine(db_url)
    cfg = _alembic()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0020")
        for n, born in ((1, None), (2, 1990), (3, None)):
            conn.execute(text(
                "INSERT INTO members (id, name, email, lang, tz, notation, letters, digest,"
                " bounces, created_at, born, serves) VALUES (:id, :name, :email, 'ja',"
                " 'Asia/Tokyo', 'san', 'en', 'weekly', 0, '2025-04-01 00:00:00', :born, 0)"),
                {"id": n, "name": f"M, {n}", "email": f"m{n}@example.jp", "born": born})
        conn.execute(text(
            "INSERT INTO memberships (member_id, kind, born) VALUES (1, 'junior', 2010),"
            " (2, 'junior', 1991), (3, 'regular', NULL)"))
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        borns = dict(conn.execute(text("SELECT id, born FROM members")).all())
        columns = {c["name"] for c in inspect(conn).get_columns("memberships")}
        kept = conn.execute(text("SELECT count(*) FROM memberships")).scalar()
    assert borns == {1: 2010, 2: 1990, 3: None}
    assert "born" not in columns and kept == 3
    assert [d for d in diffs if "memberships" in repr(d)] == []
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0020")
    with engine.connect() as conn:
        back = dict(conn.execute(text("SELECT member_id, born FROM memberships")).all())
    assert back == {1: 2010, 2: 1990, 3: None}
    engine.dispose()


def test_member_names_migration_splits_family_and_given_and_downgrades(db_url: str) -> None:
    """0023 (issue 26): "Family, Given" becomes family and given; a name without exactly
    one comma stays whole as the family name; the schema is what models.py declares; the
    downgrade joins the parts back."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.models import Base

    engine = make_engine(db_url)
    cfg = _alembic()
    insert = text("INSERT INTO members (name, email, lang, tz, notation, letters, digest, "
                  "bounces, created_at) VALUES (:name, :email, 'ja', 'Asia/Tokyo', 'san', "
                  "'en', 'weekly', 0, '2007-01-01 00:00:00')")
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0020")
        conn.execute(insert, [{"name": "Hayakawa, Satoru", "email": "h@example.jp"},
                              {"name": "山田, 太郎", "email": "y@example.jp"},
                              {"name": "Ann Smith", "email": "a@example.jp"},
                              {"name": "Odd, Name, Here", "email": "o@example.jp"}])
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT email, family, given, name_ja FROM members "
                                 "ORDER BY email")).all()
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        columns = {c["name"] for c in inspect(conn).get_columns("members")}
    assert [tuple(r) for r in rows] == [
        ("a@example.jp", "Ann Smith", "", ""), ("h@example.jp", "Hayakawa", "Satoru", ""),
        ("o@example.jp", "Odd, Name, Here", "", ""), ("y@example.jp", "山田", "太郎", "")]
    assert "name" not in columns
    assert [d for d in diffs if "members" in repr(d)] == []
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0020")
    with engine.connect() as conn:
        names = dict(conn.execute(text("SELECT email, name FROM members")).all())
    assert names == {"h@example.jp": "Hayakawa, Satoru", "y@example.jp": "山田, 太郎",
                     "a@example.jp": "Ann Smith", "o@example.jp": "Odd, Name, Here"}
    engine.dispose()


def test_imap_uids_migration_takes_unsigned_32_bit_values_and_downgrades(db_url: str) -> None:
    """0024: an IMAP UID or UIDVALIDITY over 2^31 (both are unsigned 32-bit numbers)
    is kept, on PostgreSQL too (a signed INTEGER refused it); the schema is what
    models.py declares; the downgrade narrows the columns again."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from relaybot.store.models import Base

    engine = make_engine(db_url)
    cfg = _alembic()
    top = 4_294_967_295  # the largest UID RFC 3501 allows
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0023")
        conn.execute(text("INSERT INTO imap_state (folder, uidvalidity) VALUES ('INBOX', 7)"))
        command.upgrade(cfg, "head")
        conn.execute(text(
            "INSERT INTO inbound (message_id, folder, uidvalidity, uid, received_at, subject,"
            " outcome, raw, processed_at) VALUES ('<a@x>', 'INBOX', :v, :u,"
            " '2026-11-26 00:00:00', '', 'moved', :raw, '2026-11-26 00:00:00')"),
            {"v": top, "u": top - 1, "raw": b"mail"})
        conn.execute(text("INSERT INTO inbound_failures (folder, uidvalidity, uid, attempts,"
                          " last_error, quarantined) VALUES ('INBOX', :v, :u, 1, '', 0)"),
                     {"v": top, "u": top})
        conn.execute(text("UPDATE imap_state SET uidvalidity = :v"), {"v": top})
    with engine.connect() as conn:
        kept = conn.execute(text("SELECT uidvalidity, uid FROM inbound")).one()
        failed = conn.execute(text("SELECT uidvalidity, uid FROM inbound_failures")).one()
        state = conn.execute(text("SELECT uidvalidity FROM imap_state")).scalar_one()
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert tuple(kept) == (top, top - 1) and tuple(failed) == (top, top) and state == top
    tables = ("'inbound'", "'inbound_failures'", "'imap_state'")
    assert [d for d in diffs if any(t in repr(d) for t in tables)] == []
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM inbound"))
        conn.execute(text("DELETE FROM inbound_failures"))
        conn.execute(text("UPDATE imap_state SET uidvalidity = 7"))
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0023")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT uidvalidity FROM imap_state")).scalar_one() == 7
    engine.dispose()
