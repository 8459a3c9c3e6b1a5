"""J1: a move written with the colour (go 黒 白 B W) or the mark (shogi ▲ △) of the side
whose move it is not. The mail disagrees with the record about whose move its number is,
so nothing is applied, and the reply, in the reader's language, names the move, the
colour written, the colour it is and the line to write. Who moves first comes from the
game's start: White in a handicap go game. Chess writes no colour with a move; its
``...`` after a number is covered by J1 (a record that starts at Black's move) and J2
(wrong move numbers inside a readable record are no error)."""

from __future__ import annotations

from datetime import date

import pytest

from relaybot.club.gamefile import GameFile
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.games.registry import rules_for
from relaybot.mail.render import render
from relaybot.pipeline.replies import _verdict_context
from relaybot.store.models import Game, Member


def _game(kind: str, moves: str = "", options: dict[str, str] | None = None
          ) -> tuple[StoredGame, str, tuple[str, ...]]:
    """(the stored game after ``moves``, its start position, its plies)."""
    rules = rules_for(kind)
    board = rules.setup(options or {}) if options else rules.start()
    start = rules.save(board)
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    for token in moves.split():
        ply = rules.parse(board, token)
        keys.append(rules.ply_keys(board, ply))
        rules.play(board, ply)
        plies.append(ply)
    return (StoredGame(plies=tuple(plies), keys=tuple(keys), position=rules.save(board)),
            start, tuple(plies))


def _mail(kind: str, moves: str, sender: int, text: str,
          options: dict[str, str] | None = None) -> tuple[Verdict, dict[str, str]]:
    """The verdict on ``text`` and the reply's body in each language."""
    rules = rules_for(kind)
    game, start, plies = _game(kind, moves, options)
    verdict = decide(rules, game, sender, text)
    row = Game(id="g1", kind=kind, start_date=date(2024, 1, 1), position=start,
               plies=" ".join(plies))
    gf = GameFile(row, Member(id=1), Member(id=2), [], rules)
    bodies: dict[str, str] = {}
    for lang in ("en", "ja"):
        ctx = _verdict_context(gf, Member(id=1, lang=lang, notation=rules.display_notation,
                                                letters="en"), verdict)
        _, bodies[lang] = render(lang, "player", "error", kind=verdict.kind, reader="山田, 太郎",
                                 game_kind=kind, record_policy=rules.record_policy,
                                 subject="", caps={}, **ctx)
    return verdict, bodies


def _refused(verdict: Verdict) -> None:
    assert verdict.kind == "sync_error" and "wrong_side" in verdict.notes, verdict
    assert not verdict.applies and verdict.new_plies == []


# --- go ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["黒2 D4", "2 B D4", "2 黒 D4", "2 ●D4", "2 black D4"])
def test_j1_go_a_move_labelled_with_the_wrong_colour_is_refused_in_both_languages(
        text: str) -> None:
    """Move 2 of an even game is White's: ``黒2 D4`` from White was played silently."""
    verdict, body = _mail("go", "Q16", 1, text)
    _refused(verdict)
    assert verdict.diff_ply == 1 and verdict.diff_token == "D4" and verdict.written_side == 0
    assert ('Your mail marks move 2 ("D4") as Black\'s, but move 2 is White\'s in this game.'
            in body["en"]) and "\n  2 D4\n" in body["en"]
    assert "nothing was applied" in body["en"]
    assert ("メールでは 2手目（「D4」）が黒の手になっていますが、この対局の 2手目 は白の手です。"
            in body["ja"]) and "\n  2 D4\n" in body["ja"]
    assert "何も適用していません" in body["ja"]


def test_j1_go_white_labelled_on_blacks_first_move_of_an_even_game() -> None:
    verdict, body = _mail("go", "", 0, "白1 Q16")
    _refused(verdict)
    assert verdict.diff_ply == 0 and verdict.written_side == 1
    assert 'marks move 1 ("Q16") as White\'s, but move 1 is Black\'s' in body["en"]
    assert "1手目（「Q16」）が白の手になっていますが、この対局の 1手目 は黒の手です" in body["ja"]


def test_j1_go_the_right_colour_is_still_read() -> None:
    game, _, _ = _game("go", "Q16")
    for text in ("白2 D4", "2 W D4", "2 白 D4", "2 ○D4", "1 黒 Q16 2 白 D4", "2 D4"):
        verdict = decide(rules_for("go"), game, 1, text)
        assert verdict.kind == "move" and verdict.new_plies == ["d4"], text


