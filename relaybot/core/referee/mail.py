"""One player's mail read against one game (``Mail``): its keywords and record read once,
the J1 comparison of its earlier moves with the record (``first_difference``), the
reply read on the stored position under the binding proposals and its plies played
(``Moved``, J16).

Pure: no I/O, no clock. What needs the board is worked out only when a check of
:mod:`.checks` asks, then kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from relaybot.core.bounds import dedupe_lines
from relaybot.core.conditionals import (
    Conditional,
    FollowResult,
    FollowStep,
    Mode,
    Rejected,
    follow,
    forces_win,
    validate,
)
from relaybot.core.game import (
    GameRules,
    MoveError,
    Outcome,
    ProposalLine,
    RecordText,
    start_of,
    written_text,
)
from relaybot.core.intent import Intent, read_intent, strip_lines
from relaybot.core.referee.verdict import StoredGame, Verdict, VerdictKind


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
            board, replayed = start_of(rules, game.position), 0
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


@dataclass(frozen=True)
class Moved:
    """The reply's new plies played on the stored position: what they add to a verdict.

    ``ending`` is the game's end by the board (mate, 詰み ...); while the game goes on,
    ``new_conditionals`` and ``rejected`` are the proposals sent with the move (J16).
    """

    new_plies: list[str]
    new_keys: list[frozenset[str]]
    new_texts: list[str]  # SAN of each new ply
    auto: list[bool]  # per new ply: played by the bot (J16)
    nonstandard: list[tuple[str, str]]  # (written, standard): accepted, and said (J3)
    position: str  # the position after the new plies
    sender_to_move: bool  # the bot played a bound answer: the sender moves again
    notes: list[str]
    ending: Outcome | None
    new_conditionals: list[Conditional] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


@dataclass(frozen=True)
class Mail:
    """One player's mail read against one game: the value every check of ``decide`` reads.

    Made once by :func:`read_mail`. What needs the board (the stored position, the reply read
    on it, its plies played) is worked out the first time a check asks, then kept.
    """

    rules: GameRules
    game: StoredGame
    sender: int
    text: str  # a repeated proposal line blanked (issue 12 item 10)
    distinct: int  # the distinct proposal lines left
    intent: Intent
    record: RecordText
    letters: str
    allow_claims: bool
    conditionals: Sequence[Conditional]  # the opponent's, binding the sender's reply (J16)
    mode: str  # the game's proposal mode: binding, optional or off (J16)
    line_near: bool  # the opponent's proposals were sent near the deadline (rule 16)
    near: bool  # this mail comes near the deadline (seed 002 rule 16)
    penalty: int  # J5: the game's cost of a wrong move (5 days in chess; seed 002 rule 17: none)
    notes: tuple[str, ...]  # said in every verdict ("fullwidth")

    @property
    def opponent(self) -> int:
        """The other side."""
        return 1 - self.sender

    @property
    def first(self) -> int:
        """J1: the ply the mail's record is compared from. Chess: the whole game from move 1;
        shogi and go accept the new move with its number (the record policy), and whatever
        earlier moves the mail carries must agree."""
        if self.record.next_move:  # a keyword move (go's pass): the next ply, no number
            return len(self.game.plies)
        return self.record.first_ply if self.rules.record_policy == "numbered" else 0

    @cached_property
    def body(self) -> str:
        """The text without its keyword lines (line count unchanged): what the record and
        the proposals are read from."""
        return strip_lines(self.text, self.intent.keyword_lines)

    @cached_property
    def proposals(self) -> list[ProposalLine]:
        """The proposal lines the mail sends (J16), read once whichever check asks."""
        return self.rules.read_proposals(self.body, self.record)

    @cached_property
    def new_tokens(self) -> list[str]:
        """The record's tokens after the stored plies (J1 checked first)."""
        return list(self.record.tokens[max(0, len(self.game.plies) - self.first):])

    @cached_property
    def board(self) -> Any:
        """The stored position, loaded once; never played on (``moved`` plays on a copy)."""
        return self.rules.load(self.game.position)

    @cached_property
    def reply(self) -> FollowResult:
        """The new tokens read on the stored position, under the binding proposals (J16)."""
        return _read_reply(self)

    @cached_property
    def moved(self) -> Moved:
        """The reply's plies played, and the proposals sent with them (J16)."""
        return _play(self)

    def answer(self, kind: VerdictKind) -> Verdict:
        """A verdict that only answers: nothing applied, nothing to add."""
        return Verdict(kind=kind, draw_offer_by=self.game.draw_offer_by, notes=[*self.notes],
                       intent=self.intent, record=self.record)



