"""Issue 26: every game in its own words (results, endings, score lines), English
plurals by CLDR, and the headers a mail client acts on as RFC 2369/8058 write them."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage

import pytest

from relaybot.core.game import Outcome
from relaybot.core.words import result_words, termination_words
from relaybot.games import rules_for
from relaybot.mail.compose import POLICY, fold_list
from relaybot.mail.wording import count, ending_text, result_text, score_text


@pytest.mark.parametrize(("outcome", "ja", "en"), [
    (Outcome.win("resignation", 0), "先手の勝ち", "Sente wins"),
    (Outcome.win("checkmate", 1), "後手の勝ち", "Gote wins"),
    (Outcome.draw("sennichite"), "千日手", "Sennichite (千日手)"),
    (Outcome.draw("jishogi"), "持将棋", "Jishogi (持将棋)"),
    (Outcome.draw("agreement"), "引き分け", "Draw"),
    (Outcome("time", both_lose=True), "両者負け", "Both lose"),
])
def test_shogi_says_its_results_in_its_own_words(outcome: Outcome, ja: str, en: str) -> None:
    rules = rules_for("shogi")
    assert result_words(rules, outcome, "ja") == ja
    assert result_words(rules, outcome, "en") == en
    # the store keeps the TD's words; reading them back gives the same words
    stored = rules.format_result(outcome)
    assert result_text("shogi", stored, outcome.termination, "ja") == ja


def test_chess_results_stay_as_players_write_them() -> None:
    rules = rules_for("chess")
    assert result_words(rules, Outcome.win("checkmate", 0), "ja") == "1-0"
    assert result_text("chess", "1/2-1/2", "agreement", "en") == "1/2-1/2"
    assert termination_words(rules, "agreement", "ja") == "合意によるドロー"


def test_endings_come_from_the_game_else_the_shared_words() -> None:
    assert ending_text("shogi", "checkmate", "ja") == "詰み"
    assert ending_text("shogi", "sennichite", "ja") == "引き分け、指し直しなし"
    assert ending_text("shogi", "adjudication", "ja") == "TDの裁定"  # shared by all
    assert ending_text("chess", "checkmate", "ja") == "チェックメイト"
    assert ending_text("chess", "made_up", "ja") == ""  # a template may say it


def test_go_words_its_stored_results_and_chess_keeps_its_own() -> None:
    """Go words a stored result from its text (the margin is in it: 黒5目半勝ち); a game
    without words of its own writes its result as it stores it (chess 1-0)."""
    assert result_text("go", "B+5.5", "counted", "ja") == "黒5目半勝ち"
    assert result_text("go", "W+R", "resignation", "ja") == "白中押し勝ち"
    assert result_text("chess", "1-0", "resignation", "ja") == "1-0"


def test_score_lines_in_each_games_words_and_plurals() -> None:
    assert score_text("shogi", 1, 0, 0, "ja", own=True) == "あなたの通算成績は 1勝 0敗 0引き分け。"
    assert score_text("chess", 2, 1, 0, "ja", who="山田太郎") == \
        "山田太郎の通算成績は 2勝 1ドロー 0敗。"
    assert score_text("chess", 1, 0, 1, "en", who="Ann Smith") == \
        "Ann Smith's score: 1 win, 0 draws, 1 loss."
    assert score_text("shogi", 0, 2, 3, "en", own=True) == "Your score: 0 wins, 2 draws, 3 losses."
    assert "ドロー" not in score_text("shogi", 1, 1, 1, "ja", who="佐藤花子")


def test_english_plurals_by_cldr() -> None:
    assert [count(n, "ply") for n in (0, 1, 2)] == ["0 plies", "1 ply", "2 plies"]
    assert count(1, "day") == "1 day" and count(3, "day", "ja") == "3日"
    assert count(1.5, "day") == "1.5 days" and count(21, "game") == "21 games"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_plural_rules_are_babels_cldr_data(lang: str) -> None:
    """The rules written into relaybot.mail.plurals (read without unpickling a whole
    locale) give every number the category Babel's own locale data gives it."""
    from babel import Locale

    from relaybot.mail.plurals import plural_form

    locale = Locale.parse(lang)
    numbers = [0, 1, 2, 3, 11, 21, 100, 1001, 0.0, 1.0, 1.5, 2.5, 0.1]
    assert [plural_form(n, lang) for n in numbers] == [locale.plural_form(n) for n in numbers]


