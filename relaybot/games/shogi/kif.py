"""What a shogi game writes: the BOD board, the KIF record (UTF-8) and the CSA record.

KIF follows the format Kakinoki's programs wrote and python-shogi's KIF parser reads:
header lines ``key：value``, ``手数----指手---------消費時間--``, one numbered move a line
with its origin (``   1 ７六歩(77)``), the ending line (``  92 投了``) and ``まで91手で
先手の勝ち``. CSA is version 2.2: ``N+``/``N-`` names, ``PI`` (平手), ``+``, one move a
line and the ending (``%TORYO``).
"""

from __future__ import annotations

from collections.abc import Sequence

from relaybot.core.names import PersonName
from relaybot.games.base import RecordInfo, one_line
from relaybot.games.shogi import position as sp
from relaybot.games.shogi.notation import csa_move, kif_move

_FULL_DIGITS = "１２３４５６７８９"
_KANJI = ("", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三",
          "十四", "十五", "十六", "十七", "十八")
_HAND_ORDER = (7, 6, 5, 4, 3, 2, 1)  # 飛 角 金 銀 桂 香 歩
_BOARD_NAMES = ("", "歩", "香", "桂", "銀", "金", "角", "飛", "玉", "と", "杏", "圭", "全", "馬",
                "龍")
SIDE_JA = ("先手", "後手")

# termination -> (KIF ending line, CSA ending); the winner is in the result
ENDINGS = {
    "resignation": ("投了", "%TORYO"),
    "checkmate": ("詰み", "%TSUMI"),
    "sennichite": ("千日手", "%SENNICHITE"),
    "perpetual_check": ("反則負け", "%ILLEGAL_MOVE"),
    "jishogi": ("持将棋", "%JISHOGI"),
    "nyugyoku": ("入玉勝ち", "%KACHI"),
    "time": ("切れ負け", "%TIME_UP"),
}


def hand_text(pos: sp.Position, side: int) -> str:
    """``飛　角　歩三`` (KIF's form of the pieces in hand), ``なし`` when empty."""
    hand = pos.board.pieces_in_hand[side]
    parts = [_BOARD_NAMES[kind] + (_KANJI[hand[kind]] if hand[kind] > 1 else "")
             for kind in _HAND_ORDER if hand.get(kind)]
    return "　".join(parts) if parts else "なし"


def bod(pos: sp.Position, lang: str, viewer: int = 0, over: bool = False) -> str:
    """The board in BOD form (後手の持駒, the 9x9 grid with ・ and ``v`` for 後手's pieces,
    先手の持駒) from ``viewer``'s side: 後手 sees the board turned round, their own
    pieces at the bottom. A last line says whose move it is, in ``lang`` (once the game
    is ``over``, only how many moves were played)."""
    files = range(9, 0, -1) if viewer == 0 else range(1, 10)
    ranks = range(1, 10) if viewer == 0 else range(9, 0, -1)
    top, bottom = (1, 0) if viewer == 0 else (0, 1)
    lines = [f"{SIDE_JA[top]}の持駒：{hand_text(pos, top)}",
             "  " + " ".join(_FULL_DIGITS[f - 1] for f in files),
             "+---------------------------+"]
    for rank in ranks:
        cells = []
        for file in files:
            piece = pos.board.piece_at(sp.square(file, rank))
            if piece is None:
                cells.append(" ・")
            else:
                cells.append(("v" if piece.color == sp.WHITE else " ")
                             + _BOARD_NAMES[piece.piece_type])
        lines.append("|" + "".join(cells) + "|" + _KANJI[rank])
    lines.append("+---------------------------+")
    lines.append(f"{SIDE_JA[bottom]}の持駒：{hand_text(pos, bottom)}")
    moves = sp.ply_count(pos)
    played = "1 move" if moves == 1 else f"{moves} moves"
    if over:
        lines.append(f"手数＝{moves}" if lang == "ja" else f"{played} played")
    elif lang == "ja":
        lines.append(f"手数＝{moves}　{SIDE_JA[pos.turn]}番")
    else:
        side = ("Sente (先手, ▲)", "Gote (後手, △, pieces marked v)")[pos.turn]
        lines.append(f"{played} played; {side} to move")
    return "\n".join(lines)


def _ending(info: RecordInfo, termination: str) -> tuple[str, str]:
    """(KIF summary line, the ending word of the last numbered line) of a finished game."""
    count = len(info.moves)
    result = info.result
    word = ENDINGS.get(termination, ("", ""))[0]
    if result in ("1-0", "0-1"):
        winner = SIDE_JA[0 if result == "1-0" else 1]
        how = "入玉勝ち" if termination == "nyugyoku" else "勝ち"
        return f"まで{count}手で{winner}の{how}", word
    if result == "1/2-1/2":
        name = {"sennichite": "千日手", "jishogi": "持将棋"}.get(termination, "引き分け")
        return f"まで{count}手で{name}", word
    if result == "0-0":
        return f"まで{count}手で両者負け", word
    return f"まで{count}手で中断", "中断"


def kif_name(name: str) -> str:
    """A player as KIF and CSA write them: the Japanese-script name where the member has
    one (``早川悟``), else family first without a comma (``Hayakawa Satoru``)."""
    person = PersonName.parse(name)
    return one_line(person.ja or person.plain())


def write_kif(info: RecordInfo, plies: Sequence[str], termination: str) -> str:
    """The game as a KIF file (UTF-8 text; the caller writes the bytes)."""
    lines = [
        "#KIF version=2.0 encoding=UTF-8",
        f"開始日時：{info.start.strftime('%Y/%m/%d')}",
    ]
    if info.end is not None:
        lines.append(f"終了日時：{info.end.strftime('%Y/%m/%d')}")
    if info.event:
        lines.append(f"棋戦：{one_line(info.event)}")
    lines += [
        "手合割：平手",
        f"先手：{kif_name(info.players[0])}",
        f"後手：{kif_name(info.players[1])}",
        "手数----指手---------消費時間--",
    ]
    pos = sp.start()
    for n, ply in enumerate(plies, start=1):
        lines.append(f"{n:>4} {kif_move(pos, ply)}")
        sp.play(pos, ply)
    if info.result:
        summary, word = _ending(info, termination)
        if word:
            lines.append(f"{len(plies) + 1:>4} {word}")
        lines.append(summary)
    return "\n".join(lines) + "\n"


def write_csa(info: RecordInfo, plies: Sequence[str], termination: str) -> str:
    """The game as a CSA file (version 2.2)."""
    lines = ["V2.2", f"N+{kif_name(info.players[0])}", f"N-{kif_name(info.players[1])}",
             f"$START_TIME:{info.start.strftime('%Y/%m/%d')}"]
    if info.end is not None:
        lines.append(f"$END_TIME:{info.end.strftime('%Y/%m/%d')}")
    if info.event:
        lines.append(f"$EVENT:{one_line(info.event)}")
    if info.site:
        lines.append(f"$SITE:{one_line(info.site)}")
    lines += ["PI", "+"]
    pos = sp.start()
    for ply in plies:
        lines.append(csa_move(pos, ply))
        sp.play(pos, ply)
    if info.result:
        ending = ENDINGS.get(termination, ("", ""))[1]
        lines.append(ending or ("%CHUDAN" if info.result in ("*", "0-0") else "%TORYO"))
    return "\n".join(lines) + "\n"
