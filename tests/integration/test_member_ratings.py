"""Ratings per member and game kind (R1, R2, R3, R4; D1), on SQLite and PostgreSQL, and
the ``member add/set/import/show`` rating options from the command line."""

from __future__ import annotations

import email
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.club.errors import AdminError
from relaybot.club.grade_book import grade_of, titles_of
from relaybot.club.members import (
    MemberInput,
    add_member,
    find_member,
    import_members,
    update_member,
)
from relaybot.club.new_games import GameInput, create_game
from relaybot.club.rating_book import display, rate_game, rating_row, ratings_json, ratings_of
from relaybot.config import Config
from relaybot.games import rules_for
from relaybot.store.db import Store
from relaybot.store.models import Game, Member, Outbox, RatingChange
from tests.integration.test_cli import one_line_error, relaybot
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def member(s: object, cfg: Config, address: str, **kw: object) -> Member:
    name = address.split("@")[0].title() + ", X"
    return add_member(s, cfg, MemberInput(name, address, **kw), T0)  # type: ignore[arg-type]


def finish(s: object, game: Game, result: str) -> bool:
    """End a game with play (two plies) and rate it, as end_game does."""
    game.status, game.result, game.ply_count = "finished", result, 2
    return rate_game(s, game, T0)  # type: ignore[arg-type]


def other_game(s: object, cfg: Config, white: str, black: str, kind: str,
               monkeypatch: pytest.MonkeyPatch) -> Game:
    """A game of a kind whose rules are not in relaybot.games yet: created through
    create_game (so its start ratings are read as for any game) on chess's board."""
    monkeypatch.setattr("relaybot.club.new_games.rules_for", lambda _kind: rules_for("chess"))
    game = create_game(s, cfg, GameInput(white, black, kind=kind), T0)  # type: ignore[arg-type]
    monkeypatch.undo()
    return game


def test_r1_r2_official_rating_is_never_replaced_by_rb(store: Store, db_url: str) -> None:
    """R1/R2: a rating given without --provisional (an existing JCCA member's) is official:
    after 12 games it moves by the quick table only. A provisional one becomes Rb."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        member(s, cfg, "official@example.jp", rating=1850)
        member(s, cfg, "provisional@example.jp", rating=1850, provisional=True)
        for n in range(12):
            member(s, cfg, f"o{n}@example.jp")  # unrated: 1200 provisional (R1)
        for who in ("official", "provisional"):
            for n in range(12):
                game = create_game(s, cfg, GameInput(f"{who}@example.jp", f"o{n}@example.jp"),
                                   T0)
                assert finish(s, game, "1-0")
        official = rating_row(s, find_member(s, "official@example.jp").id, "chess")
        prov = rating_row(s, find_member(s, "provisional@example.jp").id, "chess")
        assert official is not None and prov is not None
        # 650-661 points above every opponent: +1 a win (row 560-679), never Rb
        assert (official.rating, official.provisional, official.rated_games) == (1862, 0, 12)
        assert display(official) == "1862"
        # R2: Rb = mean(12 x 1200) + 360 * (12 - 0) / 12 = 1560, still provisional
        assert (prov.rating, prov.provisional) == (1560, 1)
        assert display(prov) == "(1560)"


def test_r1_a_game_resigned_after_1_e4_is_rated_one_without_play_is_not(
        store: Store, db_url: str) -> None:
    """R1: a game that ended before move 2 (resignation after 1. e4) had play and is
    rated; a forfeit with no move at all is not."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        member(s, cfg, "w@example.jp", rating=1500)
        member(s, cfg, "b@example.jp", rating=1500)
        short = create_game(s, cfg, GameInput("w@example.jp", "b@example.jp"), T0)
        short.status, short.result, short.ply_count = "finished", "1-0", 1
        short.termination = "resignation"
        assert rate_game(s, short, T0)
        empty = create_game(s, cfg, GameInput("w@example.jp", "b@example.jp"), T0)
        empty.status, empty.result, empty.ply_count = "finished", "1-0", 0
        empty.termination = "forfeit"
        assert not rate_game(s, empty, T0)


