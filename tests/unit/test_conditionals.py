"""Conditional proposals (J16): reading, checking and following them, pure.

The JCCA postal example (seed 000, 郵便戦の対局要領: Maruyama and Kadokawa play
games A and B with conditional proposals) is replayed as four mails through
:mod:`relaybot.core.sections` and :mod:`relaybot.core.conditionals`, with a
small stand-in for the service.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import pytest

from relaybot.core.conditionals import (
    CONTRADICTION_PENALTY_DAYS,
    Conditional,
    FollowResult,
    Mode,
    ProposalLine,
    Rejected,
    follow,
    format_conditional,
    validate,
)
from relaybot.core.sections import split_mail
from relaybot.games.chess import RULES
from relaybot.games.chess.notation import extract_record, format_record, parse_move
from relaybot.games.chess.proposals import parse_proposals, proposal_lines, strip_proposals


def fmt(board: chess.Board, cond: Conditional, *args: str, **kwargs: str) -> str:
    """format_conditional for chess."""
    return format_conditional(RULES, board, cond, *args, **kwargs)

def board_after(san: str) -> chess.Board:
    """The position after SAN moves (move numbers allowed)."""
    board = chess.Board()
    for token in san.split():
        if not token[0].isdigit() or not token.rstrip(".").isdigit():
            board.push_san(token)
    return board


def proposals(
    text: str, board: chess.Board, letters: str = "en"
) -> tuple[list[Conditional], list[Rejected]]:
    """parse + validate a mail's proposals on the position after its last move."""
    record = extract_record(strip_proposals(text))
    return validate(RULES, board, parse_proposals(text, record), letters)


def reply(
    conds: list[Conditional], board: chess.Board, text: str, mode: Mode = "binding"
) -> FollowResult:
    """follow() on the new tokens of a reply mail (J1 assumed fine)."""
    record = extract_record(strip_proposals(text))
    done = len(board.move_stack)
    return follow(RULES, conds, record.tokens[done:], board, "en", mode)


# --- a stand-in for the service ----------------------------------------------------


@dataclass
class Game:
    """One game as the service would keep it."""

    board: chess.Board = field(default_factory=chess.Board)
    conditionals: list[Conditional] = field(default_factory=list)
    proposer: bool | None = None  # colour of the player bound by ``conditionals``
    mode: Mode = "binding"
    bot_played: list[str] = field(default_factory=list)  # J16: 0 days to the proposer
    penalties: dict[bool, int] = field(default_factory=lambda: {True: 0, False: 0})
    rejected: list[Rejected] = field(default_factory=list)


def play_section(game: Game, sender: bool, text: str) -> FollowResult:
    """What the service does with one section from the player of colour ``sender``."""
    record = extract_record(strip_proposals(text))
    stored = len(game.board.move_stack)
    replay = chess.Board()
    for token, move in zip(record.tokens, game.board.move_stack, strict=False):  # J1
        assert parse_move(replay, token) == move, f"sync error at {token}"
        replay.push(move)
    assert game.board.turn == sender
    conds = game.conditionals if game.proposer == (not sender) else []
    result = follow(RULES, conds, record.tokens[stored:], game.board, "en", game.mode)
    game.penalties[sender] += result.penalty_days
    if not result.applies:
        return result
    for step in result.steps:
        game.board.push(chess.Move.from_uci(step.ply))
        if step.by_proposer and not step.written:
            game.bot_played.append(step.san)
    game.conditionals, game.proposer = [], None  # the reply arrived: the proposal lapses
    if not result.sender_to_move:
        accepted, rejected = validate(RULES, game.board, parse_proposals(text, record))
        game.conditionals, game.proposer = accepted, sender
        game.rejected.extend(rejected)
    return result


LABELS = {"A": "gameA1", "B": "gameB1"}

