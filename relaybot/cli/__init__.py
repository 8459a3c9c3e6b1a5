"""The ``relaybot`` command line (INTERFACE.md). Every failure is one clear line.

One module per command group adds its commands to the parser (``register(sub)``) and holds
their handlers (``cmd_<group>_<command>(cfg, args) -> exit status``); ``common`` holds what
they share: the errors, opening the store, ``--now`` and dates. Here are only the parser's
top and ``main``, which turns every failure into one line and an exit status. How to add
a command: docs/architecture.md.

Each command imports what it needs when it runs: building the parser takes argparse and
the light modules only (``relaybot.config``, the groups' ``register``), so ``relaybot
--help``, ``--version`` or a typo do not load SQLAlchemy, Alembic, the mail stack, the web
or any game first; ``tests/unit/test_cli_startup.py`` holds that and ``bench/cli.py``
times it. (No import cycle is behind these imports: ``python
../shared/tools/import_cycles.py relaybot`` finds none.)
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

from relaybot.cli import (
    check,
    club,
    digest,
    events,
    games,
    host,
    init,
    members,
    run,
    seasons,
    serve,
    td,
)
from relaybot.cli.common import EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE, CliError, Unreachable
from relaybot.config import ConfigError, load_config, redact_url

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_UNREACHABLE", "CliError", "Unreachable",
           "build_parser", "main"]

GROUPS = (init, check, members, games, run, host, digest, events, seasons, club, td, serve)
"""The command groups, in the order ``relaybot --help`` lists their commands: init,
check, member, game, run, host, digest, event, season, club, announce, td, demo, web."""


def _version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("relaybot")
    except PackageNotFoundError:
        import relaybot

        return str(getattr(relaybot, "__version__", "unknown"))


class _VersionAction(argparse.Action):
    """``--version``: reads the installed version only when asked, since importlib.metadata
    (and the email parser it reads the metadata with) would cost every command's start."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        """Print ``relaybot VERSION`` and exit 0, as argparse's own version action does."""
        print(f"relaybot {_version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose answer to a mistyped command or subcommand names the
    nearest one (Python 3.11's argparse lists them all and leaves the reader to look)."""

    def error(self, message: str) -> NoReturn:
        """Print one line, ``message`` (with a suggestion where one is close) and where the
        command's help is, and exit 2: an operator's mistake is one clear line, not the
        usage block argparse prints before it."""
        found = _INVALID_CHOICE.search(message)
        if found:
            import difflib

            choices = re.findall(r"'([^']*)'", found.group("choices"))
            near = difflib.get_close_matches(found.group("word"), choices, n=1, cutoff=0.6)
            if near:
                message += f"; did you mean '{near[0]}'?"
        self.exit(2, f"relaybot: {message} (see: {self.prog} --help)\n")


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``relaybot`` argument parser: every command and option, each with its help.

    ``command``, the command word typed: the groups are registered in order up to the one
    that holds it, since a command needs no other group's parsers (building them all
    takes about 10 ms of a command's start-up). Without one (``--help``), or for
    a word no group holds, every group is registered, so the listing and the error name
    every command."""
    parser = _Parser(prog="relaybot", description=(
        "Correspondence games (chess, shogi, go) by e-mail: checks every move mail and "
        "relays it. Settings: relaybot.toml (or RELAYBOT_CONFIG) and RELAYBOT_<SECTION>_<KEY>."))
    parser.add_argument("--version", action=_VersionAction,
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in GROUPS:
        group.register(sub)
        if command is not None and command in sub.choices:
            break
    return parser


def _quiet_stdout() -> None:
    """After a closed pipe (``relaybot game pgn ID | head -1``): send what is left of
    stdout to /dev/null, so flushing it at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _undecodable(argv: Sequence[str]) -> str | None:
    """The first argument holding bytes that were not UTF-8 (Python keeps them as lone
    surrogates, which no database can store: issue 12 item 11), or None."""
    return next((a for a in argv if any("\ud800" <= ch <= "\udfff" for ch in a)), None)


def _failure_line(exc: Exception) -> str | None:
    """The one line for a failure of the database or of the operator's input to the
    club's admin, or None for any other exception.

    Neither class is imported to ask: an exception of a class can only have been raised
    once its module was loaded, so a module not in ``sys.modules`` rules it out, and the
    command line never loads SQLAlchemy or the club's ledgers just to catch their errors.
    """
    if "relaybot.club.errors" in sys.modules:
        from relaybot.club.errors import AdminError

        if isinstance(exc, AdminError):
            return str(exc)
    if "sqlalchemy" in sys.modules:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(exc, SQLAlchemyError):
            return (f"database error: {exc.__class__.__name__}: "
                    f"{redact_url(str(exc).splitlines()[0])}")
    return None


SERVICES = frozenset({"run", "demo", "web", "host"})
"""Commands that run until stopped (or that start such a service)."""

ONE_SHOT_GC_THRESHOLD = 50_000
"""Allocations between the cyclic collector's young-generation passes in a one-shot command
(the interpreter's default is 700)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``relaybot`` console script."""
    bad = _undecodable(sys.argv[1:] if argv is None else argv)
    if bad is not None:
        shown = bad.encode("utf-8", "backslashreplace").decode("ascii", "replace")
        print(f"relaybot: not valid UTF-8 text: {shown}", file=sys.stderr)
        return 2
    words = sys.argv[1:] if argv is None else list(argv)
    # the one top-level option is --version (and -h): a first word without a dash is
    # the command
    parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
    args = parser.parse_args(words)
    thresholds = gc.get_threshold()
    if args.command not in SERVICES:
        # Loading SQLAlchemy, the mapped tables and a game's library makes some hundred
        # thousand objects that live as long as the process; at the default threshold the
        # collector walks them again and again while they load (about 5% of `game show`).
        # A command that ends soon collects less often; a service keeps the default.
        gc.set_threshold(ONE_SHOT_GC_THRESHOLD, *thresholds[1:])
    try:
        # init writes the config that RELAYBOT_CONFIG names (a container's first start) and
        # loads it itself; the demo needs none
        cfg = load_config() if args.command not in ("demo", "init") else None
        if cfg is not None and args.command != "run":
            from relaybot.app.logs import configure as configure_logging

            # warnings and errors in the operator's chosen form; run sets its own level
            configure_logging("warning", cfg.log.format)
        status = int(args.func(cfg, args))
        sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
        return status
    except BrokenPipeError:
        _quiet_stdout()  # the reader has what it wanted: no traceback, no message
        return 0
    except CliError as exc:
        print(f"relaybot: {exc}", file=sys.stderr)
        return exc.status
    except ConfigError as exc:
        print(f"relaybot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        line = _failure_line(exc)
        if line is None:
            raise
        print(f"relaybot: {line}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        gc.set_threshold(*thresholds)  # main also runs inside other programs (tests, scripts)