def test_list_unsubscribe_is_never_an_encoded_word() -> None:
    msg = EmailMessage(policy=POLICY)
    web = "https://club.example/unsubscribe/12/" + "a" * 60 + "." + "b" * 40
    mailto = "mailto:relay+u.abcdefghij@club.example?subject=digest%20off"
    msg["List-Unsubscribe"] = f"<{web}>, <{mailto}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    raw = msg.as_bytes()
    assert b"=?" not in raw
    assert f"List-Unsubscribe: <{web}>,\r\n <mailto:".encode() in raw
    assert b"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw
    assert fold_list("List-Id", "<games.club.example>") == "List-Id: <games.club.example>\r\n"
    with pytest.raises(ValueError):
        fold_list("List-Unsubscribe", "<https://club.example/退会>")


def test_a_japanese_subject_keeps_its_spaces_and_its_tag() -> None:
    subject = "[6esw7x] 終局: 佐藤花子 - 山田太郎 先手の勝ち（投了） and more words to fold"
    msg = EmailMessage(policy=POLICY)
    msg["Subject"] = subject
    raw = msg.as_bytes()
    assert raw.startswith(b"Subject: [6esw7x] =?utf-8?")
    assert email.message_from_bytes(raw + b"\r\n", policy=policy.default)["Subject"] == subject


def test_zones_in_words() -> None:
    """Issue 26 item 5: a zone as its reader names it (CLDR through Babel), never the id."""
    from relaybot.mail.zones import zone_name

    assert zone_name("Asia/Tokyo", "ja") == "日本時間"
    assert zone_name("Asia/Tokyo", "en") == "Japan Time"
    # CLDR renamed it between Babel releases (2.19: 英国時間); either is what a reader says
    assert zone_name("Europe/London", "ja") in ("イギリス時間", "英国時間")
    assert zone_name("UTC", "en") == "UTC"
    assert zone_name("Nowhere/Else", "ja") == "Nowhere/Else"  # unknown: as it is


@pytest.mark.parametrize(("kind", "plies", "en", "ja"), [
    ("chess", 0, "no move yet", "初手はまだ"),
    ("chess", 1, "after White's 1st move", "白の第1手まで"),
    ("chess", 5, "after White's 3rd move", "白の第3手まで"),  # 1. e4 e5 2. Nf3 Nc6 3. Bb5
    ("chess", 6, "after Black's 3rd move", "黒の第3手まで"),  # ... 3... a6: move 3, not 6
    ("chess", 22, "after Black's 11th move", "黒の第11手まで"),
    ("shogi", 0, "no move yet", "初手はまだ"),
    ("shogi", 1, "1 move played", "1手まで"),
    ("shogi", 6, "6 moves played", "6手まで"),  # a shogi 手 is one ply
    ("go", 6, "6 moves played", "6手まで"),  # a go 手 is one stone
    ("go", 21, "21 moves played", "21手まで"),
])
def test_progress_as_each_games_players_count_moves(kind: str, plies: int, en: str,
                                                   ja: str) -> None:
    """A chess 手 (and an English chess move) is a move of each side, numbered as the
    game mails number it; a shogi or go move is one ply; never "plies"."""
    from relaybot.mail.wording import progress_text

    assert progress_text(plies, kind, "en") == en
    assert progress_text(plies, kind, "ja") == ja


def test_a_games_progress_is_the_number_its_moves_carry() -> None:
    """The digest's count and the game mails' numbering (``Last move (3...)``, 15手目) are
    one rule: the last ply's number, and in chess whose move that was."""
    from relaybot.core.game import Progress, progress_of

    chess, shogi, go = rules_for("chess"), rules_for("shogi"), rules_for("go")
    assert progress_of(chess, 0) == progress_of(shogi, 0) == Progress()
    for plies in range(1, 60):
        number = chess.move_number(plies - 1)
        said = progress_of(chess, plies)
        assert str(said.move) == number.rstrip(".")
        assert said.side == (1 if number.endswith("...") else 0)
        for rules in (shogi, go):
            assert progress_of(rules, plies) == Progress(plies)
            assert rules.move_number(plies - 1, "ja") == f"{plies}手目"


def test_a_control_move_is_numbered_as_the_game_numbers_moves() -> None:
    """J8 counts each side's own moves (``10/30``: 30 days for ten of one's moves); the
    mails say that move as the game numbers it: chess's move 10 for either side, but in
    shogi and go, which number every ply, move 19 for the side that moves first and 20
    for the other (never "move 10" for what is a player's 10th move)."""
    from relaybot.core.game import own_move_number

    chess, shogi, go = rules_for("chess"), rules_for("shogi"), rules_for("go")
    assert own_move_number(chess, 10, True) == own_move_number(chess, 10, False) == 10
    for rules in (shogi, go):
        assert own_move_number(rules, 10, True) == 19
        assert own_move_number(rules, 10, False) == 20
        assert own_move_number(rules, 1, True) == 1
    assert own_move_number(shogi, 0, True) == 0


