"""Checking and following conditional proposals (J16, J5), for any game.

:func:`validate` plays every proposed line from the position after the proposer's
move: a line illegal anywhere is :class:`Rejected` (the move it came with still
stands); lines sharing a predicted move form a tree, and a second, different answer
to the same predicted move is a conflict. :func:`follow` reads the opponent's reply
against that tree: accepted answers (restated or played by the bot itself, 0 days to
the proposer), a reply that stops inside a line (the bot plays the bound answer and
the opponent moves again), a contradiction (binding: refused, 5 days), or a
different move (the proposal is simply not triggered). Pure: errors are values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from relaybot.core.conditionals.values import (
    CONTRADICTION_PENALTY_DAYS,
    MAX_LINE_PLIES,
    Conditional,
    FollowKind,
    FollowResult,
    FollowStep,
    Mode,
    Rejected,
)
from relaybot.core.game import GameRules, MoveError, ProposalLine
from relaybot.core.reasons import Reason


@dataclass
class _Branch:
    """The bound answer to one predicted move, and what may follow it."""

    answer: str
    next: dict[str, _Branch] = field(default_factory=dict)


def _add(tree: dict[str, _Branch], plies: Sequence[str]) -> int | None:
    """Add a line to the tree; the index of the conflicting answer if it contradicts one."""
    node = tree
    for k in range(0, len(plies) - 1, 2):
        predicted, answer = plies[k], plies[k + 1]
        branch = node.get(predicted)
        if branch is None:
            branch = _Branch(answer)
            node[predicted] = branch
        elif branch.answer != answer:
            return k + 1
        node = branch.next
    return None


def _check_tree(tree: dict[str, _Branch], plies: Sequence[str]) -> int | None:
    """Like :func:`_add` without changing the tree."""
    node = tree
    for k in range(0, len(plies) - 1, 2):
        branch = node.get(plies[k])
        if branch is None:
            return None
        if branch.answer != plies[k + 1]:
            return k + 1
        node = branch.next
    return None


def validate(
    rules: GameRules,
    board_after_proposer_move: Any,
    lines: Sequence[ProposalLine],
    letters: str = "en",
) -> tuple[list[Conditional], list[Rejected]]:
    """Check each proposal line ply by ply from the position it assumes (J16, J5).

    ``board_after_proposer_move`` is the position with the opponent to move.
    A line illegal, ambiguous or unreadable anywhere is rejected whole (the
    move it came with still stands); a predicted move with no answer is
    ``no_answer`` (a trailing predicted move after answers is dropped with a
    note). A wrong move number on a legal line is no error (J2, noted); on a
    line that fails, a number before the opponent's move gives ``stale``
    (usually old text copied back) and a later one ``wrong_start``.
    Lines are merged into a tree in order; a later line giving a different
    answer to a predicted move already answered is a ``conflict``.
    ``letters`` are the proposer's piece letters (J2).
    """
    accepted: list[Conditional] = []
    rejected: list[Rejected] = []
    tree: dict[str, _Branch] = {}
    here = rules.ply_index(board_after_proposer_move)
    number = rules.move_number
    for line in lines:
        notes: list[str] = []
        tokens = list(line.tokens)
        start = line.start_ply
        if len(tokens) < 2:
            rejected.append(
                Rejected(line, "no_answer", Reason.of("proposal_no_answer"))
            )
            continue
        if len(tokens) > MAX_LINE_PLIES:
            rejected.append(
                Rejected(line, "too_long", Reason.of("proposal_too_long", max=MAX_LINE_PLIES))
            )
            continue
        board = rules.copy(board_after_proposer_move)
        plies: list[str] = []
        sans: list[str] = []
        failure: Rejected | None = None
        for k, token in enumerate(tokens):
            try:
                ply = rules.parse(board, token, letters)
            except MoveError as exc:
                why = _move_reason(exc)
                failure = Rejected(line, exc.kind, why, token, k)
                if start is not None and start != here:
                    # Written for another move: copied old text (stale) or too far ahead.
                    failure = Rejected(
                        line,
                        "stale" if start < here else "wrong_start",
                        Reason.of("proposal_start", start=number(start), here=number(here),
                                  inner=why),
                        token,
                        k,
                    )
                break
            sans.append(rules.format_ply(board, ply, rules.display_notation))
            plies.append(ply)
            rules.play(board, ply)
        if failure is not None:
            rejected.append(failure)
            continue
        if len(plies) % 2:  # checked, but a predicted move with no answer binds nothing
            notes.append(f"trailing predicted move {tokens[-1]} has no answer; dropped")
            plies, sans = plies[:-1], sans[:-1]
        clash = _check_tree(tree, plies)
        if clash is not None:
            rejected.append(
                Rejected(
                    line,
                    "conflict",
                    Reason.of("proposal_conflict", predicted=sans[clash - 1],
                              answer=_answer_san(rules, board_after_proposer_move, tree,
                                                 plies, clash),
                              second=sans[clash]),
                    tokens[clash],
                    clash,
                )
            )
            continue
        _add(tree, plies)
        if start is not None and start != here:
            notes.append(
                f"move number {number(start)} read as {number(here)}"
            )
        accepted.append(Conditional(tuple(plies), tuple(sans), line, tuple(notes)))
    return accepted, rejected


def _move_reason(exc: MoveError) -> Reason:
    """Why a proposal's move was refused: the game's reason, else a plug-in's plain
    English detail (said in English only), else the kind alone."""
    if exc.why is not None:
        return exc.why
    if exc.detail:
        return Reason.of("plain_detail", text=exc.detail, inner_kind=exc.kind)
    return Reason.of("move_kind", inner_kind=exc.kind)


def _answer_san(
    rules: GameRules, board: Any, tree: dict[str, _Branch], plies: Sequence[str], clash: int
) -> str:
    """The answer already in the tree at ``plies[clash]``'s place, as the game writes it."""
    b = rules.copy(board)
    node = tree
    for k in range(0, clash - 1, 2):
        rules.play(b, plies[k])
        rules.play(b, plies[k + 1])
        node = node[plies[k]].next
    rules.play(b, plies[clash - 1])
    return rules.format_ply(b, node[plies[clash - 1]].answer, rules.display_notation)


