"""Players' requests besides moves: leave (J12) and questions to the TD (J13)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.club.gamefile import GameFile
from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.leave import check_leave, end_leave_on_move
from relaybot.mail.inbound import InboundMail
from relaybot.mail.wording import one_kind
from relaybot.pipeline.effects import Mail, emit, to_member, to_td
from relaybot.pipeline.replies import quote_block
from relaybot.store.models import Game, Leave, Member, Question

_ACTIVE_GAMES = select(Game).where(
    Game.status == "active",
    (Game.side0_id == bindparam("member")) | (Game.side1_id == bindparam("member")),
).order_by(Game.created_at, Game.id)  # built once, run with the member's id


def active_games(session: Session, member: Member | None) -> list[Game]:
    """The member's games still being played, oldest first (none for no member)."""
    if member is None:
        return []
    games = list(session.scalars(_ACTIVE_GAMES, {"member": member.id}))
    # held for the session's life: its identity map keeps only what is referenced, and
    # the stages after the reading ask for these games again by id (one query per mail
    # saved, issue 29)
    session.info.setdefault("active_games", []).extend(games)
    return games


def _leaves(session: Session, member: Member, *statuses: str) -> list[Leave]:
    return list(session.scalars(select(Leave).where(
        Leave.member_id == member.id, Leave.status.in_(statuses)).order_by(Leave.first)))


def _games_of(session: Session, member: Member) -> tuple[str, ...]:
    """The ids of a member's active games: what a leave is about (J19 export)."""
    return tuple(g.id for g in active_games(session, member))


def _reply(session: Session, cfg: Config, member: Member, mail: InboundMail | None,
           now: datetime, kind: str, about: tuple[str, ...] = (), game: str | None = None,
           **ctx: object) -> None:
    """The answer to a member's request; ``game``: the one game it is about, whose token
    its Reply-To then carries (a reply with a move acts); else the member token."""
    emit(session, cfg, Mail(
        kind=kind, audience="player", to=to_member(member), lang=member.lang, game_id=game,
        context={"reader": member.name, **ctx}, auto_submitted="auto-replied",
        in_reply_to=mail.message_id if mail else None, about=about,
        references=(*mail.references, mail.message_id) if mail else ()), now)


def _leave_reply(session: Session, cfg: Config, member: Member, mail: InboundMail,
                 now: datetime, **ctx: object) -> None:
    """The answer to a leave request, about all of the member's active games (J19 export)
    and in their game's words when they are all of one game."""
    games = active_games(session, member)
    _reply(session, cfg, member, mail, now, "leave_reply", tuple(g.id for g in games),
           None, game_kind=one_kind(g.kind for g in games), **ctx)  # all games: m. token


def announce_leave(session: Session, cfg: Config, member: Member, leave: Leave,
                   now: datetime) -> None:
    """Tell the TD and every opponent (J12: leave must be announced to all of them)."""
    opponents: dict[int, Member] = {}
    shared: dict[int, list[Game]] = {}  # opponent -> the games they play with the member
    for game in active_games(session, member):
        other_id = game.side1_id if game.side0_id == member.id else game.side0_id
        other = session.get(Member, other_id)
        if other is not None:
            opponents[other.id] = other
            shared.setdefault(other.id, []).append(game)
    ctx = {"player": member.name, "first": leave.first.isoformat(),
           "last": leave.last.isoformat(), "leave_id": leave.id}
    for other in opponents.values():
        emit(session, cfg, Mail(
            kind="leave_notice", audience="player", to=to_member(other), lang=other.lang,
            context={"reader": other.name,
                     "game_kind": one_kind(game.kind for game in shared[other.id]), **ctx},
            dedupe_key=f"leave:{leave.id}:{other.id}",
            about=tuple(game.id for game in shared[other.id])), now)
    emit(session, cfg, _td_leave(cfg, {**ctx, "status": leave.status,
                                       "extra_days": leave.extra_days},
                                 _games_of(session, member)), now)


