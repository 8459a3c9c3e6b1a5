"""A go player reads go's words for a move: 着手, played with 打つ (打ちました, 打って),
never chess's and shogi's 指し手 / 指す; chess and shogi keep theirs."""

from __future__ import annotations

from typing import Any

import pytest

from relaybot.core.words import DEFAULT_MOVE_WORDS, MoveWords, move_words
from relaybot.games import rules_for
from relaybot.mail import wording
from relaybot.mail.render import render, render_footer

# every form of 指す a mail could say: 指し手, 指しました, 指します, 指して, 指す, 指せない
CHESS_VERB = ("指し", "指す", "指せ")


def _chess_words_in(text: str) -> list[str]:
    return [word for word in CHESS_VERB if word in text]


def _game(kind: str) -> dict[str, Any]:
    """What a player's mail shows about the game (club.views.game_context's keys), for a
    game of ``kind`` the reader is to move in."""
    sides = ("黒", "白") if kind == "go" else ("白", "黒")
    return {
        "game_id": "g1", "label": "", "event": "", "side0": sides[0], "side1": sides[1],
        "white": "山田, 太郎", "black": "佐藤, 花子", "reader": "山田, 太郎",
        "record": "1 Q16  2 D4" if kind == "go" else "1. e4 e5", "board": "(board)",
        "position_name": "", "position": "", "time_control": "", "start_date": "2026-01-01",
        "timezone": "Asia/Tokyo", "clock_ok": False, "last_ply": 1, "status": "active",
        "to_move_colour": sides[0], "to_move_name": "山田, 太郎", "your_move": True,
        "record_policy": rules_for(kind).record_policy, "game_address": "relay+g1@club.example",
        "game_link": "", "game_kind": kind, "conditionals": "binding", "notes": [],
        "ply_count": 2, "subject": "Re: g1", "caps": {"conditionals": 8, "sections": 5,
                                                      "written": 400, "played": 2},
    }


def _move(kind: str) -> dict[str, Any]:
    """A relayed move with the reader's predicted answer played by the bot and the
    sender's proposal shown: every sentence of the move and receipt mails that names the
    move or its verb."""
    return {**_game(kind), "move": "3 Q4" if kind == "go" else "2. Nf3",
            "sender": "佐藤, 花子", "auto_moves": ["4 C16" if kind == "go" else "2... Nc6"],
            "sender_to_move": True, "proposals": ["もし 5 R3 なら 6 R4"], "draw_declined": True,
            "draw_offer_by": "", "words": "", "rejected": [{"line": "もし", "why": "…"}],
            "nonstandard": [], "notes": ["fullwidth"]}


def _mail(template: str, /, **context: Any) -> str:
    subject, body = render("ja", "player", template, **context)
    return f"{subject}\n{body}"


def test_go_brings_its_move_words_and_every_other_game_takes_the_default() -> None:
    go = move_words(rules_for("go"), "ja")
    assert (go.noun, go.past, go.present, go.te, go.plain, go.cannot) == (
        "着手", "打ちました", "打ちます", "打って", "打つ", "打てない")
    assert move_words(rules_for("chess"), "ja") == DEFAULT_MOVE_WORDS["ja"]
    assert move_words(rules_for("shogi"), "ja").noun == "指し手"
    assert move_words(rules_for("go"), "en") == DEFAULT_MOVE_WORDS["en"]  # "move", "play"
    assert isinstance(DEFAULT_MOVE_WORDS["en"], MoveWords)


@pytest.mark.parametrize("kind", ["", "no_such_game"])
def test_a_mail_about_no_known_game_says_the_default_words(kind: str) -> None:
    assert wording.move_words(kind, "ja") == DEFAULT_MOVE_WORDS["ja"]
    assert wording.move_words(kind, "en").noun == "move"
    assert wording.move_words("go", "ja").noun == "着手"


def test_a_mail_about_several_games_speaks_of_one_only_when_they_share_it() -> None:
    assert wording.one_kind(["go", "go"]) == "go"
    assert wording.one_kind(["go", "chess"]) == "" and wording.one_kind([]) == ""


def test_the_go_move_mail_says_chakushu_and_utsu() -> None:
    body = _mail("move", **_move("go"))
    assert "佐藤花子さんの着手は 3 Q4 です。" in body
    assert "4 C16 を打ちました" in body
    assert "佐藤花子さんは着手を送ったので" in body
    assert "新しい着手を手数とともに" in body
    assert _chess_words_in(body) == [], body


