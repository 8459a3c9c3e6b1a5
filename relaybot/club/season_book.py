"""Seasons of the shogi net league in the store (T3, seed 002): a season's classes as
league events, its standings and outcomes, the next season, the titles.

The rules themselves are pure, in :mod:`relaybot.core.seasons`; this module reads and
writes the tables (``seasons``, ``season_classes``, ``season_players``). The season's end
is :mod:`relaybot.app.season_end`, its reports (rules 19, 20) :mod:`relaybot.app.season_reports`,
its web page :mod:`relaybot.web.season`; a mating line binds near a game's deadline
(rule 16) in :mod:`relaybot.pipeline.play`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.members import find_member, td_address
from relaybot.club.tournaments import (
    EventInput,
    by_standing_name,
    create_event,
    event_standings,
)
from relaybot.config import ADDRESS_RE, Config
from relaybot.core.events import LEAGUE_TIEBREAKS
from relaybot.core.seasons import (
    FIRST_TIMER_TABLE,
    REST,
    TOP,
    WITHDRAWN,
    ClassResult,
    Finisher,
    Newcomer,
    NextSeason,
    Returner,
    check_sizes,
    class_event_name,
    first_timer_class,
    letters,
    next_classes,
    outcomes,
    season_dates,
    titles_of,
)
from relaybot.store.models import (
    Event,
    EventPlayer,
    Game,
    Member,
    MemberTitle,
    Season,
    SeasonClass,
    SeasonPlayer,
)

MEIJIN_TITLE = "meijin"  # member_titles.title of a season's 名人 (rule 13)
RESTING = "resting"  # sitting a season out (休場), the class kept


@dataclass(frozen=True)
class SeasonInput:
    """What ``season new`` is given: the classes best first, each its players in their
    starting order (addresses); ``orders`` and ``bands`` when ``season next`` placed them;
    ``resting``: (address, class kept) of those sitting the season out."""

    name: str
    start: date
    classes: list[tuple[str, list[str]]]
    game: str = "shogi"
    td: str | None = None
    secretaries: dict[str, str] = field(default_factory=dict)
    rounding: str = "round"
    orders: dict[str, int] = field(default_factory=dict)
    bands: dict[str, str] = field(default_factory=dict)
    resting: list[tuple[str, str]] = field(default_factory=list)
    previous: Season | None = None


def find_season(session: Session, name: str) -> Season:
    """The season called ``name``, or an AdminError."""
    season = session.scalar(select(Season).where(Season.name == " ".join(name.split())))
    if season is None:
        raise AdminError(f"no season named {name!r}")
    return season


def create_season(session: Session, cfg: Config, s: SeasonInput,
                  now: datetime) -> tuple[Season, list[Game]]:
    """Create the season, one league event per class (games from the 10th, rule 12), and
    its players; the caller queues the games' start mails."""
    name = " ".join(s.name.split())
    if not name:
        raise AdminError("the season needs a name")
    if session.scalar(select(Season.id).where(Season.name == name)) is not None:
        raise AdminError(f"a season named {name!r} already exists")
    try:
        dates = season_dates(s.start)
    except ValueError as exc:
        raise AdminError(f"--start: {exc}") from None
    if s.game != "shogi":
        raise AdminError("--game: the net league's seasons are shogi (seed 002)")
    td = td_address(cfg, s.td)
    if s.previous is not None:
        check_next(session, s.previous, name, s.start)
    if not s.classes:
        raise AdminError("a season needs its classes (--class S=ADDR,ADDR,...)")
    want = letters(len(s.classes))
    given = [letter for letter, _ in s.classes]
    if given != want:
        raise AdminError(f"--class: the classes are {', '.join(want)} in this order, "
                         f"not {', '.join(given)}")
    wrong = check_sizes([(letter, len(players)) for letter, players in s.classes])
    if wrong:
        raise AdminError("; ".join(wrong))
    seen: set[int] = set()
    for _, players in s.classes:
        for address in players:
            member = find_member(session, address)
            if member.id in seen:
                raise AdminError(f"{address} is in more than one class")
            seen.add(member.id)
    # T3: one league, one season at a time: a player of a season not ended whose days
    # overlap this one's cannot play both
    for other, email in session.execute(
            select(Season, Member.email).join(SeasonPlayer, SeasonPlayer.season_id == Season.id)
            .join(Member, Member.id == SeasonPlayer.member_id)
            .where(Season.ended_at.is_(None), SeasonPlayer.member_id.in_(seen),
                   SeasonPlayer.state != RESTING,
                   Season.start_date <= dates.end, Season.end_date >= dates.start)
            .order_by(Season.start_date, Member.email).limit(1)).all():
        raise AdminError(f"{email} plays in season {other.name} ({other.start_date} to "
                         f"{other.end_date}), which this one overlaps")
    for letter, address in s.secretaries.items():
        if letter not in given:
            raise AdminError(f"--secretary: no class {letter}")
        if not ADDRESS_RE.match(address):
            raise AdminError(f"--secretary: not a mail address: {address!r}")
    number = (s.previous.number + 1) if s.previous is not None else 1
    season = Season(name=name, game=s.game, number=number, start_date=dates.start,
                    end_date=dates.end, td=td, rounding=s.rounding,
                    previous_id=s.previous.id if s.previous is not None else None,
                    created_at=now)
    session.add(season)
    session.flush()
    games: list[Game] = []
    for position, (letter, players) in enumerate(s.classes):
        event_name = class_event_name(name, letter)
        games += create_event(session, cfg, EventInput(
            name=event_name, kind="league", players=players, start=dates.play,
            game=s.game, tiebreaks=",".join(LEAGUE_TIEBREAKS), td=td, leave=False), now)
        event = session.scalar(select(Event).where(Event.name == event_name))
        assert event is not None
        session.add(SeasonClass(season_id=season.id, letter=letter, position=position,
                                event_id=event.id,
                                secretary=s.secretaries.get(letter)))
        for seat, address in enumerate(players, start=1):
            member = find_member(session, address)
            order = s.orders.get(member.email, seat)
            entry = session.scalar(select(EventPlayer).where(
                EventPlayer.event_id == event.id, EventPlayer.member_id == member.id))
            assert entry is not None
            entry.start_order = order
            session.add(SeasonPlayer(season_id=season.id, member_id=member.id,
                                     letter=letter, state="playing",
                                     band=s.bands.get(member.email, "initial"),
                                     start_order=order))
    for address, letter in s.resting:
        member = find_member(session, address)
        session.add(SeasonPlayer(season_id=season.id, member_id=member.id, letter=letter,
                                 state=RESTING, band="resting"))
    session.flush()
    return season, games


