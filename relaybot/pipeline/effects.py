"""Effects: what a decision asks the world to do, as values, and the one stage that
turns them into outbox rows.

Deciding (a player's mail, a TD command, the sweep) never renders or queues mail
itself: it returns :class:`Mail` values. :func:`emit` is the only place that renders
a template and queues the row, so what every outgoing mail carries (threading, the
game's address, dedupe keys, the ``Reply-To`` token address issued to its recipient) is
decided here once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Literal

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.club.gamefile import event_facts
from relaybot.club.members import member_by_address
from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.clocks import local_day
from relaybot.mail.compose import Alternative
from relaybot.mail.html import alternative
from relaybot.mail.kinds import is_kind
from relaybot.mail.queue import Recipient, queue_mail
from relaybot.mail.render import render, render_footer, render_part
from relaybot.mail.work import work_of
from relaybot.store.models import Game, Inbound, MailGame, Member, Outbox, ReplyCount

Audience = Literal["player", "td", "member", "operator"]
HELP_PATH = "/help"  # the players' guide on the web pages (relaybot.web.guide)


@dataclass(frozen=True)
class Mail:
    """One mail to one person: a template, its data and how it is threaded.

    ``kind`` names the outbox row (``move``, ``error_bad_move``, ``td_overrun``);
    ``template`` the template (``<lang>/<audience>/<template>.txt.j2``), by default
    the kind. ``game_id`` with ``via_game`` sends from and replies to the game's
    address; ``threads_game`` makes this the mail later reminders answer
    (``Game.last_out_message_id``). ``defer`` waits for one multi-row insert at the end
    of the mail's work (``mail.queue.insert_deferred``).
    """

    kind: str
    audience: Audience
    to: Recipient
    lang: str
    context: Mapping[str, Any] = field(default_factory=dict)
    template: str = ""
    game_id: str | None = None
    via_game: bool = False
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    dedupe_key: str | None = None
    auto_submitted: str = "auto-generated"
    defer: bool = False
    unique: bool = False
    threads_game: bool = False
    reply_to: str | None = None  # where replies go when not to the game's address
    reply_to_fixed: bool = False  # ``reply_to`` wins over the token address (a ``c.`` one)
    about: tuple[str, ...] = ()  # more games this mail is about (J19: in their exports)
    capped: bool = False  # an error reply: at most error_reply_cap per address and day (G7)
    headers: Mapping[str, str] = field(default_factory=dict)  # List-Unsubscribe, ...

    def __post_init__(self) -> None:
        # one list of kinds (mail.kinds): named in every language, sampled in docs/mails
        if not is_kind(self.kind):
            raise ValueError(f"unknown mail kind {self.kind!r}: add it to relaybot.mail.kinds")


def to_member(member: Member) -> Recipient:
    """A member as a mail recipient, the To: name as the member's own language writes
    it (``早川悟``, ``Satoru Hayakawa``; never "Family, Given")."""
    return Recipient(member.name.for_language(member.lang), member.email, member.id)


def to_td(cfg: Config, address: str | None = None) -> Recipient:
    """A tournament director as a mail recipient: ``address`` (a game's TD,
    :func:`td_of`), else the club's ``[bot] td``."""
    return Recipient("TD", address or cfg.bot.td)


def td_of(session: Session, cfg: Config, game: Game | None) -> str:
    """The TD of a game: its event's ``--td``, else ``[bot] td`` (INTERFACE.md "TD
    commands")."""
    return (event_facts(session, game.event).td if game is not None else None) or \
        cfg.bot.td.strip().lower()


def token_recipient(cfg: Config, to: Recipient) -> str | None:
    """Who a reply token is issued to: the member's id, or a TD's ``td``/``td:<address>``."""
    if to.member_id is not None:
        return str(to.member_id)
    # every other recipient is a TD (the club's or an event's) or the operator, whose
    # address is the club's TD: the token is theirs alone (identify checks the From:
    # is a TD address before it counts)
    return tokens.td_recipient(cfg.bot.td, to.address)


