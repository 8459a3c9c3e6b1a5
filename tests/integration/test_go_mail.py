"""Go by mail through Dovecot and the SMTP sink (issue 17; J1, J5, J15, J18, J19).

A real professional game (``tests/data/go/``: Fujisawa Hosai - Go Seigen, 1943, with two
long ko fights) is replayed by mail, each player writing moves in a different style, and
the SGF the bot exports has the source's main line. Smaller games show the sync error
that names the first difference, two passes and an agreed result, and a disputed result
settled by the TD's ``adjudicate``.
"""

from __future__ import annotations

import email
from datetime import datetime, timedelta
from email import policy
from pathlib import Path

import pytest
from sgfmill import sgf
from sqlalchemy import select

from relaybot.games.go import RULES
from relaybot.games.go.notation import vertex_of_sgf
from tests.integration.relay_harness import TD, Club, Player, body_of

pytestmark = pytest.mark.integration

SOURCE = (Path(__file__).parents[1] / "data" / "go"
          / "fujisawa-hosai-vs-go-seigen-1943-02-25.sgf")
LETTERS = "abcdefghijklmnopqrs"


def _source() -> tuple[sgf.Sgf_game, list[tuple[str, str]]]:
    """The source game and its main line as (colour, SGF point)."""
    game = sgf.Sgf_game.from_bytes(SOURCE.read_bytes())
    line = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is None:
            continue
        assert move is not None  # the source has no passes
        row, col = move
        line.append((colour, LETTERS[col] + LETTERS[18 - row]))
    return game, line


def _written(ply: int, point: str) -> str:
    """Move ``ply`` (0-based) as a member might write it: five styles in turn."""
    vertex = vertex_of_sgf(point, 19)
    assert vertex is not None
    number = ply + 1
    full = {ord(c): ord(c) + 0xFEE0 for c in "0123456789ABCDEFGHJKLMNOPQRST"} | {32: 0x3000}
    return [f"{number} {vertex.upper()}", f"{number}. {vertex}", f"{number}手目 {point}",
            f"{number} {'BW'[ply % 2]}[{point}]",
            f"{number} {vertex.upper()}".translate(full)][ply % 5]


def _record(line: list[tuple[str, str]], upto: int) -> str:
    """The whole record from move 1, ten moves a line, styles mixed."""
    parts = [_written(i, point) for i, (_, point) in enumerate(line[:upto])]
    return "\n".join("  ".join(parts[k:k + 10]) for k in range(0, len(parts), 10))


def _pasted_sgf(line: list[tuple[str, str]], upto: int) -> str:
    """The game so far as an SGF file pasted into the mail (the whole record)."""
    game = sgf.Sgf_game(size=19)
    node = game.get_root()
    for colour, point in line[:upto]:
        node = node.new_child()
        node.set_move(colour, (18 - LETTERS.index(point[1]), LETTERS.index(point[0])))
    return game.serialise().decode()


