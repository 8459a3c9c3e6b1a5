"""Standings and tie-breaks for every event (T5, T3), and the JCCA final's entry (T1).

Pure: stdlib only, no I/O. The tables that show the standings (crosstables for the
web page and mail, lines for any font) are :mod:`.crosstables`.

Points: win 1, draw 0.5, loss 0 (千日手・持将棋 are 0.5 in the shogi league, T3).
Tie-breaks, by name, applied in the order given to players still tied:

``sb``
    Sonneborn-Berger: for every game, the player's score times the opponent's points
    (beaten opponents' points in full, drawn opponents' points by half). Seed 002
    defines it as "負かした相手の勝星の合計", the same when there are no draws.
``sb_beaten``
    Seed 002 rule 18 SB方式 as the seed words it: "負かした相手の勝星の合計", the points
    of the opponents beaten, each in full; a drawn opponent counts nothing (the shogi
    league's own; chess's ``sb`` counts a drawn one by half).
``median_beaten``
    Seed 002 rule 18 ミディアム方式 on the same terms: the points of the opponents
    beaten without the highest and the lowest one (0 with two or fewer beaten).
``solkoff`` (alias ``buchholz``)
    The sum of the opponents' points, one term per game (seed 002 ソルコフ方式).
``median``
    Seed 002 ミディアム方式: "負かした相手の勝星が最高と最低の2人を除いた相手の勝星の合計":
    the Sonneborn-Berger terms of the games the player scored in (won, or drawn at
    half), without the highest and the lowest one (0 with two such games or fewer).
``median_buchholz``
    Solkoff without the highest and the lowest opponent (0 with two games or fewer):
    the "median Buchholz" of Western chess.
``direct``
    Direct encounter (seed 002 DH方式): the points scored in the games among the
    players tied at that point; applied only when each of them has played each other.
``wins``
    The number of games won outright.
``start``
    The order at the start of the season (shogi league, T3), from ``start_order``;
    a smaller number is higher; players without one come after those with one.
``entry``
    The order of ``players`` (参加表明順, T3): no two players tie on it.
``margin``
    Go salon league (T4, seed 004 5)(2)): the points won by minus the points lost by,
    a win by resignation (or time, or forfeit) and any margin over 20 counting 20.
``direct_pair``
    Direct encounter between exactly two tied players (T4 (3)); no separation for three
    or more, who go to ``rating``.
``rating``
    The players' ratings (go: the salon's points, 持ち点, T4 (4)), higher first, from
    ``ratings``.

The first key is the score (``primary="points"``), or the win rate (``"rate"``: the
score over the games finished, T4 (1) 勝率).

Players still tied after every tie-break share a rank ("1, 2, 2, 4").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = [
    "DEFAULT_TIEBREAKS",
    "LAST_FINAL_50",
    "SOLE_FIRST",
    "TIEBREAKS",
    "TIED_FIRST_70",
    "GameResult",
    "StandingRow",
    "final_entries",
    "final_entry",
    "standings",
]

DEFAULT_TIEBREAKS: tuple[str, ...] = ("sb", "solkoff", "median", "direct")
TIEBREAKS: tuple[str, ...] = (
    "sb",
    "sb_beaten",
    "solkoff",
    "buchholz",
    "median",
    "median_beaten",
    "median_buchholz",
    "direct",
    "wins",
    "start",
    "entry",
    "margin",
    "direct_pair",
    "rating",
)
SALON_TIEBREAKS: tuple[str, ...] = ("margin", "direct_pair", "rating")
"""T4: the go salon league's order after the win rate."""
LEAGUE_TIEBREAKS: tuple[str, ...] = (
    "start", "solkoff", "sb_beaten", "median_beaten", "direct", "entry")
"""T3 (seed 002 rules 15, 18): after the wins the starting order; among players who share
a starting place, Solkoff, SB and median as the seed counts them, direct encounter, the
order of entry (the seed's first step, the wins, is the score itself)."""
MARGIN_CAP = Fraction(20)
"""T4: 中押し勝ちおよび20目以上の差は20目とする."""

# Result -> (White's score, Black's score); None: not finished, not counted.
_SCORES: dict[str, tuple[Fraction, Fraction] | None] = {
    "1-0": (Fraction(1), Fraction(0)),
    "0-1": (Fraction(0), Fraction(1)),
    "1/2-1/2": (Fraction(1, 2), Fraction(1, 2)),
    "0-0": (Fraction(0), Fraction(0)),  # both lose (shogi league past the deadline, J14)
    "*": None,
}


