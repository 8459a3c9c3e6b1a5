"""The write side of the transactional outbox (G4): one composed mail as one row.

A row is written in the same transaction as the state change it reports; its
Message-ID is fixed here, so a resend after a crash is recognisably the same mail.
Only the effects stage (:mod:`relaybot.pipeline.effects`) and the outbox's own
notices call :func:`queue_mail`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.mail.compose import (
    Alternative,
    compose,
    flatten,
    message_id_for,
    new_token,
    new_verp_token,
    verp_address,
)
from relaybot.mail.work import work_of
from relaybot.store.models import Outbox


@dataclass(frozen=True)
class Recipient:
    name: str
    address: str
    member_id: int | None = None


def queue_mail(
    session: Session,
    cfg: Config,
    *,
    kind: str,
    to: Recipient,
    subject: str,
    body: str,
    now: datetime,
    game_id: str | None = None,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    dedupe_key: str | None = None,
    auto_submitted: str = "auto-generated",
    from_address: str | None = None,
    unique: bool = False,
    defer: bool = False,
    alternative: Alternative | None = None,
    headers: Mapping[str, str] | None = None,
) -> Outbox | None:
    """Add one outgoing mail to the session; None when ``dedupe_key`` was already queued.

    ``unique=True``: the caller knows the key is new (bulk queueing); the database's
    unique constraint still refuses a duplicate, failing the whole transaction.
    ``defer=True`` (rows without a key): the row waits in the session for
    :func:`insert_deferred`, which writes all waiting rows in one statement.
    """
    if dedupe_key is not None and not unique:
        exists = session.scalar(select(Outbox.id).where(Outbox.dedupe_key == dedupe_key))
        if exists is not None:
            return None
    bot = cfg.bot
    token = new_token()
    message_id = message_id_for(token, bot.domain)
    msg = compose(
        from_name=bot.name,
        from_addr=from_address or bot.address,
        to_name=to.name,
        to_addr=to.address,
        subject=subject,
        body=body,
        message_id=message_id,
        date=now,
        reply_to=reply_to,
        in_reply_to=in_reply_to,
        references=references,
        auto_submitted=auto_submitted,
        extra={"X-Relaybot-Kind": kind, **({"X-Relaybot-Game": game_id} if game_id else {}),
               **(headers or {})},
        alternative=alternative,
    )
    values = {
        "message_id": message_id, "dedupe_key": dedupe_key, "kind": kind,
        "game_id": game_id, "member_id": to.member_id, "recipient": to.address,
        # G6: a VERP token of its own, not the Message-ID's (issue 12 item 7); stored in
        # lower case, the form identify looks a delivery report's address up in
        "envelope_from": verp_address(bot.local.lower(), bot.domain.lower(), new_verp_token()),
        "raw": flatten(msg),
        "status": "pending", "attempts": 0, "next_attempt_at": now, "last_error": "",
        "created_at": now,
    }
    row = Outbox(**values)
    if defer and dedupe_key is None:
        work_of(session).deferred.append(values)
        return row  # not in the session: the caller only reads it
    if dedupe_key is None or unique:
        session.add(row)
        return row
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        return None
    return row


def insert_deferred(session: Session) -> None:
    """Write the rows queued with ``defer=True`` since the last call, in queue order, in
    one statement of the session's transaction.

    No autoflush first: a queued row refers only to rows already written (its game and
    member), and the caller's own pending changes are flushed once, later, with the rest.
    """
    work = work_of(session)
    rows, work.deferred = work.deferred, []
    if rows:
        session.execute(insert(Outbox), rows, execution_options={"autoflush": False})


def discard_deferred(session: Session) -> None:
    """Forget rows queued with ``defer=True`` whose work was rolled back unwritten."""
    work_of(session).deferred = []
