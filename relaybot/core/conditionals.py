"""Conditional proposals (予想手): read, check and follow them (J16, J2, J3, J5).

With a move a player may propose continuations: "if 3... Bc5 then 4. c3" (or
deeper, or several). A proposal is a *line* of plies starting with the
opponent's predicted reply: ``[predicted, answer, predicted, answer, ...]``.
The proposer is bound by every accepted line until the reply arrives (J16).

Three steps, all pure (no I/O, no clock, errors as values):

1. :func:`parse_proposals` finds the lines in a mail: ``if``/``もし`` lines
   (``if 3... Bc5 then 4. c3``, ``if 3...Bc5 4.c3``, ``もし、3... Bc5 なら
   4. c3 とします``, numeric ``if 5755 then 7163``, several per line with ``;``
   or another ``if``, a Japanese line continued on the next line as in the
   JCCA postal example) and PGN variations after the record's last move
   (``3. Bc4 (3... Bc5 4. c3)``). :func:`proposal_lines` and
   :func:`strip_proposals` tell the record extractor which text is proposals.
2. :func:`validate` plays every line from the position after the proposer's
   move: a line illegal anywhere is :class:`Rejected` (the move it came with
   still stands); lines sharing a predicted move form a tree, and a second,
   different answer to the same predicted move is a conflict.
3. :func:`follow` reads the opponent's reply against that tree: accepted
   answers (restated or played by the bot itself, 0 days to the proposer),
   a reply that stops inside a line (the bot plays the bound answer and the
   opponent moves again), a contradiction (binding: refused, 5 days), or a
   different move (the proposal is simply not triggered).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import chess

from relaybot.core.notation import format_move, looks_like_move, normalise_text, parse_move
from relaybot.games.base import MoveError, RecordText

CONTRADICTION_PENALTY_DAYS = 5  # J16 (JCCA rule 4): a reply that does not honour a bound answer
MAX_LINE_PLIES = 40  # a proposal longer than this is refused (too_long)

Mode = Literal["binding", "optional", "off"]
RejectReason = Literal[
    "illegal",  # J5 kinds, from MoveError
    "ambiguous",
    "unreadable",
    "wrong_start",  # written for a later move, and not legal now
    "stale",  # written for a move already played, and not legal now (copied old text)
    "no_answer",  # a predicted move with no answer
    "conflict",  # a different answer to a predicted move already answered
    "too_long",
]
FollowKind = Literal["no_move", "move", "contradiction", "bad_move", "too_many_moves"]


# --- data ---------------------------------------------------------------------


@dataclass(frozen=True)
class ProposalLine:
    """One proposed line as written (J16), not yet checked.

    ``tokens`` start with the opponent's predicted reply and alternate
    predicted / answer. ``start_number`` and ``start_black`` are the move
    number written before the first token (``3...`` gives 3 and True), None
    when none was written (numeric notation, PGN variations). ``line`` indexes
    ``text.splitlines()`` where the proposal starts (for a variation: the
    record's last line); ``lines`` are all lines it used; ``text`` is the
    proposal as written (normalised), for relaying it (J18).
    """

    tokens: tuple[str, ...]
    start_number: int | None = None
    start_black: bool | None = None
    source: Literal["text", "variation"] = "text"
    line: int = -1
    lines: tuple[int, ...] = ()
    text: str = ""

    @property
    def start_ply(self) -> int | None:
        """0-based ply index of the first token from its written move number, if any."""
        if self.start_number is None:
            return None
        return (self.start_number - 1) * 2 + (1 if self.start_black else 0)


@dataclass(frozen=True)
class Conditional:
    """An accepted proposal line (J16): canonical UCI plies from the position after
    the proposer's move; even indices are the opponent's predicted moves, odd
    indices the proposer's bound answers. Store ``plies``; rebuild with
    ``Conditional(plies=tuple(stored))``.
    """

    plies: tuple[str, ...]
    sans: tuple[str, ...] = ()
    line: ProposalLine | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejected:
    """A proposal line refused by :func:`validate`; the proposer's move still stands (J16).

    ``reason`` is a code (see :data:`RejectReason`), ``detail`` a sentence in
    English for the reply, ``token`` the offending token ("" for the whole
    line) and ``ply_index`` its index in ``line.tokens`` (-1 for the line).
    """

    line: ProposalLine
    reason: RejectReason
    detail: str
    token: str = ""
    ply_index: int = -1


@dataclass(frozen=True)
class FollowStep:
    """One ply to apply, in order (J16).

    ``by_proposer`` marks a bound answer (the proposer's move: 0 days charged);
    ``written`` is False when the bot plays it itself because the opponent
    stopped right after the predicted move; ``token_index`` indexes the
    opponent's tokens (-1 when not written).
    """

    ply: str
    san: str
    by_proposer: bool
    written: bool
    token_index: int


@dataclass
class FollowResult:
    """What the opponent's reply does with the proposals (J16).

    ``kind``: ``no_move`` (no new token), ``move`` (apply ``steps``),
    ``contradiction`` (the predicted move was played but a different answer
    was written for the proposer: nothing applied; ``penalty_days`` 5 in
    binding mode, J16), ``bad_move`` (a token is illegal, ambiguous or
    unreadable: nothing applied, J5 is the referee's), ``too_many_moves``
    (tokens left after the opponent's own new move: nothing applied).

    ``triggered``: the opponent played a predicted move. ``sender_to_move``:
    the reply ended inside a line, after a bound answer, so it is the
    opponent's move again. ``end_index``: the opponent's tokens used
    (``tokens[:end_index]``). ``expected``/``token_index`` name the bound
    answer and the token for a contradiction or bad move. ``fen`` is the
    position after ``steps``.
    """

    kind: FollowKind
    steps: list[FollowStep] = field(default_factory=list)
    triggered: bool = False
    sender_to_move: bool = False
    end_index: int = 0
    penalty_days: int = 0
    error: MoveError | None = None
    token_index: int | None = None
    expected: str | None = None
    fen: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def plies(self) -> list[str]:
        """The UCI plies to apply, in order."""
        return [step.ply for step in self.steps]

    @property
    def bound_answers(self) -> list[str]:
        """The proposer's plies among :attr:`plies` (J16: 0 days to the proposer)."""
        return [step.ply for step in self.steps if step.by_proposer]

    @property
    def applies(self) -> bool:
        """True when the game changes."""
        return self.kind == "move" and bool(self.steps)


# --- reading proposals from text --------------------------------------------------

# "if" as a word, or もし/もしも; what follows is one or more clauses.
_KEYWORD_RE = re.compile(r"(?<![A-Za-z0-9])(?:if(?![A-Za-z])|もしも|もし)", re.IGNORECASE)
# Japanese glue: "なら" marks the answer part; the rest only ends a sentence.
_JA_THEN = ("ならば", "だったら", "の場合は", "の場合", "場合は", "なら", "では", "には")
_JA_FILLER = (
    "と指します",
    "を指します",
    "で応じます",
    "と応じます",
    "とします",
    "とする",
    "と指す",
    "を指す",
    "にします",
    "指します",
    "します",
)
_ARROWS = ("->", "=>", "→", "⇒")
_MOVE_CHARS = r"\x21-\x7e♔-♟"
_BOUNDARY_RE = re.compile(
    rf"(?<=[{_MOVE_CHARS}])(?=[^\s{_MOVE_CHARS}])|(?<=[^\s{_MOVE_CHARS}])(?=[{_MOVE_CHARS}])"
)
_NUMBER_RE = re.compile(r"^(\d{1,4})(\.{1,3})$")
_GLUED_RE = re.compile(r"^(\d{1,4})(\.{1,3})(\S+)$")
_BARE_NUMBER_RE = re.compile(r"^\d{1,3}$")
_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "1/2", "*"})
_FILLERS = frozenset(
    {
        "then",
        "i",
        "i'll",
        "ill",
        "will",
        "play",
        "plays",
        "played",
        "reply",
        "answer",
        "with",
        "you",
        "your",
        "and",
        "is",
        "me",
        "my",
        "move",
        "moves",
        "i'd",
        ",",
        ":",
        "-",
        "、",
    }
)
_END = "。"


def _prepare(segment: str) -> list[str]:
    """Whitespace tokens of a normalised clause, Japanese glue turned into ``then``/space."""
    s = segment
    for word in _JA_THEN:
        s = s.replace(word, " then ")
    for word in _JA_FILLER:
        s = s.replace(word, " ")
    for arrow in _ARROWS:
        s = s.replace(arrow, " then ")
    s = s.replace("。", f" {_END} ").replace("、", " ").replace(",", " , ")
    s = _BOUNDARY_RE.sub(" ", s)
    return s.split()


def _clean(token: str) -> str:
    """A token without surrounding brackets, quotes and sentence punctuation."""
    t = token.strip("\"'「」『』[]")
    if t.startswith("(") and ")" not in t:
        t = t[1:]
    if t.endswith(")") and "(" not in t:
        t = t[:-1]
    t = t.strip(",:")
    if t.endswith(".") and not _NUMBER_RE.match(t) and not t.endswith(".."):
        t = t[:-1]
    return t


@dataclass
class _Clause:
    """A proposal being read: moves and the written number of the first one."""

    moves: list[str] = field(default_factory=list)
    start_number: int | None = None
    start_black: bool | None = None
    then: bool = False
    done: bool = False
    lines: list[int] = field(default_factory=list)
    text: str = ""

    @property
    def start_ply(self) -> int | None:
        """0-based ply index of the first move from its written number, if any."""
        if self.start_number is None:
            return None
        return (self.start_number - 1) * 2 + (1 if self.start_black else 0)

    @property
    def wanted(self) -> bool:
        """Whether this reads as a proposal (an answer, or an explicit then/なら)."""
        return len(self.moves) >= 2 or (len(self.moves) == 1 and self.then)

    def to_line(self) -> ProposalLine:
        return ProposalLine(
            tokens=tuple(self.moves),
            start_number=self.start_number,
            start_black=self.start_black,
            source="text",
            line=self.lines[0] if self.lines else -1,
            lines=tuple(sorted(set(self.lines))),
            text=self.text,
        )


def _feed(clause: _Clause, tokens: list[str], out: list[_Clause]) -> _Clause:
    """Read ``tokens`` into ``clause``; a restarting move number opens a new clause.

    Returns the clause being read at the end (maybe a new one, appended to ``out``).
    An unknown word ends the clause once it has an answer; before that it is
    ignored (``if you play 3... Bc5 then I'll reply 4. c3``). A wrong move
    number inside a clause is no error when the moves are readable (J2).
    """
    pending: tuple[int, bool] | None = None
    bare: int | None = None
    for raw in tokens:
        if clause.done:
            return clause
        if raw == _END:
            if len(clause.moves) >= 2:
                clause.done = True
            continue
        t = _clean(raw)
        if not t:
            continue
        low = t.lower()
        if low == "then":
            clause.then = True
            continue
        if low in _FILLERS or t in _RESULTS:
            continue
        number = _NUMBER_RE.match(t)
        if number is not None:
            pending, bare = (int(number.group(1)), len(number.group(2)) >= 2), None
            continue
        if _BARE_NUMBER_RE.match(t):
            bare = int(t)
            continue
        if t in ("...", ".."):
            if bare is not None:
                pending, bare = (bare, True), None
            continue
        glued = _GLUED_RE.match(t)
        if glued is not None and looks_like_move(glued.group(3)):
            pending = (int(glued.group(1)), len(glued.group(2)) >= 2)
            t = glued.group(3)
        if not looks_like_move(t):
            if len(clause.moves) >= 2:
                clause.done = True
                return clause
            pending = bare = None
            continue
        if pending is None and bare is not None:
            pending = (bare, False)
        bare = None
        if pending is not None:
            ply = (pending[0] - 1) * 2 + (1 if pending[1] else 0)
            first = clause.start_ply
            if clause.moves and first is not None and ply <= first:
                # "3... Bc5 なら 4. c3、3... Nf6 なら 4. d3": a second alternative.
                new = _Clause(lines=list(clause.lines[-1:]))
                out.append(new)
                clause = new
            if not clause.moves:
                clause.start_number, clause.start_black = pending
            pending = None
        clause.moves.append(t)
    return clause


def _movelike_prefix(prefix: str) -> bool:
    """Whether text before ``if`` on a line is only moves (``1. e4, if 1... e5 then 2. Nf3``)."""
    for raw in prefix.split():
        t = raw.strip(",;:")
        if not t or t in _RESULTS or t in ("...", "..") or _NUMBER_RE.match(t):
            continue
        glued = _GLUED_RE.match(t)
        if glued is not None:
            t = glued.group(3)
        if not looks_like_move(t):
            return False
    return True


_SENTENCE_END_RE = re.compile(r"[.!?。！？]\s*$")


def _keyword_start(norm: str) -> int | None:
    """Where proposals start on a normalised line, or None.

    ``if``/``もし`` counts at the start of the line, after moves
    (``1. e4, if 1... e5 then 2. Nf3``) or after a finished sentence
    (``Thanks! if ...``); after other prose it is prose (``I wonder if ...``).
    """
    m = _KEYWORD_RE.search(norm)
    if m is None:
        return None
    prefix = norm[: m.start()]
    if not (_movelike_prefix(prefix) or _SENTENCE_END_RE.search(prefix)):
        return None
    return m.start()


def _clauses_of(body: str, index: int) -> list[_Clause]:
    """The clauses of the text after the first keyword of line ``index``."""
    pieces: list[str] = []
    keywords = list(_KEYWORD_RE.finditer(body))
    starts = [0] + [m.end() for m in keywords]
    ends = [m.start() for m in keywords] + [len(body)]
    for start, end in zip(starts, ends, strict=True):
        pieces.extend(body[start:end].split(";"))
    out: list[_Clause] = []
    for piece in pieces:
        clause = _Clause(lines=[index])
        out.append(clause)
        _feed(clause, _prepare(piece), out)
    return out


def _scan_text(text: str) -> tuple[list[_Clause], dict[int, str]]:
    """All ``if``/``もし`` clauses of ``text`` and, per consumed line, what remains of it."""
    # No proposal keyword anywhere: nothing to scan line by line. On ASCII text (NFKC
    # and the dash/quote map leave it alone) the case-blind keyword needs "if" in the
    # lower-cased text, a test far cheaper than the look-behind regex over a whole game.
    if (text.isascii() and "if" not in text.lower()) or (
        _KEYWORD_RE.search(normalise_text(text)[0]) is None
    ):
        return [], {}
    raw_lines = text.splitlines()
    norm_lines = [normalise_text(line)[0] for line in raw_lines]
    found: list[_Clause] = []
    kept: dict[int, str] = {}
    i = 0
    while i < len(norm_lines):
        norm = norm_lines[i]
        if norm.lstrip().startswith(">"):
            i += 1
            continue
        start = _keyword_start(norm)
        if start is None:
            i += 1
            continue
        m = _KEYWORD_RE.match(norm, start)
        if m is None:  # pragma: no cover - _keyword_start found it there
            i += 1
            continue
        clauses = _clauses_of(norm[m.end() :], i)
        consumed = [i]
        last = clauses[-1] if clauses else None
        j = i + 1
        # A line that stops after "then"/なら continues below (seed 000: もし、1... e5 なら /
        # 2. Nf3 とします。), blank lines between allowed.
        while (
            last is not None
            and last.then
            and len(last.moves) == 1
            and not last.done
            and j < len(norm_lines)
        ):
            if not norm_lines[j].strip():
                j += 1
                continue
            nxt = norm_lines[j]
            if _KEYWORD_RE.search(nxt) is not None or nxt.lstrip().startswith(">"):
                break
            tokens = _prepare(nxt)
            head = _clean(tokens[0]) if tokens else ""
            glued = _GLUED_RE.match(head)
            if not (
                _NUMBER_RE.match(head)
                or looks_like_move(head)
                or (glued is not None and looks_like_move(glued.group(3)))
            ):
                break
            last.lines.append(j)
            last = _feed(last, tokens, clauses)
            consumed.append(j)
            j += 1
        wanted = [c for c in clauses if c.wanted]
        if wanted:
            for clause in wanted:
                clause.text = " ".join(
                    (norm[start:] if k == i else norm_lines[k]).strip()
                    for k in sorted(set(clause.lines))
                )
            found.extend(wanted)
            prefix = norm[:start].rstrip().rstrip(",;:").rstrip()
            for k in consumed:
                kept[k] = prefix if k == i else ""
            i = max(consumed) + 1
        else:
            i += 1
    return found, kept


def proposal_lines(text: str) -> set[int]:
    """Indices (in ``text.splitlines()``) of lines that hold ``if``/``もし`` proposals (J16).

    A line whose proposal follows moves (``1. e4, if 1... e5 then 2. Nf3``) is
    included; :func:`strip_proposals` keeps its moves for the record.
    """
    return set(_scan_text(text)[1])


def strip_proposals(text: str) -> str:
    """``text`` with its proposal text blanked, line count unchanged (J1, J16).

    Give this to ``extract_record``: a proposal line (and a continuation line
    such as ``2. Nf3 とします``) is emptied; a line with moves before ``if`` keeps
    the moves (normalised). PGN variations stay: they belong to the record.
    """
    kept = _scan_text(text)[1]
    if not kept:
        return text
    return "\n".join(kept[i] if i in kept else line for i, line in enumerate(text.splitlines()))


def parse_proposals(text: str, record: RecordText) -> list[ProposalLine]:
    """Every proposal line of a mail, in order: PGN variations first, then text (J16).

    ``record`` is the mail's record (from ``extract_record(strip_proposals(text))``):
    its variations after the *last* token are proposals (``3. Bc4 (3... Bc5
    4. c3)``); variations after earlier moves are comments. Text proposals are
    lines starting with ``if``/``もし`` (or moves, then ``if``), several per
    line split by ``;``, another ``if``/``もし`` or a restarting move number.
    Full-width text and ICCF numeric moves are read (J2, J3). Never raises.
    """
    lines: list[ProposalLine] = []
    if record.tokens:
        for variation in record.variations.get(len(record.tokens) - 1, []):
            if variation:
                lines.append(
                    ProposalLine(
                        tokens=tuple(variation),
                        source="variation",
                        line=record.last_line,
                        lines=(record.last_line,) if record.last_line >= 0 else (),
                        text="(" + " ".join(variation) + ")",
                    )
                )
    if not isinstance(text, str):
        return lines
    clauses, _ = _scan_text(text)
    lines.extend(clause.to_line() for clause in clauses)
    return lines


# --- checking proposals -----------------------------------------------------------


@dataclass
class _Branch:
    """The bound answer to one predicted move, and what may follow it."""

    answer: str
    next: dict[str, _Branch] = field(default_factory=dict)


def _ply_index(board: chess.Board) -> int:
    return (board.fullmove_number - 1) * 2 + (0 if board.turn == chess.WHITE else 1)


def _written_number(index: int) -> str:
    return f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."


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
    board_after_proposer_move: chess.Board,
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
    here = _ply_index(board_after_proposer_move)
    for line in lines:
        notes: list[str] = []
        tokens = list(line.tokens)
        start = line.start_ply
        if len(tokens) < 2:
            rejected.append(
                Rejected(line, "no_answer", "a predicted move needs an answer (if ... then ...)")
            )
            continue
        if len(tokens) > MAX_LINE_PLIES:
            rejected.append(
                Rejected(line, "too_long", f"a proposal may have at most {MAX_LINE_PLIES} moves")
            )
            continue
        board = board_after_proposer_move.copy(stack=False)
        plies: list[str] = []
        sans: list[str] = []
        failure: Rejected | None = None
        for k, token in enumerate(tokens):
            try:
                move = parse_move(board, token, letters)
            except MoveError as exc:
                failure = Rejected(line, exc.kind, exc.detail or exc.kind, token, k)
                if start is not None and start != here:
                    # Written for another move: copied old text (stale) or too far ahead.
                    failure = Rejected(
                        line,
                        "stale" if start < here else "wrong_start",
                        f"the proposal is written for {_written_number(start)}; it must start "
                        f"with the reply at {_written_number(here)} ({exc.detail or exc.kind})",
                        token,
                        k,
                    )
                break
            sans.append(board.san(move))
            plies.append(move.uci())
            board.push(move)
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
                    f"{sans[clash - 1]} already has the answer "
                    f"{_answer_san(board_after_proposer_move, tree, plies, clash)}; "
                    f"a second answer {sans[clash]} is refused",
                    tokens[clash],
                    clash,
                )
            )
            continue
        _add(tree, plies)
        if start is not None and start != here:
            notes.append(
                f"move number {_written_number(start)} read as {_written_number(here)} (J2)"
            )
        accepted.append(Conditional(tuple(plies), tuple(sans), line, tuple(notes)))
    return accepted, rejected


