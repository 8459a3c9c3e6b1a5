"""The referee: one player's mail against one game, decided as a value.

``decide`` is pure: it gets the stored game, who sent the mail and the mail's
text, and returns a ``Verdict`` saying what to apply and what to answer. The
service turns a verdict into database rows and outbox mail. Nothing here does
I/O or reads a clock.

The J1 check is O(new plies): the mail's earlier moves are compared with the
record as comparison keys (``token_key`` against the stored ``ply_keys``); only
a token that misses its key (a localised letter, say) is parsed on a replayed
board, and only new plies are played on the stored position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from relaybot.core.conditionals import (
    Conditional,
    FollowResult,
    FollowStep,
    Rejected,
    follow,
    validate,
)
from relaybot.core.game import GameRules, MoveError, Outcome, RecordText, Termination
from relaybot.core.intent import Intent, read_intent, strip_lines

PENALTY_DAYS = 5  # J5: an illegal, impossible, unreadable or ambiguous move

VerdictKind = Literal[
    "move",  # a new move applied (and maybe the game ended by the board)
    "resign",
    "draw_agreed",
    "draw_claimed",
    "draw_offer",  # an offer without a move
    "sync_error",  # J1: earlier moves differ from the record
    "bad_move",  # J5: illegal / ambiguous / unreadable
    "contradiction",  # J16: the predicted move played, a different bound answer written
    "not_your_turn",
    "too_many_moves",
    "no_move",
    "game_over",
    "status",
    "help",
    "aside",  # only a leave notice or a TD question: the service handles those
]


@dataclass(frozen=True)
class StoredGame:
    """What the referee needs of a stored game."""

    plies: tuple[str, ...]
    keys: tuple[frozenset[str], ...]
    position: str
    active: bool = True
    draw_offer_by: int | None = None


@dataclass
class Verdict:
    """The referee's decision on one mail."""

    kind: VerdictKind
    new_plies: list[str] = field(default_factory=list)
    new_keys: list[frozenset[str]] = field(default_factory=list)
    new_texts: list[str] = field(default_factory=list)  # SAN of each new ply
    position: str | None = None  # the position after the new plies
    outcome: Outcome | None = None  # the game ends
    draw_offer_by: int | None = None
    draw_declined: bool = False
    penalty_days: int = 0
    error: MoveError | None = None
    diff_ply: int | None = None  # first differing ply (0-based) for a sync error
    diff_token: str | None = None
    auto: list[bool] = field(default_factory=list)  # per new ply: played by the bot (J16)
    sender_to_move: bool = False  # the bot played a bound answer: the sender moves again
    expected: str | None = None  # the bound answer a contradicting reply ignored
    new_conditionals: list[Conditional] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    proposals_cleared: bool = False
    notes: list[str] = field(default_factory=list)
    intent: Intent = field(default_factory=Intent)
    record: RecordText = field(default_factory=RecordText)

    @property
    def applies(self) -> bool:
        """True when the game state changes."""
        return bool(self.new_plies) or self.outcome is not None or self.kind == "draw_offer"


def first_difference(
    rules: GameRules, game: StoredGame, tokens: Sequence[str], letters: str, first: int = 0
) -> int | None:
    """Ply index of the first of the mail's earlier plies that differs from the record (J1).

    ``tokens[0]`` is ply ``first`` (0 for a record from move 1). Compares comparison
    keys first; a token that misses is parsed on a board replayed up to it (rare:
    localised letters, odd spellings).
    """
    board: Any = None
    replayed = 0
    for offset, token in enumerate(tokens[: max(0, len(game.plies) - first)]):
        index = first + offset
        if rules.token_key(token) in game.keys[index]:
            continue
        if board is None or replayed > index:
            board, replayed = rules.start(), 0
        while replayed < index:
            rules.play(board, game.plies[replayed])
            replayed += 1
        try:
            if rules.parse(board, token, letters) == game.plies[index]:
                continue
        except MoveError:
            pass
        return index
    return None