def test_the_go_receipt_says_chakushu_and_utsu() -> None:
    body = _mail("ack", **_move("go"))
    assert "あなたの着手 3 Q4 を受け付け" in body and "4 C16 を打ちました" in body
    assert "次の着手を送ってください" in body and "（着手は有効です）" in body
    assert _chess_words_in(body) == [], body


def test_the_go_reminder_says_chakushu() -> None:
    body = _mail("reminder", **_game("go"), silent_days=10)
    assert "相手の着手をお送りしてから" in body
    assert _chess_words_in(body) == [], body


@pytest.mark.parametrize(("error", "extra", "said"), [
    ("bad_move", {"error_kind": "illegal", "error_token": "Q16"}, "この局面では打てない手"),
    ("bad_move", {"error_kind": "unreadable", "error_token": "Z99"}, "Z99」は着手として"),
    ("contradiction", {"expected": "6 R4", "diff_token": "6 S4"}, "手を打っていますが"),
    ("sync_error", {"notes": ["unnumbered"], "diff_token": "Q4", "diff_number": "3",
                    "numbered_example": "3 Q4"}, "着手「Q4」に手数がありません"),
    ("too_many_moves", {}, "新しい着手を1手だけ"),
    ("too_many_conditionals", {}, "着手も含めて何も適用していません"),
    ("too_long", {}, "新しい着手を1手だけ"),
    ("no_move", {}, "新しい着手が見つかりませんでした"),
])
def test_the_go_error_mails_say_chakushu_and_utsu(error: str, extra: dict[str, Any],
                                                  said: str) -> None:
    context = {**_game("go"), "kind": error, "error_detail": "", "candidates": [],
               "penalty_days": 0, "expected": "", "starts_at": "", **extra}
    body = _mail("error", **context)
    assert said in body
    assert _chess_words_in(body) == [], body


def test_the_same_mails_keep_chess_words_for_chess() -> None:
    move, ack = _mail("move", **_move("chess")), _mail("ack", **_move("chess"))
    assert "佐藤花子さんの指し手は 2. Nf3 です。" in move and "を指しました" in move
    assert "あなたの指し手 2. Nf3 を受け付け" in ack
    error = _mail("error", **_game("chess"), kind="bad_move", error_kind="illegal",
                  error_token="Ke9", error_detail="", candidates=[], penalty_days=0)
    assert "この局面では指せない手" in error and "着手" not in error
    reminder = _mail("reminder", **_game("chess"), silent_days=10)
    assert "相手の指し手をお送りしてから" in reminder


def test_an_error_mail_about_no_game_takes_the_default_words() -> None:
    """A mail refused whole (too many games in it) has no game_kind in its context."""
    body = _mail("error", kind="too_many_sections", reader="山田, 太郎", notes=[],
                 subject="", caps={"sections": 5})
    assert "対局の指し手が書かれています" in body


def test_a_reply_to_sections_words_each_game_in_its_own_words() -> None:
    body = _mail("sections", reader="山田, 太郎", parts=[], game_kind="",
                 outcomes=[("A", "move", "go"), ("B", "move", "chess"),
                           ("C", "no_move", "go")])
    assert "A: 着手を中継しました" in body and "B: 指し手を中継しました" in body
    assert "C: 新しい着手なし" in body


def test_a_leave_notice_and_the_footer_in_a_go_players_words() -> None:
    body = _mail("leave_notice", reader="山田, 太郎", player="佐藤, 花子",
                 first="2026-12-01", last="2026-12-10", game_kind="go")
    assert "あなたの着手はこれまでどおり送れます" in body
    assert "（着手の書き方" in render_footer("ja", "https://x/help", "go")
    assert "（指し手の書き方" in render_footer("ja", "https://x/help")


