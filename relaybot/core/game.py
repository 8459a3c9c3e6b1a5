"""The one protocol every game implements, and the values it trades in.

The core (referee, conditional moves) and the shells only ever talk to a game
through :class:`GameRules`; a game is a package under ``relaybot/games/`` found by
name through ``relaybot.games.registry``. Plies are short canonical strings the game
defines (UCI for chess); positions are opaque objects owned by the game, saved as
text (FEN for chess). Results are :class:`Outcome` values; each game writes its own
result string (``1-0`` in chess) from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any, Literal, Protocol

from relaybot.core.reasons import Reason, say

MoveErrorKind = Literal["illegal", "ambiguous", "unreadable"]
RecordPolicy = Literal["full", "numbered"]


class MoveError(ValueError):
    """A player's move text that cannot be applied (J5).

    ``kind`` is ``illegal`` (no such legal move), ``ambiguous`` (two pieces of
    the same kind can legally reach the square, J4) or ``unreadable``; ``candidates``
    are an ambiguous move's legal readings, written as the game writes moves.
    ``why`` says why as a value (:class:`relaybot.core.reasons.Reason`) that the reply
    says in its reader's language; a plug-in may give a plain English ``detail``
    instead, which only an English reply shows.
    """

    def __init__(self, kind: MoveErrorKind, token: str, detail: str | Reason = "", *,
                 candidates: tuple[str, ...] = ()) -> None:
        self.why: Reason | None = detail if isinstance(detail, Reason) else None
        # the reason in English: the exception's message, the logs, an English reply
        self.detail = say(detail, "en") if isinstance(detail, Reason) else detail
        super().__init__(f"{kind} move: {token!r}"
                         + (f" ({self.detail})" if self.detail else ""))
        self.kind: MoveErrorKind = kind
        self.token = token
        # an ambiguous move's legal readings as the game writes them, for the reply to
        # name (shogi: ５二金右、５二金左); empty where the game gives only a hint
        self.candidates = candidates


class Termination(StrEnum):
    """How a game ended. The values are what the store keeps in ``games.termination``."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    SEVENTYFIVE_MOVES = "seventyfive_moves"
    FIVEFOLD_REPETITION = "fivefold_repetition"
    THREEFOLD = "threefold"
    FIFTY_MOVES = "fifty_moves"
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"
    TIME = "time"
    FORFEIT = "forfeit"
    ADJUDICATION = "adjudication"
    WITHDRAWAL_LOST = "withdrawal_lost"
    WITHDRAWAL_VOID = "withdrawal_void"


@dataclass(frozen=True)
class Outcome:
    """A game's result as a value: how it ended and who won.

    ``winner`` is the side index (0 or 1) or None; with no winner the game is a
    draw unless ``both_lose`` (shogi league: both forfeit) or ``void`` (a withdrawal
    the TD voids: no score). ``margin``: a counted game's winning margin (go). Each game
    formats it (``GameRules.format_result``).
    """

    termination: str
    winner: int | None = None
    both_lose: bool = False
    void: bool = False
    margin: float | None = None  # go: the points won by (``B+3.5``); None: not counted

    @classmethod
    def win(cls, termination: str, winner: int) -> Outcome:
        """Side ``winner`` won."""
        return cls(termination, winner)

    @classmethod
    def loss(cls, termination: str, loser: int) -> Outcome:
        """Side ``loser`` lost (resigned, forfeited, ran out of time)."""
        return cls(termination, 1 - loser)

    @classmethod
    def draw(cls, termination: str) -> Outcome:
        """Neither side won."""
        return cls(termination)

    @property
    def is_draw(self) -> bool:
        """A draw (not a void game, not both losing)."""
        return self.winner is None and not self.both_lose and not self.void

    def points(self, side: int) -> float:
        """Game points of ``side``: 1 a win, 0.5 a draw, 0 a loss, a void or both losing."""
        if self.winner is not None:
            return 1.0 if side == self.winner else 0.0
        return 0.5 if self.is_draw else 0.0