def season_classes(session: Session, season: Season) -> list[tuple[SeasonClass, Event]]:
    """The season's classes, best first, each with its event."""
    rows = session.execute(
        select(SeasonClass, Event).join(Event, Event.id == SeasonClass.event_id)
        .where(SeasonClass.season_id == season.id).order_by(SeasonClass.position)).all()
    return [(c, e) for c, e in rows]


def season_of_event(session: Session, event_name: str | None) -> Season | None:
    """The season one of whose classes is the event ``event_name``."""
    if not event_name:
        return None
    return session.scalar(select(Season).join(SeasonClass, SeasonClass.season_id == Season.id)
                          .join(Event, Event.id == SeasonClass.event_id)
                          .where(Event.name == event_name))


def _states(session: Session, season: Season) -> dict[int, SeasonPlayer]:
    return {p.member_id: p for p in session.scalars(
        select(SeasonPlayer).where(SeasonPlayer.season_id == season.id))}


ClassRows = list[tuple[str, Event, list[dict[str, Any]]]]


def class_results(session: Session, season: Season) -> ClassRows:
    """Per class (best first): its letter, its event and its players in standing order
    (rules 15, 18) as dicts: email, name, start_order, rank, wins (千日手・持将棋 as 0.5),
    losses, draws, games, state."""
    states = _states(session, season)
    out = []
    for cls, event in season_classes(session, season):
        members = by_standing_name(list(session.scalars(
            select(Member).join(EventPlayer, EventPlayer.member_id == Member.id)
            .where(EventPlayer.event_id == event.id))))
        rows = []
        for r in event_standings(session, event):
            member = members[r.player]
            state = states[member.id].state if member.id in states else "playing"
            order = states[member.id].start_order if member.id in states else None
            rows.append({"email": member.email, "name": member.name, "start_order": order,
                         "rank": r.rank, "wins": r.points, "losses": r.losses,
                         "draws": r.draws, "games": r.games, "state": state})
        out.append((cls.letter, event, rows))
    return out


def _resting_next(session: Session, season: Season) -> set[str]:
    nxt = session.scalar(select(Season).where(Season.previous_id == season.id))
    if nxt is None:
        return set()
    return {m.email for m in session.scalars(
        select(Member).join(SeasonPlayer, SeasonPlayer.member_id == Member.id)
        .where(SeasonPlayer.season_id == nxt.id, SeasonPlayer.state == RESTING))}


def season_outcomes(session: Session, season: Season,
                    resting: set[str] | None = None) -> dict[str, str]:
    """Each player's outcome by address (rules 4-6, 8), from the final standings."""
    classes = [ClassResult(letter, tuple(
        Finisher(r["email"], r["wins"], r["games"], r["state"]) for r in rows))
        for letter, _, rows in class_results(session, season)]
    held = _resting_next(session, season) if resting is None else resting
    return outcomes(classes, rounding=season.rounding, resting=held)


