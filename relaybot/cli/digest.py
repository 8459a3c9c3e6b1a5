"""``relaybot digest send``: this week's digests, queued and sent now."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from relaybot.app.progress import progress_bar
from relaybot.cli.common import Subparsers, Unreachable, now_of, now_option, open_store
from relaybot.config import Config

if TYPE_CHECKING:
    from relaybot.store.db import Store


def register(sub: Subparsers) -> None:
    digest = sub.add_parser("digest", help="weekly digests").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    send = digest.add_parser("send", help="queue and send this week's digests now; exit 3 when "
                          "the SMTP server cannot be reached (they stay queued)")
    now_option(send)
    send.add_argument("--force", action="store_true",
                      help="send new members their first digest now, without waiting "
                           "for their first digest day (a member has one digest a week)")
    send.set_defaults(func=cmd_digest_send)


def digest_states(store: Store, cfg: Config, now: datetime) -> dict[str, int]:
    """How many members take the weekly digest and, of those, how many have had this
    week's (``had``), joined after this week's digest day (``waiting``), or are due."""
    from zoneinfo import ZoneInfo

    from sqlalchemy import select

    from relaybot.app.digest import digest_week, sent_week
    from relaybot.store.models import Member

    states = {"weekly": 0, "had": 0, "waiting": 0, "due": 0}
    with store.session() as session:
        for member in session.scalars(select(Member).where(Member.digest == "weekly")):
            states["weekly"] += 1
            week = digest_week(now, member.tz, cfg.digest.weekday_index)
            last = sent_week(member.last_digest_week)
            joined = member.created_at.astimezone(ZoneInfo(member.tz)).date()
            if last is not None and last >= week:
                states["had"] += 1
            elif last is None and joined > week:
                states["waiting"] += 1
            else:
                states["due"] += 1
    return states


def why_none(states: dict[str, int], cfg: Config) -> str:
    """Why a run queued no digest, in one line, with what to do."""
    if not states["weekly"]:
        return ("nothing queued: no member takes the weekly digest "
                "(relaybot member set ADDR --digest weekly)")
    day = cfg.digest.weekday.capitalize()
    reasons = []
    if states["had"]:
        reasons.append(f"{states['had']} had this week's already (one a week, on {day})")
    if states["waiting"]:
        reasons.append(f"{states['waiting']} joined after this week's {day}: their first "
                       f"comes next {day} (--force to send it now)")
    if states["due"]:
        reasons.append(f"{states['due']} had no game, result or announcement to report")
    return f"nothing queued: {'; '.join(reasons)}"


def cmd_digest_send(cfg: Config, args: argparse.Namespace) -> int:
    """Queue the digests due now (with ``--force`` every member's), send the outbox, and
    say why when nothing was queued. Exit 3 (one line) when the SMTP server could not be
    reached, as ``run --once`` does: the digests stay queued, but the operator who asked
    for them "now" must not read a 0 as "sent"."""
    from relaybot.app.digest import send_digests
    from relaybot.app.outbox import send_pending

    store = open_store(cfg)
    now = now_of(args)
    states = digest_states(store, cfg, now)
    with progress_bar("writing digests") as advance:
        queued = send_digests(store, cfg, now, force=args.force, progress=advance)
    with progress_bar("sending") as advance:
        counts = send_pending(store, cfg, now, progress=advance)
    print(f"digests queued: {queued}; sent: {counts.sent}, retrying: {counts.retried}")
    if not queued:
        if args.force:  # the waiting were due, and had nothing to report
            states = {**states, "waiting": 0, "due": states["due"] + states["waiting"]}
        print(why_none(states, cfg))
    if counts.unreachable:
        raise Unreachable(f"SMTP {cfg.smtp.host}:{cfg.smtp.port}: {counts.error}; "
                          f"{counts.retried} mails stay queued")
    return 0
