"""relaybot.core.intent: keywords alone on a line, English and Japanese alike."""

from __future__ import annotations

from datetime import date

import pytest

from relaybot.core.intent import read_intent


@pytest.mark.parametrize(
    "line,attr",
    [("resign", "resign"), ("  I   Resign. ", "resign"), ("ＲＥＳＩＧＮ", "resign"),  # full width
     ("投了します。", "resign"), ("draw?", "draw_offer"), ("Draw\t?", "draw_offer"),
     ("Draw!", "draw_accept"), ("ドロー", "draw_accept"), ("Ｓｔａｔｕｓ", "status"),
     ("help", "help"), ("Long\u00a0think", "long_think"), ("長考", "long_think")],
)  # fmt: skip
def test_keyword_lines_in_any_case_width_and_spacing(line: str, attr: str) -> None:
    """ASCII lines skip NFKC; full-width and odd spaces (tab, no-break) still count."""
    intent = read_intent(f"Hello,\n\n1. e4 e5\n{line}\nBye")
    assert getattr(intent, attr) is True
    assert intent.keyword_lines == {3}


def test_td_question_and_leave() -> None:
    intent = read_intent("TD:  is 3... Bc5 legal?\nleave 2026-05-01 - 2026-05-10\n")
    assert intent.td_question == "is 3... Bc5 legal?"
    assert intent.leave == (date(2026, 5, 1), date(2026, 5, 10))
    assert intent.keyword_lines == {0, 1}
    fullwidth = read_intent("ｔｄ：ｈｅｌｌｏ\n休戦 2026-05-01〜2026-05-10")
    assert fullwidth.td_question == "hello"
    assert fullwidth.leave == (date(2026, 5, 1), date(2026, 5, 10))
    assert read_intent("leave soon").leave_invalid


def test_moves_and_prose_are_no_keywords() -> None:
    intent = read_intent("Nf3 Nc6 Bb5 a6\nI will not resign\nresign 1. e4\n\n12. O-O")
    assert not intent.any
    assert intent.keyword_lines == set()


def test_tutorial_games_tutor_keyword_with_or_without_result() -> None:
    """Seed 000 チュートリアル・ゲーム: ... チューターが判断したところでゲームは中断され、
    最後にゲームの結果報告を経験して終了します: ``tutorial end`` / ``指導終了``, alone on
    its line, optionally with the result; prose that starts the same way is no keyword."""
    for text, result in (("tutorial end", ""), ("Tutorial end 1-0", "1-0"),
                         ("指導終了", ""), ("指導終了 先手勝ち", "先手勝ち"),
                         ("ｔｕｔｏｒｉａｌ　ｅｎｄ", ""), ("end tutorial.", ""),
                         ("チュートリアル終了。", "")):
        intent = read_intent(text)
        assert intent.tutorial_end == result, text
        assert [(f.name, f.does) for f in intent.found] == [("tutorial_end", "aside")]
    for prose in ("endgame is hard", "tutorial end, thanks for all", "the tutorial ends soon"):
        intent = read_intent(prose)
        assert intent.tutorial_end is None and not intent.found, prose


def test_a_game_keyword_written_as_a_label_with_a_colon() -> None:
    """``Result: B+3.5`` / ``結果：黒3目半勝ち`` (a form's label, full-width colon and no
    space alike) give the game's keyword its words, as ``result B+3.5`` does."""
    words = {"result": "result", "結果": "result"}
    assert read_intent("Result: B+3.5", words).declared == "result b+3.5"
    assert read_intent("結果：黒3目半勝ち", words).declared == "result 黒3目半勝ち"
    assert read_intent("結果:", words).declared is None  # a label with nothing after it
    assert read_intent("td: a question", words).declared is None  # not a game keyword