# Seed 000, 郵便戦の対局要領, written as e-mail: every mail carries each game from
# move 1 (J1), one section per game (J17), proposals in Japanese as on the card.
LETTER_1_MARUYAMA = """#500

A局 1. e4

もし、1... e5 なら

2. Nf3 とします。

他の手なら、再考します。

本部からの指示書通り、本日
スタートいたしました。
楽しく、対局しましょう。
どうぞ、よろしく。
"""

LETTER_2_KADOKAWA = """#500

A局 1. e4 e5

2. Nf3 Nc6

B局 1. d4

もし、1... d5 なら

2. c4 とします。

A (0:1), B (0:0)

当方、新人です。お手柔らかに。
"""

LETTER_3_MARUYAMA = """#500

A局 1. e4 e5

2. Nf3 Nc6

3. Bc4

もし、3... Bc5 なら 4. c3 とします。

他の手なら再考。

B局 1. d4 d5

2. c4 c6

A (1:1), B (0:1)
"""

LETTER_4_KADOKAWA = """#500

A局 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6

B局 1. d4 d5 2. c4 c6 3. Nf3

A (2:3) B (2:2)
なお、A局の予想手は受けません。
"""


def test_seed_000_postal_example_games_a_and_b() -> None:
    """J16 + J17: the seed's four cards, replayed mail by mail."""
    WHITE, BLACK = chess.WHITE, chess.BLACK
    a, b = Game(), Game()  # A: Maruyama White; B: Kadokawa White
    games = {"gameA1": a, "gameB1": b}
    maruyama = {"gameA1": WHITE, "gameB1": BLACK}
    kadokawa = {"gameA1": BLACK, "gameB1": WHITE}

    def mail(text: str, colours: dict[str, bool]) -> dict[str, FollowResult]:
        greeting, sections = split_mail(text, LABELS, RULES.looks_like_move)
        assert "#500" in greeting
        return {
            s.game_id: play_section(games[s.game_id], colours[s.game_id], s.text) for s in sections
        }

    # (1) Maruyama: A 1. e4, if 1... e5 then 2. Nf3.
    out = mail(LETTER_1_MARUYAMA, maruyama)
    assert list(out) == ["gameA1"]
    assert out["gameA1"].plies == ["e2e4"] and not out["gameA1"].triggered
    assert [c.sans for c in a.conditionals] == [("e5", "Nf3")]
    assert a.proposer == WHITE

    # (2) Kadokawa accepts in A by restating (1... e5 2. Nf3 Nc6); starts B with a proposal.
    out = mail(LETTER_2_KADOKAWA, kadokawa)
    ra = out["gameA1"]
    assert ra.kind == "move" and ra.triggered and not ra.sender_to_move
    assert [s.san for s in ra.steps] == ["e5", "Nf3", "Nc6"]
    assert ra.bound_answers == ["g1f3"]  # White's 2. Nf3: 0 days to Maruyama (J16)
    assert [c.sans for c in b.conditionals] == [("d5", "c4")]
    assert b.proposer == WHITE
    assert a.conditionals == []

    # (3) Maruyama: A 3. Bc4 with if 3... Bc5 then 4. c3; B accepts 1... d5 2. c4, plays 2... c6.
    out = mail(LETTER_3_MARUYAMA, maruyama)
    assert out["gameA1"].plies == ["f1c4"]
    assert [c.sans for c in a.conditionals] == [("Bc5", "c3")]
    rb = out["gameB1"]
    assert [s.san for s in rb.steps] == ["d5", "c4", "c6"]
    assert rb.bound_answers == ["c2c4"]

    # (4) Kadokawa declines A's proposal (3... Nf6, not 3... Bc5) and plays 3. Nf3 in B.
    out = mail(LETTER_4_KADOKAWA, kadokawa)
    assert out["gameA1"].kind == "move" and not out["gameA1"].triggered
    assert out["gameA1"].plies == ["g8f6"] and out["gameA1"].penalty_days == 0
    assert out["gameB1"].plies == ["g1f3"]

    assert format_record(a.board.move_stack, "san") == "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6"
    assert format_record(b.board.move_stack, "san") == "1. d4 d5 2. c4 c6 3. Nf3"
    assert a.penalties == {WHITE: 0, BLACK: 0} and b.penalties == {WHITE: 0, BLACK: 0}
    assert a.rejected == [] and b.rejected == []