def reply_address(cfg: Config, to: Recipient, game_id: str | None) -> str | None:
    """The ``Reply-To`` token address issued to this recipient (INTERFACE.md "Who may
    act", issue 12): ``relay+<game-id>.<token>@...`` for mail about one game (the address
    still names the game, so a reply is routed as before), ``relay+m.<token>@...`` for
    the rest. None for a recipient who is neither a member nor the TD.

    Raises ConfigError without ``[bot] secret``: no mail goes out untokened.
    """
    recipient = token_recipient(cfg, to)
    if recipient is None:
        return None
    key = cfg.bot.token_keys()[0]  # new tokens from the current key only
    scope = game_id if game_id is not None else tokens.MEMBER_SCOPE
    return tokens.format_address(cfg.bot.local, cfg.bot.domain, scope,
                                 tokens.issue(key, scope, recipient))


def render_mail(mail: Mail) -> tuple[str, str]:
    """(subject, body) of a mail effect, rendered in its reader's language; a TD's mail
    about a game the TD plays in ends with the note that the operator decides it."""
    subject, body = render(mail.lang, mail.audience, mail.template or mail.kind,
                           **mail.context)
    own = mail.context.get(TD_PLAYS)
    if own:
        body += "\n" + render_part(mail.lang, "td", "own_game", games=list(own))
    return subject, body


TD_PLAYS = "td_plays"  # the context key of the games a TD's mail is about and they play in


def td_plays(session: Session, mail: Mail) -> tuple[str, ...]:
    """The games a TD's mail is about (its game and ``about``) in which that TD plays: a
    decision on them is not theirs by mail (pipeline/td/base.py), and the mail says so."""
    if mail.audience != "td":
        return ()
    ids = [gid for gid in dict.fromkeys((mail.game_id, *mail.about)) if gid]
    if not ids:
        return ()
    member = member_by_address(session, mail.to.address)
    if member is None:
        return ()
    return tuple(g.id for g in session.scalars(select(Game).where(Game.id.in_(ids)))
                 if member.id in (g.side0_id, g.side1_id))


def with_footer(cfg: Config, lang: str, body: str, game_kind: str = "") -> str:
    """``body`` with the footer every mail carries when the web pages run (``[web]
    base_url``): a link to the players' guide, ``/help``, in the reader's language and
    the words of the mail's game (``game_kind``: a go player's guide is to 着手)."""
    link = cfg.web.link(f"{HELP_PATH}?lang={lang}")
    return f"{body}\n{render_footer(lang, link, game_kind)}" if link else body


def under_cap(session: Session, cfg: Config, address: str, now: datetime) -> bool:
    """Count one error reply to ``address`` today; False once ``error_reply_cap`` is
    reached (G7: a looping correspondent gets a few replies a day, not one per mail)."""
    return _count(session, cfg, address, now, "count", cfg.bot.error_reply_cap)


# --- caps on what a mail causes (issue 12 item 8) ------------------------------------

SUMMARY_KIND = "td_summary"
"""The one mail a day that lists the TD's mail held back by the caps."""
HELD_FOR_SUMMARY = "summary"
"""Outbox status of a TD mail over the day's cap: not sent, listed in the next summary."""
UNPROVEN_HELD = "unproven"
"""Outbox status of a mail over the caps on what unproven mail may cause: not sent,
listed in the TD's next summary (issue 22 item 6)."""
UNPROVEN_KEY = "(unproven)"
"""The ReplyCount address under which all unproven mail's effects of a day are counted."""

CapField = Literal["count", "replies", "alerts", "unproven"]


_COUNT_ROW = select(ReplyCount).where(ReplyCount.address == bindparam("address"),
                                      ReplyCount.day == bindparam("day"))