@dataclass(frozen=True)
class GameResult:
    """One game of an event: ``result`` is "1-0", "0-1", "1/2-1/2", "0-0" or "*";
    ``margin`` the winner's margin in points where the game counts one (go ``B+3.5``),
    None for a win without one (resignation, time, forfeit)."""

    white: str
    black: str
    result: str
    margin: float | None = None


@dataclass(frozen=True)
class StandingRow:
    """One player's line in the standings (T5).

    ``results`` maps each opponent to this player's score in every game against
    them, in the order given (None for a game not finished). ``direct`` is the
    direct-encounter score if that tie-break was used to separate this player,
    else None. ``shared`` is True when the rank is shared with another player.
    """

    rank: int
    player: str
    points: float
    games: int
    wins: int
    draws: int
    losses: int
    sb: float
    solkoff: float
    median: float
    median_buchholz: float
    direct: float | None = None
    shared: bool = False
    results: Mapping[str, tuple[float | None, ...]] = field(default_factory=dict)
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    margin: float = 0.0  # T4: points won by minus points lost by (capped at 20 a game)
    rating: int | None = None  # T4: the rating the ``rating`` tie-break read
    # the game whose rating that is: in go it is the salon's points (持点, seed 004), and
    # the standings call it so
    rating_game: str = ""
    primary: str = "points"  # what ranks first: the score, or the win rate (T4)
    # T3 (seed 002 rule 18): SB and median over the opponents beaten only, the values
    # the shogi league's tie-breaks ``sb_beaten`` and ``median_beaten`` compare
    sb_beaten: float = 0.0
    median_beaten: float = 0.0

    @property
    def percent(self) -> float:
        """Score as a percentage of games finished (0 with no games)."""
        return 100.0 * self.points / self.games if self.games else 0.0


@dataclass
class _Tally:
    points: Fraction = Fraction(0)
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    margin: Fraction = Fraction(0)  # T4, capped per game
    # (opponent, own score) per finished game
    played: list[tuple[str, Fraction]] = field(default_factory=list)
    cells: dict[str, list[Fraction | None]] = field(default_factory=dict)


def _trimmed(values: list[Fraction]) -> Fraction:
    """Sum without the highest and the lowest value; 0 for two values or fewer."""
    if len(values) <= 2:
        return Fraction(0)
    return sum(values, Fraction(0)) - max(values) - min(values)


def _tally(players: Sequence[str], results: Sequence[GameResult]) -> dict[str, _Tally]:
    if len(set(players)) != len(players):
        dup = next(p for p in players if list(players).count(p) > 1)
        raise ValueError(f"player {dup!r} is listed twice")
    tallies = {p: _Tally() for p in players}
    for game in results:
        for name in (game.white, game.black):
            if name not in tallies:
                raise ValueError(f"game {game.white} - {game.black}: {name!r} is not a player")
        if game.white == game.black:
            raise ValueError(f"game {game.white} - {game.black}: a player cannot play themself")
        if game.result not in _SCORES:
            known = ", ".join(_SCORES)
            raise ValueError(
                f"game {game.white} - {game.black}: unknown result {game.result!r}; use {known}"
            )
        scores = _SCORES[game.result]
        pairs = ((game.white, game.black, 0), (game.black, game.white, 1))
        for me, opp, side in pairs:
            tally = tallies[me]
            cell = tally.cells.setdefault(opp, [])
            if scores is None:
                cell.append(None)
                continue
            mine = scores[side]
            cell.append(mine)
            tally.points += mine
            tally.games += 1
            tally.played.append((opp, mine))
            won = min(MARGIN_CAP, Fraction(game.margin)) if game.margin is not None \
                else MARGIN_CAP
            if mine == 1:
                tally.margin += won
            elif mine == 0 and scores[1 - side] == 1:
                tally.margin -= won
            if mine == 1:
                tally.wins += 1
            elif mine == Fraction(1, 2):
                tally.draws += 1
            else:
                tally.losses += 1
    return tallies


