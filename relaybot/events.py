"""Events: groups, matches, ladders and sections created from the CLI (T1, T2, T5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.admin import AdminError, GameInput, create_game, find_member
from relaybot.config import ADDRESS_RE, Config
from relaybot.core.events import (
    GameResult,
    StandingRow,
    crosstable_text,
    iccf_section,
    jcca_group,
    ladder,
    match,
    standings,
)
from relaybot.store.models import Event, EventPlayer, Game, Member

KINDS = ("group", "match", "ladder", "section")
TIEBREAKS = ("sb", "solkoff", "buchholz", "median", "median_buchholz", "direct", "wins")


@dataclass(frozen=True)
class EventInput:
    name: str
    kind: str
    players: list[str]
    time_control: str = "10/30"
    start: date | None = None
    conditionals: str = "binding"
    tiebreaks: str = "sb,solkoff,median,direct"
    overrun: str = "report"
    game: str = "chess"  # the game kind every game of the event plays
    grace: int = 1  # J7
    leave: bool = True  # J12
    td: str | None = None  # the event's TD; None: [bot] td


def pairings(kind: str, players: list[str]) -> list[tuple[str, str]]:
    """(white, black) pairs for an event of this kind (T1, T2)."""
    try:
        if kind == "group":
            if len(players) != 4:
                raise AdminError(f"a JCCA group has 4 players, not {len(players)}")
            return jcca_group(players)
        if kind == "match":
            if len(players) != 2:
                raise AdminError(f"a match has 2 players, not {len(players)}")
            return match(players[0], players[1])
        if kind == "ladder":
            if len(players) != 2:
                raise AdminError("a ladder challenge names the challenger, then the higher player")
            return ladder(players[0], players[1])
        if kind == "section":
            return iccf_section(players)
    except ValueError as exc:
        raise AdminError(str(exc)) from None
    raise AdminError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")


def create_event(session: Session, cfg: Config, e: EventInput, now: datetime) -> list[Game]:
    """Create the event and all its games; the caller queues their start mails."""
    name = " ".join(e.name.split())
    if not name:
        raise AdminError("the event needs a name")
    if session.scalar(select(Event.id).where(Event.name == name)) is not None:
        raise AdminError(f"an event named {name!r} already exists")
    for word in e.tiebreaks.split(","):
        if word.strip() not in TIEBREAKS:
            raise AdminError(f"--tiebreaks: unknown tie-break {word!r} ({', '.join(TIEBREAKS)})")
    members = [find_member(session, address) for address in e.players]
    emails = [m.email for m in members]
    if len(set(emails)) != len(emails):
        raise AdminError("a player is named twice in --players")
    td = e.td.strip().lower() if e.td else None
    if td is not None and not ADDRESS_RE.match(td):
        raise AdminError(f"--td is not a mail address: {e.td!r}")
    if td is not None and td in emails:
        raise AdminError("--td: the event's TD cannot play in it")
    pairs = pairings(e.kind, emails)
    start = e.start or now.astimezone(ZoneInfo(cfg.bot.timezone)).date()
    event = Event(name=name, kind=e.kind, time_control=e.time_control,
                  conditionals=e.conditionals, start_date=start, tiebreaks=e.tiebreaks,
                  td=td, created_at=now)
    session.add(event)
    session.flush()
    for seat, member in enumerate(members, start=1):
        session.add(EventPlayer(event_id=event.id, member_id=member.id, seat=seat))
    games = [
        create_game(session, cfg, GameInput(white=w, black=b, event=name,
                                            time_control=e.time_control, start=start,
                                            conditionals=e.conditionals,
                                            overrun=e.overrun, kind=e.game,
                                            grace=e.grace, leave=e.leave), now)
        for w, b in pairs
    ]
    return games


def event_players(session: Session, event: Event) -> list[Member]:
    rows = session.execute(select(Member).join(EventPlayer, EventPlayer.member_id == Member.id)
                           .where(EventPlayer.event_id == event.id)
                           .order_by(EventPlayer.seat)).scalars().all()
    return list(rows)


def event_standings(session: Session, event: Event) -> list[StandingRow]:
    """Standings with the event's tie-breaks, from its finished games (T5)."""
    players = event_players(session, event)
    names = {m.id: m.name for m in players}
    results = [
        GameResult(names[g.side0_id], names[g.side1_id], g.result or "*")
        for g in session.scalars(select(Game).where(Game.event == event.name))
        if g.side0_id in names and g.side1_id in names
        and g.status == "finished" and g.result in ("1-0", "0-1", "1/2-1/2")
    ]
    order = tuple(t.strip() for t in event.tiebreaks.split(",") if t.strip())
    return standings([m.name for m in players], results, order)


def event_text(session: Session, event: Event, lang: str = "en") -> str:
    """The crosstable as monospace text for mail and the CLI."""
    return crosstable_text(event_standings(session, event), lang)


def find_event(session: Session, name: str) -> Event:
    event = session.scalar(select(Event).where(Event.name == " ".join(name.split())))
    if event is None:
        raise AdminError(f"no event named {name!r}")
    return event


def score_line(session: Session, game: Game, colour: int, name: str = "",
               lang: str = "en") -> str:
    """J15: the reporter's score in the game's event as the report form writes it:
    "Name: 2 wins 1 draws 0 losses", or in Japanese as seed 000's form
    ("山田太郎の通算成績は 2 勝 1 ドロー 0 敗。"); "" for a game outside an event."""
    member_id = game.side0_id if colour == 0 else game.side1_id
    wins = draws = losses = 0
    if game.event is None:
        return ""
    for g in session.scalars(select(Game).where(
            Game.event == game.event, Game.status == "finished",
            (Game.side0_id == member_id) | (Game.side1_id == member_id))):
        mine = 0 if g.side0_id == member_id else 1
        if g.result == "1/2-1/2":
            draws += 1
        elif g.result in ("1-0", "0-1"):
            if (g.result == "1-0") == (mine == 0):
                wins += 1
            else:
                losses += 1
    if lang == "ja":
        return f"{name}の通算成績は {wins} 勝 {draws} ドロー {losses} 敗。"
    return f"{name}: {wins} wins {draws} draws {losses} losses"