def _td_leave(cfg: Config, ctx: dict[str, object], about: tuple[str, ...]) -> Mail:
    """The TD's notice of a leave (taken, or waiting for approval: J12)."""
    return Mail(kind="td_leave", template="leave", audience="td", to=to_td(cfg),
                lang=cfg.bot.language, context=ctx, about=about,
                dedupe_key=f"td_leave:{ctx['leave_id']}:{ctx['status']}")


def request_leave(session: Session, cfg: Config, member: Member, period: tuple[date, date] | None,
                  mail: InboundMail, arrival_at: datetime, now: datetime,
                  leave_allowed: bool = True) -> str:
    """J12: check a leave against the yearly 30 days; accept, hold for the TD, or refuse."""
    if period is None:
        _leave_reply(session, cfg, member, mail, now, ok=False, reason="format", first="",
                     last="", left=0)
        return "leave_refused"
    today = local_day(arrival_at, member.tz)
    existing = [(lv.first, lv.last) for lv in _leaves(session, member, "active")]
    decision = check_leave(existing, period, today, allowed=leave_allowed)
    first, last = period
    if decision.ok or decision.reason_code == "over_allowance":
        status = "active" if decision.ok else "pending"
        leave = Leave(member_id=member.id, first=first, last=last, status=status,
                      extra_days=0, announced_at=arrival_at)
        session.add(leave)
        session.flush()
        if decision.ok:
            announce_leave(session, cfg, member, leave, now)
            _leave_reply(session, cfg, member, mail, now, ok=True, reason="ok",
                         first=first.isoformat(), last=last.isoformat(),
                         left=decision.left_this_year - decision.days)
            return "leave"
        # over the 30 days: the extra 30 need the TD's approval (illness, work, travel)
        emit(session, cfg, _td_leave(cfg, {
            "player": member.name, "first": first.isoformat(), "last": last.isoformat(),
            "leave_id": leave.id, "status": "pending", "extra_days": 0},
            _games_of(session, member)), now)
        _leave_reply(session, cfg, member, mail, now, ok=False, reason="pending_td",
                     first=first.isoformat(), last=last.isoformat(),
                     left=decision.left_this_year)
        return "leave_pending"
    _leave_reply(session, cfg, member, mail, now, ok=False, reason=decision.reason_code,
                 first=first.isoformat(), last=last.isoformat(),
                 left=decision.left_this_year)
    return "leave_refused"


def end_leave_by_move(session: Session, member: Member, moved_at: datetime) -> bool:
    """J12: a move received from a player on leave ends that leave at once.

    Returns True when a leave was cut short."""
    day = local_day(moved_at, member.tz)
    changed = False
    for leave in _leaves(session, member, "active"):
        if leave.first <= day <= leave.last:
            cut = end_leave_on_move((leave.first, leave.last), day)
            changed = True
            if cut is None:
                leave.status = "ended"
            else:
                leave.first, leave.last = cut
    return changed


def ask_td(session: Session, cfg: Config, gf: GameFile, colour: int, text: str,
           mail: InboundMail, arrival_at: datetime, now: datetime) -> str:
    """J13: relay a question to the TD; the game's days stop until the answer."""
    member = gf.player(colour)
    question = Question(game_id=gf.game.id, colour=colour, text=text[:4000],
                        asked_at=arrival_at, answered_at=None, answer="")
    session.add(question)
    session.flush()
    emit(session, cfg, Mail(
        kind="td_question", template="question", audience="td", to=to_td(cfg, gf.td),
        lang=cfg.bot.language, dedupe_key=f"question:{question.id}", reply_to=cfg.bot.address,
        about=(gf.game.id,),
        # the player's words behind "> ", as every relayed word is: no line of theirs can
        # pass for a command the TD's reply (with the TD's token) would carry (G12)
        context={"game_id": gf.game.id, "player": member.name, "question": quote_block(text),
                 "question_id": question.id, "white": gf.white.name, "black": gf.black.name}),
        now)
    # about one game: its token, so that the player's next move may answer this receipt
    _reply(session, cfg, member, mail, now, "question_ack", (gf.game.id,), game=gf.game.id,
           game_id=gf.game.id, question=text)
    return "question"
