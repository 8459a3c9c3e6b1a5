"""The weekly digest (D1): one per member who wants it, per week, never lost.

A member's week starts on ``[digest] weekday`` (Monday by default) in the member's own
time zone, so the digest comes on that day wherever they live, and never one week on
Sunday and the next on Monday (issue 15). Each digest is an outbox row under the key
(member, first day of the week), and the member's ``last_digest_week`` (that day, ISO)
moves on in the same transaction, so a sweep repeated after a crash or a stop over the
week boundary sends the week's digest exactly once. A member with no game and no
announcement that week gets none. Every digest carries ``List-Unsubscribe``: a mailto
of the ``digest off`` keyword and, where the web pages run, RFC 8058's one-click POST.
Members are handled in batches with a few IN-queries per batch, so 10,000
members cost seconds, not minutes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from relaybot.app.digest_rows import (
    correction_row,
    game_row,
    place,
    rating_rows,
    result_row,
    table,
)
from relaybot.club.daybooks import compute
from relaybot.club.gamefile import GameFile
from relaybot.club.ladders import ladders_of
from relaybot.club.memberships import lapsed_to_tell, membership_states
from relaybot.club.prizes import club_news
from relaybot.club.settlement import settle
from relaybot.club.tournaments import event_results, event_standings
from relaybot.club.views import unsubscribe_path, unsubscribe_token
from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.clocks import Pause, Penalty, question_pauses
from relaybot.core.events import standings
from relaybot.core.names import PersonName, distinct
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.pipeline.effects import Mail, emit, to_member, to_td
from relaybot.store.db import Store
from relaybot.store.models import (
    Announcement,
    Event,
    EventPlayer,
    Game,
    GameEvent,
    Leave,
    Member,
    Move,
    Outbox,
    Question,
    RatingChange,
    SeasonClass,
)

BATCH = 1000
# how far back a digest caught up after downtime still reports results, corrections,
# rating changes and the club's news (five weeks)
CATCH_UP = timedelta(days=35)


class _PlyRow(NamedTuple):
    ply: int
    sent_at: datetime


def _utc(moment: datetime) -> datetime:
    """Column reads through Core keep SQLite's naive UTC; the model type would add it."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def iso_week(day: date) -> str:
    """``2026-W47``: sorts as text in week order."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def digest_week(now: datetime, tz: str, weekday: int) -> date:
    """The first day of the digest week ``now`` falls in, in zone ``tz``: the last
    ``weekday`` (Monday 0) on or before the local date."""
    local = now.astimezone(ZoneInfo(tz)).date()
    return local - timedelta(days=(local.weekday() - weekday) % 7)


def sent_week(value: str | None) -> date | None:
    """A member's ``last_digest_week`` as a date: ISO (``2026-11-23``), or the Monday of
    an ISO week as releases before issue 15 stored it (``2026-W47``)."""
    if not value:
        return None
    if "-W" in value:
        year, _, week = value.partition("-W")
        return date.fromisocalendar(int(year), int(week), 1)
    return date.fromisoformat(value)


# the zone whose day starts first (UTC+14): no member's week can start later than there
_EARLIEST_ZONE = "Etc/GMT-14"


def send_digests(store: Store, cfg: Config, now: datetime, *, force: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """Queue this week's digest for every member who wants it and has not had it.

    A member's first digest waits for their first ``weekday`` (a member who joins on a
    Sunday gets none that day and one on Monday, issue 15); after that a week the bot
    was down on the weekday is caught up later in the week (D1: never none).
    ``force`` (``relaybot digest send``) sends a new member's at once.
    ``progress(done, total)``: called after each batch of members (for a progress bar).
    """
    weekday = cfg.digest.weekday_index
    with store.session() as session:  # issue 30: the books settle first, the TD hears
        _books(session, cfg, now)      # of lapsed members once
    latest = digest_week(now, _EARLIEST_ZONE, weekday).isoformat()
    queued = 0
    after = 0
    shared: dict[str, Any] = {}
    total = done = 0
    if progress is not None:
        with store.session() as session:
            total = session.scalar(
                select(func.count(Member.id)).where(Member.digest == "weekly")) or 0
    while True:
        with store.session() as session:
            # candidates by one indexed comparison; each one's own week is then checked in
            # its zone (keyset paging: a member found not due stays as it was)
            members = list(session.scalars(
                select(Member)
                .where(Member.digest == "weekly", Member.id > after,
                       or_(Member.last_digest_week.is_(None),
                           Member.last_digest_week < latest,
                           Member.last_digest_week.contains("W")))
                .order_by(Member.id)
                .limit(BATCH)
            ))
            due: list[tuple[Member, date]] = []
            for member in members:
                week = digest_week(now, member.tz, weekday)
                last = sent_week(member.last_digest_week)
                joined = member.created_at.astimezone(ZoneInfo(member.tz)).date()
                if last is None and joined > week and not force:
                    continue  # joined after this week's weekday: theirs starts next week
                if last is None or last < week:
                    due.append((member, week))
            if due:
                queued += _batch(session, cfg, due, now, shared)
        done += len(members)
        if progress is not None:
            progress(min(done, total), total)
        if len(members) < BATCH:
            return queued
        after = members[-1].id


def _shared(session: Session, now: datetime, shared: dict[str, Any]) -> dict[str, Any]:
    """What every digest of this run has in common: announcements, standings, results.

    The week's announcements, results, corrections and (per batch) rating changes are read
    as far back as a digest can be caught up (``CATCH_UP``); each member's digest then
    keeps those recorded since their previous digest (:func:`_since`). A result counts
    from when the bot recorded it, not from its end date: a season's end decided after
    the bot was down, or a mating move confirmed days after it was sent, ends a game with
    an end date in a week whose digest has gone, and was never reported (D1: none lost).
    """
    if shared:
        return shared
    back = now - CATCH_UP
    # (when, text): each member's digest keeps those made since their previous one
    shared["announcements"] = [(_utc(a.created_at), a.text) for a in session.scalars(
        select(Announcement).where(Announcement.created_at >= back,
                                   Announcement.created_at <= now)
        .order_by(Announcement.created_at, Announcement.id))]
    shared["events"] = {e.id: e for e in session.scalars(select(Event))}
    # T5 in the digest: the events still being played (a game under way)
    shared["live_events"] = set(session.scalars(
        select(Game.event).where(Game.status == "active", Game.event.is_not(None)).distinct()))
    shared["standings"] = {}
    shared["standing_names"] = {}  # per event: each player's name in its standings
    # each finished game once, at its latest "result" (a game the TD reopened and that
    # ended again is one result), in the order they were recorded
    latest: dict[str, tuple[GameEvent, Game]] = {}
    for event, game in session.execute(
            select(GameEvent, Game).join(Game, Game.id == GameEvent.game_id)
            .where(GameEvent.kind == "result", GameEvent.at >= back, GameEvent.at <= now,
                   Game.status == "finished")
            .order_by(GameEvent.at, GameEvent.id)).all():
        latest[game.id] = (event, game)
    shared["results"] = sorted(latest.values(), key=lambda item: (_utc(item[0].at),
                                                                   item[0].id))
    # D1: results the TD corrected this week (``result ID RESULT``), with the re-rating
    shared["corrections"] = [
        (event, game) for event, game in session.execute(
            select(GameEvent, Game).join(Game, Game.id == GameEvent.game_id)
            .where(GameEvent.kind == "result_corrected", GameEvent.at >= back,
                   GameEvent.at <= now)
            .order_by(GameEvent.at, GameEvent.id)).all()]
    ids = ({g.side0_id for _e, g in shared["results"]}
           | {g.side1_id for _e, g in shared["results"]}
           | {g.side0_id for _e, g in shared["corrections"]}
           | {g.side1_id for _e, g in shared["corrections"]})
    # the members themselves, not the names' text: a name carries its Japanese script
    shared["names"] = {m.id: m.name for m in session.scalars(
        select(Member).where(Member.id.in_(ids)))} if ids else {}
    return shared


def _previous_sends(session: Session, members: Sequence[Member]) -> dict[int, datetime]:
    """When each member's previous digest was queued (its outbox row), for the members
    that had one: the start of what their next digest reports."""
    keys: dict[str, int] = {}
    for member in members:
        previous = sent_week(member.last_digest_week)
        if previous is not None:
            keys[f"digest:{member.id}:{previous.isoformat()}"] = member.id
    if not keys:
        return {}
    return {keys[key]: _utc(at) for key, at in session.execute(
        select(Outbox.dedupe_key, Outbox.created_at).where(Outbox.dedupe_key.in_(list(keys))))
        if key is not None}


def _since(member: Member, previous_send: datetime | None, now: datetime) -> datetime:
    """Where a member's digest starts reporting: when their previous digest was queued;
    without its row (a week with nothing to say), the start of their previous digest
    week in their own zone; a first digest reports the last seven days. Never further
    back than a digest is caught up (``CATCH_UP``)."""
    previous = sent_week(member.last_digest_week)
    if previous_send is not None:
        since = previous_send
    elif previous is not None:
        since = datetime.combine(previous, time.min, tzinfo=ZoneInfo(member.tz))
    else:
        since = now - timedelta(days=7)
    return max(since, now - CATCH_UP)


@dataclass
class _BatchFacts:
    """What a batch of digests reads once for all its members: their active games and
    everyone in them, each game's plies, penalties and pauses, leaves, rating changes,
    event seats and league classes (a few queries per batch, not per member)."""

    games: list[Game]
    people: dict[int, Member]
    moves: dict[str, list[Any]]
    penalties: dict[str, list[Penalty]]
    pauses: dict[str, list[Pause]]
    all_leaves: dict[int, list[Leave]]  # every active leave: the clocks count them (J12)
    leaves: dict[int, list[Leave]]  # those of the last week: the digest lists them
    changes: dict[int, dict[str, list[RatingChange]]]
    seats: dict[int, list[int]]
    letters: dict[int, str]  # a league class's event id -> its letter
    by_member: dict[int, list[Game]]


def _batch_facts(session: Session, common: dict[str, Any], ids: list[int],
                 now: datetime) -> _BatchFacts:
    """Read what the digests of the members ``ids`` need (:class:`_BatchFacts`), and
    settle the standings of the events they hear about into ``common``."""
    games = list(session.scalars(select(Game).where(
        Game.status == "active", or_(Game.side0_id.in_(ids), Game.side1_id.in_(ids)))))
    gids = [g.id for g in games]
    people = {m.id: m for m in session.scalars(select(Member).where(Member.id.in_(
        {g.side0_id for g in games} | {g.side1_id for g in games} | set(ids))))}
    moves: dict[str, list[Any]] = defaultdict(list)
    penalties: dict[str, list[Penalty]] = defaultdict(list)
    pauses: dict[str, list[Pause]] = defaultdict(list)
    if gids:
        # plain rows, not ORM objects: the books need only each ply's arrival time
        for move in session.execute(select(Move.game_id, Move.ply, Move.sent_at)
                                    .where(Move.game_id.in_(gids))
                                    .order_by(Move.game_id, Move.ply)):
            moves[move.game_id].append(_PlyRow(move.ply, _utc(move.sent_at)))
        for e in session.scalars(select(GameEvent).where(
                GameEvent.game_id.in_(gids), GameEvent.kind == "penalty")):
            penalties[e.game_id].append(Penalty(e.colour or 0, e.days, "", e.at))
        for q in session.scalars(select(Question).where(Question.game_id.in_(gids))):
            game = next(g for g in games if g.id == q.game_id)
            zones = (people[game.side0_id].tz, people[game.side1_id].tz)
            pauses[q.game_id].extend(question_pauses(q.asked_at, q.answered_at, zones))
    # D1: the clocks as the books count them, so every leave taken counts (J12); the
    # digest lists only the leaves of the last week
    all_leaves: dict[int, list[Leave]] = defaultdict(list)
    leaves: dict[int, list[Leave]] = defaultdict(list)
    for leave in session.scalars(select(Leave).where(
            Leave.member_id.in_(list(people)), Leave.status == "active")):
        all_leaves[leave.member_id].append(leave)
        if leave.last >= now.date() - timedelta(days=7):
            leaves[leave.member_id].append(leave)
    # D1: the week's rating changes, per game kind (ratings are per member and game)
    changes: dict[int, dict[str, list[RatingChange]]] = defaultdict(lambda: defaultdict(list))
    for change, kind in session.execute(
            select(RatingChange, Game.kind).join(Game, Game.id == RatingChange.game_id)
            .where(RatingChange.member_id.in_(ids), RatingChange.at >= now - CATCH_UP,
                   RatingChange.at <= now)
            .order_by(RatingChange.at, RatingChange.id)):
        changes[change.member_id][kind].append(change)
    seats: dict[int, list[int]] = defaultdict(list)
    for seat in session.scalars(select(EventPlayer).where(EventPlayer.member_id.in_(ids))):
        seats[seat.member_id].append(seat.event_id)
    # T5: standings of the events a reader hears about: those still played, and those
    # with a result or correction in the window (a finished event's final table, once)
    recent = ({g.event for _e, g in common["results"]}
              | {g.event for _e, g in common["corrections"]})
    shown = {e for events in seats.values() for e in events
             if common["events"][e].name in common["live_events"] | recent}
    _standings(session, common, shown)
    # T3 (issue 24 item 9): a league class's reader sees their own place in it
    letters = dict(session.execute(select(SeasonClass.event_id, SeasonClass.letter).where(
        SeasonClass.event_id.in_({e for events in seats.values() for e in events}))).all())
    by_member: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        by_member[game.side0_id].append(game)
        by_member[game.side1_id].append(game)
    return _BatchFacts(games, people, moves, penalties, pauses, all_leaves, leaves, changes,
                       seats, letters, by_member)


def _books_of(facts: _BatchFacts, game: Game, cache: dict[str, Any]) -> Any:
    """A game's day books as the clocks count them (leave where the game allows it, the
    TD's questions, penalties), computed once per run (``cache``: both players' digests
    show the same game)."""
    books = cache.get(game.id)
    if books is None:
        white, black = facts.people[game.side0_id], facts.people[game.side1_id]
        gf = GameFile(game, white, black, facts.moves.get(game.id, []), rules_for(game.kind))
        game_pauses = list(facts.pauses.get(game.id, []))
        if game.leave_allowed:
            for colour, who in ((0, white), (1, black)):
                game_pauses.extend(Pause(colour, lv.first, lv.last, "leave")
                                   for lv in facts.all_leaves.get(who.id, []))
        books = compute(gf, facts.penalties.get(game.id, []), game_pauses)
        cache[game.id] = books
    return books


def _batch(session: Session, cfg: Config, due: Sequence[tuple[Member, date]], now: datetime,
           shared: dict[str, Any]) -> int:
    common = _shared(session, now, shared)
    members = [m for m, _ in due]
    ids = [m.id for m in members]
    facts = _batch_facts(session, common, ids, now)
    books_cache: dict[str, Any] = common.setdefault("books", {})
    dues = membership_states(session, ids, now.date())  # issue 30
    # issue 30: prizes and awards given since the member's previous digest (a member
    # back from a pause hears of them too), at most five weeks back
    news = common.setdefault("club_news", club_news(session, now - CATCH_UP))
    sends = _previous_sends(session, members)
    ladders = ladders_of(session, ids)
    queued = 0
    for member, week_start in due:
        # D1: what this digest reports is what was recorded since the previous one
        since = _since(member, sends.get(member.id), now)
        # D1: the week is decided whether or not there is anything to say (G10)
        member.last_digest_week = week_start.isoformat()
        due_state = dues.get(member.id)
        if due_state is not None and due_state.state == "lapsed":
            continue  # seed 000: 会費切れとなった場合は通知なくニュースレターの発送を停止
        my_news = [{**n, "name": display_name(n["name"], member.lang)}
                   for n in news if n["at"] >= since]
        my_events = {common["events"][e].name for e in facts.seats.get(member.id, [])}
        my_results = [(e, g) for e, g in _concerning(common, "results", my_events, member.id)
                      if _utc(e.at) >= since]
        my_corrections = [
            (e, g) for e, g in _concerning(common, "corrections", my_events, member.id)
            if _utc(e.at) >= since]
        own_results = [e for e, _g in _concerning(common, "results", set(), member.id)
                       if _utc(e.at) >= since]
        my_changes = {kind: [c for c in cs if _utc(c.at) >= since]
                      for kind, cs in facts.changes.get(member.id, {}).items()}
        my_changes = {kind: cs for kind, cs in my_changes.items() if cs}
        announcements = [text for at, text in common["announcements"] if at >= since]
        if not (facts.by_member.get(member.id) or own_results or my_changes
                or announcements or due_state or my_news):
            continue  # issue 15: no game (nor one ended) and no announcement, no digest
        rows = [game_row(member, game, facts.people, _books_of(facts, game, books_cache), now)
                for game in facts.by_member.get(member.id, [])]
        # D1/T5: an event that has ended drops out of the digest after the week of its
        # last result: its final table is read once, not every week for ever
        standing = {g.event for _e, g in my_results + my_corrections} | common["live_events"]
        ctx = {
            "reader": member.name, "week": iso_week(week_start), "games": rows,
            "results": [result_row(g, common["names"], member.lang) for _e, g in my_results],
            "week_start": week_start.isoformat(),
            "calendar_link": cfg.web.link(f"/players/{member.id}/calendar.ics"),
            # the member's page in the member's language, whatever the browser says
            "player_link": cfg.web.link(f"/players/{member.id}?lang={member.lang}"),
            "unsubscribe_link": cfg.web.link(unsubscribe_path(cfg, member.id)),
            "corrections": [
                correction_row(e, g, common["names"], member.id, member.lang)
                for e, g in my_corrections],
            "standings": [
                {"event": common["events"][e].name, "table": table(common, e, member.lang),
                 "place": place(common, e, member, facts.letters.get(e))}
                for e in facts.seats.get(member.id, [])
                if common["events"][e].name in standing
            ],
            "ratings": rating_rows(my_changes, member.lang),
            "leaves": _leave_rows(facts, member),
            "announcements": announcements,
            "membership": ({"state": due_state.state, "until": due_state.until.isoformat(),
                            "junior_last": due_state.why == "junior"}
                           if due_state else None),
            "club_news": my_news,
            "ladders": [{**lad, "names": [display_name(n, member.lang) for n in lad["names"]]}
                        for lad in ladders.get(member.id, [])],
        }
        # the member row's week moves on in this transaction: no duplicate to look for,
        # and the unique key stays as the backstop (G10)
        row = emit(session, cfg, Mail(
            kind="digest", audience="member", to=to_member(member), lang=member.lang,
            context=ctx, dedupe_key=f"digest:{member.id}:{week_start.isoformat()}",
            unique=True, headers=unsubscribe_headers(cfg, member)), now)
        queued += row is not None
    return queued


def _leave_rows(facts: _BatchFacts, member: Member) -> list[dict[str, str]]:
    """D1: the last week's leaves of the member and of their opponents in active games."""
    opponents = {g.side0_id for g in facts.by_member.get(member.id, [])} \
        | {g.side1_id for g in facts.by_member.get(member.id, [])}
    return [{"name": display_name(facts.people[mid].name, member.lang),
             "first": lv.first.isoformat(), "last": lv.last.isoformat()}
            for mid, lvs in facts.leaves.items() for lv in lvs
            if mid == member.id or mid in opponents]