@dataclass
class RecordText:
    """The move record found in a mail body.

    ``tokens`` are the move texts in order (move numbers and results removed);
    ``result`` is a trailing result marker if the player wrote one;
    ``variations`` are parenthesised lines written after a move, as raw token
    lists keyed by the index of the token they follow (for conditional moves).
    ``fullwidth`` is True when NFKC normalisation changed the text (J2).
    ``first_ply`` is the 0-based ply of the first token as its written number says: 0
    for a record from move 1; a game whose ``record_policy`` is ``numbered`` (shogi,
    go) accepts a mail that starts later (the new move with its number).
    ``next_move``: the one token is the next move, whatever the record's length: a move a
    game reads as a keyword alone on a line, with no number (go's ``pass`` / ``パス``).
    ``sides``: the side a token's written label names, by the token's index (go's
    ``黒2 D4`` / ``2 W D4``, shogi's ▲ △), for the moves that carry one; the referee
    checks it against the side whose move that ply is (J1).
    """

    tokens: list[str] = field(default_factory=list)
    first_ply: int = 0
    next_move: bool = False
    sides: dict[int, int] = field(default_factory=dict)
    result: str | None = None
    variations: dict[int, list[list[str]]] = field(default_factory=dict)
    fullwidth: bool = False
    first_line: int = -1
    last_line: int = -1


