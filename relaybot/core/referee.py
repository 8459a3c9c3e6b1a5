"""The referee: one player's mail against one game, decided as a value.

``decide`` is pure: it gets the stored game, who sent the mail and the mail's
text, and returns a ``Verdict`` saying what to apply and what to answer. The
service turns a verdict into database rows and outbox mail. Nothing here does
I/O or reads a clock. It reads the mail once (a ``Mail``) and runs the small named
checks of ``CHECKS`` on it in order: each answers with a ``Verdict`` or passes, and
the first answer is the verdict.

The J1 check is O(new plies): the mail's earlier moves are compared with the
record as comparison keys (``token_key`` against the stored ``ply_keys``); only
a token that misses its key (a localised letter, say) is parsed on a replayed
board, and only new plies are played on the stored position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
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
    written_text,
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

    Made once by :func:`_read`. What needs the board (the stored position, the reply read
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
        return self.record.first_ply if self.rules.record_policy == "numbered" else 0

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


Check = Callable[[Mail], Verdict | None]


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
    line_near: bool = True,
    near: bool = True,
) -> Verdict:
    """Decide what one mail from the player of side ``sender`` does to ``game``.

    ``conditionals`` are the opponent's accepted proposals that bind the sender's reply
    (J16) under ``mode`` (binding, optional, off). ``intent``: the keywords of ``text``
    when the caller has read them already (they are read once per mail). The checks of
    :data:`CHECKS` run in order; the first that answers makes the verdict, a value made
    once; a mail none of them answers has no new move.

    Seed 002 rule 16: where proposals are optional, a mating line that answers every
    defence binds only when it was sent near the game's deadline (「対局期限が迫っていて、
    詰みを読み切り、詰みの先読みを行った場合、その先読みは無視できない」): ``line_near`` for
    the opponent's proposals (sent with the last move), ``near`` for this mail's own.
    """
    mail = _read(rules, game, sender, text, letters=letters, allow_claims=allow_claims,
                 conditionals=conditionals, mode=mode, intent=intent,
                 line_near=line_near, near=near)
    for check in CHECKS:
        verdict = check(mail)
        if verdict is not None:
            return verdict
    return _no_move(mail)


def _read(
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


# The checks before any move is read


def _game_over(m: Mail) -> Verdict | None:
    """A finished game takes no more moves, keywords or claims."""
    return m.answer("game_over") if not m.game.active else None


def _too_many_conditionals(m: Mail) -> Verdict | None:
    """Issue 12 item 10 (J16): more proposal lines and variations than
    ``MAX_CONDITIONALS``; nothing is read, nothing applied."""
    record = m.record
    if m.distinct + sum(len(v) for v in record.variations.values()) > MAX_CONDITIONALS:
        return m.answer("too_many_conditionals")
    return None


def _too_long(m: Mail) -> Verdict | None:
    """Issue 12 item 10: a record far longer than the game and its longest binding
    proposal (J16) is refused before a move of it is read (a wrong move number is a J1
    sync error, not this)."""
    longest = max((len(c.plies) for c in m.conditionals), default=0)
    if len(m.record.tokens) > record_limit(len(m.game.plies), longest):
        return m.answer("too_long")
    return None


def _help_or_status(m: Mail) -> Verdict | None:
    """A mail that only asks for help or the game's status and carries no record (help
    first); one that also resigns, offers or declares is that, as the gate read it (a
    keyword that changes the game is never answered with help alone, issue 22)."""
    if (m.intent.help or m.intent.status) and not m.record.tokens and not m.intent.does("game"):
        return m.answer("help" if m.intent.help else "status")
    return None


def _resign(m: Mail) -> Verdict | None:
    """A player may resign at any time, whatever else the mail says."""
    if not m.intent.resign:
        return None
    return Verdict(kind="resign", outcome=Outcome.loss(Termination.RESIGNATION, m.sender),
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                   record=m.record)


def _declared(m: Mail) -> Verdict | None:
    """A game's own keyword (shogi: 入玉宣言; go: a result), by the side to move; one the
    position does not allow costs what a wrong move costs (J5)."""
    if m.intent.declared is None:
        return None
    position = m.rules.load(m.game.position)
    any_time = getattr(m.rules, "any_time", None)  # a keyword either side may write
    if not m.rules.may_declare(position, m.sender) and not (
            any_time is not None and any_time(m.intent.declared)):
        return m.answer("not_your_turn")
    try:
        declared = m.rules.declare(position, m.sender, m.intent.declared)
    except MoveError as exc:
        return Verdict(kind="bad_move", error=exc, penalty_days=m.penalty,
                       draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                       record=m.record)
    if isinstance(declared, Declared):  # recorded, the game goes on (go: a result)
        return Verdict(kind="declared", position=declared.position, declared=declared,
                       draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                       record=m.record)
    return Verdict(kind="declared", outcome=declared, draw_offer_by=m.game.draw_offer_by,
                   notes=[*m.notes], intent=m.intent, record=m.record)


def _fragment(m: Mail) -> Verdict | None:
    """J1: a whole-game record (chess) that starts at a later move: said plainly."""
    if m.record.tokens and m.first == 0 < m.record.first_ply:
        return Verdict(kind="sync_error", diff_ply=0, starts_at=m.record.first_ply,
                       draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                       record=m.record)
    return None


def _out_of_sync(m: Mail) -> Verdict | None:
    """J1: the mail's earlier moves must be the record's, all of them up to the new move;
    the verdict names the first ply that differs."""
    tokens, first, stored = m.record.tokens, m.first, len(m.game.plies)
    if not tokens:
        return None
    diff: int | None = stored  # a mail that starts after moves it does not carry
    if first <= stored:
        diff = first_difference(m.rules, m.game, tokens, m.letters, first)
        if diff is None and first + len(tokens) < stored:
            diff = first + len(tokens)
    if diff is None:
        return None
    if (m.rules.record_policy == "numbered" and diff == 0 < stored
            and len(tokens) == 1 and m.record.first_ply == 0):
        # one move and no number (shogi, go): most likely the next move with its number
        # left out; the reply shows how to write it (J1 holds)
        return Verdict(kind="sync_error", diff_ply=stored, diff_token=tokens[0],
                       draw_offer_by=m.game.draw_offer_by, notes=[*m.notes, "unnumbered"],
                       intent=m.intent, record=m.record)
    written = diff - first
    return Verdict(kind="sync_error", diff_ply=diff,
                   diff_token=tokens[written] if 0 <= written < len(tokens) else None,
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                   record=m.record)


def _draw_agreed(m: Mail) -> Verdict | None:
    """The opponent's standing draw offer accepted: the game is drawn (a move written
    with the acceptance is not played)."""
    if m.intent.draw_accept and m.game.draw_offer_by == m.opponent:
        return Verdict(kind="draw_agreed", outcome=Outcome.draw(Termination.AGREEMENT),
                       draw_offer_by=None, notes=[*m.notes], intent=m.intent, record=m.record)
    return None


# The checks of the new move


def _not_your_turn(m: Mail) -> Verdict | None:
    """A new move from the side not to move is refused (nothing applied)."""
    if m.new_tokens and m.rules.to_move(m.board) != m.sender:
        return m.answer("not_your_turn")
    return None


def _too_many_moves(m: Mail) -> Verdict | None:
    """J1, J16: one new move at a time (plus the proposals' bound answers restated)."""
    if m.new_tokens and m.reply.kind == "too_many_moves":
        return m.answer("too_many_moves")
    return None


def _bad_move(m: Mail) -> Verdict | None:
    """J5: an illegal, ambiguous or unreadable new move is refused and costs the game's
    penalty; nothing is applied."""
    if not m.new_tokens or m.reply.kind != "bad_move":
        return None
    return Verdict(kind="bad_move", penalty_days=m.penalty,
                   error=m.reply.error or MoveError("unreadable", m.new_tokens[0]),
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                   record=m.record)


def _contradiction(m: Mail) -> Verdict | None:
    """J16: the predicted move played with a different answer than the bound one written;
    nothing applied, the cost is the mode's (J21: a mating line costs a wrong move's)."""
    if not m.new_tokens or m.reply.kind != "contradiction":
        return None
    index = m.reply.token_index if m.reply.token_index is not None else 0
    return Verdict(kind="contradiction", penalty_days=m.reply.penalty_days,
                   expected=m.reply.expected,
                   diff_token=m.new_tokens[index] if index < len(m.new_tokens) else None,
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                   record=m.record)


# The checks after the new move is played (a mail without one skips what needs it)


def _move_ends_the_game(m: Mail) -> Verdict | None:
    """The new move ends the game on the board (mate, 詰み ...): keywords and proposals
    sent with it no longer matter."""
    if not m.new_tokens or m.moved.ending is None:
        return None
    return _with_move(m, "move", outcome=m.moved.ending)


def _draw_claimed(m: Mail) -> Verdict | None:
    """A draw the sender may claim (threefold repetition ...), after their new move if
    they sent one, ends the game drawn when they write the draw keyword."""
    if not (m.intent.draw_accept and m.allow_claims):
        return None
    new_plies = m.moved.new_plies if m.new_tokens else []
    claim = _claim(m.rules, m.game, new_plies)
    if claim is None:
        return None
    if m.new_tokens:
        return _with_move(m, "draw_claimed", outcome=Outcome.draw(claim))
    return Verdict(kind="draw_claimed", outcome=Outcome.draw(claim),
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes], intent=m.intent,
                   record=m.record)