def _build_tree(conditionals: Sequence[Conditional]) -> dict[str, _Branch]:
    """The accepted lines as a tree: predicted ply -> bound answer and what follows.

    Lines are added in order; a later conflicting answer is ignored (validate
    has already refused it).
    """
    tree: dict[str, _Branch] = {}
    for cond in conditionals:
        plies = list(cond.plies)
        if len(plies) % 2:
            plies = plies[:-1]
        if _check_tree(tree, plies) is None:
            _add(tree, plies)
    return tree


def forces_win(rules: GameRules, board: Any, conditionals: Sequence[Conditional],
               proposer: int) -> bool:
    """Whether the proposals win by force: from ``board`` (the opponent to move), every
    legal defence is predicted, and each bound answer either wins at once (詰み) or
    leads to a position where the same holds again (J16; seed 002 rule 16: a mating
    line that lists every defence cannot be ignored, even where proposals are optional).

    The work is bounded by the proposals themselves (at most ``MAX_CONDITIONALS`` lines
    of ``MAX_LINE_PLIES``): each node stops at the first defence it does not answer.
    """
    tree = _build_tree(conditionals)
    return bool(tree) and _wins(rules, rules.copy(board), tree, proposer)


def _wins(rules: GameRules, board: Any, node: dict[str, _Branch], proposer: int) -> bool:
    """:func:`forces_win` below one node of the tree."""
    defended = False
    for defence in rules.legal_plies(board):
        defended = True
        branch = node.get(defence)
        if branch is None:
            return False  # a defence the line does not answer
        after = rules.copy(board)
        rules.play(after, defence)
        if rules.outcome(after) is not None or not rules.is_legal(after, branch.answer):
            return False  # the defence ends the game, or the answer does not fit
        rules.play(after, branch.answer)
        ending = rules.outcome(after)
        if ending is not None:
            if ending.winner != proposer:
                return False
            continue
        if not branch.next or not _wins(rules, after, branch.next, proposer):
            return False
    return defended


