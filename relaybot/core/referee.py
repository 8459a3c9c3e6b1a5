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

from relaybot.core.bounds import MAX_CONDITIONALS, dedupe_lines, record_limit
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
    Declared,
    GameRules,
    MoveError,
    Outcome,
    RecordText,
    Termination,
    replay_from,
    start_of,
)
from relaybot.core.intent import Intent, read_intent, strip_lines

PENALTY_DAYS = 5  # J5: an illegal, impossible, unreadable or ambiguous move (JCCA's RuleSet)

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
    "declared",  # a game's own keyword ended the game (shogi: 入玉宣言)
    "too_many_conditionals",  # over core.bounds.MAX_CONDITIONALS: nothing applied
    "too_long",  # a record far longer than the game: refused before it is read
]


@dataclass(frozen=True)
class StoredGame:
    """What the referee needs of a stored game."""

    plies: tuple[str, ...]
    keys: tuple[frozenset[str], ...]
    position: str
    active: bool = True
    draw_offer_by: int | None = None


@dataclass(frozen=True)
class Verdict:
    """The referee's decision on one mail: a value, made once."""

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
    nonstandard: list[tuple[str, str]] = field(default_factory=list)  # (written, standard) J3
    starts_at: int | None = None  # J1: the mail's record starts at this ply, not at move 1
    sender_to_move: bool = False  # the bot played a bound answer: the sender moves again
    declared: Declared | None = None  # a game keyword recorded without ending the game
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
        return (bool(self.new_plies) or self.outcome is not None
                or self.kind == "draw_offer" or self.declared is not None)


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
    """Decide what one mail from the player of side ``sender`` does to ``game``.

    ``conditionals`` are the opponent's accepted proposals that bind the sender's reply
    (J16) under ``mode`` (binding, optional, off). ``intent``: the keywords of ``text``
    when the caller has read them already (they are read once per mail). The verdict is
    a value made once, at the end of the path that decided it.
    """
    if intent is None:
        intent = read_intent(text, rules.keywords)
    # issue 12 item 10: a repeated proposal line is read once
    text, distinct = dedupe_lines(text, rules.proposal_lines(text))
    record = rules.extract_record(rules.strip_proposals(strip_lines(text, intent.keyword_lines)))
    penalty = rules.rule_set.bad_move_penalty  # J5 (5 days in chess; seed 002 rule 17: none)
    notes = ["fullwidth"] if record.fullwidth else []

    def done(kind: VerdictKind, **fields: Any) -> Verdict:
        fields.setdefault("draw_offer_by", game.draw_offer_by)
        return Verdict(kind=kind, intent=intent, record=record,
                       notes=[*notes, *fields.pop("notes", [])], **fields)

    if not game.active:
        return done("game_over")
    # issue 12 item 10: bounded work, checked before any move is read
    if distinct + sum(len(v) for v in record.variations.values()) > MAX_CONDITIONALS:
        return done("too_many_conditionals")
    longest = max((len(c.plies) for c in conditionals), default=0)
    if len(record.tokens) > record_limit(len(game.plies), longest):
        return done("too_long")  # (a wrong move number is a sync error, not this)
    if (intent.help or intent.status) and not record.tokens:
        return done("help" if intent.help else "status")
    if intent.resign:
        return done("resign", outcome=Outcome.loss(Termination.RESIGNATION, sender))
    if intent.declared is not None:
        position = rules.load(game.position)
        if not rules.may_declare(position, sender):
            return done("not_your_turn")
        try:
            declared = rules.declare(position, sender, intent.declared)
        except MoveError as exc:
            return done("bad_move", error=exc, penalty_days=penalty)
        if isinstance(declared, Declared):  # recorded, the game goes on (go: a result)
            return done("declared", position=declared.position, declared=declared)
        return done("declared", outcome=declared)

    tokens = record.tokens
    stored = len(game.plies)
    # J1 for chess: the whole game from move 1; shogi and go accept the new move with its
    # number (the record policy), and whatever earlier moves the mail carries must agree
    first = record.first_ply if rules.record_policy == "numbered" else 0
    if tokens and first == 0 < record.first_ply:
        # J1: only a fragment from a later move was sent: say so plainly
        return done("sync_error", diff_ply=0, starts_at=record.first_ply)
    if tokens:
        diff: int | None = stored  # a mail that starts after moves it does not carry
        if first <= stored:
            diff = first_difference(rules, game, tokens, letters, first)
            if diff is None and first + len(tokens) < stored:
                diff = first + len(tokens)
        if diff is not None:
            written = diff - first
            if (rules.record_policy == "numbered" and diff == 0 < stored
                    and len(tokens) == 1 and record.first_ply == 0):
                # one move and no number (shogi, go): most likely the next move with
                # its number left out; the reply shows how to write it (J1 holds)
                return done("sync_error", diff_ply=stored, diff_token=tokens[0],
                            notes=["unnumbered"])
            return done("sync_error", diff_ply=diff,
                        diff_token=tokens[written] if 0 <= written < len(tokens) else None)
    new_tokens = list(tokens[max(0, stored - first):])
    opponent = 1 - sender

    if intent.draw_accept and game.draw_offer_by == opponent:
        return done("draw_agreed", outcome=Outcome.draw(Termination.AGREEMENT),
                    draw_offer_by=None)

    moved: dict[str, Any] = {}  # what the new plies add to the verdict
    if new_tokens:
        position = rules.load(game.position)
        if rules.to_move(position) != sender:
            return done("not_your_turn")
        if not conditionals and len(new_tokens) == 1:
            # the common case, no proposal binds the sender: one move, parsed here
            try:
                ply = rules.parse(position, new_tokens[0], letters)
            except MoveError as exc:
                return done("bad_move", error=exc, penalty_days=penalty)
            result = FollowResult(kind="move", steps=[FollowStep(ply, "", False, True, 0)])
        else:
            bound = _mode(mode)
            # J16, seed 002 rule 16: a mating line binds even where proposals are optional
            mating = bound == "optional" and forces_win(rules, position, conditionals,
                                                        opponent)
            result = follow(rules, conditionals, new_tokens, position, letters,
                            "binding" if mating else bound)
            if result.kind == "contradiction" and mating:
                result.penalty_days = penalty  # the game's own cost of a wrong move (J21)
        if result.kind == "too_many_moves":
            return done("too_many_moves")
        if result.kind == "bad_move":
            return done("bad_move", penalty_days=penalty,
                        error=result.error or MoveError("unreadable", new_tokens[0]))
        if result.kind == "contradiction":
            index = result.token_index if result.token_index is not None else 0
            return done("contradiction", penalty_days=result.penalty_days,
                        expected=result.expected,
                        diff_token=new_tokens[index] if index < len(new_tokens) else None)
        moved = _apply(rules, position, result, new_tokens, letters)
        moved.update(proposals_cleared=bool(conditionals), draw_offer_by=None,
                     draw_declined=game.draw_offer_by == opponent)
        ending = rules.outcome(position)
        if ending is not None:
            return done("move", outcome=ending, **moved)
        if not result.sender_to_move and mode != "off":
            # J16: new proposals with the move, checked from the positions they assume
            lines = rules.read_proposals(strip_lines(text, intent.keyword_lines), record)
            if lines:
                moved["new_conditionals"], moved["rejected"] = validate(rules, position, lines,
                                                                        letters)
                if mode == "optional" and forces_win(rules, position,
                                                     moved["new_conditionals"], sender):
                    moved["notes"] = [*moved.get("notes", []), "mating_line"]

    if intent.draw_accept or (intent.draw_offer and allow_claims and not new_tokens):
        claim = (_claim(rules, game, moved.get("new_plies", [])) if allow_claims else None)
        if claim is not None and intent.draw_accept:
            return done("draw_claimed", outcome=Outcome.draw(claim), **moved)
    kind: VerdictKind = "move" if new_tokens else "no_move"
    if intent.draw_offer or intent.draw_accept:
        moved["draw_offer_by"] = sender
        extra = ["accept_without_offer"] if intent.draw_accept and not intent.draw_offer else []
        moved["notes"] = [*moved.get("notes", []), *extra]
        return done(kind if new_tokens else "draw_offer", **moved)
    if new_tokens:
        return done(kind, **moved)
    if intent.leave or intent.leave_invalid or intent.td_question or intent.long_think:
        return done("aside")
    if intent.status or intent.help:
        return done("status" if intent.status else "help")
    return done("no_move", notes=["no_new_move"] if tokens else [])