# --- parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "if 3... Bc5 then 4. c3",
        "if 3...Bc5 4.c3",
        "If 3... Bc5, 4. c3",
        "もし、3... Bc5 なら 4. c3 とします",
        "もし 3... Bc5 なら 4. c3",
        "もし3...Bc5なら4.c3とします。他の手なら再考。",
        "ｉｆ　３．．．Ｂｃ５　ｔｈｅｎ　４．ｃ３",  # J2 full width
        "もし、３… Ｂｃ５ なら ４． ｃ３ とします。",
        "if you play 3... Bc5 then I'll reply 4. c3. Otherwise I'll think again.",
        "if 3... Bc5 -> 4. c3",
    ],
)
def test_j16_proposal_syntaxes(text: str) -> None:
    lines = parse_proposals(text, extract_record(strip_proposals(text)))
    assert [(p.tokens, p.start_ply) for p in lines] == [(("Bc5", "c3"), 5)]  # 3... is ply 5
    assert proposal_lines(text) == {0}


def test_j16_deeper_line_and_several_alternatives() -> None:
    deep = parse_proposals("if 3... Bc5 then 4. c3 Nf6 5. d4", extract_record(""))
    assert [p.tokens for p in deep] == [("Bc5", "c3", "Nf6", "d4")]
    for text in (
        "if 3... Bc5 then 4. c3; if 3... Nf6 then 4. d3",
        "if 3... Bc5 then 4. c3; 3... Nf6 then 4. d3",
        "if 3... Bc5 then 4. c3\nif 3... Nf6 then 4. d3",
        "もし 3... Bc5 なら 4. c3、3... Nf6 なら 4. d3",
        "もし 3... Bc5 なら 4. c3、もし 3... Nf6 なら 4. d3 とします。",
    ):
        got = parse_proposals(text, extract_record(strip_proposals(text)))
        assert [p.tokens for p in got] == [("Bc5", "c3"), ("Nf6", "d3")], text


def test_j16_seed_layout_proposal_continued_on_a_later_line() -> None:
    """Seed 000: 'もし、1... e5 なら' / blank / '2. Nf3 とします。' is one proposal."""
    text = "1. e4\n\nもし、1... e5 なら\n\n2. Nf3 とします。\n\n他の手なら、再考します。"
    got = parse_proposals(text, extract_record(strip_proposals(text)))
    assert [(p.tokens, p.lines) for p in got] == [(("e5", "Nf3"), (2, 4))]
    assert proposal_lines(text) == {2, 4}
    assert "他の手" not in strip_proposals(text).splitlines()[2]
    # Without stripping, a bare "2. Nf3" continuation would join the record (J1).
    bare = "1. e4\nもし 1... e5 なら\n\n2. Nf3\n"
    assert extract_record(strip_proposals(bare)).tokens == ["e4"]
    assert [p.tokens for p in parse_proposals(bare, extract_record(""))] == [("e5", "Nf3")]


def test_j16_proposal_after_the_move_on_the_same_line() -> None:
    text = "1. e4, if 1... e5 then 2. Nf3\nRegards"
    assert proposal_lines(text) == {0}
    stripped = strip_proposals(text)
    record = extract_record(stripped)
    assert record.tokens == ["e4"]
    assert [p.tokens for p in parse_proposals(text, record)] == [("e5", "Nf3")]


def test_j16_prose_with_if_is_not_a_proposal() -> None:
    for text in (
        "If you have time, let's talk about the opening.\n1. e4",
        "I wonder what happens if 3... Bc5 is played.",
        "もしよろしければ、よろしくお願いします。",
    ):
        assert parse_proposals(text, extract_record(text)) == [], text
        assert proposal_lines(text) == set()
        assert strip_proposals(text) == text
    # A finished sentence before "if" is fine.
    text = "Thanks for the game! if 1... e5 then 2. Nf3"
    assert [p.tokens for p in parse_proposals(text, extract_record(""))] == [("e5", "Nf3")]