def season_titles(session: Session, season: Season) -> list[dict[str, str]]:
    """The titles the season gave (rule 13): 名人 to its S class's winner, 永世名人 from
    the fifth time on."""
    won = session.scalar(select(MemberTitle).where(MemberTitle.title == MEIJIN_TITLE,
                                                   MemberTitle.event == season.name))
    if won is None:
        return []
    member = session.get(Member, won.member_id)
    assert member is not None
    # the times up to this season (rule 13 通算5期), not those won after it
    times = session.scalar(select(func.count()).select_from(MemberTitle).join(
        Season, Season.name == MemberTitle.event).where(
        MemberTitle.member_id == member.id, MemberTitle.title == MEIJIN_TITLE,
        Season.end_date <= season.end_date)) or 0
    return [{"email": member.email, "title": t} for t in titles_of(times, True)]


def member_league_titles(session: Session, member_id: int) -> list[str]:
    """The league titles a member holds now (rule 13): 名人 while the latest ended
    season's, 永世名人 after five."""
    times = session.scalar(select(func.count()).select_from(MemberTitle).where(
        MemberTitle.member_id == member_id, MemberTitle.title == MEIJIN_TITLE)) or 0
    latest = session.scalar(select(MemberTitle).join(
        Season, Season.name == MemberTitle.event).where(MemberTitle.title == MEIJIN_TITLE)
        .order_by(Season.end_date.desc()).limit(1))
    return titles_of(times, latest is not None and latest.member_id == member_id)


def season_json(session: Session, season: Season) -> dict[str, Any]:
    """``season show --json`` (INTERFACE "Seasons")."""
    ended = season.ended_at is not None
    outcome = season_outcomes(session, season) if ended else {}
    classes = []
    for letter, event, rows in class_results(session, season):
        classes.append({"class": letter, "event": event.name, "players": [
            {"email": r["email"], "start_order": r["start_order"], "rank": r["rank"],
             "wins": r["wins"], "losses": r["losses"], "draws": r["draws"],
             "games": r["games"], "state": r["state"],
             "outcome": outcome.get(r["email"]) if ended else None} for r in rows]})
    resting = [{"email": m.email, "class": p.letter} for p, m in session.execute(
        select(SeasonPlayer, Member).join(Member, Member.id == SeasonPlayer.member_id)
        .where(SeasonPlayer.season_id == season.id, SeasonPlayer.state == RESTING)
        .order_by(SeasonPlayer.id)).all()]
    return {"season": season.name, "game": season.game,
            "start": season.start_date.isoformat(), "end": season.end_date.isoformat(),
            "ended": ended, "classes": classes, "resting": resting,
            "titles": season_titles(session, season)}


def award_meijin(session: Session, season: Season) -> None:
    """Rule 13: the S class's winner is 名人 of the season (once)."""
    results = class_results(session, season)
    if not results or results[0][0] != TOP or not results[0][2]:
        return
    if session.scalar(select(MemberTitle.id).where(
            MemberTitle.title == MEIJIN_TITLE, MemberTitle.event == season.name)) is not None:
        return
    winner = find_member(session, results[0][2][0]["email"])
    session.add(MemberTitle(member_id=winner.id, title=MEIJIN_TITLE, event=season.name))


# -- the next season (rules 4-8) ------------------------------------------------------

def _chain(session: Session, season: Season) -> list[Season]:
    out = [season]
    while out[-1].previous_id is not None:
        before = session.get(Season, out[-1].previous_id)
        if before is None:
            break
        out.append(before)
    return out  # latest first


def _returners(session: Session, season: Season, rests: set[str]) -> list[Returner]:
    """Those who sat ``season`` out and come back (all but ``rests``)."""
    chain = _chain(session, season)
    found = []
    for p, m in session.execute(
            select(SeasonPlayer, Member).join(Member, Member.id == SeasonPlayer.member_id)
            .where(SeasonPlayer.season_id == season.id, SeasonPlayer.state == RESTING)).all():
        if m.email in rests:
            continue
        rested, last, order = 0, 0, 0
        for s in chain:
            row = session.scalar(select(SeasonPlayer).where(
                SeasonPlayer.season_id == s.id, SeasonPlayer.member_id == m.id))
            if row is None:
                break
            if row.state == RESTING:
                rested += 1
                continue
            last, order = s.number, row.start_order or 0
            break
        found.append(Returner(m.email, p.letter, rested, last, order))
    return found