@dataclass(frozen=True)
class ProposalLine:
    """One proposed line as written (J16), not yet checked.

    ``tokens`` start with the opponent's predicted reply and alternate
    predicted / answer. ``start_ply`` is the 0-based ply the written move number
    names, as the game counts moves (None when none was written). ``line`` indexes
    ``text.splitlines()`` where the proposal starts (for a variation: the record's last line);
    ``lines`` are all lines it used; ``text`` is the proposal as written
    (normalised), for relaying it (J18).
    """

    tokens: tuple[str, ...]
    start_ply: int | None = None
    source: Literal["text", "variation"] = "text"
    line: int = -1
    lines: tuple[int, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class RuleSet:
    """The rules a game of this kind follows unless the operator's options say otherwise
    (INTERFACE ``game new``: chess the JCCA rules, seed 000; shogi the net league's, seed
    002). ``bad_move_penalty``: days a wrong move costs its sender (J5: 5 in JCCA chess;
    the shogi league counts only the days until the correction, seed 002 rule 17, J21)."""

    time_control: str = "10/30"
    grace: int = 1  # J7
    leave: bool = True  # J12
    conditionals: str = "binding"  # J16
    bad_move_penalty: int = 5  # J5
    both_lose: bool = False  # a TD may rule that both lose (the shogi league's J14)
    # an overrun may lose the game (--overrun forfeit); seed 004 7): go's days are only
    # a guide to progress, 時間切れ負け等の扱いはしない
    time_forfeit: bool = True
    # the TD may end a game with no result at all (seed 004 section 2: 勝負なし, counted
    # for nothing): ``adjudicate ID void``
    no_result: bool = False
    result_words: str = "1-0, 0-1 or 1/2-1/2"  # what a TD writes as a result (INTERFACE)
    result_words_ja: str = "1-0、0-1、1/2-1/2 のいずれか"  # the same, for a Japanese mail
    # a player may offer a draw ("draw?") and the opponent accept it; go has none: a game
    # ends by resignation, or both pass and state the result (a jigo too)
    draw_offers: bool = True
    # J14 (seed 000 rule 19): the game ends 24 months after its start and goes to the TD;
    # the go salon's rules (seed 004) set no such limit: a long go game plays on
    duration_limit: bool = True


@dataclass(frozen=True)
class RecordInfo:
    """What a game's record file (PGN, KIF, SGF) says besides the moves."""

    event: str
    site: str
    start: date
    round: str
    players: tuple[str, str]  # side 0, side 1
    ratings: tuple[int | None, int | None]
    result: str  # as the game writes it; "" while unfinished
    end: date | None
    moves: Sequence[tuple[str, str]]  # (canonical ply, the day it was sent, ISO) in order
    termination: str = ""  # how it ended (Outcome.termination); "" while unfinished
    position: str = ""  # the game's saved position now (go: it carries size, komi, stones)
    # False: the federation's report form (chess: JCCA, J15); True: the headers programs
    # reading the format expect (PGN: TimeControl, Termination, EventDate, WhiteElo, ...)
    standard: bool = False
    time_control: str = ""  # the bot's own notation ("10/30", "bank:20")
    event_date: date | None = None  # the event's start


@dataclass(frozen=True)
class Declared:
    """What a game keyword did without ending the game (go: one player's stated result).

    ``position``: the saved position after it (kept with the game); ``note`` names what
    happened for the mails (``result_stated``, ``result_disputed``); ``to_td``: the TD
    must decide now (go: the two stated results differ).
    """

    position: str
    note: str = ""
    to_td: bool = False
    stated: tuple[str, str] = ("", "")  # what each side has declared so far, as written


@dataclass(frozen=True)
class Progress:
    """How far a game has gone, as its players count moves.

    ``move``: the number of the last move played (0: none yet). Chess gives White's move
    and Black's answer one number (after ``3. Bb5`` and after ``3... Nf6`` it is 3);
    shogi and go give every ply its own (6 after 6 plies). ``side``: who played that
    last move where one number covers a move of each side (chess: 1, Black, after
    ``3... Nf6``); None where the number alone says how far the game is.
    """

    move: int = 0
    side: int | None = None


def progress_of(rules: GameRules, plies: int) -> Progress:
    """How far a game of ``plies`` plies has gone as its players count moves. A game
    that numbers moves otherwise than one a ply (chess: a number for each pair) says so
    with an optional ``progress(plies) -> Progress``; any other counts a move a ply."""
    if plies <= 0:
        return Progress()
    own = getattr(rules, "progress", None)
    if own is not None:
        said = own(plies)
        if isinstance(said, Progress):
            return said
    return Progress(plies)


def waits_for_result(rules: GameRules, position: Any) -> bool:
    """Whether a game at ``position`` waits for its players to state the result rather
    than for a move (go after both passed); a game tells with an optional
    ``states_result(position)``, any other always waits for a move."""
    states = getattr(rules, "states_result", None)
    return states is not None and bool(states(position))


def stated_results(rules: GameRules, position: Any) -> tuple[str, str]:
    """The result each side has stated while the game waits for the players to state it
    (:func:`waits_for_result`), in the TD's words (``B+3.5``; "" for a side that has not
    yet); a game tells with an optional ``stated_results(position)``, any other has
    none. Two different statements go to the TD."""
    stated = getattr(rules, "stated_results", None)
    if stated is None:
        return "", ""
    first, second = stated(position)
    return str(first), str(second)


def waits_for_td(rules: GameRules, position: Any) -> bool:
    """Whether a game at ``position`` waits for the TD alone: go after both players
    stated results that differ (the TD was sent both). Nobody is silent then, so no
    reminder or escalation runs (J11) and no mail asks a player for anything."""
    if not waits_for_result(rules, position):
        return False
    first, second = stated_results(rules, position)
    return bool(first and second) and first != second


def own_move_number(rules: GameRules, own_moves: int, moves_first: bool) -> int:
    """The number a game's players give a side's ``own_moves``-th move (J8: a time
    control's move counts each side's own moves). Chess numbers a move of each side
    alike (White's and Black's 10th are both move 10); shogi and go number every ply,
    so the 10th move of the side that moves first is move 19, of the other move 20."""
    if own_moves <= 0:
        return 0
    return progress_of(rules, 2 * own_moves - (1 if moves_first else 0)).move


def start_of(rules: GameRules, position: str) -> Any:
    """The start position of the game whose saved position is ``position``.

    A game whose start is not always the same (go: board size, komi, handicap stones)
    says so with a ``start_of(position)`` method; any other game starts at ``start()``.
    """
    own = getattr(rules, "start_of", None)
    return own(position) if own is not None else rules.start()


def first_mover(rules: GameRules, position: str) -> int:
    """The side that makes ply 0 of the game whose saved position is ``position`` (1
    where the game starts with side 1: White in a handicap go game)."""
    return rules.to_move(start_of(rules, position))


def replay_from(rules: GameRules, position: str, plies: Sequence[str]) -> Any:
    """The position after ``plies`` of the game whose saved position is ``position``."""
    if getattr(rules, "start_of", None) is None:
        return rules.replay(plies)  # chess keeps its move history this way (threefold)
    board = start_of(rules, position)
    for ply in plies:
        rules.play(board, ply)
    return board


def setup_position(rules: GameRules, options: Mapping[str, str]) -> Any:
    """A game's start with ``game new``'s game options (go: ``size``, ``handicap``,
    ``komi``); ValueError when the game takes no options or refuses one."""
    if not options:
        return rules.start()
    own = getattr(rules, "setup", None)
    if own is None:
        raise ValueError(f"{rules.kind} takes no {', '.join(sorted(options))} option")
    return own(options)


def written_text(rules: GameRules, position: Any, ply: str, token: str, notation: str) -> str:
    """How the record keeps a ply the player wrote as ``token``: the player's own form
    where the game keeps it (shogi ``５八金直`` though ``５八金上`` names it too, through
    an optional ``written_form(position, ply, token) -> str | None``), else the game's
    ``format_ply``. ``position`` is before the ply."""
    own = getattr(rules, "written_form", None)
    if own is not None and token:
        kept = own(position, ply, token)
        if kept:
            return str(kept)
    return rules.format_ply(position, ply, notation)


def moves_in(rules: GameRules, text: str, lang: str) -> str:
    """Moves or a record as a reader of ``lang`` reads them. A game may word some moves
    in each language (go: a pass is パス in Japanese, issue 15) through an optional
    ``localise(text, lang)``; without it the text is the notation, the same for all."""
    own = getattr(rules, "localise", None)
    return str(own(text, lang)) if own is not None else text


def board_in(rules: GameRules, position: object, lang: str, viewer: int = 0,
             over: bool = False) -> str:
    """The board as text for a reader of ``lang`` from ``viewer``'s side; once the game
    is ``over``, through the game's optional ``final_board_text(position, lang, viewer)``,
    which leaves out whose move it is (nobody's in a finished game)."""
    final = getattr(rules, "final_board_text", None)
    if over and final is not None:
        return str(final(position, lang, viewer))
    return rules.board_text(position, lang, viewer)


def result_in(rules: GameRules, text: str, lang: str) -> str:
    """A stored result (the TD's words, ``1-0``, ``B+5.5``) as a reader of ``lang`` reads
    it, in the game's own words. A game words its stored results through an optional
    ``result_text_words(text, lang)`` (go: ``B+5.5`` is 黒5目半勝ち, which an outcome alone
    does not carry), else through its optional ``result_words(outcome, lang)`` on the
    result read back (shogi: 先手の勝ち); without either, as stored."""
    if not text:
        return text
    by_text = getattr(rules, "result_text_words", None)
    if by_text is not None:
        return str(by_text(text, lang))
    by_outcome = getattr(rules, "result_words", None)
    if by_outcome is not None:
        try:
            outcome = rules.parse_result(text, "")
        except (ValueError, KeyError):
            outcome = None
        if outcome is not None:
            said = by_outcome(outcome, lang)
            if said:
                return str(said)
    return text


class GameRules(Protocol):
    """What the core and the shells need from a game."""

    kind: str
    record_format: str  # "pgn" for chess, "kif" for shogi: what ``write_record`` writes by default
    # the CLI's colour options for side 0 and side 1 (``--white``/``--black``): chess
    # ("white", "black"); shogi ("black", "white"): ``--black`` is 先手, side 0, first to move
    colour_options: tuple[str, str]
    rule_set: RuleSet  # the defaults of a new game of this kind
    record_policy: RecordPolicy  # "full": every mail carries the game from move 1 (J1)
    display_notation: str  # the notation the store's move texts are in ("san" for chess)

    @property
    def keywords(self) -> Mapping[str, str]:
        """The game's own keywords: a line as players write it (NFKC, lower case) -> its
        name (shogi's 入玉宣言); decided by :meth:`declare`."""

    # --- positions and plies ---------------------------------------------------
    def start(self) -> Any:
        """A new initial position."""

    def replay(self, plies: Sequence[str]) -> Any:
        """The position after the stored canonical plies."""

    def copy(self, position: Any) -> Any:
        """An independent copy of ``position``."""

    def save(self, position: Any) -> str:
        """The position as text for the store (FEN for chess)."""

    def load(self, saved: str) -> Any:
        """A position back from ``save``'s text (no move history)."""

    def terms_text(self, position: Any, lang: str) -> str:
        """The terms a game was started on, in ``lang``, for its page ("" when the
        game's rules say all: go gives komi, handicap stones, superko, a free game)."""

    def position_text(self, saved: str) -> str:
        """The standard position string a reader's program takes (chess FEN, shogi SFEN)
        of ``save``'s text; "" for a game that has none (go: the SGF record serves)."""

    def play(self, position: Any, ply: str) -> None:
        """Apply a canonical ply to ``position`` in place (ValueError if illegal)."""

    def is_legal(self, position: Any, ply: str) -> bool:
        """Whether the canonical ``ply`` is legal in ``position``."""

    def to_move(self, position: Any) -> int:
        """The side to move (0 or 1), of a position or of ``save``'s text."""

    def legal_plies(self, position: Any) -> Iterable[str]:
        """Every legal ply of the side to move, canonical, lazily where that is cheaper
        (a proposed mating line must answer each of them, J16)."""

    def ply_index(self, position: Any) -> int:
        """0-based index of the next ply in the game (from the position itself)."""

    def outcome(self, position: Any) -> Outcome | None:
        """The result if the board itself ends the game."""

    def claimable_draw(self, position: Any) -> str | None:
        """A draw the side to move may claim now (chess: threefold, fifty moves)."""

    def declare(self, position: Any, side: int, name: str) -> Outcome | Declared:
        """What the game keyword ``name`` (one of ``keywords``' values, then any words
        written after it on its line) from ``side`` ends the game with, or a
        :class:`Declared` when it only records something; MoveError when the game does
        not allow it now."""

    def free_game(self, position: Any) -> bool:
        """Whether a finished game of this position leaves the players' ratings as they
        were (go: seed 004's free games, on a small board or with 7 stones or more)."""

    def may_declare(self, position: Any, side: int) -> bool:
        """Whether ``side`` may make a declaration now: on its turn, and in go also while
        the result is being stated, since either player may state it first."""

    # --- reading what players write ---------------------------------------------
    def normalise_text(self, text: str) -> tuple[str, bool]:
        """A mail body cleaned for move reading, and whether it held full-width text."""

    def looks_like_move(self, token: str) -> bool:
        """Whether ``token`` could be a move in any notation the game accepts."""

    def extract_record(self, text: str) -> RecordText:
        """Find the move record in a mail body."""

    def token_key(self, token: str) -> str:
        """A player's token reduced to a comparison key (no position needed)."""

    def ply_keys(self, position: Any, ply: str) -> frozenset[str]:
        """All keys a correctly written token for ``ply`` may reduce to."""

    def parse(self, position: Any, token: str, letters: str = "en") -> str:
        """The canonical ply a player's token means here; raises MoveError."""

    def standard_form(self, position: Any, token: str, letters: str = "en") -> str | None:
        """How ``token`` is written in the standard form, when the rules accept the
        player's form but want it mentioned (chess J3: ``5758(1)`` is ``57581``)."""

    def read_proposals(self, text: str, record: RecordText) -> list[ProposalLine]:
        """Conditional proposals written in a mail (J16)."""

    def proposal_lines(self, text: str) -> set[int]:
        """Indices of the lines of ``text`` that hold proposals."""

    def strip_proposals(self, text: str) -> str:
        """``text`` with its proposals blanked (so they are not read as the record)."""

    # --- writing what players read ----------------------------------------------
    def side_names(self, lang: str) -> tuple[str, str]:
        """The two sides' names in ``lang`` (White/Black, 先手/後手, ...)."""

    def side_of(self, word: str) -> int | None:
        """The side a TD or operator names (``white``, ``黒``, ...), else None."""

    def format_result(self, outcome: Outcome) -> str:
        """The result as the game writes it (``1-0``, ``1/2-1/2``, ``*``)."""

    def parse_result(self, text: str, termination: str) -> Outcome | None:
        """A written result (a TD's ``adjudicate``, a stored one) as an Outcome."""

    def move_label(self, ply: int, text: str) -> str:
        """A ply with its number as players read it (``12. Nf3``, ``12... Nf6``)."""

    def move_number(self, ply: int, lang: str = "en") -> str:
        """The number of a ply as a reader of ``lang`` names it (chess ``3.``, ``3...``;
        shogi ``15手目`` / ``move 15``)."""

    def format_proposal(self, position: Any, plies: Sequence[str], notation: str,
                        letters: str = "en", lang: str = "en") -> str:
        """A conditional line from ``position`` as players write it (``if 3... Bc5 then
        4. c3``, ``もし ... なら ...``), up to its first ply that is not legal."""

    def format_record(self, plies: Sequence[str], notation: str, letters: str = "en") -> str:
        """The whole game as text in a player's notation."""

    def format_ply(self, position: Any, ply: str, notation: str, letters: str = "en") -> str:
        """One ply in a player's notation, from ``position`` (before the ply)."""

    def format_stored(self, moves: Sequence[tuple[str, str]], notation: str,
                      letters: str = "en") -> str:
        """The record from stored (canonical, display text) pairs, without replaying."""

    def stored_move_text(self, canon: str, text: str, notation: str, letters: str = "en") -> str:
        """One stored ply in a reader's notation, without a position."""

    def board_text(self, position: Any, lang: str, viewer: int = 0) -> str:
        """A plain-text board diagram (of a position or of ``save``'s text), from side
        ``viewer``'s seat where the game turns the board for its reader (shogi)."""

    def board_svg(self, position: Any, viewer: int = 0) -> str:
        """The board as an SVG image, seen from side ``viewer``'s seat."""

    def write_record(self, info: RecordInfo, fmt: str = "") -> str:
        """The game's record file from ``info``: ``record_format`` by default, or another
        format the game writes (shogi: ``csa``); ValueError for one it does not."""
