"""Holding a mail that did not prove its sender, and confirming it (INTERFACE.md "Who may
act", issue 12).

A mail from a registered address that carries neither a reply token issued to that
member (or TD) nor our MTA's ``dmarc=pass`` could come from anyone who knows the
address: an opponent can write ``From: <you>``. It is kept, not applied, and one short
request goes to the address it claims to come from, quoting what arrived. Only the
owner of that mailbox reads the request, so only they can answer its ``c.`` token
address (GitLab's and Mailman's reply-by-email do the same):

* a reply from that member (any of their registered addresses) with a line ``confirm`` /
  ``確認`` alone confirms: the held mail then acts as of its own arrival (INTERNALDATE),
  so the clock is as if it had been authenticated (J6);
* a reply whose own text has a line ``cancel`` / ``取消`` drops it;
* a reply with moves or commands of its own is the member's new mail, and it lapses;
* any other reply confirms nothing and is asked once more; automated replies never count;
* a later authenticated mail of the member about any game it names supersedes it, and so
  does an authenticated mail that acts on one of those games;
* unconfirmed, it lapses after :data:`HOLD_DAYS` days (the sweep).

The opponent hears nothing of a held mail. Requests count against the per-address daily
reply cap (G7), so fifty forged mails bring the address a few requests, not fifty.

本人確認のできないメールは保留し、登録アドレスに確認を求めます。確認の返信があれば、
元のメールを受信時刻のまま適用します（相手には何も伝えません）。7日で失効します。
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.clocks import local_day
from relaybot.core.names import display_name
from relaybot.core.reading import Reading
from relaybot.mail.inbound import InboundMail, parse_mail
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import Mail, emit
from relaybot.pipeline.replies import quote_block
from relaybot.store.models import Game, Hold, Inbound, Member

HOLD_DAYS = 7
QUOTE_LINES = 20  # enough of the mail to recognise it; the rest is "..."


@dataclass(frozen=True)
class Holder:
    """Who must confirm a hold: a member (``member``) or a TD (``td``, an address)."""

    address: str  # the registered address the mail came from; the request goes there
    name: str
    lang: str
    member: Member | None = None
    td: str | None = None

    @property
    def recipient(self) -> Recipient:
        """The request's recipient (a member's token, or the TD's)."""
        return Recipient(display_name(self.name, self.lang), self.address,
                         self.member.id if self.member else None)


def hold(session: Session, cfg: Config, who: Holder, mail: InboundMail, inbound: Inbound,
         now: datetime, reading: Reading) -> str:
    """Keep ``mail`` until ``who`` confirms it; send the one confirmation request. The hold
    is bound to every game its one ``reading`` names (address, subject tag, labels)."""
    games = list(reading.games)
    row = Hold(inbound=inbound, member_id=who.member.id if who.member else None, td=who.td,
               address=who.address, game_id=games[0] if games else None,
               games=" ".join(games), status="held",
               created_at=now, expires_at=now + timedelta(days=HOLD_DAYS))
    session.add(row)
    session.flush()  # the hold's id is the token's scope
    recipient = (str(who.member.id) if who.member is not None
                 else tokens.td_recipient(cfg.bot.td, who.td or who.address))
    row.token = tokens.issue(cfg.bot.token_keys()[0], tokens.confirmation_scope(row.id),
                             recipient)
    inbound.game_id = row.game_id
    emit(session, cfg, _notice(cfg, who, mail, "request", token=row.token,
                               until=local_day(row.expires_at, cfg.bot.timezone)), now)
    return "held"


def forged(session: Session, cfg: Config, who: Holder, mail: InboundMail,
           now: datetime) -> str:
    """Our MTA says the From: domain failed DMARC: nothing acts, and the registered
    address is told that someone wrote in its name (capped like every reply)."""
    emit(session, cfg, _notice(cfg, who, mail, "forged"), now)
    return "forged"


def supersede(session: Session, reading: Reading, now: datetime, *,
              member: Member | None = None, td: str | None = None) -> int:
    """An authenticated mail read as ``reading``: older holds lapse (``superseded``) when

    * they are the same sender's (``member`` or ``td``) and name one of the mail's games,
      or name no game at all (the newer mail is what they meant), or
    * the mail acts on a game they name, whoever held them (the game has moved on: a
      held mail written for the old position must never act on the new one).

    Returns how many lapsed.
    """
    named = set(reading.games)
    acted = {g for g in reading.game_targets if g is not None} if reading.acts else set()
    if member is not None and acted:
        # only a game the member plays moves on: a mail naming someone else's game acts
        # on nothing there and must not drop its players' held mail (G12)
        acted = {g for g in acted if (game := session.get(Game, g)) is not None
                 and member.id in (game.side0_id, game.side1_id)}
    mine = (Hold.member_id == member.id) if member is not None else (
        (Hold.td == td) if td is not None else None)
    wanted = [Hold.games.contains(g) for g in sorted(named | acted)]
    if mine is not None:
        wanted.append(mine)
    if not wanted:
        return 0
    count = 0
    for row in session.scalars(select(Hold).where(Hold.status == "held", or_(*wanted))):
        games = set(row.games.split()) or ({row.game_id} if row.game_id else set())
        own = (member is not None and row.member_id == member.id) or (
            td is not None and row.member_id is None and row.td == td)
        if (own and (not games or games & named)) or games & acted:
            row.status, row.resolved_at = "superseded", now
            count += 1
    return count