def test_the_books_control_move_in_shogi_go_and_handicap_go() -> None:
    """The books' figures as the mails and pages show them (``clock_context``): after
    three plies of a ``10/30`` game both sides are working to their 10th move."""
    from datetime import UTC, date, datetime

    from relaybot.club.daybooks import clock_context, control_number
    from relaybot.core.clocks import PlyTimes, TimeControl, compute_books

    def books(first: int) -> object:
        sent = [datetime(2024, 1, 2 + i, 12, tzinfo=UTC) for i in range(3)]
        return compute_books(TimeControl.parse("10/30"), date(2024, 1, 1),
                             [PlyTimes((i + first) % 2, t) for i, t in enumerate(sent)],
                             first=first)

    now = datetime(2024, 1, 6, tzinfo=UTC)
    even, handicap = books(0), books(1)
    ctx = clock_context(even, None, now, rules_for("shogi"))  # type: ignore[arg-type]
    assert (ctx["white_control"], ctx["black_control"]) == (19, 20)  # 先手 moves first
    ctx = clock_context(even, None, now, rules_for("chess"))  # type: ignore[arg-type]
    assert (ctx["white_control"], ctx["black_control"]) == (10, 10)
    # handicap go: White (side 1) plays ply 0, so White's 10th move is move 19
    go = rules_for("go")
    assert control_number(handicap, 1, go) == 19  # type: ignore[arg-type]
    assert control_number(handicap, 0, go) == 20  # type: ignore[arg-type]
    bank = compute_books(TimeControl.parse("bank:20"), date(2024, 1, 1), [])
    assert control_number(bank, 0, go) is None


def test_english_ordinals_by_cldr() -> None:
    from relaybot.mail.wording import ordinal

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd",
        "101st", "111th", "112th"]
    assert ordinal(3, "ja") == "第3"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_ordinal_rules_are_babels_cldr_data(lang: str) -> None:
    """The ordinal rules written into relaybot.mail.plurals give every number the
    category Babel's own locale data gives it."""
    from babel import Locale

    from relaybot.mail.plurals import ordinal_form

    rule = Locale.parse(lang).ordinal_form
    numbers = [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 21, 22, 23, 100, 101, 102, 103, 111, 112,
               113, 1001, 1011]
    assert [ordinal_form(n, lang) for n in numbers] == [rule(n) for n in numbers]


@pytest.mark.parametrize(("kind", "en", "ja"), [
    ("chess", "standings, grades and the weekly digest", "順位表、段級位、週刊"),
    ("go", "standings, ranks and the weekly digest", "順位表、段級位、週刊"),
    ("shogi", "standings and the weekly digest", "順位表、週刊"),
])
def test_a_corrected_result_names_only_what_the_game_keeps(kind: str, en: str,
                                                           ja: str) -> None:
    """A corrected result's mail says what follows it: the JCCA grades are chess's (R3),
    go's ranks follow its salon points (R4), a shogi game has neither."""
    from relaybot.mail.render import render

    said = {lang: render(lang, "player", "result_corrected", game_id="g1", white="A",
                         black="B", new_text="1-0", old_text="0-1", reader="X", kind=kind,
                         rating_shown="", rating_before="", pgn="", game_address="g@x")[1]
            for lang in ("en", "ja")}
    assert en in said["en"] and ja in said["ja"]


