"""A new game between two members, as ``game new`` and the events make it: what the
operator gives (:class:`GameInput`), the go salon's handicap from the members' points
(R4) and its electronic toss (seed 004), and :func:`create_game` checking it all.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.members import find_member
from relaybot.club.rating_book import current_ratings, rating_row
from relaybot.config import Config
from relaybot.core.clocks.controls import TimeControl
from relaybot.core.game import setup_position
from relaybot.core.ratings import handicap_between
from relaybot.games import rules_for
from relaybot.store.models import Game, GameEvent, Member

GAME_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud, typed by hand


def new_game_id(session: Session) -> str:
    """A short random id, unique in the store."""
    while True:
        candidate = "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(6))
        if session.get(Game, candidate) is None:
            return candidate


@dataclass(frozen=True)
class GameInput:
    white: str
    black: str
    event: str | None = None
    # None: the game's own rule (GameRules.rule_set: JCCA for chess, seed 002 for shogi)
    time_control: str | None = None
    start: date | None = None
    conditionals: str | None = None
    notation: str | None = None
    kind: str = "chess"
    overrun: str = "report"
    grace: int | None = None  # J7: days after receipt before the clock runs (2 in seed 002)
    leave: bool | None = None  # J12: False where the event allows no pause (seed 002 rule 10)
    # the game's own start options (go: size, handicap, komi), as ``game new`` gives them;
    # ``handicap = "auto"`` takes stones and komi from the members' go points (R4)
    options: tuple[tuple[str, str], ...] = ()
    # seed 004 section 4: an even go game's colours by toss (電子トス), not as given
    toss: bool = False


@dataclass(frozen=True)
class Toss:
    """Seed 004 section 4's electronic toss (電子トス): the last digit of the time the game
    was made; even (丁) gives Black to the first-named player, odd (半) to the second."""

    time: str  # HH:MM:SS, in the bot's time zone
    digit: int
    black: str  # the address that takes Black

    @property
    def even(self) -> bool:
        """丁 (even) or 半 (odd)."""
        return self.digit % 2 == 0


def toss_for_black(first: str, second: str, now: datetime, tz: str) -> Toss:
    """Who takes Black in an even game (seed 004 section 4: 時刻の末尾数字で、偶奇を判定):
    the first-named player on an even last digit of the seconds, the second on an odd."""
    local = now.astimezone(ZoneInfo(tz))
    digit = local.second % 10
    return Toss(local.strftime("%H:%M:%S"), digit, first if digit % 2 == 0 else second)


def _even_terms(options: dict[str, str]) -> bool:
    """No handicap stones and Black giving komi as in an even game (互先, seed 004)."""
    try:
        komi = float(options.get("komi") or 5.5)
    except ValueError:
        return False
    return options.get("handicap", "0") in ("", "0") and komi >= 5.5


def without_go_points(session: Session, members: Sequence[Member],
                      points: Mapping[int, int] | None = None) -> tuple[list[str], list[str]]:
    """The addresses among ``members`` with no go points at all, and those whose points
    are the provisional 0 of a strength not yet known (seed 004 section 2): neither gives
    a handicap (R4). ``points``: the members' go points when the caller has read them."""
    if points is None:
        points = current_ratings(session, tuple(m.id for m in members), "go")
    missing = [m.email for m in members if m.id not in points]
    unknown = [m.email for m in members if points.get(m.id) == 0
               and (row := rating_row(session, m.id, "go")) is not None and row.provisional]
    return missing, unknown


def salon_handicap(session: Session, g: GameInput) -> GameInput:
    """R4: ``--handicap auto`` made concrete from the two members' go points (seed 004):
    the stones and komi of ``handicap_between``, the member with fewer points taking
    Black; equal points are an even game with the colours as given."""
    options = dict(g.options)
    if options.get("handicap") != "auto" or g.kind != "go":
        return g  # a game other than go refuses the option when it is set up
    first, second = find_member(session, g.white), find_member(session, g.black)
    points = current_ratings(session, (first.id, second.id), g.kind)
    missing, unknown = without_go_points(session, (first, second), points)
    if missing:
        raise AdminError(f"--handicap auto needs both members' go points; set them with "
                         f"member set ADDR --rating N --game go (or --rank 4k): "
                         f"{', '.join(missing)}")
    if unknown:  # seed 004 section 2: 0 until the office sets points from results
        raise AdminError(f"--handicap auto: {', '.join(unknown)} has no go points yet (0, "
                         f"strength unknown); the players agree terms: --handicap N --komi K")
    black, cond = handicap_between(points[first.id], points[second.id])
    white_addr, black_addr = g.white, g.black
    if black == "a":  # the --white member has fewer points: they take Black
        white_addr, black_addr = g.black, g.white
    options["handicap"] = str(cond.stones if cond.stones >= 2 else 0)
    if "komi" not in options:
        options["komi"] = f"{cond.komi:g}"  # SGF's KM: what Black gives White
    return replace(g, white=white_addr, black=black_addr, options=tuple(options.items()))