def _known(session: Session) -> dict[tuple[str, date], ReplyCount | None]:
    """The ReplyCount rows this transaction has read or added, by (address, day); None
    for a row read as missing. Kept in the session's :class:`MailWork` for its current
    root transaction only (another transaction starts afresh)."""
    return work_of(session).counts_for(session.get_transaction())


def prefetch_counts(session: Session, cfg: Config, addresses: Iterable[str],
                    now: datetime) -> None:
    """Read today's counts of these addresses in one query, for :func:`_count` (the
    poller: every sender of a batch gets a reply), instead of a query per reply."""
    keys = sorted({a.strip().lower() for a in addresses if a})
    if not keys:
        return
    day = local_day(now, cfg.bot.timezone)
    known = _known(session)
    found = {row.address: row for row in session.scalars(select(ReplyCount).where(
        ReplyCount.address.in_(keys), ReplyCount.day == day))}
    for key in keys:
        known[(key, day)] = found.get(key)


def _count_row(session: Session, key: str, day: date) -> ReplyCount:
    """The count row of ``key`` on ``day``, added when there is none yet.

    A row known to this transaction is used without a query, as long as it is still in
    the session: a savepoint rolled back since expunges the rows it added (then the row
    is read again) and expires the ones it changed (re-read when used)."""
    known = _known(session)
    if (key, day) in known:
        row = known[(key, day)]
        if row is not None and row not in session:  # added in a savepoint rolled back
            row = session.scalar(_COUNT_ROW, {"address": key, "day": day})
    else:
        row = session.scalar(_COUNT_ROW, {"address": key, "day": day})
    if row is None:
        row = ReplyCount(address=key, day=day, count=0, replies=0, alerts=0, unproven=0)
        session.add(row)
    known[(key, day)] = row
    return row


def _count(session: Session, cfg: Config, address: str, now: datetime, which: CapField,
           limit: int) -> bool:
    """Count one mail to ``address`` today in ``which``; False (nothing counted) once
    ``limit`` is reached."""
    day = local_day(now, cfg.bot.timezone)
    row = _count_row(session, address.strip().lower(), day)
    used = getattr(row, which) or 0
    if used >= limit:
        return False
    setattr(row, which, used + 1)
    return True


def _capped(session: Session, cfg: Config, mail: Mail, now: datetime) -> str:
    """What the caps say of one mail: ``send``, ``drop`` (over a member's cap, or already
    queued under its dedupe key) or ``summary`` (over the TD's cap: kept for the
    summary). Mail to anyone but the sender and the TD is never capped here: a move
    relayed to the opponent is the game's, not the sender's to spend."""
    address = mail.to.address.strip().lower()
    work = work_of(session)
    cause = work.cause
    # the club's TD, an event's TD (audience "td") and the operator's alerts alike
    is_td = mail.audience in ("td", "operator") or address == cfg.bot.td.strip().lower()
    reply = cause is not None and (address == cause or mail.auto_submitted == "auto-replied")
    if mail.kind == SUMMARY_KIND or not (reply or is_td or mail.capped):
        return "send"
    if mail.dedupe_key is not None and not mail.unique and session.scalar(
            select(Outbox.id).where(Outbox.dedupe_key == mail.dedupe_key)) is not None:
        return "drop"  # queued before: counts nothing (the sweep asks again and again)
    over = "summary" if is_td else "drop"
    if mail.capped and not under_cap(session, cfg, address, now):
        return over
    if (mail.capped or work.unproven) and not is_td and not (
            _count(session, cfg, address, now, "unproven", cfg.mail.unproven_address_cap)
            and _count(session, cfg, UNPROVEN_KEY, now, "unproven", cfg.mail.unproven_cap)):
        return UNPROVEN_HELD  # the TD's next summary lists it (issue 22 item 6)
    if reply:
        return "send" if _count(session, cfg, address, now, "replies",
                                cfg.mail.reply_cap) else over
    if is_td:
        return "send" if _count(session, cfg, address, now, "alerts",
                                cfg.mail.td_alert_cap) else over
    return "send"


