"""J16 (seed 002 rule 16): where proposals are optional, a mating line that answers
every defence cannot be ignored: the bot plays its answers as if they bound. A line that
misses a defence, or whose answer does not mate, stays optional. Pure."""

from __future__ import annotations

from relaybot.core.conditionals import Conditional, forces_win
from relaybot.core.referee import StoredGame, decide
from relaybot.games import rules_for

CHESS = rules_for("chess")
SHOGI = rules_for("shogi")
GO = rules_for("go")

# gote's king on 1a, a sente pawn on 2c, a gold and a silver in sente's hand: S*2b is
# check, the king's only way out is 1b, and G*1c mates there
TSUME = "8k/9/7P1/9/9/9/9/9/4K4 b GS 1"


def _after(rules: object, saved: str, ply: str) -> object:
    board = rules.load(saved)  # type: ignore[attr-defined]
    rules.play(board, ply)  # type: ignore[attr-defined]
    return board


def test_j16_a_back_rank_mate_answering_every_defence_forces_the_win() -> None:
    board = _after(CHESS, "3r3k/6pp/8/8/8/8/4R3/4R1K1 w - - 0 1", "e2e8")  # Re8+
    assert forces_win(CHESS, board, [Conditional(("d8e8", "e1e8"))], 0)  # ...Rxe8 Rxe8#


def test_j16_a_line_that_misses_a_defence_does_not() -> None:
    # the black bishop on a3 may also block on f8: that defence is not answered
    board = _after(CHESS, "3r3k/6pp/8/8/8/b7/4R3/4R1K1 w - - 0 1", "e2e8")
    assert not forces_win(CHESS, board, [Conditional(("d8e8", "e1e8"))], 0)


def test_j16_an_answer_that_does_not_mate_and_stops_does_not() -> None:
    board = _after(CHESS, "3r3k/6pp/8/8/8/8/4R3/4R1K1 w - - 0 1", "e2e8")
    assert not forces_win(CHESS, board, [Conditional(("d8e8", "g1f1"))], 0)
    assert not forces_win(CHESS, board, [], 0)


def test_j16_a_shogi_mate_by_drops() -> None:
    board = _after(SHOGI, TSUME, "S*2b")
    assert forces_win(SHOGI, board, [Conditional(("1a1b", "G*1c"))], 0)
    assert not forces_win(SHOGI, board, [Conditional(("1a1b", "G*2a"))], 0)


def test_go_has_no_mating_line() -> None:
    board = GO.start()
    assert not forces_win(GO, board, [Conditional(("pd", "dp"))], 1)


def _tsume_after_check() -> tuple[StoredGame, list[Conditional]]:
    """The proposer's mail: S*2b with the mating line, in optional mode (seed 002)."""
    game = StoredGame(plies=(), keys=(), position=SHOGI.save(SHOGI.load(TSUME)))
    verdict = decide(SHOGI, game, 0, "1 ▲２二銀打\nもし △１二玉 なら ▲１三金打\n",
                     mode="optional")
    assert verdict.kind == "move" and verdict.new_plies == ["S*2b"]
    assert "mating_line" in verdict.notes  # the proposer is told it binds
    after = StoredGame(plies=("S*2b",), keys=(frozenset(),), position=verdict.position or "")
    return after, list(verdict.new_conditionals)


def test_j16_seed_002_rule_16_the_mating_line_binds_in_optional_mode() -> None:
    game, lines = _tsume_after_check()
    reply = decide(SHOGI, game, 1, "2 △１二玉\n", conditionals=lines, mode="optional")
    assert reply.new_plies == ["1a1b", "G*1c"] and reply.auto == [False, True]
    assert reply.outcome is not None and reply.outcome.winner == 0  # mated at once


def test_j16_a_line_that_does_not_mate_stays_optional() -> None:
    game = StoredGame(plies=(), keys=(), position=SHOGI.save(SHOGI.load(TSUME)))
    verdict = decide(SHOGI, game, 0, "1 ▲２二銀打\nもし △１二玉 なら ▲２一金打\n",
                     mode="optional")
    assert "mating_line" not in verdict.notes
    after = StoredGame(plies=("S*2b",), keys=(frozenset(),), position=verdict.position or "")
    reply = decide(SHOGI, after, 1, "2 △１二玉\n", conditionals=list(verdict.new_conditionals),
                   mode="optional")
    assert reply.new_plies == ["1a1b"] and reply.outcome is None  # the answer not played


def test_rule16_a_mating_line_far_from_the_deadline_stays_optional() -> None:
    """Seed 002 rule 16 「対局期限が迫っていて、詰みを読み切り、詰みの先読みを行った場合、その
    先読みは無視できない」: the same line sent long before the deadline binds nobody: the
    proposer is not told it binds, and the defender may answer as they like."""
    game = StoredGame(plies=(), keys=(), position=SHOGI.save(SHOGI.load(TSUME)))
    verdict = decide(SHOGI, game, 0, "1 ▲２二銀打\nもし △１二玉 なら ▲１三金打\n",
                     mode="optional", near=False)
    assert verdict.kind == "move" and "mating_line" not in verdict.notes
    after = StoredGame(plies=("S*2b",), keys=(frozenset(),), position=verdict.position or "")
    reply = decide(SHOGI, after, 1, "2 △１二玉\n", conditionals=list(verdict.new_conditionals),
                   mode="optional", line_near=False)
    assert reply.new_plies == ["1a1b"] and reply.outcome is None  # not played for him


def test_rule16_near_the_deadline_the_line_must_answer_every_defence() -> None:
    """Seed 002 rule 16 「このとき、受けの全ての変化を書かなければならない」: near the
    deadline a line that leaves the defence 2 △１二玉 unanswered (it answers another
    move) binds nobody; the one that answers it does."""
    game = StoredGame(plies=(), keys=(), position=SHOGI.save(SHOGI.load(TSUME)))
    short = decide(SHOGI, game, 0, "1 ▲２二銀打\nもし △２二玉 なら ▲１三金打\n",
                   mode="optional", near=True)
    assert short.kind == "move" and "mating_line" not in short.notes
    board = SHOGI.load(TSUME)
    SHOGI.play(board, "S*2b")
    assert list(SHOGI.legal_plies(board)) == ["1a1b"]  # the one defence to answer
    full = decide(SHOGI, game, 0, "1 ▲２二銀打\nもし △１二玉 なら ▲１三金打\n",
                  mode="optional", near=True)
    assert "mating_line" in full.notes


def test_rule16_the_deadline_is_near_in_its_last_ten_days() -> None:
    """Seed 002 rule 16 「対局期限が迫っていて」: the last 10 days before a game's deadline."""
    from datetime import date

    from relaybot.core.seasons import near_deadline

    end = date(2027, 6, 30)
    assert near_deadline(date(2027, 6, 21), end) and near_deadline(end, end)
    assert not near_deadline(date(2027, 6, 20), end) and not near_deadline(end, None)
