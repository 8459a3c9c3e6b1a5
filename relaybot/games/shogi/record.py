"""Finding the record and the proposals in a shogi mail.

A move line holds moves in any notation :mod:`.notation` reads, with move numbers
(``15``, ``15手目``, ``15.``), KIF time fields and results (``投了``) around them; the
record is the first block of such lines (blank and ``*`` comment lines inside allowed),
so a whole KIF file pasted into a mail reads too (its variations, after ``変化：``, are
never the record). A proposal is a line starting with
``もし`` or ``if``: ``もし △同歩 なら ▲同角``; several on a line split by ``;``.
"""

from __future__ import annotations

import re

from relaybot.games.base import ProposalLine, RecordText
from relaybot.games.shogi.notation import clean, is_move_attempt, is_move_word, looks_like_move

_NUMBER_RE = re.compile(r"^第?(\d{1,4})(?:手目|手|\.|:)?$")
_CLAUSE_SPLIT_RE = re.compile(r"[;。]|もしも|もし|(?<![a-z])if(?![a-z])", re.IGNORECASE)
_TIME_RE = re.compile(r"\(\s*\d+:\d+(?:/[\d:]+)?\s*\)")
_ENDINGS = frozenset({"投了", "詰み", "千日手", "持将棋", "中断", "切れ負け", "反則勝ち",
                      "反則負け", "入玉勝ち", "まで"})
_MARKS = frozenset({"▲", "△", "☗", "☖"})
_SIDE_OF_MARK = {"▲": 0, "☗": 0, "△": 1, "☖": 1}  # ▲ 先手, △ 後手 (▽ is △ once cleaned)
# words around moves that are no moves: USI's command words, CSA's times (T12)
_SKIP = frozenset({"position", "startpos", "moves"})
_CSA_TIME_RE = re.compile(r"^T\d+$")
_PROPOSAL_RE = re.compile(r"^(?:if\b|もしも|もし)[、,\s]*", re.IGNORECASE)
_THEN_WORDS = ("ならば", "なら", "then", "とします", "と指します", "とする", "。", "→", "->")


def _scan(line: str, sides: dict[int, int] | None = None
          ) -> tuple[list[str], int | None, bool] | None:
    """(moves, the number written before the first move, ends the game) of a line that
    holds only moves, numbers, times and endings; None for any other line. A quoted line
    (``>``) is never one. ``sides``, if given, gets the side a move's mark names (▲ ☗
    先手, △ ☖ ▽ 後手), by the move's index on the line (J1: the referee checks it)."""
    norm = _TIME_RE.sub(" ", clean(line)).strip()
    if not norm or norm.startswith(">"):
        return None
    norm = norm.replace(",", " ")  # CSA's one-line form: +7776FU,T12,-3334FU
    moves: list[str] = []
    number: int | None = None
    ending = False
    labels: dict[int, int] = {}
    mark: int | None = None  # a mark written apart from its move (``▲ ７六歩``)
    for raw in norm.split():
        word = raw.strip(",、。")
        if word in _MARKS:
            mark = _SIDE_OF_MARK[word]
            continue
        if not word or word in _SKIP or _CSA_TIME_RE.match(word):
            continue
        num = _NUMBER_RE.match(word)
        if num is not None:
            if not moves and number is None:
                number = int(num.group(1))
            continue
        if word in _ENDINGS or word.startswith("%"):  # KIF and CSA endings (%TORYO)
            ending = True
            continue
        if not is_move_word(word):
            if not (word.endswith("+") and is_move_word(word[:-1])):
                return None
            word = word[:-1]  # KIF marks a move that has variations with a final +
        if word[0] in _SIDE_OF_MARK:
            mark = _SIDE_OF_MARK[word[0]]
        if mark is not None:
            labels[len(moves)] = mark
        mark = None
        moves.append(word)
    if sides is not None:
        sides.update(labels)
    return moves, number, ending  # no moves: a line the block may hold (T12, 投了)


def extract_record(text: str) -> RecordText:
    """The first block of move lines; ``first_ply`` from the number before its first move
    (``15 ▲７七角`` and ``15手目 ７七角`` start at ply 14; none: ply 0)."""
    lines = text.splitlines()
    record = RecordText()
    started = False
    for k, line in enumerate(lines):
        if line.lstrip().startswith("変化"):
            break  # KIF's variations (変化：4手) follow the main line: analysis, no record
        labels: dict[int, int] = {}
        scan = _scan(line, labels)
        if scan is None:
            stripped = line.strip()
            if started and stripped and not stripped.startswith(("*", "&", "#")):
                break
            continue
        moves, number, _ending = scan
        if started and number == 1 and moves:
            break  # a record from move 1 again: another record, not more of this one
        if not started:
            if not moves:
                continue
            started = True
            record.first_line = k
            record.first_ply = max(0, number - 1) if number else 0
        record.sides.update((len(record.tokens) + i, side) for i, side in labels.items())
        record.tokens.extend(moves)
        record.last_line = k
        # full-width digits are standard shogi notation (▲７六歩): nothing to remark (J2)
    return record


def _clauses(text: str) -> list[tuple[int, str, str]]:
    """(line index, normalised line, one ``;`` clause) of every proposal line."""
    found: list[tuple[int, str, str]] = []
    for i, line in enumerate(text.splitlines()):
        lowered = line.lower()
        if "もし" not in line and "if" not in lowered and "ｉｆ" not in lowered:
            continue  # cheaply: most lines are no proposal
        norm = clean(line).strip()
        m = _PROPOSAL_RE.match(norm)
        if m is not None:
            # several proposals on a line: split by ; or 。 or another もし / if
            found.extend((i, norm, clause) for clause in _CLAUSE_SPLIT_RE.split(norm[m.end():])
                         if clause.strip())
    return found


def read_proposals(text: str) -> list[ProposalLine]:
    """``もし △同歩 なら ▲同角`` / ``if 15 △同歩 then ▲同角`` lines (J16); the number
    before the first move, if any, is where the line starts."""
    lines: list[ProposalLine] = []
    for i, norm, clause in _clauses(text):
        for word in _THEN_WORDS:
            clause = clause.replace(word, " ")
        moves: list[str] = []
        start: int | None = None
        pending: int | None = None
        for raw in clause.split():
            word = raw.strip(",、。")
            num = _NUMBER_RE.match(word)
            if num is not None:
                pending = int(num.group(1))
                continue
            if not looks_like_move(word) and not is_move_attempt(word):
                continue  # a word around the moves (です, お願いします)
            # J16: a move that does not read (▲同飛車) stays in the line, so that the line
            # is refused naming it, never read without it (as "no answer", or shorter)
            if not moves and pending is not None:
                start = pending - 1
            moves.append(word)
        if moves:
            lines.append(ProposalLine(tokens=tuple(moves), start_ply=start, line=i,
                                      lines=(i,), text=norm))
    return lines


def proposal_lines(text: str) -> set[int]:
    """Indices of the lines starting with ``もし`` or ``if``."""
    return {i for i, _, _ in _clauses(text)}


def strip_proposals(text: str) -> str:
    """``text`` with its proposal lines blanked (the line count unchanged)."""
    drop = proposal_lines(text)
    if not drop:
        return text
    return "\n".join("" if i in drop else line for i, line in enumerate(text.splitlines()))