def link_games(session: Session, game_ids: Iterable[str], own: str | None, *,
               inbound: Inbound | None = None, outbox: Outbox | None = None) -> None:
    """Put a mail in these games' exports too (J19), besides its own game ``own``."""
    for gid in dict.fromkeys(game_ids):
        if gid != own:
            session.add(MailGame(game_id=gid, inbound=inbound, outbox=outbox))


def _token_game(mail: Mail, game_address: str | None) -> str | None:
    """The game whose token a mail's Reply-To carries: a player's mail about one game
    carries that game's token (its scope: that game's moves and keywords), so that a
    reply with a move acts (issue 22); the TD's mail the member token (its scope: commands
    naming their games), unless it comes from the game's address."""
    if game_address is not None or mail.audience in ("player", "member"):
        return mail.game_id
    return None


@dataclass(frozen=True)
class Rendered:
    """One mail effect as its reader gets it, before it is a row or MIME: the subject, the
    body with the footer, the addresses it comes from and is answered at, the HTML part."""

    subject: str
    body: str
    game_address: str | None
    reply_to: str | None
    alternative: Alternative | None


def rendered(cfg: Config, mail: Mail) -> Rendered:
    """Render one mail effect (templates, footer, Reply-To, HTML part), storing nothing."""
    subject, body = render_mail(mail)
    kind = mail.context.get("game_kind")  # the mail's game, when it is about one
    # once per mail, after its sections
    body = with_footer(cfg, mail.lang, body, kind if isinstance(kind, str) else "")
    game_address = cfg.bot.game_address(mail.game_id) if mail.game_id and mail.via_game else None
    reply_to = (mail.reply_to if mail.reply_to_fixed
                else reply_address(cfg, mail.to, _token_game(mail, game_address)))
    return Rendered(
        subject, body, game_address, reply_to or game_address or mail.reply_to,
        # issue 15: players and members also get an HTML part (board as a picture)
        alternative(mail.lang, subject, body, mail.context, cfg.bot.domain)
        if mail.audience in ("player", "member") else None)


def emit(session: Session, cfg: Config, mail: Mail, now: datetime) -> Outbox | None:
    """Render and queue one mail effect; None when its dedupe key was already queued or
    the mail is over a cap (:func:`caused_by`; the TD's is queued unsent, for the next
    summary)."""
    verdict = _capped(session, cfg, mail, now)
    if verdict == "drop":
        return None
    if verdict in ("summary", UNPROVEN_HELD):
        mail = replace(mail, defer=False, threads_game=False)
    own = td_plays(session, mail)
    if own:
        mail = replace(mail, context={**mail.context, TD_PLAYS: own})
    out = rendered(cfg, mail)
    row = queue_mail(
        session, cfg, kind=mail.kind, to=mail.to, subject=out.subject, body=out.body, now=now,
        game_id=mail.game_id, reply_to=out.reply_to, from_address=out.game_address,
        in_reply_to=mail.in_reply_to, references=mail.references,
        dedupe_key=mail.dedupe_key, auto_submitted=mail.auto_submitted, unique=mail.unique,
        defer=mail.defer, headers=mail.headers, alternative=out.alternative,
    )
    if row is not None and verdict == "summary":
        row.status = HELD_FOR_SUMMARY
    if row is not None and verdict == UNPROVEN_HELD:
        row.status = UNPROVEN_HELD
    if row is not None and mail.about:
        assert not mail.defer, "a deferred row is written apart from the session"
        link_games(session, mail.about, mail.game_id, outbox=row)
    if mail.threads_game and mail.game_id is not None and row is not None:
        game = session.get(Game, mail.game_id)
        if game is not None:
            game.last_out_message_id = row.message_id
    return row


def emit_all(session: Session, cfg: Config, mails: Iterable[Mail], now: datetime) -> int:
    """Emit every effect in order; returns how many rows were queued."""
    return sum(emit(session, cfg, mail, now) is not None for mail in mails)