@pytest.mark.slow
def test_a_professional_game_replayed_by_mail_exports_the_same_main_line(club: Club) -> None:
    """Every move by mail, in mixed styles (coordinates, lower case, SGF points, SGF nodes,
    full width), now and then the whole record from move 1 (numbered, or an SGF file
    pasted into the mail); through the ko fights of
    moves 143-213, where an immediate retake sent by mail is refused (simple ko, in the
    sender's language) and the professionals' threats and retakes are all accepted;
    Black resigns; the SGF the bot writes has the source's main line, players, komi and
    result."""
    source, line = _source()
    black = club.member("Fujisawa, Hosai", "hosai@example.jp", lang="ja")
    white = club.member("Go, Seigen", "seigen@example.jp")
    game_id = club.game(white, black, kind="go", options=(("komi", "0"),),
                        event="Go Seigen - Fujisawa Hosai jubango, game 2")
    board = RULES.setup({"komi": "0"})
    refused = 0
    for ply, (colour, point) in enumerate(line):
        mover, other = (black, white) if colour == "b" else (white, black)
        if board.ko is not None and refused < 3:
            # in the ko fights: retaking at once is refused politely (J5), then the
            # professional's move (a threat elsewhere) is played
            retake = vertex_of_sgf(board.ko, 19)
            assert retake is not None and board.ko != point
            mover.send(f"{ply + 1} {retake.upper()}")
            club.cycle()
            refusal = body_of(mover.inbox()[-1])
            assert ("ko: the stone just taken" in refusal if mover is white
                    else "コウです。取られた直後の石" in refusal), refusal
            refused += 1
        RULES.play(board, vertex_of_sgf(point, 19) or "")
        before = len(other.inbox())
        body = (_pasted_sgf(line, ply + 1) if ply % 80 == 79
                else _record(line, ply + 1) if ply % 40 == 39
                else _written(ply, line[ply][1]))
        mover.send(f"{body}\n\nよろしくお願いします" if mover is black else body)
        report = club.cycle()
        assert report.poll.processed == 1, report
        assert len(other.inbox()) == before + 1, f"move {ply + 1} not relayed"
    last = body_of(white.inbox()[-1])
    assert "246" in last and "Captures: Black 23, White 14" in last
    # issue 15: the HTML part's picture is the board drawn by go itself (Pillow)
    (png,) = [p.get_content() for p in white.inbox()[-1].parsed.walk()
              if p.get_content_type() == "image/png"]
    assert png == RULES.board_png(board, 1)
    black.send("投了\n\nありがとうございました")
    club.cycle()
    exported = sgf.Sgf_game.from_string(club.cli("game", "record", game_id).stdout)
    got = [node.get_move() for node in exported.get_main_sequence()[1:]]
    want = [node.get_move() for node in source.get_main_sequence()[1:]]
    assert got == want and len(got) == 246
    root = exported.get_root()
    assert root.get("PB") == "Fujisawa Hosai" and root.get("PW") == "Go Seigen"  # no comma in SGF
    assert exported.get_komi() == 0.0 and root.get("RE") == "W+R"
    assert not root.has_property("HA")
    assert "W+R" in body_of(club.mails_to(TD)[-1])


def _small_game(club: Club) -> tuple[str, Player, Player]:
    black = club.member("Kuro, Taro", "kuro@example.jp", lang="ja")
    white = club.member("Shiro, Hanako", "shiro@example.org")
    game_id = club.game(white, black, kind="go", options=(("size", "9"),))
    return game_id, black, white



