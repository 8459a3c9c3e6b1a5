"""PAA Go salon rules (R4, seed 004): points after a game, handicap and komi, ranks.

Pure: stdlib only, no I/O.

Handicap from the difference ``diff`` of the two players' points (持点差):
``N`` is the largest integer with ``diff - 8N >= 0``; the weaker player takes Black
with ``N + 1`` stones (one "stone" = 先番: Black moves first, no stones placed);
komi from Black is ``5.5 - (diff - 8N)``, a negative value being komi from White.
From a difference of 56: 7 stones and White gives ``diff - 54 + 0.5``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "GO_RANKS",
    "MAX_STONES",
    "RANK_CODES",
    "RATE_DOWN",
    "RATE_UP",
    "TELL_TD_AT",
    "GoPoints",
    "Handicap",
    "SalonRecord",
    "TermsPlayed",
    "estimate_points",
    "go_points",
    "go_rank",
    "handicap_between",
    "handicap_for",
    "implied_points",
    "next_rank",
    "rank_code",
    "rank_name",
    "rank_points",
    "win_rate",
]

MAX_STONES = 7
"""R4: 7 stones at most (from a difference of 56); such games are free games."""


@dataclass(frozen=True)
class Handicap:
    """Game conditions (手合い割, R4).

    ``stones``: 1 means 先番 (Black plays first, no handicap stones; with a difference
    of 0 it is an even game, 互先, colours by toss); 2..7 handicap stones.
    ``komi``: points Black gives White; negative when White gives Black (白からコミ).
    ``counted``: False for 7 stones or more, which seed 004 lists as free games
    (カウント外の自由対局) that change no one's points.
    """

    diff: int
    stones: int
    komi: float

    @property
    def even(self) -> bool:
        """True for 互先 (equal points): colours by toss, Black gives 5.5."""
        return self.diff == 0

    @property
    def counted(self) -> bool:
        """R4: games with 7 stones or more do not count (free games)."""
        return self.stones < MAX_STONES

    def describe(self, lang: str = "ja") -> str:
        """The conditions as the seed writes them, e.g. ``"2子;黒から3.5目コミ出し"``."""
        giver_ja, giver_en = ("黒", "Black") if self.komi >= 0 else ("白", "White")
        amount = abs(self.komi)
        if lang == "ja":
            start = "互先" if self.even else ("先番" if self.stones == 1 else f"{self.stones}子")
            return f"{start};{giver_ja}から{amount:.1f}目コミ出し"
        if self.even:
            start = "even game"
        elif self.stones == 1:
            start = "Black moves first (no stones)"
        else:
            start = f"{self.stones} stones"
        return f"{start}; {giver_en} gives {amount:.1f} komi"


def handicap_for(diff: int) -> Handicap:
    """Stones and komi for a points difference ``diff`` >= 0 (R4, seed 004 section 4)."""
    if diff < 0:
        raise ValueError(f"points difference must be >= 0, got {diff}")
    if diff >= 56:  # R4: 7 stones, White gives diff - 54 + 0.5
        return Handicap(diff, MAX_STONES, -(diff - 54 + 0.5))
    n = diff // 8  # largest N with diff - 8N >= 0
    return Handicap(diff, n + 1, 5.5 - (diff - 8 * n))


def handicap_between(points_a: int, points_b: int) -> tuple[str | None, Handicap]:
    """Who takes Black (``"a"``, ``"b"``, or None for a toss) and the conditions (R4).

    The player with fewer points takes Black; with equal points colours are decided
    by a toss (電子トス) or agreement.
    """
    diff = abs(points_a - points_b)
    black: str | None = None
    if points_a < points_b:
        black = "a"
    elif points_b < points_a:
        black = "b"
    return black, handicap_for(diff)


@dataclass(frozen=True)
class GoPoints:
    """Point changes after a game (R4) and whether it counts.

    ``counted``: counts as a game played (対戦数); ``win_rate``: counts in the win rate.
    """

    black: int
    white: int
    counted: bool
    win_rate: bool


_BLACK_WINS = ("0-1",)
_WHITE_WINS = ("1-0",)
_JIGO = ("1/2-1/2", "0", "draw", "jigo", "持碁")
_NO_RESULT = ("", "*", "?", "void", "none", "勝負なし")


def go_points(result: str, *, stones: int = 1, free_game: bool = False) -> GoPoints:
    """Point changes for Black and White after one game (R4, seed 004 section 2).

    ``result``: SGF style ``"B+R"``, ``"B+3.5"``, ``"W+..."``; or ``"0-1"`` (Black
    wins), ``"1-0"`` (White wins), as elsewhere in relaybot; ``"jigo"``/``"0"``/
    ``"draw"``/``"1/2-1/2"``/``"持碁"``; ``"void"``/``"*"``/``""`` for no result.
    Winner +1, loser -1; jigo 0 and counted as a game; no result 0 and not counted.
    A game with 7 stones or more, or one the players mark as free (``free_game``:
    unrecorded teaching games, 9x9 and 13x13 boards), changes nothing: it counts as a
    game but not in the win rate.
    """
    text = result.strip()
    low = text.lower()
    if low in _NO_RESULT:
        return GoPoints(0, 0, counted=False, win_rate=False)
    if low.startswith("b+") or text in _BLACK_WINS:
        black, white = 1, -1
    elif low.startswith("w+") or text in _WHITE_WINS:
        black, white = -1, 1
    elif low in _JIGO:
        black, white = 0, 0
    else:
        raise ValueError(f"unknown Go result {result!r}; use B+..., W+..., jigo or void")
    if free_game or stones >= MAX_STONES:
        return GoPoints(0, 0, counted=True, win_rate=False)
    return GoPoints(black, white, counted=True, win_rate=True)


# R4: the PAA points/rank table (PAA持点と段級位対応表), lowest points of each rank.
GO_RANKS: tuple[tuple[str, int], ...] = (
    ("9k以下", 0),  # the table gives 40 for 9 kyu and below / beginners
    ("8k", 41),
    ("7k", 51),
    ("6k", 61),
    ("5k", 71),
    ("4k", 81),
    ("3k", 91),
    ("2k", 101),
    ("1k", 111),
    ("1d", 121),
    ("2d", 131),
    ("3d", 141),
    ("4d", 151),
    ("5d", 161),
    ("6d", 171),
    ("7d", 181),
    ("8d", 191),
    ("プロ棋士、8d以上", 201),
)


def go_rank(points: int) -> str:
    """The rank (段級位) for salon points, from the seed's table (R4)."""
    reached = GO_RANKS[0][0]
    for rank, lowest in GO_RANKS:
        if points >= lowest:
            reached = rank
    return reached