def decide(
    rules: GameRules,
    game: StoredGame,
    sender: int,
    text: str,
    *,
    letters: str = "en",
    allow_claims: bool = True,
    conditionals: Sequence[Conditional] = (),
    mode: str = "binding",
    intent: Intent | None = None,
) -> Verdict:
    """Decide what one mail from the player of colour ``sender`` does to ``game``.

    ``conditionals`` are the opponent's accepted proposals that bind the sender's reply
    (J16) under ``mode`` (binding, optional, off). ``intent``: the keywords of ``text``
    when the caller has read them already (they are read once per mail).
    """
    if intent is None:
        intent = read_intent(text)
    record = rules.extract_record(rules.strip_proposals(strip_lines(text, intent.keyword_lines)))
    verdict = Verdict(kind="no_move", intent=intent, record=record,
                      draw_offer_by=game.draw_offer_by)
    if record.fullwidth:
        verdict.notes.append("fullwidth")
    if not game.active:
        verdict.kind = "game_over"
        return verdict
    if intent.help and not record.tokens:
        verdict.kind = "help"
        return verdict
    if intent.status and not record.tokens:
        verdict.kind = "status"
        return verdict
    if intent.resign:
        verdict.kind = "resign"
        verdict.outcome = Outcome.loss(Termination.RESIGNATION, sender)
        return verdict

    tokens = record.tokens
    stored = len(game.plies)
    # J1 for chess: the whole game from move 1; shogi and go accept the new move with its
    # number (the record policy), and whatever earlier moves the mail carries must agree
    first = record.first_ply if rules.record_policy == "numbered" else 0
    if tokens:
        diff: int | None = stored  # a mail that starts after moves it does not carry
        if first <= stored:
            diff = first_difference(rules, game, tokens, letters, first)
            if diff is None and first + len(tokens) < stored:
                diff = first + len(tokens)
        if diff is not None:
            verdict.kind = "sync_error"
            verdict.diff_ply = diff
            written = diff - first
            verdict.diff_token = tokens[written] if 0 <= written < len(tokens) else None
            return verdict
    new_tokens = list(tokens[max(0, stored - first):])
    opponent = 1 - sender

    if intent.draw_accept and game.draw_offer_by == opponent:
        verdict.kind = "draw_agreed"
        verdict.outcome = Outcome.draw(Termination.AGREEMENT)
        verdict.draw_offer_by = None
        return verdict

    position = rules.load(game.position)
    if new_tokens:
        if rules.to_move(position) != sender:
            verdict.kind = "not_your_turn"
            return verdict
        if not conditionals and len(new_tokens) == 1:
            # the common case, no proposal binds the sender: one move, parsed here
            try:
                ply = rules.parse(position, new_tokens[0], letters)
            except MoveError as exc:
                verdict.kind = "bad_move"
                verdict.error = exc
                verdict.penalty_days = PENALTY_DAYS
                return verdict
            result = FollowResult(kind="move", steps=[FollowStep(ply, "", False, True, 0)])
        else:
            result = follow(rules, conditionals, new_tokens, position, letters,
                            mode if mode in ("binding", "optional", "off") else "binding")  # type: ignore[arg-type]
        if result.kind == "too_many_moves":
            verdict.kind = "too_many_moves"
            return verdict
        if result.kind == "bad_move":
            verdict.kind = "bad_move"
            verdict.error = result.error or MoveError("unreadable", new_tokens[0])
            verdict.penalty_days = PENALTY_DAYS
            return verdict
        if result.kind == "contradiction":
            verdict.kind = "contradiction"
            verdict.penalty_days = result.penalty_days
            verdict.expected = result.expected
            index = result.token_index if result.token_index is not None else 0
            verdict.diff_token = new_tokens[index] if index < len(new_tokens) else None
            return verdict
        for step in result.steps:
            verdict.new_keys.append(rules.ply_keys(position, step.ply))
            verdict.new_texts.append(rules.format_ply(position, step.ply, rules.display_notation))
            rules.play(position, step.ply)
            verdict.new_plies.append(step.ply)
            verdict.auto.append(not step.written)
        verdict.sender_to_move = result.sender_to_move
        verdict.notes.extend(result.notes)
        verdict.position = rules.save(position)
        verdict.kind = "move"
        verdict.proposals_cleared = bool(conditionals)
        if game.draw_offer_by == opponent:
            verdict.draw_declined = True
        verdict.draw_offer_by = None
        ending = rules.outcome(position)
        if ending is not None:
            verdict.outcome = ending
            return verdict
        if not verdict.sender_to_move and mode != "off":
            # J16: new proposals with the move, checked from the positions they assume
            lines = rules.read_proposals(strip_lines(text, intent.keyword_lines), record)
            if lines:
                verdict.new_conditionals, verdict.rejected = validate(rules, position, lines,
                                                                      letters)

    if intent.draw_accept or (intent.draw_offer and allow_claims and not new_tokens):
        claim = _claim(rules, game, verdict) if allow_claims else None
        if claim is not None and intent.draw_accept:
            verdict.kind = "draw_claimed"
            verdict.outcome = Outcome.draw(claim)
            return verdict
    if intent.draw_offer or intent.draw_accept:
        if intent.draw_accept and not intent.draw_offer:
            verdict.notes.append("accept_without_offer")
        verdict.draw_offer_by = sender
        if not new_tokens:
            verdict.kind = "draw_offer"
        return verdict
    if new_tokens:
        return verdict
    if intent.leave or intent.leave_invalid or intent.td_question or intent.long_think:
        verdict.kind = "aside"
        return verdict
    if intent.status:
        verdict.kind = "status"
    elif intent.help:
        verdict.kind = "help"
    elif tokens:
        verdict.notes.append("no_new_move")
    return verdict


def _claim(rules: GameRules, game: StoredGame, verdict: Verdict) -> str | None:
    """A draw the sender may claim after their new plies (threefold needs history)."""
    board = rules.replay([*game.plies, *verdict.new_plies])
    return rules.claimable_draw(board)
