"""Events: groups, matches, ladders, sections, the shogi league and the go salon's
league, created from the CLI (T1-T5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.members import find_member, member_by_address, td_address
from relaybot.club.new_games import GameInput, create_game, without_go_points
from relaybot.club.rating_book import current_ratings, ratings_at
from relaybot.club.results import result_form, result_margin
from relaybot.config import Config
from relaybot.core.events import (
    LEAGUE_TIEBREAKS,
    SALON_TIEBREAKS,
    GameResult,
    StandingRow,
    crosstable_text,
    exempt,
    final_entries,
    iccf_section,
    jcca_group,
    ladder,
    match,
    round_robin,
    secretaries,
    shogi_league,
    standings,
)
from relaybot.core.names import PersonName, distinct
from relaybot.games import rules_for
from relaybot.mail.wording import score_text
from relaybot.store.models import (
    Event,
    EventPlayer,
    Game,
    GameEvent,
    Member,
    MemberTitle,
    SeasonClass,
    SeasonPlayer,
)

KINDS = ("group", "match", "ladder", "section", "league", "salon")
TIEBREAKS = ("sb", "sb_beaten", "solkoff", "buchholz", "median", "median_beaten",
             "median_buchholz", "direct", "wins", "start", "entry", "margin", "direct_pair",
             "rating")
DEFAULT_TIEBREAKS = "sb,solkoff,median,direct"
KIND_TIEBREAKS = {
    # T3: wins (千日手・持将棋 half), then the order at the start (--players' order, or a
    # season's, where first-timers share a place), then rule 18's chain among them
    "league": ",".join(LEAGUE_TIEBREAKS),
    # T4: (the win rate first), margins, the game between two, the points of three or more
    "salon": ",".join(SALON_TIEBREAKS),
}
KIND_GAMES = {"league": "shogi", "salon": "go"}  # what --game is when left out
SALON_OPTIONS = (("handicap", "auto"),)  # seed 004 4): every game's terms from the points


@dataclass(frozen=True)
class EventInput:
    name: str
    kind: str
    players: list[str]
    # None: the game's own rule (GameRules.rule_set: JCCA for chess, seed 002 for shogi)
    time_control: str | None = None
    start: date | None = None
    conditionals: str | None = None
    tiebreaks: str | None = None  # None: the kind's own (KIND_TIEBREAKS), else SB, ...
    overrun: str = "report"
    game: str | None = None  # every game's kind; None: the kind's (KIND_GAMES), or chess
    grace: int | None = None  # J7
    leave: bool | None = None  # J12
    td: str | None = None  # the event's TD; None: [bot] td
    final: bool = False  # T1: a JCCA final (決勝T)


def pairings(kind: str, players: list[str], draw: str = "") -> list[tuple[str, str]]:
    """(white, black) pairs for an event of this kind (T1-T4); ``draw`` seeds the shogi
    league's random pairing of 9 or more (the event's name: repeatable)."""
    try:
        if kind == "league":
            if len(players) < 2:
                raise AdminError("a league needs at least 2 players")
            return shogi_league(players, draw)
        if kind == "salon":
            if len(players) < 2:
                raise AdminError("a salon league needs at least 2 players")
            return round_robin(players)
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
    game = e.game or KIND_GAMES.get(e.kind, "chess")
    if e.kind in KIND_GAMES and game != KIND_GAMES[e.kind]:
        # each is one club's league, with that game's pairings, colours and standings
        what = {"league": "the shogi net league's", "salon": "the go salon's league"}[e.kind]
        raise AdminError(f"--kind {e.kind} is {what}: --game {KIND_GAMES[e.kind]} (for a "
                         f"{game} round robin: --kind section)")
    tiebreaks = e.tiebreaks or KIND_TIEBREAKS.get(e.kind, DEFAULT_TIEBREAKS)
    for word in tiebreaks.split(","):
        if word.strip() not in TIEBREAKS:
            raise AdminError(f"--tiebreaks: unknown tie-break {word!r} ({', '.join(TIEBREAKS)})")
    try:
        own = rules_for(game).rule_set  # options left unsaid follow the game's rules
    except ValueError as exc:
        raise AdminError(f"--game: {exc}") from None
    e = replace(e, time_control=e.time_control or own.time_control,
                conditionals=e.conditionals or own.conditionals, game=game,
                tiebreaks=tiebreaks)
    members = [find_member(session, address) for address in e.players]
    emails = [m.email for m in members]
    if len(set(emails)) != len(emails):
        raise AdminError("a player is named twice in --players")
    if e.kind == "salon":  # R4: every game's stones and komi come from the go points
        missing, unknown = without_go_points(session, members)
        lacking = {*missing, *unknown}
        named = [m.email for m in members if m.email in lacking]  # as --players gives them
        if named:
            raise AdminError(
                "--kind salon: each game's handicap and komi come from the players' go "
                f"points, and {', '.join(named)} "
                f"{'has' if len(named) == 1 else 'have'} none yet; set them "
                "first with: relaybot member set ADDR --game go --rating N (or --rank 4k)")
    td = td_address(cfg, e.td)
    td_member = member_by_address(session, td) if td is not None else None
    if td is not None and (td in emails or td_member in members):  # any of their addresses
        raise AdminError("--td: the event's TD cannot play in it")
    pairs = pairings(e.kind, emails, draw=name)
    start = e.start or now.astimezone(ZoneInfo(cfg.bot.timezone)).date()
    event = Event(name=name, kind=e.kind, time_control=e.time_control,
                  conditionals=e.conditionals, start_date=start, tiebreaks=tiebreaks,
                  td=td, final=int(e.final), created_at=now)
    session.add(event)
    session.flush()
    for seat, member in enumerate(members, start=1):
        session.add(EventPlayer(event_id=event.id, member_id=member.id, seat=seat))
    games = [
        create_game(session, cfg, GameInput(white=w, black=b, event=name,
                                            time_control=e.time_control, start=start,
                                            conditionals=e.conditionals,
                                            overrun=e.overrun, kind=game,
                                            grace=e.grace, leave=e.leave,
                                            # R4: stones and komi from the points
                                            options=SALON_OPTIONS if e.kind == "salon"
                                            else (),
                                            # seed 004 section 4: even games by toss
                                            toss=e.kind == "salon"), now)
        for w, b in pairs
    ]
    return games


def event_players(session: Session, event: Event) -> list[Member]:
    rows = session.execute(select(Member).join(EventPlayer, EventPlayer.member_id == Member.id)
                           .where(EventPlayer.event_id == event.id)
                           .order_by(EventPlayer.seat)).scalars().all()
    return list(rows)


def standing_names(players: Sequence[Member]) -> dict[int, PersonName]:
    """Each player's name as the event's standings key it: two members of one name are
    told apart by their member number (``"Yamada, Taro (#12)"``), not listed twice."""
    return distinct((m.id, m.name) for m in players)


def by_standing_name(players: Sequence[Member]) -> dict[str, Member]:
    """The players by the names the standings give them (:func:`standing_names`)."""
    names = standing_names(players)
    return {names[m.id]: m for m in players}


def standing_form(game: Game) -> str | None:
    """A finished game's result as the standings count it, side 0 first (T5): each game
    reads its own words (shogi ``sente``, go ``B+3.5``) with its ``parse_result``, so
    standings work for every game; see :func:`relaybot.club.results.result_form`."""
    return result_form(game)


def event_results(games: Iterable[Game], names: Mapping[int, str],
                  lost_all: frozenset[int] = frozenset()) -> list[GameResult]:
    """The finished games among ``names``' players as the standings read them (T5), with
    the winner's margin where the game counts one (go, T4). ``lost_all``: members who
    rested mid-season (T3, seed 002 rule 8 「途中休場した人は、全対局不戦敗の扱い」): every
    game of theirs counts lost, finished or not, and won by the opponent."""
    found = []
    for g in games:
        form = standing_form(g)
        if g.side0_id in lost_all or g.side1_id in lost_all:
            form = ("0-0" if g.side0_id in lost_all and g.side1_id in lost_all
                    else "0-1" if g.side0_id in lost_all else "1-0")
        if form is not None and g.side0_id in names and g.side1_id in names:
            found.append(GameResult(names[g.side0_id], names[g.side1_id], form,
                                    result_margin(g)))
    return found


def event_standings(session: Session, event: Event) -> list[StandingRow]:
    """Standings with the event's tie-breaks, from its finished games (T5)."""
    players = event_players(session, event)
    names = standing_names(players)
    games = _event_games(session, event)
    results = event_results(games, names, season_rests(session, event))
    order = tuple(t.strip() for t in event.tiebreaks.split(",") if t.strip())
    # T3: the starting order: a season's (first-timers share one), else --players' order
    orders = dict(session.execute(select(EventPlayer.member_id, EventPlayer.start_order)
                                  .where(EventPlayer.event_id == event.id)).all())
    start: dict[str, int] = {names[m.id]: orders.get(m.id) or seat
                             for seat, m in enumerate(players, start=1)}
    ratings: dict[str, int] | None = None
    kind = games[0].kind if games else ("go" if event.kind == "salon" else "")
    if "rating" in order:  # T4: the points each player has, in the event's game
        ended = event_end(session, games)
        # seed 004 5)(4): a finished league reads the points as they stood at its end
        held = (ratings_at(session, [m.id for m in players], kind or "go", ended) if ended
                else current_ratings(session, [m.id for m in players], kind or "go"))
        ratings = {names[m.id]: held[m.id] for m in players if m.id in held}
    return standings([names[m.id] for m in players], results, order, start_order=start,
                     ratings=ratings, primary="rate" if event.kind == "salon" else "points",
                     rating_game=kind)


