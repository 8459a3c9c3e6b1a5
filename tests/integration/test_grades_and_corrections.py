"""Issue 13 items 4 and 10: the R3 introduction bonus is given once, at introduction or
when the rating becomes official; titles count and are shown; a TD's ``result ID
RESULT`` corrects a finished game, re-rating both players with their later games
replayed in order (R1, R2), and standings (T5), grades (R3) and the digest (D1) follow."""

from __future__ import annotations

import email
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.club.grade_book import grade_of
from relaybot.club.members import MemberInput, add_member, update_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.club.rating_book import rate_game, rating_row
from relaybot.club.tournaments import EventInput, create_event, event_standings, find_event
from relaybot.config import Config
from relaybot.core.ratings import introduction_bonus
from relaybot.pipeline.td import COMMANDS, Context
from relaybot.store.db import Store
from relaybot.store.models import Game, Member, Outbox, RatingChange
from tests.integration.relay_harness import TD, Club, Player, body_of
from tests.integration.test_cli import one_line_error, relaybot
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def member(s: object, cfg: Config, address: str, **kw: object) -> Member:
    name = address.split("@")[0].title() + ", X"
    return add_member(s, cfg, MemberInput(name, address, **kw), T0)  # type: ignore[arg-type]


def play(s: object, cfg: Config, white: str, black: str, result: str, at: datetime) -> Game:
    """A game with play (two plies) that ended ``result`` at ``at``, rated as end_game
    rates it."""
    return finish(s, create_game(s, cfg, GameInput(white, black), at), result, at)  # type: ignore[arg-type]


def finish(s: object, game: Game, result: str, at: datetime) -> Game:
    game.status, game.result, game.ply_count = "finished", result, 2
    game.termination = "resignation"
    rate_game(s, game, at)  # type: ignore[arg-type]
    return game


def td(s: object, cfg: Config, line: str, now: datetime) -> str:
    word, *args = line.split()
    done = COMMANDS[word].run(Context(s, cfg, now), args, "")  # type: ignore[arg-type]
    assert done.ok, done.message
    return done.message