def test_the_go_help_mail_says_utsu_for_the_bots_answer() -> None:
    body = _mail("help", **_game("go"), game_keywords=[])
    assert "相手が予想どおりの手を打つと、ボットがすぐにあなたの応手を打ちます。" in body
    assert "予想手（着手と一緒に" in body
    assert _chess_words_in(body) == [], body
    chess = _mail("help", **_game("chess"), game_keywords=[])
    assert "相手が予想どおりの手を指すと、ボットがすぐにあなたの応手を指します。" in chess


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_go_draw_offer_is_answered_with_how_a_go_game_ends(lang: str) -> None:
    """Go has no draw offers: the reply says so, how a game of go ends, and what to
    send instead; the help of a go game lists no draw keywords, a chess game's does."""
    ctx = _game("go")
    _, error = render(lang, "player", "error", **{**ctx, "kind": "no_draw_offers"})
    if lang == "en":
        assert "a game of go has no draw offers, so nothing of it was applied" in error
        assert 'states the same result (a jigo too: "result jigo")' in error
    else:
        assert "囲碁には引き分けの提案がないため、着手も含めて何も適用していません" in error
        assert "「結果 持碁」" in error
    go_help = render(lang, "player", "help", **{**ctx, "draw_offers": False,
                                                  "game_keywords": []})[1]
    chess_help = render(lang, "player", "help", **{**_game("chess"), "draw_offers": True,
                                                     "game_keywords": []})[1]
    offer = '"draw?"' if lang == "en" else "「ドロー?」"
    assert offer not in go_help and offer in chess_help


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_go_player_is_not_told_of_pieces_or_chess_trips(lang: str) -> None:
    """A wrong go move is corrected without "the same piece" (go has stones); a leave
    beyond the year's days names the reasons without "chess travel"."""
    words = {"en": ("same piece", "chess travel"), "ja": ("同じ駒", "チェスの旅行")}[lang]
    for kind, said in (("go", False), ("chess", True)):
        ctx = {**_game(kind), "kind": "bad_move", "error_kind": "illegal", "penalty_days": 0,
               "error_token": "Z9", "error_detail": "", "candidates": [], "notes": []}
        body = render(lang, "player", "error", **ctx)[1]
        assert (words[0] in body) is said, (kind, body)
        leave = render(lang, "player", "leave_reply", **{
            **_game(kind), "ok": False, "reason": "pending_td", "first": "2026-12-01",
            "last": "2026-12-31", "left": 10, "days": 31, "games": []})[1]
        assert (words[1] in leave) is said, (kind, leave)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("kind", ["go", "shogi"])
def test_the_help_says_each_keyword_once_and_explains_the_games_own(kind: str,
                                                                    lang: str) -> None:
    """The help of a go or shogi game: its own keywords explained in its part (go's
    result and free game, shogi's 入玉宣言), the shared ones once in the list after it,
    the greeting sentence once, and no bare list of the game's keyword spellings."""
    from relaybot.games import rules_for as rules

    ctx = {**_game(kind), "draw_offers": rules(kind).rule_set.draw_offers,
           "game_keywords": sorted(rules(kind).keywords)}
    body = render(lang, "player", "help", **ctx)[1]
    resign = '"resign"' if lang == "en" else "「投了」"
    greeting = "greetings are passed on" if lang == "en" else "あいさつなどの文章は相手に転送"
    assert body.count(resign) == 1 and body.count(greeting) == 1, body
    own = {"go": ("free / 記録外" if lang == "en" else "記録外 / free"), "shogi": "入玉宣言"}
    assert own[kind] in body
    for spelling in rules(kind).keywords:  # never listed bare, unexplained
        assert f'- "{spelling}"\n' not in body and f"・「{spelling}」\n" not in body


def test_a_shogi_draw_is_hikiwake_and_the_keyword_so_spelled_is_read() -> None:
    """Shogi's Japanese readers are offered a 引き分け, not chess's ドロー, and the line the
    mail tells them to send (「引き分け」) is one the referee reads; chess keeps ドロー."""
    from relaybot.core.referee import StoredGame, decide

    shogi = {**_game("shogi"), "sender": "佐藤, 花子", "your_move": True, "words": ""}
    offer = _mail("draw_offer", **shogi)
    assert "引き分けの提案" in offer and "「引き分け」だけの行" in offer
    assert "ドロー" not in offer
    chess = _mail("draw_offer", **{**_game("chess"), "sender": "佐藤, 花子", "your_move": True,
                                   "words": ""})
    assert "ドローの提案" in chess and "「ドロー」だけの行" in chess
    help_ = _mail("help", **shogi, draw_offers=True, game_keywords=[])
    assert "「引き分け?」: 引き分けの提案" in help_ and "ドロー" not in help_
    rules = rules_for("shogi")
    game = StoredGame(plies=(), keys=(), position=rules.save(rules.start()),
                      draw_offer_by=1)
    assert decide(rules, game, 0, "引き分け").kind == "draw_agreed"


@pytest.mark.parametrize(("size", "first", "sgf", "column"), [
    (9, "G7", "gc", "J"), (13, "K10", "jd", "N"), (19, "Q16", "pd", "T")])