def read_mail(
    rules: GameRules,
    game: StoredGame,
    sender: int,
    text: str,
    *,
    letters: str,
    allow_claims: bool,
    conditionals: Sequence[Conditional],
    mode: str,
    intent: Intent | None,
    line_near: bool = True,
    near: bool = True,
) -> Mail:
    """The mail's keywords and record, read once for every check."""
    if intent is None:
        intent = read_intent(text, rules.keywords)
    # issue 12 item 10: a repeated proposal line is read once
    text, distinct = dedupe_lines(text, rules.proposal_lines(text))
    record = rules.extract_record(rules.strip_proposals(strip_lines(text, intent.keyword_lines)))
    return Mail(rules=rules, game=game, sender=sender, text=text, distinct=distinct,
                intent=intent, record=record, letters=letters, allow_claims=allow_claims,
                conditionals=conditionals, mode=mode, line_near=line_near, near=near,
                penalty=rules.rule_set.bad_move_penalty,
                notes=("fullwidth",) if record.fullwidth else ())


def _mode(mode: str) -> Mode:
    """A stored game's proposal mode; anything unknown binds (J16's default)."""
    if mode == "optional":
        return "optional"
    return "off" if mode == "off" else "binding"


def _read_reply(m: Mail) -> FollowResult:
    """The new tokens read on the stored position. With no proposal binding the sender
    and one token (the common case) the move is parsed here; otherwise the proposals
    are followed (J16; seed 002 rule 16: a mating line sent near the deadline binds even
    where proposals are optional, and a contradiction costs what a wrong move costs, J21)."""
    if not m.conditionals and len(m.new_tokens) == 1:
        try:
            ply = m.rules.parse(m.board, m.new_tokens[0], m.letters)
        except MoveError as exc:
            return FollowResult(kind="bad_move", error=exc)
        return FollowResult(kind="move", steps=[FollowStep(ply, "", False, True, 0)])
    bound = _mode(m.mode)
    mating = (bound == "optional" and m.line_near
              and forces_win(m.rules, m.board, m.conditionals, m.opponent))
    result = follow(m.rules, m.conditionals, m.new_tokens, m.board, m.letters,
                    "binding" if mating else bound)
    if result.kind == "contradiction" and mating:
        result.penalty_days = m.penalty
    elif result.kind == "contradiction" and bound == "optional":
        # seed 002 rule 16: the line binds nobody here, yet the bot cannot play another
        # answer for the proposer; the reply says so, without "binds you"
        result.notes.append("proposal_optional")
    return result


def _play(m: Mail) -> Moved:
    """Play the reply's steps on a copy of the stored position; while the game goes on
    and the bot did not answer for the proposer, read the proposals sent with the move,
    each from the position it assumes (J16)."""
    rules, tokens, result = m.rules, m.new_tokens, m.reply
    position = rules.copy(m.board)
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    texts: list[str] = []
    nonstandard: list[tuple[str, str]] = []  # J3: accepted, and the reply says so
    for step in result.steps:
        if step.written and 0 <= step.token_index < len(tokens):
            standard = rules.standard_form(position, tokens[step.token_index], m.letters)
            if standard is not None:
                nonstandard.append((tokens[step.token_index], standard))
        keys.append(rules.ply_keys(position, step.ply))
        token = tokens[step.token_index] if step.written and 0 <= step.token_index < len(
            tokens) else ""
        texts.append(written_text(rules, position, step.ply, token, rules.display_notation))
        rules.play(position, step.ply)
        plies.append(step.ply)
    saved = rules.save(position)
    notes = [*result.notes, *(["nonstandard"] if nonstandard else [])]
    ending = rules.outcome(position)
    accepted: list[Conditional] = []
    rejected: list[Rejected] = []
    if ending is None and not result.sender_to_move and m.mode != "off":
        lines = m.proposals
        if lines:
            accepted, rejected = validate(rules, position, lines, m.letters)
            if m.mode == "optional" and m.near and forces_win(rules, position, accepted,
                                                              m.sender):
                notes.append("mating_line")
    elif ending is None and (m.distinct or m.record.variations) and m.proposals:
        # J16: the game takes no proposals (``off``), or the bot played a bound answer and
        # the sender moves again (no move of the opponent is due): proposals sent with this
        # reply cannot bind, and the receipt says they were not read (never in silence)
        notes.append("proposals_off" if m.mode == "off" else "proposals_not_read")
    return Moved(new_plies=plies, new_keys=keys, new_texts=texts,
                 auto=[not step.written for step in result.steps], nonstandard=nonstandard,
                 position=saved, sender_to_move=result.sender_to_move,
                 notes=notes, ending=ending, new_conditionals=accepted, rejected=rejected)

