"""Reading chess proposals from mail text (J16, J2, J3): ``if 3... Bc5 then 4. c3``.

:func:`parse_proposals` finds the lines in a mail: ``if``/``もし`` lines
(``if 3... Bc5 then 4. c3``, ``if 3...Bc5 4.c3``, ``もし、3... Bc5 なら
4. c3 とします``, numeric ``if 5755 then 7163``, several per line with ``;``
or another ``if``, a Japanese line continued on the next line as in the
JCCA postal example) and PGN variations after the record's last move
(``3. Bc4 (3... Bc5 4. c3)``). :func:`proposal_lines` and
:func:`strip_proposals` tell the record extractor which text is proposals.
Checking and following them is game-neutral (:mod:`relaybot.core.conditionals`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from relaybot.core.game import ProposalLine, RecordText
from relaybot.games.chess.notation import looks_like_move, normalise_text

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
# J16: a piece named in words before a bare square (``2. knight f3``, ``Springer f3``)
# means a piece move; read without it, the square alone would bind a pawn move
_PIECE_NAMES = frozenset({
    "king", "queen", "rook", "bishop", "knight",
    "könig", "dame", "turm", "läufer", "springer",
    "roi", "tour", "fou", "cavalier",
    "キング", "クイーン", "ルーク", "ビショップ", "ナイト",
})
_SQUARE_RE = re.compile(r"^[a-h][1-8]$")


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
            start_ply=self.start_ply,
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
    piece: str | None = None  # a piece named in words just before (``knight f3``)
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
            piece = t if low in _PIECE_NAMES else None
            continue
        if piece is not None and _SQUARE_RE.match(t):
            # kept as written: the line is refused naming it, never bound as a pawn move
            t = f"{piece} {t}"
        piece = None
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

