"""Several games in one mail (J17): splitting a body into game sections, pure."""

from __future__ import annotations

import chess
import pytest

from relaybot.core.conditionals import follow
from relaybot.core.sections import Section, label_core, split_mail, split_sections
from relaybot.games.chess import RULES
from relaybot.games.chess.notation import extract_record
from relaybot.games.chess.proposals import strip_proposals

LABELS = {"A": "k7m2qx", "B": "p3n8zt"}


def ids(sections: list[Section]) -> list[str]:
    return [s.game_id for s in sections]


def test_j17_seed_card_with_games_a_and_b() -> None:
    """Seed 000, 角川氏第1信: A局 and B局 on one card, greeting before, notes after."""
    text = (
        "#500\n"
        "\n"
        "A局 1. e4 e5\n"
        "\n"
        "2. Nf3 Nc6\n"
        "\n"
        "B局 1. d4\n"
        "\n"
        "もし、1... d5 なら\n"
        "\n"
        "2. c4 とします。\n"
        "\n"
        "A (0:1), B (0:0)\n"
        "当方、新人です。お手柔らかに。"
    )
    greeting, sections = split_mail(text, LABELS, RULES.looks_like_move)
    assert greeting == "#500\n"
    assert ids(sections) == ["k7m2qx", "p3n8zt"]
    a, b = sections
    assert (a.label, a.first_line, a.line_numbers) == ("A局", 2, (2, 3, 4, 5))
    assert extract_record(a.text).tokens == ["e4", "e5", "Nf3", "Nc6"]
    assert b.first_line == 6 and b.text.startswith("1. d4\n")
    assert extract_record(strip_proposals(b.text)).tokens == ["d4"]
    # "A (0:1), B (0:0)" is the day count, not a label: it stays in B's text.
    assert "A (0:1)" in b.text
    assert text.splitlines()[b.line_numbers[2]] == "もし、1... d5 なら"


@pytest.mark.parametrize(
    ("line", "game"),
    [
        ("A 1. e4", "k7m2qx"),
        ("A", "k7m2qx"),
        ("A: 1. e4", "k7m2qx"),
        ("A:1. e4", "k7m2qx"),
        ("[A] 1. e4", "k7m2qx"),
        ("[A]1. e4", "k7m2qx"),
        ("(B) 1. d4", "p3n8zt"),
        ("Game A", "k7m2qx"),
        ("Game A: 1. e4", "k7m2qx"),
        ("game b 1. d4", "p3n8zt"),
        ("ゲームA 1. e4", "k7m2qx"),
        ("ゲーム B", "p3n8zt"),
        ("A局 1. e4", "k7m2qx"),
        ("Ａ局　１．ｅ４", "k7m2qx"),  # J2 full width
        ("k7m2qx 1. e4", "k7m2qx"),
        ("K7M2QX:", "k7m2qx"),
        ("[p3n8zt] 1. d4", "p3n8zt"),
        ("#p3n8zt", "p3n8zt"),
        ("a 1. e4", "k7m2qx"),
        ("A if 1... e5 then 2. Nf3", "k7m2qx"),
    ],
)
def test_j17_label_forms(line: str, game: str) -> None:
    sections = split_sections(f"Hello\n{line}\nthanks", LABELS, RULES.looks_like_move)
    assert ids(sections) == [game]
    assert sections[0].first_line == 1
    assert sections[0].text.splitlines()[-1] == "thanks"


@pytest.mark.parametrize(
    "line",
    [
        "A nice game so far!",
        "A (0:1), B (0:0)",
        "Game A was fun",
        "A局＝白番 丸山氏、黒番 角川氏",
        "> A局 1. e4",  # quoted text never counts
        "Abc 1. e4",
        "1. e4 e5",
    ],
)
def test_j17_prose_is_not_a_label(line: str) -> None:
    assert split_sections(f"{line}\nthanks", LABELS, RULES.looks_like_move) == []


def test_j17_no_labels_is_a_single_game_mail() -> None:
    text = "Hello\n\n1. e4 e5 2. Nf3\n\nRegards"
    assert split_sections(text, LABELS, RULES.looks_like_move) == []
    assert split_mail(text, LABELS, RULES.looks_like_move) == (text, [])
    assert split_sections(text, {}, RULES.looks_like_move) == []


def test_j17_decorated_label_keys_and_game_ids_name_themselves() -> None:
    labels = {"Game A": "k7m2qx", "[B]": "p3n8zt"}
    text = "A: 1. e4\nB局 1. d4\nk7m2qx 1. e4 e5"
    sections = split_sections(text, labels, RULES.looks_like_move)
    # A game named twice is one section, its parts in order.
    assert ids(sections) == ["k7m2qx", "p3n8zt"]
    assert sections[0].text == "1. e4\n1. e4 e5"
    assert sections[0].line_numbers == (0, 2)
    for written in ("A", "Game A", "[A]", "A:", "ゲームA", "A局", "Ａ局", "#A"):
        assert label_core(written) == "A", written


def test_j17_the_label_keeps_full_width_for_the_j2_note() -> None:
    sections = split_sections("Ａ局　１．ｅ４", LABELS, RULES.looks_like_move)
    assert sections[0].text == "１．ｅ４"
    record = extract_record(sections[0].text)
    assert record.tokens == ["e4"] and record.fullwidth


def test_j17_one_bad_section_does_not_block_the_others() -> None:
    """Each section is checked on its own (the service's job; here: split + referee stand-in)."""
    boards = {"k7m2qx": chess.Board(), "p3n8zt": chess.Board()}
    boards["k7m2qx"].push_san("e4")
    boards["p3n8zt"].push_san("d4")
    text = "Dear opponent,\n\nA: 1. e4 Ke7e5\n\nB: 1. d4 Nf6\n\nBest wishes"
    greeting, sections = split_mail(text, LABELS, RULES.looks_like_move)
    assert greeting == "Dear opponent,\n"
    results = {}
    for section in sections:
        board = boards[section.game_id]
        tokens = extract_record(strip_proposals(section.text)).tokens[len(board.move_stack) :]
        results[section.game_id] = follow(RULES, [], tokens, board)
    assert results["k7m2qx"].kind == "bad_move"  # J5 for game A only
    assert results["p3n8zt"].kind == "move" and results["p3n8zt"].plies == ["g8f6"]