def lapse(session: Session, now: datetime) -> int:
    """Holds unconfirmed for :data:`HOLD_DAYS` days lapse (the sweep); returns how many."""
    result = session.execute(update(Hold).where(
        Hold.status == "held", Hold.expires_at <= now,
    ).values(status="lapsed", resolved_at=now))
    return int(getattr(result, "rowcount", 0) or 0)


Apply = Callable[[Session, Config, "Hold", InboundMail, datetime], str]


@dataclass(frozen=True)
class NewMail:
    """A reply to a confirmation request that carries moves or commands of its own: the
    sender's new mail, about ``hold``'s games when it names none; ``proven`` (the ``c.``
    token counts as the sender's) only while that hold was still waiting."""

    hold: Hold
    proven: bool


def answer(session: Session, cfg: Config, mail: InboundMail, token: str,
           from_member: Member | None, from_td: str | None, now: datetime,
           apply: Apply, reading: Reading) -> str | NewMail:
    """A reply to a confirmation request's ``c.<token>`` address, read as ``reading``.

    It counts only from the one who was asked (the member, from any of their addresses,
    or the TD) and only with a token issued to them for that hold; a trusted
    ``dmarc=fail`` counts for nothing. Then, on its one reading:

    * moves or commands of its own: the sender's new mail; the hold lapses and is
      returned (:class:`NewMail`), so that the caller handles the mail in the thread of the
      games the hold names, as authenticated when the hold was still waiting (the token
      is theirs) and as unproven otherwise;
    * an automated reply (an out-of-office without RFC 3834 headers): nothing;
    * ``cancel`` / ``取消`` alone on a line: the hold is dropped;
    * ``confirm`` / ``確認`` (``yes`` / ``はい``) alone on a line: the held mail acts as of its
      arrival (``apply`` returns its outcome word);
    * anything else confirms nothing and is answered once more, once.
    """
    row = session.scalar(select(Hold).where(Hold.token == token))
    if row is None or mail.dmarc_fail or not _asked(cfg, row, from_member, from_td, token):
        return "confirm_refused"  # not theirs to confirm: nothing acts, nothing is said
    held_row = session.get(Inbound, row.inbound_id)
    answered = min((f.line for f in reading.found if f.does == "answer"), default=None)
    if out_of_office(mail, held_subject=held_row.subject if held_row else "",
                     before_line=answered):
        return "confirm_automated"  # never confirms, never answered (G7)
    intent = reading.intent
    # a player's command lines do nothing (only a TD's do): "Rest assured ..." or
    # "Result: ..." in a member's reply is prose, not a new mail that drops the hold (G12)
    if (reading if from_td is not None else reading.without_commands).acts:
        # the c. token proves the sender only while its one hold waits (G12): once the
        # hold is confirmed, cancelled, superseded or lapsed, a forwarded request is no
        # login, and the new mail is held like any other
        proven = row.status == "held" and row.expires_at > now
        if row.status == "held":
            row.status, row.resolved_at = ("superseded" if proven else "lapsed"), now
        return NewMail(row, proven)
    who = _holder(session, cfg, row)
    if row.status == "held" and row.expires_at <= now:
        row.status, row.resolved_at = "lapsed", now
    if row.status != "held":
        if intent.confirm or intent.cancel:
            emit(session, cfg, _notice(cfg, who, mail, "gone", status=row.status), now)
        return "confirm_" + row.status
    held = session.get(Inbound, row.inbound_id)
    assert held is not None
    original = parse_mail(held.raw, own_addresses=[cfg.bot.address],
                          trusted_authserv=cfg.bot.authserv_id)
    if intent.cancel:
        row.status, row.resolved_at = "cancelled", now
        # the answer to the reply, quoting what was dropped (not the word "cancel")
        emit(session, cfg, _notice(cfg, who, mail, "cancelled", quoted=original), now)
        return "hold_cancelled"
    if not intent.confirm:
        if row.asked_again:
            return "confirm_unclear"
        row.asked_again = True
        emit(session, cfg, _notice(cfg, who, mail, "again", token=row.token,
                                   until=local_day(row.expires_at, cfg.bot.timezone),
                                   quoted=original), now)
        return "confirm_asked_again"
    row.status, row.resolved_at = "confirmed", now
    outcome = apply(session, cfg, row, original, now)
    held.outcome = ("confirmed " + outcome)[:40]
    return "confirmed"


