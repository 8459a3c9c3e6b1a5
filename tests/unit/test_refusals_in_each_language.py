"""Why a move was refused, in the reader's language: every reason a game gives
(core.reasons) reaches a Japanese reader in Japanese and an English reader in English,
through the reply's own context builder and template. The move as the player wrote it
stays as written, in quotes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from relaybot.core.conditionals import validate
from relaybot.core.game import MoveError, ProposalLine
from relaybot.core.reasons import PHRASES, Reason, say
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.games.registry import rules_for
from relaybot.mail.render import render
from relaybot.mail.wording import move_error_text, reason_text
from relaybot.pipeline.replies import _verdict_context
from relaybot.store.models import Member
from tests.prose import WORD

# A Latin-letter word in Japanese prose (tests/prose.py's, without its data exceptions):
# what is left after the player's own words in quotes, squares, moves and the formats'
# letters are taken out.
NOTATION = re.compile(
    r"(?:[KQRBN]?[a-h]?[1-8]?[x-]?[a-h][1-8](?:=?[QRBN])?|O-O(?:-O)?)[+#]?"  # SAN, LAN
    r"|[A-HJ-T](?:1[0-9]|[1-9])"  # a go point, Q16
    r"|[A-Z]+(?:-[A-Z])?")  # letters as written: KQRBN, FU, SGF, CSA, A-T


def english_prose(text: str) -> list[str]:
    text = re.sub(r"「[^」]*」", " ", text)  # what the player wrote, quoted
    return [w for w in WORD.findall(text)
            if sum(ch.isalpha() for ch in w) >= 2 and not NOTATION.fullmatch(w)]


def _at(kind: str, moves: tuple[str, ...] = (), saved: str = "",
        setup: Callable[[Any], Any] | None = None) -> tuple[Any, Any]:
    rules = rules_for(kind)
    pos = rules.load(saved) if saved else rules.start()
    if setup is not None:
        pos = setup(pos)
    for token in moves:
        rules.play(pos, rules.parse(pos, token))
    return rules, pos


def _go9(*plies: str) -> Callable[[Any], Any]:
    def make(_: Any) -> Any:
        rules = rules_for("go")
        board = rules.setup({"size": "9", "superko": "1"})
        for ply in plies:
            rules.play(board, ply)
        return board
    return make


def _superko(_: Any) -> Any:
    rules = rules_for("go")
    board = rules.setup({"size": "9", "superko": "1"})
    seen = board.copy()
    rules.play(seen, "e5")
    board.history.add(seen.digest())
    return board


def _free(_: Any) -> Any:
    rules = rules_for("go")
    board = rules.start()
    return rules.load(rules.declare(board, 0, "free").position)


PROMO = "3k4/4P3/8/8/8/8/8/4K3 w - - 0 1"
SHOGI_CHECK = "4r4/9/9/9/9/9/9/4G4/4K4 b - 1"

# (game, position, token, declare, reason code, an English word that names the problem)
CASES: list[tuple[str, dict[str, Any], str, bool, str, str]] = [
    ("chess", {}, "O-O", False, "castling_blocked", "castling"),
    ("chess", {"moves": ("e4", "e5", "Ke2", "Ke7", "Ke1", "Ke8")}, "O-O", False,
     "castling_moved", "moved"),
    ("chess", {"moves": ("e4", "f5", "d4", "e6", "Qh5")}, "O-O", False, "castling_check",
     "check"),
    ("chess", {}, "9152", False, "numeric_digits", "digits"),
    ("chess", {}, "52545", False, "numeric_promotion_digit", "promotion"),
    ("chess", {}, "52541", False, "numeric_fifth_digit", "fifth"),
    ("chess", {"saved": PROMO}, "5758", False, "numeric_promotion_missing", "promotion"),
    ("chess", {}, "3546", False, "numeric_no_piece", "no piece"),
    ("chess", {}, "2736", False, "numeric_not_yours", "not yours"),
    ("chess", {}, "1114", False, "numeric_cannot_move", "rook"),
    ("chess", {}, "a3b4", False, "no_piece_on", "no piece"),
    ("chess", {}, "a7a6", False, "not_yours", "not yours"),
    ("chess", {}, "Bg1f3", False, "piece_is", "knight"),
    ("chess", {"saved": PROMO}, "e8", False, "promotion_missing", "promotion"),
    ("chess", {"saved": "rnbqk2r/pppp1ppp/5n2/4p3/1b2P3/2NP4/PPP2PPP/R1BQKBNR w KQkq - 1 4"},
     "Nce2", False, "no_such_piece_move", "Ng1-e2"),
    ("chess", {}, "e5", False, "pawn_cannot_reach", "pawn"),
    ("chess", {}, "Ke2", False, "own_piece", "own piece"),
    ("chess", {"saved": "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1"}, "Bd3", False, "pinned",
     "check"),
    ("chess", {}, "Nd4", False, "cannot_reach", "knight"),
    ("chess", {"moves": ("d4", "e5", "Nf3", "Bb4")}, "Nd2", False, "ambiguous_pieces",
     "knights"),
    ("chess", {}, "xd5", False, "pawn_cannot_capture", "pawn"),
    ("chess", {}, "Xe4", False, "letter_unknown", "piece letter"),
    ("chess", {}, "Se4", False, "letter_other", "piece letter"),
    ("chess", {}, "e4=K", False, "not_promotion_piece", "promotion"),
    ("chess", {}, "hello", False, "not_chess_move", "chess move"),
    ("chess", {}, "nf3", False, "lower_case_letter", "upper case"),
    ("chess", {}, " ", False, "empty_move", "empty"),
    ("chess", {}, "resign", True, "chess_no_declaration", "declaration"),
    ("shogi", {}, "△３四歩", False, "shogi_turn", "Sente"),
    ("shogi", {}, "hello", False, "shogi_form", "write a move"),
    ("shogi", {"saved": SHOGI_CHECK}, "６八金", False, "shogi_self_check", "check"),
    ("shogi", {"saved": "8k/9/7G1/4B4/9/9/9/9/K8 b P 1"}, "１二歩打", False,
     "shogi_pawn_drop_mate", "mate"),
    ("shogi", {}, "５五角打", False, "shogi_not_in_hand", "in hand"),
    ("shogi", {"saved": "4k4/9/9/9/9/9/4P4/9/4K4 b P 1"}, "５七歩打", False,
     "shogi_occupied", "occupied"),
    ("shogi", {"saved": "4k4/9/9/9/9/9/4P4/9/4K4 b P 1"}, "５五歩打", False,
     "shogi_double_pawn", "pawn"),
    ("shogi", {"saved": "4k4/9/9/9/9/9/9/9/4K4 b N 1"}, "５二桂打", False,
     "shogi_dead_piece", "never move"),
    ("shogi", {}, "5e5d", False, "shogi_no_own_piece", "no piece"),
    ("shogi", {}, "7g7e", False, "shogi_cannot_move", "cannot move"),
    ("shogi", {"saved": "4k4/9/9/9/9/9/9/9/4K4 b - 1"}, "１一と", False,
     "shogi_no_piece_moves", "no such piece"),
    ("shogi", {"moves": ("7g7f", "3c3d", "8h2b+")}, "△同金", False, "shogi_none_reach",
     "can move to"),
    ("shogi", {}, "５八金引", False, "shogi_relative_none", "fits none"),
    ("shogi", {}, "-7776FU", False, "shogi_wrong_sign", "sign"),
    ("shogi", {}, "+7776XX", False, "shogi_not_csa_piece", "CSA"),
    ("shogi", {}, "+0055TO", False, "shogi_promoted_drop", "dropped"),
    ("shogi", {}, "同歩", False, "shogi_no_previous", "no move"),
    ("shogi", {}, "７六歩成", False, "shogi_cannot_promote", "promote"),
    ("shogi", {"saved": "4k4/P8/9/9/9/9/9/9/4K4 b - 1"}, "９一歩不成", False,
     "shogi_must_promote", "must promote"),
    ("shogi", {"moves": ("7g7f", "3c3d")}, "２二角", False, "shogi_say_promotion", "say"),
    ("shogi", {}, "▲58金", False, "shogi_say_which", "which piece"),
    ("shogi", {"saved": "4k4/9/9/9/9/9/9/9/4K4 b - 1"}, "nyugyoku", True,
     "shogi_not_in_camp", "enemy camp"),
    ("shogi", {}, "foo", True, "no_declaration", "declaration"),
    ("shogi", {}, " ", False, "empty_move", "empty"),
    ("go", {"moves": ("Q16",)}, "Q16", False, "go_occupied", "occupied"),
    ("go", {}, "hello", False, "go_point_form", "point"),
    ("go", {}, "zz", False, "go_no_sgf_point", "no point"),
    ("go", {"setup": _go9()}, "T19", False, "go_no_vertex", "no point"),
    ("go", {"setup": _go9("e5", "a2", "e6", "b1")}, "A1", False, "go_suicide", "suicide"),
    ("go", {"setup": _go9("c5", "e6", "d6", "e4", "d4", "f5", "a1", "d5", "e5")}, "D5",
     False, "go_ko", "ko"),
    ("go", {"setup": _superko}, "E5", False, "go_superko", "superko"),
    ("go", {"moves": ("pass", "pass")}, "Q16", False, "go_counting", "passed"),
    ("go", {}, "foo", True, "no_declaration", "declaration"),
    ("go", {}, "result B+3.5", True, "go_result_too_early", "after both"),
    ("go", {"moves": ("pass", "pass")}, "result xyz", True, "go_result_form", "result"),
    ("go", {"setup": _free}, "free", True, "go_free_already", "free game"),
]
# reasons no player's token reaches through a game's parse (a guard behind another check),
# and the proposal checker's, tested below
NOT_FROM_A_MOVE = {"numeric_ambiguous", "go_off_board", "not_a_move", "move_kind",
                   "plain_detail", "proposal_no_answer", "proposal_too_long",
                   "proposal_start", "proposal_conflict"}


def _refusal(game: str, where: dict[str, Any], token: str, declare: bool) -> MoveError:
    rules, pos = _at(game, **where)
    with pytest.raises(MoveError) as err:
        if declare:
            rules.declare(pos, rules.to_move(pos), token)
        else:
            rules.parse(pos, token)
    return err.value


def _reply(game: str, error: MoveError, lang: str) -> str:
    """The refusal's reply body, from the pipeline's own context builder and template."""
    verdict = Verdict(kind="bad_move", error=error, penalty_days=5)
    ctx = _verdict_context(None, Member(lang=lang), verdict)
    _, body = render(lang, "player", "error", kind="bad_move", reader="山田, 太郎",
                     game_kind=game, record_policy="full", subject="", caps={}, **ctx)
    return body


@pytest.mark.parametrize(("game", "where", "token", "declare", "code", "en_word"), CASES,
                         ids=[f"{c[0]}-{c[4]}-{c[2].strip() or 'blank'}" for c in CASES])
def test_every_refusal_reads_in_the_readers_language(
        game: str, where: dict[str, Any], token: str, declare: bool, code: str,
        en_word: str) -> None:
    error = _refusal(game, where, token, declare)
    assert error.why is not None and error.why.code == code
    ja = _reply(game, error, "ja")
    reason_ja = move_error_text(error, "ja")
    assert reason_ja and f"（{reason_ja}）" in ja  # said, not left out
    assert not english_prose(reason_ja), reason_ja
    assert not english_prose(ja), ja
    en = _reply(game, error, "en")
    assert f"({error.detail})" in en and en_word in error.detail
    assert error.detail == move_error_text(error, "en")


def test_every_reason_has_both_languages_and_is_reached() -> None:
    for kind in ("chess", "shogi", "go"):  # each game adds its words on import
        rules_for(kind)
    reached = {c[4] for c in CASES}
    assert reached | NOT_FROM_A_MOVE == set(PHRASES)
    for code, words in PHRASES.items():
        assert set(words) == {"en", "ja"}, code
        assert not english_prose(re.sub(r"\{[a-z_]+\}", "", words["ja"])), code
        assert "J1" not in words["ja"] and "R1" not in words["ja"]


def test_a_plugins_english_detail_is_never_shown_to_a_japanese_reader() -> None:
    error = MoveError("illegal", "x9", "the piece was taken")
    assert move_error_text(error, "en") == "the piece was taken"
    assert move_error_text(error, "ja") == ""
    assert not english_prose(_reply("chess", error, "ja").replace("x9", ""))


def _refused_proposals(text: str, moves: tuple[str, ...]) -> list[Reason]:
    rules, pos = _at("chess", moves=moves)
    record = rules.extract_record("1. e4")
    lines: list[ProposalLine] = rules.read_proposals(text, record)
    _, rejected = validate(rules, pos, lines, "en")
    return [r.why for r in rejected]


@pytest.mark.parametrize("text", ["if e5 then Nxe5", "if e5 then Bg1f3"])
def test_a_refused_proposal_reads_in_the_readers_language(text: str) -> None:
    """The acknowledgement lists refused proposals with their reason in its reader's
    language (it quoted the checker's English to a Japanese reader)."""
    whys = _refused_proposals(text, ("e4",))
    assert whys, text
    for why in whys:
        assert not english_prose(reason_text(why, "ja")), reason_text(why, "ja")
        assert reason_text(why, "en") and not re.search(r"[ぁ-んァ-ン]",
                                                        reason_text(why, "en"))


def test_the_proposal_reasons_in_each_language() -> None:
    inner = Reason.of("pinned", piece="bishop", where="e2", dest="d3")
    for reason in (Reason.of("proposal_no_answer"), Reason.of("proposal_too_long", max=40),
                   Reason.of("proposal_start", start="3.", here="5.", inner=inner),
                   Reason.of("proposal_conflict", predicted="Nf3", answer="Nc6",
                             second="d6"),
                   Reason.of("move_kind", inner_kind="illegal"),
                   Reason.of("plain_detail", text="the piece was taken",
                             inner_kind="unreadable"),
                   Reason.of("numeric_ambiguous", digits="5751", plain="57-51",
                             promotion="57581"),
                   Reason.of("go_off_board", size=9), Reason.of("not_a_move")):
        assert not english_prose(say(reason, "ja")), say(reason, "ja")
        assert not re.search(r"[ぁ-んァ-ン]", say(reason, "en")), say(reason, "en")
    assert "ビショップ" in say(Reason.of("proposal_start", start="3.", here="5.",
                                        inner=inner), "ja")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_far_too_long_record_asks_for_what_the_game_asks(lang: str) -> None:
    """Issue 12 item 10's refusal asks a chess player (J1: every mail carries the game
    from move 1) for the whole game; a shogi or go player, who may send the new move with
    its number, for that (the whole game stays allowed)."""
    def reply(game: str, policy: str) -> str:
        _, body = render(lang, "player", "error", kind="too_long", reader="山田, 太郎",
                         game_kind=game, record_policy=policy, subject="",
                         caps={"written": 400, "played": 12})
        return body

    chess, shogi = reply("chess", "full"), reply("shogi", "numbered")
    number = "with its number" if lang == "en" else "手数とともに"
    whole = "followed by your one new move" if lang == "en" else "全棋譜に続けて"
    assert whole in chess and number not in chess
    assert number in shogi and whole not in shogi
    assert rules_for("shogi").record_policy == rules_for("go").record_policy == "numbered"


def test_a_games_words_live_in_its_package_and_cannot_be_said_twice() -> None:
    """A game brings its own reasons (``relaybot/games/<kind>/reasons.py``): the core
    holds only the shared ones, and a second game may not give a code other words."""
    import relaybot.core.reasons as core_reasons
    from relaybot.core.reasons import add_reasons, phrase

    source = core_reasons.__file__
    with open(source, encoding="utf-8") as f:
        core_text = f.read()
    assert "二歩" not in core_text and "ビショップ" not in core_text and "コウ" not in core_text
    rules_for("shogi")
    assert say(Reason.of("shogi_double_pawn"), "ja") == "二歩です"
    with pytest.raises(ValueError, match="already has other words"):
        add_reasons({"shogi_double_pawn": phrase("two pawns", "二歩")})
    with pytest.raises(ValueError, match="needs words in"):
        add_reasons({"toy_only_english": {"en": "no"}})
    assert "toy_only_english" not in PHRASES  # nothing of a refused call is kept
    add_reasons({"toy_reason": phrase("the {piece} is tired", "{piece}は疲れています")},
                words={"en": {"toy_piece": "toy"}, "ja": {"toy_piece": "おもちゃ"}})
    try:
        assert say(Reason.of("toy_reason", piece="toy_piece"), "ja") == "おもちゃは疲れています"
        assert say(Reason.of("toy_reason", piece="toy_piece"), "en") == "the toy is tired"
    finally:  # the registry is the process's: leave it as the games made it
        core_reasons._PHRASES.pop("toy_reason")
        for lang in ("en", "ja"):
            core_reasons._WORDS[lang].pop("toy_piece")


def test_the_shared_reasons_use_words_every_game_shares() -> None:
    """The reasons the core holds reach go players too: no 指す (chess and shogi's verb;
    go plays with 打つ) in their Japanese, nor in the shared word codes."""
    import relaybot.core.reasons as core_reasons

    for code in ("empty_move", "not_a_move", "proposal_no_answer", "proposal_too_long"):
        assert "指" not in say(Reason.of(code, max=40), "ja"), code
    for kind in ("illegal", "ambiguous", "unreadable"):
        assert "指" not in say(Reason.of("move_kind", inner_kind=kind), "ja"), kind
    assert "指" not in "".join(core_reasons._WORDS["ja"].values())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_j1_two_moves_for_one_ply_are_named_in_the_readers_language(lang: str) -> None:
    """J1: the reply to a mail that names two moves for one ply quotes both and asks for
    the one meant, in the reader's language (not "your record differs from the game")."""
    verdict = Verdict(kind="sync_error", diff_ply=6, diff_token="c3", other_token="d4",
                      notes=["two_moves"])
    ctx = _verdict_context(None, Member(lang=lang), verdict)
    ctx.update(diff_number="白の第4手" if lang == "ja" else "White's move 4", diff_token="c3")
    subject, body = render(lang, "player", "error", kind="sync_error", reader="山田, 太郎",
                           game_kind="chess", record_policy="full", subject="", caps={}, **ctx)
    if lang == "ja":
        assert "「c3」と「d4」" in body and "何も適用していません" in body
        assert not english_prose(body) and "一致しません" not in subject
    else:
        assert '"c3" and "d4"' in body and "nothing was applied" in body
        assert "differs" not in subject


@pytest.mark.parametrize(("game", "text"), [("shogi", "▲７六歩です"),
                                            ("chess", "1.e4 e5 2.Nf3 I think"),
                                            ("go", "1 Q16でお願いします")])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_j1_a_move_among_words_is_quoted_back_when_no_move_is_found(
        game: str, text: str, lang: str) -> None:
    """J1: the record reader reads moves only from lines of their own; a mail whose move
    stood among words (``▲７六歩です``) was told only "no new move was found". The reply
    quotes the line and says why, in the reader's language."""
    rules = rules_for(game)
    verdict = decide(rules, StoredGame(plies=(), keys=(), position=rules.save(rules.start())),
                     0, f"よろしくお願いします。\n{text}\n山田")
    assert verdict.kind == "no_move" and verdict.unread_line == text
    ctx = _verdict_context(None, Member(lang=lang), verdict)
    _, body = render(lang, "player", "error", kind="no_move", reader="山田, 太郎",
                     game_kind=game, record_policy=rules.record_policy, subject="", caps={},
                     **ctx)
    assert (f"「{text}」" if lang == "ja" else f'"{text}"') in body
    if lang == "ja":
        assert not english_prose(body.replace(text, ""))


@pytest.mark.parametrize("text", ["Call me at 090 1234 5678 on 12/5, Tel: 031-234-5678",
                                  "2026年11月27日、15:00 にお送りします",
                                  "Sorry I am so late, october is busy"])
@pytest.mark.parametrize("game", ["chess", "shogi", "go"])
def test_prose_with_numbers_is_no_move_among_words(game: str, text: str) -> None:
    """Dates, phone numbers and English words are not quoted back as a move."""
    rules = rules_for(game)
    verdict = decide(rules, StoredGame(plies=(), keys=(), position=rules.save(rules.start())),
                     0, text)
    assert verdict.kind == "no_move" and verdict.unread_line is None
