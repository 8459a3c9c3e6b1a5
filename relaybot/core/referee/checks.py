"""The referee's checks and ``decide``, which runs them on one mail in the order of
``CHECKS``: each answers with a ``Verdict`` or passes, and the first answer is the verdict.

Pure: no I/O, no clock. Each check reads the ``Mail`` (:mod:`.mail`) and asks it for the
board, the reply and its plies only when it needs them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from relaybot.core.bounds import MAX_CONDITIONALS, record_limit
from relaybot.core.conditionals import Conditional
from relaybot.core.game import (
    Declared,
    GameRules,
    MoveError,
    Outcome,
    RecordText,
    Termination,
    first_mover,
    replay_from,
    written_text,
)
from relaybot.core.intent import Intent
from relaybot.core.referee.mail import Mail, first_difference, read_mail
from relaybot.core.referee.verdict import StoredGame, Verdict, VerdictKind

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
    mail = read_mail(rules, game, sender, text, letters=letters, allow_claims=allow_claims,
                     conditionals=conditionals, mode=mode, intent=intent,
                     line_near=line_near, near=near)
    for check in CHECKS:
        verdict = check(mail)
        if verdict is not None:
            return verdict
    return _no_move(mail)


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
    if (m.rules.record_policy == "numbered" and diff <= 1 and 0 < stored
            and len(tokens) == 1 and m.record.first_ply == 0):
        # one move and no number (shogi, go): most likely the next move with its number
        # left out; the reply shows how to write it (J1 holds). It may even be the game's
        # first move (diff 1: a record one move long): "your mail has ''" said nothing
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
    optional = ["proposal_optional"] if "proposal_optional" in m.reply.notes else []
    return Verdict(kind="contradiction", penalty_days=m.reply.penalty_days,
                   expected=m.reply.expected,
                   diff_token=m.new_tokens[index] if index < len(m.new_tokens) else None,
                   draw_offer_by=m.game.draw_offer_by, notes=[*m.notes, *optional],
                   intent=m.intent,
                   record=m.record)


def _wrong_side(m: Mail) -> Verdict | None:
    """J1: a move whose written colour or mark (go's ``黒2 D4``, ``2 W D4``; shogi's ▲ △
    on an earlier move) names the other side than the one whose move its number is: the
    mail disagrees with the record about whose move it is, so nothing is applied and the
    reply names the move, both sides and the line to write. Who makes ply 0 comes from the
    start position (White in a handicap go game); the sides alternate from there."""
    sides = m.record.sides
    if not sides or not m.record.tokens:
        return None
    first_side = first_mover(m.rules, m.game.position)
    for index in sorted(sides):
        ply = m.first + index
        if sides[index] == (first_side + ply) % 2 or index >= len(m.record.tokens):
            continue
        return Verdict(kind="sync_error", diff_ply=ply, diff_token=m.record.tokens[index],
                       written_side=sides[index], draw_offer_by=m.game.draw_offer_by,
                       notes=[*m.notes, "wrong_side"], intent=m.intent, record=m.record)
    return None


# The checks after the new move is played (a mail without one skips what needs it)


_MAX_OTHER_RECORDS = 8  # records looked at around the one read (issue 12: bounded work)


def _two_moves(m: Mail) -> Verdict | None:
    """J1: the mail holds another record (before or after the one read: a corrected move
    below the first, a new move above a whole record that ends otherwise) that names a
    different legal move for a ply the mail adds. The bot cannot tell which the player
    means, so nothing is applied and the reply names both. Quoted text and the signature
    are gone before the referee reads; a later record that only goes further (a line the
    player expects) or repeats the game is no second move."""
    if not m.new_tokens or not m.moved.new_plies or m.record.first_line < 0:
        return None
    rules, moved, stored = m.rules, m.moved, len(m.game.plies)
    lines = rules.strip_proposals(m.body).splitlines()
    before: list[object] = []  # the position before each new ply, made when first needed
    for other in _other_records(rules, lines, m.record.first_line, m.record.last_line):
        start = stored if other.next_move else other.first_ply
        if start < stored and first_difference(rules, m.game, other.tokens, m.letters,
                                               start) is not None:
            continue  # not this game's moves (another game's record, an old one): no claim
        for k, token in enumerate(other.tokens):
            j = start + k - stored
            if not 0 <= j < len(moved.new_plies) or moved.auto[j]:
                continue
            if not before:
                position = rules.copy(m.board)
                for ply in moved.new_plies:
                    before.append(rules.copy(position))
                    rules.play(position, ply)
            try:
                ply = rules.parse(before[j], token, m.letters)
            except MoveError:
                continue  # no legal move there: no second move, whatever it is
            if ply != moved.new_plies[j]:
                return Verdict(kind="sync_error", diff_ply=stored + j,
                               diff_token=moved.new_texts[j],
                               other_token=written_text(rules, before[j], ply, token,
                                                        rules.display_notation),
                               draw_offer_by=m.game.draw_offer_by,
                               notes=[*m.notes, "two_moves"], intent=m.intent,
                               record=m.record)
    return None


def _other_records(rules: GameRules, lines: list[str], first: int, last: int
                   ) -> list[RecordText]:
    """The records the game's reader finds in ``lines`` outside ``first``..``last`` (the
    record read), at most :data:`_MAX_OTHER_RECORDS`."""
    found: list[RecordText] = []
    for rest in (lines[:first], lines[last + 1:]):
        while rest and len(found) < _MAX_OTHER_RECORDS:
            record = rules.extract_record("\n".join(rest))
            if not record.tokens or record.last_line < 0:
                break
            found.append(record)
            rest = rest[record.last_line + 1:]
    return found


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


def _no_draw_offers(m: Mail) -> Verdict | None:
    """A draw offered or accepted in a game that has no draw offers (go: a game ends by
    resignation, or both pass and state the result): refused whole, nothing applied,
    so that a move is never relayed with an offer the opponent cannot accept."""
    if (m.intent.draw_offer or m.intent.draw_accept) and not m.rules.rule_set.draw_offers:
        return m.answer("no_draw_offers")
    return None


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
    """J1: nothing new: the record, if any, is the stored game's and says so; a mail with
    no record at all is told of a line where a move stands among words (``▲７六歩です``,
    ``4.c3 I think``), which the record reader never reads as moves.

    J16: proposals go with a move, and the proposer cannot withdraw or change them before
    the reply (seed 000: 「提案した予想手を撤回することはできません」), so proposals in a mail
    without a move are not read, and the reply says so (``proposals_not_read``) rather
    than let the player think a changed line now binds. A sender whose opponent is to
    move is told so (``opponent_to_move``), not asked for a new move."""
    notes = [*m.notes, *(["no_new_move"] if m.record.tokens else [])]
    if m.rules.to_move(m.board) != m.sender:
        notes.append("opponent_to_move")
    if (m.distinct or m.record.variations) and m.proposals:
        notes.append("proposals_not_read")
    return Verdict(kind="no_move", draw_offer_by=m.game.draw_offer_by, notes=notes,
                   intent=m.intent, record=m.record,
                   unread_line=None if m.record.tokens else _unread_line(m))


_HINT_LINES = 200  # lines looked at for the hint (issue 12: bounded work)
_HINT_WORDS = 40  # words of a line
_HINT_PREFIX = 16  # the longest move looked for in a word
_HINT_WORD = 24  # characters of a word looked at
_HINT_SHOWN = 80  # characters of the line the reply quotes
_NUMBER_PREFIX_RE = re.compile(r"^\d{1,4}(?:\.+|…|手目|手)")


def _unread_line(m: Mail) -> str | None:
    """The first line holding a move (with a digit: a square, a point, a move number)
    among other words, as written; None when there is none."""
    for line in m.rules.strip_proposals(m.body).splitlines()[:_HINT_LINES]:
        words = line.split()[:_HINT_WORDS]
        if all(m.rules.looks_like_move(word) for word in words):
            continue  # moves alone (not read for another cause): no words to take out
        if _holds_any(m.rules, words):
            return _quoted(line)
    return None


# the words of a conditional move a player may write without the bot's if/もし form
_PROPOSAL_WORDS_RE = re.compile(r"予想|なら|応手|(?<![a-z])(?:if|then)(?![a-z])|conditional",
                                re.IGNORECASE)


def _unread_proposal(m: Mail) -> str | None:
    """J16: the first line that speaks of a conditional move and holds a move (``予想手:
    4. c3 Nf6``, ``4. c3 なら 4... Nf6``) but that no proposal was read from, as
    written; None when there is none. Only a note: such a line binds nobody."""
    if _PROPOSAL_WORDS_RE.search(m.text) is None:
        return None  # the common mail: no word of a proposal anywhere
    read = m.rules.proposal_lines(m.body)
    for index, line in enumerate(m.body.splitlines()[:_HINT_LINES]):
        if (index in read or line.lstrip().startswith(">")
                or _PROPOSAL_WORDS_RE.search(line) is None):
            continue
        if _holds_any(m.rules, line.split()[:_HINT_WORDS]):
            return _quoted(line)
    return None


def _quoted(line: str) -> str:
    """A line of the mail as a reply quotes it: stripped, cut at :data:`_HINT_SHOWN`."""
    shown = line.strip()
    return shown if len(shown) <= _HINT_SHOWN else shown[:_HINT_SHOWN] + "…"


def _holds_any(rules: GameRules, words: Sequence[str]) -> bool:
    """Whether one of ``words`` holds a move of the game (:func:`_holds_a_move`)."""
    return any(_holds_a_move(rules, word) for word in words)


def _holds_a_move(rules: GameRules, word: str) -> bool:
    """Whether ``word`` (its move number aside) holds a move of the game: ``c3`` in
    ``4.c3``, ``▲７六歩`` in ``▲７六歩です`` or ``今回は▲７六歩と``. Only a piece of
    digits and letters counts: digits alone or with dashes (a date, a phone number) and
    SGF letters without digits (English words) are no move here."""
    word = _NUMBER_PREFIX_RE.sub("", unicodedata.normalize("NFKC", word))[:_HINT_WORD]
    for start in range(len(word)):
        for end in range(min(len(word), start + _HINT_PREFIX), start + 1, -1):
            part = word[start:end]
            if (any(ch.isdigit() for ch in part) and any(ch.isalpha() for ch in part)
                    and rules.looks_like_move(part)):
                return True
    return False


CHECKS: tuple[Check, ...] = (
    _game_over, _too_many_conditionals, _too_long, _help_or_status, _resign, _declared,
    _fragment, _out_of_sync, _no_draw_offers, _draw_agreed,
    _not_your_turn, _too_many_moves, _bad_move, _contradiction, _wrong_side, _two_moves,
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
                   record=m.record, unread_proposal=_unread_proposal(m))


def _claim(rules: GameRules, game: StoredGame, new_plies: Sequence[str]) -> str | None:
    """A draw the sender may claim after their new plies (threefold needs history)."""
    board = replay_from(rules, game.position, [*game.plies, *new_plies])
    return rules.claimable_draw(board)