def _check_options(tiebreaks: Sequence[str], primary: str,
                   start_order: Mapping[str, int] | None,
                   ratings: Mapping[str, int] | None) -> None:
    """Refuse an order the standings cannot compute (a caller's mistake, said at once)."""
    if primary not in ("points", "rate"):
        raise ValueError(f"primary must be points or rate, not {primary!r}")
    for name in tiebreaks:
        if name not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {name!r}; known: {', '.join(TIEBREAKS)}")
    if "start" in tiebreaks and start_order is None:
        raise ValueError("tie-break 'start' needs start_order")
    if "rating" in tiebreaks and ratings is None:
        raise ValueError("tie-break 'rating' needs ratings")


class _Field:
    """Every player's tally and the tie-break sums computed from it, and the ordering of
    a group of players by a sequence of keys."""

    def __init__(self, players: Sequence[str], tallies: dict[str, _Tally],
                 start_order: Mapping[str, int] | None,
                 ratings: Mapping[str, int] | None) -> None:
        self.tallies = tallies
        self.start_order = start_order
        self.ratings = ratings
        self.entry = {p: i for i, p in enumerate(players)}
        self.points = {p: t.points for p, t in tallies.items()}
        self.sb: dict[str, Fraction] = {}
        self.solkoff: dict[str, Fraction] = {}
        self.median: dict[str, Fraction] = {}
        self.median_bh: dict[str, Fraction] = {}
        self.beaten: dict[str, list[Fraction]] = {}
        self.direct: dict[str, Fraction] = {}  # filled as direct encounters are asked for
        for p, t in tallies.items():
            self.beaten[p] = [self.points[o] for o, s in t.played if s == 1]
            terms = [s * self.points[o] for o, s in t.played if s > 0]
            opp_points = [self.points[o] for o, _ in t.played]
            self.sb[p] = sum(terms, Fraction(0))
            self.solkoff[p] = sum(opp_points, Fraction(0))
            self.median[p] = _trimmed(terms)
            self.median_bh[p] = _trimmed(opp_points)

    def direct_scores(self, group: list[str]) -> dict[str, Fraction]:
        """The points each scored against the others of ``group``; all 0 (no separation)
        unless every pair of them has met."""
        members = set(group)
        met = {frozenset((p, o)) for p in group for o, _ in self.tallies[p].played
               if o in members}
        if len(met) < len(group) * (len(group) - 1) // 2:
            return {p: Fraction(0) for p in group}
        scores = {p: sum((s for o, s in self.tallies[p].played if o in members), Fraction(0))
                  for p in group}
        self.direct.update(scores)
        return scores

    def key_values(self, key: str, group: list[str]) -> dict[str, Fraction]:
        """Each player's value of one ordering key (higher is better)."""
        simple: dict[str, Mapping[str, Fraction]] = {
            "points": self.points, "sb": self.sb, "solkoff": self.solkoff,
            "buchholz": self.solkoff, "median": self.median, "median_buchholz": self.median_bh}
        if key in simple:
            return {p: simple[key][p] for p in group}
        t = self.tallies
        if key == "rate":
            return {p: self.points[p] / t[p].games if t[p].games else Fraction(0)
                    for p in group}
        if key == "margin":
            return {p: t[p].margin for p in group}
        if key == "wins":
            return {p: Fraction(t[p].wins) for p in group}
        if key == "sb_beaten":
            return {p: sum(self.beaten[p], Fraction(0)) for p in group}
        if key == "median_beaten":
            return {p: _trimmed(self.beaten[p]) for p in group}
        if key == "direct_pair":
            return self.direct_scores(group) if len(group) == 2 else \
                {p: Fraction(0) for p in group}
        if key == "direct":
            return self.direct_scores(group)
        if key == "rating":
            assert self.ratings is not None
            return {p: Fraction(self.ratings[p]) if p in self.ratings else Fraction(-10**9)
                    for p in group}
        if key == "start":
            assert self.start_order is not None
            last = max(self.start_order.values(), default=0) + 1
            return {p: Fraction(-self.start_order.get(p, last)) for p in group}
        return {p: Fraction(-self.entry[p]) for p in group}  # "entry"

    def order(self, group: list[str], keys: Sequence[str]) -> list[list[str]]:
        """``group`` split into tied groups, best first, by ``keys`` in turn."""
        if len(group) <= 1 or not keys:
            return [group]
        values = self.key_values(keys[0], group)
        out: list[list[str]] = []
        for value in sorted(set(values.values()), reverse=True):
            out.extend(self.order([p for p in group if values[p] == value], keys[1:]))
        return out

    def row(self, p: str, rank: int, shared: bool, tiebreaks: Sequence[str], primary: str,
            rating_game: str) -> StandingRow:
        """Player ``p``'s line of the standings."""
        t = self.tallies[p]
        return StandingRow(
            rank=rank, player=p, points=float(t.points), games=t.games, wins=t.wins,
            draws=t.draws, losses=t.losses, sb=float(self.sb[p]),
            solkoff=float(self.solkoff[p]), median=float(self.median[p]),
            median_buchholz=float(self.median_bh[p]),
            direct=float(self.direct[p]) if p in self.direct else None, shared=shared,
            results={o: tuple(None if s is None else float(s) for s in cell)
                     for o, cell in t.cells.items()},
            tiebreaks=tuple(tiebreaks), margin=float(t.margin),
            rating=None if self.ratings is None else self.ratings.get(p),
            rating_game=rating_game, primary=primary,
            sb_beaten=float(sum(self.beaten[p], Fraction(0))),
            median_beaten=float(_trimmed(self.beaten[p])))


