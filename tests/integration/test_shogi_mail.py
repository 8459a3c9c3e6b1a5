"""Shogi by mail end to end (issue 16): a professional game replayed through Dovecot and
the SMTP sink, each move written in a different style, its KIF (and CSA) record equal
to the source move for move; an ambiguous move answered in Japanese with its candidates
(seed 002 rule 17: no J5 penalty); the seed 002 rules a new shogi game starts with."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import shogi.CSA
import shogi.KIF

from tests.integration.relay_harness import Club, body_of
from tests.shogi_styles import RULES, pro_game, written

pytestmark = pytest.mark.integration


@pytest.mark.slow
def test_a_professional_game_replayed_by_mail(club: Club) -> None:
    """Habu - Fujii, 2006 (tests/data): 181 moves by mail, each in another style; the
    record the bot writes (KIF, UTF-8) equals the source move for move."""
    habu = club.member("羽生善治", "habu@example.jp", lang="ja")
    fujii = club.member("藤井猛", "fujii@example.org", lang="en")
    game_id = club.game(fujii, habu, kind="shogi", event="第65期順位戦A級")  # --black: 先手
    _, moves = pro_game()
    plies: list[str] = []
    for index, ply in enumerate(moves):
        mover, other = (habu, fujii) if index % 2 == 0 else (fujii, habu)
        before = len(other.inbox())
        position = RULES.replay(plies)
        if index % 9 == 8:  # now and then the whole record from move 1
            text = RULES.format_record([*plies, ply], "ja")
        else:
            text = written(position, ply, index, index + 1)
        mover.send(f"よろしくお願いします。\n\n{text}\n")
        report = club.cycle()
        assert report.poll.processed == 1, report
        assert len(other.inbox()) == before + 1, f"move {index + 1} ({text!r}) not relayed"
        plies.append(ply)
    # what each side reads: the board from their own side (BOD), the record in Japanese
    to_gote = body_of(fujii.inbox()[-1])
    assert "先手の持駒：" in to_gote.split("+---")[0]  # 後手 sees 先手's hand on top
    assert "181 ▲７二飛成" in to_gote
    # issue 15: the HTML part's picture is the board drawn by shogi itself (Pillow, from
    # 後手's seat), not the SVG rasterised
    (png,) = [p.get_content() for p in fujii.inbox()[-1].parsed.walk()
              if p.get_content_type() == "image/png"]
    assert png == RULES.board_png(RULES.replay(moves), 1)
    fujii.send("投了\n\nありがとうございました。")
    club.cycle()
    kif = club.cli("game", "record", game_id).stdout
    source = shogi.KIF.Parser.parse_str(kif)[0]
    assert source["moves"] == moves
    assert source["win"] == "b" and source["names"] == ["羽生善治", "藤井猛"]
    assert "まで181手で先手の勝ち" in kif and " 182 投了" in kif
    csa = club.cli("game", "record", game_id, "--format", "csa").stdout
    parsed = shogi.CSA.Parser.parse_str(csa)[0]
    assert parsed["moves"] == moves and parsed["win"] == "b"
    end = body_of(habu.inbox()[-1])
    assert "投了" in end and "KIF形式の棋譜" in end


def test_an_ambiguous_move_is_answered_with_its_candidates(club: Club) -> None:
    """Two golds can reach 5h: the reply, in Japanese, names both and applies nothing;
    the league adds no J5 penalty (seed 002 rule 17: the days until the correction are
    the sender's)."""
    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    club.game(gote, sente, kind="shogi")
    assert "あなたは先手番です" in body_of(sente.inbox()[-1])
    sente.send("1 ▲５八金")
    club.cycle()
    reply = body_of(sente.inbox()[-1])
    assert "候補: ５八金右、５八金左" in reply  # in players' words (issue 26)
    assert "加算" not in reply and "J21" not in reply
    assert len(gote.inbox()) == 1  # only the start mail: nothing relayed
    sente.send("1 ▲５八金右")
    club.cycle()
    relay = body_of(gote.inbox()[-1])
    assert "1 ▲５八金右" in relay
    gote.send("2 5二金右")  # 後手 sits across the board: their right is the 6a gold
    club.cycle()
    assert "2 △５二金右" in body_of(sente.inbox()[-1])


def test_a_new_shogi_game_follows_the_league_rules(club: Club) -> None:
    """INTERFACE ``game new --game shogi``: --black is 先手; seed 002's rules by default
    (bank:20, grace 2: J7 翌々日, no leave: rule 10, optional proposals: rule 16)."""
    club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    club.member("Horie, Takahiro", "horie@example.org", lang="en")
    made = club.cli("game", "new", "--game", "shogi", "--white", "horie@example.org",
                    "--black", "hayakawa@example.jp")
    game_id = made.stdout.split()[0]
    shown = club.cli("game", "show", game_id).stdout
    assert "time control: bank:20" in shown and "conditionals: optional" in shown
    assert "grace 2 days" in shown and "leave not allowed" in shown
    assert "to move: Sente" in shown and "先手の持駒" in shown
    pgn = club.cli("game", "record", game_id, "--format", "pgn", check=False)
    assert pgn.returncode != 0 and "kif or csa" in pgn.stderr


def test_rule_17_a_corrected_move_costs_the_sender_only_its_days(club: Club) -> None:
    """Seed 002 rule 17 (J21): the days from the error notice to the correction are the
    sender's; the bot notices at once, so the receiver loses nothing; no J5 penalty."""
    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    club.game(gote, sente, kind="shogi")  # started 2026-03-02 (Tokyo): 先手 counts from it
    sente.send("1 ▲５五歩")  # no pawn reaches 5e: illegal
    club.cycle()
    assert "指せない手" in body_of(sente.inbox()[-1])
    sente.send("1 ▲７六歩", at=datetime(2026, 3, 7, 3, 0, tzinfo=UTC))  # 03-07 in Tokyo
    club.cycle()
    relay = body_of(gote.inbox()[-1])
    # J7 grace 2: days from 03-04; sent 03-07: 3 days, all 先手's; 後手 none
    assert "Days used: Sente 3 (left: 17), Gote 0 (left: 20)." in relay
    gote.send("help")
    club.cycle()
    helped = body_of(gote.inbox()[-1])  # the shogi help, in English
    assert "15 ▲７七角" in helped and "入玉宣言" in helped and "もし △同歩 なら ▲同角" in helped


def test_time_loss_on_a_bank_clock_and_td_words(club: Club) -> None:
    """Seed 002 rule 9: 20 days in all, lost at 0 without a claim (J8, J9); the KIF
    says 切れ負け. The TD's words for shogi (INTERFACE "TD commands")."""
    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    silent = club.game(gote, sente, kind="shogi")
    club.clock += timedelta(days=30)
    club.cycle()
    kif = club.cli("game", "record", silent).stdout
    assert "   1 切れ負け\nまで0手で後手の勝ち\n" in kif
    assert "持ち日数切れ" in body_of(sente.inbox()[-1])
    forfeit = club.game(gote, sente, kind="shogi")
    club.cli("td", "forfeit", forfeit, "gote")
    assert "まで0手で先手の勝ち" in club.cli("game", "record", forfeit).stdout
    both = club.game(gote, sente, kind="shogi")
    club.cli("td", "adjudicate", both, "両者負け")
    assert "まで0手で両者負け" in club.cli("game", "record", both).stdout
    draw = club.game(gote, sente, kind="shogi")
    club.cli("td", "adjudicate", draw, "引き分け")
    # the operator reads shogi's result in the TD's words (INTERFACE), not a chess score
    shown = club.cli("game", "show", draw).stdout
    assert shown.startswith(f"game {draw}  shogi  finished  draw\n") and "1/2" not in shown
    listed = club.cli("game", "list").stdout
    assert f"{draw}\tshogi\tdraw\t" in listed and f"{both}\tshogi\tboth-lose\t" in listed
    refused = club.cli("td", "adjudicate", club.game(gote, sente, kind="shogi"), "white",
                       check=False)
    assert refused.returncode != 0 and "sente, gote, draw or both-lose" in refused.stderr


def test_nyugyoku_declaration_by_mail_ends_in_jishogi(club: Club) -> None:
    """入玉宣言 (the game's own keyword, GameRules.keywords/declare): both sides with 24
    points or more is 持将棋, a draw not replayed (seed 002 rule 15)."""
    from relaybot.store.models import Game

    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    game_id = club.game(gote, sente, kind="shogi")
    with club.store.session() as session:  # a position reached late in a long game
        game = session.get(Game, game_id)
        assert game is not None
        game.position = "K8/9/9/9/9/9/9/9/8k b 2R2B4G4P4s4n4l14p 1"
    sente.send("入玉宣言\n\n点数を数えました。")
    club.cycle()
    end = body_of(sente.inbox()[-1])
    # in shogi's own words, not chess's score (issue 26)
    assert "持将棋（引き分け、指し直しなし）" in end and "1/2-1/2" not in end
    assert "Jishogi (持将棋)" in body_of(gote.inbox()[-1])
    kif = club.cli("game", "record", game_id).stdout
    assert "   1 持将棋\nまで0手で持将棋\n" in kif


def test_j16_rule16_a_mating_line_by_mail_binds_near_the_seasons_end(club: Club) -> None:
    """Seed 002 rule 16 「対局期限が迫っていて、詰みを読み切り、詰みの先読みを行った場合、その
    先読みは無視できない」: proposals are optional in the league, but a mating line that
    answers every defence, sent in the season's last days, cannot be ignored. Both
    players are told so, each in their language (the bot playing the answer, and the
    same line far from the deadline, are tests/unit/test_mating_lines.py: a record from
    this made-up position could not be written)."""
    from datetime import timedelta

    from relaybot.store.models import Event, Game, Season, SeasonClass

    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    game_id = club.game(gote, sente, kind="shogi")
    with club.store.session() as session:  # a position reached late in a long game
        game = session.get(Game, game_id)
        assert game is not None and game.conditionals == "optional"
        game.position = "8k/9/7P1/9/9/9/9/9/4K4 b GS 1"
        # the game is one of a league class whose season ends in five days
        today = club.clock.date()
        season = Season(name="第2期", start_date=today.replace(day=1),
                        end_date=today + timedelta(days=5), created_at=club.clock)
        event = Event(name="第2期S級", kind="league", start_date=today,
                      created_at=club.clock)
        session.add_all([season, event])
        session.flush()
        session.add(SeasonClass(season_id=season.id, letter="S", position=0,
                                event_id=event.id))
        game.event = event.name
    sente.send("1 ▲２二銀打\nもし △１二玉 なら ▲１三金打\n")
    club.cycle()
    assert "詰みの先読みです。相手は無視できず" in body_of(sente.inbox()[-1])
    relay = body_of(gote.inbox()[-1])
    assert "mating line that answers every defence: it binds you" in relay
    assert "1 ▲２二銀" in relay and "１三金" in relay


def test_j1_a_move_without_its_number_is_answered_with_the_line_to_send(
        club: Club) -> None:
    """A lone move with no number is not applied (J1: the number ties it to a position);
    the polite reply, in each player's language, shows the numbered line to send."""
    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    club.game(gote, sente, kind="shogi")
    sente.send("1 ▲７六歩")
    club.cycle()
    gote.send("△３四歩")
    club.cycle()
    reply = body_of(gote.inbox()[-1])
    assert "has no move number" in reply and "The next one is move 2:" in reply, reply
    assert "  2 △34歩" in reply
    assert len(sente.inbox()) == 2  # the start and the ack: nothing relayed
    gote.send("2 △３四歩")
    club.cycle()
    sente.send("２六歩")
    club.cycle()
    reply = body_of(sente.inbox()[-1])
    assert "に手数がありません" in reply and "  3 26歩" in reply, reply


def test_the_demo_plays_shogi(tmp_path: Path) -> None:
    """``relaybot demo --game shogi``: a short game by mail with nothing configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    proc = subprocess.run([sys.executable, "-m", "relaybot.cli", "demo", "--game", "shogi"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "候補: ５八金右、５八金左" in out  # the ambiguous move and its answer
    assert "もし 6 △同　銀 なら ▲５五角" in out  # the conditional move, relayed
    assert "ended 1-0, Sente wins (resignation). KIF:" in out and "まで7手で先手の勝ち" in out
    assert list(tmp_path.iterdir()) == []


def test_a_shogi_event_starts_its_games_under_the_league_rules(club: Club) -> None:
    """``event new --game shogi``: every game is shogi with seed 002's rules unless the
    options say otherwise; a result counts in the standings (1-0: 先手 won)."""
    from relaybot.store.models import Game, Member

    names = [("青木, 一郎", "aoki@example.jp"), ("井上, 二郎", "inoue@example.jp"),
             ("上田, 三郎", "ueda@example.jp"), ("江藤, 四郎", "eto@example.jp")]
    people = {address: club.member(name, address, lang="ja") for name, address in names}
    club.cli("event", "new", "第1期C級順位戦", "--kind", "group", "--game", "shogi",
             "--players", ",".join(address for _, address in names))
    with club.store.session() as session:
        games = session.query(Game).order_by(Game.created_at).all()
        assert len(games) == 12 and {g.kind for g in games} == {"shogi"}
        assert {(g.time_control, g.grace, g.leave_allowed, g.conditionals) for g in games} \
            == {("bank:20", 2, 0, "optional")}
        game_id = games[0].id
        sente_row = session.get(Member, games[0].side0_id)
        gote_row = session.get(Member, games[0].side1_id)
        assert sente_row is not None and gote_row is not None
        sente, gote = people[sente_row.email], people[gote_row.email]
        # the CLI lists names family first without a comma (issue 26), and the result in
        # the TD's words (sente, as `game list --json`), not the stored score 1-0
        line = (f"{game_id}  {sente_row.name.plain()} - {gote_row.name.plain()}  sente  "
                f"1 move played")
    sente.send("1 ▲７六歩", to=sente.game_address(game_id), subject=f"[{game_id}]")
    club.cycle()
    assert "1 ▲７六歩" in body_of(gote.inbox()[-1])
    club.cli("td", "forfeit", game_id, "gote")
    assert line in club.cli("event", "show", "第1期C級順位戦").stdout


def test_reminder_and_digest_for_a_shogi_game(club: Club) -> None:
    """J11 reminder and D1 digest of a shogi game, each in its reader's language, with
    the BOD board from the reader's side."""
    from relaybot.app.digest import send_digests

    sente = club.member("早川, 聡", "hayakawa@example.jp", lang="ja")
    gote = club.member("Horie, Takahiro", "horie@example.org", lang="en")
    game_id = club.game(gote, sente, kind="shogi")
    sente.send("1 ▲７六歩")
    club.cycle()
    club.clock += timedelta(days=11)  # 後手 silent for 10 days after the relay
    club.cycle()
    reminder = gote.last()
    assert str(reminder["Subject"]).startswith(f"[{game_id}] Reminder")
    text = body_of(gote.inbox()[-1])
    assert "1 ▲７六歩" in text and text.index("先手の持駒") < text.index("後手の持駒")
    send_digests(club.store, club.cfg, club.clock)  # this week's, if the cycle has not yet
    club.cycle()
    digest = [c for c in club.mails_to(sente.address)
              if c.parsed["X-Relaybot-Kind"] == "digest"]
    assert digest and "今週の通信対局" in str(digest[-1].parsed["Subject"])
    assert "（あなたは先手、" in body_of(digest[-1])