def _draw_offered(m: Mail) -> Verdict | None:
    """A draw offer, with the new move or alone; the draw keyword with no offer to accept
    and no draw to claim is an offer too (and the reply says so)."""
    if not (m.intent.draw_offer or m.intent.draw_accept):
        return None
    extra = ["accept_without_offer"] if m.intent.draw_accept and not m.intent.draw_offer else []
    if m.new_tokens:
        return _with_move(m, "move", draw_offer_by=m.sender, extra_notes=extra)
    return Verdict(kind="draw_offer", draw_offer_by=m.sender, notes=[*m.notes, *extra],
                   intent=m.intent, record=m.record)


def _move(m: Mail) -> Verdict | None:
    """The new move applied, with the proposals sent with it (J16)."""
    return _with_move(m, "move") if m.new_tokens else None


# The checks of a mail without a new move


def _aside(m: Mail) -> Verdict | None:
    """Only a leave notice, a question to the TD or a long-thinking notice: the service
    handles those."""
    if m.intent.does("aside", "member"):  # what each keyword does, as its class declares
        return m.answer("aside")
    return None


def _status_or_help(m: Mail) -> Verdict | None:
    """Status or help asked with a record that has no new move (status first)."""
    if m.intent.status or m.intent.help:
        return m.answer("status" if m.intent.status else "help")
    return None