def test_j16_pgn_variation_after_the_last_move() -> None:
    text = "1. e4 e5 2. Nf3 Nc6 3. Bc4 (3... Bc5 4. c3) (3... Nf6 4. d3)\nBest"
    record = extract_record(strip_proposals(text))
    got = parse_proposals(text, record)
    assert [(p.tokens, p.source) for p in got] == [
        (("Bc5", "c3"), "variation"),
        (("Nf6", "d3"), "variation"),
    ]
    accepted, rejected = validate(RULES, board_after("e4 e5 Nf3 Nc6 Bc4"), got)
    assert [c.plies for c in accepted] == [("f8c5", "c2c3"), ("g8f6", "d2d3")]
    assert rejected == []
    # A variation after an earlier move is a comment, not a proposal.
    text = "1. e4 e5 (1... c5) 2. Nf3"
    assert parse_proposals(text, extract_record(text)) == []


def test_j3_numeric_proposal() -> None:
    text = "1. 5254\nif 5755 then 7163"
    record = extract_record(strip_proposals(text))
    assert record.tokens == ["5254"]
    lines = parse_proposals(text, record)
    accepted, rejected = validate(RULES, board_after("e4"), lines)
    assert [c.plies for c in accepted] == [("e7e5", "g1f3")] and rejected == []
    res = follow(RULES, accepted, ["5755", "7163", "2836"], board_after("e4"))
    assert res.kind == "move"
    assert [s.san for s in res.steps] == ["e5", "Nf3", "Nc6"]


# --- validate -------------------------------------------------------------------


def test_j16_illegal_proposal_is_rejected_and_the_move_stands() -> None:
    board = board_after("e4")
    accepted, rejected = validate(
        RULES,
        board,
        [ProposalLine(("e5", "Nf4")), ProposalLine(("c5", "Nf3")), ProposalLine(("Nc9", "d4"))],
    )
    assert [c.sans for c in accepted] == [("c5", "Nf3")]
    assert [(r.reason, r.token, r.ply_index) for r in rejected] == [
        ("illegal", "Nf4", 1),
        ("unreadable", "Nc9", 0),
    ]
    assert "knight" in rejected[0].detail
    assert board.move_stack[-1] == chess.Move.from_uci("e2e4")  # untouched


def test_j16_proposal_illegal_in_its_assumed_position_deeper() -> None:
    board = board_after("e4")
    text = (
        "if 1... e5 then 2. Nf3 Nc6 3. Bb6 a6\n"  # no bishop reaches b6
        "if 1... c5 then 2. Nf3 Nc6 3. Bb5 Qxb5"  # a trailing move is checked too
    )
    accepted, rejected = proposals(text, board)
    assert accepted == []
    assert [(r.reason, r.token, r.ply_index) for r in rejected] == [
        ("illegal", "Bb6", 3),
        ("illegal", "Qxb5", 4),
    ]


def test_j16_no_answer_trailing_predicted_and_move_numbers() -> None:
    board = board_after("e4 e5 Nf3 Nc6 Bc4")  # Black to move at 3... (ply 5)
    # the second field is the ply the written number names: 3... is 5, 1... is 1
    accepted, rejected = validate(
        RULES,
        board,
        [
            ProposalLine(("Bc5",), 5),  # "if 3... Bc5 then" and nothing
            ProposalLine(("Bc5", "c3", "Nf6"), 5),  # trailing predicted: dropped
            ProposalLine(("Nf6", "d3"), 9),  # wrong number, legal: read as 3... (J2)
            ProposalLine(("e5", "Nf3"), 1),  # copied old proposal: stale
            ProposalLine(("Qh3", "c3"), 7),  # wrong number and not legal
            ProposalLine(("Be7", "d4"), 3),  # number typo on a legal line: fine (J2)
        ],
    )
    assert [(r.reason, r.token) for r in rejected] == [
        ("no_answer", ""),
        ("stale", "e5"),
        ("wrong_start", "Qh3"),
    ]
    assert [c.sans for c in accepted] == [("Bc5", "c3"), ("Nf6", "d3"), ("Be7", "d4")]
    assert "dropped" in accepted[0].notes[0]
    assert "read as 3..." in accepted[1].notes[0]
    assert "read as 3..." in accepted[2].notes[0]


