"""``relaybot announce`` and ``relaybot td``: what the TD does from the command line.

The TD commands themselves are ``pipeline/td.py``'s, the same ones a TD's mail runs.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from relaybot.cli.common import CliError, Subparsers, open_store, parse_now
from relaybot.config import Config


def register(sub: Subparsers) -> None:
    announce = sub.add_parser("announce", help="a TD announcement for the weekly digest")
    announce.add_argument("text", nargs="+", help="the announcement")
    announce.set_defaults(func=cmd_announce)

    td = sub.add_parser("td", help="TD commands: forfeit, adjudicate, approve leave, ...")
    td.add_argument("words", nargs="+", help="the command, as in a TD mail: forfeit ID white")
    td.add_argument("--now", metavar="ISO-8601",
                    help="the time the command takes effect (default: now)")
    td.set_defaults(func=cmd_td)


def cmd_announce(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.store.models import Announcement

    text = " ".join(args.text).strip()
    if not text:
        raise CliError("the announcement is empty")
    store = open_store(cfg)
    with store.session() as session:
        session.add(Announcement(text=text, created_at=datetime.now(UTC)))
    print("announcement saved for the next weekly digest")
    return 0


def cmd_td(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.outbox import send_pending
    from relaybot.pipeline.td import NAMES_TEXT, Context, find_commands

    store = open_store(cfg)
    now = parse_now(args.now) or datetime.now(UTC)
    line = " ".join(args.words)
    found = find_commands(line)
    if not found:
        raise CliError(f"not a TD command: {line!r} ({NAMES_TEXT})")
    with store.session() as session:
        outcome = found[0].command.run(Context(session, cfg, now), found[0].args, "")
    if not outcome.ok:
        raise CliError(outcome.message)
    print(outcome.message)
    send_pending(store, cfg, now)
    return 0