def _no_move(m: Mail) -> Verdict:
    """J1: nothing new: the record, if any, is the stored game's and says so."""
    return Verdict(kind="no_move", draw_offer_by=m.game.draw_offer_by,
                   notes=[*m.notes, *(["no_new_move"] if m.record.tokens else [])],
                   intent=m.intent, record=m.record)


CHECKS: tuple[Check, ...] = (
    _game_over, _too_many_conditionals, _too_long, _help_or_status, _resign, _declared,
    _fragment, _out_of_sync, _draw_agreed,
    _not_your_turn, _too_many_moves, _bad_move, _contradiction,
    _move_ends_the_game, _draw_claimed, _draw_offered, _move,
    _aside, _status_or_help,
)
"""The checks of :func:`decide`, in the order that decides (the first verdict wins)."""


def _with_move(m: Mail, kind: VerdictKind, *, outcome: Outcome | None = None,
               draw_offer_by: int | None = None, extra_notes: Sequence[str] = ()) -> Verdict:
    """A verdict that applies the new move: a standing offer is declined by it, binding
    proposals are spent (J16)."""
    moved = m.moved
    return Verdict(kind=kind, new_plies=moved.new_plies, new_keys=moved.new_keys,
                   new_texts=moved.new_texts, position=moved.position, outcome=outcome,
                   draw_offer_by=draw_offer_by,
                   draw_declined=m.game.draw_offer_by == m.opponent, auto=moved.auto,
                   nonstandard=moved.nonstandard, sender_to_move=moved.sender_to_move,
                   new_conditionals=moved.new_conditionals, rejected=moved.rejected,
                   proposals_cleared=bool(m.conditionals),
                   notes=[*m.notes, *moved.notes, *extra_notes], intent=m.intent,
                   record=m.record)


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
        lines = rules.read_proposals(strip_lines(m.text, m.intent.keyword_lines), m.record)
        if lines:
            accepted, rejected = validate(rules, position, lines, m.letters)
            if m.mode == "optional" and m.near and forces_win(rules, position, accepted,
                                                              m.sender):
                notes.append("mating_line")
    return Moved(new_plies=plies, new_keys=keys, new_texts=texts,
                 auto=[not step.written for step in result.steps], nonstandard=nonstandard,
                 position=saved, sender_to_move=result.sender_to_move,
                 notes=notes, ending=ending, new_conditionals=accepted, rejected=rejected)


def _claim(rules: GameRules, game: StoredGame, new_plies: Sequence[str]) -> str | None:
    """A draw the sender may claim after their new plies (threefold needs history)."""
    board = replay_from(rules, game.position, [*game.plies, *new_plies])
    return rules.claimable_draw(board)
