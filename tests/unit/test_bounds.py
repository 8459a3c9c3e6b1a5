"""Bounded work per mail (issue 12 item 10): the referee's caps, J16 and J17."""

from __future__ import annotations

from relaybot.core.bounds import MAX_CONDITIONALS, RECORD_SLACK, dedupe_lines, record_limit
from relaybot.core.referee import StoredGame, decide
from relaybot.games import rules_for

CHESS = rules_for("chess")


def new_game() -> StoredGame:
    return StoredGame(plies=(), keys=(), position=CHESS.save(CHESS.start()))


def test_dedupe_lines_blanks_repeats_and_keeps_the_line_count() -> None:
    text = "1. e4\nif 1... e5 then 2. Nf3\n  IF 1... e5  then 2. Nf3\nif 1... c5 then 2. Nf3"
    out, distinct = dedupe_lines(text, {1, 2, 3})
    assert distinct == 2
    assert out.splitlines() == ["1. e4", "if 1... e5 then 2. Nf3", "",
                                "if 1... c5 then 2. Nf3"]
    assert dedupe_lines(text, set()) == (text, 0)
    assert dedupe_lines("a\r\nb", {0}) == ("a\r\nb", 1)  # nothing blanked: text as it came


def test_record_limit_allows_the_new_move_the_bound_answers_and_some_slack() -> None:
    assert record_limit(10, 0) == 10 + 1 + RECORD_SLACK
    assert record_limit(10, 6) == 10 + 1 + 6 + RECORD_SLACK


def test_j16_more_distinct_proposals_than_the_cap_refuse_the_whole_mail() -> None:
    lines = [f"if 1... {p} then 2. {a}" for p in ("a6", "b6", "c6", "d6", "e6", "f6", "g6",
                                                  "h6") for a in ("Nf3", "Nc3", "d4", "d3",
                                                                  "c4", "c3", "a3")]
    assert len(lines) > MAX_CONDITIONALS
    verdict = decide(CHESS, new_game(), 0, "1. e4\n" + "\n".join(lines))
    assert verdict.kind == "too_many_conditionals" and not verdict.applies
    fifty = decide(CHESS, new_game(), 0, "1. e4\n" + "\n".join(lines[:MAX_CONDITIONALS]))
    assert fifty.kind == "move" and fifty.new_conditionals  # at the cap: read as before


def test_j16_pgn_variations_count_too() -> None:
    text = "1. e4 " + " ".join("(1... e5 2. Nf3)" for _ in range(MAX_CONDITIONALS + 1))
    assert decide(CHESS, new_game(), 0, text).kind == "too_many_conditionals"


def test_a_record_far_longer_than_the_game_is_refused_and_a_short_overrun_is_not() -> None:
    moves = ["Nf3", "Nf6", "Ng1", "Ng8"]

    def record(plies: int) -> str:
        return " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + moves[i % 4]
                        for i in range(plies))

    assert decide(CHESS, new_game(), 0, record(record_limit(0, 0) + 1)).kind == "too_long"
    assert decide(CHESS, new_game(), 0, record(3)).kind == "too_many_moves"
