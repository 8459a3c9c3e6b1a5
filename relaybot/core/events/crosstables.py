"""Crosstables and standings lines (T5): the standings of :mod:`.standings` as data for
the web page, as monospace text and as lines that read the same in any font for mail,
headings in English or Japanese.

Pure: stdlib only, no I/O.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from relaybot.core.events.standings import StandingRow
from relaybot.core.names import display_name

__all__ = ["crosstable_data", "crosstable_text", "standings_lines"]


_HEADINGS: dict[str, dict[str, str]] = {
    "en": {
        "no": "No",
        "player": "Player",
        "points": "Pts",
        "rank": "Rank",
        "sb": "SB",
        "solkoff": "Solkoff",
        "buchholz": "Buchholz",
        "median": "Median",
        "median_buchholz": "MedBH",
        "wins": "Wins",
        "rate": "Win%",
        "margin": "Margin",
        "rating": "Rating",
        "salon_points": "Salon points",  # go's rating: the salon's points (seed 004)
    },
    "ja": {
        "no": "番号",
        "player": "氏名",
        "points": "得点",
        "rank": "順位",
        "sb": "SB",
        "solkoff": "ソルコフ",
        "buchholz": "ソルコフ",
        "median": "ミディアム",
        "median_buchholz": "MedBH",
        "wins": "勝数",
        "rate": "勝率%",
        "margin": "目数差",
        "rating": "レーティング",
        "salon_points": "持点",  # go's rating: the salon's points (seed 004)
    },
}
# the win rate in a standings line, where the number carries its own % sign
_RATE_WORD = {"en": "win rate", "ja": "勝率"}
# Cell marks: win, draw, loss, not finished, the diagonal.
_MARKS: dict[str, tuple[str, str, str, str, str]] = {
    "en": ("1", "½", "0", ".", "x"),
    "ja": ("○", "△", "●", "・", "＊"),
}
_SHOWN = ("sb", "solkoff", "buchholz", "median", "median_buchholz", "wins", "margin",
          "rating")


def _heading(head: dict[str, str], key: str, rows: Sequence[StandingRow]) -> str:
    """A tie-break's heading; the ``rating`` one says what the number is: in go the
    salon's points (持点, seed 004), in chess and shogi a rating."""
    if key == "rating" and rows and rows[0].rating_game == "go":
        return head["salon_points"]
    return head[key]


