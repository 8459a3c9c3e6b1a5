"""``relaybot announce`` and ``relaybot td``: what the TD does from the command line.

The TD commands themselves are ``pipeline/td/``'s, the same ones a TD's mail runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from relaybot.cli.common import CliError, Subparsers, now_of, now_option, open_store
from relaybot.config import Config

_COMMANDS_HERE = "\x00td-commands\x00"
"""Where ``td --help`` lists the TD commands; they are read only when help is printed,
so that ``relaybot`` itself does not import the mail pipeline to start."""


def commands_help() -> str:
    """Every TD command, one a line, with how to write it in English and in Japanese."""
    from relaybot.pipeline.td import COMMANDS

    lines = ["commands (the same as in a TD mail; English or Japanese):"]
    for command in dict.fromkeys(COMMANDS.values()):
        lines.append(f"  {command.usage}")
        lines.append(f"    {command.usage_ja}")
    lines += ["", "SIDE: white/black (chess), sente/gote or 先手/後手 (shogi), black/white "
              "or 黒/白 (go)",
              "RESULT: chess 1-0, 0-1, 1/2-1/2; shogi sente, gote, draw, both-lose; go B+3.5, "
              "W+R, jigo"]
    return "\n".join(lines)


class _TdHelp(argparse.RawDescriptionHelpFormatter):
    """Help for ``relaybot td``: its epilog is the list of TD commands."""

    def add_text(self, text: Any) -> None:
        """Put the TD commands where the epilog marks them."""
        super().add_text(commands_help() if text == _COMMANDS_HERE else text)


def register(sub: Subparsers) -> None:
    announce = sub.add_parser("announce", help="a TD announcement for the weekly digest")
    announce.add_argument("text", nargs="+", help="the announcement")
    announce.set_defaults(func=cmd_announce)

    td = sub.add_parser("td", help="TD commands: forfeit, adjudicate, result, approve or "
                        "refuse leave, withdraw, answer (td --help lists them)",
                        epilog=_COMMANDS_HERE, formatter_class=_TdHelp)
    td.add_argument("words", nargs="+", help="the command, as in a TD mail: forfeit ID white")
    now_option(td)
    td.set_defaults(func=cmd_td)


def cmd_announce(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.store.models import Announcement

    text = " ".join(args.text).strip()
    if not text:
        raise CliError("the announcement is empty")
    store = open_store(cfg)
    with store.session() as session:
        session.add(Announcement(text=text, created_at=now_of(args)))
    print("announcement saved for the next weekly digest")
    return 0


def cmd_td(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.app.outbox import send_pending
    from relaybot.pipeline.td import NAMES_TEXT, Context, find_commands

    store = open_store(cfg)
    now = now_of(args)
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