_RANK_RE = re.compile(r"^(\d+)\s*(k|kyu|級|d|dan|段)$")
_KANJI_DAN = {"初": 1, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}


def rank_points(rank: str) -> int:
    """Starting salon points for a self-declared rank (R4, seed 004 1-2).

    ``rank``: ``"4k"``, ``"4kyu"``, ``"4級"``, ``"1d"``, ``"1dan"``, ``"初段"``, ``"pro"``
    (any case, full-width digits too). The seed converts a declared rank with its table
    and works its example with a rank's middle value (例4: "4kの中央値"; 4k is 81-90 and
    the example's difference only comes out with 85), so a rank gives the middle of its
    band, rounded down. 9k and weaker start at 0 (初期値を「0」); 8d and above, and
    professionals, start at the lowest points of the open top band.
    """
    text = unicodedata.normalize("NFKC", rank).strip().lower()
    if text in ("pro", "プロ", "プロ棋士"):
        return GO_RANKS[-1][1]
    if len(text) == 2 and text[1] == "段" and text[0] in _KANJI_DAN:
        text = f"{_KANJI_DAN[text[0]]}d"
    match = _RANK_RE.match(text)
    if match is None or int(match.group(1)) < 1:
        raise ValueError(f"not a go rank: {rank!r} (e.g. 4k, 1d, pro)")
    number, dan = int(match.group(1)), match.group(2) in ("d", "dan", "段")
    if not dan and number >= 9:
        return GO_RANKS[0][1]  # 9級以下: 0, whatever the declared kyu
    if dan and number > 8:
        return GO_RANKS[-1][1]  # above 8d: the open top band
    name = f"{number}{'d' if dan else 'k'}"
    index = next(i for i, (label, _) in enumerate(GO_RANKS) if label == name)
    lowest, upper = GO_RANKS[index][1], GO_RANKS[index + 1][1] - 1
    return (lowest + upper) // 2


# The same bands as GO_RANKS, as short codes (``9k`` stands for 9 kyu and below, ``pro``
# for professionals and 8 dan above): what is stored and printed for scripts.
RANK_CODES: tuple[str, ...] = (
    "9k", "8k", "7k", "6k", "5k", "4k", "3k", "2k", "1k",
    "1d", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "pro")
_DAN_JA = ("初", "二", "三", "四", "五", "六", "七", "八")

RATE_UP = 0.65
"""Seed 004 section 2: a rank moves up only with a win rate of 0.65 or more."""
RATE_DOWN = 0.35
"""Seed 004 section 2: a rank moves down only with a win rate of 0.35 or less."""
TELL_TD_AT = 10
"""Seed 004 section 3: official points after about 10 counted games (対戦数10局以上を目安)."""