def season_rests(session: Session, event: Event) -> frozenset[int]:
    """Members who rested in the middle of the season this event is a class of (T3,
    seed 002 rule 8): every game of theirs is lost."""
    season_id = session.scalar(select(SeasonClass.season_id)
                               .where(SeasonClass.event_id == event.id))
    if season_id is None:
        return frozenset()
    return frozenset(session.scalars(select(SeasonPlayer.member_id).where(
        SeasonPlayer.season_id == season_id, SeasonPlayer.state == "rest")))
def event_end(session: Session, games: list[Game]) -> datetime | None:
    """When the event's last game ended (its result recorded); None while any game is
    still being played, or for an event without games."""
    if not games or any(g.status != "finished" for g in games):
        return None
    return session.scalar(select(func.max(GameEvent.at)).where(
        GameEvent.game_id.in_([g.id for g in games]), GameEvent.kind == "result"))


def salon_secretaries(session: Session, event: Event) -> list[Member] | None:
    """Seed 004 section 6: the next league's two secretaries, once a salon league has
    ended: its winner and its booby, a member of 70 or more (by ``--born``, in the year
    the league ended) excused unless they serve (``--serves``), the next below the winner
    or above the booby serving instead. None while the league is being played."""
    games = _event_games(session, event)
    ended = event_end(session, games)
    if event.kind != "salon" or ended is None:
        return None
    players = by_standing_name(event_players(session, event))
    year = ended.astimezone(UTC).year
    order = [row.player for row in event_standings(session, event)]
    excused = {name for name, m in players.items()
               if exempt(m.born, year, bool(m.serves))}
    return [players[name] for name in secretaries(order, excused)]