def test_j16_lines_merge_into_a_tree_and_conflicts_are_rejected() -> None:
    board = board_after("e4")
    text = (
        "if 1... e5 then 2. Nf3 Nc6 3. Bb5\n"
        "if 1... e5 then 2. Nf3 Nf6 3. Nxe5\n"
        "if 1... c5 then 2. Nf3\n"
        "if 1... e5 then 2. Nc3\n"  # a second answer to 1... e5: conflict
        "if 1... e5 then 2. Nf3 Nc6 3. Bc4\n"  # a second answer to 2... Nc6: conflict
    )
    accepted, rejected = proposals(text, board)
    assert [c.sans for c in accepted] == [
        ("e5", "Nf3", "Nc6", "Bb5"),
        ("e5", "Nf3", "Nf6", "Nxe5"),
        ("c5", "Nf3"),
    ]
    assert [(r.reason, r.token) for r in rejected] == [
        ("conflict", "Nc3"),
        ("conflict", "Bc4"),
    ]
    assert "Nf3" in rejected[0].detail
    # Following the tree: 1... e5 2. Nf3 Nf6 -> the bot answers 3. Nxe5.
    res = follow(RULES, accepted, ["e5", "Nf3", "Nf6"], board)
    assert [(s.san, s.by_proposer, s.written) for s in res.steps] == [
        ("e5", False, True),
        ("Nf3", True, True),
        ("Nf6", False, True),
        ("Nxe5", True, False),
    ]
    assert res.sender_to_move
    # 1... c5 alone: the bot plays 2. Nf3.
    res = follow(RULES, accepted, ["c5"], board)
    assert res.plies == ["c7c5", "g1f3"] and res.sender_to_move


# --- follow ---------------------------------------------------------------------


E5_NF3 = [Conditional(("e7e5", "g1f3"))]  # restored from storage: plies only


def test_j16_accept_by_restating_then_own_move() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nf3 Nc6")
    assert res.kind == "move" and res.triggered
    assert res.plies == ["e7e5", "g1f3", "b8c6"]
    assert res.bound_answers == ["g1f3"]
    assert [s.token_index for s in res.steps] == [0, 1, 2]
    assert res.end_index == 3 and not res.sender_to_move and res.penalty_days == 0
    assert res.position == board_after("e4 e5 Nf3 Nc6").fen()


def test_j16_stop_after_predicted_move_bot_plays_bound_answer() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5")
    assert res.kind == "move"
    assert [(s.san, s.by_proposer, s.written) for s in res.steps] == [
        ("e5", False, True),
        ("Nf3", True, False),
    ]
    assert res.sender_to_move and res.penalty_days == 0
    # Restating the answer and stopping: also the opponent's move again.
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nf3")
    assert res.plies == ["e7e5", "g1f3"] and res.sender_to_move
    assert res.steps[1].written


def test_j16_contradiction_binding_refused_with_penalty() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nc3 Nc6")
    assert res.kind == "contradiction"
    assert res.penalty_days == CONTRADICTION_PENALTY_DAYS == 5
    assert res.steps == [] and not res.applies
    assert res.expected == "Nf3" and res.token_index == 1