def test_the_examples_a_go_mail_gives_lie_on_the_games_board(
        size: int, first: str, sgf: str, column: str) -> None:
    """A 9x9 game's start mail, help and error replies give G7 as the example, not Q16,
    a point off its board; the columns they name end at the board's last one."""
    from relaybot.games.go.rules import RULES as GO

    points = GO.example_points(GO.save(GO.setup({"size": str(size)})))
    context = {**_game("go"), "example_points": points, "your_move": True, "toss": None,
               "reader_colour": "黒", "record": "-"}
    for lang in ("en", "ja"):
        start = render(lang, "player", "start", **context)[1]
        assert f"1 {first}" in start
        help_ = render(lang, "player", "help", **{**context, "draw_offers": False,
                                                  "game_keywords": []})[1]
        assert f"47 {first}" in help_ and f"B[{sgf}]" in help_ and f"A-{column}" in help_
        error = render(lang, "player", "error", **{
            **context, "kind": "bad_move", "error_kind": "ambiguous", "error_token": "x",
            "candidates": [], "error_detail": "", "penalty_days": 0, "expected": "",
            "starts_at": ""})[1]
        assert f"A-{column}" in error or f"A〜{column}" in error
        if size != 19:
            assert "Q16" not in start + help_ + error


def test_j1_a_mail_without_a_result_after_both_passed_is_asked_for_the_result() -> None:
    """After both passed the game waits for the result: a mail in which nothing was read
    (a bare 黒3目半勝ち) is told how to state it, not asked for a move and its number."""
    context = {**_game("go"), "kind": "no_move", "error_detail": "", "candidates": [],
               "penalty_days": 0, "expected": "", "starts_at": "", "stating": True}
    ja = _mail("error", **context)
    assert "結果の申告を待っています" in ja and "「結果 黒3目半勝ち」" in ja
    assert "新しい着手が見つかりませんでした" not in ja
    en = render("en", "player", "error", **context)[1]
    assert 'the game waits for the result, not for a move' in en and '"result B+3.5"' in en
    assert "47 Q16" not in en
    playing = render("en", "player", "error", **{**context, "stating": False})[1]
    assert "No new move was found" in playing


@pytest.mark.parametrize("kind", ["chess", "shogi", "go"])
def test_j16_a_proposer_writing_again_is_told_proposals_cannot_be_withdrawn(kind: str) -> None:
    """Seed 000 (提案した予想手を撤回することはできません): a mail with no move from the side not
    to move is told it is the opponent's move, not asked for a move, and its proposals
    are said not to be read, in the reader's language and the game's words."""
    context = {**_game(kind), "kind": "no_move", "error_detail": "", "candidates": [],
               "penalty_days": 0, "expected": "", "starts_at": "", "your_move": False,
               "notes": ["opponent_to_move", "proposals_not_read"]}
    ja = _mail("error", **context)
    assert "いまは相手の手番" in ja and "撤回も変更もできません" in ja
    assert "書いてください" not in ja  # no move is asked for
    assert _chess_words_in(ja) == [] or kind != "go", ja  # go: 着手, never 指し手
    en = render("en", "player", "error", **context)[1]
    assert "your opponent is to move" in en and "cannot be withdrawn or changed" in en
    assert "Please write" not in en
    plain = render("en", "player", "error", **{**context, "notes": ["proposals_not_read"]})[1]
    assert "please send them again with it" in plain and "Please write" in plain


@pytest.mark.parametrize("kind", ["chess", "shogi", "go"])
def test_j16_an_optional_proposal_contradicted_is_not_said_to_bind(kind: str) -> None:
    """Seed 002 rule 16: where proposals are optional the refusal says the reader is free
    to ignore them and that no days are added, never "binds you" or "0 days"."""
    context = {**_game(kind), "kind": "contradiction", "error_detail": "", "candidates": [],
               "penalty_days": 0, "expected": "2. Nf3", "diff_token": "Nc3", "starts_at": "",
               "conditionals": "optional", "notes": ["proposal_optional"]}
    ja = _mail("error", **context)
    assert "従うかどうかは自由" in ja and "加算もありません" in ja
    assert "拘束力" not in ja and "0日" not in ja
    en = render("en", "player", "error", **context)[1]
    assert "free to ignore proposals" in en and "no days are added" in en
    assert "binds you" not in en and "0 days" not in en
    bound = render("en", "player", "error", **{**context, "notes": []})[1]
    assert "binds you" in bound and "0 days" not in bound  # a mating line where wrong
    # moves cost nothing (seed 002 rule 17) binds, and costs no days