def rank_code(points: int) -> str:
    """The rank the points reach in the seed's table, as a short code (``1d``, ``4k``)."""
    index = 0
    for i, (_label, lowest) in enumerate(GO_RANKS):
        if points >= lowest:
            index = i
    return RANK_CODES[index]


def rank_name(code: str, lang: str = "en") -> str:
    """A rank code as members read it: ``1d``/``1k`` in English, ``初段``/``1級`` in
    Japanese (``9級以下``, ``プロ``)."""
    if lang != "ja":
        return code
    if code == "pro":
        return "プロ"
    number, kind = int(code[:-1]), code[-1]
    if kind == "d":
        return f"{_DAN_JA[number - 1]}段"
    return f"{number}級以下" if number == 9 else f"{number}級"


def win_rate(wins: int, losses: int, draws: int) -> float | None:
    """The win rate over the counted games (a jigo half a win); None before any."""
    games = wins + losses + draws
    if games == 0:
        return None
    return (wins + draws / 2) / games


def next_rank(rank: str, points: int, wins: int, losses: int, draws: int) -> str:
    """The rank after a counted game (seed 004 section 2): the table's rank for the
    points, reached upwards only with a win rate of 0.65 or more and downwards only with
    0.35 or less over the counted games; otherwise the rank stays ``rank``."""
    table = rank_code(points)
    if not rank or rank not in RANK_CODES:
        return table
    rate = win_rate(wins, losses, draws)
    now, then = RANK_CODES.index(rank), RANK_CODES.index(table)
    if rate is None or then == now:
        return rank
    if then > now and rate >= RATE_UP:
        return table
    if then < now and rate <= RATE_DOWN:
        return table
    return rank


@dataclass(frozen=True)
class SalonRecord:
    """A member's counted games in the salon and the points they started from."""

    points: int
    wins: int
    losses: int
    draws: int

    @property
    def counted(self) -> int:
        """Games in the count (対戦数): not free, not void."""
        return self.wins + self.losses + self.draws

    @property
    def rate(self) -> float | None:
        """The win rate (a jigo half a win)."""
        return win_rate(self.wins, self.losses, self.draws)


def estimate_points(known: int, stones: int, komi: float, *, takes_black: bool = True
                    ) -> tuple[int, ...]:
    """Seed 004 section 2-2: the points a member's usual terms imply, against a member of
    ``known`` points: ``stones`` (1 for 先番, the same for 互先 with 5.5 komi), ``komi``
    from Black (negative: from White). The terms give ``diff - 8N = 5.5 - komi`` with
    ``N = stones - 1``; a komi of 0 lies between 5 and 6, so two answers. The member takes
    Black (``takes_black``, the weaker side) or gives the stones (the stronger side).
    Answers in the seed's order: the smaller difference first."""
    if not 1 <= stones <= MAX_STONES:
        raise ValueError(f"stones must be 1 to {MAX_STONES}, not {stones}")
    if (komi * 2) != int(komi * 2):
        raise ValueError(f"komi must be a whole or half point, not {komi}")
    n = stones - 1
    rest = 5.5 - komi
    low, high = int(rest // 1), int(-(-rest // 1))
    limit = 7 if n < MAX_STONES - 1 else None  # 7 stones: any komi from White
    if rest < 0 or (limit is not None and high > limit and low > limit):
        raise ValueError(f"{stones} stones with komi {komi:g} are not terms of the table")
    diffs = sorted({8 * n + r for r in (low, high) if limit is None or r <= limit})
    sign = -1 if takes_black else 1
    return tuple(known + sign * d for d in diffs)


@dataclass(frozen=True)
class TermsPlayed:
    """One counted game as section 2-2 reads it: the opponent's points at the start,
    the stones (1: 先番 or 互先) and the komi from Black, and whether the member took
    Black."""

    opponent: int
    stones: int
    komi: float
    took_black: bool


def implied_points(games: list[TermsPlayed], wins: int, losses: int) -> int | None:
    """The points a member's results imply (for the chair's official points, section 3):
    each counted game's terms give the points they imply against that opponent (section
    2-2, the mean of its two answers), and the results move them as the salon's own
    count does (+1 a win, -1 a loss). None when no game's terms can be read."""
    found: list[float] = []
    for game in games:
        try:
            answers = estimate_points(game.opponent, max(1, game.stones), game.komi,
                                      takes_black=game.took_black)
        except ValueError:
            continue
        found.append(sum(answers) / len(answers))
    if not found:
        return None
    return max(0, round(sum(found) / len(found) + wins - losses))