def format_conditional(
    rules: GameRules,
    board_after_proposer_move: Any,
    conditional: Conditional,
    notation: str | None = None,
    letters: str = "en",
    lang: str = "en",
) -> str:
    """A proposal in a reader's notation and language, as the game writes it (J3, J18);
    ``notation`` defaults to the game's display notation."""
    return rules.format_proposal(board_after_proposer_move, conditional.plies,
                                 notation or rules.display_notation, letters, lang)


# --- following proposals ----------------------------------------------------------


def _refuse(result: FollowResult, kind: FollowKind) -> FollowResult:
    result.kind = kind
    result.steps = []
    result.sender_to_move = False
    return result


def follow(
    rules: GameRules,
    conditionals: Sequence[Conditional],
    opponent_tokens: Sequence[str],
    board: Any,
    letters: str = "en",
    mode: Mode = "binding",
) -> FollowResult:
    """Read the opponent's new tokens against the proposer's accepted lines (J16).

    ``board`` is the stored position (after the proposer's move, opponent to
    move); ``opponent_tokens`` are the reply's tokens after the stored record
    (J1 checked by the caller); ``letters`` are the opponent's (J2).

    Accepting restates the accepted moves in order (``1... e5 2. Nf3 Nc6``
    accepts ``if 1... e5 then 2. Nf3`` and plays ``2... Nc6``). Stopping right
    after a predicted move: in ``binding`` mode the bot plays the bound answer
    itself and the opponent moves again (``sender_to_move``); in ``optional``
    mode the answer is not played (the predicted move is just their move).
    Writing a different answer after a predicted move is a ``contradiction``:
    nothing applied, 5 days in ``binding`` mode, none in ``optional``. A move
    that is not predicted is an ordinary move (proposal not triggered, or
    accepted up to there). ``off`` ignores proposals. Tokens after the
    opponent's own new move give ``too_many_moves``. Never raises.
    """
    b = rules.copy(board)
    result = FollowResult(kind="no_move", position=rules.save(b))
    tokens = list(opponent_tokens)
    if not tokens:
        return result
    node = _build_tree(conditionals) if mode != "off" else {}

    def san(position: Any, ply: str) -> str:
        return rules.format_ply(position, ply, rules.display_notation)

    i = 0
    while True:
        if i >= len(tokens):  # stopped after restating a bound answer
            result.sender_to_move = rules.outcome(b) is None
            break
        if rules.outcome(b) is not None:
            result.token_index = i
            return _refuse(result, "too_many_moves")
        try:
            ply = rules.parse(b, tokens[i], letters)
        except MoveError as exc:
            result.error, result.token_index = exc, i
            return _refuse(result, "bad_move")
        result.steps.append(FollowStep(ply, san(b, ply), False, True, i))
        rules.play(b, ply)
        i += 1
        branch = node.get(ply)
        if branch is None:  # their own move: not predicted (or not any more)
            if i < len(tokens):
                result.token_index = i
                return _refuse(result, "too_many_moves")
            break
        result.triggered = True
        answer = branch.answer
        if not rules.is_legal(b, answer):  # stored tree does not fit; treat as not predicted
            result.notes.append("stored proposal does not fit the position; ignored")
            if i < len(tokens):
                result.token_index = i
                return _refuse(result, "too_many_moves")
            break
        if i >= len(tokens):  # stopped right after the predicted move
            if mode == "binding":
                result.steps.append(FollowStep(answer, san(b, answer), True, False, -1))
                rules.play(b, answer)
                result.sender_to_move = rules.outcome(b) is None
                result.notes.append("bound answer played by the bot")
            else:
                result.notes.append("bound answer not played (optional mode)")
            break
        try:
            written = rules.parse(b, tokens[i], letters)
        except MoveError as exc:
            result.error, result.token_index = exc, i
            result.expected = san(b, answer)
            return _refuse(result, "bad_move")
        if written != answer:
            result.token_index, result.expected = i, san(b, answer)
            result.penalty_days = CONTRADICTION_PENALTY_DAYS if mode == "binding" else 0
            return _refuse(result, "contradiction")
        result.steps.append(FollowStep(answer, san(b, answer), True, True, i))
        rules.play(b, answer)
        i += 1
        node = branch.next
    result.kind = "move"
    result.end_index = i
    result.position = rules.save(b)
    return result