def test_j16_optional_mode_ignored_proposal_no_penalty() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5", mode="optional")
    assert res.kind == "move" and res.plies == ["e7e5"]
    assert res.bound_answers == [] and not res.sender_to_move and res.penalty_days == 0
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nc3 Nc6", mode="optional")
    assert res.kind == "contradiction" and res.penalty_days == 0
    # Accepting still works in optional mode.
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nf3 Nc6", mode="optional")
    assert res.plies == ["e7e5", "g1f3", "b8c6"] and res.bound_answers == ["g1f3"]


def test_j16_off_mode_ignores_proposals() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5", mode="off")
    assert res.plies == ["e7e5"] and not res.triggered and not res.sender_to_move
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nf3 Nc6", mode="off")
    assert res.kind == "too_many_moves" and res.steps == []


def test_j16_different_move_does_not_trigger() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 c5")
    assert res.kind == "move" and res.plies == ["c7c5"] and not res.triggered
    res = reply(E5_NF3, board_after("e4"), "1. e4 c5 2. Nf3 d6")
    assert res.kind == "too_many_moves" and res.token_index == 1


def test_j16_deep_line_accepted_in_part() -> None:
    board = board_after("e4")
    accepted, _ = proposals("if 1... e5 then 2. Nf3 Nc6 3. Bb5 a6 4. Ba4", board)
    # Followed to 2... Nc6: the bot plays 3. Bb5, the opponent moves again.
    res = reply(accepted, board, "1. e4 e5 2. Nf3 Nc6")
    assert [s.san for s in res.steps] == ["e5", "Nf3", "Nc6", "Bb5"]
    assert res.bound_answers == ["g1f3", "f1b5"] and res.sender_to_move
    # Followed to 3... a6: the bot plays 4. Ba4.
    res = reply(accepted, board, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6")
    assert res.plies[-1] == "b5a4" and res.sender_to_move
    # Deviates at a predicted move (3... Nf6): accepted up to 3. Bb5, Nf6 is their move.
    res = reply(accepted, board, "1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6")
    assert [s.san for s in res.steps] == ["e5", "Nf3", "Nc6", "Bb5", "Nf6"]
    assert not res.sender_to_move and res.bound_answers == ["g1f3", "f1b5"]
    # Deviates earlier at a predicted move (2... d6).
    res = reply(accepted, board, "1. e4 e5 2. Nf3 d6")
    assert res.plies == ["e7e5", "g1f3", "d7d6"]
    # Writes another answer for the proposer at move 3: contradiction (binding).
    res = reply(accepted, board, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6")
    assert res.kind == "contradiction" and res.expected == "Bb5" and res.penalty_days == 5


def test_j16_bound_answer_that_mates_ends_the_line() -> None:
    board = board_after("e4 e5 Bc4 Nc6 Qh5")
    accepted, rejected = proposals("if 3... Nf6 then 4. Qxf7#", board)
    assert rejected == []
    res = follow(RULES, accepted, ["Nf6"], board)
    assert res.plies == ["g8f6", "h5f7"]
    assert not res.sender_to_move  # the game is over, nobody moves again
    assert chess.Board(res.position).is_checkmate()


def test_j5_bad_token_in_reply_applies_nothing() -> None:
    res = reply(E5_NF3, board_after("e4"), "1. e4 e5 2. Nf3 Qxh7")
    assert res.kind == "bad_move" and res.steps == []
    assert res.error is not None and res.error.kind == "illegal" and res.token_index == 2
    assert follow(RULES, E5_NF3, [], board_after("e4")).kind == "no_move"


def test_j16_new_proposals_in_the_accepting_reply() -> None:
    """The opponent accepts, moves, and proposes in turn; an old copied proposal is stale."""
    text = (
        "1. e4 e5 2. Nf3 Nc6\n"
        "if 3. Bb5 then 3... a6\n"
        "if 1... e5 then 2. Nf3\n"  # copied from the previous mail
    )
    res = reply(E5_NF3, board_after("e4"), text)
    assert res.kind == "move" and res.end_index == 3
    board = board_after("e4 e5 Nf3 Nc6")
    accepted, rejected = proposals(text, board)
    assert [c.sans for c in accepted] == [("Bb5", "a6")]
    assert [r.reason for r in rejected] == ["stale"]


def test_format_conditional_for_relaying() -> None:
    board = board_after("e4 e5 Nf3 Nc6 Bc4")
    cond = Conditional(("f8c5", "c2c3", "g8f6", "d2d4"))
    assert fmt(board, cond) == "if 3... Bc5 then 4. c3 Nf6 5. d4"
    assert fmt(board, cond, lang="ja") == "もし 3... Bc5 なら 4. c3 Nf6 5. d4"
    assert fmt(board, cond, "numeric") == "if 3... 6835 then 4. 3233 7866 5. 4244"
    assert fmt(board, cond, letters="de") == "if 3... Lc5 then 4. c3 Sf6 5. d4"


def test_j16_prose_if_never_swallows_the_record() -> None:
    text = "If you have time, e4 is great\n\n1. e4 e5 2. Nf3"
    assert proposal_lines(text) == set()
    assert extract_record(strip_proposals(text)).tokens == ["e4", "e5", "Nf3"]


def test_j16_restated_mating_answer_ends_the_game() -> None:
    board = board_after("e4 e5 Bc4 Nc6 Qh5")
    accepted, _ = proposals("if 3... Nf6 then 4. Qxf7#", board)
    res = follow(RULES, accepted, ["Nf6", "Qxf7#"], board)
    assert res.kind == "move" and res.plies == ["g8f6", "h5f7"] and not res.sender_to_move
    res = follow(RULES, accepted, ["Nf6", "Qxf7#", "Ke7"], board)
    assert res.kind == "too_many_moves" and res.steps == []


@pytest.mark.parametrize(
    "text,lines,tokens",
    [("IF 3... Bc5 THEN 4. c3", {0}, [("Bc5", "c3")]),  # ASCII in any case
     ("1. e4 e5 2. Nf3 Nc6 3. Bc4\nIf 3... Bc5 then 4. c3", {1}, [("Bc5", "c3")]),
     ("1. e4\n\u0130f 1... e5 then 2. Nf3", {1}, [("e5", "Nf3")]),  # non-ASCII: the regex decides
     ("1. e4 e5 2. Nf3\nA gift, different and stiff: 2... Nc6", set(), [])],  # "if" inside words
)  # fmt: skip
def test_j16_keyword_found_in_any_case_and_not_inside_words(
    text: str, lines: set[int], tokens: list[tuple[str, ...]]
) -> None:
    """J16: the cheap ASCII test before the keyword scan only skips text without "if"."""
    assert proposal_lines(text) == lines
    record = extract_record(strip_proposals(text))
    assert [p.tokens for p in parse_proposals(text, record)] == tokens


@pytest.mark.parametrize("text", [
    "if 1... e5 then 2. knight f3",
    "if 1... e5 then 2. Springer f3",
    "もし 1... e5 なら 2. ナイト f3 とします",
])
def test_j16_a_piece_named_in_words_is_never_bound_as_a_pawn_move(text: str) -> None:
    """``2. knight f3`` means Nf3: read without the word it would bind the pawn move f3.
    The line is refused naming what was written (the move stands); prose around moves
    (``my knight goes 2. Nf3``) and a plain pawn move still read."""
    accepted, rejected = proposals(f"1. e4\n{text}", board_after("e4"))
    assert accepted == []
    assert [(r.reason, r.token.split()[-1]) for r in rejected] == [("unreadable", "f3")]
    accepted, _ = proposals("1. e4\nif you play 1... e5 then my knight goes 2. Nf3",
                            board_after("e4"))
    assert [c.plies for c in accepted] == [("e7e5", "g1f3")]
    accepted, _ = proposals("1. e4\nif 1... e5 then 2. f3", board_after("e4"))
    assert [c.plies for c in accepted] == [("e7e5", "f2f3")]