def _game_of(item: tuple[GameEvent, Game]) -> Game:
    """The game of a week's result or correction (its ledger line and the game)."""
    return item[1]


def _concerning(common: dict[str, Any], key: str, events: set[str],
                member_id: int) -> list[Any]:
    """The items of ``common[key]`` (the week's results or corrections) about a game in
    one of ``events`` or played by the member, in their order.

    Looked up in an index made once per run: testing every result against every member
    grew with the square of the club (10,000 members: 125 results each, issue 29).
    """
    items: list[Any] = common[key]
    index = common.setdefault("index", {}).get(key)
    if index is None:
        by_event: dict[str, list[int]] = defaultdict(list)
        by_player: dict[int, list[int]] = defaultdict(list)
        for position, item in enumerate(items):
            game = _game_of(item)
            if game.event:
                by_event[game.event].append(position)
            by_player[game.side0_id].append(position)
            if game.side1_id != game.side0_id:
                by_player[game.side1_id].append(position)
        index = common["index"][key] = (by_event, by_player)
    by_event, by_player = index
    positions = set(by_player.get(member_id, ()))
    for event in events:
        positions.update(by_event.get(event, ()))
    return [items[p] for p in sorted(positions)]


def _books(session: Session, cfg: Config, now: datetime) -> None:
    """The books' weekly work (issue 30): ladders, prizes and awards settled, and the TD
    told once of each member whose membership lapsed (games under way go on)."""
    settle(session, now, now.date())
    lang = cfg.bot.language
    for gone in lapsed_to_tell(session, now.date()):
        member, until = gone.member, gone.until
        # a family member's membership follows their regular member's (seed 000): the
        # TD learns whose it followed, and how to keep them in the club
        head = ({"name": display_name(gone.head.name, lang), "email": gone.head.email,
                 "left": gone.head_left} if gone.head is not None else None)
        emit(session, cfg, Mail(
            kind="td_lapsed", template="lapsed", audience="td", to=to_td(cfg),
            lang=lang, dedupe_key=f"lapsed:{member.id}:{until.isoformat()}",
            context={"name": display_name(member.name, lang),
                     "email": member.email, "until": until.isoformat(),
                     "head": head}), now)


