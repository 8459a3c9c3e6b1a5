"""``relaybot run``: the service (IMAP, outbox, scheduler), or one cycle of it (``--once``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from relaybot.cli.common import CliError, Subparsers, Unreachable, open_store, parse_now
from relaybot.config import Config, redact_url


def register(sub: Subparsers) -> None:
    run = sub.add_parser("run", help="the service (IMAP, outbox, scheduler); exit 3 when "
                         "a server cannot be reached (--once)")
    run.add_argument("--once", action="store_true", help="one full cycle, then exit")
    run.add_argument("--now", metavar="ISO-8601",
                     help="the clock for the whole cycle (with --once), e.g. "
                          "2026-11-22T09:00:00+09:00; a time without a zone is UTC")
    run.add_argument("--alive-file", metavar="PATH",
                     help="touch PATH every 30 s while the service holds its lock and the "
                          "database answers (for a container health check)")
    run.set_defaults(func=cmd_run)


def cmd_run(cfg: Config, args: argparse.Namespace) -> int:
    import logging

    from relaybot.app.logs import configure as configure_logging
    from relaybot.app.runner import Service, run_once
    from relaybot.mail.imap import ImapError
    from relaybot.mail.preflight import login_problems
    from relaybot.store.locks import InstanceLock, LockHeld

    now = parse_now(args.now)
    if now is not None and not args.once:
        raise CliError("--now only goes with --once")
    cfg.bot.token_keys()  # no secret: refuse before any mail goes out (issue 12)
    problems = login_problems(cfg)  # an empty password: say so before any connection
    if problems:
        raise CliError(problems[0])
    configure_logging(cfg.log.level, cfg.log.format)
    store = open_store(cfg)
    lock = InstanceLock(store)
    try:
        lock.acquire()
    except LockHeld as exc:
        raise CliError(str(exc)) from None
    try:
        if args.once:
            try:
                report = run_once(store, cfg, now, scheduled=lock.leader)
            except ImapError as exc:
                raise Unreachable(f"IMAP {cfg.imap.host}:{cfg.imap.port}: {exc}") from None
            p, s = report.poll, report.send
            # G9: on PostgreSQL another instance may lead: it runs the scheduled work
            scheduled = report.scheduled if lock.leader else "left to the leader"
            print(f"mail: {p.processed} processed, {p.quarantined} quarantined, "
                  f"{p.failed} failed; scheduled: {scheduled}; "
                  f"sent: {s.sent}, retrying: {s.retried}, bounced: {s.bounced}")
            if s.unreachable:
                # the cycle ran, but nothing could go out: the operator must know (exit 3)
                raise Unreachable(f"SMTP {cfg.smtp.host}:{cfg.smtp.port}: {s.error}; "
                                  f"{s.retried} mails stay queued")
            return 0
        service = Service(store, cfg, Path(args.alive_file) if args.alive_file else None)
        service.listen()  # [imap] wake_listen: a port in use is one line, before "serving"
        service.install_signals()
        logging.getLogger("relaybot").info(
            "serving %s as %s, %s (database %s)", cfg.bot.address, lock.holder,
            "leader" if lock.leader else "follower", redact_url(cfg.database.url))
        service.run(lock)
        return 0
    finally:
        lock.release()