def event_text(session: Session, event: Event, lang: str = "en") -> str:
    """The crosstable as monospace text for mail and the CLI."""
    return crosstable_text(event_standings(session, event), lang)


def find_event(session: Session, name: str) -> Event:
    event = session.scalar(select(Event).where(Event.name == " ".join(name.split())))
    if event is None:
        raise AdminError(f"no event named {name!r}")
    return event


def score_line(session: Session, game: Game, colour: int, name: str = "",
               lang: str = "en", *, own: bool = False) -> str:
    """J15: the score of side ``colour``'s player in the game's event, in the game's words
    (chess ドロー, shogi 引き分け) and ``lang``'s plurals: "Ann Smith's score: 2 wins, 1
    draw, 0 losses.", "山田太郎の通算成績は 2勝 1ドロー 0敗。", and with ``own`` the reader's
    own ("あなたの通算成績は ...", "Your score: ..."); without a name or ``own`` the bare
    numbers; "" for a game outside an event."""
    member_id = game.side0_id if colour == 0 else game.side1_id
    wins = draws = losses = 0
    if game.event is None:
        return ""
    for g in session.scalars(select(Game).where(
            Game.event == game.event, Game.status == "finished",
            (Game.side0_id == member_id) | (Game.side1_id == member_id))):
        mine = 0 if g.side0_id == member_id else 1
        form = standing_form(g)
        if form == "1/2-1/2":
            draws += 1
        elif form is not None:
            if form == ("1-0", "0-1")[mine]:
                wins += 1
            else:
                losses += 1  # a loss, or both losing (0-0)
    return score_text(game.kind, wins, draws, losses, lang, who=name, own=own)