def test_j1_go_in_a_handicap_game_white_moves_first_and_the_colours_follow() -> None:
    """Handicap: the stones are placed and White makes move 1, so move 2 is Black's."""
    handicap = {"handicap": "2"}
    game, _, _ = _game("go", "R16", handicap)
    rules = rules_for("go")
    assert decide(rules, game, 0, "黒2 D3").new_plies == ["d3"]
    assert decide(rules, game, 0, "1 白 R16 2 黒 D3").new_plies == ["d3"]
    verdict, body = _mail("go", "R16", 0, "白2 D3", handicap)
    _refused(verdict)
    assert 'marks move 2 ("D3") as White\'s, but move 2 is Black\'s' in body["en"]
    verdict, body = _mail("go", "", 1, "黒1 R16", handicap)
    _refused(verdict)
    assert "1手目（「R16」）が黒の手になっていますが、この対局の 1手目 は白の手です" in body["ja"]


def test_j1_go_an_earlier_move_with_the_wrong_colour_names_the_records_move() -> None:
    verdict, body = _mail("go", "Q16 D4", 0, "1 W Q16 2 B D4 3 B Q3")
    _refused(verdict)
    assert verdict.diff_ply == 0
    assert 'marks move 1 ("Q16") as White\'s, but move 1 is Black\'s' in body["en"]
    assert "\n  1 Q16\n" in body["en"]


def test_j1_go_a_pasted_sgf_with_the_colours_swapped_is_refused() -> None:
    verdict, _ = _mail("go", "", 0, "(;GM[1]SZ[19];W[pd])")
    _refused(verdict)
    assert decide(rules_for("go"), _game("go")[0], 0, "(;GM[1]SZ[19];B[pd])").new_plies == [
        "q16"]


def test_a_colour_before_the_number_is_no_record_line_as_before() -> None:
    """``B 2 D4`` was never read as a move (a line starts with its number): nothing is
    applied, and the reply quotes the line as one where a move stands among words."""
    verdict = decide(rules_for("go"), _game("go", "Q16")[0], 1, "B 2 D4")
    assert verdict.kind == "no_move" and not verdict.applies
    assert verdict.unread_line == "B 2 D4"


# --- shogi ------------------------------------------------------------------------------

def test_j1_shogi_a_sente_mark_on_an_earlier_gote_move_is_refused_in_both_languages() -> None:
    """▲ is 先手, △ (▽) 後手: an earlier move whose mark is the other side's was read by
    its square and piece alone."""
    verdict, body = _mail("shogi", "▲７六歩 △３四歩", 0, "1 ▲７六歩 2 ▲３四歩 3 ▲２六歩")
    _refused(verdict)
    assert verdict.diff_ply == 1 and verdict.written_side == 0
    assert "marks move 2" in body["en"] and "as Sente's, but move 2 is Gote's" in body["en"]
    assert "\n  2 △３四歩\n" in body["en"]
    assert "が先手の手になっていますが、この対局の 2手目 は後手の手です" in body["ja"]
    for text in ("1 ▲７六歩 2 △３四歩 3 ▲２六歩", "1 ▲７六歩 2 ▽３四歩 3 ▲２六歩",
                 "1 ７六歩 2 ３四歩 3 ２六歩", "▲７六歩△３四歩▲２六歩"):
        game, _, _ = _game("shogi", "▲７六歩 △３四歩")
        assert decide(rules_for("shogi"), game, 0, text).new_plies == ["2g2f"], text


def test_j1_shogi_the_new_move_with_the_other_sides_mark_was_refused_already() -> None:
    """The new move's mark is checked when it is read (shogi_turn), as before."""
    verdict, body = _mail("shogi", "▲７六歩", 1, "2 ▲３四歩")
    assert verdict.kind == "bad_move" and not verdict.applies
    assert verdict.error is not None and verdict.error.why is not None
    assert verdict.error.why.code == "shogi_turn"
    assert "it is Gote (△)'s move" in body["en"] and "後手（△）の手番です" in body["ja"]


# --- chess ------------------------------------------------------------------------------

def test_j1_chess_a_record_that_starts_at_blacks_move_is_refused_already() -> None:
    """``1... e5`` alone: the mail does not carry the game from move 1 (J1)."""
    verdict, body = _mail("chess", "e4", 1, "1... e5")
    assert verdict.kind == "sync_error" and not verdict.applies and verdict.starts_at == 1
    assert "starts at 1..., not at move 1" in body["en"]
    verdict = decide(rules_for("chess"), _game("chess", "e4 e5 Nf3 Nc6")[0], 0, "5... Bb5")
    assert verdict.kind == "sync_error" and verdict.starts_at == 9


def test_j2_chess_a_wrong_dots_inside_a_whole_record_is_lenient() -> None:
    """J2 (notation guide, rule 7): wrong move numbers are no error when the moves read;
    a whole game from move 1 is checked move by move against the record."""
    game, _, _ = _game("chess", "e4 e5 Nf3 Nc6")
    verdict = decide(rules_for("chess"), game, 0, "1. e4 e5 2. Nf3 Nc6\n3... Bb5")
    assert verdict.kind == "move" and verdict.new_plies == ["f1b5"]
