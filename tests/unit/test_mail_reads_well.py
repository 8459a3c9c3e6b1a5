"""Issue 15: mail that reads well. Names as each language writes them, the date line in
time order, the board from the reader's side, PGN as programs expect it (while ``game
pgn`` keeps the J15 form), the HTML part with the board as a picture, ``digest off``."""

from __future__ import annotations

from datetime import UTC, date, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage

from relaybot.club.views import date_line
from relaybot.core.intent import read_intent
from relaybot.core.text import display_name
from relaybot.games.base import RecordInfo
from relaybot.games.chess import RULES
from relaybot.games.chess.pgn import pgn_time_control
from relaybot.mail.compose import Alternative, Part, compose
from relaybot.mail.html import alternative
from relaybot.mail.render import render


def test_names_as_each_language_writes_them() -> None:
    assert display_name("Smith, Ann", "en") == "Ann Smith"
    assert display_name("山田, 太郎", "ja") == "山田太郎"
    assert display_name("山田, 太郎", "en") == "山田太郎"  # a Japanese name keeps its order
    assert display_name("Ann Smith", "en") == "Ann Smith"  # applying it twice changes nothing
    assert display_name("Odd, Name, Here", "en") == "Odd, Name, Here"


def test_no_dear_smith_ann_and_no_space_before_sama() -> None:
    """The issue's complaint: "Dear Smith, Ann"; Japanese writes 山田太郎様."""
    _, en = render("en", "member", "digest_off", reader="Smith, Ann")
    _, ja = render("ja", "member", "digest_off", reader="山田, 太郎")
    assert en.startswith("Dear Ann Smith,") and "Smith, Ann" not in en
    assert ja.startswith("山田太郎様") and "山田, 太郎" not in ja


def test_j6_j18_date_line_reads_in_time_order() -> None:
    """A reply sent on the relay day comes before its deemed receipt (J6: the next day)."""
    line = date_line({"last_relayed_day": "2026-11-23", "last_receipt_day": "2026-11-24",
                      "last_reply_day": "2026-11-23"})
    assert [d["what"] for d in line] == ["relayed", "sent", "received"]
    assert [d["day"] for d in line] == ["2026-11-23", "2026-11-23", "2026-11-24"]
    later = date_line({"last_relayed_day": "2026-11-23", "last_receipt_day": "2026-11-24",
                       "last_reply_day": "2026-11-27"})
    assert [d["what"] for d in later] == ["relayed", "received", "sent"]


def test_board_from_the_readers_side() -> None:
    board = RULES.replay(["e2e4"])
    black = RULES.board_text(board, "en", 1).splitlines()
    assert black[0] == "1 R N B K Q B N R"  # Black sits behind rank 8: rank 1 on top
    assert black[3] == "4 . . . P . . . ."  # e4: the fourth file from Black's left
    assert black[8] == "  h g f e d c b a"
    assert RULES.board_text(board, "en", 0).splitlines()[0] == "8 r n b q k b n r"


def _info(standard: bool) -> RecordInfo:
    return RecordInfo(
        event="Club 2026", site="Kanto CC", start=date(2026, 1, 10), round="-",
        players=("Hayakawa, Satoru", "Horie, Takahiro"), ratings=(1850, None), result="1-0",
        end=date(2026, 3, 1), moves=[("e2e4", "2026-01-10"), ("e7e5", "2026-01-12")],
        standard=standard, time_control="10/30", termination="resignation",
        event_date=date(2026, 1, 5))


def test_pgn_with_the_standard_headers() -> None:
    pgn = RULES.write_record(_info(True))
    for tag in ('[Site "Kanto CC"]', '[EventDate "2026.01.05"]', '[WhiteElo "1850"]',
                '[TimeControl "10/2592000"]', '[Termination "normal"]', '[Mode "EM"]'):
        assert tag in pgn
    assert "BlackElo" not in pgn  # not known: no tag rather than a made-up one
    assert "WhiteJCCA" not in pgn and "EndDate" not in pgn
    assert pgn_time_control("bank:20") == "1728000"
    assert pgn_time_control("fischer:30+1/45") == "?"