def test_r3_a_provisional_newcomer_gets_the_bonus_only_when_official(
        store: Store, db_url: str) -> None:
    """R3, seed 000: 「付加点数は、導入時および本レイティング認定時のレイティングに応じ一度だけ
    与える」. A provisional 1200 newcomer has no bonus after a game (it used to reach 6級);
    a member introduced with an official rating has it at once, for that rating; the
    newcomer gets it after the 20th game (R2: official), for the rating then, and never
    again after."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        new = member(s, cfg, "new@example.jp")  # unrated: 1200 provisional (R1)
        official = member(s, cfg, "official@example.jp", rating=1500)
        assert grade_of(s, official) == (introduction_bonus(1500), "4級 (4th kyu)")  # 337
        play(s, cfg, new.email, official.email, "1-0", T0)
        assert grade_of(s, new) == (0, "入門 (beginner)")  # not 172 points (6級)
        assert grade_of(s, official)[0] == introduction_bonus(1500)  # once, not re-read
        for n in range(1, 20):
            play(s, cfg, new.email, official.email, "1/2-1/2", T0 + timedelta(days=n))
        row = rating_row(s, new.id, "chess")
        assert row is not None and (row.rated_games, row.provisional) == (20, 0)
        bonus = introduction_bonus(row.rating)
        assert bonus != introduction_bonus(1200)
        assert grade_of(s, new)[0] == bonus
        play(s, cfg, new.email, official.email, "1-0", T0 + timedelta(days=30))
        assert grade_of(s, new)[0] == bonus  # once: the 21st game changes nothing


def test_r3_an_official_rating_set_before_play_is_the_introduction(
        store: Store, db_url: str) -> None:
    """R3: a rating corrected before any game is still the introduction; a provisional
    one (another federation's, R1) gives no bonus yet."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        m = member(s, cfg, "m@example.jp", rating=1600)
        update_member(s, cfg, m, MemberInput("", m.email, rating=1650))
        assert grade_of(s, m)[0] == introduction_bonus(1650)
        update_member(s, cfg, m, MemberInput("", m.email, rating=1650, provisional=True))
        assert grade_of(s, m)[0] == 0


def test_r3_titles_are_stored_counted_and_shown(tmp_path: Path) -> None:
    """R3, seed 000 称号点数: 「日本チャンピオン 1回獲得につき2000点」「ICCF-IM、SIM、GMタイト
    ル取得時に各4000点」; 「導入時にタイトルを保有している者は、付加点数の計算と同時に加算する」.
    ``member add/set --title`` stores them, ``member show`` shows them with the grade."""
    relaybot(tmp_path, "init")
    ok = relaybot(tmp_path, "member", "add", "--name", "Onoda, Hirokazu", "--email",
                  "onoda@example.jp", "--rating", "2000", "--title", "IM")
    assert ok.returncode == 0, ok.stderr
    assert "titles: ICCF-IM" in ok.stdout
    for title in ("japan_champion", "日本チャンピオン"):
        assert relaybot(tmp_path, "member", "set", "onoda@example.jp", "--title",
                        title).returncode == 0
    show = relaybot(tmp_path, "member", "show", "onoda@example.jp").stdout.splitlines()
    # bonus 2000^3 / 10,000,000 = 800, IM 4000, twice Japan champion 2 x 2000: 8800 (四段)
    assert show[1] == ("chess: rating 2000 after 0 rated games; grade points 8800 "
                       "(四段 (4th dan)); titles ICCF-IM, Japan champion x2")
    one_line_error(relaybot(tmp_path, "member", "set", "onoda@example.jp", "--title", "IM"),
                   "already holds IM")
    one_line_error(relaybot(tmp_path, "member", "set", "onoda@example.jp", "--title", "FM"),
                   "unknown title")
    assert relaybot(tmp_path, "member", "set", "onoda@example.jp", "--drop-title",
                    "japan_champion").returncode == 0
    show = relaybot(tmp_path, "member", "show", "onoda@example.jp").stdout.splitlines()
    assert "grade points 6800 " in show[1] and show[1].endswith("Japan champion")


def _state(s: object, member_id: int) -> tuple[object, ...]:
    row = rating_row(s, member_id, "chess")  # type: ignore[arg-type]
    assert row is not None
    return (row.rating, row.rated_games, row.provisional, list(row.rb_opponents),
            row.rb_wins, row.rb_losses, row.bonus_rating)


@pytest.mark.parametrize("recorded_states", [True, False], ids=["states", "legacy"])
def test_r2_a_corrected_result_replays_the_rating_history_as_if_right_from_the_start(
        store: Store, db_url: str, recorded_states: bool) -> None:
    """R1/R2 (seed 000: 「12ゲームを終了した時点で…仮レイティングの修正を行います」, 「20ゲーム
    を終了した時点で、本レイティングとして認められます」): 22 games start at once (as a JCCA
    group's do, so their start ratings are fixed); the newcomer's first result is
    corrected after all have ended. Rb after the 12th game, the official rating after
    the 20th and the grade bonus (R3) are those of a twin history that had the right
    result from the start; so is the opponent's rating. The changes of a third player in
    later games came from the start ratings (R1) and stay. Changes recorded before the
    states were kept (``legacy``) are replayed from what the rows and games tell."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        ids = {}
        for who in ("p", "q", "twin-p", "twin-q", "x"):
            ids[who] = member(s, cfg, f"{who}@example.jp",
                              rating=None if who.endswith("p") else 1500).id
        games = {prefix: [create_game(s, cfg, GameInput(
            f"{prefix}p@example.jp", f"{prefix}q@example.jp" if n % 2 == 0 else "x@example.jp"),
            T0) for n in range(22)] for prefix in ("", "twin-")}
        first = {"": finish(s, games[""][0], "1-0", T0),
                 "twin-": finish(s, games["twin-"][0], "0-1", T0)}
        for n in range(1, 22):
            for prefix in ("", "twin-"):
                finish(s, games[prefix][n], ("1-0", "0-1", "1/2-1/2")[n % 3],
                       T0 + timedelta(days=n))
        if not recorded_states:
            for change in s.scalars(select(RatingChange)):
                change.state_before = change.state_after = None
        x_before = _state(s, ids["x"])
        wrong = _state(s, ids["p"])
        message = td(s, cfg, f"result {first[''].id} 0-1", T0 + timedelta(days=40))
        assert "1-0 to 0-1" in message
        assert _state(s, ids["p"]) == _state(s, ids["twin-p"]) != wrong
        assert _state(s, ids["q"]) == _state(s, ids["twin-q"])
        assert _state(s, ids["x"]) == x_before  # an opponent of later games only
        p = s.get(Member, ids["p"])
        twin = s.get(Member, ids["twin-p"])
        assert p is not None and twin is not None
        assert grade_of(s, p) == grade_of(s, twin)
        changes = [(c.before, c.after) for c in s.scalars(
            select(RatingChange).where(RatingChange.member_id == ids["p"])
            .order_by(RatingChange.at, RatingChange.id))]
        twins = [(c.before, c.after) for c in s.scalars(
            select(RatingChange).where(RatingChange.member_id == ids["twin-p"])
            .order_by(RatingChange.at, RatingChange.id))]
        assert changes == twins  # the digest and the books read the corrected history


def test_r1_a_void_game_given_a_result_is_rated_in_the_order_it_ended(
        store: Store, db_url: str) -> None:
    """R1: a game voided by a withdrawal (J20) and then given a result by the TD is rated
    where it ended, before the later game; a rating the TD set after the last game
    stays."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        a = member(s, cfg, "a@example.jp", rating=1500)
        b = member(s, cfg, "b@example.jp", rating=1500)
        game = create_game(s, cfg, GameInput(a.email, b.email), T0)
        game.status, game.result, game.ply_count = "finished", "*", 4
        game.termination = "withdrawal_void"
        assert not rate_game(s, game, T0)
        play(s, cfg, a.email, b.email, "1-0", T0 + timedelta(days=1))
        update_member(s, cfg, b, MemberInput("", b.email, rating=1490))  # the TD's value
        td(s, cfg, f"result {game.id} 0-1", T0 + timedelta(days=2))
        assert game.termination == "adjudication"
        # 0-1 then 1-0 between equals: a -30 +30 (row 1 of the quick table)
        assert rating_row(s, a.id, "chess").rating == 1500  # type: ignore[union-attr]
        assert rating_row(s, b.id, "chess").rating == 1490  # type: ignore[union-attr]
        changes = s.scalars(select(RatingChange).where(RatingChange.member_id == a.id)
                            .order_by(RatingChange.at, RatingChange.id)).all()
        assert [(c.game_id, c.before, c.after) for c in changes] == [
            (game.id, 1500, 1470), (changes[1].game_id, 1470, 1500)]


def test_t5_d1_a_corrected_result_moves_the_standings_and_is_in_the_digest(
        store: Store, db_url: str) -> None:
    """T5 and D1: the event's standings read the corrected result, and this week's digest
    names the correction and the reader's re-rating, in English and Japanese; both
    players are told by mail (J15)."""
    from relaybot.app.digest import send_digests

    cfg = cfg_for(db_url)
    with store.session() as s:
        players = [member(s, cfg, f"{c}@example.jp", rating=1500,
                          lang="ja" if c == "b" else "en") for c in "abcd"]
        games = create_event(s, cfg, EventInput("Preliminary A", "group",
                                                [m.email for m in players], start=T0.date()),
                             T0)
        first = games[0]
        first.status, first.result, first.ply_count = "finished", "1-0", 2
        first.termination, first.end_date = "resignation", T0.date()
        rate_game(s, first, T0)
        winner = s.get(Member, first.side0_id)
        loser = s.get(Member, first.side1_id)
        assert winner is not None and loser is not None
        top = event_standings(s, find_event(s, "Preliminary A"))[0]
        assert top.player == winner.name
        td(s, cfg, f"result {first.id} 0-1", T0 + timedelta(days=1))
        top = event_standings(s, find_event(s, "Preliminary A"))[0]
        assert (top.player, top.points) == (loser.name, 1.0)
        told = {to: raw for to, raw in s.execute(select(Outbox.recipient, Outbox.raw)
                                                 .where(Outbox.kind == "result_corrected"))}
        assert sorted(told) == sorted([winner.email, loser.email])
        # J15: each player reads their own score in the event, never the winner's
        # (issue 26), in their language and with English plurals
        own = {"en": ("Your score: 1 win, 0 draws, 0 losses.",
                      "Your score: 0 wins, 0 draws, 1 loss."),
               "ja": ("あなたの通算成績は 1勝 0ドロー 0敗。",
                      "あなたの通算成績は 0勝 0ドロー 1敗。")}
        assert own[loser.lang][0] in _plain(told[loser.email])
        assert own[winner.lang][1] in _plain(told[winner.email])
        assert "1 wins" not in _plain(told[winner.email]) + _plain(told[loser.email])
    assert send_digests(store, cfg, T0 + timedelta(days=2)) == 4
    with store.session() as s:
        bodies = {}
        for recipient, raw in s.execute(select(Outbox.recipient, Outbox.raw)
                                        .where(Outbox.kind == "digest")):
            msg = email.message_from_bytes(raw, policy=policy.default)
            assert isinstance(msg, EmailMessage)
            part = msg.get_body(preferencelist=("plain",))
            assert part is not None
            bodies[recipient] = str(part.get_content())
    for address, body in bodies.items():
        if address == "b@example.jp":
            assert "今週TDが訂正した結果" in body and "（訂正前 1-0）" in body
        else:
            assert "Results corrected by the tournament director this week" in body
            assert "0-1 (was 1-0) (Preliminary A)" in body
    mine = bodies[winner.email if winner.email != "b@example.jp" else loser.email]
    assert ("rating (chess) 1530 -> 1470" in mine or "rating (chess) 1470 -> 1530" in mine
            or "レーティング" in mine)


def test_r1_result_command_from_the_cli_and_its_mistakes_in_one_line(tmp_path: Path) -> None:
    """INTERFACE "TD commands": ``relaybot td result ID RESULT`` corrects a finished game;
    an unfinished game or a word that is not a result is one clear line."""
    relaybot(tmp_path, "init")
    for name, address in (("A, A", "a@example.jp"), ("B, B", "b@example.jp")):
        assert relaybot(tmp_path, "member", "add", "--name", name, "--email",
                        address).returncode == 0
    gid = relaybot(tmp_path, "game", "new", "--white", "a@example.jp", "--black",
                   "b@example.jp").stdout.split()[0]
    one_line_error(relaybot(tmp_path, "td", "result", gid, "0-1"), "has not finished")
    assert relaybot(tmp_path, "td", "adjudicate", gid, "1-0").returncode == 0
    one_line_error(relaybot(tmp_path, "td", "result", gid, "2-0"),
                   "result must be 1-0, 0-1 or 1/2-1/2, not 2-0")
    one_line_error(relaybot(tmp_path, "td", "result", gid, "1-0"), "already has the result")
    ok = relaybot(tmp_path, "td", "result", gid, "1/2-1/2")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"game {gid}: result corrected from 1-0 to 1/2-1/2")
    assert "1/2-1/2" in relaybot(tmp_path, "game", "show", gid).stdout
    # a game without play is not rated (R1): the players stay unrated
    assert "ratings: none" in relaybot(tmp_path, "member", "set", "a@example.jp").stdout


