"""Shogi behind the :class:`~relaybot.games.base.GameRules` protocol (python-shogi).

Side 0 is 先手 (sente, ``--black``), who moves first; side 1 is 後手. Canonical plies
are USI (``7g7f``, ``P*5e``, ``8h2b+``); a position is :class:`.position.Position`,
saved as ``SFEN|last square|repetition keys``. The league's rules are seed 002's:
千日手 and 持将棋 are draws (0.5 each, no replay: rule 15), the 入玉 declaration counts
24 points (大駒 5, 小駒 1, the king not counted), a mail carries the new move with its
number or the whole record.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from relaybot.core.reasons import Reason
from relaybot.core.words import DEFAULT_MOVE_WORDS, DEFAULT_SCORE_WORDS, MoveWords, ScoreWords
from relaybot.games.base import (
    MoveError,
    Outcome,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
    Termination,
)
from relaybot.games.shogi import kif as _kif
from relaybot.games.shogi import notation as _nt
from relaybot.games.shogi import position as sp
from relaybot.games.shogi import record as _record

SIDES = {"en": ("Sente", "Gote"), "ja": ("先手", "後手")}
SIDE_WORDS = {"sente": 0, "先手": 0, "先": 0, "▲": 0, "black": 0, "b": 0,
              "gote": 1, "後手": 1, "後": 1, "△": 1, "white": 1, "w": 1}
# INTERFACE "TD commands": shogi RESULT words, English and Japanese
_WINS = {"sente": 0, "先手勝ち": 0, "先手の勝ち": 0, "先手": 0, "1-0": 0,
         "gote": 1, "後手勝ち": 1, "後手の勝ち": 1, "後手": 1, "0-1": 1}
_DRAWS = frozenset({"draw", "引き分け", "引分け", "引分", "千日手", "持将棋", "1/2-1/2"})
_BOTH_LOSE = frozenset({"both-lose", "both lose", "両者負け", "0-0"})
DECLARE = "nyugyoku"
# how a reader says a shogi result and its ending (issue 26): the store keeps 1-0, ...
_RESULT_WORDS = {
    "ja": {"sente": "先手の勝ち", "gote": "後手の勝ち", "sennichite": "千日手",
           "jishogi": "持将棋", "draw": "引き分け", "both_lose": "両者負け", "void": "無効"},
    "en": {"sente": "Sente wins", "gote": "Gote wins", "sennichite": "Sennichite (千日手)",
           "jishogi": "Jishogi (持将棋)", "draw": "Draw", "both_lose": "Both lose",
           "void": "Void"},
}
_TERMINATION_WORDS = {
    "ja": {"checkmate": "詰み", "resignation": "投了",
           "sennichite": "引き分け、指し直しなし",
           "perpetual_check": "連続王手の千日手、王手をかけた側の負け",
           "jishogi": "引き分け、指し直しなし",
           DECLARE: "入玉宣言（24点法）", "time": "持ち日数切れ", "agreement": "合意",
           "forfeit": "不戦敗（TDの裁定）", "withdrawal_lost": "棄権による不戦敗"},
    "en": {"checkmate": "checkmate", "resignation": "resignation",
           "sennichite": "the same position four times: a draw, not replayed",
           "perpetual_check": "perpetual check: the checking side loses",
           "jishogi": "both kings entered, 24 points or more each: a draw, not replayed",
           DECLARE: "entering-king declaration, 24 points", "time": "out of days",
           "agreement": "by agreement", "withdrawal_lost": "lost by withdrawal"},
}
_SCORE_WORDS = {
    "ja": ScoreWords(win={"other": "勝"}, draw={"other": "引き分け"}, loss={"other": "敗"},
                     line="{who}の通算成績は {wins} {losses} {draws}。",
                     own="あなたの通算成績は {wins} {losses} {draws}。"),
    "en": DEFAULT_SCORE_WORDS["en"],
}
NYUGYOKU_POINTS = 24  # seed 002 rule 15: fewer than 24 points loses


def _pos(position: object) -> sp.Position:
    if isinstance(position, str):
        return sp.load(position)
    if not isinstance(position, sp.Position):
        raise TypeError(f"not a shogi position: {type(position).__name__}")
    return position


# shogi's players 指す a 指し手 as chess players do; a drawn game is 引き分け (千日手,
# 持将棋), not chess's ドロー
_MOVE_WORDS = {"ja": replace(DEFAULT_MOVE_WORDS["ja"], draw="引き分け"),
               "en": DEFAULT_MOVE_WORDS["en"]}


class ShogiRules:
    """Shogi (本将棋, 平手) for mail play under seed 002's rules."""

    kind = "shogi"
    record_format = "kif"
    record_policy: RecordPolicy = "numbered"  # the new move with its number is enough
    display_notation = "ja"  # Move.text holds ▲７六歩
    colour_options = ("black", "white")  # INTERFACE: --black is 先手 and moves first
    # seed 002: 20 days in all (rule 9), counted from the day after next (J7 grace 2), no
    # pause (rule 10), proposals the opponent may ignore (rule 16), and a wrong move costs
    # only the days until its correction (rule 17, J21): no J5 penalty
    rule_set = RuleSet(time_control="bank:20", grace=2, leave=False, conditionals="optional",
                       bad_move_penalty=0, both_lose=True,
                       result_words="sente, gote, draw or both-lose "
                                    "(先手勝ち, 後手勝ち, 引き分け, 両者負け)",
                       result_words_ja="先手勝ち、後手勝ち、引き分け、両者負け のいずれか")
    # INTERFACE "Keywords": shogi adds 入玉宣言 (the 24-point declaration)
    keywords: Mapping[str, str] = MappingProxyType(
        {"入玉宣言": DECLARE, "入玉宣言します": DECLARE, "declare": DECLARE,
         "nyugyoku": DECLARE, "declare nyugyoku": DECLARE})

    # --- positions and plies ---------------------------------------------------
    def start(self) -> sp.Position:
        """The even-game start, 先手 to move."""
        return sp.start()

    def replay(self, plies: Sequence[str]) -> sp.Position:
        """The position after the stored USI plies (ValueError on an illegal one)."""
        pos = sp.start()
        for ply in plies:
            sp.play(pos, ply)
        return pos

    def copy(self, position: object) -> sp.Position:
        """An independent copy."""
        return sp.copy(_pos(position))

    def save(self, position: object) -> str:
        """``SFEN|last square|repetition keys``."""
        return sp.save(_pos(position))

    def load(self, saved: str) -> sp.Position:
        """A position from ``save``'s text."""
        return sp.load(saved)

    def play(self, position: object, ply: str) -> None:
        """Apply a USI ply in place (ValueError if it is not legal)."""
        sp.play(_pos(position), ply)

    def terms_text(self, position: object, lang: str) -> str:
        """Nothing beyond the time control: every game starts the same."""
        return ""

    def position_text(self, saved: str) -> str:
        """The SFEN alone, without the 同 square and the repetition keys kept with it."""
        return saved.split("|", 1)[0]

    def is_legal(self, position: object, ply: str) -> bool:
        """Whether the USI ``ply`` is legal (二歩, 打ち歩詰め, self-check are not)."""
        return sp.is_legal(_pos(position), ply)

    def legal_plies(self, position: object) -> Iterator[str]:
        """Every legal move of the side to move, in USI."""
        return sp.legal_plies(_pos(position))

    def to_move(self, position: object) -> int:
        """0 when 先手 is to move, else 1 (of a position or its saved text)."""
        if isinstance(position, str):
            return sp.sfen_turn(position)
        return _pos(position).turn

    def ply_index(self, position: object) -> int:
        """0-based index of the next ply."""
        return sp.ply_count(_pos(position))

    def outcome(self, position: object) -> Outcome | None:
        """詰み (checkmate), 千日手 (a draw, seed 002 rule 15) or 連続王手の千日手 (the
        checking side loses)."""
        pos = _pos(position)
        board = pos.board
        check = board.is_check()
        if check and not sp.has_legal_move(pos):
            return Outcome.loss(Termination.CHECKMATE, pos.turn)
        repeated, loser = sp.repetition(pos)
        if repeated:
            if loser is not None:
                return Outcome.loss("perpetual_check", loser)
            return Outcome.draw("sennichite")
        if not check and not sp.has_legal_move(pos):
            # no legal move without check is a loss in shogi (it almost never happens)
            return Outcome.loss(Termination.CHECKMATE, pos.turn)
        return None

    def claimable_draw(self, position: object) -> str | None:
        """Shogi has no draw to claim: 千日手 ends the game by itself."""
        return None

    def free_game(self, position: object) -> bool:
        """Every shogi game of the league is rated (seed 002)."""
        return False

    def may_declare(self, position: object, side: int) -> bool:
        """入玉宣言 is made on the declarer's turn (seed 002 rule 15)."""
        return self.to_move(position) == side

    def declare(self, position: object, side: int, name: str) -> Outcome:
        """入玉宣言 (seed 002 rule 15): the declarer's king must stand in the enemy camp;
        each side counts 大駒 5 and 小駒 1 (board and hand, the king not counted). Fewer than
        24 points loses; both 24 or more is 持将棋, a draw."""
        if name != DECLARE:
            raise MoveError("unreadable", name, Reason.of("no_declaration"))
        pos = _pos(position)
        king = sp.king_square(pos, side)
        if king is None or not sp.in_camp(side, king):
            raise MoveError("illegal", "入玉宣言", Reason.of("shogi_not_in_camp"))
        mine, theirs = sp.points(pos, side), sp.points(pos, 1 - side)
        if mine < NYUGYOKU_POINTS:
            return Outcome.loss(DECLARE, side)
        if theirs < NYUGYOKU_POINTS:
            return Outcome.win(DECLARE, side)
        return Outcome.draw("jishogi")

    # --- reading what players write ---------------------------------------------
    def normalise_text(self, text: str) -> tuple[str, bool]:
        """NFKC, kanji ranks as digits, ``同　歩`` joined. Full width is how shogi moves are
        written (▲７六歩), so it is never remarked on: the flag is always False."""
        return _nt.clean(text), False

    def looks_like_move(self, token: str) -> bool:
        """Whether ``token`` is a move in any notation the bot reads."""
        return _nt.looks_like_move(token)

    def extract_record(self, text: str) -> RecordText:
        """The record (or the new move with its number) in a mail body."""
        return _record.extract_record(text)

    def token_key(self, token: str) -> str:
        """A member's token reduced to a comparison key."""
        return _nt.key(token)

    def ply_keys(self, position: object, ply: str) -> frozenset[str]:
        """Every key a correctly written token for ``ply`` reduces to."""
        return _nt.keys_for(_pos(position), ply)

    def parse(self, position: object, token: str, letters: str = "en") -> str:
        """The USI ply a member's token means here; MoveError naming the candidates of an
        ambiguous move or the rule an illegal one breaks."""
        return _nt.parse(_pos(position), token)

    def standard_form(self, position: object, token: str, letters: str = "en") -> str | None:
        """Every notation the bot reads is standard: nothing to mention."""
        return None

    def read_proposals(self, text: str, record: RecordText) -> list[ProposalLine]:
        """``もし △同歩 なら ▲同角`` lines (J16)."""
        return _record.read_proposals(text)

    def proposal_lines(self, text: str) -> set[int]:
        """The lines holding proposals."""
        return _record.proposal_lines(text)

    def strip_proposals(self, text: str) -> str:
        """``text`` with its proposal lines blanked."""
        return _record.strip_proposals(text)

    # --- writing what players read ----------------------------------------------
    def side_names(self, lang: str) -> tuple[str, str]:
        """先手 and 後手 (Sente and Gote in English)."""
        return SIDES.get(lang, SIDES["en"])

    def side_of(self, word: str) -> int | None:
        """0 for ``sente``/``先手``, 1 for ``gote``/``後手``; else None."""
        return SIDE_WORDS.get(word.strip().lower())

    def format_result(self, outcome: Outcome) -> str:
        """The score as every game's shells keep it: ``1-0`` 先手 won, ``0-1`` 後手,
        ``1/2-1/2`` (千日手, 持将棋), ``0-0`` both lose, ``*`` void. The KIF record writes
        it in Japanese (``まで91手で先手の勝ち``)."""
        if outcome.void:
            return "*"
        if outcome.both_lose:
            return "0-0"
        if outcome.winner is None:
            return "1/2-1/2"
        return "1-0" if outcome.winner == 0 else "0-1"

    def result_words(self, outcome: Outcome, lang: str) -> str:
        """The result as a shogi player says it: 先手の勝ち, 後手の勝ち, 千日手, 持将棋,
        引き分け, 両者負け (``Sente wins``, ... in English)."""
        words = _RESULT_WORDS.get(lang, _RESULT_WORDS["en"])
        if outcome.void:
            return words["void"]
        if outcome.both_lose:
            return words["both_lose"]
        if outcome.winner is not None:
            return words["sente" if outcome.winner == 0 else "gote"]
        if outcome.termination in ("sennichite", "jishogi"):
            return words[outcome.termination]
        return words["draw"]

    def termination_words(self, termination: str, lang: str) -> str | None:
        """How a shogi game ended (詰み, 投了, 千日手 ...); None for the endings every game
        shares (the TD's decisions)."""
        return _TERMINATION_WORDS.get(lang, _TERMINATION_WORDS["en"]).get(termination)

    def move_words(self, lang: str) -> MoveWords:
        """Shogi's move words are chess's (指し手, 指す); a draw is 引き分け, not ドロー."""
        return _MOVE_WORDS.get(lang, DEFAULT_MOVE_WORDS["en"])

    def score_words(self, lang: str) -> ScoreWords:
        """A shogi score line: 勝, 敗 and 引き分け (千日手 and 持将棋), never chess's ドロー."""
        return _SCORE_WORDS.get(lang, _SCORE_WORDS["en"])

    def parse_result(self, text: str, termination: str) -> Outcome | None:
        """A TD's RESULT: ``sente``, ``gote``, ``draw``, ``both-lose`` or ``先手勝ち``,
        ``後手勝ち``, ``引き分け``, ``両者負け`` (and the stored scores)."""
        word = " ".join(text.strip().lower().split())
        if word in _WINS:
            return Outcome.win(termination, _WINS[word])
        if word in _DRAWS:
            return Outcome.draw(termination)
        if word in _BOTH_LOSE:
            return Outcome(termination, both_lose=True)
        if word == "*":
            return Outcome(termination, void=True)
        return None

    def move_label(self, ply: int, text: str) -> str:
        """``15 ▲７七角``: every shogi move has its own number."""
        return f"{ply + 1} {text}"

    def move_number(self, ply: int, lang: str = "en") -> str:
        """``15手目`` (``move 15`` in English) for the 0-based ply 14."""
        return f"{ply + 1}手目" if lang == "ja" else f"move {ply + 1}"

    def format_proposal(self, position: object, plies: Sequence[str], notation: str,
                        letters: str = "en", lang: str = "en") -> str:
        """``もし 16 △同　歩 なら ▲同　角 ...`` (``if ... then ...``), up to the first ply
        that is not legal."""
        pos = self.copy(position)
        parts: list[str] = []
        for k, ply in enumerate(plies):
            if not sp.is_legal(pos, ply):
                break
            if k == 1:
                parts.append("なら" if lang == "ja" else "then")
            text = _nt.japanese(pos, ply)
            parts.append(self.move_label(sp.ply_count(pos), text) if k == 0 else text)
            sp.play(pos, ply)
        return ("もし " if lang == "ja" else "if ") + " ".join(parts)

    def format_record(self, plies: Sequence[str], notation: str, letters: str = "en") -> str:
        """The game in Japanese notation, eight moves a line, each line numbered."""
        pos = sp.start()
        texts: list[str] = []
        for ply in plies:
            texts.append(_nt.japanese(pos, ply))
            sp.play(pos, ply)
        return _lines(texts)

    def format_ply(self, position: object, ply: str, notation: str, letters: str = "en") -> str:
        """One ply as players write it (``▲７六歩``), from the position before it."""
        pos = _pos(position)
        if not sp.is_legal(pos, ply):
            raise ValueError(f"ply {ply!r} is not legal in {pos.board.sfen()}")
        return _nt.japanese(pos, ply)

    def written_form(self, position: object, ply: str, token: str) -> str | None:
        """The player's own 右 左 上 引 寄 直 where they name the move as well as ours do
        (``▲５八金直``): the record keeps it (issue 26); None for any other token."""
        return _nt.written(_pos(position), ply, token)

    def format_stored(self, moves: Sequence[tuple[str, str]], notation: str,
                      letters: str = "en") -> str:
        """The record from stored (USI, Japanese) pairs without replaying."""
        return _lines([text for _, text in moves])

    def stored_move_text(self, canon: str, text: str, notation: str, letters: str = "en") -> str:
        """The stored Japanese text."""
        return text or canon

    def board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """The BOD board from ``viewer``'s side (後手 sees it turned round)."""
        return _kif.bod(_pos(position), lang, viewer)

    def final_board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """A finished game's BOD board: the moves played, not whose move it is."""
        return _kif.bod(_pos(position), lang, viewer, over=True)

    def board_svg(self, position: object, viewer: int = 0) -> str:
        """The BOD text in an SVG (one line of text a row) from ``viewer``'s side."""
        rows = self.board_text(position, "ja", viewer).splitlines()
        texts = "".join(
            f'<text x="4" y="{18 * (k + 1)}" font-family="monospace" font-size="14">'
            f"{row.replace('&', '&amp;').replace('<', '&lt;')}</text>"
            for k, row in enumerate(rows))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="360" '
                f'height="{18 * len(rows) + 8}">{texts}</svg>')

    def board_png(self, position: object, viewer: int = 0) -> bytes:
        """The board as a PNG picture for mail from ``viewer``'s seat (kanji koma, the
        pieces in hand beside it, the last move's square tinted), drawn with Pillow in a
        millisecond or two; ``b""`` where no CJK font is installed (the mail then has
        :meth:`board_svg` rasterised)."""
        # here: Pillow loads with the first picture, not with the game
        from relaybot.games.shogi import picture as _picture

        return _picture.board_png(_pos(position), viewer)

    def write_record(self, info: RecordInfo, fmt: str = "") -> str:
        """KIF (the default, UTF-8) or CSA (``fmt="csa"``)."""
        plies = [ply for ply, _ in info.moves]
        if fmt in ("", "kif"):
            return _kif.write_kif(info, plies, info.termination)
        if fmt == "csa":
            return _kif.write_csa(info, plies, info.termination)
        raise ValueError(f"a shogi game is written as kif or csa, not {fmt}")


def _lines(texts: Sequence[str], per_line: int = 8) -> str:
    """``1 ▲７六歩 △３四歩 ...`` lines of ``per_line`` moves, each led by its number."""
    return "\n".join(
        f"{start + 1} " + " ".join(texts[start:start + per_line])
        for start in range(0, len(texts), per_line))


RULES = ShogiRules()

__all__ = ["RULES", "SIDES", "ShogiRules"]