def _number(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _width(text: str, lang: str) -> int:
    """Display width in a monospace font: East Asian wide characters take two
    columns, and in Japanese fonts so do the ambiguous ones (○, △, ½)."""
    wide = ("W", "F", "A") if lang == "ja" else ("W", "F")
    return sum(2 if unicodedata.east_asian_width(ch) in wide else 1 for ch in text)


def _pad(text: str, width: int, lang: str, right: bool) -> str:
    gap = " " * max(0, width - _width(text, lang))
    return gap + text if right else text + gap


def _cell(scores: tuple[float | None, ...] | None, lang: str) -> str:
    win, draw, loss, unplayed, _ = _MARKS[lang]
    if not scores:
        return ""
    marks = {1.0: win, 0.5: draw, 0.0: loss}
    return "".join(unplayed if s is None else marks[s] for s in scores)


def crosstable_data(rows: Sequence[StandingRow]) -> list[dict[str, object]]:
    """The crosstable as data for the web page (T5): one dict per row, JSON-ready."""
    number = {r.player: i + 1 for i, r in enumerate(rows)}
    return [
        {
            "no": number[r.player],
            "rank": r.rank,
            "shared": r.shared,
            "player": r.player,
            "points": r.points,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "percent": r.percent,
            "sb": r.sb,
            "solkoff": r.solkoff,
            "median": r.median,
            "median_buchholz": r.median_buchholz,
            "sb_beaten": r.sb_beaten,
            "median_beaten": r.median_beaten,
            "direct": r.direct,
            "margin": r.margin,
            "rating": r.rating,
            "rate": round(r.percent, 1),
            "primary": r.primary,
            "tiebreaks": list(r.tiebreaks),
            "results": [
                {"opponent": o, "no": number.get(o), "scores": list(s)}
                for o, s in r.results.items()
            ],
        }
        for r in rows
    ]


def crosstable_text(rows: Sequence[StandingRow], lang: str = "en") -> str:
    """The crosstable as monospace text for mail, headings in ``lang`` (T5).

    Columns: number, player, one column per opponent (by number; several games
    against one opponent side by side), points, the tie-breaks used, rank
    ("=" marks a shared rank). Wins/draws/losses: 1 ½ 0 (en) or ○ △ ● (ja).
    """
    if lang not in _HEADINGS:
        raise ValueError(f"lang must be one of {', '.join(_HEADINGS)}, got {lang!r}")
    head = _HEADINGS[lang]
    diagonal = _MARKS[lang][4]
    shown = [t for t in (rows[0].tiebreaks if rows else ()) if t in _SHOWN]
    if rows and rows[0].primary == "rate":
        shown.insert(0, "rate")  # T4: the win rate ranks first
    columns: list[tuple[str, bool]] = [(head["no"], True), (head["player"], False)]
    columns += [(str(i + 1), True) for i in range(len(rows))]
    columns += [(head["points"], True)] + [(_heading(head, t, rows), True) for t in shown]
    columns.append((head["rank"], True))
    table: list[list[str]] = []
    for i, r in enumerate(rows):
        line = [str(i + 1), display_name(r.player, lang)]
        for other in rows:
            if other.player == r.player:
                line.append(diagonal)
            else:
                line.append(_cell(r.results.get(other.player), lang))
        line.append(_number(r.points))
        values: dict[str, float | None] = {
            "sb": r.sb,
            "solkoff": r.solkoff,
            "buchholz": r.solkoff,
            "median": r.median,
            "median_buchholz": r.median_buchholz,
            "wins": float(r.wins),
            "rate": round(r.percent, 1),
            "margin": r.margin,
            "rating": float(r.rating) if r.rating is not None else None,
        }
        line += [_number(v) if (v := values[t]) is not None else "-" for t in shown]
        line.append(f"{r.rank}=" if r.shared else str(r.rank))
        table.append(line)
    widths = [
        max([_width(title, lang)] + [_width(line[c], lang) for line in table])
        for c, (title, _) in enumerate(columns)
    ]
    out = [" ".join(_pad(t, w, lang, right) for (t, right), w in zip(columns, widths, strict=True))]
    out.append(" ".join("-" * w for w in widths))
    for line in table:
        cells = zip(line, columns, widths, strict=True)
        out.append(" ".join(_pad(text, w, lang, right) for text, (_, right), w in cells))
    return "\n".join(s.rstrip() for s in out) + "\n"


# how one game against an opponent reads in a line of the standings (not a table column)
_AGAINST: dict[str, dict[float | None, str]] = {
    "en": {1.0: "beat {o}", 0.5: "drew with {o}", 0.0: "lost to {o}", None: "{o} still to play"},
    "ja": {1.0: "○{o}", 0.5: "△{o}", 0.0: "●{o}", None: "・{o}（未了）"},
}


# go's drawn game is a jigo (持碁); the Japanese marks are the same
_AGAINST_GO: dict[str, dict[float | None, str]] = {
    "en": {**_AGAINST["en"], 0.5: "jigo with {o}"}, "ja": _AGAINST["ja"]}


def _record(row: StandingRow, lang: str) -> str:
    """Wins, losses and any draws (a jigo in go): ``2勝1敗1持碁``, ``2 wins, 1 loss, 1 jigo``."""
    go = row.rating_game == "go"
    if lang == "ja":
        drawn = f"{row.draws}{'持碁' if go else '分'}" if row.draws else ""
        return f"{row.wins}勝{row.losses}敗{drawn}"
    parts = [f"{row.wins} win{'' if row.wins == 1 else 's'}",
             f"{row.losses} loss{'' if row.losses == 1 else 'es'}"]
    if row.draws:
        parts.append(f"{row.draws} jigo" if go else
                     f"{row.draws} draw{'' if row.draws == 1 else 's'}")
    return ", ".join(parts)


def standings_lines(rows: Sequence[StandingRow], lang: str = "en") -> str:
    """The standings as lines that read the same in any font (issue 26 item 7: a mail
    client shows a proportional font, where a table's columns do not line up): one line
    a player with the rank, the points, each game against each opponent by name and the
    tie-breaks used, ``1位 山田太郎 2点: ○佐藤花子 △Ann Smith（SB 1.25）`` in Japanese,
    ``1. Ann Smith, 2 points: beat 佐藤花子, drew with 山田太郎 (SB 1.25)`` in English."""
    if lang not in _HEADINGS:
        raise ValueError(f"lang must be one of {', '.join(_HEADINGS)}, got {lang!r}")
    head = _HEADINGS[lang]
    shown = [t for t in (rows[0].tiebreaks if rows else ()) if t in _SHOWN]
    out = []
    for r in rows:
        values: dict[str, float | None] = {
            "sb": r.sb, "solkoff": r.solkoff, "buchholz": r.solkoff, "median": r.median,
            "median_buchholz": r.median_buchholz, "wins": float(r.wins), "margin": r.margin,
            "rating": float(r.rating) if r.rating is not None else None}
        breaks = [f"{_heading(head, t, rows)} {_number(v)}" for t in shown
                  if (v := values[t]) is not None]
        if r.primary == "rate":  # a percentage, said as one ("win rate 75%", 勝率 75%)
            breaks.insert(0, f"{_RATE_WORD[lang]} {round(r.percent, 1):g}%")
        against = _AGAINST_GO if r.rating_game == "go" else _AGAINST
        games = [against[lang][s].format(o=display_name(other, lang))
                 for other, scores in r.results.items() for s in scores]
        player = display_name(r.player, lang)
        # T4: a league ranked by win rate says each player's wins and losses, not a
        # score in points beside the salon's own points
        score = _record(r, lang) if r.primary == "rate" else None
        points = _number(r.points)
        if lang == "ja":
            rank = f"{r.rank}位" + ("タイ" if r.shared else "")
            line = f"{rank} {player} {score or points + '点'}"
            line += (": " + " ".join(games)) if games else ""
            line += f"（{'、'.join(breaks)}）" if breaks else ""
        else:
            rank = f"{'=' if r.shared else ''}{r.rank}."
            line = f"{rank} {player}, {score or points + ' point' + ('' if r.points == 1 else 's')}"
            line += (": " + ", ".join(games)) if games else ""
            line += f" ({', '.join(breaks)})" if breaks else ""
        out.append(line)
    return "\n".join(out) + ("\n" if out else "")