def test_r1_a_shogi_correction_is_told_in_shogi_words(tmp_path: Path) -> None:
    """INTERFACE "TD commands": shogi's results are sente, gote, draw, both-lose; the
    TD's confirmation and refusal say them so, not as the stored score (1-0)."""
    relaybot(tmp_path, "init")
    for name, address in (("A, A", "a@example.jp"), ("B, B", "b@example.jp")):
        assert relaybot(tmp_path, "member", "add", "--name", name, "--email",
                        address).returncode == 0
    gid = relaybot(tmp_path, "game", "new", "--game", "shogi", "--white", "a@example.jp",
                   "--black", "b@example.jp").stdout.split()[0]
    assert relaybot(tmp_path, "td", "adjudicate", gid, "sente").returncode == 0
    one_line_error(relaybot(tmp_path, "td", "result", gid, "先手勝ち"),
                   "already has the result Sente wins")
    ok = relaybot(tmp_path, "td", "result", gid, "gote")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"game {gid}: result corrected from Sente wins to Gote wins;")
    assert "1-0" not in ok.stdout and "0-1" not in ok.stdout


def test_r1_result_by_mail_from_the_td_tells_both_players_in_their_language(club: Club) -> None:
    """INTERFACE "TD commands": ``result ID RESULT`` by mail from the TD corrects the
    game; the TD's confirmation says so and each player is told, in Japanese or English."""
    white = club.member("Sato, Hanako", "sato@example.jp", lang="ja")
    black = club.member("Brown, Tom", "brown@example.org", lang="en")
    gid = club.game(white, black)
    tdp = Player("TD", TD, club)
    tdp.send(f"adjudicate {gid} 1-0", to=tdp.member_address(), subject="J14")
    club.cycle()
    tdp.send(f"result {gid} 0-1", to=tdp.member_address(), subject="correction")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.result == "0-1"
    told = {c.rcpt_tos[0]: body_of(c) for c in club.sink.captured
            if c.parsed["X-Relaybot-Kind"] == "result_corrected"}
    assert "TDがこの対局の結果を訂正しました: 0-1（これまでの記録は 1-0）" in told[white.address]
    assert "corrected the result of this game: 0-1 (it was recorded as 1-0)" in told[
        black.address]
    report = [body_of(c) for c in club.sink.captured
              if c.parsed["X-Relaybot-Kind"] == "td_result"]
    assert f"result {gid} <" in report[0]  # D2: the J15 report says how to correct it
    confirm = [body_of(c) for c in club.sink.captured
               if c.parsed["X-Relaybot-Kind"] == "td_confirm"]
    assert any(f"game {gid}: result corrected from 1-0 to 0-1" in b for b in confirm)


