"""What a member reads of a go game: the text board, an SVG, and the SGF record.

The SGF is written with sgfmill (FF[4]): ``SZ``, ``PB``/``PW``, ``BR``/``WR`` (the salon's
rank for the points at the start, R4), ``HA`` and ``AB`` (handicap stones), ``KM`` as SGF
defines it (added to White; negative when White gives komi), ``RE``, ``DT``, then the
main line of moves.
"""

from __future__ import annotations

from functools import lru_cache

from sgfmill import sgf  # type: ignore[import-untyped]

from relaybot.core.names import PersonName
from relaybot.core.ratings.go_salon import go_rank
from relaybot.games.base import RecordInfo
from relaybot.games.go.board import GTP_COLUMNS, PASS, GoPosition, check, star_points, to_rc
from relaybot.games.go.notation import sgf_of_vertex

_MARKS = {None: ".", "b": "X", "w": "O"}
_LABELS = {
    "en": {"black": "Black", "white": "White", "captures": "Captures", "komi": "Komi",
           "handicap": "Handicap", "stones": "stones", "to_move": "to move",
           "to_state": "to state the result", "last": "Last move", "none": "none",
           "superko": "Positional superko",
           "free": "Free game (the salon points do not change)",
           "counting": "Both players passed. Each now states the result on a line of its "
                       "own, e.g. result B+3.5 (or W+R, jigo)."},
    "ja": {"black": "黒", "white": "白", "captures": "アゲハマ", "komi": "コミ",
           "handicap": "置き石", "stones": "子", "to_move": "の番",
           "to_state": "が結果を申告する番", "last": "最終手", "none": "なし",
           "superko": "同形反復禁止（スーパーコウ）",
           "free": "自由対局（持点は変わりません）",
           "counting": "両者がパスしました。それぞれ結果を1行で申告してください"
                       "（例: 結果 黒3目半勝ち、結果 B+3.5）。"},
}


def komi_text(komi: float, lang: str) -> str:
    """The komi as players say it: what Black gives White (``6.5``), or, when the points
    go the other way (R4: a handicap game whose difference leaves White giving komi, SGF's
    negative KM), who gives it: ``White gives 1.5`` / ``白から1.5目``."""
    if komi >= 0:
        return f"{komi:g}"
    return f"白から{-komi:g}目" if lang == "ja" else f"White gives {-komi:g}"


def terms_text(position: GoPosition, lang: str) -> str:
    """The game's terms on one line: komi, handicap stones, superko, a free game."""
    words = _LABELS.get(lang, _LABELS["en"])
    komi = f"{words['komi']}: {komi_text(position.komi, lang)}"
    if position.handicap:
        komi += f"  {words['handicap']}: {position.handicap}" + (
            words["stones"] if lang == "ja" else f" {words['stones']}")
    if position.superko:
        komi += "  " + words["superko"]
    if position.free:
        komi += "  " + words["free"]
    return komi


@lru_cache(maxsize=8)
def _stars(size: int) -> frozenset[tuple[int, int]]:
    return frozenset(star_points(size))


def _star(size: int, row: int, col: int) -> bool:
    """Whether (row, col) is a star point: the same as the picture's (9x9 has five)."""
    return (row, col) in _stars(size)


def board_text(position: GoPosition, lang: str, over: bool = False) -> str:
    """Columns A-T (no I) on top, row numbers both sides, ``X`` Black, ``O`` White,
    ``+`` star points; the last move in brackets ``(X)``; then captures, komi, turn
    (none once the game is ``over``)."""
    words = _LABELS.get(lang, _LABELS["en"])
    size = position.size
    last = to_rc(position.last, size) if position.last and position.last != PASS else None
    header = "    " + " ".join(GTP_COLUMNS[:size])
    rows = [header]
    for row in range(size - 1, -1, -1):
        cells = ""
        for col in range(size):
            colour = position.board.get(row, col)
            mark = _MARKS[colour]
            if mark == "." and _star(size, row, col):
                mark = "+"
            if last == (row, col):
                cells = cells[:-1] + f"({mark})"
            else:
                cells += f"{mark} "
        rows.append(f"{row + 1:>2}  {cells.rstrip()}".rstrip() + f"  {row + 1}")
    rows.append(header)
    black, white = words["black"], words["white"]
    if position.last == PASS:
        rows.append(f"{words['last']}: {'パス' if lang == 'ja' else 'pass'}")
    rows.append(f"{words['captures']}: {black} {position.captures[0]}, "
                f"{white} {position.captures[1]}")
    rows.append(terms_text(position, lang))
    if over:  # a finished game: nobody moves or states a result any more
        return "\n".join(rows)
    side = (black, white)[position.to_move]
    state = words["to_state"] if position.counting else words["to_move"]
    rows.append(f"{side}{state}" if lang == "ja" else f"{side} {state}")
    if position.counting:
        rows.append(words["counting"])
    return "\n".join(rows)


