"""``relaybot digest send``: this week's digests, queued and sent now."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from relaybot.cli.common import Subparsers, open_store, parse_now
from relaybot.config import Config
from relaybot.progress import progress_bar


def register(sub: Subparsers) -> None:
    digest = sub.add_parser("digest", help="weekly digests").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    send = digest.add_parser("send", help="queue and send this week's digests now")
    send.add_argument("--now", metavar="ISO-8601", help="the clock (default: now)")
    send.set_defaults(func=cmd_digest_send)


def cmd_digest_send(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.digest import send_digests
    from relaybot.outbox import send_pending

    store = open_store(cfg)
    now = parse_now(args.now) or datetime.now(UTC)
    with progress_bar("writing digests") as advance:
        queued = send_digests(store, cfg, now, progress=advance)
    with progress_bar("sending") as advance:
        counts = send_pending(store, cfg, now, progress=advance)
    print(f"digests queued: {queued}; sent: {counts.sent}, retrying: {counts.retried}")
    return 0