def _answer_san(
    board: chess.Board, tree: dict[str, _Branch], plies: Sequence[str], clash: int
) -> str:
    """SAN of the answer already in the tree at ``plies[clash]``'s place."""
    b = board.copy(stack=False)
    node = tree
    for k in range(0, clash - 1, 2):
        b.push(chess.Move.from_uci(plies[k]))
        b.push(chess.Move.from_uci(plies[k + 1]))
        node = node[plies[k]].next
    b.push(chess.Move.from_uci(plies[clash - 1]))
    return b.san(chess.Move.from_uci(node[plies[clash - 1]].answer))


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


def format_conditional(
    board_after_proposer_move: chess.Board,
    conditional: Conditional,
    notation: str = "san",
    letters: str = "en",
    lang: str = "en",
) -> str:
    """A proposal in a reader's notation, e.g. ``if 3... Bc5 then 4. c3 Nf6 5. d4``.

    ``lang`` ``ja`` writes ``もし 3... Bc5 なら 4. c3``. For relaying (J3, J18).
    """
    board = board_after_proposer_move.copy(stack=False)
    parts: list[str] = []
    for k, ply in enumerate(conditional.plies):
        move = chess.Move.from_uci(ply)
        if move not in board.legal_moves:
            break
        if k == 1:
            parts.append("なら" if lang == "ja" else "then")
        if board.turn == chess.WHITE:
            parts.append(f"{board.fullmove_number}.")
        elif k in (0, 1):
            parts.append(f"{board.fullmove_number}...")
        parts.append(format_move(board, move, notation, letters))
        board.push(move)
    return ("もし " if lang == "ja" else "if ") + " ".join(parts)