def standings(
    players: Sequence[str],
    results: Sequence[GameResult],
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    start_order: Mapping[str, int] | None = None,
    ratings: Mapping[str, int] | None = None,
    primary: str = "points",
    rating_game: str = "",
) -> list[StandingRow]:
    """The standings of an event, best first (T5; T3 with ``start``/``entry``; T4 with
    ``primary="rate"`` and :data:`SALON_TIEBREAKS`).

    ``players`` in entry order; ``results`` every game (unfinished ones as "*").
    Rows are ordered by ``primary`` (points or win rate), then by ``tiebreaks`` in turn
    (see the module text); players tied on all of them share a rank and keep their
    entry order.
    """
    _check_options(tiebreaks, primary, start_order, ratings)
    field = _Field(players, _tally(players, results), start_order, ratings)
    rows: list[StandingRow] = []
    position = 1
    for group in field.order(list(players), (primary, *tiebreaks)):
        rows.extend(field.row(p, position, len(group) > 1, tiebreaks, primary, rating_game)
                    for p in group)
        position += len(group)
    return rows


SOLE_FIRST = "sole_first"
TIED_FIRST_70 = "tied_first_70"
LAST_FINAL_50 = "last_final_50"


def final_entries(
    rows: Sequence[StandingRow],
    last_final_pct: Mapping[str, float] | None = None,
    spent: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    """Players of a finished JCCA preliminary group entitled to the final, each with the
    reason (T1, seed 000 「決勝Tの参加資格は、予選Tの単独1位になった者、70%以上の勝率を上げて同率
    1位になった者、過去の決勝Tで50%以上の勝率を上げた者」): :data:`SOLE_FIRST` (by points
    alone), :data:`TIED_FIRST_70` (tied first with 70% or more), :data:`LAST_FINAL_50`
    (50% or more in the last final the player played, ``last_final_pct``: player ->
    percentage 0-100 there; below 50% there, the right is gone: 「最後に参加した決勝Tで50%
    未満の勝率であったときは権利消滅」).

    ``spent``: players whose first place here no longer counts, having entered a final
    since (「1位権利者は1度決勝トーナメントに参加すると、複数回1位となっても権利消滅」).
    Returns players of ``rows`` only, in standings order.
    """
    if not rows:
        return []
    top = max(r.points for r in rows)
    first = sum(1 for r in rows if r.points == top)
    past = last_final_pct or {}
    entitled: list[tuple[str, str]] = []
    for r in rows:
        is_first = r.points == top and r.player not in spent
        if is_first and first == 1:
            entitled.append((r.player, SOLE_FIRST))
        elif is_first and r.games and r.points * 10 >= 7 * r.games:
            entitled.append((r.player, TIED_FIRST_70))
        elif past.get(r.player, -1.0) >= 50:
            entitled.append((r.player, LAST_FINAL_50))
    return entitled


def final_entry(
    rows: Sequence[StandingRow], last_final_pct: Mapping[str, float] | None = None
) -> list[str]:
    """Players of a finished JCCA preliminary group entitled to the final (T1); see
    :func:`final_entries`, which also gives the reasons."""
    return [player for player, _reason in final_entries(rows, last_final_pct)]