@dataclass(frozen=True)
class FinalEntry:
    """Who of a group may enter the next final (T1), and what the TD should know."""

    entries: list[tuple[str, str, str]]  # (player, reason code, the final it comes from)
    unfinished: int  # games of the group still being played: nobody is decided yet


def _event_games(session: Session, event: Event) -> list[Game]:
    return list(session.scalars(select(Game).where(Game.event == event.name)))


def final_entry_for(session: Session, group: Event) -> FinalEntry:
    """T1: the players of a finished JCCA preliminary group entitled to the next final,
    with the results of each player's last final fed in (seed 000: 「過去の決勝Tで50%以上の
    勝率を上げた者」; 「最後に参加した決勝Tで50%未満の勝率であったときは権利消滅」). A final is
    an event made with ``event new --final``; a player's last final is the latest by
    start date that has ended (every game of theirs finished), other than ``group``.
    A first place no longer counts once the player has entered a final that started after
    the group ended (「1位権利者は1度決勝トーナメントに参加すると…権利消滅」)."""
    games = _event_games(session, group)
    unfinished = sum(1 for g in games if g.status in ("active", "suspended"))
    if unfinished:
        return FinalEntry([], unfinished)
    players = event_players(session, group)
    names = standing_names(players)  # the group's standings' names for its players
    ends = [g.end_date for g in games if g.end_date is not None]
    group_end = max(ends) if ends else group.start_date
    finals = [e for e in session.scalars(select(Event).where(Event.final == 1,
                                                             Event.id != group.id))]
    finals.sort(key=lambda e: (e.start_date, e.id))
    last_pct: dict[str, float] = {}
    last_name: dict[str, str] = {}
    spent: set[str] = set()
    for final in finals:  # in order: a later final replaces an earlier one
        by_name = {r.player: r for r in event_standings(session, final)}
        in_final = standing_names(event_players(session, final))
        final_games = _event_games(session, final)
        for member in players:
            if member.id not in in_final:
                continue
            name = names[member.id]
            if final.start_date > group_end:
                spent.add(name)
            theirs = [g for g in final_games if member.id in (g.side0_id, g.side1_id)]
            row = by_name.get(in_final[member.id])
            if any(g.status != "finished" for g in theirs) or row is None or not row.games:
                last_pct.pop(name, None)  # still being played: not yet a past final
                last_name.pop(name, None)
                continue
            last_pct[name] = 100 * row.points / row.games
            last_name[name] = final.name
    rows = event_standings(session, group)
    entries = [(player, reason, last_name.get(player, ""))
               for player, reason in final_entries(rows, last_pct, frozenset(spent))]
    return FinalEntry(entries, 0)


def award_champion(session: Session, event_name: str | None) -> None:
    """T1, R3: the winner of a JCCA final is Japan champion (seed 000: Eメール戦決勝優勝者は
    「Eメールチェス日本チャンピオン」を…称します), worth 2000 grade points each time
    (日本チャンピオン 1回獲得につき2000点). Called when a game of a final ends or its result
    is corrected: once every game has finished, the sole first of the standings holds
    the title from this final; a corrected result moves it, and a shared first place
    gives it to nobody until the TD enters it (``member set --title``)."""
    if not event_name:
        return
    event = session.scalar(select(Event).where(Event.name == event_name))
    if event is None or not event.final:
        return
    games = _event_games(session, event)
    winner_id = None
    if games and all(g.status == "finished" for g in games):
        rows = event_standings(session, event)
        if rows and rows[0].rank == 1 and not rows[0].shared:
            winner = by_standing_name(event_players(session, event)).get(rows[0].player)
            winner_id = winner.id if winner is not None else None
    held = list(session.scalars(select(MemberTitle).where(MemberTitle.event == event.name)))
    for title in held:
        if title.member_id != winner_id:
            session.delete(title)
    if winner_id is not None and not any(t.member_id == winner_id for t in held):
        session.add(MemberTitle(member_id=winner_id, title="japan_champion", event=event.name))