# Out-of-office replies that clients send without RFC 3834's Auto-Submitted: their
# subjects and first lines, lower case (NFKC). They never confirm and get no answer.
_OUT_OF_OFFICE_SUBJECTS = (
    "out of office", "out of the office", "automatic reply", "auto reply", "auto-reply",
    "autoreply", "auto response", "autoresponse", "vacation", "away from", "abwesend",
    "absence", "不在", "自動返信", "自動応答", "休暇",
)
_OUT_OF_OFFICE_BODIES = (
    "out of the office", "out of office", "on vacation", "on holiday", "on leave until",
    "away from the office", "away from my desk", "limited access to email",
    "不在にして", "不在のため", "自動返信", "自動応答", "休暇をいただいて",
)


def out_of_office(mail: InboundMail, held_subject: str = "",
                  before_line: int | None = None) -> bool:
    """True for an out-of-office reply by its subject or its first lines.

    ``held_subject``: the held mail's own subject, which the request's subject repeats and
    a reply's subject quotes (a leave asked for with "休暇" or "vacation" in its subject is
    no autoresponder's word); ``before_line``: the line that answers the request
    ("confirm"), after which the member's own words ("I will be on holiday from ...")
    follow the answer rather than stand in for it (G7, G12)."""
    subject = unicodedata.normalize("NFKC", mail.subject).lower()
    held = unicodedata.normalize("NFKC", held_subject).lower().strip()
    if held:
        subject = subject.replace(held, " ")
    if any(word in subject for word in _OUT_OF_OFFICE_SUBJECTS):
        return True
    lines = mail.text.splitlines()
    if before_line is not None:
        lines = lines[:before_line]
    head = unicodedata.normalize("NFKC", " ".join("\n".join(lines).strip().splitlines()[:5]))
    return any(phrase in head.lower() for phrase in _OUT_OF_OFFICE_BODIES)


def _asked(cfg: Config, row: Hold, member: Member | None, td: str | None,
           token: str) -> bool:
    """The reply comes from whom the hold's request went to, with their token."""
    keys = cfg.bot.verify_keys()
    scope = tokens.confirmation_scope(row.id)
    if row.member_id is not None:
        return member is not None and member.id == row.member_id and tokens.verify(
            keys, scope, str(member.id), token)
    return td is not None and row.td == td and tokens.verify(
        keys, scope, tokens.td_recipient(cfg.bot.td, td), token)


def _holder(session: Session, cfg: Config, row: Hold) -> Holder:
    member = session.get(Member, row.member_id) if row.member_id is not None else None
    if member is not None:
        return Holder(row.address, member.name, member.lang, member=member)
    return Holder(row.address, "TD", cfg.bot.language, td=row.td)


def member_holder(member: Member, address: str) -> Holder:
    """A member who must confirm what came from ``address`` (one of theirs)."""
    return Holder(address, member.name, member.lang, member=member)


def td_holder(cfg: Config, address: str) -> Holder:
    """A TD who must confirm commands that came from ``address``."""
    return Holder(address, "TD", cfg.bot.language, td=address)


def _quote(mail: InboundMail) -> str:
    """The start of what arrived, each line behind "> " so it cannot pass for our text."""
    lines = mail.text.strip("\n").splitlines()
    more = ["..."] if len(lines) > QUOTE_LINES else []
    return quote_block("\n".join(lines[:QUOTE_LINES] + more))


def _notice(cfg: Config, who: Holder, mail: InboundMail, kind: str, *,
            token: str | None = None, until: date | None = None,
            status: str = "", quoted: InboundMail | None = None) -> Mail:
    """One short mail about a hold, in the holder's language, answering ``mail`` and
    quoting ``quoted`` (default: ``mail`` itself); requests carry the ``c.`` token
    address as their Reply-To."""
    reply_to = (tokens.format_address(cfg.bot.local, cfg.bot.domain, "c", token)
                if token is not None else None)
    return Mail(
        kind=f"hold_{kind}", template="hold", audience="member", to=who.recipient,
        lang=who.lang,
        context={"reader": who.name, "kind": kind, "subject": (quoted or mail).subject,
                 "quoted": _quote(quoted or mail), "until": until, "status": status,
                 "td": who.td is not None, "days": HOLD_DAYS},
        in_reply_to=mail.message_id, references=(*mail.references, mail.message_id),
        auto_submitted="auto-replied", reply_to=reply_to, reply_to_fixed=token is not None,
        capped=True)
