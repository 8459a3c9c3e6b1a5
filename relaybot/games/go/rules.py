"""Go behind the GameRules protocol, on sgfmill (INTERFACE "Go moves", seed 004).

Side 0 is Black (黒), side 1 White (白). A canonical ply is a lower-case coordinate
(``q16``) or ``pass``; a position is a :class:`~relaybot.games.go.board.GoPosition`
saved as one line. Each ply is numbered on its own (``47 Q16``), and a mail carries the
new move with its number or the whole record (``record_policy = "numbered"``).

The end: resignation (the core's ``resign`` / ``投了``: ``W+R`` / ``B+R``); after two
passes each player states the result (``result B+3.5`` / ``結果 黒3目半勝ち``), the side
to move first: the same result ends the game, a different one goes to the TD, whose
``adjudicate ID RESULT`` settles it. Results keep their margins (``B+3.5``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from relaybot.core.ratings.go_salon import MAX_STONES
from relaybot.core.reasons import Reason
from relaybot.core.text import has_fullwidth, normalise
from relaybot.core.words import DEFAULT_MOVE_WORDS, MoveWords, ScoreWords
from relaybot.games.base import (
    Declared,
    GameRules,
    MoveError,
    Outcome,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
    Termination,
)
from relaybot.games.go import notation
from relaybot.games.go.board import (
    BLACK,
    PASS,
    SGF_LETTERS,
    WHITE,
    GoPosition,
    check,
    example_points,
    from_rc,
    load,
    new_position,
    save,
    to_rc,
)
from relaybot.games.go.record import board_svg, board_text, terms_text, write_sgf

KIND = "go"
COUNTED = "counted"  # termination of a result both players stated alike
SIDES = {"en": ("Black", "White"), "ja": ("黒", "白")}
SIDE_WORDS = {"black": BLACK, "b": BLACK, "黒": BLACK, "kuro": BLACK, "くろ": BLACK,
              "white": WHITE, "w": WHITE, "白": WHITE, "shiro": WHITE, "しろ": WHITE}
RESULT_WORD = "result"
# seed 004 section 2 (対局者の意志による記録外対局(白、黒片方のみでもよい)): either player
# may make the game free (unrecorded) at any time, by a line of its own
FREE_WORD = "free"
VOID_WORDS = ("void", "勝負なし", "no result", "no-result")
# how a TD's decided result says the game was lost (``W+F``, ``B+T``), as its ending
_DECIDED_HOW = {"T": Termination.TIME, "F": Termination.FORFEIT}
_PASS_WORD = re.compile(r"(?<![A-Za-z])pass(?![A-Za-z])")  # a pass in a record or a move


# a go score line: a drawn game is 持碁 (jigo), never chess's ドロー
_SCORE_WORDS = {
    "ja": ScoreWords(win={"other": "勝"}, draw={"other": "持碁"}, loss={"other": "敗"},
                     line="{who}の通算成績は {wins} {losses} {draws}。",
                     own="あなたの通算成績は {wins} {losses} {draws}。"),
    "en": ScoreWords(win={"one": "win", "other": "wins"}, draw={"one": "jigo", "other": "jigo"},
                     loss={"one": "loss", "other": "losses"},
                     line="{who}'s score: {wins}, {losses}, {draws}.",
                     own="Your score: {wins}, {losses}, {draws}."),
}

# a go move is a 着手 and is played with 打つ (a stone is put on the board), never chess's
# and shogi's 指し手 / 指す; English says move and play as for every game
_MOVE_WORDS = {
    "ja": MoveWords(noun="着手", past="打ちました", present="打ちます", te="打って",
                    plain="打つ", cannot="打てない", draw="持碁"),
    "en": DEFAULT_MOVE_WORDS["en"],
}


def _position(position: object) -> GoPosition:
    if isinstance(position, str):
        return load(position)
    if not isinstance(position, GoPosition):
        raise TypeError(f"not a go position: {type(position).__name__}")
    return position


def _numbered(texts: Sequence[str], first: int = 0) -> str:
    """``1 Q16  2 D4  3 Q3``: every ply with its number, ten to a line."""
    parts = [f"{first + i + 1} {text}" for i, text in enumerate(texts)]
    return "\n".join("  ".join(parts[k:k + 10]) for k in range(0, len(parts), 10))


def result_text(winner: int | None, margin: float | None, how: str = "R") -> str:
    """``B+3.5``, ``W+R``, ``jigo``."""
    if winner is None:
        return "jigo"
    if margin is None:
        return f"{'BW'[winner]}+{how or 'R'}"
    return f"{'BW'[winner]}+{margin:g}"


class GoRules:
    """Go on a 19, 13 or 9 board, with handicap and komi (seed 004's salon rules)."""

    kind = KIND
    record_format = "sgf"
    # INTERFACE: Black moves first, so --black is side 0 (White in a handicap game moves
    # first, which the start position says)
    colour_options = ("black", "white")
    # the salon's rules (seed 004) set no day limits of their own: the club's defaults,
    # a guide only (7): no loss on time; no J5 penalty (a move onto a stone is refused and
    # costs only its days, as J21)
    rule_set = RuleSet(bad_move_penalty=0, time_forfeit=False, no_result=True,
                       draw_offers=False, duration_limit=False,
                       result_words="B+3.5, W+R, jigo or void",
                       result_words_ja="B+3.5、W+R、持碁、勝負なし のような形")
    record_policy: RecordPolicy = "numbered"  # the new move with its number is enough
    display_notation = "coord"  # Q16
    keywords: Mapping[str, str] = MappingProxyType({
        RESULT_WORD: RESULT_WORD, "結果": RESULT_WORD,
        FREE_WORD: FREE_WORD, "free game": FREE_WORD, "unrecorded": FREE_WORD,
        "記録外": FREE_WORD, "記録外対局": FREE_WORD})

    # --- positions and plies ---------------------------------------------------
    def start(self) -> GoPosition:
        """An even 19x19 game with the salon's komi (5.5 from Black)."""
        return new_position()

    def setup(self, options: Mapping[str, str]) -> GoPosition:
        """A start position from ``game new``'s options: ``size`` (19, 13, 9),
        ``handicap`` (0, 2-9 stones), ``komi`` (SGF's KM: added to White), ``superko``,
        ``free`` (seed 004: a free game at the players' wish, which leaves the points)."""
        unknown = set(options) - {"size", "handicap", "komi", "superko", "free"}
        if unknown:
            raise ValueError(f"go has no option {', '.join(sorted(unknown))}")
        try:
            size = int(options.get("size", "19"))
            handicap = int(options.get("handicap", "0"))
            komi = float(options["komi"]) if options.get("komi") not in (None, "") else None
        except ValueError as exc:
            raise ValueError(f"go options: {exc}") from None
        if komi is not None and not math.isfinite(komi):
            raise ValueError(f"komi must be a number of points, not {options['komi']}")
        if komi is not None and (komi * 2) != int(komi * 2):
            raise ValueError(f"komi must be a whole or half point, not {komi}")
        if komi is not None and abs(komi) > size * size:
            # no result on this board can reach it: a typing slip (65 for 6.5)
            raise ValueError(f"komi {komi:g} is more than a {size}x{size} board's "
                             f"{size * size} points")
        yes = ("1", "true", "yes", "on")
        return new_position(size, 0 if handicap == 1 else handicap, komi,
                            superko=options.get("superko", "") in yes,
                            free=options.get("free", "") in yes)

    def replay(self, plies: Sequence[str], start: object | None = None) -> GoPosition:
        """The position after ``plies`` from ``start`` (a position or its saved text;
        an even 19x19 game when None)."""
        position = self.start() if start is None else _position(start).copy()
        for ply in plies:
            self.play(position, ply)
        return position

    def copy(self, position: object) -> GoPosition:
        """An independent copy."""
        return _position(position).copy()

    def save(self, position: object) -> str:
        """One line of text (see :func:`relaybot.games.go.board.save`)."""
        return save(_position(position))

    def load(self, saved: str) -> GoPosition:
        """A position from :meth:`save`'s text."""
        return load(saved)

    def play(self, position: object, ply: str) -> None:
        """Apply a canonical ply in place (ValueError, a MoveError, if it is illegal)."""
        board = _position(position)
        board.assign(check(board, self._point(board, ply, ply), ply))

    def terms_text(self, position: object, lang: str) -> str:
        """Komi, handicap stones, superko and a free game, in ``lang``."""
        return terms_text(_position(position), lang)

    def position_text(self, saved: str) -> str:
        """Go has no standard position string: the SGF record carries the game."""
        return ""

    def example_points(self, saved: str) -> dict[str, str]:
        """The points a player's mail gives as examples on this game's board (``Q16``
        and ``D4`` on 19x19, ``G7`` and ``C3`` on 9x9) and its last column."""
        return example_points(load(saved).size)

    def legal_plies(self, position: object) -> Iterator[str]:
        """``pass``, then every point where a stone may be played now (lazily: a
        proposal rarely answers more than the first few)."""
        board = _position(position)
        if board.counting:
            return
        yield PASS
        for row in range(board.size):
            for col in range(board.size):
                ply = from_rc(row, col, board.size)
                if self.is_legal(board, ply):
                    yield ply

    def is_legal(self, position: object, ply: str) -> bool:
        """Whether the canonical ``ply`` may be played now."""
        board = _position(position)
        try:
            check(board, self._point(board, ply, ply), ply)
        except MoveError:
            return False
        return True

    def to_move(self, position: object) -> int:
        """The side to move (or, after two passes, to state the result)."""
        return _position(position).to_move

    def ply_index(self, position: object) -> int:
        """Plies played since the start (handicap stones are not plies)."""
        return _position(position).ply

    def outcome(self, position: object) -> Outcome | None:
        """The board never ends a go game by itself: the players state the result."""
        return None

    def claimable_draw(self, position: object) -> str | None:
        """Go has no draw to claim."""
        return None

    def free_game(self, position: object) -> bool:
        """Seed 004 section 1: a 9x9 or 13x13 game, one of 7 stones or more, or one the
        players made free (``game new --free``) is a free game: the points stay as they
        were (it counts as a game, not in the win rate)."""
        board = _position(position)
        return board.free or board.size != 19 or board.handicap >= MAX_STONES

    def may_declare(self, position: object, side: int) -> bool:
        """On one's turn; and once both passed, either player may state the result
        first (a player who has stated waits for the other's statement)."""
        board = _position(position)
        return board.to_move == side or (board.counting and not board.claims[side])

    def any_time(self, name: str) -> bool:
        """Whether a game keyword may be written whoever is to move: making the game
        free (either player, at any time, seed 004 section 2)."""
        return name == FREE_WORD

    def declare(self, position: object, side: int, name: str) -> Outcome | Declared:
        """``result B+3.5`` / ``結果 黒3目半勝ち`` after both passed.

        The first statement is recorded and the other side is asked for theirs; the same
        result from both ends the game (termination ``counted``), different ones go to
        the TD (``to_td``) with the position.
        """
        board = _position(position)
        word, _, rest = name.partition(" ")
        if word == FREE_WORD:
            if self.free_game(board):
                raise MoveError("illegal", name, Reason.of("go_free_already"))
            return Declared(position=self.mark_free(board), note="made_free")
        if word != RESULT_WORD:
            raise MoveError("unreadable", name, Reason.of("no_declaration"))
        if not board.counting:
            raise MoveError("illegal", name, Reason.of("go_result_too_early"))
        stated = notation.read_result(rest)
        if stated is None or stated.how in ("T", "F"):
            raise MoveError("unreadable", rest or name, Reason.of("go_result_form"))
        text = result_text(stated.winner, stated.margin, stated.how)
        after = board.copy()
        after.claims[side] = text
        other = after.claims[1 - side]
        if other == text:
            if stated.winner is None:
                return Outcome(COUNTED, None, margin=0.0)
            return Outcome(COUNTED if stated.margin is not None else Termination.RESIGNATION,
                           stated.winner, margin=stated.margin)
        if after.first_claim is None:
            after.first_claim = side
        after.to_move = 1 - side
        return Declared(position=save(after), note="result_disputed" if other
                        else "result_stated", to_td=bool(other),
                        stated=(after.claims[0], after.claims[1]))

    # --- reading what players write ---------------------------------------------
    def normalise_text(self, text: str) -> tuple[str, bool]:
        """NFKC (full-width Ｑ１６ to Q16) and punctuation variants (J2)."""
        return normalise(text), has_fullwidth(text)

    def looks_like_move(self, token: str) -> bool:
        """A coordinate, an SGF point or a pass, in any case or width."""
        return notation.is_move(normalise(token).strip().lower())

    def extract_record(self, text: str) -> RecordText:
        """The first block of numbered record lines (see :mod:`.notation`)."""
        return notation.extract(text)

    def token_key(self, token: str) -> str:
        """``Q16``, ``q16``, ``Ｑ１６`` give ``q16``; ``pd``, ``B[pd]`` give ``pd``."""
        return notation.key(token)

    def ply_keys(self, position: object, ply: str) -> frozenset[str]:
        """A ply's coordinate and its SGF point (and ``tt`` for a pass on 19x19)."""
        size = _position(position).size
        if ply == PASS:
            return frozenset({PASS})
        sgf = notation.sgf_of_vertex(ply, size)
        return frozenset({ply, sgf} if sgf else {ply})

    def _point(self, position: GoPosition, key: str, token: str) -> str:
        """The canonical ply of a key on this board (MoveError if off the board)."""
        if key == PASS:
            return PASS
        if notation.is_i_column(key):
            raise MoveError("unreadable", token, Reason.of(
                "go_no_vertex", point=key.upper(), size=position.size))
        if notation.is_vertex(key):
            if notation.sgf_of_vertex(key, position.size) is None:
                raise MoveError("unreadable", token, Reason.of(
                    "go_no_vertex", point=key.upper(), size=position.size))
            return notation.sgf_of_vertex(key, position.size) or ""
        vertex = notation.vertex_of_sgf(key, position.size)
        if vertex is None:
            size = position.size
            if len(key) == 2 and key.isalpha():
                raise MoveError("unreadable", token, Reason.of(
                    "go_no_sgf_point", point=key, size=size, last=SGF_LETTERS[size - 1]))
            raise MoveError("unreadable", token, Reason.of(  # examples on this board
                "go_point_form", **example_points(size)))
        return notation.sgf_of_vertex(vertex, position.size) or ""

    def parse(self, position: object, token: str, letters: str = "en") -> str:
        """The canonical ply a player's token means here; MoveError if it is illegal."""
        board = _position(position)
        point = self._point(board, notation.key(token), token)
        check(board, point, token)
        return PASS if point == PASS else self._vertex(board, point)

    @staticmethod
    def _vertex(board: GoPosition, point: str) -> str:
        return notation.vertex_of_sgf(point, board.size) or point

    def standard_form(self, position: object, token: str, letters: str = "en") -> str | None:
        """Every accepted spelling is standard: nothing to mention."""
        return None

    def read_proposals(self, text: str, record: RecordText) -> list[ProposalLine]:
        """``if 48 R16 then 49 R17`` lines (J16)."""
        found: list[ProposalLine] = []
        for index, line in enumerate(text.splitlines()):
            if not notation.is_proposal(line):
                continue
            moves, start = notation.proposal_moves(line)
            if moves:
                found.append(ProposalLine(tokens=tuple(moves),
                                          start_ply=None if start is None else start - 1,
                                          line=index, lines=(index,),
                                          text=normalise(line).strip()))
        return found

    def proposal_lines(self, text: str) -> set[int]:
        """The lines starting with ``if`` or ``もし``."""
        return {i for i, line in enumerate(text.splitlines()) if notation.is_proposal(line)}

    def strip_proposals(self, text: str) -> str:
        """``text`` with its proposal lines blanked (line count unchanged)."""
        drop = self.proposal_lines(text)
        if not drop:
            return text
        return "\n".join("" if i in drop else line for i, line in enumerate(text.splitlines()))

    # --- writing what players read ----------------------------------------------
    def side_names(self, lang: str) -> tuple[str, str]:
        """Black and White, 黒 and 白."""
        return SIDES.get(lang, SIDES["en"])

    def side_of(self, word: str) -> int | None:
        """0 for ``black`` / ``黒``, 1 for ``white`` / ``白``, else None."""
        return SIDE_WORDS.get(normalise(word).strip().lower())

    def format_result(self, outcome: Outcome) -> str:
        """``B+3.5``, ``W+R`` (resignation), ``B+T`` (time), ``W+F`` (forfeit), ``jigo``;
        ``Void`` for a voided game, ``-`` when both lose."""
        if outcome.void:
            return "Void"
        if outcome.both_lose:
            return "-"
        if outcome.winner is None:
            return "jigo"
        how = {Termination.TIME: "T", Termination.FORFEIT: "F",
               Termination.WITHDRAWAL_LOST: "F"}.get(Termination(outcome.termination), "R") \
            if outcome.termination in set(Termination) else "R"
        return result_text(outcome.winner, outcome.margin, how)

    def parse_result(self, text: str, termination: str) -> Outcome | None:
        """A written result (``B+3.5``, ``W+R``, ``jigo``, ``黒3目半勝ち``) as an Outcome."""
        word = text.strip()
        if word.lower() in VOID_WORDS:  # seed 004 section 2: 勝負なし, counted for nothing
            return Outcome(termination, void=True)
        if word == "-":
            return Outcome(termination, both_lose=True)
        stated = notation.read_result(word)
        if stated is None:
            return None
        if stated.winner is None:
            return Outcome(termination, None, margin=0.0)
        if termination == Termination.ADJUDICATION and stated.how in _DECIDED_HOW:
            # a TD's ``W+F`` / ``B+T`` says how the game was lost; kept, the record would
            # read W+R (a resignation nobody made)
            termination = _DECIDED_HOW[stated.how]
        return Outcome(termination, stated.winner, margin=stated.margin)

    def result_text_words(self, text: str, lang: str) -> str:
        """A stored result in go's words for a reader of ``lang``: ``黒5目半勝ち``,
        ``白中押し勝ち``, ``持碁``, ``勝負なし`` in Japanese; ``B+5.5``, ``W+R``, ``jigo``,
        ``void`` in English. Text that is no go result stays as it is."""
        word = text.strip()
        if word.lower() in VOID_WORDS:
            return "勝負なし" if lang == "ja" else "void (no result)"
        stated = notation.read_result(word)
        if stated is None:
            return text
        if lang != "ja":
            return result_text(stated.winner, stated.margin, stated.how)
        if stated.winner is None:
            return "持碁"
        side = SIDES["ja"][stated.winner]
        if stated.margin is None:
            how = {"T": "時間切れ勝ち", "F": "不戦勝"}.get(stated.how or "R", "中押し勝ち")
            return f"{side}{how}"
        whole, half = int(stated.margin), stated.margin % 1 == 0.5
        if whole == 0:
            return f"{side}半目勝ち"
        return f"{side}{whole}目{'半' if half else ''}勝ち"

    def move_label(self, ply: int, text: str) -> str:
        """``47 Q16``: every ply has its own number."""
        return f"{ply + 1} {text}"

    def move_number(self, ply: int, lang: str = "en") -> str:
        """``47手目`` (``move 47`` in English) for the 0-based ply 46."""
        return f"{ply + 1}手目" if lang == "ja" else f"move {ply + 1}"

    def format_proposal(self, position: object, plies: Sequence[str], notation_: str,
                        letters: str = "en", lang: str = "en") -> str:
        """``if 48 R16 then 49 R17`` (``もし ... なら ...``), up to its first illegal ply."""
        board = self.copy(position)
        parts: list[str] = []
        for k, ply in enumerate(plies):
            if not self.is_legal(board, ply):
                break
            if k == 1:
                parts.append("なら" if lang == "ja" else "then")
            parts.append(self.move_label(board.ply, ply.upper() if ply != PASS else PASS))
            self.play(board, ply)
        return ("もし " if lang == "ja" else "if ") + " ".join(parts)

    def format_record(self, plies: Sequence[str], notation_: str, letters: str = "en") -> str:
        """``1 Q16  2 D4 ...`` (ten to a line)."""
        return _numbered([p if p == PASS else p.upper() for p in plies])

    def format_ply(self, position: object, ply: str, notation_: str, letters: str = "en") -> str:
        """``Q16`` or ``pass``."""
        return ply if ply == PASS else ply.upper()

    def localise(self, text: str, lang: str) -> str:
        """Moves as a reader of ``lang`` reads them (``core.game.moves_in``): a pass is
        パス in Japanese, which the bot reads back as well."""
        return _PASS_WORD.sub("パス", text) if lang == "ja" else text

    def format_stored(self, moves: Sequence[tuple[str, str]], notation_: str,
                      letters: str = "en") -> str:
        """The numbered record from stored (ply, text) pairs, without replaying."""
        return _numbered([text or ply.upper() for ply, text in moves])

    def stored_move_text(self, canon: str, text: str, notation_: str, letters: str = "en") -> str:
        """The coordinate as stored (``Q16``)."""
        return text or (canon if canon == PASS else canon.upper())

    def board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """The board, the last move marked, captures, komi and whose turn (ja/en). Go
        boards are read from one side by both players (rows numbered from the bottom),
        so ``viewer`` changes nothing: the coordinates stay where the moves name them."""
        return board_text(_position(position), lang)

    def score_words(self, lang: str) -> ScoreWords:
        """A go score line: 勝, 敗 and 持碁 (a jigo), never chess's ドロー or draw."""
        return _SCORE_WORDS.get(lang, _SCORE_WORDS["en"])

    def move_words(self, lang: str) -> MoveWords:
        """A go move's words: 着手, 打ちました, 打って ..., never chess's 指し手 / 指す."""
        return _MOVE_WORDS.get(lang, _MOVE_WORDS["en"])

    def states_result(self, position: object) -> bool:
        """Both players passed: the board asks each side for the result (no move is
        legal any more), so a mail asks for no move."""
        return _position(position).counting

    def stated_results(self, position: object) -> tuple[str, str]:
        """The result each side stated after both passed (``B+3.5``; "" not yet),
        Black's first: the same from both ends the game, different ones go to the TD."""
        board = _position(position)
        return board.claims[0], board.claims[1]

    def final_board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """A finished game's board: as :meth:`board_text`, without whose turn it is or
        the call to state the result."""
        return board_text(_position(position), lang, over=True)

    def board_svg(self, position: object, viewer: int = 0) -> str:
        """The board as a small SVG."""
        return board_svg(_position(position))

    def board_png(self, position: object, viewer: int = 0) -> bytes:
        """The board as a PNG picture for mail (with coordinates; the same from either
        seat, as :meth:`board_text`), drawn with Pillow in a millisecond or two."""
        # here: Pillow loads with the first picture, not with the game
        from relaybot.games.go import picture as _picture

        return _picture.board_png(_position(position), viewer)

    def write_record(self, info: RecordInfo, fmt: str = "") -> str:
        """The game as SGF (FF[4]): PB PW BR WR HA AB KM RE DT and the moves."""
        if fmt not in ("", "sgf"):
            raise ValueError(f"go records are written as sgf, not {fmt}")
        start = self.start_of(info.position) if info.position else self.start()
        return write_sgf(info, start)

    def stone_at(self, position: object, point: str) -> int | None:
        """The side whose stone is on the SGF ``point`` (for tests and views)."""
        board = _position(position)
        row, col = to_rc(point, board.size)
        colour = board.board.get(row, col)
        return None if colour is None else "bw".index(colour)

    def mark_free(self, position: object) -> str:
        """The saved position with the game made free (seed 004 section 2: 対局者の意志
        による記録外対局, at either player's wish): the points stay as they were."""
        board = _position(position).copy()
        board.free = True
        return save(board)

    def start_of(self, position: object) -> GoPosition:
        """The game's start (size, komi, handicap stones) from any of its positions."""
        board = _position(position)
        return new_position(board.size, board.handicap, board.komi, board.superko,
                            board.free)


RULES = GoRules()


def as_game_rules(rules: GoRules) -> GameRules:
    """Typed proof (mypy) that :class:`GoRules` satisfies the protocol."""
    return rules


__all__ = ["COUNTED", "KIND", "RULES", "GoRules", "as_game_rules", "result_text"]