def _latest_digests(club: Club) -> tuple[str, str]:
    """The plain text of the latest digest of the English (White) and the Japanese
    (Black) player."""
    from relaybot.store.models import Outbox

    with club.store.session() as session:
        digests = {o.recipient: o.raw for o in session.scalars(  # the latest of each
            select(Outbox).where(Outbox.kind == "digest").order_by(Outbox.id))}
    texts = []
    for address in ("shiro@example.org", "kuro@example.jp"):
        mail = email.message_from_bytes(digests[address], policy=policy.default)
        texts.append(mail.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    return texts[0], texts[1]


def _passed_out(club: Club) -> tuple[str, Player, Player]:
    """:func:`_small_game` after 1 E5, 2 pass, 3 pass: both passed, White to move, the
    result to be stated."""
    game_id, black, white = _small_game(club)
    for player, text in ((black, "1 E5"), (white, "2 pass"), (black, "3 pass")):
        player.send(text)
        club.cycle()
    return game_id, black, white


def test_j14_d1_a_game_unfinished_after_24_months_is_with_the_td_in_the_digest(
        club: Club) -> None:
    """J14 (rule 19) and D1: 24 months after its start an unfinished chess game goes to
    the TD for adjudication (a go game of the salon's rules has no such limit); the weekly
    digest says so, as for a disputed result, instead of the days left that lead to no
    deadline any more, and ``game show`` says since when."""
    import json

    from relaybot.app.digest import send_digests
    from relaybot.core.clocks import adjudication_day

    black = club.member("Kuro, Taro", "kuro@example.jp", lang="ja")
    white = club.member("Shiro, Hanako", "shiro@example.org")
    start = (club.clock - timedelta(days=2 * 365 + 40)).date()
    game_id = club.game(white, black, start=start)  # a chess game (seed 000 rule 19)
    # the go salon's rules (seed 004) have no such limit: its long game plays on
    go_id = club.game(white, black, kind="go", options=(("size", "9"),), start=start)
    since = adjudication_day(start).isoformat()
    assert send_digests(club.store, club.cfg, club.clock + timedelta(days=8)) == 2
    en_text, ja_text = _latest_digests(club)
    assert (f"unfinished 24 months after its start: with the tournament director for "
            f"adjudication since {since}; no more moves are played (comments to the "
            'tournament director with "td:"); you have used 0 days.') in en_text, en_text
    assert (f"開始から24か月で終局しなかったため、{since}から TD の裁定待ちです。"
            "これ以降の指し手は指されません（TD への意見は「td:」で）。消費 0日。"
            ) in ja_text, ja_text
    assert " left" not in en_text.split(game_id)[1].split("\n")[0]
    assert " left" in en_text.split(go_id)[1].split("\n")[0]
    line_en = en_text.split(game_id)[1].split("\n")[0]
    line_ja = ja_text.split(game_id)[1].split("\n")[0]
    assert "YOUR MOVE" not in line_en and "あなたの手番" not in line_ja
    now = (club.clock + timedelta(days=8)).isoformat()
    shown = club.cli("game", "show", game_id, "--now", now).stdout
    assert (f"with the TD: unfinished 24 months after the start, for adjudication since "
            f"{since}; nobody is to move\n") in shown
    assert "to move: " not in shown  # the game ended on that day
    doc = json.loads(club.cli("game", "show", game_id, "--json", "--now", now).stdout)
    assert doc["with_td_since"] == since and doc["to_move"]  # the position's side, as data
    assert "with the TD" not in club.cli("game", "show", go_id, "--now", now).stdout


def test_pass_alone_on_a_line_is_the_next_move_as_a_keyword(club: Club) -> None:
    """INTERFACE's keywords: go adds ``pass`` / ``パス`` alone on a line, with no number;
    it is the next move. A bare pass from an address that proves nothing is held like any
    other move (the registered address is asked)."""
    game_id, black, white = _small_game(club)
    black.send("1 E5")
    club.cycle()
    white.send("Pass.")
    club.cycle()
    assert "Your move 2 pass was accepted" in body_of(white.inbox()[-1])
    assert "の着手は 2 パス です" in body_of(black.inbox()[-1])
    before = len(white.inbox())
    stranger_text = black.compose("パス", to=f"relay+{game_id}@club.example",
                                  subject=f"[{game_id}]")
    club.deliver(stranger_text.as_bytes(), None)  # no token: proves nothing
    club.cycle()
    assert len(white.inbox()) == before  # held: nothing relayed
    assert "ply   3" not in club.cli("game", "show", game_id).stdout
    asked = body_of(black.inbox()[-1])  # the registered address is asked to confirm
    assert "> パス" in asked


def test_j1_a_record_that_disagrees_names_the_first_difference(club: Club) -> None:
    _game_id, black, white = _small_game(club)
    black.send("1 E5")
    club.cycle()
    white.send("2 C3")
    club.cycle()
    before = len(white.inbox())
    black.send("1 E5\n2 C4\n3 G7")  # move 2 was C3
    club.cycle()
    reply = body_of(black.inbox()[-1])
    assert "2 C3" in reply and "C4" in reply, reply
    assert len(white.inbox()) == before  # nothing relayed


@pytest.mark.parametrize("store", ["club", "pg_club"])
def test_two_passes_then_the_same_result_ends_the_game(store: str,
                                                       request: pytest.FixtureRequest) -> None:
    """On SQLite and on PostgreSQL: the stated result is kept with the position, and the
    same result from the other side ends the game with its margin."""
    club: Club = request.getfixturevalue(store)
    game_id, black, white = _small_game(club)
    for player, text in ((black, "1 E5"), (white, "2 C3"), (black, "3 pass"),
                         (white, "4 パス")):
        player.send(text)
        club.cycle()
    assert "Both players passed" in body_of(white.inbox()[-1])
    # nobody is on a move while the result is stated: no "current move" clock line
    assert "On the current move" not in body_of(white.inbox()[-1])
    assert "現在の手番の消費" not in body_of(black.inbox()[-1])
    # the operator's view says so too, not that a side is to move
    assert "to move: nobody; both players passed and state the result" \
        in club.cli("game", "show", game_id).stdout
    black.send("結果 黒3目半勝ち")
    club.cycle()
    asked = body_of(white.inbox()[-1])
    assert "result B+3.5" in asked  # the line to send to agree
    white.send("result B+3.5")
    club.cycle()
    # go's own words (issue 25 item 7): 黒3目半勝ち in Japanese, B+3.5 in English
    assert "黒3目半勝ち（両者が申告した結果の一致）" in body_of(black.inbox()[-1])
    assert "B+3.5 (the result both players stated)" in body_of(white.inbox()[-1])
    show = club.cli("game", "show", game_id).stdout
    assert "finished" in show and "B+3.5" in show
    exported = sgf.Sgf_game.from_string(club.cli("game", "record", game_id).stdout)
    assert exported.get_root().get("RE") == "B+3.5" and exported.get_size() == 9


def test_a_disputed_result_goes_to_the_td_who_adjudicates(club: Club) -> None:
    game_id, black, white = _passed_out(club)
    white.send("result W+0.5")  # White is to move after Black's pass: White states first
    club.cycle()
    black.send("result B+4.5")
    club.cycle()
    td = body_of(club.mails_to(TD)[-1])
    assert f"adjudicate {game_id}" in td and "W+0.5" in td and "B+4.5" in td
    assert "(X)" in td or "X" in td  # the position
    assert "TD" in body_of(black.inbox()[-1])
    club.cli("td", "adjudicate", game_id, "B+4.5")
    show = club.cli("game", "show", game_id).stdout
    assert "finished" in show and "B+4.5" in show


def test_a_stated_result_reaches_a_japanese_reader_in_go_words(club: Club) -> None:
    """The opponent's statement and the one line to agree with are in the reader's
    words (白半目勝ち, not W+0.5), and that line, sent back, ends the game."""
    game_id, black, white = _passed_out(club)
    white.send("result W+0.5")
    club.cycle()
    asked = black.inbox()[-1]
    assert "結果の申告: 白半目勝ち" in str(asked.parsed["Subject"])
    assert "\n  結果 白半目勝ち\r\n" in body_of(asked)
    assert "W+0.5" not in body_of(asked)
    black.send("白半目勝ち")  # without the keyword: nothing is read; the reply says how
    club.cycle()
    told = body_of(black.inbox()[-1])
    assert "結果の申告を待っています" in told and "新しい着手" not in told
    black.send("結果 白半目勝ち")
    club.cycle()
    show = club.cli("game", "show", game_id).stdout
    assert "finished" in show and "W+0.5" in show


def test_the_player_not_to_move_may_state_the_result_first(club: Club) -> None:
    """After Black's pass White is to move, yet Black's statement is taken (not "not
    your turn") and relayed; White's agreeing statement ends the game."""
    game_id, black, white = _passed_out(club)
    black.send("結果 黒3目半勝ち")
    club.cycle()
    assert "result B+3.5" in body_of(white.inbox()[-1])
    white.send("result B+3.5")
    club.cycle()
    show = club.cli("game", "show", game_id).stdout
    assert "finished" in show and "B+3.5" in show


def test_the_digest_asks_a_passed_out_game_for_its_result_not_a_move(club: Club) -> None:
    """After two passes the weekly digest tells both players the result is to be stated
    (each in their language), not that it is one side's move."""
    from relaybot.app.digest import send_digests

    _passed_out(club)
    # the cycles sent this week's digest before the moves: next week's is the one
    assert send_digests(club.store, club.cfg, club.clock + timedelta(days=7)) == 2
    en_text, ja_text = _latest_digests(club)
    assert "both players passed: please state the result if you have not yet" in en_text
    assert "両者がパスしました。まだでしたら結果を申告してください" in ja_text
    assert "YOUR MOVE" not in en_text and "opponent to move" not in en_text
    assert "手番" not in ja_text


def _run_at(club: Club, when: datetime) -> None:
    """``relaybot run --once --now WHEN`` as the operator's cron would: the sweep and the
    sending of what it queued."""
    club.cli("run", "--once", "--now", when.isoformat())


def test_j11_after_both_passed_the_silent_player_is_the_one_owing_the_result(
        club: Club) -> None:
    """J11 once both passed: a statement of the result ends its author's silence and
    starts the other's; the reminder (10 days) and the TD's notice (10 more) go to the
    player who has not stated the result, counted from the statement, and say so."""
    game_id, black, white = _passed_out(club)
    passed = club.clock
    # White (to move after Black's pass) states the result 8 days later: Black owes it now
    white.send("result W+0.5", at=passed + timedelta(days=8))
    club.cycle()

    def told(address: str, kind: str) -> list[str]:
        return [body_of(c) for c in club.mails_to(address)
                if c.parsed["X-Relaybot-Kind"] == kind]

    _run_at(club, passed + timedelta(days=12))  # 12 days after the passes
    assert not told(white.address, "reminder") and not told(black.address, "reminder")
    _run_at(club, passed + timedelta(days=8 + 11))  # 11 after the statement
    assert not told(white.address, "reminder")  # White has stated: White is not silent
    assert len(told(black.address, "reminder")) == 1
    reminder = next(c for c in club.mails_to(black.address)
                    if c.parsed["X-Relaybot-Kind"] == "reminder")
    assert "督促: 結果を申告してください" in str(reminder.parsed["Subject"])
    assert "両者がパスしましたが、11日間あなたから結果の申告が届いていません。" \
        in body_of(reminder)
    _run_at(club, passed + timedelta(days=8 + 22))
    notice = told(TD, "td_silence")
    assert len(notice) == 1  # the TD reads English here
    assert "Taro Kuro (black) has not stated the result in the 22 days since both " \
           "players passed" in notice[0], notice[0]
    assert f"forfeit {game_id} black" in notice[0]


def test_j11_the_reminder_of_a_result_not_stated_says_so(club: Club) -> None:
    """The reminder of a silence after both passed asks for the result, not a move."""
    _game_id, _black, white = _passed_out(club)
    _run_at(club, club.clock + timedelta(days=11))  # White owes it (English)
    reminder = next(c for c in club.mails_to(white.address)
                    if c.parsed["X-Relaybot-Kind"] == "reminder")
    assert "Reminder: the result" in str(reminder.parsed["Subject"])
    text = body_of(reminder)
    assert "Both players have passed, and the bot has had no statement of the result from " \
           "you for 11 days" in text
    assert "your move" not in text.lower()


def test_a_draw_offer_in_go_is_refused_whole_and_the_help_lists_none(club: Club) -> None:
    """Go has no draw offers: a move sent with one is not relayed, the sender is told how
    a go game ends; the same move alone then goes through; the help lists no draw."""
    _game_id, black, white = _small_game(club)
    before = len(white.inbox())
    black.send("1 E5\nドロー?")
    club.cycle()
    reply = body_of(black.inbox()[-1])
    assert "囲碁には引き分けの提案がないため" in reply and "「結果 持碁」" in reply
    assert len(white.inbox()) == before  # nothing relayed
    black.send("1 E5")
    club.cycle()
    assert "1 E5" in body_of(white.inbox()[-1])
    white.send("help")
    club.cycle()
    helped = body_of(white.inbox()[-1])
    assert "resign" in helped and '"draw?"' not in helped and '"draw"' not in helped


def test_white_moves_first_in_a_handicap_game_by_mail(club: Club) -> None:
    black = club.member("Kuro, Taro", "kuro@example.jp", lang="ja")
    white = club.member("Shiro, Hanako", "shiro@example.org")
    game_id = club.game(white, black, kind="go",
                        options=(("size", "13"), ("handicap", "2")))
    assert "白の番" in body_of(black.inbox()[-1])
    white.send("1 C11")
    club.cycle()
    relayed = body_of(black.inbox()[-1])
    assert "1 C11" in relayed and "黒の番" in relayed
    black.send("2 pc")  # an SGF point off a 13x13 board (letters a-m)
    club.cycle()
    assert "13路盤に「pc」はありません" in body_of(black.inbox()[-1])
    black.send("2 D3")
    club.cycle()
    assert "2 D3" in body_of(white.inbox()[-1])
    white.send("help")
    club.cycle()
    helped = body_of(white.inbox()[-1])
    # the examples lie on this 13x13 board (K10, not 19x19's Q16)
    assert "47 K10" in helped and "result B+3.5" in helped and "1. e4" not in helped
    assert "Q16" not in helped and "A-N without I" in helped
    white.send("C11")  # no number: not played; the reply shows the numbered line to send
    club.cycle()
    answer = body_of(white.inbox()[-1])
    assert "no move number" in answer and "  3 C11" in answer
    assert club.cli("game", "show", game_id).returncode == 0


def test_j11_d1_a_disputed_result_waits_for_the_td_alone(club: Club) -> None:
    """J11 and D1 once the two stated results differ: the TD has both and decides, and
    neither player may state again; so nobody is silent (no reminder, no notice of a
    silence to the TD, however long the TD takes), and the weekly digest says the TD
    decides instead of asking a player for a result they have stated."""
    from relaybot.app.digest import send_digests

    game_id, black, white = _passed_out(club)
    passed = club.clock
    white.send("result W+0.5", at=passed + timedelta(days=1))
    club.cycle()
    black.send("result B+4.5", at=passed + timedelta(days=2))
    club.cycle()
    for days in (13, 25, 40):
        _run_at(club, passed + timedelta(days=days))
    kinds = [c.parsed["X-Relaybot-Kind"] for c in club.sink.captured]
    assert "reminder" not in kinds and "td_silence" not in kinds, kinds
    assert send_digests(club.store, club.cfg, passed + timedelta(days=49)) == 2
    en_text, ja_text = _latest_digests(club)
    assert f"{game_id} (you play White" in en_text
    assert "the results stated differ: the tournament director decides" in en_text
    assert "申告された結果が異なるため、TD が裁定します" in ja_text
    assert "please state the result" not in en_text and "結果を申告してください" not in ja_text
    club.cli("td", "adjudicate", game_id, "B+4.5",  # the TD's answer still ends it
             "--now", (passed + timedelta(days=50)).isoformat())
    assert "finished" in club.cli("game", "show", game_id).stdout
    # the next digest's result names who had Black and who White (go's result says a
    # colour, not a player), in each reader's words
    assert send_digests(club.store, club.cfg, passed + timedelta(days=56)) == 2
    en_text, ja_text = _latest_digests(club)
    assert "Taro Kuro (Black) - Hanako Shiro (White) B+4.5" in en_text, en_text
    assert "Kuro Taro（黒） - Hanako Shiro（白） 黒4目半勝ち" in ja_text, ja_text
