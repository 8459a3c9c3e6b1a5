"""``relaybot host``: several clubs on one machine, one ``relaybot run`` each (issue 31)."""

from __future__ import annotations

import argparse
from pathlib import Path

from relaybot.cli.common import CliError, Subparsers
from relaybot.config import Config, ConfigError, redact_url


def register(sub: Subparsers) -> None:
    host = sub.add_parser("host", help="several clubs on one machine: check a host file, "
                          "or run every club it names (one `relaybot run` each)")
    host.add_argument("action", choices=["check", "run"],
                      help="check: read every club's settings and say what would run; "
                           "run: serve every club until SIGTERM")
    host.add_argument("file", metavar="HOST.toml",
                      help="[[club]] entries: name, config (the club's relaybot.toml), "
                           "instances (several only on PostgreSQL)")
    host.add_argument("--alive-dir", metavar="DIR",
                      help="each club's service touches DIR/<club>-<n> every 30 s")
    host.set_defaults(func=cmd_host)


def cmd_host(_cfg: Config | None, args: argparse.Namespace) -> int:
    from relaybot.app.host import Host, load_host
    from relaybot.app.logs import configure as configure_logging

    try:
        entries = load_host(Path(args.file))
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    if args.action == "check":
        for e in entries:
            print(f"{e.name}: {e.cfg.bot.address} (TD {e.cfg.bot.td}, {e.cfg.bot.language}, "
                  f"{e.cfg.bot.timezone}), mailbox {e.cfg.imap.user}@{e.cfg.imap.host}, "
                  f"database {redact_url(e.cfg.database.url)}, {e.instances} instance(s)")
        return 0
    configure_logging(entries[0].cfg.log.level, entries[0].cfg.log.format)
    return Host(entries, Path(args.alive_dir) if args.alive_dir else None).run()