def _mode(mode: str) -> Mode:
    """A stored game's proposal mode; anything unknown binds (J16's default)."""
    if mode == "optional":
        return "optional"
    return "off" if mode == "off" else "binding"


def _apply(rules: GameRules, position: Any, result: FollowResult, tokens: Sequence[str],
           letters: str) -> dict[str, Any]:
    """Play a reply's steps on ``position`` (in place); the verdict fields they give."""
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    texts: list[str] = []
    nonstandard: list[tuple[str, str]] = []  # J3: accepted, and the reply says so
    for step in result.steps:
        if step.written and 0 <= step.token_index < len(tokens):
            standard = rules.standard_form(position, tokens[step.token_index], letters)
            if standard is not None:
                nonstandard.append((tokens[step.token_index], standard))
        keys.append(rules.ply_keys(position, step.ply))
        texts.append(rules.format_ply(position, step.ply, rules.display_notation))
        rules.play(position, step.ply)
        plies.append(step.ply)
    return {"new_plies": plies, "new_keys": keys, "new_texts": texts,
            "auto": [not step.written for step in result.steps],
            "sender_to_move": result.sender_to_move,
            "notes": [*result.notes, *(["nonstandard"] if nonstandard else [])],
            "nonstandard": nonstandard, "position": rules.save(position)}


def _claim(rules: GameRules, game: StoredGame, new_plies: Sequence[str]) -> str | None:
    """A draw the sender may claim after their new plies (threefold needs history)."""
    board = replay_from(rules, game.position, [*game.plies, *new_plies])
    return rules.claimable_draw(board)