def plan_next(session: Session, season: Season, joins: Sequence[tuple[str, str]],
              rests: Sequence[str]) -> NextSeason:
    """The next season's classes from ``season``'s final standings (rules 4-8): ``joins``
    (address, points or class letter) are first-timers, ``rests`` sit it out."""
    if season.ended_at is None:
        raise AdminError(f"season {season.name} has not ended yet (its last day is "
                         f"{season.end_date})")
    results = class_results(session, season)
    in_season = {m.email for m in session.scalars(select(Member).join(
        SeasonPlayer, SeasonPlayer.member_id == Member.id).where(
        SeasonPlayer.season_id == season.id))}
    rest_set: set[str] = set()
    for address in rests:  # rule 8: 休場 is for a player of the league
        email = find_member(session, address).email
        if email not in in_season:
            raise AdminError(f"--rest: {address} does not play in {season.name} (a "
                             f"first-timer joins a later season with --join)")
        rest_set.add(email)
    classes = [ClassResult(letter, tuple(
        Finisher(r["email"], r["wins"], r["games"], r["state"]) for r in rows))
        for letter, _, rows in results]
    present = [c.letter for c in classes]
    table = [(str(a), int(str(b))) for a, b in season.first_timers] if season.first_timers \
        else list(FIRST_TIMER_TABLE)
    known = {r["email"] for _, _, rows in results for r in rows}
    newcomers: list[Newcomer] = []
    for address, value in joins:
        member = find_member(session, address)
        if member.email in known or session.scalar(select(SeasonPlayer.id).where(
                SeasonPlayer.member_id == member.id)) is not None:
            raise AdminError(f"--join: {address} has played in the league before")
        if value.isdigit():
            letter = first_timer_class(int(value), present, table)
        else:
            letter = value.strip().upper()
            if letter not in present:
                raise AdminError(f"--join: no class {value!r} ({', '.join(present)})")
        if member.email in {n.player for n in newcomers}:
            raise AdminError(f"--join: {address} is named twice")
        newcomers.append(Newcomer(member.email, letter))
    out = season_outcomes(session, season, resting=rest_set)
    try:
        return next_classes(classes, out, resting=rest_set,
                            returners=_returners(session, season, rest_set),
                            newcomers=newcomers)
    except ValueError as exc:
        raise AdminError(str(exc)) from None


def check_next(session: Session, season: Season, name: str, start: date) -> None:
    """Refuse, before any plan is printed, a next season ``season next`` could not create:
    a name taken, a start that is not the first of a month (rule 12), a start on or before
    ``season``'s last day (the seasons follow each other), or a season that already has
    its next one (T3)."""
    clean = " ".join(name.split())
    if not clean:
        raise AdminError("the season needs a name")
    if session.scalar(select(Season.id).where(Season.name == clean)) is not None:
        raise AdminError(f"a season named {clean!r} already exists")
    try:
        season_dates(start)
    except ValueError as exc:
        raise AdminError(f"--start: {exc}") from None
    if start <= season.end_date:
        raise AdminError(f"--start: the next season starts after {season.name} ends "
                         f"({season.end_date}), not on {start}")
    after = session.scalar(select(Season.name).where(Season.previous_id == season.id))
    if after is not None:
        raise AdminError(f"season {season.name} already has its next season, {after}")


def next_input(season: Season, name: str, start: date, plan: NextSeason,
               secretaries: dict[str, str] | None = None) -> SeasonInput:
    """The :class:`SeasonInput` that creates the planned next season."""
    return SeasonInput(
        name=name, start=start, game=season.game, td=season.td,
        classes=[(letter, [p.player for p in placed]) for letter, placed in plan.classes],
        secretaries=secretaries or {}, rounding=season.rounding,
        orders={p.player: p.start_order for _, placed in plan.classes for p in placed},
        bands={p.player: p.band for _, placed in plan.classes for p in placed},
        resting=list(plan.resting), previous=season)


def season_games(session: Session, season: Season) -> list[Game]:
    """Every game of the season's classes."""
    names = [e.name for _, e in season_classes(session, season)]
    return list(session.scalars(select(Game).where(Game.event.in_(names))
                                .order_by(Game.created_at, Game.id)))


def mark_player(session: Session, season: Season, member: Member, state: str,
                now: datetime, *, dry: bool = False) -> bool:
    """Set a member's state in the season (``rest`` or ``withdrawn``, rule 8); False when
    the member does not play in it. ``dry``: only say whether they do."""
    row = session.scalar(select(SeasonPlayer).where(
        SeasonPlayer.season_id == season.id, SeasonPlayer.member_id == member.id,
        SeasonPlayer.state != RESTING))
    if row is None:
        return False
    if dry:
        return row.state == "playing"
    row.state = state
    row.changed_at = now
    return True


STATES = ("playing", REST, WITHDRAWN, RESTING)
