"""Holding a mail that did not prove its sender, and confirming it (INTERFACE.md "Who may
act", issue 12).

A mail from a registered address that carries neither a reply token issued to that
member (or TD) nor our MTA's ``dmarc=pass`` could come from anyone who knows the
address: an opponent can write ``From: <you>``. It is kept, not applied, and one short
request goes to the address it claims to come from, quoting what arrived. Only the
owner of that mailbox reads the request, so only they can answer its ``c.`` token
address (GitLab's and Mailman's reply-by-email do the same):

* a reply from that member (any of their registered addresses) confirms: the held mail
  then acts as of its own arrival (INTERNALDATE), so the clock is as if it had been
  authenticated (J6);
* a reply whose own text has a line ``cancel`` / ``取消`` drops it;
* a later authenticated mail of the member for the same game supersedes it;
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

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.clocks import local_day
from relaybot.mail.inbound import InboundMail, parse_mail, tagged_ids
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import Mail, emit
from relaybot.pipeline.replies import quote_block
from relaybot.store.models import Hold, Inbound, Member

HOLD_DAYS = 7
QUOTE_LINES = 20  # enough of the mail to recognise it; the rest is "..."
CANCEL_WORDS = frozenset({"cancel", "取消", "取り消し", "キャンセル"})


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
        return Recipient(self.name, self.address, self.member.id if self.member else None)


def hold(session: Session, cfg: Config, who: Holder, mail: InboundMail, inbound: Inbound,
         now: datetime) -> str:
    """Keep ``mail`` until ``who`` confirms it; send the one confirmation request."""
    ids = tagged_ids(mail, cfg.bot.address)
    row = Hold(inbound=inbound, member_id=who.member.id if who.member else None, td=who.td,
               address=who.address, game_id=ids[0] if ids else None, status="held",
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


def supersede(session: Session, member: Member, game_ids: list[str], now: datetime) -> None:
    """An authenticated mail of ``member`` for these games: their older holds for the
    same games lapse (the newer mail is what they meant)."""
    if not game_ids:
        return
    session.execute(update(Hold).where(
        Hold.member_id == member.id, Hold.status == "held", Hold.game_id.in_(game_ids),
    ).values(status="superseded", resolved_at=now))


def lapse(session: Session, now: datetime) -> int:
    """Holds unconfirmed for :data:`HOLD_DAYS` days lapse (the sweep); returns how many."""
    result = session.execute(update(Hold).where(
        Hold.status == "held", Hold.expires_at <= now,
    ).values(status="lapsed", resolved_at=now))
    return int(getattr(result, "rowcount", 0) or 0)


Apply = Callable[[Session, Config, "Hold", InboundMail, datetime], str]


def confirm(session: Session, cfg: Config, mail: InboundMail, token: str,
            from_member: Member | None, from_td: str | None, now: datetime,
            apply: Apply) -> str:
    """A reply to a confirmation request's ``c.<token>`` address.

    It counts only from the one who was asked (the member, from any of their addresses,
    or the TD) and only with a token issued to them for that hold; a trusted
    ``dmarc=fail`` counts for nothing. ``apply`` carries out the held mail as of its
    arrival and returns its outcome word.
    """
    row = session.scalar(select(Hold).where(Hold.token == token))
    if row is None or mail.dmarc_fail or not _asked(cfg, row, from_member, from_td, token):
        return "confirm_refused"  # not theirs to confirm: nothing acts, nothing is said
    who = _holder(session, cfg, row)
    if row.status == "held" and row.expires_at <= now:
        row.status, row.resolved_at = "lapsed", now
    if row.status != "held":
        emit(session, cfg, _notice(cfg, who, mail, "gone", status=row.status), now)
        return "confirm_" + row.status
    row.resolved_at = now
    held = session.get(Inbound, row.inbound_id)
    assert held is not None
    original = parse_mail(held.raw, own_addresses=[cfg.bot.address],
                          trusted_authserv=cfg.bot.authserv_id)
    if _cancels(mail.text):
        row.status = "cancelled"
        # the answer to the reply, quoting what was dropped (not the word "cancel")
        emit(session, cfg, _notice(cfg, who, mail, "cancelled", quoted=original), now)
        return "hold_cancelled"
    row.status = "confirmed"
    outcome = apply(session, cfg, row, original, now)
    held.outcome = ("confirmed " + outcome)[:40]
    return "confirmed"


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


def _cancels(text: str) -> bool:
    """A line ``cancel`` / ``取消`` in the reply's own text (quoted text is already gone)."""
    for line in text.splitlines():
        word = unicodedata.normalize("NFKC", line).strip().lower().rstrip("。.!！")
        if word in CANCEL_WORDS:
            return True
    return False


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