def create_game(session: Session, cfg: Config, g: GameInput, now: datetime) -> Game:
    """Create a game between two members; the caller queues the start mails."""
    g = salon_handicap(session, g)
    toss = None
    if g.kind == "go" and g.toss and _even_terms(dict(g.options)):
        toss = toss_for_black(g.black, g.white, now, cfg.bot.timezone)
        if toss.black != g.black:
            g = replace(g, white=g.black, black=g.white)
    white, black = find_member(session, g.white), find_member(session, g.black)
    if white.id == black.id:
        raise AdminError("--white and --black are the same member")
    try:
        rules = rules_for(g.kind)
    except ValueError as exc:  # a game this relaybot does not play (yet)
        raise AdminError(f"--game: {exc}") from None
    own = rules.rule_set  # what an option left unsaid is: the game's own rules
    g = replace(g, time_control=g.time_control or own.time_control,
                conditionals=g.conditionals or own.conditionals,
                grace=own.grace if g.grace is None else g.grace,
                leave=own.leave if g.leave is None else g.leave)
    assert g.time_control is not None
    try:  # J8: the clock the game will count with, read as the clocks read it
        control = TimeControl.parse(g.time_control)
    except ValueError as exc:
        raise AdminError(f"--time-control: {exc}") from None
    g = replace(g, time_control=str(control))
    if g.conditionals not in ("binding", "optional", "off"):
        raise AdminError(f"--conditionals must be binding, optional or off, not {g.conditionals!r}")
    if g.overrun not in ("report", "forfeit"):
        raise AdminError(f"--overrun must be report or forfeit, not {g.overrun!r}")
    if g.overrun == "forfeit" and not own.time_forfeit:
        raise AdminError(f"--overrun forfeit: a {g.kind} game is not lost on time (its days "
                         f"are a guide to progress in the salon's rules); overruns are "
                         f"reported to the TD")
    if g.grace not in (1, 2):
        raise AdminError(f"--grace must be 1 (the next day) or 2 (the day after), "
                         f"not {g.grace}")
    if g.notation not in (None, "san", "numeric"):
        raise AdminError(f"--notation must be san or numeric, not {g.notation!r}")
    try:
        start_position = rules.save(setup_position(rules, dict(g.options)))
    except ValueError as exc:
        raise AdminError(f"--game {g.kind}: {exc}") from None
    # the game says which colour option is side 0 (shogi: --black is 先手, who moves first)
    by_option = {"white": white, "black": black}
    side0, side1 = by_option[rules.colour_options[0]], by_option[rules.colour_options[1]]
    # R1/J15: the ratings at the start, in this game's kind (none: unrated in it)
    at_start = current_ratings(session, (side0.id, side1.id), g.kind)
    pair = (Game.side0_id.in_([side0.id, side1.id])) & (Game.side1_id.in_([side0.id, side1.id]))
    label = chr(ord("A") + (session.scalar(select(func.count(Game.id)).where(pair)) or 0) % 26)
    game = Game(
        id=new_game_id(session), kind=g.kind, event=g.event, round="-",
        side0_id=side0.id, side1_id=side1.id, time_control=g.time_control,
        conditionals=g.conditionals, notation=g.notation,
        start_date=g.start or now.astimezone(ZoneInfo(cfg.bot.timezone)).date(),
        status="active", plies="", ply_count=0, position=start_position,
        side0_rating=at_start.get(side0.id), side1_rating=at_start.get(side1.id), label=label,
        overrun=g.overrun, grace=g.grace, leave_allowed=int(bool(g.leave)),
        created_at=now, updated_at=now,
    )
    session.add(game)
    session.flush()
    if toss is not None:  # seed 004 section 4: said in the start mail
        session.add(GameEvent(game_id=game.id, at=now, kind="toss", colour=0, ply=0,
                              detail={"time": toss.time, "digit": toss.digit,
                                      "even": toss.even}))
        session.flush()
    return game