# --- following proposals ----------------------------------------------------------


def _refuse(result: FollowResult, kind: FollowKind) -> FollowResult:
    result.kind = kind
    result.steps = []
    result.sender_to_move = False
    return result


def follow(
    conditionals: Sequence[Conditional],
    opponent_tokens: Sequence[str],
    board: chess.Board,
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
    b = board.copy(stack=False)
    result = FollowResult(kind="no_move", fen=b.fen())
    tokens = list(opponent_tokens)
    if not tokens:
        return result
    node = _build_tree(conditionals) if mode != "off" else {}
    i = 0
    while True:
        if i >= len(tokens):  # stopped after restating a bound answer
            result.sender_to_move = not b.is_game_over()
            break
        if b.is_game_over():
            result.token_index = i
            return _refuse(result, "too_many_moves")
        try:
            move = parse_move(b, tokens[i], letters)
        except MoveError as exc:
            result.error, result.token_index = exc, i
            return _refuse(result, "bad_move")
        ply = move.uci()
        result.steps.append(FollowStep(ply, b.san(move), False, True, i))
        b.push(move)
        i += 1
        branch = node.get(ply)
        if branch is None:  # their own move: not predicted (or not any more)
            if i < len(tokens):
                result.token_index = i
                return _refuse(result, "too_many_moves")
            break
        result.triggered = True
        answer = chess.Move.from_uci(branch.answer)
        if answer not in b.legal_moves:  # stored tree does not fit; treat as not predicted
            result.notes.append("stored proposal does not fit the position; ignored")
            if i < len(tokens):
                result.token_index = i
                return _refuse(result, "too_many_moves")
            break
        if i >= len(tokens):  # stopped right after the predicted move
            if mode == "binding":
                result.steps.append(FollowStep(branch.answer, b.san(answer), True, False, -1))
                b.push(answer)
                result.sender_to_move = not b.is_game_over()
                result.notes.append("bound answer played by the bot (J16)")
            else:
                result.notes.append("bound answer not played (optional mode)")
            break
        try:
            written = parse_move(b, tokens[i], letters)
        except MoveError as exc:
            result.error, result.token_index = exc, i
            result.expected = b.san(answer)
            return _refuse(result, "bad_move")
        if written != answer:
            result.token_index, result.expected = i, b.san(answer)
            result.penalty_days = CONTRADICTION_PENALTY_DAYS if mode == "binding" else 0
            return _refuse(result, "contradiction")
        result.steps.append(FollowStep(branch.answer, b.san(answer), True, True, i))
        b.push(answer)
        i += 1
        node = branch.next
    result.kind = "move"
    result.end_index = i
    result.fen = b.fen()
    return result
