"""Reading go moves and results as members write them (INTERFACE "Go moves").

A move is a coordinate ``Q16`` / ``q16`` (columns A-T without I, rows from the bottom),
an SGF point ``pd`` (or an SGF node ``B[pd]``), or ``pass`` / ``パス``. A record is a
block of lines that start with a move number (``47 Q16``, ``47. Q16``, ``47手目 Q16``,
``1 Q16 2 D4 3 pd``); the first number says where the mail's moves start. A point alone
on its line (``Q16``) is a record of that one move from move 1 (the referee asks for its
number after move 1), and ``pass`` / ``パス`` alone is the next move.

Results: ``B+3.5`` (or ``B+3½``), ``W+R``, ``B+T``, ``jigo`` / ``0`` / ``持碁``, and Japanese
``黒3目半勝ち``, ``白中押し勝ち``, ``白半目勝ち``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from relaybot.core.text import has_fullwidth, normalise
from relaybot.games.base import RecordText
from relaybot.games.go.board import GTP_COLUMNS, PASS, SGF_LETTERS

PASS_WORDS = frozenset({"pass", "パス", "pas", "tt", "b[]", "w[]", ";b[]", ";w[]", "b[tt]",
                        "w[tt]", ";b[tt]", ";w[tt]"})
_VERTEX_RE = re.compile(r"^([a-hj-t])([1-9][0-9]?)$")
# ``I5``: no point (the columns skip I), but plainly meant as one: read as a move so that
# the reply says why, instead of finding no move in the mail
_I_COLUMN_RE = re.compile(r"^i([1-9][0-9]?)$")
# a colour glued to the move (``●Q16``, ``黒Q16``): the colour adds nothing to the number
_GLUED_COLOUR_RE = re.compile(r"^(?:黒|白|●|○)(?=\S)")
_SGF_RE = re.compile(r"^;?(?:[bw]\[([a-s]{2})\]|([a-s]{2}))$")
_BARE_SGF_RE = re.compile(r"^[a-s]{2}$")  # ``pd`` without a node: an English word too
# a move number: 47, 47., 47手目, 第47手, and 黒47 / 白48 as Japanese commentary names a
# move (never B47: B3 is a point)
_NUMBER_RE = re.compile(r"^(?:第|(黒|白|●|○))?(\d{1,3})(?:\.|:|手目|手)?(.*)$")
_PROPOSAL_RE = re.compile(r"^(?:if\b|もし)", re.IGNORECASE)
_RESULT_RE = re.compile(r"^([bw])\+(r|resign|t|time|f|forfeit|(\d+(?:\.\d)?))$")
_RESULT_JA_RE = re.compile(
    r"^(黒|白)の?(中押し|時間切れ|不戦|(\d+)(\.5)?目(半)?|半目)(?:勝ち?)?$")
# a half written as a fraction: ``3½`` is 3.5, ``½`` 0.5; NFKC (a keyword's words arrive
# so) writes ½ as ``1⁄2`` with U+2044, which only ½ makes: ``31⁄2`` is 3½ too. Read before
# :func:`normalise`, whose slash would make it the 31/2 no one could tell from 31/2
_HALF_RE = re.compile(r"(\d*)\s*(?:½|1\u20442)")
JIGO_WORDS = frozenset({"jigo", "0", "draw", "持碁", "ジゴ", "じご"})
# the colour words of a record line and the side each names (J1: checked against the
# move's number by the referee)
_COLOUR_SIDE = {"黒": 0, "●": 0, "b": 0, "black": 0, "b:": 0,
                "白": 1, "○": 1, "w": 1, "white": 1, "w:": 1}
COLOUR_WORDS = frozenset(_COLOUR_SIDE)
_SGF_NODE_RE = re.compile(r"^;?([bw])\[")


def key(token: str) -> str:
    """A token reduced to its comparison key: ``q16``, ``pd`` or ``pass`` (no board)."""
    word = normalise(token).strip().lower().rstrip(",;")
    if word in PASS_WORDS:
        return PASS
    sgf = _SGF_RE.match(word)
    if sgf is not None:
        return sgf.group(1) or sgf.group(2)
    return word


def is_move(word: str) -> bool:
    """Whether a (normalised, lower-case) word is a move in some accepted form (or the
    column I, which the reply refuses with its reason)."""
    k = key(word)
    return (k == PASS or _VERTEX_RE.match(k) is not None or _SGF_RE.match(k) is not None
            or _I_COLUMN_RE.match(k) is not None)


def is_i_column(k: str) -> bool:
    """Whether a key is a coordinate in the column I, which go coordinates skip."""
    return _I_COLUMN_RE.match(k) is not None


def is_vertex(k: str) -> bool:
    """Whether a key is a coordinate like ``q16`` (not an SGF point)."""
    return _VERTEX_RE.match(k) is not None


def vertex_of_sgf(point: str, size: int) -> str | None:
    """``q16`` for the SGF point ``pd`` on 19x19; None off the board."""
    if len(point) != 2 or point[0] not in SGF_LETTERS[:size] or point[1] not in SGF_LETTERS[:size]:
        return None
    col, row_top = SGF_LETTERS.index(point[0]), SGF_LETTERS.index(point[1])
    return f"{GTP_COLUMNS[col].lower()}{size - row_top}"


def sgf_of_vertex(vertex: str, size: int) -> str | None:
    """``pd`` for ``q16`` on 19x19; None off the board."""
    match = _VERTEX_RE.match(vertex)
    if match is None:
        return None
    col, row = GTP_COLUMNS.lower().index(match.group(1)), int(match.group(2))
    if col >= size or not 1 <= row <= size:
        return None
    return SGF_LETTERS[col] + SGF_LETTERS[size - row]


@dataclass(frozen=True)
class StatedResult:
    """A result as written: the winner (None for jigo) and how (margin, or R/T/F)."""

    winner: int | None
    margin: float | None = None
    how: str = ""  # "R" resignation, "T" time, "F" forfeit, "" counted or jigo


_KANJI_VALUES = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
                 "九": 9}
_KANJI_MARGIN_RE = re.compile(r"([一二三四五六七八九十]+)(?=目)")


def _kanji_margin(match: re.Match[str]) -> str:
    """``三`` -> ``3``, ``十二`` -> ``12``, ``二十五`` -> ``25``: a margin in kanji numerals,
    as Japanese results are often written (黒三目半勝ち); unchanged if it is no number."""
    text = match.group(1)
    tens, _, ones = text.rpartition("十")
    if "十" not in text:
        return str(_KANJI_VALUES[text]) if len(text) == 1 else text
    if len(tens) > 1 or len(ones) > 1 or "十" in tens + ones:
        return text
    return str((_KANJI_VALUES[tens] if tens else 1) * 10 + (_KANJI_VALUES[ones] if ones else 0))


def read_result(text: str) -> StatedResult | None:
    """``B+3.5``, ``W+R``, ``jigo``, ``黒3目半勝ち``, ``黒三目半勝ち``, ``白中押し勝ち``,
    ``白不戦勝`` as a value; a half may be written ``½`` (``B+3½``, ``W+½``, ``黒3½目勝ち``,
    full width too); else None."""
    text = _HALF_RE.sub(lambda m: (m.group(1) or "0") + ".5", text)  # B+3½, W+½, ３½
    word = normalise(text).strip().lower().replace(" ", "")
    word = _KANJI_MARGIN_RE.sub(_kanji_margin, word)
    if word in JIGO_WORDS:
        return StatedResult(None, 0.0)
    match = _RESULT_RE.match(word)
    if match is not None:
        winner = 0 if match.group(1) == "b" else 1
        if match.group(3) is not None:
            margin = float(match.group(3))  # a win by nothing is no result (R4: jigo is 持碁)
            # points are counted whole, komi in halves: 3.7 is no count anyone made
            return StatedResult(winner, margin) if margin > 0 and (margin * 2).is_integer() \
                else None
        return StatedResult(winner, None, match.group(2)[0].upper())
    ja = _RESULT_JA_RE.match(word)
    if ja is not None:
        winner = 0 if ja.group(1) == "黒" else 1
        how = ja.group(2)
        if how == "中押し":
            return StatedResult(winner, None, "R")
        if how == "時間切れ":
            return StatedResult(winner, None, "T")
        if how == "不戦":  # 白不戦勝: what result_text_words writes for W+F
            return StatedResult(winner, None, "F")
        if how == "半目":
            return StatedResult(winner, 0.5)
        if ja.group(4) and ja.group(5):
            return None  # 黒3.5目半: which half?
        margin = int(ja.group(3)) + (0.5 if ja.group(4) or ja.group(5) else 0.0)
        return StatedResult(winner, margin) if margin > 0 else None
    return None


def scan(line: str, in_block: bool, sides: dict[int, int] | None = None
         ) -> tuple[list[str], int | None] | None:
    """(moves, the first number) of a record line, None for any other line.

    A record line starts with a move number, or (inside a record) holds only coordinates
    and passes; a quoted line (``>``) never is one. Numbers between moves are skipped
    (J2 leniency: the first number says where the moves start). ``sides``, if given,
    gets the side a move's colour label names (``黒2 D4``, ``2 W D4``, ``2 ●D4``,
    ``B[pd]``), by the move's index on the line (J1: the referee checks it).
    """
    # the player's case, for replies; a Japanese 。 after the move ends it like a space
    words = normalise(line).replace("、", " ").replace("。", " ").split()
    if not words or words[0].startswith(">"):
        return None
    first = _NUMBER_RE.match(words[0])
    if first is None and not (in_block and all(
            key(w) == PASS or is_vertex(key(w)) for w in words)):
        return None
    moves: list[str] = []
    number: int | None = None
    numbered = False  # right after a move number (or its colour)
    labels: dict[int, int] = {}
    label: int | None = None  # the colour written for the next move
    for raw in words:
        word = raw.strip(",;")
        match = _NUMBER_RE.match(word)
        if match is not None:
            if number is None and not moves:
                number = int(match.group(2))
            if match.group(1):  # "黒47": the colour of the move numbered
                label = _COLOUR_SIDE[match.group(1)]
            word = match.group(3)
            numbered = True
            if not word:
                continue
        if word.lower() in COLOUR_WORDS:
            # "47 黒 Q16", "47 B Q16": the number says whose move it is; the colour must
            # agree with it (J1, checked by the referee)
            label = _COLOUR_SIDE[word.lower()]
            continue
        glued = _GLUED_COLOUR_RE.match(word)
        if glued is not None:
            label = _COLOUR_SIDE[glued.group(0)]
        word = _GLUED_COLOUR_RE.sub("", word)  # "47 ●Q16", "47 黒Q16" alike
        if not is_move(word.lower()):
            return None
        if not numbered and _BARE_SGF_RE.match(word.lower()) and key(word) != PASS:
            return None  # "47 R14 ok": two bare letters are a move only after a number
        node = _SGF_NODE_RE.match(word.lower())
        if node is not None:  # "47 B[pd]": the node names its colour
            label = 0 if node.group(1) == "b" else 1
        if label is not None:
            labels[len(moves)] = label
        label = None
        numbered = False
        moves.append(word)
    if sides is not None:
        sides.update(labels)
    return moves, number


_SGF_START_RE = re.compile(r"\(\s*;")
_SGF_POINT_RE = re.compile(r"^(?:[a-s]{2})?$")


def _sgf_tokens(text: str) -> list[tuple[int, str, str]]:
    """(offset, kind, value) of an SGF game tree from its first ``(`` to the ``)`` that
    closes it: ``(``, ``)``, and each B or W property's value (a move: ``pd``, or "" for a
    pass). Property values are read whole, escaped brackets included, so that a comment
    (``C[a (long) game: ;W[aa] was bad]``) never adds a move or a branch."""
    found: list[tuple[int, str, str]] = []
    depth = 0
    ident = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "[":
            j = i + 1
            value: list[str] = []
            while j < n and text[j] != "]":
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                value.append(text[j])
                j += 1
            if ident in ("B", "W"):
                found.append((i, ident, "".join(value).strip()))
            i = j + 1
            continue
        if ch.isalpha():
            ident = ident + ch if i > 0 and text[i - 1].isalpha() else ch
        elif ch in "();":
            ident = ""
            if ch == "(":
                depth += 1
                found.append((i, "(", ""))
            elif ch == ")":
                depth -= 1
                found.append((i, ")", ""))
                if depth <= 0:
                    break
        elif not ch.isspace():
            ident = ""
        i += 1
    return found


def _sgf_record(lines: list[str]) -> RecordText | None:
    """A whole game pasted as SGF (``(;GM[1]...;B[pd];W[dc]...)``): its main line of
    moves from move 1 (the first variation at every branch), in order; an empty ``B[]``
    or ``tt`` is a pass; comments and other properties are skipped whole. None if the
    mail holds no SGF outside quoted lines."""
    start = next((i for i, line in enumerate(lines)
                  if not line.lstrip().startswith(">") and _SGF_START_RE.search(line)), None)
    if start is None:
        return None
    record = RecordText(first_line=start, last_line=start, first_ply=0)
    opening = _SGF_START_RE.search(lines[start])
    text = "\n".join([lines[start][opening.start() if opening else 0:], *lines[start + 1:]])
    depth = 0
    skipping: int | None = None  # the depth of a later variation being skipped
    followed: set[int] = set()  # depths where the main line already took a variation
    tokens = _sgf_tokens(text)
    for _, kind, value in tokens:
        if kind == "(":
            depth += 1
            if skipping is None:
                if depth in followed:
                    skipping = depth
                else:
                    followed.add(depth)
        elif kind == ")":
            if skipping == depth:
                skipping = None
            depth -= 1
        elif skipping is None and (value.lower() == "tt"
                                   or _SGF_POINT_RE.match(value.lower())):
            record.sides[len(record.tokens)] = 0 if kind == "B" else 1
            record.tokens.append(f"{kind}[{value.lower()}]")
    end = tokens[-1][0] if tokens else 0  # the tree's last ")" (or where it stopped)
    record.last_line = start + text[:end].count("\n")
    return record if record.tokens else None


def extract(text: str) -> RecordText:
    """The first block of record lines in a mail body (blank lines inside allowed), or a
    whole game pasted as SGF."""
    lines = text.splitlines()
    pasted = _sgf_record(lines)
    if pasted is not None:
        return pasted
    start: int | None = None
    record = RecordText()
    for index, line in enumerate(lines):
        labels: dict[int, int] = {}
        found = scan(line, start is not None, labels)
        if found is None:
            if start is not None and line.strip():
                break
            continue
        moves, number = found
        if start is not None and number == 1 and moves:
            break  # a record from move 1 again: another record, not more of this one
        if start is None:
            if not moves:
                continue
            start = index
            record.first_line = index
            record.first_ply = (number - 1) if number else 0
        record.sides.update((len(record.tokens) + k, side) for k, side in labels.items())
        record.tokens.extend(moves)
        record.last_line = index
        record.fullwidth = record.fullwidth or has_fullwidth(line)
    if record.tokens:
        return record
    passed = _keyword_pass(lines)
    return passed if passed.tokens else _lone_point(lines)


def _lone_point(lines: list[str]) -> RecordText:
    """A mail whose one move is a point alone on its line (``R14``), without its number:
    a record of that one move from move 1, which the referee answers with the numbered
    line to write (J1) unless it is the game's first move. Quoted lines never count;
    only a coordinate with its row (never two SGF letters, which English words are);
    a second such line makes it no record."""
    found: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        word = normalise(line).strip().rstrip(".。!！")
        if not line.lstrip().startswith(">") and is_vertex(key(word)):
            found.append((index, word))
    if len(found) != 1:
        return RecordText()
    [(index, word)] = found
    return RecordText(tokens=[word], first_line=index, last_line=index,
                      fullwidth=has_fullwidth(lines[index]))


def _keyword_pass(lines: list[str]) -> RecordText:
    """A mail with no record whose one move is ``pass`` / ``パス`` alone on a line, as a
    keyword is written (INTERFACE's keywords): the next move, no number needed. Quoted
    lines never count; a second such line makes it no record (what would it mean?)."""
    found: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        word = normalise(line).strip().rstrip(".。!！")
        if not line.lstrip().startswith(">") and word.lower() in ("pass", "パス"):
            found.append((index, word))
    if len(found) != 1:
        return RecordText()
    index, word = found[0]
    return RecordText(tokens=[word], next_move=True, first_line=index, last_line=index,
                      fullwidth=has_fullwidth(lines[index]))


def is_proposal(line: str) -> bool:
    """A conditional line: ``if 48 R16 then 49 R17`` / ``もし 48 R16 なら 49 R17``."""
    return _PROPOSAL_RE.match(normalise(line).strip()) is not None


def proposal_moves(line: str) -> tuple[list[str], int | None]:
    """The moves of a proposal line and the number written before its first move."""
    body = _PROPOSAL_RE.sub("", normalise(line).strip(), count=1)
    words = body.replace("なら", " ").replace("then", " ").replace("。", " ").split()
    moves: list[str] = []
    start: int | None = None
    pending: int | None = None
    for raw in words:
        word = raw.strip(",;")
        match = _NUMBER_RE.match(word)
        if match is not None and match.group(2):
            pending = int(match.group(2))
            word = match.group(3)
        if not word or not (is_move(word.lower()) or _POINT_START_RE.match(word)):
            continue  # a word around the moves (please, とします)
        # J16: a word that starts as a point (Q4x, Q44) but does not read stays in the line,
        # so that the line is refused naming it, never read without it ("no answer")
        if start is None:
            start = pending
        moves.append(word)
    return moves, start


_POINT_START_RE = re.compile(r"^[A-Ta-t]\d")