def unsubscribe_headers(cfg: Config, member: Member) -> dict[str, str]:
    """RFC 2369 ``List-Unsubscribe`` of a member's digest: a mail with ``digest off`` to
    the member's own reply-token address, and, where the web pages run, the RFC 8058
    one-click link (with ``List-Unsubscribe-Post``)."""
    # the u. address stops the digest and nothing else: digests are forwarded, so the
    # token printed here must never be a login (issue 22)
    address = tokens.format_address(cfg.bot.local, cfg.bot.domain, "u",
                                    unsubscribe_token(cfg, member.id))
    links = []
    if address:
        links.append(f"<mailto:{address}?subject=digest%20off&body=digest%20off>")
    web = cfg.web.link(unsubscribe_path(cfg, member.id))
    if web:
        links.insert(0, f"<{web}>")
    headers = {"List-Unsubscribe": ", ".join(links)} if links else {}
    if web:
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return headers


def _standings(session: Session, common: dict[str, Any], event_ids: set[int]) -> None:
    """Standings of these events (T5), computed once per run with two queries per batch."""
    todo = [e for e in event_ids if e not in common["standings"]]
    if not todo:
        return
    players: dict[int, list[tuple[int, PersonName]]] = defaultdict(list)
    for event_id, member in session.execute(
            select(EventPlayer.event_id, Member)
            .join(Member, Member.id == EventPlayer.member_id)
            .where(EventPlayer.event_id.in_(todo)).order_by(EventPlayer.seat)):
        # the rows keep each member's name whole (core.names.PersonName): the crosstable
        # writes it as each reader's language does (standings_lines)
        players[event_id].append((member.id, member.name))
    names = {common["events"][e].name: e for e in todo}
    finished: dict[int, list[Game]] = defaultdict(list)
    for game in session.scalars(select(Game).where(
            Game.event.in_(list(names)), Game.status == "finished")):
        finished[names[game.event]].append(game)  # type: ignore[index]
    for event_id in todo:
        who = distinct(players[event_id])  # two members of one name told apart
        common["standing_names"][event_id] = who
        event = common["events"][event_id]
        if event.kind in ("league", "salon"):
            # T3/T4: the starting order, the season's rests and the ratings the event's
            # own standings read
            common["standings"][event_id] = event_standings(session, event)
            continue
        results = event_results(finished[event_id], who)  # every game's own results
        order = tuple(t.strip() for t in event.tiebreaks.split(",") if t.strip())
        common["standings"][event_id] = standings(list(who.values()), results, order)