def test_r1_a_shogi_game_leaves_the_chess_rating_alone(
        store: Store, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """R1 per game kind: a shogi result changes the shogi rows only; the chess rating,
    chess grade (R3) and chess start ratings are untouched, and the reverse."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        a = member(s, cfg, "a@example.jp", rating=1850)  # chess, official
        update_member(s, cfg, a, MemberInput("", a.email, rating=1400, provisional=True,
                                             game="shogi"))
        b = member(s, cfg, "b@example.jp", rating=1500, game="shogi")  # shogi only
        grade_before = grade_of(s, a)
        shogi = other_game(s, cfg, a.email, b.email, "shogi", monkeypatch)
        assert (shogi.side0_rating, shogi.side1_rating) == (1400, 1500)  # the shogi rows
        assert finish(s, shogi, "1-0")
        rows_a, rows_b = ratings_of(s, a.id), ratings_of(s, b.id)
        assert rows_a["chess"].rating == 1850 and rows_a["chess"].rated_games == 0
        # quick table, difference 100: the lower-rated winner +39, the higher loser -38
        assert rows_a["shogi"].rating == 1400 + 39 and rows_a["shogi"].rated_games == 1
        assert rows_b["shogi"].rating == 1500 - 38 and "chess" not in rows_b
        assert grade_of(s, a) == grade_before  # JCCA grades count chess only (R3)

        chess = create_game(s, cfg, GameInput(b.email, a.email), T0)
        assert (chess.side0_rating, chess.side1_rating) == (None, 1850)  # b unrated in chess
        assert finish(s, chess, "1-0")
        rows_a, rows_b = ratings_of(s, a.id), ratings_of(s, b.id)
        assert rows_a["shogi"].rating == 1439 and rows_b["shogi"].rating == 1462
        # difference 650: b (unrated, 1200) +60, a -59
        assert (rows_b["chess"].rating, rows_b["chess"].provisional) == (1260, 1)
        assert (rows_a["chess"].rating, rows_a["chess"].provisional) == (1791, 0)
        changes = s.scalars(select(RatingChange).where(RatingChange.member_id == a.id)
                            .order_by(RatingChange.id)).all()
        assert [(c.game_id, c.before) for c in changes] == [(shogi.id, 1400), (chess.id, 1850)]


def test_r1_shogi_league_does_not_rate_draws(
        store: Store, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """R1 (seed 002, 11): the shogi league does not rate draws, both-lose, or a game lost
    by a withdrawal (不戦敗, even with play); JCCA chess rates draws."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        member(s, cfg, "a@example.jp", rating=1600, game="shogi")
        member(s, cfg, "b@example.jp", rating=1500, game="shogi")
        for result in ("1/2-1/2", "draw", "both-lose"):
            game = other_game(s, cfg, "a@example.jp", "b@example.jp", "shogi", monkeypatch)
            assert not finish(s, game, result)
        game = other_game(s, cfg, "a@example.jp", "b@example.jp", "shogi", monkeypatch)
        game.termination = "withdrawal_lost"  # seed 002, 8: 対戦開始後の棄権は、不戦敗
        assert not finish(s, game, "gote")  # 11: 不戦勝・不戦敗…は除く, even after play
        game = other_game(s, cfg, "a@example.jp", "b@example.jp", "shogi", monkeypatch)
        assert finish(s, game, "gote")  # 後手 (side 1) wins
        row = rating_row(s, find_member(s, "b@example.jp").id, "shogi")
        assert row is not None and row.rating == 1500 + 39  # difference 100, lower wins
        chess = create_game(s, cfg, GameInput("a@example.jp", "b@example.jp"), T0)
        assert finish(s, chess, "1/2-1/2")  # JCCA rates draws (both unrated in chess)


def go_game(s: object, cfg: Config, black: str, white: str,
            *options: tuple[str, str]) -> Game:
    """A go game of ``black`` (side 0) against ``white`` with ``game new``'s options."""
    return create_game(s, cfg, GameInput(white=white, black=black,  # type: ignore[arg-type]
                                         kind="go", options=options), T0)


def test_r4_go_points_from_a_rank_and_results(store: Store, db_url: str) -> None:
    """R4: --rank sets go points from the salon's table (4k: the middle of 81-90, as seed
    004's example 4 counts); winner +1, loser -1, jigo 0 but counted; other kinds untouched."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        black = member(s, cfg, "kuro@example.jp", rank="4k")  # --game go implied
        white = member(s, cfg, "shiro@example.jp", rating=125, game="go")
        # seed 004 section 3: the office's starting figure is provisional
        assert display(rating_row(s, black.id, "go"), "go") == "(85) 4k"
        game = go_game(s, cfg, black.email, white.email)
        assert (game.side0_rating, game.side1_rating) == (85, 125)
        assert finish(s, game, "B+R")
        assert not finish(s, go_game(s, cfg, black.email, white.email), "void")  # not counted
        assert finish(s, go_game(s, cfg, black.email, white.email), "jigo")
        b, w = rating_row(s, black.id, "go"), rating_row(s, white.id, "go")
        assert b is not None and w is not None
        assert (b.rating, b.rated_games, b.provisional) == (86, 2, 1)
        assert (w.rating, w.rated_games) == (124, 2)
        assert set(ratings_of(s, black.id)) == {"go"}


@pytest.mark.parametrize("options", [(("size", "9"),), (("size", "13"),),
                                     (("handicap", "7"),), (("handicap", "9"),),
                                     (("free", "yes"),)])
def test_r4_a_free_game_leaves_the_points_as_they_were(
        store: Store, db_url: str, options: tuple[tuple[str, str], ...]) -> None:
    """Seed 004 section 1: a game on a 9x9 or 13x13 board, one of 7 stones or more, or
    one the players asked to keep out of the record (``--free``) is a free game: the
    points stay, the game still counts as played. A 19x19 6-stone game moves them."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        black = member(s, cfg, "kuro@example.jp", rank="5k")
        white = member(s, cfg, "shiro@example.jp", rank="3d")
        # a game played, not in the count (seed 004 section 2): nothing rated
        assert not finish(s, go_game(s, cfg, black.email, white.email, *options), "B+R")
        assert ratings_json(s, black)["go"]["games"] == 1
        b, w = rating_row(s, black.id, "go"), rating_row(s, white.id, "go")
        assert b is not None and w is not None
        assert (b.rating, b.rated_games) == (75, 0) and (w.rating, w.rated_games) == (145, 0)
        assert finish(s, go_game(s, cfg, black.email, white.email, ("handicap", "6")), "B+R")
        assert (b.rating, w.rating) == (76, 144)


def test_r4_a_win_by_default_leaves_the_points(store: Store, db_url: str) -> None:
    """Seed 004 5)(5): wins and losses by default (不戦勝・不戦敗) count in the league's
    order but not in the points; the same result played out moves them."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        black = member(s, cfg, "kuro@example.jp", rank="5k")
        white = member(s, cfg, "shiro@example.jp", rank="5k")
        forfeited = go_game(s, cfg, black.email, white.email)
        forfeited.termination = "forfeit"
        assert not finish(s, forfeited, "B+F")
        b = rating_row(s, black.id, "go")
        assert b is not None and (b.rating, b.rated_games) == (75, 0)
        assert finish(s, go_game(s, cfg, black.email, white.email), "B+R")
        assert (b.rating, b.rated_games) == (76, 1)


def test_r4_member_list_json_gives_go_as_member_show_does(store: Store, db_url: str) -> None:
    """INTERFACE "Output for scripts": ``member list --json`` has the ratings as ``member
    show --json`` has them; for go the rank the member holds (seed 004 section 2: it
    moves only with the win rate, so it can differ from the table's rank for the points),
    as a code (``9k``, never a Japanese label), and ``counted`` from the salon's count (a
    win by default leaves it, seed 004 5)(5))."""
    from relaybot.cli.documents import member_document, member_list_document

    cfg = cfg_for(db_url)
    with store.session() as s:
        black = member(s, cfg, "kuro@example.jp", rank="1k")
        white = member(s, cfg, "shiro@example.jp", rank="9k")
        forfeited = go_game(s, cfg, black.email, white.email)
        forfeited.termination = "forfeit"
        assert not finish(s, forfeited, "B+F")
        assert finish(s, go_game(s, cfg, black.email, white.email), "W+R")
        row = rating_row(s, black.id, "go")
        assert row is not None
        row.rating = 125  # the table says 1d; the rank held stays 1k until the rate says
        row.rank = "1k"
        s.flush()
        listed = {m["email"]: m["ratings"]["go"] for m in member_list_document(
            s, [black, white])}
        for who in (black, white):
            shown = member_document(s, who)["ratings"]["go"]
            keys = ("rating", "official", "games", "wins", "losses", "draws", "rank",
                    "counted")
            assert {k: listed[who.email][k] for k in keys} == {k: shown[k] for k in keys}
        assert listed[black.email]["rank"] == "1k"
        assert listed[white.email]["rank"] == "9k"
        assert listed[black.email]["counted"] == 1


def test_import_reads_game_and_provisional_columns(
        store: Store, db_url: str, tmp_path: Path) -> None:
    """CSV import: ``game`` (default chess), ``provisional`` (default official, R1), a
    parenthesised rating, which is provisional as R2 prints it, and ``titles`` (R3); go
    points are provisional as ``member add`` makes them (R4, seed 004 section 3)."""
    cfg = cfg_for(db_url)
    csv = tmp_path / "m.csv"
    csv.write_text(
        "name,email,lang,tz,rating,notation,game,provisional,rank,titles\n"
        "\"A, A\",a@example.jp,ja,,1850,,,,,IM; japan_champion\n"
        "\"B, B\",b@example.jp,ja,,1320,,chess,yes,,\n"
        "\"C, C\",c@example.jp,en,,(1450),,shogi,,,\n"
        "\"D, D\",d@example.jp,en,,,,go,,2d,\n"
        "\"E, E\",e@example.jp,en,,,,chess,,,\n"
        "\"F, F\",f@example.jp,en,,120,,go,,,\n", encoding="utf-8")
    with store.session() as s:
        assert len(import_members(s, cfg, csv, T0)) == 6
        assert titles_of(s, find_member(s, "a@example.jp").id) == ["IM", "japan_champion"]
        got = {m.email: {k: (r.rating, r.provisional) for k, r in ratings_of(s, m.id).items()}
               for m in s.scalars(select(Member))}
    assert got == {"a@example.jp": {"chess": (1850, 0)}, "b@example.jp": {"chess": (1320, 1)},
                   "c@example.jp": {"shogi": (1450, 1)}, "d@example.jp": {"go": (135, 1)},
                   "e@example.jp": {},
                   # seed 004 section 3: a new member's declared points are provisional
                   # until the chair sets official ones, as member add has them
                   "f@example.jp": {"go": (120, 1)}}


@pytest.mark.parametrize(
    ("row", "needle"),
    [("1850,,chess,maybe,", "m.csv:2: provisional"),
     ("1850,,checkers,,", "m.csv:2: --game"),
     ("(abc),,,,", "m.csv:2: rating"),
     ("1850,,chess,,4k", "m.csv:2: --rank")],
)
def test_import_rating_mistakes_name_the_line(store: Store, db_url: str, tmp_path: Path,
                                              row: str, needle: str) -> None:
    csv = tmp_path / "m.csv"
    csv.write_text("name,email,lang,tz,rating,notation,game,provisional,rank\n"
                   f"\"A, A\",a@example.jp,ja,,{row}\n", encoding="utf-8")
    with store.session() as s, pytest.raises(AdminError, match=needle):
        import_members(s, cfg_for(db_url), csv, T0)


def test_d1_digest_shows_each_kinds_rating_change(
        store: Store, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """D1: the weekly digest lists the week's rating changes per game kind."""
    from relaybot.app.digest import send_digests

    cfg = cfg_for(db_url)
    with store.session() as s:
        a = member(s, cfg, "a@example.jp", rating=1600, lang="en")
        b = member(s, cfg, "b@example.jp", rating=1600, lang="en")
        for who in (a, b):
            update_member(s, cfg, who, MemberInput("", who.email, rating=1500, game="shogi"))
        finish(s, create_game(s, cfg, GameInput("a@example.jp", "b@example.jp"), T0), "1-0")
        finish(s, other_game(s, cfg, "b@example.jp", "a@example.jp", "shogi", monkeypatch),
               "0-1")
        b.digest = "off"
    assert send_digests(store, cfg, T0) == 1
    with store.session() as s:
        raw = s.scalar(select(Outbox.raw).where(Outbox.kind == "digest"))
    msg = email.message_from_bytes(raw, policy=policy.default)  # type: ignore[arg-type]
    assert isinstance(msg, EmailMessage)
    body = str(msg.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    assert "Your rating (chess): 1600 -> 1630" in body
    assert "Your rating (shogi): 1500 -> 1530" in body


def test_member_rating_options_from_the_cli(tmp_path: Path) -> None:
    """INTERFACE.md: --rating N [--provisional] [--game chess|shogi|go], --rating (N),
    --rank for go; member show lists each game's rating, parenthesised while
    provisional (R2), the chess grade (R3) and the go rank (R4)."""
    relaybot(tmp_path, "init")
    ok = relaybot(tmp_path, "member", "add", "--name", "Hayakawa, Satoru", "--email",
                  "hayakawa@example.jp", "--rating", "1850")
    assert ok.returncode == 0, ok.stderr
    assert "ratings: chess 1850" in ok.stdout
    for args in (("--game", "shogi", "--rating", "(1400)"),
                 ("--game", "go", "--rank", "4k"),
                 ("--game", "chess", "--rating", "1320", "--provisional")):
        ok = relaybot(tmp_path, "member", "set", "hayakawa@example.jp", *args)
        assert ok.returncode == 0, ok.stderr
    show = relaybot(tmp_path, "member", "show", "hayakawa@example.jp").stdout.splitlines()
    assert show[1].startswith("chess: rating (1320) after 0 rated games; grade points ")
    assert show[2:] == ["shogi: rating (1400) after 0 rated games",
                        "go: points (85) 4k (provisional) after 0 counted games (0 wins "
                        "0 losses 0 jigo, win rate -; 0 games in all)"]
    new = relaybot(tmp_path, "member", "add", "--name", "Horie, Takahiro", "--email",
                   "horie@example.org", "--game", "shogi")  # a game alone: still unrated
    assert "ratings: none (unrated)" in new.stdout
    show = relaybot(tmp_path, "member", "show", "horie@example.org").stdout.splitlines()
    # no rating and no game yet: no line for a game the member may never play (issue 28)
    assert show[1:] == ["ratings: none yet (no rating and no game)"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [(("--rating", "1850", "--rank", "4k", "--game", "go"), "not both"),
     (("--rank", "4k", "--game", "chess"), "--rank"),
     (("--provisional",), "--provisional goes with --rating"),
     (("--rating", "abc"), "--rating is not a number"),
     (("--rating", "5000"), "between 0 and 4000"),
     (("--rank", "4q"), "not a go rank"),
     (("--game", "checkers", "--rating", "1500"), "--game")],
)
def test_member_rating_mistakes_are_one_line(tmp_path: Path, args: tuple[str, ...],
                                             needle: str) -> None:
    relaybot(tmp_path, "init")
    one_line_error(relaybot(tmp_path, "member", "add", "--name", "X, Y", "--email",
                            "x@example.jp", *args), needle)


def test_a_year_of_birth_still_to_come_is_refused(store: Store, db_url: str) -> None:
    """Seed 004 section 6 counts a member's age from ``--born``: a year after the command's
    clock (``--now``) is a typing mistake, refused by ``member add`` and ``member set``."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        with pytest.raises(AdminError, match="--born is a year of birth"):
            member(s, cfg, "kuro@example.jp", born=T0.year + 1)
        who = member(s, cfg, "kuro@example.jp", born=T0.year)
        with pytest.raises(AdminError, match="--born is a year of birth"):
            update_member(s, cfg, who, MemberInput("", who.email, born=2030), T0)
        update_member(s, cfg, who, MemberInput("", who.email, born=1950), T0)
        assert who.born == 1950