def test_j15_report_form_stays_as_it_was() -> None:
    pgn = RULES.write_record(_info(False))
    assert '[WhiteJCCA "1850"]' in pgn and '[BlackJCCA "-"]' in pgn
    assert '[EndDate "2026.03.01"]' in pgn
    assert "TimeControl" not in pgn and "Termination" not in pgn and "EventDate" not in pgn


def _read(msg: EmailMessage) -> EmailMessage:
    parsed = message_from_bytes(msg.as_bytes(), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def test_html_part_with_the_board_as_a_picture_and_the_record_attached() -> None:
    board = RULES.board_text(RULES.start(), "ja", 1)
    body = f"山田太郎様\n\n棋譜:\n1. e4\n\n{board}\nFEN: x\n"
    context = {"board": board, "board_svg": RULES.board_svg(RULES.start(), 1),
               "position": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
               "position_name": "FEN", "game_link": "https://chess.example/games/g1",
               "record_file": {"name": "g1.pgn", "format": "pgn", "text": "1. e4 *"}}
    alt = alternative("ja", "[g1] 件名", body, context, "club.example")
    msg = _read(compose(
        from_name="bot", from_addr="relay@club.example", to_name="山田, 太郎",
        to_addr="y@example.jp", subject="[g1] 件名", body=body, message_id="m1@club.example",
        date=datetime(2026, 11, 23, tzinfo=UTC), alternative=alt))
    assert msg.get_content_type() == "multipart/mixed"
    text = msg.get_body(preferencelist=("plain",))
    assert text is not None and text.get_content().replace("\r\n", "\n") == body
    html = msg.get_body(preferencelist=("html",))
    assert html is not None
    page = html.get_content()
    assert "https://chess.example/games/g1" in page and "FEN: rnbqkbnr" in page
    assert "山田太郎様" in page and "1. e4" in page
    assert board not in page  # the picture stands where the text diagram stood
    images = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert len(images) == 1 and images[0].get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    assert images[0].get_content_disposition() == "inline"  # shown in the page, not listed
    assert f'cid:{images[0]["Content-ID"].strip("<>")}' in page
    files = [p for p in msg.walk() if p.get_filename() == "g1.pgn"]
    assert files and files[0].get_content_type() == "application/vnd.chess-pgn"
    assert files[0].get_content() == b"1. e4 *"


def test_a_mail_without_extras_stays_one_plain_part() -> None:
    msg = _read(compose(
        from_name="bot", from_addr="relay@club.example", to_name="x", to_addr="x@example.jp",
        subject="s", body="b\n", message_id="m2@club.example",
        date=datetime(2026, 11, 23, tzinfo=UTC), alternative=Alternative()))
    assert msg.get_content_type() == "text/plain"
    assert Part("a", "text", "plain", b"").cid == ""


def test_d1_digest_off_keyword_in_both_languages() -> None:
    assert read_intent("digest off").digest_off
    assert read_intent("ダイジェスト停止").digest_off
    assert read_intent("Digest Off.").digest_off
    assert not read_intent("1. e4 e5").digest_off
    assert read_intent("digest on").digest_on and read_intent("ダイジェスト再開").digest_on
    assert not read_intent("digest on").digest_off and not read_intent("digest off").digest_on


def _help(lang: str, **over: object) -> str:
    context: dict[str, object] = {
        "game_id": "g1", "reader": "Smith, Ann", "game_kind": "chess", "record_policy": "full",
        "game_keywords": [], "conditionals": "binding"}
    context.update(over)
    # the game part of the mail is covered elsewhere: render the help text above it
    from relaybot.mail.render import _environment, templates_dir

    source = (templates_dir() / lang / "player" / "help.txt.j2").read_text("utf-8")
    head = source.split('{% include "' + lang + '/player/_game')[0]
    return _environment(str(templates_dir())).from_string(head).render(**context)


def test_the_help_mail_lists_every_keyword_in_both_languages() -> None:
    """Every registered keyword (core/intent.py) is in the help mail, in the reader's
    language: leave, td:, long think, digest off... and conditional moves."""
    from relaybot.core import intent

    keywords = {type(k): set(k.words) | set(k.prefixes)
                for k in [*intent._BY_WORD.values(), *intent._BY_PREFIX]}
    assert intent.DigestOff in keywords and intent.LeaveRequest in keywords
    for lang in ("en", "ja"):
        text = _help(lang)
        for cls, words in keywords.items():
            assert any(w in text for w in words), (lang, cls.__name__)
        assert ("if 3... Bc5 then 4. c3" if lang == "en" else "もし 3... Bc5 なら 4. c3") in text
    assert "入玉宣言" in _help("ja", game_kind="shogi", game_keywords=["入玉宣言"])
    assert "Conditional moves" not in _help("en", conditionals="off")


def test_chess_draws_its_own_board_picture_from_either_side() -> None:
    """The mail's picture without rasterising the SVG (fast), from the reader's seat."""
    board = RULES.replay(["e2e4"])
    white, black = RULES.board_png(board, 0), RULES.board_png(board, 1)
    assert white[:8] == black[:8] == b"\x89PNG\r\n\x1a\n" and white != black
    # also from the saved FEN, which keeps no history: the last move is given (issue 26)
    assert RULES.board_png(RULES.save(board), 1, last="e2e4") == black


def test_a_go_pass_is_written_in_the_readers_language() -> None:
    """Issue 15: a Japanese reader's go record says パス (read back as a pass too);
    other games' moves are notation, the same in every language."""
    from relaybot.core.game import moves_in
    from relaybot.games import rules_for

    go = rules_for("go")
    assert moves_in(go, "1 E5  2 C3  3 pass  4 pass", "ja") == "1 E5  2 C3  3 パス  4 パス"
    assert moves_in(go, "3 pass", "en") == "3 pass"
    assert moves_in(RULES, "1. e4 e5", "ja") == "1. e4 e5"
    from relaybot.games.go.notation import PASS_WORDS

    assert "パス" in PASS_WORDS


def test_a_time_control_in_the_readers_language() -> None:
    from relaybot.core.clocks.controls import TimeControl
    from relaybot.mail.render import time_control_text

    assert time_control_text("bank:20", "ja") == "通算20日（0日で負け）"
    assert time_control_text("bank:20", "en") == "20 days in all (lost at 0)"
    assert time_control_text("10/30", "ja") == "10/30"
    assert TimeControl.parse("fischer:30+1:45,max:14").describe("ja") == (
        "30日、1手ごとに1日加算、上限45日、1手あたり最大14日")
    assert time_control_text("nonsense", "ja") == "nonsense"
    assert time_control_text(None, "ja") == ""


def _digest_line(lang: str, kind: str, plies: int) -> str:
    from relaybot.games import rules_for

    side = rules_for(kind).side_names(lang)[0]
    game = {"id": "g1", "opponent": "Tom Brown", "side": side, "your_move": False,
            "moves": plies, "kind": kind, "used": 3, "control": "", "left": 17, "pending": 0}
    _, body = render(lang, "member", "digest", week="2026-W48", reader="Smith, Ann",
                     games=[game], results=[], corrections=[], ratings=[], standings=[],
                     leaves=[], announcements=[], membership=None, club_news=[], ladders=[],
                     player_link="", unsubscribe_link="")
    return next(line for line in body.splitlines() if "g1" in line)


def test_the_digest_counts_moves_as_each_games_players_do() -> None:
    """Chess by the last move's number and whose it was (a chess 手 is White's move and
    Black's answer: 6 plies are 黒の第3手まで, not 6手まで); shogi and go a move a ply, in
    both languages; never "plies"."""
    assert "), after Black's 3rd move: opponent to move;" in _digest_line("en", "chess", 6)
    assert "さん）黒の第3手まで: 相手の手番。" in _digest_line("ja", "chess", 6)
    for kind in ("shogi", "go"):
        assert "), 6 moves played: opponent to move;" in _digest_line("en", kind, 6)
        assert "), 1 move played: " in _digest_line("en", kind, 1)
        assert "さん）6手まで: 相手の手番。" in _digest_line("ja", kind, 6)
    for kind in ("chess", "shogi", "go"):
        assert "), no move yet: " in _digest_line("en", kind, 0)
        assert "さん）初手はまだ: " in _digest_line("ja", kind, 0)


def test_the_season_progress_counts_a_shogi_move_a_ply() -> None:
    """The TD's month report of the shogi league: 1 move played (never "1 moves"), 12手まで."""
    game = {"id": "g1", "sente": "Ann Smith", "gote": "Tom Brown", "sente_left": 5,
            "gote_left": 9, "on_move": 1, "kind": "shogi"}
    common = {"season": "第2期", "month": 1, "month_end": "2029-01-31", "end": "2029-06-30",
              "days_left": 150, "secretary": False, "reader": "TD"}

    def line(lang: str, plies: int) -> str:
        classes = [{"event": "S", "finished": [], "running": [{**game, "moves": plies}]}]
        _, body = render(lang, "td", "season_progress", classes=classes, **common)
        return next(text for text in body.splitlines() if "[g1]" in text)

    assert line("en", 1).endswith("(days left: 9), 1 move played, Gote to move")
    assert line("en", 12).endswith("(days left: 9), 12 moves played, Gote to move")
    assert line("ja", 12).endswith("（残り 9 日）  12手まで、後手の手番")


def test_the_season_progress_says_a_finished_game_in_shogis_words() -> None:
    """The month report's finished games: 先手の勝ち / Sente wins, not the stored 1-0."""
    done = {"id": "g2", "sente": "Ann Smith", "gote": "Tom Brown", "result": "1-0",
            "kind": "shogi", "termination": "resignation", "end": "2029-01-10"}
    common = {"season": "第2期", "month": 1, "month_end": "2029-01-31", "end": "2029-06-30",
              "days_left": 150, "secretary": False, "reader": "TD"}
    said = {}
    for lang in ("en", "ja"):
        classes = [{"event": "S", "finished": [done], "running": []}]
        _, body = render(lang, "td", "season_progress", classes=classes, **common)
        said[lang] = next(text for text in body.splitlines() if "[g2]" in text)
    assert "1-0" not in said["en"] and "Sente" in said["en"]
    assert "1-0" not in said["ja"] and "先手" in said["ja"]


def test_a_clock_past_its_limit_says_how_far_over_not_a_negative_count() -> None:
    """J9: a side over its limit stays in play until the TD decides; its mail and the
    digest say the days over the limit, never "-3 days left"."""
    from relaybot.mail.wording import days_left

    assert [days_left(n, "en") for n in (17, 0, -1, -3)] == [
        "17", "0", "0, 1 day over", "0, 3 days over"]
    assert [days_left(n, "ja") for n in (17, 0, -3)] == ["17日", "0日", "0日（3日超過）"]
    common = {"game_id": "g1", "white": "A", "black": "B"}
    for lang in ("en", "ja"):
        _, text = render(lang, "td", "silence", **common, player="B", colour="black",
                         email="b@example.org", relayed="2026-11-01", first_move=False,
                         reminder_sent="", silent_days=20, results="1-0",
                         ledgers=[{"colour": "Black", "name": "B", "total": 33, "left": -3,
                                   "rows": []}])
        assert "-3" not in text and ("3 days over" in text or "3日超過" in text)
    over = {"id": "g1", "opponent": "Tom Brown", "side": "White", "your_move": True,
            "moves": 4, "kind": "chess", "used": 33, "control": 10, "left": -3, "pending": 5}
    for lang, said in (("en", "3 days over the limit for move 10."),
                       ("ja", "第10手までの持ち日数を3日超過。")):
        _, body = render(lang, "member", "digest", week="2026-W48", reader="Smith, Ann",
                         games=[over], results=[], corrections=[], ratings=[], standings=[],
                         leaves=[], announcements=[], membership=None, club_news=[],
                         ladders=[], player_link="", unsubscribe_link="")
        assert said in body and "-3" not in body


def test_mail_shared_by_every_game_says_te_not_chesss_sashite() -> None:
    """Mail about no one game (a hold, digest off) says 手, not chess's 指し手; the TD's
    silence notice of a go game says 着手 (a shogi or chess game's, 指し手)."""
    _, hold = render("ja", "member", "hold", kind="request", subject="x", reader="山田, 太郎",
                     quoted="> パス", until="2026-12-01", td=False, days=7, status="")
    _, off = render("ja", "member", "digest_off", reader="山田, 太郎")
    assert "指し手" not in hold and "手やコマンド" in hold
    assert "指し手" not in off and "相手の手" in off
    silence = {"game_id": "abc", "white": "白, 一", "black": "黒, 二", "player": "黒, 二",
               "colour": "黒", "email": "k@example.jp", "ledgers": [], "relayed": "2026-11-01",
               "first_move": False, "silent_days": 20, "stating": False, "reminder_sent": "",
               "results": ""}
    _, go = render("ja", "td", "silence", game_kind="go", **silence)
    _, shogi = render("ja", "td", "silence", game_kind="shogi", **silence)
    assert "に着手を転送してから" in go and "指し手" not in go
    assert "に指し手を転送してから" in shogi


def test_j18_every_players_mail_says_a_bank_clock_in_words() -> None:
    """The clocks' line of a player's mail (move, receipt, reminder: the shared game part)
    and the TD's overrun report say ``bank:20`` as the reader's words, never the
    settings' text."""
    from tests.unit.test_go_words import _game

    context = {**_game("shogi"), "time_control": "bank:20", "silent_days": 10}
    said = {lang: render(lang, "player", "reminder", **context)[1] for lang in ("en", "ja")}
    assert "Time control 20 days in all (lost at 0), started 2026-01-01." in said["en"]
    assert "持ち時間 通算20日（0日で負け）、開始日 2026-01-01。" in said["ja"]
    report = {"game_id": "g1", "white": "A", "black": "B", "time_control": "fischer:30+1",
              "player": "A", "colour": "white", "total": 31, "move": 10, "limit": 30,
              "ledgers": [], "automatic": False}
    assert "(A - B, 30 days, 1 more after each move)" in render("en", "td", "overrun",
                                                                 **report)[1]
    assert all("bank:20" not in body for body in said.values())


def test_the_tds_result_report_reads_as_a_sentence_in_every_game() -> None:
    """J15: "Game g1 of the league ended on 2026-11-20: Sente wins (resignation)", not
    "has ended Sente wins"; in Japanese the game id stands apart from は."""
    context = {"game_id": "g1", "white": "A", "black": "B", "result_text": "Sente wins",
               "ending": "resignation", "termination": "resignation",
               "end_date": "2026-11-20", "pgn": "(record)", "event": "", "scores": [],
               "game_kind": "shogi"}
    en = render("en", "td", "result", **{**context, "event": "League"})[1]
    assert "Game g1 of League ended on 2026-11-20: Sente wins (resignation)." in en
    ja = render("ja", "td", "result", **{**context, "result_text": "先手の勝ち",
                                         "ending": "投了"})[1]
    assert "対局 g1 は 2026-11-20 に 先手の勝ち（投了）で終了しました。" in ja


def test_j16_the_receipt_names_a_line_not_read_as_a_proposal() -> None:
    """The sender of 「予想手: 4. c3 Nf6」 is told it binds nobody and shown the form the
    bot reads, in their language and their game's notation."""
    from tests.unit.test_go_words import _move

    for kind, example in (("chess", "3... Bc5"), ("shogi", "16 △同歩"), ("go", "48 ")):
        context = {**_move(kind), "unread_proposal": "予想手: 4. c3 Nf6", "rejected": [],
                   "game_kind": kind}
        ja = render("ja", "player", "ack", **context)[1]
        assert "「予想手: 4. c3 Nf6」の行は予想手として読めなかったため" in ja
        assert f"「もし {example}" in ja
        en = render("en", "player", "ack", **context)[1]
        assert 'Note: the line "予想手: 4. c3 Nf6" was not read as a conditional move' in en
        assert f'"if {example}' in en
    quiet = render("en", "player", "ack", **{**_move("chess"), "rejected": []})[1]
    assert "not read as a conditional move" not in quiet
    relayed = render("ja", "player", "move", **{**_move("shogi"),
                                                "unread_proposal": "予想手: ５五角"})[1]
    assert ("（「予想手: ５五角」の行は予想手として読めなかったため、"
            "どちらの対局者も拘束しません。）") in relayed