@pytest.mark.parametrize(("kind", "numbers"), [
    ("chess", ([1, 2], [1, 2])),  # 1. e4 e5 2. ... : both sides' moves 1 and 2
    ("shogi", ([1, 3], [2, 4])),  # a shogi move a ply: Black (先手) plays 1 and 3
])
def test_the_tds_day_ledger_numbers_moves_as_the_game_does(
        kind: str, numbers: tuple[list[int], list[int]]) -> None:
    """The TD's overrun and silence reports list each reply by the number the game gives
    it (shogi's 3手目), not by the player's own count; chess's two agree."""
    from datetime import UTC, date, datetime

    from relaybot.club.daybooks import clock_context, compute, ledgers
    from relaybot.club.gamefile import GameFile
    from relaybot.store.models import Game, Member, Move

    game = Game(id="g1", kind=kind, time_control="10/30", start_date=date(2024, 1, 1),
                position="", grace=1, plies="", ply_count=4)
    sides = [Member(id=n, family=f"P{n}", given="", tz="UTC", lang="en")
             for n in (1, 2)]
    moves = [Move(ply=i, sent_at=datetime(2024, 1, 3 + 2 * i, 12, tzinfo=UTC))
             for i in range(4)]
    gf = GameFile(game, sides[0], sides[1], moves, rules_for(kind))
    gf.books = compute(gf, [], [])
    rows = ledgers(gf)
    assert ([r["move"] for r in rows[0]["rows"]],  # type: ignore[index,union-attr]
            [r["move"] for r in rows[1]["rows"]]) == numbers  # type: ignore[index,union-attr]
    last = clock_context(gf.books, 0, datetime(2024, 1, 20, tzinfo=UTC), gf.rules, "ja")
    assert last["last_label"] == rules_for(kind).move_number(3, "ja")
    assert last["last_label"] == ("2..." if kind == "chess" else "4手目")


def test_a_league_title_is_named_in_the_readers_language() -> None:
    """Rule 13's titles (名人, 永世名人) are their names in Japanese; an English reader is
    told what they are with the name beside it, in the mail and on the season page."""
    from relaybot.core.seasons import ETERNAL, MEIJIN, title_words

    assert title_words(MEIJIN, "ja") == "名人"
    assert title_words(MEIJIN, "en") == "Meijin (名人)"
    assert title_words(ETERNAL, "en") == "Lifetime Meijin (永世名人)"
    assert title_words("japan_champion", "en") == "japan_champion"  # not a league title


@pytest.mark.parametrize("kind", ["chess", "shogi", "go"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_side_a_td_mail_names_is_the_side_its_command_forfeits(kind: str,
                                                                   lang: str) -> None:
    """J9, J11: the TD's overrun and silence notices end with ``forfeit ID SIDE`` for the
    player concerned; the game reads that word back as the same player (an English
    notice of a silent go or shogi Black once said ``white``, which forfeits White)."""
    from datetime import date

    from relaybot.club.daybooks import td_side
    from relaybot.club.gamefile import GameFile
    from relaybot.store.models import Game, Member

    rules = rules_for(kind)
    game = Game(id="g1", kind=kind, start_date=date(2024, 1, 1), position="")
    gf = GameFile(game, Member(id=1), Member(id=2), [], rules)
    for colour in (0, 1):
        assert rules.side_of(td_side(gf, colour, lang)) == colour, (kind, lang, colour)


@pytest.mark.parametrize(("kind", "colour", "number"), [
    ("chess", 1, 10), ("shogi", 0, 19), ("shogi", 1, 20), ("go", 0, 19)])
def test_the_tds_overrun_report_numbers_the_move_as_the_game_does(
        kind: str, colour: int, number: int) -> None:
    """J9: "used N days by move M" names the offender's control move as the game numbers
    moves (shogi's 先手 10th move is 19手目), and the side as its forfeit command reads it."""
    from datetime import date

    from relaybot.club.daybooks import compute
    from relaybot.club.gamefile import GameFile
    from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig
    from relaybot.core.clocks import Overrun
    from relaybot.pipeline.lifecycle import overrun_report
    from relaybot.store.models import Game, Member

    cfg = Config(database=DatabaseConfig(url="sqlite://"),
                 bot=BotConfig(address="relay@club.example", timezone="Asia/Tokyo",
                               language="en", td="td@club.example", secret="s" * 32,
                               authserv_id="mx.club.example"),
                 imap=ImapConfig("127.0.0.1", 1, "u", "p", "none", "INBOX"),
                 smtp=SmtpConfig("127.0.0.1", 1, "", "", "none"))
    rules = rules_for(kind)
    game = Game(id="g1", kind=kind, start_date=date(2024, 1, 1), time_control="10/30",
                position=rules.save(rules.start()) if kind != "go" else "")
    gf = GameFile(game, Member(id=1, family="A", given="", tz="UTC", lang="en"),
                  Member(id=2, family="B", given="", tz="UTC", lang="en"), [], rules)
    gf._first = 0  # side 0 moves first in every game here
    gf.books = compute(gf, [], [])
    mail = overrun_report(cfg, gf, Overrun(colour, 10, "control", 31, 30))
    assert mail.context["move"] == number
    assert rules.side_of(str(mail.context["colour"])) == colour