def test_t1_r3_the_winner_of_a_final_is_japan_champion_and_a_correction_moves_it(
        store: Store, db_url: str) -> None:
    """T1/R3, seed 000: 「Eメール戦決勝優勝者は「Eメールチェス日本チャンピオン」を…称します」 and
    「日本チャンピオン 1回獲得につき2000点」: when the last game of a final ends, its sole
    winner holds the title (2000 grade points); a corrected result that shares first
    place takes it back, one that changes the winner moves it."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        a, b, c, d = (member(s, cfg, f"{x}@example.jp", rating=1800) for x in "abcd")
        games = create_event(s, cfg, EventInput("Final 2026", "group",
                                                [m.email for m in (a, b, c, d)],
                                                start=T0.date(), final=True), T0)
        last = next(g for g in games if (g.side0_id, g.side1_id) == (a.id, b.id))
        for g in games:
            if g is last:
                continue
            sides = {g.side0_id, g.side1_id}
            strong = a.id if a.id in sides else b.id if b.id in sides else None
            result = ("1/2-1/2" if strong is None or sides == {a.id, b.id}
                      else "1-0" if g.side0_id == strong else "0-1")
            g.status, g.result, g.ply_count, g.termination = "finished", result, 2, "resignation"
            g.end_date = T0.date()
        bonus = introduction_bonus(1800)
        assert grade_of(s, a)[0] < bonus + 2000
        td(s, cfg, f"adjudicate {last.id} 1-0", T0 + timedelta(days=1))  # a 5.5, b 4.5
        s.flush()
        assert grade_of(s, a)[0] >= bonus + 2000
        assert "Japan champion" in _titles(s, a)
        td(s, cfg, f"result {last.id} 1/2-1/2", T0 + timedelta(days=2))  # 5 - 5: shared
        s.flush()
        assert _titles(s, a) == _titles(s, b) == ""
        td(s, cfg, f"result {last.id} 0-1", T0 + timedelta(days=3))
        s.flush()
        assert (_titles(s, a), _titles(s, b)) == ("", "Japan champion")


def _titles(s: object, m: Member) -> str:
    from relaybot.club.grade_book import titles_of
    from relaybot.core.ratings import titles_text

    return titles_text(titles_of(s, m.id))  # type: ignore[arg-type]


def test_r3_tournament_points_come_from_jcca_events_not_iccf_sections(
        store: Store, db_url: str) -> None:
    """R3, seed 000: 「獲得点数は、J C C Aトーナメント結果により獲得する点数を与える」: a win in
    a JCCA group earns table-2 points; one in an ICCF section (T2) earns none."""
    cfg = cfg_for(db_url)
    with store.session() as s:
        people = [member(s, cfg, f"p{n}@example.jp") for n in range(7)]  # provisional
        for name, kind, players in (("ICCF Open", "section", people),
                                    ("Preliminary B", "group", people[:4])):
            games = create_event(s, cfg, EventInput(name, kind, [m.email for m in players],
                                                    start=T0.date()), T0)
            won = next(g for g in games if g.side0_id == people[0].id)
            finish(s, won, "1-0", T0)
            if kind == "section":
                assert grade_of(s, people[0]) == (0, "入門 (beginner)")
        # category 9 (average 1200): a win is 36 points
        assert grade_of(s, people[0]) == (36, "8級 (8th kyu)")


def test_t5_standings_and_corrections_read_each_games_own_results(
        store: Store, db_url: str) -> None:
    """T5 for every game (INTERFACE: RESULT words per game): the standings read a game's
    results with its own parse_result (the toy game writes ``X+``, ``O+``, ``draw``, as
    shogi writes ``sente`` and go ``B+3.5``), and a TD's ``result`` in those words moves
    them; the J15 score line counts them too."""
    from relaybot.club.tournaments import score_line
    from relaybot.games.registry import register, unregister
    from tests.toygame import RULES, as_game_rules

    register(as_game_rules(RULES))
    try:
        cfg = cfg_for(db_url)
        with store.session() as s:
            a, b = member(s, cfg, "a@example.jp"), member(s, cfg, "b@example.jp")
            first, second = create_event(s, cfg, EventInput(
                "Toy match", "match", [a.email, b.email], start=T0.date(), game="toy"), T0)
            for game, result in ((first, "X+"), (second, "draw")):
                game.status, game.result, game.ply_count = "finished", result, 5
                game.termination = "three_in_a_row"
            rows = {r.player: r.points for r in event_standings(s, find_event(s, "Toy match"))}
            winner = s.get(Member, first.side0_id)
            assert winner is not None
            assert rows[winner.name] == 1.5 and sum(rows.values()) == 2.0
            assert score_line(s, first, 0) == "1 win, 1 draw, 0 losses"
            td(s, cfg, f"result {first.id} O+", T0 + timedelta(days=1))
            rows = {r.player: r.points for r in event_standings(s, find_event(s, "Toy match"))}
            assert rows[winner.name] == 0.5
    finally:
        unregister("toy")


def _plain(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_r2_d1_the_digest_shows_a_provisional_rating_in_parentheses(
        store: Store, db_url: str) -> None:
    """R2, seed 000: 「それまでの仮レーティング（R_a、R_b）は、すべて（1320）というように、カッコ
    をつけて表示されます」: the digest's rating changes too (D1); an official one is bare."""
    from relaybot.app.digest import send_digests

    cfg = cfg_for(db_url)
    with store.session() as s:
        new = member(s, cfg, "new@example.jp")
        official = member(s, cfg, "official@example.jp", rating=1500)
        play(s, cfg, new.email, official.email, "0-1", T0)  # difference 300
    assert send_digests(store, cfg, T0) == 2
    with store.session() as s:
        bodies = {to: _plain(raw) for to, raw in s.execute(
            select(Outbox.recipient, Outbox.raw).where(Outbox.kind == "digest"))}
    assert "Your rating (chess): (1200) -> (1192)" in bodies["new@example.jp"]
    assert "Your rating (chess): 1500 -> 1509" in bodies["official@example.jp"]