SVG_CELLS = {19: 22, 13: 30, 9: 44}  # every board about 440 pixels wide, as the picture


def board_svg(position: GoPosition) -> str:
    """The board as a plain SVG: lines, star points, coordinates (A-T without I, rows
    from the bottom), stones, the last move ringed."""
    size = position.size
    cell = SVG_CELLS.get(size, 22)
    width = cell * (size + 1)
    radius, font = cell * 0.45, max(10, cell // 2)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{width}" '
             f'viewBox="0 0 {width} {width}">',
             f'<rect width="{width}" height="{width}" fill="#dcb35c"/>']
    for i in range(size):
        at = cell * (i + 1)
        parts.append(f'<line x1="{cell}" y1="{at}" x2="{cell * size}" y2="{at}" stroke="#000"/>')
        parts.append(f'<line x1="{at}" y1="{cell}" x2="{at}" y2="{cell * size}" stroke="#000"/>')
        label = f'font-size="{font}" font-family="sans-serif" text-anchor="middle"'
        parts.append(f'<text x="{at}" y="{cell // 2 + font // 3}" {label}>'
                     f'{GTP_COLUMNS[i]}</text>')
        parts.append(f'<text x="{cell // 2}" y="{cell * (size - i) + font // 3}" {label}>'
                     f'{i + 1}</text>')
    for row, col in star_points(size):
        parts.append(f'<circle cx="{cell * (col + 1)}" cy="{cell * (size - row)}" '
                     f'r="{max(2, cell // 8)}" fill="#000"/>')
    for row in range(size):
        for col in range(size):
            colour = position.board.get(row, col)
            if colour is None:
                continue
            x, y = cell * (col + 1), cell * (size - row)
            fill = "#000" if colour == "b" else "#fff"
            parts.append(f'<circle cx="{x}" cy="{y}" r="{radius:g}" fill="{fill}" '
                         f'stroke="#000"/>')
    if position.last and position.last != PASS:
        row, col = to_rc(position.last, size)
        parts.append(f'<circle cx="{cell * (col + 1)}" cy="{cell * (size - row)}" '
                     f'r="{radius / 2:g}" fill="none" stroke="#c00" stroke-width="2"/>')
    parts.append("</svg>")
    return "".join(parts)


def _rank(points: int | None) -> str | None:
    """The salon rank for points (R4), as SGF's BR/WR write it (``4k``, ``1d``)."""
    if points is None:
        return None
    rank = go_rank(points)
    return rank[:2] if rank[0].isdigit() else rank


def write_sgf(info: RecordInfo, start: GoPosition) -> str:
    """The SGF of a game from its record info and its start (size, komi, stones)."""
    size = start.size
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    root.set("CA", "UTF-8")
    if info.event:
        root.set("EV", info.event)
    if info.site:
        root.set("PC", info.site)
    # family first without a comma (PB[Hayakawa Satoru]): SGF readers show it as it is
    root.set("PB", PersonName.parse(info.players[0]).plain())
    root.set("PW", PersonName.parse(info.players[1]).plain())
    for prop, points in (("BR", info.ratings[0]), ("WR", info.ratings[1])):
        rank = _rank(points)
        if rank:
            root.set(prop, rank)
    if start.handicap:
        root.set("HA", start.handicap)
        root.set("AB", {to_rc(p, size) for p in start.setup})
    root.set("KM", start.komi)
    root.set("DT", info.start.isoformat())
    if info.result:
        root.set("RE", "0" if info.result == "jigo" else info.result)
    position = start.copy()
    node = root
    for ply, _day in info.moves:
        colour = "bw"[position.to_move]
        node = node.new_child()
        if ply == PASS:
            node.set_move(colour, None)
            point = PASS
        else:
            point = sgf_of_vertex(ply, size) or ""
            node.set_move(colour, to_rc(point, size))
        position = check(position, point, ply)
    text: bytes = game.serialise()
    return text.decode("utf-8")
